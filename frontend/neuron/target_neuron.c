/* target_neuron.c: the frontend's neuron hooks (frontend_target.h):
 * tile views and slices, blocked tensors and direct allocation
 * (sema_neuron.c), lowered to `tile` views (lower_neuron.c). */
#include "frontend_target.h"
#include "lower_neuron.h"
#include "sema_neuron.h"

static KdType *index_view(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *err)
{
	KdType *t = kd_sema_tile_index(a, d, n, base);
	return t ? t : err;
}

static int lower_view(KdLowerCtx *lc, int buf, KdNode *n)
{
	return kd_lower_tile_view(lc->a, lc->f, lc->cur, buf, n, lc->expr, lc->ctx);
}

const KdFrontendTarget kd_frontend_target_neuron = {
	.index = index_view,
	.index_chain = kd_sema_tile_chain,
	.tensor_type = kd_sema_tile_type,
	.blocks = 1,
	.views = 1,
	.is_alloc = kd_sema_is_alloc_call,
	.alloc = kd_sema_alloc,
	.lower_view = lower_view,
	.lower_buffer = kd_lower_tile_info,
};
