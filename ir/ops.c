/* ops.c: the op table.  Sema binds calls against it, the rule checker
 * reads the ranges and hooks, the emitter the runtime entry points and C
 * operators, and `kdslc --doc-ops` prints it. */
#include <string.h>

#include "ir.h"
#include "rules.h"

#define SP(x) (1u << KD_SP_##x)
#define DT(x) KD_DTBIT(KD_##x)
#define PURE(n, cop) {n, KD_TARGET_NONE, OK_PURE, 0, {{0}}, 0, NULL, cop, NULL, NULL, NULL, NULL, NULL}
#define TERM(n) {n, KD_TARGET_NONE, OK_TERM, 0, {{0}}, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL}

/* Integer range parameters. */
#define RANGE(n, l, h) {n, PK_INT, PF_RANGE, l, h, 0, 0}
#define TENSOR(n, fl, sp) {n, PK_TENSOR, fl, 0, 0, 0, sp}

/* Seed 001 Table 2's dtype column (the same for every scope pair). */
#define DATA_MOVE_DTYPES (DT(U8) | DT(I8) | DT(F16) | DT(U16) | DT(I16) | DT(F32) | DT(I32) | \
                          DT(U32) | DT(U64) | DT(I64))

const KdOpDesc kd_ops[KD_NOP] = {
	[OP_ADD] = PURE("add", "+"),
	[OP_SUB] = PURE("sub", "-"),
	[OP_MUL] = PURE("mul", "*"),
	[OP_DIV] = PURE("div", "/"),
	[OP_REM] = PURE("rem", "%"),
	[OP_SHL] = PURE("shl", "<<"),
	[OP_SHR] = PURE("shr", ">>"),
	[OP_AND] = PURE("and", "&"),
	[OP_OR] = PURE("or", "|"),
	[OP_XOR] = PURE("xor", "^"),
	[OP_EQ] = PURE("eq", "=="),
	[OP_NE] = PURE("ne", "!="),
	[OP_LT] = PURE("lt", "<"),
	[OP_LE] = PURE("le", "<="),
	[OP_GT] = PURE("gt", ">"),
	[OP_GE] = PURE("ge", ">="),
	[OP_LAND] = PURE("land", "&&"),
	[OP_LOR] = PURE("lor", "||"),
	[OP_NEG] = PURE("neg", "-"),
	[OP_NOT] = PURE("not", "!"),
	[OP_PLUS_UNUSED] = PURE("plus", "+"),
	[OP_CAST] = PURE("cast", NULL),
	[OP_VIEW] = PURE("view", NULL),
	[OP_JMP] = TERM("jmp"),
	[OP_BR] = TERM("br"),
	[OP_RET] = TERM("ret"),

	[OP_DATA_MOVE] = {
		"data_move", KD_TARGET_ASCEND, OK_EFFECT, 7,
		{
			TENSOR("dst", PF_WRITE, SP(GM) | SP(UB) | SP(L1)),
			TENSOR("src", 0, SP(GM) | SP(UB) | SP(L1)),
			RANGE("sid", 0, 15),
			RANGE("nburst", 1, 4095),
			RANGE("burst", 1, 65535),
			RANGE("src_stride", 0, 65535),
			RANGE("dst_stride", 0, 65535),
		},
		DATA_MOVE_DTYPES, "kdsl_ascend_data_move", NULL,
		kd_check_data_move, kd_cost_data_move,
		"Moves `nburst` bursts of `burst` 32-byte blocks. Burst k (0-based) "
		"copies `burst*32` bytes from `src + k*(burst+src_stride)*32` to "
		"`dst + k*(burst+dst_stride)*32`; the strides are tail-to-head gaps "
		"in 32-byte units.",
		"sid in 0..15; nburst in 1..4095; burst in 1..65535; src_stride and "
		"dst_stride in 0..65535; src and dst of the same dtype, one of the "
		"page's list; the scope pair one of gm->l1, l1->gm, gm->ub, ub->gm, "
		"ub->ub; ub and l1 addresses 32-byte aligned; every byte moved inside "
		"its tensor.",
		"001",
	},
	[OP_VEC_DUP] = {
		"vec_dup", KD_TARGET_ASCEND, OK_EFFECT, 5,
		{
			RANGE("mask", 1, 128),
			TENSOR("dst", PF_WRITE, SP(UB)),
			{"scalar", PK_NUM, 0, 0, 0, 0, 0},
			RANGE("repeat_times", 0, 255),
			RANGE("dst_rep_stride", 0, 255),
		},
		DT(I16) | DT(U16) | DT(I32) | DT(U32) | DT(F16) | DT(F32),
		"kdsl_ascend_vec_dup", NULL, kd_check_vec, kd_cost_vec,
		"Repeat r (0-based, r < repeat_times) writes `scalar`, converted to "
		"dst's dtype, to `mask` consecutive elements starting "
		"`r*dst_rep_stride*32` bytes after dst.",
		"mask in 1..256/sizeof(dtype); repeat_times in 0..255; dst_rep_stride "
		"in 0..255; dst in ub, 32-byte aligned; every element written inside dst.",
		"001 (example 2)",
	},
	[OP_VEC_ADD] = {
		"vec_add", KD_TARGET_ASCEND, OK_EFFECT, 8,
		{
			RANGE("mask", 1, 128),
			TENSOR("dst", PF_WRITE, SP(UB)),
			TENSOR("src0", 0, SP(UB)),
			TENSOR("src1", 0, SP(UB)),
			RANGE("repeat_times", 0, 255),
			RANGE("dst_rep_stride", 0, 255),
			RANGE("src0_rep_stride", 0, 255),
			RANGE("src1_rep_stride", 0, 255),
		},
		DT(I16) | DT(I32) | DT(F16) | DT(F32),
		"kdsl_ascend_vec_add", NULL, kd_check_vec, kd_cost_vec,
		"Repeat r adds `mask` consecutive elements of src0 and src1, each "
		"starting `r*rep_stride*32` bytes after its operand, into dst. f16 sums "
		"round to nearest even; integer sums wrap. A repeat reads all its "
		"sources before it writes, so in-place operands work.",
		"mask in 1..256/sizeof(dtype); repeat_times in 0..255; every rep "
		"stride in 0..255; all operands in ub, 32-byte aligned, of one dtype "
		"from the list; every element inside its tensor.",
		"001 (examples 2 and 3)",
	},
};

const KdOpDesc *kd_op_lookup(KdTarget target, const char *name)
{
	for (int i = 0; i < KD_NOP; i++)
		if (kd_ops[i].target == target && target != KD_TARGET_NONE &&
		    !strcmp(kd_ops[i].name, name))
			return &kd_ops[i];
	return NULL;
}

int kd_op_param_index(const KdOpDesc *d, const char *name)
{
	for (int i = 0; i < d->nparam; i++)
		if (!strcmp(d->param[i].name, name))
			return i;
	return -1;
}

static const char *kind_name(const KdOpParam *p)
{
	static const char *const names[] = {"tensor", "integer", "number", "string"};
	return names[p->kind];
}

void kd_op_doc(KdBuf *out, KdTarget target)
{
	KdArena *a = kd_arena_new();
	for (int i = 0; i < KD_NOP; i++) {
		const KdOpDesc *d = &kd_ops[i];
		if (d->target != target)
			continue;
		kd_buf_printf(out, "### `%s(", d->name);
		for (int j = 0; j < d->nparam; j++)
			kd_buf_printf(out, "%s%s", j ? ", " : "", d->param[j].name);
		kd_buf_printf(out, ")`\n\nSeed %s. %s\n\n", d->seed, d->doc);
		kd_buf_puts(out, "| parameter | kind | rule |\n| --- | --- | --- |\n");
		for (int j = 0; j < d->nparam; j++) {
			const KdOpParam *p = &d->param[j];
			kd_buf_printf(out, "| `%s` | %s%s | ", p->name, kind_name(p),
			              p->flags & PF_WRITE ? " (written)" : "");
			if (p->flags & PF_RANGE)
				kd_buf_printf(out, "%lld..%lld", (long long)p->lo, (long long)p->hi);
			if (p->spaces) {
				const char *sep = "in ";
				for (int s = 1; s < KD_NSPACE; s++)
					if (p->spaces & (1u << s)) {
						kd_buf_printf(out, "%s%s", sep, kd_spaces[s].name);
						sep = ", ";
					}
			}
			if (p->flags & PF_OPT)
				kd_buf_printf(out, " (default %lld)", (long long)p->def);
			kd_buf_puts(out, " |\n");
		}
		if (d->dtypes)
			kd_buf_printf(out, "\nDtypes: %s.\n", kd_dtype_list(a, d->dtypes));
		kd_buf_printf(out, "\nRules: %s\n\nRuntime entry: `%s`.\n\n", d->rules, d->rt);
	}
	kd_arena_free(a);
}
