/* walk.c: abstract execution of a kernel's IR (walk.h).  Only integer
 * scalars are tracked; a value that depends on a kernel parameter is
 * unknown, and a branch on an unknown value ends the walk. */
#include <stdlib.h>
#include <string.h>

#include "ieval.h"
#include "walk.h"

int kd_eval_op(int op, int64_t a, int64_t b, int64_t *out)
{
	return op >= 0 && op < KD_NOP && (kd_ops[op].flags & KD_OPF_ARITH) &&
	       kd_ieval((KdIop)kd_ops[op].iop, a, b, out) == KD_IEVAL_OK;
}

static int eval(const KdWalk *w, const KdIns *in, int64_t *out)
{
	int64_t a = 0, b = 0;
	for (int i = 0; i < in->nargs && i < 2; i++)
		if (!w->known[in->args[i]])
			return 0;
	if (in->nargs > 0)
		a = w->v[in->args[0]];
	if (in->nargs > 1)
		b = w->v[in->args[1]];
	/* its index when inside the dim (else the run stops there) */
	if (in->op == OP_DIM_INDEX) {
		*out = a;
		return a >= 0 && a < b;
	}
	return kd_eval_op(in->op, a, b, out);
}

int kd_walk_reports(const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	if (d->kind == OK_EFFECT || (d->kind == OK_PURE && d->target != KD_TARGET_NONE))
		return 1;
	return d->kind == OK_PURE && ins->res >= 0 &&
	       (f->val[ins->res].type == VT_VEC || f->val[ins->res].type == VT_MASK);
}

static void pass(KdWalk *w, const KdSucc *s, int64_t *tmp, char *tk)
{
	const KdBlock *to = w->f->blk[s->blk];
	for (int i = 0; i < s->nargs; i++) {
		tmp[i] = w->v[s->args[i]];
		tk[i] = w->known[s->args[i]];
	}
	for (int i = 0; i < s->nargs; i++) {
		w->v[to->params[i]] = tmp[i];
		w->known[to->params[i]] = tk[i];
	}
}

int kd_walk(const KdFunc *f, KdWalkFn fn, void *ctx, int64_t max_steps)
{
	KdWalk w = {.f = f};
	w.v = calloc((size_t)f->nval + 1, sizeof *w.v);
	w.known = calloc((size_t)f->nval + 1, 1);
	int maxp = 1;
	for (int b = 0; b < f->nblk; b++)
		maxp = f->blk[b]->nparam > maxp ? f->blk[b]->nparam : maxp;
	int64_t *tmp = calloc((size_t)maxp + 1, sizeof *tmp);
	char *tk = calloc((size_t)maxp + 1, 1);
	for (int i = 0; i < f->nval; i++)
		if (f->val[i].kind == VK_CONST) {
			w.v[i] = f->val[i].c;
			w.known[i] = 1;
		}
	int done = 0, blk = 0;
	int64_t steps = 0;
	while (!done && steps < max_steps) {
		const KdBlock *bl = f->blk[blk];
		int next = -1;
		for (int k = 0; k < bl->nins; k++, steps++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			const KdOpDesc *d = &kd_ops[in->op];
			if (d->kind == OK_EFFECT) {
				fn(ctx, &w, in);
			} else if (in->op == OP_RET) {
				done = 1;
			} else if (in->op == OP_JMP) {
				pass(&w, &in->succ[0], tmp, tk);
				next = in->succ[0].blk;
			} else if (in->op == OP_BR) {
				int c = in->args[0];
				if (!w.known[c])
					goto out;
				const KdSucc *s = &in->succ[w.v[c] ? 0 : 1];
				pass(&w, s, tmp, tk);
				next = s->blk;
			} else if (in->res >= 0) {
				/* A pure target op or a generic op on vectors
				 * (aipu's) runs on the engine too: reported, so
				 * --stats counts its cycles. */
				if (kd_walk_reports(f, in))
					fn(ctx, &w, in);
				int64_t r = 0;
				w.known[in->res] = (char)eval(&w, in, &r);
				w.v[in->res] = w.known[in->res] ? r : 0;
			}
		}
		if (next < 0)
			break;
		blk = next;
	}
out:
	free(w.v);
	free(w.known);
	free(tmp);
	free(tk);
	return done;
}
