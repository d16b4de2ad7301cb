/* target_ascend.c: the backend's ascend hooks (emit_target.h).  Tensor
 * operands are views of a buffer at an element offset, which emit.c
 * writes as kdsl_ref_of(buffer, bytes, space), byte offset; the hook
 * spells the TIK vector ops' mask, which is either form of
 * kdsl_ascend_mask. */
#include "emit_target.h"

/* An element write's value: a kdsl_scalar.  A mask operand: an integer
 * is the continuous form, a list [mask_h, mask_l] the bitwise one (each
 * half's 64 bits; the rule checker has refused any other list length). */
static int arg(KdEmitCtx *c, const KdOpParam *p, int v)
{
	const KdVal *x = &c->f->val[v];
	if (p == &kd_ops[OP_ELEM_WRITE].param[ELEM_WRITE_VALUE]) {
		/* the element's value as the kdsl_scalar member its dtype reads */
		kd_buf_puts(c->o, x->type == VT_FLOAT ? "kdsl_scalar_f(" : "kdsl_scalar_i(");
		c->val(c->ctx, v);
		kd_buf_puts(c->o, ")");
		return 1;
	}
	if (p->kind != PK_INT_OR_LIST)
		return 0;
	if (x->type != VT_LIST) {
		kd_buf_puts(c->o, "kdsl_ascend_mask_count(");
		c->val(c->ctx, v);
		kd_buf_puts(c->o, ")");
		return 1;
	}
	const KdIns *l = &c->f->ins[x->def];
	kd_buf_puts(c->o, "kdsl_ascend_mask_bits(");
	for (int i = 0; i < 2; i++) {
		kd_buf_puts(c->o, i ? ", (uint64_t)(" : "(uint64_t)(");
		if (i < l->nargs)
			c->val(c->ctx, l->args[i]);
		else
			kd_buf_puts(c->o, "0");
		kd_buf_puts(c->o, ")");
	}
	kd_buf_puts(c->o, ")");
	return 1;
}

const KdEmitTarget kd_emit_target_ascend = {
	.arg = arg,
};
