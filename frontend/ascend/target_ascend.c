/* target_ascend.c: the frontend's ascend hooks (frontend_target.h).  A
 * tensor takes one flat element index, or one index per dim (TIK's tuple
 * index), lowered by the generic `view` to the row-major flat offset. */
#include "frontend_target.h"

static const char *base_name(const KdNode *n)
{
	return n->a->kind == N_IDENT ? n->a->name : "tensor";
}

/* The interval [*lo, *hi] of the values x takes, both ends taken, when
 * sema knows them: a constant, a loop variable with constant bounds and
 * step, and sums, differences, negations and constant multiples of them
 * in which no loop variable occurs twice (i - i would give ends that are
 * never taken).  seen collects the loop variables met.  0: not known. */
enum { MAX_VARS = 8 };   /* loop variables one index may combine */

static int index_range(const KdNode *x, int64_t *lo, int64_t *hi, const KdSym **seen, int *nseen)
{
	int64_t l2, h2, p[4];
	if (x->is_const) {
		*lo = *hi = x->cval;
		return 1;
	}
	if (x->kind == N_IDENT && x->sym && x->sym->kind == SYM_IV) {
		const KdNode *f = x->sym->decl;
		int64_t step = f->c ? f->c->cval : 1;
		for (int k = 0; k < *nseen; k++)
			if (seen[k] == x->sym)
				return 0;
		if (*nseen == MAX_VARS || !f->a->is_const || !f->b->is_const || (f->c && !f->c->is_const) ||
		    step <= 0 || f->a->cval >= f->b->cval)
			return 0;
		seen[(*nseen)++] = x->sym;
		*lo = f->a->cval;
		*hi = *lo + (int64_t)(((uint64_t)f->b->cval - 1 - (uint64_t)*lo) / (uint64_t)step) * step;
		return 1;
	}
	if (x->kind == N_UNARY && (x->op == U_NEG || x->op == U_PLUS)) {
		if (!index_range(x->a, lo, hi, seen, nseen))
			return 0;
		if (x->op == U_PLUS)
			return 1;
		int64_t t = *lo;
		return !__builtin_sub_overflow(0, *hi, lo) && !__builtin_sub_overflow(0, t, hi);
	}
	if (x->kind != N_BINARY || (x->op != B_ADD && x->op != B_SUB && x->op != B_MUL) ||
	    !index_range(x->a, lo, hi, seen, nseen) || !index_range(x->b, &l2, &h2, seen, nseen))
		return 0;
	if (x->op == B_ADD)
		return !__builtin_add_overflow(*lo, l2, lo) && !__builtin_add_overflow(*hi, h2, hi);
	if (x->op == B_SUB) {
		int64_t t = *lo;
		return !__builtin_sub_overflow(t, h2, lo) && !__builtin_sub_overflow(*hi, l2, hi);
	}
	/* a product's ends are among the products of the ends */
	if (__builtin_mul_overflow(*lo, l2, &p[0]) || __builtin_mul_overflow(*lo, h2, &p[1]) ||
	    __builtin_mul_overflow(*hi, l2, &p[2]) || __builtin_mul_overflow(*hi, h2, &p[3]))
		return 0;
	*lo = *hi = p[0];
	for (int k = 1; k < 4; k++) {
		*lo = p[k] < *lo ? p[k] : *lo;
		*hi = p[k] > *hi ? p[k] : *hi;
	}
	return 1;
}

/* Index k (of dim size dim) outside 0..dim-1 for a value sema knows:
 * reports it and returns -1.  Per dim, because a row-major offset can
 * land inside the tensor with a column past its row (x[0, 16] of
 * f16[4, 16] is x[1, 0]); any other index is checked through the flat
 * offset, by the op's bounds rule and at run time. */
static int dim_index(KdDiag *d, const KdNode *n, int k, int64_t dim)
{
	const KdNode *x = n->list.v[k];
	const KdSym *seen[MAX_VARS];
	int nseen = 0;
	int64_t lo, hi;
	if (!index_range(x, &lo, &hi, seen, &nseen) || (lo >= 0 && hi < dim))
		return 0;
	int64_t bad = lo < 0 ? lo : hi;
	if (x->is_const)
		kd_error(d, x->span, "index %d of '%s' must be in 0..%lld, got %lld", k, base_name(n),
		         (long long)(dim - 1), (long long)bad);
	else
		kd_error(d, x->span, "index %d of '%s' must be in 0..%lld, got %lld (it runs %lld..%lld over the loops)",
		         k, base_name(n), (long long)(dim - 1), (long long)bad, (long long)lo, (long long)hi);
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
	KdType *t = kd_alloc(a, sizeof *t);
	*t = *base;
	t->is_view = 1;
	return t;
}

const KdFrontendTarget kd_frontend_target_ascend = {
	.index = index_view,
	.onchip = "ub or l1",
};
