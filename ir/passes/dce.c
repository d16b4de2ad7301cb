/* dce.c: removes pure instructions and block parameters whose values
 * nothing observable uses.  It runs at every -O level: the emitter relies
 * on it, since a C local that is set and never read draws a warning. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct {
	KdFunc *f;
	char *live;
	int *work, nwork;
	/* Incoming edges of each block, built once: edge[in_start[b] ..
	 * in_start[b+1]) are (instruction, successor index) pairs.  Scanning
	 * every instruction per live parameter or per block was quadratic. */
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

static void mark(Dce *d, int v)
{
	if (v < 0 || d->live[v])
		return;
	d->live[v] = 1;
	d->work[d->nwork++] = v;
}

/* Returns how many instructions and block parameters it removed. */
static int func(KdFunc *f)
{
	int removed = 0;
	Dce d = {.f = f};
	d.live = calloc((size_t)f->nval + 1, 1);
	d.work = malloc(sizeof *d.work * ((size_t)f->nval + 1));
	incoming(&d);
	/* Roots: the operands of ops with effects, and branch conditions. */
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		KdOpKind k = kd_ops[in->op].kind;
		if (k == OK_EFFECT || in->op == OP_BR)
			for (int a = 0; a < in->nargs; a++)
				mark(&d, in->args[a]);
	}
	while (d.nwork) {
		int v = d.work[--d.nwork];
		const KdVal *x = &f->val[v];
		if (x->kind == VK_INS) {
			const KdIns *in = &f->ins[x->def];
			for (int a = 0; a < in->nargs; a++)
				mark(&d, in->args[a]);
		} else if (x->kind == VK_BARG) {
			/* A live block parameter makes what every jump passes it live. */
			for (int e = d.in_start[x->def]; e < d.in_start[x->def + 1]; e++)
				mark(&d, f->ins[d.edge[2 * e]].succ[d.edge[2 * e + 1]].args[x->index]);
		}
	}
	/* Drop dead block parameters and the arguments that fed them. */
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		char *keep = calloc((size_t)bl->nparam + 1, 1);
		int n = 0;
		for (int p = 0; p < bl->nparam; p++) {
			int v = bl->params[p];
			/* A loop's induction variable stays: the loop metadata names it. */
			keep[p] = d.live[v] || (bl->loop && bl->loop->iv == v);
			if (keep[p]) {
				f->val[v].index = n;
				bl->params[n++] = v;
			}
		}
		for (int e = d.in_start[b]; e < d.in_start[b + 1]; e++) {
			KdSucc *sc = &f->ins[d.edge[2 * e]].succ[d.edge[2 * e + 1]];
			int m = 0;
			for (int p = 0; p < sc->nargs; p++)
				if (keep[p])
					sc->args[m++] = sc->args[p];
			sc->nargs = m;
		}
		removed += bl->nparam - n;
		bl->nparam = n;
		free(keep);
		int m = 0;
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			if (kd_ops[in->op].kind == OK_PURE && in->res >= 0 && !d.live[in->res])
				continue;
			bl->insv[m++] = bl->insv[k];
		}
		removed += bl->nins - m;
		bl->nins = m;
	}
	free(d.live);
	free(d.work);
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
