/* target_aipu.c: the IR stage's aipu hooks (ir_target.h).  Its IR has
 * vector and mask values, whose type rules are the op table's verifier
 * hooks (verify_aipu.c), run on built and on read IR alike. */
#include "ir_target.h"

/* --stats: a vstore moves its lanes (vload is pure, so only the stores
 * are counted). */
static void bytes(int64_t *by, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	(void)w;
	if (ins->op == OP_VSTORE) {
		const KdBuffer *b = &f->buf[f->val[ins->args[VSTORE_DST]].buf];
		by[b->space] += (int64_t)f->val[ins->args[VSTORE_V]].lanes * kd_dtypes[b->dt].size;
	}
}

const KdIrTarget kd_ir_target_aipu = {
	.bytes = bytes,
	.vectors = 1,
	.omit_optional = 1,
};
