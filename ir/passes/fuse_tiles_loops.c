/* fuse_tiles_loops.c: neuron loop fusion (part of pass fuse-tiles).  A
 * loop with constant bounds whose body (a chain of blocks) holds one
 * load, store or tensor_copy and pure ops, with tile views affine in the
 * induction variable, becomes one op at the end of the preheader, which
 * then jumps past the loop (empty-loops removes what is left).  The trips
 * must cover adjacent ranges of one dimension on both sides: along the
 * free dimension (each trip's FOFF steps by NFREE, the partitions fixed)
 * or along the partitions (PSTART steps by NPART, the free range fixed).
 * Terms of enclosing loops are recomputed in the preheader, so nested
 * loops fuse from the inside out, as fuse-bursts does on ascend.
 *
 * The fused views are the union of the trips' views: each trip's view
 * lay inside its tile (the rule checker proved it over the whole loop),
 * so the union does too, and load, store and tensor_copy have no other
 * range to leave.  Nothing needs splitting.  (A loop under a guard the
 * checker cannot decide was not proved: it is left alone, its trips
 * checked at run time one by one.)
 *
 * It must not fire:
 *  - for a tensor_copy within one buffer or with a directly allocated
 *    side: a trip could read what an earlier one wrote;
 *  - when the block index varies, both dimensions vary, the two views
 *    step along different dimensions, or a step is not exactly the
 *    view's extent (a gap, an overlap, going backwards);
 *  - when an operand is not affine in constant-bound loops, the loop is
 *    not the builder's shape (one preheader, header compare and branch,
 *    body a chain ending in the increment), or its induction variable or
 *    condition is used after it. */
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "rules.h"
#include "tile.h"

typedef struct {
	KdModule *m;
	KdFunc *f;
	KdCfg cfg;
	char *proven;      /* per block: kd_pass_proven */
} Fl;

/* One tile operand of a tile view: c + k*trip + outer terms. */
typedef struct {
	int64_t c, k;
	int n;
	int iv[8];
	int64_t per[8];    /* per unit of the outer induction variable */
} Arg;

static int arg_of(const KdFunc *f, int v, int h, Arg *a)
{
	int n, blk[8];
	int64_t kk[8];
	if (!kd_affine_terms(f, v, &a->c, &n, blk, kk))
		return 0;
	a->k = 0;
	a->n = 0;
	for (int i = 0; i < n; i++) {
		const KdLoop *l = f->blk[blk[i]]->loop;
		if (blk[i] == h) {
			a->k = kk[i];
			continue;
		}
		/* k*trip == (k/step)*(iv - lo) */
		if (!l || kk[i] % l->step || f->val[l->lo].kind != VK_CONST)
			return 0;
		int64_t per = kk[i] / l->step, t;
		if (__builtin_mul_overflow(per, f->val[l->lo].c, &t) || __builtin_sub_overflow(a->c, t, &a->c))
			return 0;
		a->iv[a->n] = l->iv;
		a->per[a->n++] = per;
	}
	return 1;
}

typedef struct {
	int buf;
	Arg a[TA_N];
} View;

static int view_of(const KdFunc *f, int v, int h, View *o)
{
	const KdIns *t = kd_defins(f, v);
	if (!t || t->op != OP_TILE || t->nargs != TA_N)
		return 0;
	for (int i = 0; i < TA_N; i++)
		if (!arg_of(f, t->args[i], h, &o->a[i]))
			return 0;
	o->buf = f->val[v].buf;
	/* sizes are constants; the block is the same every trip */
	return !o->a[TA_NPART].n && !o->a[TA_NPART].k && !o->a[TA_NFREE].n && !o->a[TA_NFREE].k &&
	       !o->a[TA_BLOCK].k;
}

/* The dimension the view steps along (TA_FOFF or TA_PSTART), or -1. */
static int step_dim(const View *v, int64_t trips)
{
	const Arg *p = &v->a[TA_PSTART], *fo = &v->a[TA_FOFF];
	if (trips == 1)
		return TA_FOFF;
	if (!p->k && fo->k == v->a[TA_NFREE].c)
		return TA_FOFF;
	if (!fo->k && p->k == v->a[TA_NPART].c)
		return TA_PSTART;
	return -1;
}

static int arith(Fl *u, int blk, int *pos, KdOp op, int x, int y, KdSpan sp)
{
	int args[2] = {x, y};
	int i = kd_ins_add(u->m->arena, u->f, blk, op, 2, args, NULL, sp);
	kd_ins_move_to(u->f, blk, i, (*pos)++);
	return kd_ins_result(u->m->arena, u->f, i, VT_INT, KD_I64, -1, NULL);
}

/* The value of a at trip 0, computed at *pos of blk. */
static int arg_val(Fl *u, int blk, int *pos, const Arg *a, KdSpan sp)
{
	int v = kd_val_const(u->m->arena, u->f, a->c);
	for (int t = 0; t < a->n; t++) {
		int prod = arith(u, blk, pos, OP_MUL, a->iv[t], kd_val_const(u->m->arena, u->f, a->per[t]), sp);
		v = arith(u, blk, pos, OP_ADD, v, prod, sp);
	}
	return v;
}

/* The union of the trips' views: the trip-0 view grown along dim. */
static int fused_view(Fl *u, int blk, int *pos, const View *v, int dim, int64_t trips, KdSpan sp)
{
	int args[TA_N];
	for (int i = 0; i < TA_N; i++)
		args[i] = arg_val(u, blk, pos, &v->a[i], sp);
	int sz = dim == TA_FOFF ? TA_NFREE : TA_NPART;
	args[sz] = kd_val_const(u->m->arena, u->f, v->a[sz].c * trips);
	int i = kd_ins_add(u->m->arena, u->f, blk, OP_TILE, TA_N, args, NULL, sp);
	kd_ins_move_to(u->f, blk, i, (*pos)++);
	return kd_ins_result(u->m->arena, u->f, i, VT_REF, u->f->buf[v->buf].dt, v->buf, NULL);
}

static int direct(const KdBuffer *b)
{
	return b->tile && b->tile->alloc != KD_ALLOC_AUTO;
}

static int want_copy(const KdIns *in)
{
	return (in->op == OP_LOAD || in->op == OP_STORE || in->op == OP_TENSOR_COPY) && in->nargs == KD_COPY_N;
}

static int fuse_loop(Fl *u, int h)
{
	KdFunc *f = u->f;
	KdCountedLoop cl;
	if (!kd_counted_loop(f, &u->cfg, h, want_copy, &cl) || cl.trips > KDSL_NEURON_PARTITIONS * 65536 ||
	    !u->proven[f->ins[cl.op].blk])
		return 0;
	int64_t n = cl.trips;
	int op = cl.op, pre = cl.pre, exitb = cl.exitb;
	const KdIns *in = &f->ins[op];
	View d, s;
	if (!view_of(f, in->args[KD_COPY_DST], h, &d) || !view_of(f, in->args[KD_COPY_SRC], h, &s))
		return 0;
	if (in->op == OP_TENSOR_COPY && (d.buf == s.buf || direct(&f->buf[d.buf]) || direct(&f->buf[s.buf])))
		return 0;
	int dim = step_dim(&d, n);
	if (dim < 0 || step_dim(&s, n) != dim)
		return 0;
	/* The op at the end of the preheader, which then jumps past the loop.
	 * (Adding instructions may move f->ins: copy what we need first.) */
	int pos = f->blk[pre]->nins - 1;
	KdOp kind = in->op;
	KdSpan sp = in->span, asp[KD_COPY_N] = {sp, sp};
	if (in->argspan)
		memcpy(asp, in->argspan, sizeof asp);
	int dv = fused_view(u, pre, &pos, &d, dim, n, asp[KD_COPY_DST]);
	int sv = fused_view(u, pre, &pos, &s, dim, n, asp[KD_COPY_SRC]);
	int args[KD_COPY_N] = {[KD_COPY_DST] = dv, [KD_COPY_SRC] = sv};
	int ni = kd_ins_add(u->m->arena, f, pre, kind, KD_COPY_N, args, asp, sp);
	kd_ins_move_to(f, pre, ni, pos++);
	kd_loop_skip(f, pre, exitb);
	kd_ins_unlink(f, op);
	return 1;
}

/* Rounds over every loop on one analysis each (loops.c says why that is
 * sound), while they rewrite. */
int kd_fuse_tiles_loops(KdModule *m, KdFunc *f)
{
	Fl u = {.m = m, .f = f};
	int total = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		kd_cfg_analyse(&u.cfg, f);
		u.proven = calloc((size_t)f->nblk + 1, 1);
		kd_pass_proven(m, f, u.proven);
		for (int b = 0; b < f->nblk; b++)
			changed += fuse_loop(&u, b);
		free(u.proven);
		total += changed;
	}
	kd_cfg_free(&u.cfg);
	return total;
}
