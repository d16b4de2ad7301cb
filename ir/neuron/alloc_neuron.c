/* alloc_neuron.c: placement of a neuron kernel's sbuf and psum buffers.
 * Addresses are byte offsets inside every partition (a tile spans the
 * partitions from 0).  Automatic allocation packs sbuf tiles 64-byte
 * aligned and gives each psum tile a bank of its own; direct allocation
 * (seed 003) puts a tensor where its mod_alloc/alloc says, block i on
 * physical tile kd_tile_phys(i).  The page forbids mixing the two in one
 * kernel; direct sbuf placements must fit and not overlap, and psum tensors
 * never share a bank, except blocks of one tensor by the modulo rule. */
#include "tile.h"

/* tiles start on the runtime's host cache lines */
enum { SBUF_ALIGN = KDSL_HOST_MEM_ALIGN };

static int64_t extent(const KdBuffer *b)
{
	const KdTileInfo *t = b->tile;
	return (t->nphys - 1) * t->stride + (b->space == KD_SP_PSUM ? KDSL_NEURON_PSUM_BANK_BYTES : t->pbytes);
}

static const char *how(const KdTileInfo *t)
{
	return t->alloc == KD_ALLOC_MOD ? "mod_alloc" : "alloc";
}

static void overlaps(KdDiag *d, const KdFunc *f, int i)
{
	const KdBuffer *b = &f->buf[i];
	for (int j = 0; j < i; j++) {
		const KdBuffer *o = &f->buf[j];
		if (o->param >= 0 || o->space != b->space || !o->tile || o->tile->alloc == KD_ALLOC_AUTO)
			continue;
		if (b->addr < o->addr + extent(o) && o->addr < b->addr + extent(b)) {
			if (b->space == KD_SP_PSUM)
				kd_error(d, b->tile->alloc_span, "%s: psum banks %lld..%lld of '%s' overlap banks %lld..%lld of '%s'",
				         how(b->tile), (long long)(b->addr / KDSL_NEURON_PSUM_BANK_BYTES),
				         (long long)((b->addr + extent(b)) / KDSL_NEURON_PSUM_BANK_BYTES - 1), b->name,
				         (long long)(o->addr / KDSL_NEURON_PSUM_BANK_BYTES),
				         (long long)((o->addr + extent(o)) / KDSL_NEURON_PSUM_BANK_BYTES - 1), o->name);
			else
				kd_error(d, b->tile->alloc_span, "%s: sbuf bytes %lld..%lld of '%s' overlap bytes %lld..%lld of '%s'",
				         how(b->tile), (long long)b->addr, (long long)(b->addr + extent(b) - 1), b->name,
				         (long long)o->addr, (long long)(o->addr + extent(o) - 1), o->name);
			kd_note(d, o->tile->alloc_span, "'%s' is placed here", o->name);
			return;
		}
	}
}

void kd_place_neuron(KdDiag *d, KdFunc *f)
{
	int first_auto = -1, first_direct = -1;
	for (int i = 0; i < f->nbuf; i++) {
		const KdBuffer *b = &f->buf[i];
		if (b->param >= 0 || !b->tile)
			continue;
		if (b->tile->alloc == KD_ALLOC_AUTO && first_auto < 0)
			first_auto = i;
		if (b->tile->alloc != KD_ALLOC_AUTO && first_direct < 0)
			first_direct = i;
	}
	if (first_auto >= 0 && first_direct >= 0) {
		const KdBuffer *a = &f->buf[first_auto], *x = &f->buf[first_direct];
		kd_error(d, a->span, "kernel '%s' mixes automatic and direct allocation: '%s' is placed "
		         "automatically but '%s' uses %s (NKI forbids mixing them)", f->name, a->name, x->name,
		         how(x->tile));
		kd_note(d, x->tile->alloc_span, "'%s' is allocated directly here", x->name);
		return;
	}
	int64_t next_sbuf = 0, next_bank = 0;
	int full_sbuf = 0, full_psum = 0;
	for (int i = 0; i < f->nbuf; i++) {
		KdBuffer *b = &f->buf[i];
		KdTileInfo *t = b->tile;
		if (b->param >= 0 || !t)
			continue;
		if (b->space == KD_SP_PSUM && t->pbytes > KDSL_NEURON_PSUM_BANK_BYTES) {
			kd_error(d, b->span, "a psum tile must fit one %d KiB bank per partition: '%s' needs %lld bytes per "
			         "partition", KDSL_NEURON_PSUM_BANK_BYTES / 1024, b->name, (long long)t->pbytes);
			continue;
		}
		if (t->alloc != KD_ALLOC_AUTO) {
			b->addr = b->space == KD_SP_PSUM ? t->base * KDSL_NEURON_PSUM_BANK_BYTES : t->base;
			if (b->space == KD_SP_SBUF && b->addr + extent(b) > (int64_t)kd_spaces[KD_SP_SBUF].capacity)
				kd_error(d, t->alloc_span, "%s: '%s' does not fit sbuf: it needs bytes %lld..%lld of each "
				         "partition, which has %llu", how(t), b->name, (long long)b->addr,
				         (long long)(b->addr + extent(b) - 1),
				         (unsigned long long)kd_spaces[KD_SP_SBUF].capacity);
			else
				overlaps(d, f, i);
			continue;
		}
		if (b->space == KD_SP_PSUM) {
			b->addr = next_bank * KDSL_NEURON_PSUM_BANK_BYTES;
			next_bank += t->nphys;
			if (next_bank > KDSL_NEURON_PSUM_BANKS && !full_psum) {
				full_psum = 1;
				kd_error(d, b->span, "psum capacity exceeded in kernel '%s': '%s' needs %lld %s from bank %lld, "
				         "but psum has %d banks of %d KiB per partition", f->name, b->name, (long long)t->nphys,
				         t->nphys == 1 ? "bank" : "banks", (long long)(next_bank - t->nphys),
				         KDSL_NEURON_PSUM_BANKS, KDSL_NEURON_PSUM_BANK_BYTES / 1024);
			}
		} else {
			int64_t at = (next_sbuf + SBUF_ALIGN - 1) / SBUF_ALIGN * SBUF_ALIGN;
			b->addr = at;
			next_sbuf = at + extent(b);
			if (next_sbuf > (int64_t)kd_spaces[KD_SP_SBUF].capacity && !full_sbuf) {
				full_sbuf = 1;
				kd_error(d, b->span, "sbuf capacity exceeded in kernel '%s': '%s' needs %lld bytes per partition "
				         "at offset %lld, but a partition holds %llu bytes", f->name, b->name,
				         (long long)extent(b), (long long)at,
				         (unsigned long long)kd_spaces[KD_SP_SBUF].capacity);
			}
		}
	}
}
