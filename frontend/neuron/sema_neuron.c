/* sema_neuron.c: the neuron parts of sema.  Tiles are [partition, free...]
 * with at most 128 partitions; `t[i]`, `t[a:b, :, c:d]` and `acc[i]`
 * (blocked tensors) view sub-tiles whose extents are known at compile
 * time; `mod_alloc(...)`/`alloc(...)` declare direct allocations (seed
 * 003), whose restrictions are checked here where the arguments are. */
#include <stdio.h>
#include <string.h>

#include "affine.h"
#include "sema_neuron.h"
#include "tile.h"

/* ---- slice extents: hi - lo as an affine form over symbols ---- */

static KdAff aff(const KdNode *n, int depth)
{
	KdAff r = {0};
	if (!n || depth > 32)
		return r;
	if (n->is_const && n->ty && n->ty->kind == TY_INT)
		return kd_aff_const(n->cval);
	switch (n->kind) {
	case N_IDENT:
		return n->sym ? kd_aff_sym((intptr_t)n->sym, 1) : r;
	case N_UNARY:
		if (n->op == U_NEG)
			return kd_aff_scale(aff(n->a, depth + 1), -1);
		if (n->op == U_PLUS)
			return aff(n->a, depth + 1);
		return r;
	case N_BINARY: {
		KdAff a = aff(n->a, depth + 1), b = aff(n->b, depth + 1);
		if (n->op == B_ADD)
			return kd_aff_add(a, b, 1);
		if (n->op == B_SUB)
			return kd_aff_add(a, b, -1);
		if (n->op == B_MUL)
			return kd_aff_mul(a, b);
		return r;
	}
	default:
		return r;
	}
}

/* hi - lo when it is the same for every value of the symbols: 1, or 0
 * with *overflow set when computing it overflowed 64 bits. */
static int static_diff(const KdNode *hi, const KdNode *lo, int64_t *out, int *overflow)
{
	KdAff d = kd_aff_add(aff(hi, 0), aff(lo, 0), -1);
	*overflow = d.overflow;
	return kd_aff_is_const(d, out);
}

int kd_sema_tile_type(KdDiag *d, KdNode *ty, const KdType *t)
{
	if (t->nbdim && kd_spaces[t->space].external) {
		kd_error(d, ty->span, "blocked tensors live on chip (sbuf or psum), not in %s",
		         kd_spaces[t->space].name);
		return -1;
	}
	if (kd_spaces[t->space].partitions && t->dims[0] > (int64_t)kd_spaces[t->space].partitions) {
		kd_error(d, ((KdNode *)ty->list.v[0])->span,
		         "dim 0 of a tile in %s is the partition dim: at most %u, got %lld",
		         kd_spaces[t->space].name, kd_spaces[t->space].partitions, (long long)t->dims[0]);
		return -1;
	}
	return 0;
}

static const char *base_name(const KdNode *n)
{
	return n->a->kind == N_IDENT ? n->a->name : "tensor";
}

/* A slice's step: a positive compile-time integer (1 when absent); a step
 * other than 1 is refused where `nostep` names the dim (the partitions of
 * an on-chip tile). */
static int slice_step(KdDiag *d, const KdNode *x, int64_t *step, const char *nostep)
{
	const KdNode *c = x->c;
	*step = 1;
	if (!c)
		return 0;
	if (c->ty && c->ty->kind == TY_ERROR)
		return -1;
	if (!c->is_const || c->ty->kind != TY_INT || c->cval < 1) {
		if (c->is_const && c->ty->kind == TY_INT)
			kd_error(d, c->span, "a slice step must be a positive compile-time integer, got %lld",
			         (long long)c->cval);
		else
			kd_error(d, c->span, "a slice step must be a positive compile-time integer");
		return -1;
	}
	if (nostep && c->cval != 1) {
		kd_error(d, c->span, "a slice step on %s is not allowed (partitions are not strided), got %lld",
		         nostep, (long long)c->cval);
		return -1;
	}
	*step = c->cval;
	return 0;
}

/* Checks one index or slice of dim `k` (size `dim`); *ext gets its extent
 * (hi - lo), *step its step (1 for an index). */
static int one_index(KdDiag *d, const KdNode *x, int64_t dim, int64_t *ext, const char *what, int64_t *step,
                     const char *nostep)
{
	*step = 1;
	if (x->kind == N_SLICE && slice_step(d, x, step, nostep) < 0)
		return -1;
	if (x->kind != N_SLICE) {
		if (x->ty && x->ty->kind == TY_ERROR)
			return -1;
		if (x->is_const && (x->cval < 0 || x->cval >= dim)) {
			kd_error(d, x->span, "%s must be in 0..%lld, got %lld", what, (long long)(dim - 1),
			         (long long)x->cval);
			return -1;
		}
		*ext = 1;
		return 0;
	}
	const KdNode *lo = x->a, *hi = x->b;
	if ((lo && lo->ty->kind == TY_ERROR) || (hi && hi->ty->kind == TY_ERROR))
		return -1;
	if ((lo && lo->ty->kind != TY_INT) || (hi && hi->ty->kind != TY_INT)) {
		kd_error(d, x->span, "slice bounds must be integers");
		return -1;
	}
	int64_t l = lo ? lo->cval : 0, h = hi ? hi->cval : dim;
	int lc = !lo || lo->is_const, hc = !hi || hi->is_const;
	if (lc && hc) {
		if (l < 0 || h > dim || l >= h) {
			kd_error(d, x->span, "slice %lld:%lld of a dimension of %lld must satisfy 0 <= lo < hi <= %lld",
			         (long long)l, (long long)h, (long long)dim, (long long)dim);
			return -1;
		}
		*ext = h - l;
		return 0;
	}
	KdNode zero = {.kind = N_INT, .is_const = 1, .cval = 0};
	KdType tint = {.kind = TY_INT};
	zero.ty = &tint;
	KdNode top = zero;
	top.cval = dim;
	int overflow;
	if (!static_diff(hi ? hi : &top, lo ? lo : &zero, ext, &overflow)) {
		kd_error(d, x->span, "the extent hi - lo of a slice must be a compile-time constant");
		if (overflow)
			kd_note(d, x->span, "computing hi - lo symbolically overflows 64 bits");
		return -1;
	}
	if (*ext < 1 || *ext > dim) {
		kd_error(d, x->span, "slice extent must be in 1..%lld, got %lld", (long long)dim, (long long)*ext);
		return -1;
	}
	return 0;
}

static int view_ap(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *t, const int64_t *step,
                   int drop);

KdType *kd_sema_tile_index(KdArena *a, KdDiag *d, KdNode *n, const KdType *base)
{
	int nb = base->nbdim, bad = 0;
	if (n->list.n < nb) {
		kd_error(d, n->span, "blocked tensor '%s' takes %d block %s first, got %d", base_name(n), nb,
		         nb == 1 ? "index" : "indices", n->list.n);
		return NULL;
	}
	if (n->list.n - nb > base->rank) {
		kd_error(d, n->span, "'%s' has %d dimensions, got %d indices", base_name(n), base->rank,
		         n->list.n - nb);
		return NULL;
	}
	for (int i = 0; i < nb; i++) {
		KdNode *x = n->list.v[i];
		int64_t ext, step;
		if (x->kind == N_SLICE) {
			kd_error(d, x->span, "a block index must be one integer, not a slice");
			bad = 1;
		} else if (one_index(d, x, base->bdims[i], &ext, "block index", &step, NULL) < 0) {
			bad = 1;
		}
	}
	KdType *t = kd_alloc(a, sizeof *t);
	*t = *base;
	t->nbdim = 0;
	t->is_view = 1;
	int onchip = !kd_spaces[base->space].external;
	int64_t step[KD_MAXDIM];
	char nostep[64];
	snprintf(nostep, sizeof nostep, "the partition dim of a tile in %s", kd_spaces[base->space].name);
	for (int k = 0; k < base->rank; k++) {
		int64_t ext = base->dims[k];
		step[k] = 1;
		if (nb + k < n->list.n && one_index(d, n->list.v[nb + k], base->dims[k], &ext,
		                                    k ? "index" : "partition index", &step[k],
		                                    k || !onchip ? NULL : nostep) < 0)
			bad = 1;
		t->dims[k] = (ext + step[k] - 1) / step[k];
	}
	if (bad)
		return NULL;
	/* a[i] on an N-D hbm tensor drops dim 0 (LANGUAGE.md 7) */
	int drop = !onchip && base->rank >= 3 && nb < n->list.n && n->list.v[nb]->kind != N_SLICE;
	return view_ap(a, d, n, base, t, step, drop) < 0 ? NULL : t;
}

/* The permutation n->b gives a view of `rank` dims (v.T: [1, 0]); <0
 * after reporting. */
static int view_perm(KdDiag *d, const KdNode *n, const KdType *base, int rank, int *perm)
{
	const KdNode *p = n->b;
	int onchip = !kd_spaces[base->space].external;
	if (p->kind == N_IDENT) {
		if (strcmp(p->name, "T")) {
			kd_error(d, p->span, "a view has no attribute '%s' (views have .T)", p->name);
			return -1;
		}
		if (rank != 2) {
			kd_error(d, p->span, ".T needs a 2-D view, '%s' gives %d dims (permute reorders any)",
			         base_name(n), rank);
			return -1;
		}
		perm[0] = 1, perm[1] = 0;
	} else {
		if (p->list.n != rank) {
			kd_error(d, p->span, "permute: the view of '%s' has %d dims, the permutation %d entries",
			         base_name(n), rank, p->list.n);
			return -1;
		}
		unsigned seen = 0;
		for (int i = 0; i < rank; i++) {
			const KdNode *x = p->list.v[i];
			if (x->ty && x->ty->kind == TY_ERROR)
				return -1;
			if (!x->is_const || x->ty->kind != TY_INT || x->cval < 0 || x->cval >= rank ||
			    (seen >> x->cval & 1)) {
				kd_error(d, x->span, "permute: the entries must be a permutation of 0..%d, each once", rank - 1);
				return -1;
			}
			seen |= 1u << x->cval;
			perm[i] = (int)x->cval;
		}
	}
	if (onchip && perm[0] != 0) {
		kd_error(d, p->span, "%s: the partition dim of a tile in %s stays dim 0 (only its free dims "
		         "permute)", p->kind == N_IDENT ? ".T" : "permute", kd_spaces[base->space].name);
		return -1;
	}
	return 0;
}

/* The view's dims and access pattern (KdViewAp) from the counts and steps
 * of the base's dims, the dropped dim 0 and the permutation; <0 after
 * reporting a pattern of more than KDSL_NEURON_AP_DIMS free dims. */
static int view_ap(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *t, const int64_t *step, int drop)
{
	int64_t st[KD_MAXDIM], ct[KD_MAXDIM], bst = 1;
	int r = 0, perm[KD_MAXDIM];
	for (int k = base->rank - 1; k >= 0; k--) {
		if (!(k == 0 && drop)) {
			st[k - drop] = bst * step[k];
			ct[k - drop] = t->dims[k];
			r++;
		}
		bst *= base->dims[k];
	}
	for (int i = 0; i < r; i++)
		perm[i] = i;
	if (n->b && view_perm(d, n, base, r, perm) < 0)
		return -1;
	KdViewAp *ap = kd_alloc(a, sizeof *ap);
	t->rank = r;
	for (int i = 0; i < r; i++)
		t->dims[i] = ct[perm[i]];
	ap->drop = drop;
	ap->pstep = kd_spaces[base->space].external ? st[perm[0]] : 0;
	int nd = 0;
	int64_t fs[KD_MAXDIM], fc[KD_MAXDIM];
	for (int i = 1; i < r; i++) {
		int64_t s1 = st[perm[i]], c1 = ct[perm[i]];
		if (c1 == 1)
			continue;
		if (nd && fs[nd - 1] == s1 * c1)   /* continues the dim before */
			fs[nd - 1] = s1, fc[nd - 1] *= c1;
		else
			fs[nd] = s1, fc[nd++] = c1;
	}
	if (!nd)
		fs[0] = 1, fc[0] = 1, nd = 1;
	if (nd > KDSL_NEURON_AP_DIMS) {
		kd_error(d, n->span, "the view of '%s' needs %d free dims of (stride, count) in each partition; "
		         "an access pattern has at most %d", base_name(n), nd, KDSL_NEURON_AP_DIMS);
		return -1;
	}
	int64_t row = 1;
	for (int k = 1; k < base->rank; k++)
		row *= base->dims[k];
	/* the v0 form: one run per partition, partitions a row apart */
	int contiguous = nd == 1 && fs[0] == 1 && (!kd_spaces[base->space].external || ap->pstep == row ||
	                                            t->dims[0] == 1);
	ap->nd = contiguous ? 0 : nd;
	for (int i = 0; i < ap->nd; i++)
		ap->st[i] = fs[i], ap->ct[i] = fc[i];
	t->ap = ap;
	return 0;
}

/* `acc[i][x, y]` on a blocked tensor: the block index, then a view of
 * that tile; folded into `acc[i, x, y]`.  Returns 1 when n was folded. */
int kd_sema_tile_chain(KdArena *a, KdNode *n)
{
	KdNode *in = n->a;
	if (in->kind != N_INDEX || !in->a->ty || in->a->ty->kind != TY_TENSOR || !in->a->ty->nbdim ||
	    in->list.n != in->a->ty->nbdim)
		return 0;
	KdNode **v = kd_alloc(a, sizeof *v * (size_t)(in->list.n + n->list.n + 1));
	for (int i = 0; i < in->list.n; i++)
		v[i] = in->list.v[i];
	for (int i = 0; i < n->list.n; i++)
		v[in->list.n + i] = n->list.v[i];
	n->list.v = v;
	n->list.n += in->list.n;
	n->a = in->a;
	return 1;
}

int kd_sema_is_alloc_call(const KdNode *init)
{
	return init->kind == N_CALL && (!strcmp(init->name, "mod_alloc") || !strcmp(init->name, "alloc"));
}

/* A tuple argument: a list or tuple of positive compile-time integers. */
static int tuple_arg(KdDiag *d, const char *op, const KdNode *kw, int64_t *out)
{
	const KdNode *v = kw->a;
	if (v->ty && v->ty->kind == TY_ERROR)
		return -1;
	if (v->kind != N_LIST && v->kind != N_TUPLE) {
		kd_error(d, v->span, "%s: %s must be a tuple of integers, e.g. [2]", op, kw->name);
		return -1;
	}
	if (v->list.n > KD_MAXDIM) {
		kd_error(d, v->span, "%s: %s has at most %d entries, got %d", op, kw->name, KD_MAXDIM, v->list.n);
		return -1;
	}
	for (int i = 0; i < v->list.n; i++) {
		const KdNode *x = v->list.v[i];
		if (!x->is_const || x->ty->kind != TY_INT) {
			kd_error(d, x->span, "%s: %s entries must be compile-time integers", op, kw->name);
			return -1;
		}
		if (x->cval < 1) {
			kd_error(d, x->span, "%s: %s entries must be >= 1, got %lld", op, kw->name, (long long)x->cval);
			return -1;
		}
		out[i] = x->cval;
	}
	return v->list.n;
}

static int int_arg(KdDiag *d, const char *op, const KdNode *kw, int64_t *out)
{
	const KdNode *v = kw->a;
	if (v->ty && v->ty->kind == TY_ERROR)
		return -1;
	if (!v->is_const || v->ty->kind != TY_INT) {
		kd_error(d, v->span, "%s: %s must be a compile-time integer", op, kw->name);
		return -1;
	}
	*out = v->cval;
	return 0;
}

/* num_par_tiles (and psum's num_free_tiles): () or (1, ..., 1), one per block dim. */
static void ones_tuple(KdDiag *d, const char *op, const KdNode *kw, const int64_t *v, int n, int nbdim)
{
	int ok = n == 0 || n == nbdim;
	for (int i = 0; ok && i < n; i++)
		ok = v[i] == 1;
	if (!ok)
		kd_error(d, kw->a->span, "%s: %s must be () or (1, ..., 1) with %d %s (one per block dimension), got %d %s",
		         op, kw->name, nbdim, nbdim == 1 ? "entry" : "entries", n, n == 1 ? "entry" : "entries");
}

void kd_sema_alloc(KdArena *a, KdDiag *d, KdNode *let, KdType *t)
{
	KdNode *call = let->a;
	const char *op = call->name;
	int psum = t->space == KD_SP_PSUM;
	KdAllocSpec *sp = kd_alloc(a, sizeof *sp);
	sp->modulo = !strcmp(op, "mod_alloc");
	sp->span = call->span;
	int before = d->nerror;
	if (t->space != KD_SP_SBUF && t->space != KD_SP_PSUM) {
		kd_error(d, call->span, "%s: direct allocation is for sbuf and psum tensors, got %s", op,
		         kd_spaces[t->space].name);
		return;
	}
	int64_t tup[KD_MAXDIM];
	for (int i = 0; i < call->list.n; i++) {
		KdNode *kw = call->list.v[i];
		if (kw->kind != N_KWARG) {
			kd_error(d, kw->span, "%s: arguments are keywords (base_bank=, base_addr=, num_bank_tiles=, ...)", op);
			continue;
		}
		int64_t v;
		const char *k = kw->name;
		for (int j = 0; j < i; j++) {
			KdNode *o = call->list.v[j];
			if (o->kind == N_KWARG && !strcmp(o->name, k)) {
				kd_error(d, kw->name_span, "%s: parameter '%s' given twice", op, k);
				goto next;
			}
		}
		if (!strcmp(k, "base_bank")) {
			if (!psum) {
				kd_error(d, kw->name_span, "%s: base_bank is for psum; sbuf takes base_addr", op);
			} else if (!int_arg(d, op, kw, &v)) {
				if (v < 0 || v >= KDSL_NEURON_PSUM_BANKS)
					kd_error(d, kw->a->span, "%s: base_bank must be in 0..%d, got %lld", op,
					         KDSL_NEURON_PSUM_BANKS - 1, (long long)v);
				sp->base = v;
			}
		} else if (!strcmp(k, "base_addr")) {
			if (!int_arg(d, op, kw, &v)) {
				if (psum && v != 0)
					kd_error(d, kw->a->span, "%s: base_addr must be 0 in psum, got %lld", op, (long long)v);
				else if (v < 0)
					kd_error(d, kw->a->span, "%s: base_addr must be >= 0, got %lld", op, (long long)v);
				else if (!psum)
					sp->base = v;
			}
		} else if (!strcmp(k, "base_partition")) {
			if (!int_arg(d, op, kw, &v) && v != 0)
				kd_error(d, kw->a->span, "%s: base_partition must be 0, got %lld", op, (long long)v);
		} else if (!strcmp(k, "num_bank_tiles") || (!psum && !strcmp(k, "num_free_tiles"))) {
			if (psum != !strcmp(k, "num_bank_tiles")) {
				kd_error(d, kw->name_span, "%s: num_bank_tiles is for psum; sbuf takes num_free_tiles", op);
				continue;
			}
			int n = tuple_arg(d, op, kw, tup);
			if (n < 0)
				continue;
			if (!sp->modulo) {
				kd_error(d, kw->name_span, "%s: %s is a mod_alloc argument", op, k);
				continue;
			}
			if (n && n != t->nbdim) {
				kd_error(d, kw->a->span, "%s: %s must have 0 or %d %s (one per block dimension), got %d",
				         op, k, t->nbdim, t->nbdim == 1 ? "entry" : "entries", n);
				continue;
			}
			sp->nmod = n;
			memcpy(sp->mod, tup, sizeof tup[0] * (size_t)n);
		} else if (!strcmp(k, "num_par_tiles") || !strcmp(k, "num_free_tiles")) {
			int n = tuple_arg(d, op, kw, tup);
			if (n >= 0)
				ones_tuple(d, op, kw, tup, n, t->nbdim);
		} else {
			kd_error(d, kw->name_span, "%s: no parameter named '%s'", op, k);
		}
next:;
	}
	if (d->nerror != before)
		return;
	/* The page: partial bank allocation is not allowed, so a psum tile
	 * lives in one bank. */
	int64_t pbytes = kd_dtypes[t->dt].size;
	for (int i = 1; i < t->rank; i++)
		pbytes *= t->dims[i];
	if (psum && pbytes > KDSL_NEURON_PSUM_BANK_BYTES) {
		kd_error(d, let->type->span, "%s: a psum tile must fit one %d KiB bank per partition, got %lld bytes per "
		         "partition", op, KDSL_NEURON_PSUM_BANK_BYTES / 1024, (long long)pbytes);
		return;
	}
	if (psum) {
		int64_t nphys = 1;
		for (int i = 0; i < t->nbdim; i++)
			nphys *= !sp->modulo ? t->bdims[i] : sp->nmod ? sp->mod[i] : 1;
		if (sp->base + nphys > KDSL_NEURON_PSUM_BANKS)
			kd_error(d, call->span, "%s: bank past the %dth: the tiles need banks %lld..%lld, psum has banks 0..%d",
			         op, KDSL_NEURON_PSUM_BANKS, (long long)sp->base, (long long)(sp->base + nphys - 1),
			         KDSL_NEURON_PSUM_BANKS - 1);
	}
	t->alloc = sp;
}
