/* walk.c: abstract execution of a kernel's IR (walk.h).  Only integer
 * scalars are tracked; a value that depends on a kernel parameter is
 * unknown, and a branch on an unknown value ends the walk. */
#include <stdlib.h>
#include <string.h>

#include "ieval.h"
#include "walk.h"

/* The evaluator's operator for each scalar integer op (0: none). */
static const signed char op_iop[KD_NOP] = {
	[OP_ADD] = KD_I_ADD + 1, [OP_SUB] = KD_I_SUB + 1, [OP_MUL] = KD_I_MUL + 1,
	[OP_DIV] = KD_I_DIV + 1, [OP_REM] = KD_I_REM + 1, [OP_SHL] = KD_I_SHL + 1,
	[OP_SHR] = KD_I_SHR + 1, [OP_AND] = KD_I_AND + 1, [OP_OR] = KD_I_OR + 1,
	[OP_XOR] = KD_I_XOR + 1, [OP_EQ] = KD_I_EQ + 1, [OP_NE] = KD_I_NE + 1,
	[OP_LT] = KD_I_LT + 1, [OP_LE] = KD_I_LE + 1, [OP_GT] = KD_I_GT + 1,
	[OP_GE] = KD_I_GE + 1, [OP_LAND] = KD_I_LAND + 1, [OP_LOR] = KD_I_LOR + 1,
	[OP_NEG] = KD_I_NEG + 1, [OP_NOT] = KD_I_NOT + 1};

int kd_eval_op(int op, int64_t a, int64_t b, int64_t *out)
{
	return op >= 0 && op < KD_NOP && op_iop[op] &&
	       kd_ieval((KdIop)(op_iop[op] - 1), a, b, out) == KD_IEVAL_OK;
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
	return kd_eval_op(in->op, a, b, out);
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
				/* A pure target op (aipu's vector ops) runs on the
				 * engine too: reported, so --stats counts its cycles. */
				if (d->target != KD_TARGET_NONE)
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
