/* fuse_tiles.c: neuron load, store and tensor_copy fusion (pass
 * fuse-tiles).  Two ops of one kind whose dst views, and whose src views,
 * continue each other along the free dimension (same buffer, block, start
 * partition and partitions; the second starts where the first ends) become
 * one op over the joined views.  The joined views lie inside their tiles,
 * since both halves did.
 *
 * It must not fire:
 *  - across an op that names a buffer either op uses; gm/hbm kernel
 *    parameters may be the same memory, and directly allocated tiles
 *    (mod_alloc, alloc) may share bytes with other buffers, so an op
 *    naming any such buffer also stops it;
 *  - for a tensor_copy within one buffer, or with a directly allocated
 *    side (the second copy could read what the first wrote);
 *  - with views that are not all constants (loop or run-time indices);
 *  - in a block whose ops' rules do not hold under a guard the rule
 *    checker cannot read (kd_pass_proven: the runtime checks each op).
 * Loops of such ops are fused by fuse_tiles_loops.c. */

#include "pass.h"
#include "tile.h"

static int follows(const KdConstView *x, const KdConstView *y)
{
	return x->buf == y->buf && x->a[TA_BLOCK] == y->a[TA_BLOCK] && x->a[TA_PSTART] == y->a[TA_PSTART] &&
	       x->a[TA_NPART] == y->a[TA_NPART] && x->a[TA_FOFF] + x->a[TA_NFREE] == y->a[TA_FOFF];
}

/* Does in name a buffer of the pair (dst buffer d, src buffer s)? */
static int touches(const KdFunc *f, const KdIns *in, int d, int s)
{
	int wide = kd_buf_shared(&f->buf[d]) || kd_buf_shared(&f->buf[s]);
	for (int i = 0; i < in->nargs; i++) {
		const KdVal *x = &f->val[in->args[i]];
		if (x->type != VT_REF)
			continue;
		if (x->buf == d || x->buf == s || (wide && kd_buf_shared(&f->buf[x->buf])))
			return 1;
	}
	return 0;
}

static int new_tile(KdModule *m, KdFunc *f, int blk, int *pos, const KdConstView *v, int64_t nfree, KdSpan sp)
{
	int args[TA_N];
	for (int i = 0; i < TA_N; i++)
		args[i] = kd_val_const(m->arena, f, i == TA_NFREE ? nfree : v->a[i]);
	int i = kd_ins_add(m->arena, f, blk, OP_TILE, TA_N, args, NULL, sp);
	kd_ins_move_to(f, blk, i, (*pos)++);
	return kd_ins_result(m->arena, f, i, VT_REF, f->buf[v->buf].dt, v->buf, NULL);
}

static int block(KdModule *m, KdFunc *f, int blk)
{
	const KdBlock *bl = f->blk[blk];
	for (int k = 0; k < bl->nins; k++) {
		const KdIns *a = &f->ins[bl->insv[k]];
		KdConstView ad, as;
		if ((a->op != OP_LOAD && a->op != OP_STORE && a->op != OP_TENSOR_COPY) || a->nargs != KD_COPY_N ||
		    !kd_const_view(f, a->args[KD_COPY_DST], &ad) || !kd_const_view(f, a->args[KD_COPY_SRC], &as))
			continue;
		if (a->op == OP_TENSOR_COPY &&
		    (ad.buf == as.buf || kd_buf_shared(&f->buf[ad.buf]) || kd_buf_shared(&f->buf[as.buf])))
			continue;
		for (int n = k + 1; n < bl->nins; n++) {
			const KdIns *b = &f->ins[bl->insv[n]];
			KdConstView bd, bs;
			if (kd_ops[b->op].kind == OK_PURE)
				continue;
			if (b->op == a->op && b->nargs == KD_COPY_N && kd_const_view(f, b->args[KD_COPY_DST], &bd) &&
			    kd_const_view(f, b->args[KD_COPY_SRC], &bs) && follows(&ad, &bd) && follows(&as, &bs)) {
				int ia = bl->insv[k], ib = bl->insv[n], pos = n;
				KdSpan sp = b->span;
				int dv = new_tile(m, f, blk, &pos, &ad, ad.a[TA_NFREE] + bd.a[TA_NFREE], sp);
				int sv = new_tile(m, f, blk, &pos, &as, as.a[TA_NFREE] + bs.a[TA_NFREE], sp);
				f->ins[ib].args[KD_COPY_DST] = dv;
				f->ins[ib].args[KD_COPY_SRC] = sv;
				kd_ins_unlink(f, ia);
				return 1;
			}
			if (touches(f, b, ad.buf, as.buf))
				break;
		}
	}
	return 0;
}

int kd_pass_fuse_tiles(KdModule *m)
{
	int n = 0;
	for (int fi = 0; fi < m->nfn; fi++) {
		int loops;
		do {
			n += kd_pass_rewrite_proven(m, m->fn[fi], block);
			/* a fused loop's op may continue a straight-line one */
			loops = kd_fuse_tiles_loops(m, m->fn[fi]);
			n += loops;
		} while (loops);
	}
	return n;
}
