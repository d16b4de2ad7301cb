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
 * business, not this one's. */
#include <stdio.h>
#include <stdlib.h>

#include "tile.h"
#include "walk.h"

/* A matmul result nothing has read yet. */
typedef struct {
	int buf, by;          /* the buffer; the nc_matmul that wrote it */
	int64_t blk, p0, np, f0, nf;
} Pending;

typedef struct {
	KdDiag *d;
	Pending *pend;
	int npend, cap;
	int *seen, nseen;     /* (overwriter, writer) pairs reported, flattened */
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
	v->buf = f->val[ins->args[i]].buf;
	v->np = f->val[t->args[TA_NPART]].c;
	v->nf = f->val[t->args[TA_NFREE]].c;
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
	if (b->tile && b->tile->nbdim)
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
		if (ins->op == OP_NC_MATMUL && v.blk >= 0) {
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
		kd_walk(f, step, &o, 10000000);
		free(o.pend);
		free(o.seen);
	}
}
