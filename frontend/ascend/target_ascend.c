/* target_ascend.c: the frontend's ascend hooks (frontend_target.h).  A
 * tensor takes one flat element index, or one index per dim (TIK's tuple
 * index), lowered by the generic `view` to the row-major flat offset. */
#include "frontend_target.h"

static const char *base_name(const KdNode *n)
{
	return n->a->kind == N_IDENT ? n->a->name : "tensor";
}

/* Index k (of dim size dim) a constant outside 0..dim-1: reports it and
 * returns -1.  Per dim, because a row-major offset can land inside the
 * tensor with a column past its row (x[0, 16] of f16[4, 16] is x[1, 0]).
 * An index that is not a constant is lowered through a dim_index, whose
 * rule the IR checker applies over the loop trips its guards keep (and
 * the runtime where it cannot tell). */
static int dim_index(KdDiag *d, const KdNode *n, int k, int64_t dim)
{
	const KdNode *x = n->list.v[k];
	if (!x->is_const || (x->cval >= 0 && x->cval < dim))
		return 0;
	kd_error(d, x->span, "index %d of '%s' must be in 0..%lld, got %lld", k, base_name(n),
	         (long long)(dim - 1), (long long)x->cval);
	return -1;
}

static KdType *index_view(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *err)
{
	/* TIK's reading (LANGUAGE.md 3; TIK Tensor __getitem__): one flat
	 * element index whatever the rank, or a tuple with one index per dim. */
	int bad = 0;
	for (int k = 0; k < n->list.n; k++)
		if (((KdNode *)n->list.v[k])->kind == N_SLICE) {
			kd_error(d, ((KdNode *)n->list.v[k])->span,
			         "on target ascend a tensor index is an element, not a slice");
			return err;
		}
	if (n->list.n != 1 && n->list.n != base->rank) {
		kd_error(d, n->span,
		         "on target ascend a tensor takes one flat element index (t[k]) or one index per dim "
		         "(%d for '%s'), got %d indices", base->rank, base_name(n), n->list.n);
		return err;
	}
	/* One index is flat: a constant outside the tensor is the op's bounds
	 * rule's to report. */
	if (n->list.n > 1)
		for (int k = 0; k < n->list.n; k++)
			bad |= dim_index(d, n, k, base->dims[k]);
	if (bad)
		return err;
	return kd_type_view(a, base);
}

const KdFrontendTarget kd_frontend_target_ascend = {
	.index = index_view,
	.onchip = "ub or l1",
	.elem_spaces = 1u << KD_SP_UB,
	.scoped_buffers = 1,
};
