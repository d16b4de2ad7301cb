/* lower_neuron.c: lowering of neuron tensors.  A buffer gets its tile
 * geometry (KdTileInfo), and a tensor operand, a name or an index/slice of
 * one, becomes a `tile` view (tile.h): logical block, first partition,
 * element offset inside each partition, and the static extents sema
 * computed. */
#include "lower_neuron.h"
#include "sema_neuron.h"

void kd_lower_tile_info(KdArena *a, KdBuffer *b, const KdType *ty)
{
	KdTileInfo *t = kd_alloc(a, sizeof *t);
	const KdAllocSpec *sp = ty->alloc;
	t->nparts = b->dims[0];
	t->nfree = 1;
	for (int i = 1; i < b->rank; i++)
		t->nfree *= b->dims[i];
	t->pbytes = t->nfree * kd_dtypes[b->dt].size;
	t->nbdim = ty->nbdim;
	t->nblocks = 1;
	t->nphys = 1;
	t->alloc = !sp ? KD_ALLOC_AUTO : sp->modulo ? KD_ALLOC_MOD : KD_ALLOC_DIRECT;
	for (int i = 0; i < t->nbdim; i++) {
		t->bdims[i] = ty->bdims[i];
		t->nblocks *= t->bdims[i];
		/* mod_alloc with () maps every block onto the base tile (seed 003's
		 * modulo_allocate_func uses shape (1, ...) then). */
		t->bmod[i] = t->alloc != KD_ALLOC_MOD ? t->bdims[i] : sp->nmod ? sp->mod[i] : 1;
		t->nphys *= t->bmod[i];
	}
	t->stride = b->space == KD_SP_PSUM ? KDSL_NEURON_PSUM_BANK_BYTES : t->pbytes;
	if (sp) {
		t->base = sp->base;
		t->alloc_span = sp->span;
	}
	b->tile = t;
}

static int bin(KdArena *a, KdFunc *f, int blk, KdOp op, int x, int y, KdSpan at)
{
	const KdVal *vx = &f->val[x], *vy = &f->val[y];
	if (vx->kind == VK_CONST && vy->kind == VK_CONST) {
		uint64_t p = (uint64_t)vx->c, q = (uint64_t)vy->c;
		return kd_val_const(a, f, (int64_t)(op == OP_ADD ? p + q : p * q));
	}
	if (vy->kind == VK_CONST && vy->c == (op == OP_ADD ? 0 : 1))
		return x;
	if (vx->kind == VK_CONST && vx->c == (op == OP_ADD ? 0 : 1))
		return y;
	int args[2] = {x, y};
	int i = kd_ins_add(a, f, blk, op, 2, args, NULL, at);
	return kd_ins_result(a, f, i, VT_INT, KD_I64, -1, NULL);
}

/* A strided view: the tile op with its access pattern (tile.h, TA_PSTEP..). */
static int ap_tile(KdArena *a, KdFunc *f, int blk, int buf, int *args5, const KdSpan *spans5, int64_t npart,
                   int64_t nfree, const KdViewAp *ap, KdSpan at)
{
	int args[TA_N_AP_MAX];
	KdSpan spans[TA_N_AP_MAX];
	int n = TA_N + 1 + 2 * ap->nd;
	for (int k = 0; k < TA_N; k++)
		args[k] = args5[k], spans[k] = spans5[k];
	for (int k = TA_N; k < n; k++)
		spans[k] = at;
	args[TA_NPART] = kd_val_const(a, f, npart);
	args[TA_NFREE] = kd_val_const(a, f, nfree);
	args[TA_PSTEP] = kd_val_const(a, f, ap->pstep);
	for (int k = 0; k < ap->nd; k++) {
		args[TA_PSTEP + 1 + 2 * k] = kd_val_const(a, f, ap->st[k]);
		args[TA_PSTEP + 2 + 2 * k] = kd_val_const(a, f, ap->ct[k]);
	}
	int i = kd_ins_add(a, f, blk, OP_TILE, n, args, spans, at);
	return kd_ins_result(a, f, i, VT_REF, f->buf[buf].dt, buf, NULL);
}

int kd_lower_tile_view(KdArena *a, KdFunc *f, int blk, int buf, KdNode *n,
                       int (*lower)(void *ctx, KdNode *x), void *ctx)
{
	const KdBuffer *b = &f->buf[buf];
	const KdTileInfo *t = b->tile;
	int args[TA_N];
	KdSpan spans[TA_N] = {n->span, n->span, n->span, n->span, n->span};
	int zero = kd_val_const(a, f, 0);
	args[TA_BLOCK] = args[TA_PSTART] = args[TA_FOFF] = zero;
	int64_t npart = b->dims[0], nfree = t->nfree;
	if (n->kind == N_INDEX) {
		int nb = t->nbdim, lin = zero;
		for (int i = 0; i < nb; i++) {
			KdNode *x = n->list.v[i];
			lin = bin(a, f, blk, OP_ADD, bin(a, f, blk, OP_MUL, lin, kd_val_const(a, f, t->bdims[i]), x->span),
			          lower(ctx, x), x->span);
			spans[TA_BLOCK] = x->span;
		}
		args[TA_BLOCK] = lin;
		const KdType *vt = n->ty;
		const KdViewAp *ap = vt->ap;
		int drop = ap && ap->drop;
		int64_t stride = t->nfree;
		nfree = 1;
		for (int k = 1; k < vt->rank; k++)
			nfree *= vt->dims[k];
		npart = vt->dims[0];
		for (int k = 0; k < b->rank; k++) {
			if (k)
				stride /= b->dims[k];
			int start = zero;
			if (nb + k < n->list.n) {
				KdNode *x = n->list.v[nb + k];
				if (x->kind != N_SLICE)
					start = lower(ctx, x);
				else if (x->a)
					start = lower(ctx, x->a);
				if (k == 0)
					spans[TA_PSTART] = x->span;
				else if (n->b || drop ? x->kind != N_SLICE || x->a || x->b || x->c
				                      : vt->dims[k] != b->dims[k])
					spans[TA_FOFF] = x->span;
			}
			if (k == 0)
				args[TA_PSTART] = start;
			else
				args[TA_FOFF] = bin(a, f, blk, OP_ADD, args[TA_FOFF],
				                    bin(a, f, blk, OP_MUL, start, kd_val_const(a, f, stride), n->span),
				                    n->span);
		}
		if (ap && ap->nd)
			return ap_tile(a, f, blk, buf, args, spans, npart, nfree, ap, n->span);
	}
	args[TA_NPART] = kd_val_const(a, f, npart);
	args[TA_NFREE] = kd_val_const(a, f, nfree);
	int i = kd_ins_add(a, f, blk, OP_TILE, TA_N, args, spans, n->span);
	return kd_ins_result(a, f, i, VT_REF, b->dt, buf, NULL);
}
