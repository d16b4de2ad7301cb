/* place.c: automatic placement of on-chip buffers.  Each buffer gets an
 * aligned range no buffer live at the same time shares: a kernel-level
 * buffer for the kernel's whole life, a block-scoped one (ascend; ir.h's
 * live_lo..live_hi) only against the buffers whose lifetimes meet its own,
 * so blocks that are never live at once reuse the same bytes.  Capacity is
 * the space's size from kd_spaces; its error names the buffers live at
 * once with the one that does not fit.  A target with its own placement
 * (KdIrTarget.place) places instead. */
#include "ir_target.h"

/* The lowest aligned offset above every earlier buffer of b's space that
 * is live with b (in declaration order, which is the scopes' preorder:
 * an earlier buffer of an enclosing or the same scope, or of a block
 * still open, is below it). */
static int64_t lowest(const KdFunc *f, int i, int64_t al)
{
	const KdBuffer *b = &f->buf[i];
	int64_t at = 0;
	for (int j = 0; j < i; j++) {
		const KdBuffer *o = &f->buf[j];
		if (o->space != b->space || o->param >= 0 || o->addr < 0 || kd_buf_apart(o, b))
			continue;
		if (o->addr + o->bytes > at)
			at = o->addr + o->bytes;
	}
	return (at + al - 1) / al * al;
}

/* The capacity error at buffer i, with a note per buffer live with it. */
static void capacity_error(KdDiag *d, const KdFunc *f, int i)
{
	const KdBuffer *b = &f->buf[i];
	const KdSpaceInfo *sp = &kd_spaces[b->space];
	kd_error(d, b->span,
	         "%s capacity exceeded in kernel '%s': '%s' needs %lld bytes at offset %lld, "
	         "but %s holds %llu bytes",
	         sp->name, f->name, b->name, (long long)b->bytes, (long long)b->addr, sp->name,
	         (unsigned long long)sp->capacity);
	for (int j = 0; j < i; j++) {
		const KdBuffer *o = &f->buf[j];
		if (o->space == b->space && o->param < 0 && !kd_buf_apart(o, b))
			kd_note(d, o->span, "'%s' takes %lld bytes at offset %lld%s", o->name, (long long)o->bytes,
			        (long long)o->addr, b->live_lo ? " (live at the same time)" : "");
	}
}

int kd_ir_place(KdDiag *d, KdModule *m)
{
	int before = d->nerror;
	for (int fi = 0; fi < m->nfn; fi++) {
		KdFunc *f = m->fn[fi];
		const KdIrTarget *tg = kd_ir_target(f->target);
		if (tg->place) {
			tg->place(d, f);
			continue;
		}
		int reported[KD_NSPACE] = {0};
		for (int i = 0; i < f->nbuf; i++) {
			KdBuffer *b = &f->buf[i];
			const KdSpaceInfo *sp = &kd_spaces[b->space];
			if (b->param >= 0 || sp->external)
				continue;
			b->addr = lowest(f, i, sp->align ? sp->align : KDSL_HOST_MEM_ALIGN);
			if (b->addr + b->bytes > (int64_t)sp->capacity && !reported[b->space]) {
				reported[b->space] = 1;
				capacity_error(d, f, i);
			}
		}
	}
	return d->nerror - before;
}
