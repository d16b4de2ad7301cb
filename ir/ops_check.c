/* ops_check.c: the op table's own consistency.  The .def files are
 * designated initializers, so a field an entry forgets is silently zero;
 * these checks turn that into an internal error at kdslc's start (and in
 * tests/unit), before any stage meets the half-described op. */
#include <string.h>

#include "ir_target.h"
#include "op.h"

static int is_tensor(const KdOpParam *p)
{
	return p->kind == PK_TENSOR || p->kind == PK_TILE_OR_NUM;
}

static int bad(KdDiag *d, const KdOpDesc *o, const char *what)
{
	kd_error_nopos(d, "internal error: op table: %s: %s", o->name ? o->name : "(unnamed op)", what);
	return 1;
}

int kd_op_desc_check(KdDiag *d, const KdOpDesc *o)
{
	int n = 0;
	if (!o->name || !*o->name)
		return bad(d, o, "no name");
	if (o->kind != OK_PURE && o->kind != OK_TERM && o->kind != OK_EFFECT)
		n += bad(d, o, "no kind (pure, terminator or effect)");
	if (o->target == KD_TARGET_NONE) {
		/* generic: the IR reader counts operands by arity */
		if (o->nparam)
			n += bad(d, o, "a generic op has no parameters");
		if (o->arity < -1)
			n += bad(d, o, "arity must be -1 (any) or an operand count");
		if ((o->flags & KD_OPF_ARITH) && (!o->c_op || o->arity < 1 || o->arity > 2 || o->kind != OK_PURE))
			n += bad(d, o, "an operator is pure, takes 1 or 2 operands and has a C operator");
		if ((o->flags & (KD_OPF_COMPARE | KD_OPF_LOGIC)) && !(o->flags & KD_OPF_ARITH))
			n += bad(d, o, "comparisons and logic are operators");
		return n;
	}
	if (o->nparam < 1 || o->nparam > KD_MAXPARAM)
		return n + bad(d, o, "a target op has 1 to KD_MAXPARAM parameters");
	if (!o->doc || !o->rules || !o->seed || !o->cost || !o->cost_doc)
		n += bad(d, o, "a target op needs doc, rules, seed, cost and cost_doc");
	if (o->kind == OK_TERM || (o->flags & ~(unsigned)KD_OPF_INTERNAL) || o->arity || o->nsucc || o->c_op)
		n += bad(d, o, "a target op is pure or an effect, with no class flags (but internal), arity or C operator");
	int writes = 0;
	for (int k = 0; k < o->nparam; k++) {
		const KdOpParam *p = &o->param[k];
		if (!p->name || !*p->name) {
			n += bad(d, o, "a parameter has no name (a position without its entry?)");
			continue;
		}
		for (int j = 0; j < k; j++)
			if (o->param[j].name && !strcmp(o->param[j].name, p->name))
				n += bad(d, o, "two parameters share a name");
		if (p->kind > PK_INT_OR_LIST)
			n += bad(d, o, "a parameter's kind is out of range");
		if (is_tensor(p) != (p->mem != KD_MEM_NONE) || p->mem > KD_MEM_OVERWRITE)
			n += bad(d, o, "every tensor parameter, and only those, has a memory effect");
		if (p->kind == PK_TILE_OR_NUM && p->mem != KD_MEM_READ)
			n += bad(d, o, "a tensor-or-number parameter is read");
		if (p->rmw_if && (p->rmw_if > o->nparam || p->rmw_if - 1 == k || !kd_mem_writes(p) ||
		                  o->param[p->rmw_if - 1].kind != PK_BOOL))
			n += bad(d, o, "rmw_if names another, bool parameter of a written operand");
		if ((p->flags & PF_RANGE) && ((p->kind != PK_INT && p->kind != PK_INT_OR_LIST) || p->lo > p->hi))
			n += bad(d, o, "a range is lo..hi on an integer");
		writes += kd_mem_writes(p);
	}
	if ((o->kind == OK_EFFECT) != (writes > 0 || o->result_of))
		n += bad(d, o, "an effect op writes a tensor or reads an element, a pure one neither");
	if (o->result_of && (o->kind != OK_EFFECT || o->result_of > o->nparam ||
	                     !is_tensor(&o->param[o->result_of - 1]) ||
	                     o->param[o->result_of - 1].mem != KD_MEM_READ))
		n += bad(d, o, "result_of names a tensor parameter the effect op reads");
	if (o->rt_dtype_of && (o->rt_dtype_of > o->nparam || !is_tensor(&o->param[o->rt_dtype_of - 1])))
		n += bad(d, o, "rt_dtype_of names a tensor parameter");
	if (o->rt_dtype2_of && (!o->rt_dtype_of || o->rt_dtype2_of > o->nparam ||
	                        !is_tensor(&o->param[o->rt_dtype2_of - 1])))
		n += bad(d, o, "rt_dtype2_of names a tensor parameter, after rt_dtype_of");
	return n;
}

/* The generic cast is never called in source and is spelled with its
 * type in the IR (`cast.f32`), so a target's own cast (aipu's vector
 * cast, spelled `cast`) clashes with it nowhere: the IR reader tells
 * them apart by the suffix. */
static int cast_pair(const KdOpDesc *generic, const KdOpDesc *o)
{
	return generic == &kd_ops[OP_CAST] && o->target != KD_TARGET_NONE;
}

int kd_op_table_check(KdDiag *d)
{
	int n = 0;
	for (int i = 0; i < KD_NOP; i++) {
		const KdOpDesc *o = &kd_ops[i];
		n += kd_op_desc_check(d, o);
		/* the IR reader and sema find ops by name: one per target, and
		 * none shadowing a generic op */
		for (int j = 0; o->name && j < i; j++)
			if (kd_ops[j].name && !strcmp(kd_ops[j].name, o->name) &&
			    (kd_ops[j].target == o->target || !kd_ops[j].target || !o->target) &&
			    !cast_pair(&kd_ops[j], o))
				n += bad(d, o, "another op of its target has its name");
	}
	/* a target's cost of generic ops is documented with it (--doc-ops) */
	for (int t = 1; t < KD_NTARGET; t++)
		if (!kd_ir_target((KdTarget)t)->cost != !kd_ir_target((KdTarget)t)->cost_doc)
			n += bad(d, &(KdOpDesc){.name = kd_target_names[t]}, "a target's cost hook needs its cost_doc");
	return n;
}
