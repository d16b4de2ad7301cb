/* overwrite_neuron.c: -Wmatmul-overwrite (LANGUAGE.md 7).  nc_matmul
 * without accumulate overwrites its dst; when an earlier nc_matmul wrote
 * some of those elements and nothing has read them since, that result is
 * lost: the K loop that forgot accumulate=true keeps only its last K
 * tile.  The kernel is walked in execution order (walk.h: loops with
 * constant bounds unrolled, so each iteration of a K loop is seen),
 * keeping the views matmuls wrote that nothing has read yet.  A view is a
 * logical block and a rectangle of partitions x elements; an operand
 * whose indices the walk does not know counts as all of its buffer for a
 * read and warns of nothing as a write, so the warning never guesses.
 * Blocks that share a physical tile by the modulo rule are -Whazard's
 * business, not this one's.  A walk stops at a branch on a runtime
 * value, so a loop with a runtime trip count is never unrolled; its
 * matmuls are recognised by the code's shape instead (loop_check). */
#include <stdio.h>
#include <stdlib.h>

#include "dom.h"
#include "tile.h"
#include "walk.h"

/* A matmul result nothing has read yet. */
typedef struct {
	int buf, by;          /* the buffer; the nc_matmul that wrote it */
	int64_t blk, p0, np, f0, nf;
	int strided;          /* an access pattern: f0..f0+nf is its span, a superset */
} Pending;

typedef struct {
	KdDiag *d;
	Pending *pend;
	int npend, cap;
	int *seen, nseen;     /* (overwriter, writer) pairs reported, flattened */
	char *ran;            /* by instruction: the walk reached it */
} Ow;

/* Operand i of ins as a view; 0 when it is no tile.  v->blk is -1 when
 * the walk does not know where the view is (then it stands for the whole
 * buffer). */
static int view_of(const KdWalk *w, const KdIns *ins, int i, Pending *v)
{
	const KdFunc *f = w->f;
	const KdIns *t = kd_tile_ins(f, ins, i);
	if (!t)
		return 0;
	KdTileAp ap;
	kd_tile_ap(f, t, &ap);
	v->buf = f->val[ins->args[i]].buf;
	v->np = f->val[t->args[TA_NPART]].c;
	v->nf = kd_tile_ap_span(&ap, f->val[t->args[TA_NFREE]].c) + 1;
	v->strided = ap.nd > 0;
	int b = t->args[TA_BLOCK], p = t->args[TA_PSTART], o = t->args[TA_FOFF];
	if (!w->known[b] || !w->known[p] || !w->known[o]) {
		v->blk = -1;
		return 1;
	}
	v->blk = w->v[b];
	v->p0 = w->v[p];
	v->f0 = w->v[o];
	return 1;
}

/* Whether views a and b share an element (a view of unknown place
 * shares with everything of its buffer). */
static int meets(const Pending *a, const Pending *b)
{
	if (a->buf != b->buf)
		return 0;
	if (a->blk < 0 || b->blk < 0)
		return 1;
	return a->blk == b->blk && a->p0 < b->p0 + b->np && b->p0 < a->p0 + a->np && a->f0 < b->f0 + b->nf &&
	       b->f0 < a->f0 + a->nf;
}

static void drop(Ow *o, const Pending *v)
{
	int k = 0;
	for (int i = 0; i < o->npend; i++)
		if (!meets(&o->pend[i], v))
			o->pend[k++] = o->pend[i];
	o->npend = k;
}

static int reported(Ow *o, int r, int w)
{
	for (int i = 0; i < o->nseen; i += 2)
		if (o->seen[i] == r && o->seen[i + 1] == w)
			return 1;
	o->seen = realloc(o->seen, sizeof *o->seen * (size_t)(o->nseen + 2));
	o->seen[o->nseen++] = r;
	o->seen[o->nseen++] = w;
	return 0;
}

/* The warning and its note for nc_matmul `self` overwriting p. */
static void warn(Ow *o, const KdFunc *f, const KdIns *ins, int self, const Pending *p)
{
	const KdBuffer *b = &f->buf[p->buf];
	char what[160];
	if (b->tile && b->tile->nbdim && p->blk >= 0)
		snprintf(what, sizeof what, "block %lld of '%s'", (long long)p->blk, b->name);
	else
		snprintf(what, sizeof what, "'%s'", b->name);
	kd_warn(o->d, KD_W_MATMUL_OVERWRITE, ins->argspan[NC_MATMUL_DST],
	        "nc_matmul without accumulate overwrites %s, which an earlier nc_matmul wrote and nothing "
	        "has read since (accumulate=true adds to it)", what);
	if (p->by == self)
		kd_note(o->d, f->ins[p->by].span, "this nc_matmul wrote %s in an earlier iteration", what);
	else
		kd_note(o->d, f->ins[p->by].span, "nc_matmul wrote %s here", what);
}

/* Reads first (they consume pending results), then the writes: a matmul
 * without accumulate warns about the pending results it overwrites, and
 * every matmul leaves its own pending; any other write drops them. */
static void step(void *ctx, const KdWalk *w, const KdIns *ins)
{
	Ow *o = ctx;
	const KdFunc *f = w->f;
	const KdOpDesc *d = &kd_ops[ins->op];
	int self = (int)(ins - f->ins);
	Pending v;
	o->ran[self] = 1;
	for (int i = 0; i < ins->nargs; i++) {
		if (!view_of(w, ins, i, &v))
			continue;
		/* an accumulate the walk does not know counts as a read */
		int rmw = kd_param_rmw_if(d, i);
		int acc = rmw >= 0 && rmw < ins->nargs && (!w->known[ins->args[rmw]] || w->v[ins->args[rmw]]);
		if (!kd_param_writes(d, i) || acc)
			drop(o, &v);
	}
	for (int i = 0; i < ins->nargs; i++) {
		if (!kd_param_writes(d, i) || !view_of(w, ins, i, &v))
			continue;
		/* a strided write is only known by its span, so it neither warns
		 * nor waits to be warned about (no false positives) */
		if (ins->op == OP_NC_MATMUL && v.blk >= 0 && !v.strided) {
			for (int k = 0; k < o->npend; k++)
				if (meets(&o->pend[k], &v) && !reported(o, self, o->pend[k].by))
					warn(o, f, ins, self, &o->pend[k]);
			drop(o, &v);
			if (o->npend == o->cap) {
				o->cap = o->cap ? 2 * o->cap : 16;
				o->pend = realloc(o->pend, sizeof *o->pend * (size_t)o->cap);
			}
			v.by = self;
			o->pend[o->npend++] = v;
		} else {
			drop(o, &v);
		}
	}
}

/* ---- loops the walk did not run ----
 * In a loop the walk never unrolled, an nc_matmul without accumulate
 * overwrites at each iteration what the one before wrote when: it runs at
 * every iteration (its block dominates each latch), its dst does not move
 * with the loop (the tile's block, partition and element offsets are
 * loop-invariant), and no other op of the loop names that buffer (so
 * nothing reads the result in between, and nothing else writes it: the
 * walk's rule for other writes).  A loop of constant bounds that runs at
 * most once is left alone. */

/* Is value v the same at every iteration of loop h?  A value defined
 * outside it is (SSA: a use inside the loop is dominated by its
 * definition, so a definition h does not dominate lies before the loop);
 * h's parameters (the induction variable) are not; a pure op inside is
 * when its operands are (depth bounds how far that is followed). */
static int invariant(const KdFunc *f, const KdDom *d, int h, int v, int depth)
{
	const KdVal *x = &f->val[v];
	if (x->kind == VK_BARG)
		return !kd_dom_dominates(d, h, x->def);
	if (x->kind != VK_INS)
		return 1;   /* constants and kernel parameters */
	const KdIns *in = &f->ins[x->def];
	if (!kd_dom_dominates(d, h, in->blk))
		return 1;
	if (depth == 0 || kd_ops[in->op].kind != OK_PURE)
		return 0;
	for (int i = 0; i < in->nargs; i++)
		if (!invariant(f, d, h, in->args[i], depth - 1))
			return 0;
	return 1;
}

/* The body entry of loop header h: the successor that dominates a latch
 * (a predecessor of h that h dominates), or -1. */
static int body_entry(const KdFunc *f, const KdDom *d, int h)
{
	for (int k = 0; k < 2; k++) {
		int s = kd_dom_succ(f, h, k);
		if (s < 0 || s == h)
			continue;
		for (int e = d->pstart[h]; e < d->pstart[h + 1]; e++)
			if (kd_dom_dominates(d, s, d->plist[e]))
				return s;
	}
	return -1;
}

/* Does block b run at every iteration of loop h: dominate each latch? */
static int every_trip(const KdDom *d, int h, int e, int b)
{
	for (int k = d->pstart[h]; k < d->pstart[h + 1]; k++) {
		int p = d->plist[k];
		if (kd_dom_dominates(d, e, p) && !kd_dom_dominates(d, b, p))
			return 0;
	}
	return 1;
}

/* Does an effect op of the loop other than mm name buffer buf? */
static int named(const KdFunc *f, const KdDom *d, int e, int mm, int buf)
{
	for (int b = 0; b < f->nblk; b++) {
		if (!kd_dom_dominates(d, e, b) || d->idom[b] < 0)
			continue;
		for (int k = 0; k < f->blk[b]->nins; k++) {
			int id = f->blk[b]->insv[k];
			const KdIns *in = &f->ins[id];
			if (id == mm || kd_ops[in->op].kind != OK_EFFECT)
				continue;
			for (int i = 0; i < in->nargs; i++)
				if (f->val[in->args[i]].type == VT_REF && f->val[in->args[i]].buf == buf)
					return 1;
		}
	}
	return 0;
}

/* Whether loop h may run twice (not known: yes). */
static int may_repeat(const KdFunc *f, const KdLoop *lp)
{
	const KdVal *lo = &f->val[lp->lo], *hi = &f->val[lp->hi];
	return lo->kind != VK_CONST || hi->kind != VK_CONST || lp->step <= 0 || hi->c - lo->c > lp->step ||
	       hi->c - lo->c < 0;
}

static void loop_check(Ow *o, const KdFunc *f)
{
	KdArena *a = kd_arena_new_like(f->arena);
	KdDom d;
	kd_dom_build(a, f, &d);
	for (int h = 0; h < f->nblk; h++) {
		int e;
		if (!f->blk[h]->loop || d.idom[h] < 0 || !may_repeat(f, f->blk[h]->loop) ||
		    (e = body_entry(f, &d, h)) < 0)
			continue;
		for (int b = 0; b < f->nblk; b++) {
			if (d.idom[b] < 0 || !kd_dom_dominates(&d, e, b) || !every_trip(&d, h, e, b))
				continue;
			for (int k = 0; k < f->blk[b]->nins; k++) {
				int id = f->blk[b]->insv[k];
				const KdIns *in = &f->ins[id];
				const KdIns *t;
				if (in->op != OP_NC_MATMUL || o->ran[id] || !(t = kd_tile_ins(f, in, NC_MATMUL_DST)))
					continue;
				const KdVal *acc = in->nargs > NC_MATMUL_ACCUMULATE ? &f->val[in->args[NC_MATMUL_ACCUMULATE]] : NULL;
				if (acc && (acc->kind != VK_CONST || acc->c))
					continue;
				int buf = f->val[in->args[NC_MATMUL_DST]].buf;
				if (!invariant(f, &d, h, t->args[TA_BLOCK], 8) || !invariant(f, &d, h, t->args[TA_PSTART], 8) ||
				    !invariant(f, &d, h, t->args[TA_FOFF], 8) || named(f, &d, e, id, buf))
					continue;
				Pending p = {.buf = buf, .by = id, .blk = -1};
				const KdVal *bv = &f->val[t->args[TA_BLOCK]];
				if (bv->kind == VK_CONST)
					p.blk = bv->c;
				if (!reported(o, id, id))
					warn(o, f, in, id, &p);
			}
		}
	}
	kd_arena_free(a);
}

static int has_matmul(const KdFunc *f)
{
	for (int i = 0; i < f->nins; i++)
		if (f->ins[i].op == OP_NC_MATMUL)
			return 1;
	return 0;
}

void kd_matmul_overwrite_check(KdDiag *d, const KdModule *m)
{
	if (d->wgroup_off[KD_W_MATMUL_OVERWRITE])
		return;
	for (int fi = 0; fi < m->nfn; fi++) {
		const KdFunc *f = m->fn[fi];
		if (!has_matmul(f))
			continue;
		Ow o = {.d = d};
		o.ran = calloc((size_t)f->nins + 1, 1);
		if (!kd_walk(f, step, &o, 10000000))
			loop_check(&o, f);
		free(o.ran);
		free(o.pend);
		free(o.seen);
	}
}
