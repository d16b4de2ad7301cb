/* ir.c: building functions, blocks, values and instructions. */
#include <string.h>

#include "ir.h"

/* Arrays grow by doubling; kd_regrow copies small ones (the old copy is
 * abandoned) and moves big ones (the old copy is freed: nothing may keep a
 * pointer into one of these arrays across a call that adds to it). */
#define GROW(a, p, n, cap)                                                  \
	do {                                                                    \
		if ((n) == (cap)) {                                                 \
			int nc_ = (cap) ? (cap) * 2 : 16;                               \
			(p) = kd_regrow((a), (p), sizeof *(p) * (size_t)(n),            \
			                sizeof *(p) * (size_t)nc_);                     \
			(cap) = nc_;                                                    \
		}                                                                   \
	} while (0)

KdFunc *kd_func_new(KdArena *a, const char *name, KdTarget t, KdSpan span)
{
	KdFunc *f = kd_alloc(a, sizeof *f);
	f->name = name;
	f->target = t;
	f->span = span;
	f->arena = a;
	return f;
}

int kd_block_new(KdArena *a, KdFunc *f, const char *label)
{
	GROW(a, f->blk, f->nblk, f->capblk);
	KdBlock *b = kd_alloc(a, sizeof *b);
	b->label = label;
	f->blk[f->nblk] = b;
	return f->nblk++;
}

/* Lays f's blocks, their instruction lists and their parameter lists out
 * one after another in block order.  Lowering allocates each among the
 * instructions' operands, so a sweep over the blocks (every pass makes
 * several) missed the cache on each: in a million-line kernel those misses
 * were most of a pass that rewrote nothing.  The old copies are abandoned
 * in the arena; the lists keep no spare room (capins = nins), so the
 * next instruction added to a block moves its list. */
void kd_func_pack(KdArena *a, KdFunc *f)
{
	size_t nins = 0, npar = 0;
	for (int b = 0; b < f->nblk; b++) {
		nins += (size_t)f->blk[b]->nins;
		npar += (size_t)f->blk[b]->nparam;
	}
	KdBlock *blk = kd_alloc(a, sizeof *blk * ((size_t)f->nblk + 1));
	int *iv = kd_alloc(a, sizeof *iv * (nins + 1));
	int *pv = kd_alloc(a, sizeof *pv * (npar + 1));
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *x = &blk[b];
		*x = *f->blk[b];
		if (x->nins)
			memcpy(iv, x->insv, sizeof *iv * (size_t)x->nins);
		x->insv = iv;
		x->capins = x->nins;
		iv += x->nins;
		if (x->nparam)
			memcpy(pv, x->params, sizeof *pv * (size_t)x->nparam);
		x->params = pv;
		pv += x->nparam;
		f->blk[b] = x;
	}
}

int kd_val_new(KdArena *a, KdFunc *f, KdVal v)
{
	GROW(a, f->val, f->nval, f->capval);
	f->val[f->nval] = v;
	return f->nval++;
}

int kd_block_param(KdArena *a, KdFunc *f, int blk, KdValType ty, KdDtype dt, const char *name)
{
	KdBlock *b = f->blk[blk];
	int v = kd_val_new(a, f, (KdVal){.kind = VK_BARG, .type = ty, .dt = dt, .def = blk,
	                                 .index = b->nparam, .name = name, .buf = -1});
	int *np = kd_alloc(a, sizeof *np * (size_t)(b->nparam + 1));
	if (b->nparam)
		memcpy(np, b->params, sizeof *np * (size_t)b->nparam);
	np[b->nparam++] = v;
	b->params = np;
	return v;
}

int kd_val_const(KdArena *a, KdFunc *f, int64_t c)
{
	return kd_val_new(a, f, (KdVal){.kind = VK_CONST, .type = VT_INT, .dt = KD_I64, .c = c, .buf = -1});
}

int kd_val_bool(KdArena *a, KdFunc *f, int b)
{
	return kd_val_new(a, f, (KdVal){.kind = VK_CONST, .type = VT_BOOL, .dt = KD_BOOL, .c = !!b, .buf = -1});
}

int kd_val_fconst(KdArena *a, KdFunc *f, double x)
{
	return kd_val_new(a, f, (KdVal){.kind = VK_FCONST, .type = VT_FLOAT, .f = x, .buf = -1});
}

int kd_val_str(KdArena *a, KdFunc *f, const char *s)
{
	return kd_val_new(a, f, (KdVal){.kind = VK_STR, .type = VT_STR, .s = s, .buf = -1});
}

int kd_buf_new(KdArena *a, KdFunc *f, KdBuffer b)
{
	GROW(a, f->buf, f->nbuf, f->capbuf);
	b.nelem = 1;
	for (int i = 0; i < b.rank; i++)
		b.nelem *= b.dims[i];
	b.bytes = b.nelem * kd_dtypes[b.dt].size;
	f->buf[f->nbuf] = b;
	return f->nbuf++;
}

int kd_ins_add(KdArena *a, KdFunc *f, int blk, KdOp op, int nargs, const int *args,
               const KdSpan *argspan, KdSpan span)
{
	GROW(a, f->ins, f->nins, f->capins);
	KdIns *in = &f->ins[f->nins];
	memset(in, 0, sizeof *in);
	in->op = op;
	in->res = -1;
	in->nargs = nargs;
	in->span = span;
	in->blk = blk;
	in->args = kd_alloc(a, sizeof *in->args * (size_t)(nargs + 1));
	in->argspan = kd_alloc(a, sizeof *in->argspan * (size_t)(nargs + 1));
	for (int i = 0; i < nargs; i++) {
		in->args[i] = args[i];
		in->argspan[i] = argspan ? argspan[i] : span;
	}
	KdBlock *b = f->blk[blk];
	GROW(a, b->insv, b->nins, b->capins);
	b->insv[b->nins++] = f->nins;
	return f->nins++;
}

int kd_ins_result(KdArena *a, KdFunc *f, int ins, KdValType ty, KdDtype dt, int buf, const char *name)
{
	int v = kd_val_new(a, f, (KdVal){.kind = VK_INS, .type = ty, .dt = dt, .def = ins,
	                                 .buf = buf, .name = name});
	f->ins[ins].res = v;
	return v;
}

void kd_ins_succ(KdArena *a, KdFunc *f, int ins, int which, int blk, int nargs, const int *args)
{
	KdIns *in = &f->ins[ins];
	KdSucc *s = &in->succ[which];
	s->blk = blk;
	s->nargs = nargs;
	s->args = kd_alloc(a, sizeof *s->args * (size_t)(nargs + 1));
	if (nargs)
		memcpy(s->args, args, sizeof *s->args * (size_t)nargs);
	if (in->nsucc < which + 1)
		in->nsucc = which + 1;
}

void kd_module_add(KdArena *a, KdModule *m, KdFunc *f)
{
	/* Doubling: a copy of the array per kernel was quadratic in kernels. */
	if (m->nfn >= m->capfn) {
		int cap = m->nfn >= 8 ? m->nfn * 2 : 16;
		KdFunc **nf = kd_alloc(a, sizeof *nf * (size_t)cap);
		if (m->nfn)
			memcpy(nf, m->fn, sizeof *nf * (size_t)m->nfn);
		m->fn = nf;
		m->capfn = cap;
	}
	m->fn[m->nfn++] = f;
}
