/* ops.c: the op table.  Sema binds calls against it, the rule checker
 * reads the ranges and hooks, the emitter the runtime entry points and C
 * operators, and `kdslc --doc-ops` prints it. */
#include <string.h>

#include "ir.h"
#include "rules.h"
#include "verify.h"

#define SP(x) (1u << KD_SP_##x)
#define DT(x) KD_DTBIT(KD_##x)
#define PURE(n, cop) {n, KD_TARGET_NONE, OK_PURE, 0, {{0}}, 0, NULL, cop, NULL, NULL, NULL, NULL, NULL, \
                      .verify = kd_verify_core}
#define TERM(n) {n, KD_TARGET_NONE, OK_TERM, 0, {{0}}, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
                 .verify = kd_verify_core}

/* Integer range parameters. */
#define RANGE(n, l, h) {n, PK_INT, PF_RANGE, l, h, 0, 0}
#define TENSOR(n, fl, sp) {n, PK_TENSOR, fl, 0, 0, 0, sp}

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
	[OP_TILE] = PURE("tile", NULL),
	[OP_LIST] = PURE("list", NULL),
	[OP_JMP] = TERM("jmp"),
	[OP_BR] = TERM("br"),
	[OP_RET] = TERM("ret"),

#define KD_OP(name, ...) [OP_##name] = __VA_ARGS__,
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
#undef KD_OP
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
	static const char *const names[] = {"tensor", "integer", "number", "string", "vector",
	                                    "mask", "tuple of vectors", "bool", "dtype", "list",
	                                    "tensor or number"};
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
			for (int k = 0; p->enums && p->enums[k]; k++)
				kd_buf_printf(out, "%s\"%s\"", k ? ", " : "one of ", p->enums[k]);
			if (p->spaces) {
				const char *sep = "in ";
				for (int s = 1; s < KD_NSPACE; s++)
					if (p->spaces & (1u << s)) {
						kd_buf_printf(out, "%s%s", sep, kd_spaces[s].name);
						sep = ", ";
					}
			}
			if ((p->flags & PF_OPT) && p->sdef)
				kd_buf_printf(out, " (default %s)", p->sdef);
			else if (p->flags & PF_OPT)
				kd_buf_printf(out, " (default %lld)", (long long)p->def);
			kd_buf_puts(out, " |\n");
		}
		if (d->dtypes)
			kd_buf_printf(out, "\nDtypes: %s.\n", kd_dtype_list(a, d->dtypes));
		if (d->rt)
			kd_buf_printf(out, "\nRules: %s\n\nRuntime entry: `%s`.\n\n", d->rules, d->rt);
		else
			kd_buf_printf(out, "\nRules: %s\n\nEmitted inline as straight-line vector C.\n\n",
			              d->rules);
	}
	kd_arena_free(a);
}
