/* dom.c: dominators (dom.h).  Iterative over reverse postorder; the
 * dominator tree is numbered once so that dominance is two compares. */
#include <string.h>

#include "dom.h"

enum { PREFETCH = 16 };   /* blocks ahead */

int kd_dom_succ(const KdFunc *f, int b, int k)
{
	const KdBlock *bl = f->blk[b];
	if (!bl->nins)
		return -1;
	const KdIns *t = &f->ins[bl->insv[bl->nins - 1]];
	return k < t->nsucc ? t->succ[k].blk : -1;
}

/* Postorder of the blocks reachable from b into order[0..*n); succ holds
 * each block's two successors (-1: none), read once from the IR so that
 * the walks here do not chase block and instruction pointers again. */
static void dfs(const KdFunc *f, const int *succ, int b, char *seen, int *order, int *n)
{
	/* Explicit stack: a deep loop nest must not recurse deeply. */
	int *stack = order + f->nblk, *next = stack + f->nblk, sp = 0;
	stack[sp] = b;
	next[sp++] = 0;
	seen[b] = 1;
	while (sp) {
		int x = stack[sp - 1];
		int k = next[sp - 1]++;
		int s = k < 2 ? succ[2 * x + k] : -1;
		if (next[sp - 1] > 2) {
			order[(*n)++] = x;
			sp--;
			continue;
		}
		if (s >= 0 && s < f->nblk && !seen[s]) {
			seen[s] = 1;
			stack[sp] = s;
			next[sp++] = 0;
		}
	}
}

static int intersect(const KdDom *d, int a, int b)
{
	while (a != b) {
		while (d->rpo[a] > d->rpo[b])
			a = d->idom[a];
		while (d->rpo[b] > d->rpo[a])
			b = d->idom[b];
	}
	return a;
}

/* Numbers the dominator tree depth first: a dominates b exactly when b's
 * [pre, post] lies inside a's.  Walking idom chains per use instead was
 * quadratic in long kernels, whose chains are as long as the kernel. */
static void tree_intervals(KdArena *a, KdDom *d, int n)
{
	int *first = kd_alloc(a, sizeof *first * (size_t)n);
	int *next = kd_alloc(a, sizeof *next * (size_t)n);
	int *stack = kd_alloc(a, sizeof *stack * (size_t)n);
	int *it = kd_alloc(a, sizeof *it * (size_t)n);
	int clock = 0, sp = 0;

	d->pre = kd_alloc(a, sizeof *d->pre * (size_t)n);
	d->post = kd_alloc(a, sizeof *d->post * (size_t)n);
	for (int b = 0; b < n; b++)
		first[b] = next[b] = -1;
	for (int b = n - 1; b > 0; b--)
		if (d->idom[b] >= 0) {
			next[b] = first[d->idom[b]];
			first[d->idom[b]] = b;
		}
	stack[sp++] = 0;
	it[0] = first[0];
	d->pre[0] = clock++;
	while (sp) {
		int x = stack[sp - 1], c = it[x];
		if (c < 0) {
			d->post[x] = clock++;
			sp--;
			continue;
		}
		it[x] = next[c];
		d->pre[c] = clock++;
		it[c] = first[c];
		stack[sp++] = c;
	}
}

void kd_dom_build(KdArena *a, const KdFunc *f, KdDom *d)
{
	int n = f->nblk, cnt = 0;
	char *seen = kd_alloc(a, (size_t)n);
	int *post = kd_alloc(a, sizeof *post * (size_t)n * 3);
	memset(seen, 0, (size_t)n);
	d->n = n;
	d->idom = kd_alloc(a, sizeof *d->idom * (size_t)n);
	d->rpo = kd_alloc(a, sizeof *d->rpo * (size_t)n);
	d->order = kd_alloc(a, sizeof *d->order * (size_t)n);
	d->npred = kd_alloc(a, sizeof *d->npred * (size_t)n);
	int *succ = kd_alloc(a, sizeof *succ * (size_t)(2 * n + 2));
	for (int p = 0; p < n; p++) {
		/* The terminators lie one or a few instructions apart, too far
		 * for the hardware to see a stream: in a long kernel each was a
		 * cache miss, every pass that builds dominators. */
		if (p + PREFETCH < n) {
			const KdBlock *ahead = f->blk[p + PREFETCH];
			if (ahead->nins) {
				const KdIns *t = &f->ins[ahead->insv[ahead->nins - 1]];
				__builtin_prefetch(&t->nsucc);
				__builtin_prefetch(&t->succ[1]);   /* often the next line */
			}
		}
		for (int k = 0; k < 2; k++) {
			int s = kd_dom_succ(f, p, k);
			succ[2 * p + k] = s >= 0 && s < n ? s : -1;
		}
	}
	dfs(f, succ, 0, seen, post, &cnt);
	d->nreach = cnt;
	for (int i = 0; i < n; i++)
		d->idom[i] = -1;
	for (int i = 0; i < cnt; i++) {
		d->rpo[post[i]] = cnt - 1 - i;
		d->order[cnt - 1 - i] = post[i];
	}
	/* Predecessor lists, built once (in block order, as edges): scanning
	 * every block for the predecessors of each made this quadratic. */
	int *pstart = d->pstart = kd_alloc(a, sizeof *pstart * (size_t)(n + 1));
	int *plist = d->plist = kd_alloc(a, sizeof *plist * (size_t)(2 * n + 1));
	memset(pstart, 0, sizeof *pstart * (size_t)(n + 1));
	for (int p = 0; p < 2 * n; p++)
		if (succ[p] >= 0)
			pstart[succ[p] + 1]++;
	for (int b = 0; b < n; b++) {
		d->npred[b] = pstart[b + 1];
		pstart[b + 1] += pstart[b];
	}
	int *fillp = kd_alloc(a, sizeof *fillp * (size_t)(n + 1));
	memcpy(fillp, pstart, sizeof *fillp * (size_t)(n + 1));
	for (int p = 0; p < 2 * n; p++)
		if (succ[p] >= 0)
			plist[fillp[succ[p]]++] = p / 2;
	d->idom[0] = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = cnt - 1; i >= 0; i--) {
			int b = post[i];
			if (b == 0)
				continue;
			int nd = -1;
			for (int e = pstart[b]; e < pstart[b + 1]; e++) {
				int p = plist[e];
				if (d->idom[p] >= 0)
					nd = nd < 0 ? p : intersect(d, p, nd);
			}
			if (nd != d->idom[b]) {
				d->idom[b] = nd;
				changed = 1;
			}
		}
	}
	tree_intervals(a, d, n);
}

int kd_dom_dominates(const KdDom *d, int x, int y)
{
	if (d->idom[y] < 0)
		return 1;      /* unreachable code: nothing to prove */
	if (d->idom[x] < 0)
		return 0;
	return d->pre[x] <= d->pre[y] && d->post[y] <= d->post[x];
}
