/* target_aipu.c: the IR stage's aipu hooks (ir_target.h).  Its IR has
 * vector and mask values, whose type rules are the op table's verifier
 * hooks (verify_aipu.c), run on built and on read IR alike. */
#include "ir_target.h"
#include "rules.h"

/* --stats: a vload or vload_gather reads and a vstore or vstore_scatter
 * writes its lanes, every lane counted (kdsl's model: a masked access
 * moves the whole vector). */
_Static_assert(KD_SAME_POS(VLOAD_IR_SRC, VSTORE_DST), "vload and vstore take the view first");

static void bytes(int64_t *by, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	(void)w;
	_Static_assert(KD_SAME_POS(VLOAD_GATHER_SRC, VSTORE_DST) && KD_SAME_POS(VSTORE_SCATTER_DST, VSTORE_DST) &&
	               KD_SAME_POS(VSTORE_SCATTER_V, VSTORE_V), "the view first, a stored vector second");
	if (ins->op == OP_DMA_COPY) {
		/* count elements read from src's space and written to dst's; a
		 * count not constant counts as 1, as in the cost */
		int64_t n = 1;
		kd_arg_const(f, ins, DMA_COPY_COUNT, &n);
		const KdBuffer *d = &f->buf[f->val[ins->args[DMA_COPY_DST]].buf];
		const KdBuffer *s = &f->buf[f->val[ins->args[DMA_COPY_SRC]].buf];
		n = n < 1 || n > KD_MAX_TENSOR_BYTES ? 1 : n;
		by[d->space] += n * kd_dtypes[d->dt].size;
		by[s->space] += n * kd_dtypes[s->dt].size;
		return;
	}
	int store = ins->op == OP_VSTORE || ins->op == OP_VSTORE_SCATTER;
	if (!store && ins->op != OP_VLOAD && ins->op != OP_VLOAD_GATHER)
		return;
	const KdBuffer *b = &f->buf[f->val[ins->args[VSTORE_DST]].buf];
	int v = store ? ins->args[VSTORE_V] : ins->res;
	by[b->space] += (int64_t)f->val[v].lanes * kd_dtypes[b->dt].size;
}

const KdIrTarget kd_ir_target_aipu = {
	.bytes = bytes,
	.cost = kd_cost_aipu,
	.cost_doc = "the source's operators on vectors (+ - * and the comparisons), a broadcast "
		"scalar and a constant mask cost as aipu's ops do: `ceil(R / 256)` cycles, R the "
		"bits of the result; a mask result `1`.",
	.vectors = 1,
	.omit_optional = 1,
};
