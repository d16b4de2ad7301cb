/* dce.c: removes pure instructions and block parameters whose values
 * nothing observable uses.  It runs at every -O level: the emitter relies
 * on it, since a C local that is set and never read draws a warning.
 *
 * Liveness comes from sweeps over the instructions from the last made to
 * the first: the operands of an op with effects, of a branch and of an op
 * whose result is live become live, and so does what a jump passes to a
 * live parameter.  An instruction is made after those it reads in almost
 * all code, so one sweep settles nearly every value, in one pass over
 * memory in order.  (Following definitions from uses through a worklist
 * read the instructions in no order; in a million-line kernel it missed
 * the cache on each.)  Instructions in no block are empty or dead pure
 * ops (pass_util.c), which make nothing live.  What a sweep cannot settle:
 *  - a value whose definition the sweep passed before the value became
 *    live (an instruction a pass inserted before older ones) goes on the
 *    worklist;
 *  - a parameter that became live after a jump to it was passed (a loop's
 *    back edge) needs another sweep.  Two sweeps settle loops, nested or
 *    not, with branches inside; past them the worklist follows the jumps
 *    into each live parameter instead, so a chain of parameters cannot
 *    make the sweeps quadratic. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

enum { SWEEPS = 2 };

typedef struct {
	KdFunc *f;
	char *live;
	char *passed;      /* instructions this sweep has passed (all: worklist mode) */
	int *work, nwork;
	int new_param;     /* a parameter fed by a passed jump became live */
	char *jumped;      /* blocks a jump this sweep passed goes to */
	int *pure_res;     /* per instruction: its result if it is a pure op, else -1 */
	int *jumps, njump; /* the instructions with successors */
	int follow_jumps;  /* worklist mode: a live parameter marks its jumps' values */
	/* worklist mode: the incoming edges of each block: edge[in_start[b] ..
	 * in_start[b+1]) are (instruction, successor index) pairs */
	int *in_start, *edge;
} Dce;

static void incoming(Dce *d)
{
	const KdFunc *f = d->f;
	int n = f->nblk, ne = 0;

	d->in_start = calloc((size_t)n + 2, sizeof *d->in_start);
	for (int i = 0; i < f->nins; i++)
		for (int s = 0; s < f->ins[i].nsucc; s++) {
			int b = f->ins[i].succ[s].blk;
			if (b >= 0 && b < n) {
				d->in_start[b + 1]++;
				ne++;
			}
		}
	for (int b = 0; b < n; b++)
		d->in_start[b + 1] += d->in_start[b];
	d->edge = malloc(sizeof *d->edge * (2 * (size_t)ne + 2));
	int *at = malloc(sizeof *at * ((size_t)n + 1));
	memcpy(at, d->in_start, sizeof *at * ((size_t)n + 1));
	for (int i = 0; i < f->nins; i++)
		for (int s = 0; s < f->ins[i].nsucc; s++) {
			int b = f->ins[i].succ[s].blk;
			if (b >= 0 && b < n) {
				d->edge[2 * at[b]] = i;
				d->edge[2 * at[b] + 1] = s;
				at[b]++;
			}
		}
	free(at);
}

/* Makes v live.  Its definition's operands wait for the worklist only
 * when the sweep has passed the definition; otherwise the sweep gets
 * there.  A parameter goes on the worklist in worklist mode only. */
static void mark(Dce *d, int v)
{
	if (v < 0 || d->live[v])
		return;
	d->live[v] = 1;
	const KdVal *x = &d->f->val[v];
	if (x->kind == VK_INS && d->passed[x->def])
		d->work[d->nwork++] = v;
	else if (x->kind == VK_BARG) {
		if (d->jumped[x->def])
			d->new_param = 1;
		if (d->follow_jumps)
			d->work[d->nwork++] = v;
	}
}

/* What instruction in makes live, its result being live or not. */
static void uses_of(Dce *d, const KdIns *in)
{
	const KdFunc *f = d->f;
	KdOpKind kind = kd_ops[in->op].kind;
	if (kind == OK_EFFECT || in->op == OP_BR || (in->res >= 0 && d->live[in->res]))
		for (int a = 0; a < in->nargs; a++)
			mark(d, in->args[a]);
	for (int s = 0; s < in->nsucc; s++) {
		const KdSucc *sc = &in->succ[s];
		if (sc->blk < 0 || sc->blk >= f->nblk)
			continue;
		d->jumped[sc->blk] = 1;
		const KdBlock *to = f->blk[sc->blk];
		for (int p = 0; p < sc->nargs && p < to->nparam; p++)
			if (d->live[to->params[p]])
				mark(d, sc->args[p]);
	}
}

/* The first sweep also notes each instruction's pure result and the
 * jumps, for the removals after it. */
static void sweep(Dce *d, int first)
{
	const KdFunc *f = d->f;
	memset(d->passed, 0, (size_t)f->nins);
	memset(d->jumped, 0, (size_t)f->nblk);
	for (int i = f->nins - 1; i >= 0; i--) {
		const KdIns *in = &f->ins[i];
		uses_of(d, in);
		d->passed[i] = 1;
		if (first) {
			d->pure_res[i] = kd_ops[in->op].kind == OK_PURE ? in->res : -1;
			if (in->nsucc)
				d->jumps[d->njump++] = i;
		}
	}
}

static void drain(Dce *d)
{
	const KdFunc *f = d->f;
	while (d->nwork) {
		int v = d->work[--d->nwork];
		const KdVal *x = &f->val[v];
		if (x->kind == VK_INS) {
			const KdIns *in = &f->ins[x->def];
			for (int a = 0; a < in->nargs; a++)
				mark(d, in->args[a]);
		} else if (x->kind == VK_BARG) {
			for (int e = d->in_start[x->def]; e < d->in_start[x->def + 1]; e++)
				mark(d, f->ins[d->edge[2 * e]].succ[d->edge[2 * e + 1]].args[x->index]);
		}
	}
}

/* Fills d->live: sweeps until no parameter became live, at most SWEEPS,
 * then the worklist from every live parameter. */
static void liveness(Dce *d)
{
	const KdFunc *f = d->f;
	for (int round = 0; round < SWEEPS; round++) {
		d->new_param = 0;
		sweep(d, round == 0);
		drain(d);
		if (!d->new_param)
			return;
	}
	incoming(d);
	d->follow_jumps = 1;
	memset(d->passed, 1, (size_t)f->nins);
	for (int b = 0; b < f->nblk; b++)
		for (int p = 0; p < f->blk[b]->nparam; p++)
			if (d->live[f->blk[b]->params[p]])
				d->work[d->nwork++] = f->blk[b]->params[p];
	drain(d);
}

/* Drops dead block parameters (not a loop's induction variable, which the
 * loop metadata names) and what every jump passes them. */
static int drop_params(Dce *d)
{
	KdFunc *f = d->f;
	int removed = 0;
	/* the jumps first, while each target's list still has every parameter */
	for (int j = 0; j < d->njump; j++) {
		KdIns *t = &f->ins[d->jumps[j]];
		for (int s = 0; s < t->nsucc; s++) {
			KdSucc *sc = &t->succ[s];
			if (sc->blk < 0 || sc->blk >= f->nblk)
				continue;
			const KdBlock *to = f->blk[sc->blk];
			int m = 0;
			for (int p = 0; p < sc->nargs; p++) {
				int v = p < to->nparam ? to->params[p] : -1;
				if (v < 0 || d->live[v] || (to->loop && to->loop->iv == v))
					sc->args[m++] = sc->args[p];
			}
			sc->nargs = m;
		}
	}
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		int n = 0;
		for (int p = 0; p < bl->nparam; p++) {
			int v = bl->params[p];
			if (d->live[v] || (bl->loop && bl->loop->iv == v)) {
				f->val[v].index = n;
				bl->params[n++] = v;
			}
		}
		removed += bl->nparam - n;
		bl->nparam = n;
	}
	return removed;
}

/* Returns how many instructions and block parameters it removed. */
static int func(KdFunc *f)
{
	Dce d = {.f = f};
	d.live = calloc((size_t)f->nval + 1, 1);
	d.passed = calloc((size_t)f->nins + 1, 1);
	d.work = malloc(sizeof *d.work * ((size_t)f->nval + 1));
	d.jumped = malloc((size_t)f->nblk + 1);
	d.pure_res = malloc(sizeof *d.pure_res * ((size_t)f->nins + 1));
	d.jumps = malloc(sizeof *d.jumps * ((size_t)f->nins + 1));
	liveness(&d);
	int removed = drop_params(&d);
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		int m = 0;
		for (int k = 0; k < bl->nins; k++) {
			int r = d.pure_res[bl->insv[k]];
			if (r >= 0 && !d.live[r])
				continue;
			bl->insv[m++] = bl->insv[k];
		}
		removed += bl->nins - m;
		bl->nins = m;
	}
	free(d.live);
	free(d.passed);
	free(d.work);
	free(d.jumped);
	free(d.pure_res);
	free(d.jumps);
	free(d.in_start);
	free(d.edge);
	kd_func_pack(f->arena, f);
	return removed;
}

int kd_ir_dce(KdModule *m)
{
	int n = 0;
	for (int i = 0; i < m->nfn; i++)
		n += func(m->fn[i]);
	return n;
}
