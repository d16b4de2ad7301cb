/* place.c: automatic placement of on-chip buffers.  Each buffer of a
 * kernel gets its own aligned range for the kernel's whole life, so no two
 * live buffers overlap; capacity is the space's size from kd_spaces.  A
 * target with its own placement (KdIrTarget.place) places instead. */
#include "ir_target.h"

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
		int64_t next[KD_NSPACE] = {0};
		int reported[KD_NSPACE] = {0};
		for (int i = 0; i < f->nbuf; i++) {
			KdBuffer *b = &f->buf[i];
			const KdSpaceInfo *sp = &kd_spaces[b->space];
			if (b->param >= 0 || sp->external)
				continue;
			int64_t al = sp->align ? sp->align : KDSL_HOST_MEM_ALIGN;
			int64_t at = (next[b->space] + al - 1) / al * al;
			b->addr = at;
			next[b->space] = at + b->bytes;
			if (next[b->space] > (int64_t)sp->capacity && !reported[b->space]) {
				reported[b->space] = 1;
				kd_error(d, b->span,
				         "%s capacity exceeded in kernel '%s': '%s' needs %lld bytes at offset %lld, "
				         "but %s holds %llu bytes",
				         sp->name, f->name, b->name, (long long)b->bytes, (long long)at, sp->name,
				         (unsigned long long)sp->capacity);
				for (int j = 0; j < i; j++)
					if (f->buf[j].space == b->space && f->buf[j].param < 0)
						kd_note(d, f->buf[j].span, "'%s' takes %lld bytes at offset %lld",
						        f->buf[j].name, (long long)f->buf[j].bytes, (long long)f->buf[j].addr);
			}
		}
	}
	return d->nerror - before;
}
