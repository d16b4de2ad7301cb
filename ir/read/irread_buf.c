/* irread_buf.c: the textual IR reader's buffers: parameter tensors and
 * `buffer` lines and their types.  What a target adds to a buffer (neuron:
 * the tile information of its type and allocation call) it reads itself,
 * through KdIrTarget.read_buffer. */
#include <string.h>

#include "irsyn.h"
#include "ir_target.h"

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
	/* bool tensors are bytes (the front end gives them, as uint8_t in C) */
	if (!b.dt)
		kd_error(r->d, ty->b->sp, "unknown element type '%s'", ty->b->str);
	if (ty->l.n > KD_MAXRANK)
		kd_error(r->d, ty->sp, "buffer of rank %d (at most %d)", ty->l.n, KD_MAXRANK);
	b.rank = ty->l.n < KD_MAXRANK ? ty->l.n : KD_MAXRANK;
	int64_t n = 1;
	for (int i = 0; i < b.rank; i++) {
		KdIrNode *x = kd_irn_item(ty, i);
		b.dims[i] = x->ival;
		if (x->ival < 1 || x->ival > KD_MAX_TENSOR_BYTES / n) {
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

void kd_irr_param_buffers(KdIrRead *r)
{
	KdFunc *f = r->f;
	const KdIrTarget *tg = kd_ir_target(r->m->target);
	for (int i = 0; i < f->nparam; i++) {
		if (f->params[i].buf != -2)
			continue;
		KdIrNode *p = kd_irn_item(r->fparams, i);
		f->params[i].buf = declare(r, p->str, p->sp, p->a, i);
		f->params[i].dt = f->buf[f->params[i].buf].dt;
		if (tg->read_buffer)
			tg->read_buffer(r, &f->buf[f->params[i].buf], NULL);
	}
}

/* `live=[lo, hi]`: a block-scoped buffer's scopes, 1 <= lo <= hi (ir.h). */
static void live(KdIrRead *r, KdBuffer *b, const KdIrNode *x)
{
	const KdIrNode *v = x->a;
	if (!v || v->kind != IRN_LIST || v->l.n != 2) {
		kd_error(r->d, x->sp, "'live' takes a list of two scopes, live=[lo, hi]");
		return;
	}
	int64_t lo = kd_irn_item(v, 0)->ival, hi = kd_irn_item(v, 1)->ival;
	if (lo < 1 || hi < lo || hi > INT32_MAX) {
		kd_error(r->d, x->sp, "'live' scopes must satisfy 1 <= lo <= hi, got [%lld, %lld]", (long long)lo,
		         (long long)hi);
		return;
	}
	b->live_lo = (int)lo;
	b->live_hi = (int)hi;
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
	const KdIrTarget *tg = kd_ir_target(r->m->target);
	int k = declare(r, name.str, name.sp, ty, -1);
	KdBuffer *b = &r->f->buf[k];
	for (int i = 0; i < attrs->l.n; i++) {
		KdIrNode *x = kd_irn_item(attrs, i);
		if (!strcmp(x->str, "at") && x->a->kind == IR_INT)
			b->addr = x->a->ival;   /* placement assigns it again */
		else if (!strcmp(x->str, "live"))
			live(r, b, x);
		else if (!tg->read_buffer)   /* else the target reports what it does not know */
			kd_error(r->d, x->sp, "unknown buffer attribute '%s'", x->str);
	}
	if (tg->read_buffer)
		tg->read_buffer(r, b, attrs);
}
