/* hazard_neuron.c: the aliasing hazard of direct allocation (beyond NKI).  With
 * mod_alloc, blocks i and j share a physical tile when they agree modulo
 * num_bank_tiles; reading block i after block j was written there reads
 * j's data.  The kernel is walked in execution order (walk.h) keeping, per
 * physical tile, the last block written and by which op; a read of another
 * block of that tile is warned about (-Whazard; -Werror=hazard makes it an
 * error), with a note at the write. */
#include <stdlib.h>

#include "tile.h"
#include "walk.h"

typedef struct {
	KdDiag *d;
	const KdFunc *f;
	int64_t **blk;      /* buffer -> physical tile -> last block written (-1: none) */
	int **by;           /* ... and the instruction that wrote it */
	int *seen, nseen;   /* (reader, writer) pairs reported, flattened */
} Hz;

static int aliases(const KdBuffer *b)
{
	return b->param < 0 && b->tile && b->tile->nphys < b->tile->nblocks;
}

static int reported(Hz *h, int r, int w)
{
	for (int i = 0; i < h->nseen; i += 2)
		if (h->seen[i] == r && h->seen[i + 1] == w)
			return 1;
	h->seen = realloc(h->seen, sizeof *h->seen * (size_t)(h->nseen + 2));
	h->seen[h->nseen++] = r;
	h->seen[h->nseen++] = w;
	return 0;
}

/* Operand i: its buffer and logical block when both are known. */
static int operand(const KdWalk *w, const KdIns *ins, int i, const KdBuffer **b, int64_t *blk)
{
	const KdFunc *f = w->f;
	const KdIns *t = kd_tile_ins(f, ins, i);
	if (!t)
		return 0;
	*b = &f->buf[f->val[ins->args[i]].buf];
	if (!aliases(*b) || !w->known[t->args[TA_BLOCK]])
		return 0;
	*blk = w->v[t->args[TA_BLOCK]];
	return *blk >= 0 && *blk < (*b)->tile->nblocks;
}

static void step(void *ctx, const KdWalk *w, const KdIns *ins)
{
	Hz *h = ctx;
	const KdFunc *f = w->f;
	const KdOpDesc *d = &kd_ops[ins->op];
	int self = (int)(ins - f->ins);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ins->nargs; i++) {
			const KdBuffer *b;
			int64_t blk;
			if (!operand(w, ins, i, &b, &blk))
				continue;
			/* an accumulating op (matmul with accumulate=true) reads the
			 * tile it adds to */
			int writes = kd_param_writes(d, i), rmw = kd_param_rmw_if(d, i);
			int reads = !writes || (rmw >= 0 && rmw < ins->nargs && w->known[ins->args[rmw]] &&
			                        w->v[ins->args[rmw]]);
			int bi = (int)(b - f->buf);
			int64_t ph = kd_tile_phys(b->tile, blk);
			/* -Wno-hazard: neither the warning nor its note */
			if (pass == 0 && reads && !h->d->wgroup_off[KD_W_HAZARD] && h->by[bi][ph] >= 0 && h->blk[bi][ph] != blk &&
			    !reported(h, self, h->by[bi][ph])) {
				const KdIns *wr = &f->ins[h->by[bi][ph]];
				const char *where = b->space == KD_SP_PSUM ? "psum bank" : "physical tile";
				int64_t at = b->space == KD_SP_PSUM ? b->addr / KDSL_NEURON_PSUM_BANK_BYTES + ph : ph;
				kd_warn(h->d, KD_W_HAZARD, ins->argspan[i],
				        "%s reads block %lld of '%s' on %s %lld, but block %lld of '%s' was written "
				        "there since (the blocks share it by the modulo rule)",
				        d->name, (long long)blk, b->name, where, (long long)at,
				        (long long)h->blk[bi][ph], b->name);
				kd_note(h->d, wr->span, "%s wrote block %lld of '%s' here", kd_ops[wr->op].name,
				        (long long)h->blk[bi][ph], b->name);
			}
			if (pass == 1 && writes) {
				h->blk[bi][ph] = blk;
				h->by[bi][ph] = self;
			}
		}
}

void kd_hazard_check(KdDiag *d, const KdModule *m)
{
	for (int fi = 0; fi < m->nfn; fi++) {
		const KdFunc *f = m->fn[fi];
		int any = 0;
		for (int i = 0; i < f->nbuf; i++)
			any |= aliases(&f->buf[i]);
		if (!any)
			continue;
		Hz h = {.d = d, .f = f};
		h.blk = calloc((size_t)f->nbuf, sizeof *h.blk);
		h.by = calloc((size_t)f->nbuf, sizeof *h.by);
		for (int i = 0; i < f->nbuf; i++) {
			if (!aliases(&f->buf[i]))
				continue;
			int64_t n = f->buf[i].tile->nphys;
			h.blk[i] = malloc(sizeof **h.blk * (size_t)n);
			h.by[i] = malloc(sizeof **h.by * (size_t)n);
			for (int64_t k = 0; k < n; k++) {
				h.blk[i][k] = -1;
				h.by[i][k] = -1;
			}
		}
		kd_walk(f, step, &h, 10000000);
		for (int i = 0; i < f->nbuf; i++) {
			free(h.blk[i]);
			free(h.by[i]);
		}
		free(h.blk);
		free(h.by);
		free(h.seen);
	}
}
