/* target_ascend.c: the frontend's ascend hooks (frontend_target.h).  A
 * tensor takes one flat element index, lowered by the generic `view`. */
#include "frontend_target.h"

static KdType *index_view(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *err)
{
	/* TIK's reading (LANGUAGE.md 3): one flat element index, whatever the rank. */
	if (n->list.n != 1 || ((KdNode *)n->list.v[0])->kind == N_SLICE) {
		kd_error(d, n->span,
		         "on target ascend a tensor takes one flat element index (t[k]), got %d %s",
		         n->list.n, n->list.n == 1 ? "slice" : "indices");
		return err;
	}
	/* A constant index outside the tensor is the bounds rule's to report. */
	KdType *t = kd_alloc(a, sizeof *t);
	*t = *base;
	t->is_view = 1;
	return t;
}

const KdFrontendTarget kd_frontend_target_ascend = {
	.index = index_view,
	.onchip = "ub or l1",
};
