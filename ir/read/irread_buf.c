/* irread_buf.c: the textual IR reader's buffers: parameter tensors and
 * `buffer` lines, their types and, on neuron, the tile information the
 * builder derives from a type and its allocation call (print.c prints
 * what of it cannot be derived from the dims). */
#include <string.h>

#include "irsyn.h"
#include "tile.h"

/* Checks a buffer type (space, dtype, dims) and adds the buffer. */
static int declare(KdIrRead *r, const char *name, KdSpan at, KdIrNode *ty, int param)
{
	KdFunc *f = r->f;
	KdBuffer b = {.name = name, .addr = param >= 0 ? 0 : -1, .param = param, .span = at};
	b.space = kd_space_lookup(r->m->target, ty->a->str, strlen(ty->a->str));
	if (!b.space)
		kd_error(r->d, ty->a->sp, "unknown memory space '%s' for target %s", ty->a->str,
		         kd_target_names[r->m->target]);
	else if (kd_spaces[b.space].external != (param >= 0))
		kd_error(r->d, ty->a->sp, "%s buffer in %s memory", param >= 0 ? "parameter" : "local",
		         ty->a->str);
	b.dt = kd_dtype_lookup(ty->b->str, strlen(ty->b->str));
	if (!b.dt || b.dt == KD_BOOL)
		kd_error(r->d, ty->b->sp, "unknown element type '%s'", ty->b->str);
	if (ty->l.n > KD_MAXRANK)
		kd_error(r->d, ty->sp, "buffer of rank %d (at most %d)", ty->l.n, KD_MAXRANK);
	b.rank = ty->l.n < KD_MAXRANK ? ty->l.n : KD_MAXRANK;
	int64_t n = 1;
	for (int i = 0; i < b.rank; i++) {
		KdIrNode *x = kd_irn_item(ty, i);
		b.dims[i] = x->ival;
		if (x->ival < 1 || x->ival > ((int64_t)1 << 40) / n) {
			kd_error(r->d, x->sp, "dimension %lld out of range", (long long)x->ival);
			b.dims[i] = 1;
		}
		n *= b.dims[i];
	}
	if (!b.dt)
		b.dt = KD_U8;
	for (int i = 0; i < f->nbuf; i++)
		if (!strcmp(f->buf[i].name, name)) {
			kd_error(r->d, at, "buffer '@%s' defined twice", name);
			r->fbad = 1;
		}
	return kd_buf_new(r->a, f, b);
}

/* Neuron tile info: what the type and allocation call said is in the
 * attributes (print.c's tile_attrs), the rest follows from the dims as in
 * kd_lower_tile_info. */
static void tile_info(KdIrRead *r, KdBuffer *b, KdIrNode *attrs)
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
	int64_t maxbase = b->space == KD_SP_PSUM ? KDSL_NEURON_PSUM_BANKS - 1
	                                          : (int64_t)kd_spaces[b->space].capacity;
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

void kd_irr_param_buffers(KdIrRead *r)
{
	KdFunc *f = r->f;
	for (int i = 0; i < f->nparam; i++) {
		if (f->params[i].buf != -2)
			continue;
		KdIrNode *p = kd_irn_item(r->fparams, i);
		f->params[i].buf = declare(r, p->str, p->sp, p->a, i);
		f->params[i].dt = f->buf[f->params[i].buf].dt;
		if (r->m->target == KD_TARGET_NEURON)
			tile_info(r, &f->buf[f->params[i].buf], NULL);
	}
}

void kd_irr_buffer(KdIrRead *r, KdIrTok kw, KdIrTok name, KdIrNode *ty, KdIrNode *attrs)
{
	if (!r->f) {
		kd_error(r->d, kw.sp, "'buffer' outside a function");
		return;
	}
	if (r->blocks.n) {
		kd_error(r->d, kw.sp, "'buffer' after the first block");
		return;
	}
	kd_irr_param_buffers(r);
	int k = declare(r, name.str, name.sp, ty, -1);
	KdBuffer *b = &r->f->buf[k];
	for (int i = 0; i < attrs->l.n; i++) {
		KdIrNode *x = kd_irn_item(attrs, i);
		if (!strcmp(x->str, "at") && x->a->kind == IR_INT)
			b->addr = x->a->ival;   /* placement assigns it again */
		else if (r->m->target != KD_TARGET_NEURON)
			kd_error(r->d, x->sp, "unknown buffer attribute '%s'", x->str);
	}
	if (r->m->target == KD_TARGET_NEURON)
		tile_info(r, b, attrs);
}
