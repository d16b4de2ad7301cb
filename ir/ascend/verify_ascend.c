/* verify_ascend.c: the typing rules of ascend's element access on IR (the
 * op table's verify hook, see verify.h).  An element is a scalar of its
 * tensor's dtype: a float for f16/f32, an integer otherwise.  Lowering
 * casts a written value to the tensor's dtype, so both the read's result
 * and the written value carry exactly that dtype (a constant: that kind,
 * the runtime wraps or rounds it as the cast would), which the emitter
 * and the runtime rely on (the kdsl_scalar member they use). */
#include "verify.h"

/* The scalar type an element of dtype dt has in the IR. */
static KdValType elem_type(KdDtype dt)
{
	return kd_dtypes[dt].is_float ? VT_FLOAT : VT_INT;
}

/* x is a scalar of buffer b's element type; "what" names it. */
static void is_elem(KdVerify *v, const KdIns *in, int k, const KdVal *x, const KdBuffer *b, const char *what)
{
	/* a constant prints without its dtype: its kind is what reads back */
	if (x->type == elem_type(b->dt) && (x->dt == b->dt || x->kind == VK_CONST))
		return;
	kd_verify_fail(v, in, k, "%s: %s must be %s of the tensor's dtype %s, got %s", kd_ops[in->op].name, what,
	               elem_type(b->dt) == VT_FLOAT ? "a float" : "an integer", kd_dtypes[b->dt].name,
	               kd_verify_type_str(v, x));
}

void kd_verify_elem(KdVerify *v, const KdIns *in)
{
	const KdFunc *f = v->f;
	const KdVal *t = &f->val[in->args[0]];
	if (t->type != VT_REF || t->buf < 0)
		return;   /* the operand kinds are the table's, reported already */
	const KdBuffer *b = &f->buf[t->buf];
	if (in->op == OP_ELEM_READ) {
		if (in->res < 0)
			kd_verify_fail(v, in, -1, "elem_read needs a result");
		else
			is_elem(v, in, -1, &f->val[in->res], b, "the result");
	} else if (in->nargs == ELEM_WRITE_NPARAM) {
		is_elem(v, in, ELEM_WRITE_VALUE, &f->val[in->args[ELEM_WRITE_VALUE]], b, "value");
	}
}
