/* tile.c: a blocked neuron buffer's logical-to-physical tile map, shared
 * by the printer, the placement, the hazard analysis and the emitter, and
 * its textual form (the printer's KdIrTarget hooks). */
#include "tile.h"

void kd_tile_ap(const KdFunc *f, const KdIns *t, KdTileAp *o)
{
	o->nd = t->nargs > TA_N ? (t->nargs - TA_N - 1) / 2 : 0;
	o->pstep = o->nd ? f->val[t->args[TA_PSTEP]].c : 0;
	for (int k = 0; k < o->nd; k++) {
		o->st[k] = f->val[t->args[TA_PSTEP + 1 + 2 * k]].c;
		o->ct[k] = f->val[t->args[TA_PSTEP + 2 + 2 * k]].c;
	}
	if (!o->nd)
		o->st[0] = 1, o->ct[0] = f->val[t->args[TA_NFREE]].c;
}

int64_t kd_tile_ap_span(const KdTileAp *ap, int64_t nfree)
{
	if (!ap->nd)
		return nfree - 1;
	int64_t span = 0;
	for (int k = 0; k < ap->nd; k++)
		span += (ap->ct[k] - 1) * ap->st[k];   /* verified: within 2^40 each */
	return span;
}

int64_t kd_tile_phys(const KdTileInfo *t, int64_t lin)
{
	int64_t phys = 0, below = 1;
	for (int d = t->nbdim - 1; d >= 0; d--) {
		int64_t idx = lin % t->bdims[d];
		lin /= t->bdims[d];
		phys += idx % t->bmod[d] * below;
		below *= t->bmod[d];
	}
	return phys;
}

/* Seed 003's table: logical tile index -> bank, start partition, byte address. */
void kd_tile_print(KdBuf *o, const KdBuffer *b)
{
	const KdTileInfo *t = b->tile;
	if (!t || !t->nbdim || b->addr < 0)
		return;
	for (int64_t i = 0; i < t->nblocks; i++) {
		int64_t idx[KD_MAXRANK], lin = i, ph = kd_tile_phys(t, i);
		for (int d = t->nbdim - 1; d >= 0; d--) {
			idx[d] = lin % t->bdims[d];
			lin /= t->bdims[d];
		}
		kd_buf_puts(o, "    ; block (");
		for (int d = 0; d < t->nbdim; d++)
			kd_buf_printf(o, "%lld, ", (long long)idx[d]);
		if (b->space == KD_SP_PSUM)
			kd_buf_printf(o, "): bank %lld, start_partition 0, byte_addr 0\n",
			              (long long)(b->addr / KDSL_NEURON_PSUM_BANK_BYTES + ph));
		else
			kd_buf_printf(o, "): start_partition 0, byte_addr %lld\n", (long long)(b->addr + ph * t->stride));
	}
}

static void ints(KdBuf *o, const int64_t *v, int n)
{
	kd_buf_puts(o, "[");
	for (int i = 0; i < n; i++)
		kd_buf_printf(o, "%s%lld", i ? ", " : "", (long long)v[i]);
	kd_buf_puts(o, "]");
}

/* What of a neuron buffer's tile info its type and allocation call gave;
 * the rest is derived from the dims when read back. */
void kd_tile_print_attrs(KdBuf *o, const KdBuffer *b)
{
	const KdTileInfo *t = b->tile;
	if (!t)
		return;
	if (t->nbdim) {
		kd_buf_puts(o, " blocks=");
		ints(o, t->bdims, t->nbdim);
	}
	if (t->alloc == KD_ALLOC_AUTO)
		return;
	kd_buf_printf(o, " alloc=%s", t->alloc == KD_ALLOC_MOD ? "mod" : "direct");
	if (t->alloc == KD_ALLOC_MOD && t->nbdim) {
		kd_buf_puts(o, " mod=");
		ints(o, t->bmod, t->nbdim);
	}
	kd_buf_printf(o, " base=%lld", (long long)t->base);
}
