/* read_neuron.c: the textual IR reader's neuron part (KdIrTarget.read_buffer):
 * a buffer's tile information, from its dims and the attributes that
 * kd_tile_print_attrs writes. */
#include <string.h>

#include "irsyn.h"
#include "tile.h"

/* Neuron tile info: what the type and allocation call said is in the
 * attributes (kd_tile_print_attrs), the rest follows from the dims as in
 * kd_lower_tile_info. */
void kd_read_neuron_buffer(KdIrRead *r, KdBuffer *b, KdIrNode *attrs)
{
	KdTileInfo *t = kd_alloc(r->a, sizeof *t);
	KdIrNode *mod = NULL;
	if (kd_spaces[b->space].partitions && b->dims[0] > (int64_t)kd_spaces[b->space].partitions)
		kd_error(r->d, b->span, "dim 0 of a tile in %s is the partition dim: at most %u, got %lld",
		         kd_spaces[b->space].name, kd_spaces[b->space].partitions, (long long)b->dims[0]);
	t->nparts = b->dims[0];
	t->nfree = 1;
	for (int i = 1; i < b->rank; i++)
		t->nfree *= b->dims[i];
	t->pbytes = t->nfree * kd_dtypes[b->dt].size;
	t->nblocks = t->nphys = 1;
	t->alloc_span = b->span;
	for (int i = 0; attrs && i < attrs->l.n; i++) {
		KdIrNode *x = kd_irn_item(attrs, i), *v = x->a;
		if (!strcmp(x->str, "blocks") && v->kind == IRN_LIST) {
			if (v->l.n > KD_MAXRANK) {
				kd_error(r->d, v->sp, "too many block dims");
				continue;
			}
			t->nbdim = v->l.n;
			for (int k = 0; k < v->l.n; k++) {
				t->bdims[k] = kd_irn_item(v, k)->ival;
				if (t->bdims[k] < 1 || t->bdims[k] > 4096) {
					kd_error(r->d, kd_irn_item(v, k)->sp, "block count out of range");
					t->bdims[k] = 1;
				}
			}
		} else if (!strcmp(x->str, "alloc") && v->kind == IR_IDENT &&
		           (!strcmp(v->str, "mod") || !strcmp(v->str, "direct"))) {
			t->alloc = !strcmp(v->str, "mod") ? KD_ALLOC_MOD : KD_ALLOC_DIRECT;
		} else if (!strcmp(x->str, "mod") && v->kind == IRN_LIST) {
			mod = v;
		} else if (!strcmp(x->str, "base") && v->kind == IR_INT) {
			t->base = v->ival;
		} else if (strcmp(x->str, "at")) {
			kd_error(r->d, x->sp, "unknown buffer attribute '%s'", x->str);
		}
	}
	/* sema's limits on mod_alloc's base_bank / base_addr */
	int64_t maxbase = b->space == KD_SP_PSUM ? KDSL_NEURON_PSUM_BANKS - 1 : (int64_t)kd_spaces[b->space].capacity;
	if (t->base < 0 || t->base > maxbase) {
		kd_error(r->d, b->span, "base=%lld out of range (0..%lld)", (long long)t->base,
		         (long long)maxbase);
		t->base = 0;
	}
	if (mod && (t->alloc != KD_ALLOC_MOD || mod->l.n != t->nbdim))
		kd_error(r->d, mod->sp, "mod= needs alloc=mod and one entry per block dim");
	for (int i = 0; i < t->nbdim; i++) {
		if (t->nblocks * t->bdims[i] > 4096) {
			kd_error(r->d, b->span, "more than 4096 blocks");
			t->bdims[i] = 1;
		}
		t->nblocks *= t->bdims[i];
		t->bmod[i] = t->alloc != KD_ALLOC_MOD ? t->bdims[i]
		           : mod && i < mod->l.n ? kd_irn_item(mod, i)->ival : 1;
		if (t->bmod[i] < 1 || t->bmod[i] > 4096) {
			kd_error(r->d, mod ? mod->sp : b->span, "mod entry out of range");
			t->bmod[i] = 1;
		}
		if (t->nphys * t->bmod[i] > 4096) {
			kd_error(r->d, b->span, "more than 4096 physical tiles");
			t->bmod[i] = 1;
		}
		t->nphys *= t->bmod[i];
	}
	t->stride = b->space == KD_SP_PSUM ? KDSL_NEURON_PSUM_BANK_BYTES : t->pbytes;
	b->tile = t;
}
