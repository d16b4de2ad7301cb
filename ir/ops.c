/* ops.c: the op table.  Sema binds calls against it, the rule checker
 * reads the ranges and hooks, the emitter the runtime entry points and C
 * operators, and `kdslc --doc-ops` prints it. */
#include <string.h>

#include "ieval.h"
#include "ir.h"
#include "ir_target.h"
#include "rules.h"
#include "tile.h"
#include "types_aipu.h"
#include "verify.h"

#define SP(x) (1u << KD_SP_##x)
#define DT(x) KD_DTBIT(KD_##x)
#define ARITH(n, cop, nargs, cls, i) \
	{.name = n, .kind = OK_PURE, .flags = KD_OPF_ARITH | (cls), .iop = KD_I_##i, .arity = nargs, .c_op = cop, \
	 .verify = kd_verify_core}

/* Parameter shorthands for the .def files. */
#define RANGE(n, l, h) {.name = n, .kind = PK_INT, .flags = PF_RANGE, .lo = l, .hi = h}
#define TENSOR(n, effect, sp) {.name = n, .kind = PK_TENSOR, .mem = effect, .spaces = sp}

const KdOpDesc kd_ops[KD_NOP] = {
	[OP_ADD] = ARITH("add", "+", 2, 0, ADD),
	[OP_SUB] = ARITH("sub", "-", 2, 0, SUB),
	[OP_MUL] = ARITH("mul", "*", 2, 0, MUL),
	[OP_DIV] = ARITH("div", "/", 2, 0, DIV),
	[OP_REM] = ARITH("rem", "%", 2, 0, REM),
	[OP_SHL] = ARITH("shl", "<<", 2, 0, SHL),
	[OP_SHR] = ARITH("shr", ">>", 2, 0, SHR),
	[OP_AND] = ARITH("and", "&", 2, 0, AND),
	[OP_OR] = ARITH("or", "|", 2, 0, OR),
	[OP_XOR] = ARITH("xor", "^", 2, 0, XOR),
	[OP_EQ] = ARITH("eq", "==", 2, KD_OPF_COMPARE, EQ),
	[OP_NE] = ARITH("ne", "!=", 2, KD_OPF_COMPARE, NE),
	[OP_LT] = ARITH("lt", "<", 2, KD_OPF_COMPARE, LT),
	[OP_LE] = ARITH("le", "<=", 2, KD_OPF_COMPARE, LE),
	[OP_GT] = ARITH("gt", ">", 2, KD_OPF_COMPARE, GT),
	[OP_GE] = ARITH("ge", ">=", 2, KD_OPF_COMPARE, GE),
	[OP_LAND] = ARITH("land", "&&", 2, KD_OPF_LOGIC, LAND),
	[OP_LOR] = ARITH("lor", "||", 2, KD_OPF_LOGIC, LOR),
	[OP_NEG] = ARITH("neg", "-", 1, 0, NEG),
	[OP_NOT] = ARITH("not", "!", 1, KD_OPF_LOGIC, NOT),
	[OP_CAST] = {.name = "cast", .kind = OK_PURE, .arity = 1, .verify = kd_verify_core},
	[OP_VIEW] = {.name = "view", .kind = OK_PURE, .arity = 1, .verify = kd_verify_core},
	/* TA_N operands, or TA_N + 1 + 2 * nd with an access pattern (tile.h) */
	[OP_TILE] = {.name = "tile", .kind = OK_PURE, .arity = -1, .verify = kd_verify_core},
	[OP_LIST] = {.name = "list", .kind = OK_PURE, .arity = -1, .verify = kd_verify_core},
	[OP_VSPLAT] = {.name = "vsplat", .kind = OK_PURE, .flags = KD_OPF_VECTOR_ONLY, .arity = 1,
	                .verify = kd_verify_aipu},
	[OP_VMASKLIT] = {.name = "vmask", .kind = OK_PURE, .flags = KD_OPF_VECTOR_ONLY, .arity = -1,
	                .verify = kd_verify_aipu},
	/* pure, so it goes when the op using its index goes (dce, the
	 * fusions: only where kd_pass_proven says its rule holds) */
	[OP_DIM_INDEX] = {.name = "dim_index", .kind = OK_PURE, .arity = DIM_INDEX_N,
	                  .check = kd_check_dim_index, .verify = kd_verify_core},
	[OP_JMP] = {.name = "jmp", .kind = OK_TERM, .arity = 0, .nsucc = 1, .verify = kd_verify_core},
	[OP_BR] = {.name = "br", .kind = OK_TERM, .arity = 1, .nsucc = 2, .verify = kd_verify_core},
	[OP_RET] = {.name = "ret", .kind = OK_TERM, .arity = 0, .verify = kd_verify_core},

#define KD_OP(name, params, ...) [OP_##name] = {.nparam = name##_NPARAM, __VA_ARGS__},
#define KD_LOWERED(name, args)
#include "ascend/ops_ascend.def"
#include "neuron/ops_neuron.def"
#include "aipu/ops_aipu.def"
#ifdef KD_TEST_OPS
#include "ops_test.def"   /* tests/unit: an op with no stage's cases */
#endif
#undef KD_OP
#undef KD_LOWERED
};

const KdOpDesc *kd_op_lookup(KdTarget target, const char *name)
{
	for (int i = 0; i < KD_NOP; i++)
		if (kd_ops[i].target == target && target != KD_TARGET_NONE &&
		    !strcmp(kd_ops[i].name, name))
			return &kd_ops[i];
	return NULL;
}

void kd_op_unhandled(KdDiag *d, KdSpan at, const char *where, KdOp op)
{
	kd_error(d, at, "internal error: %s: op %s not handled", where,
	         (unsigned)op < KD_NOP && kd_ops[op].name ? kd_ops[op].name : "(not an op)");
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
	                                    "tensor or number", "integer or list"};
	return names[p->kind];
}

static void mem_effect(KdBuf *out, const KdOpDesc *d, const KdOpParam *p)
{
	static const char *const names[] = {[KD_MEM_READ] = "read", [KD_MEM_WRITE] = "written",
	                                    [KD_MEM_OVERWRITE] = "overwritten"};
	if (p->mem == KD_MEM_NONE)
		return;
	kd_buf_printf(out, " (%s", names[p->mem]);
	if (p->rmw_if)
		kd_buf_printf(out, "; read first when `%s`", d->param[p->rmw_if - 1].name);
	kd_buf_puts(out, ")");
}

/* How the Cost: lines add up (stats.c, walk.c), and what the target's
 * generic ops cost (KdIrTarget.cost_doc): said once, above the ops. */
static void cost_intro(KdBuf *out, KdTarget target)
{
	const KdIrTarget *tg = kd_ir_target(target);
	kd_buf_puts(out, "Each op's Cost: line gives in backquotes the formula its cost function "
	                 "computes, one per row where the row's condition decides; `kdslc --stats` "
	                 "adds them up over the ops a kernel runs (an op in a loop with constant bounds "
	                 "once per trip; when the control flow depends on runtime values, each op once). "
	                 "The source's scalar arithmetic, comparisons, casts, views and branches are not "
	                 "counted and cost nothing");
	if (tg->cost_doc)
		kd_buf_printf(out, ", except that %s", tg->cost_doc);
	else
		kd_buf_puts(out, ".");
	kd_buf_puts(out, "\n\n");
}

void kd_op_doc(KdBuf *out, KdTarget target)
{
	KdArena *a = kd_arena_new();
	kd_buf_puts(out, "A tensor parameter is read, written (some of its bytes; the others keep their "
	                 "value) or overwritten (every byte of the operand) by the op.\n\n");
	cost_intro(out, target);
	for (int i = 0; i < KD_NOP; i++) {
		const KdOpDesc *d = &kd_ops[i];
		if (d->target != target)
			continue;
		kd_buf_printf(out, "### `%s(", d->name);
		for (int j = 0; j < d->nparam; j++)
			kd_buf_printf(out, "%s%s", j ? ", " : "", d->param[j].name);
		kd_buf_printf(out, ")`\n\n");
		if (d->syntax)
			kd_buf_printf(out, "Written `%s`; not called by name.\n\n", d->syntax);
		if (d->flags & KD_OPF_INTERNAL)
			kd_buf_puts(out, "Made by the optimisation passes (-O1), not callable from source; "
			                 "textual IR may hold it.\n\n");
		kd_buf_printf(out, "Seed %s. %s\n\n", d->seed, d->doc);
		kd_buf_puts(out, "| parameter | kind | rule |\n| --- | --- | --- |\n");
		for (int j = 0; j < d->nparam; j++) {
			const KdOpParam *p = &d->param[j];
			kd_buf_printf(out, "| `%s` | %s", p->name, kind_name(p));
			mem_effect(out, d, p);
			kd_buf_puts(out, " | ");
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
		kd_buf_printf(out, "\nCost: %s\n", d->cost_doc);
		if (d->rt)
			kd_buf_printf(out, "\nRules: %s\n\nRuntime entry: `%s`.\n\n", d->rules, d->rt);
		else
			kd_buf_printf(out, "\nRules: %s\n\nEmitted inline as straight-line vector C.\n\n",
			              d->rules);
	}
	kd_arena_free(a);
}
