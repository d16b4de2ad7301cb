/* emptyloop.c: empty-loop removal (pass empty-loops).  A loop that does
 * nothing observable (only pure ops, no value used after it) is skipped:
 * its preheader jumps straight to the exit.  Then every block no path
 * from the entry reaches goes, and a block that jumps to a block only it
 * reaches takes that block's code, so the IR (and the C) of a kernel
 * whose loops fuse-bursts or fuse-tiles turned into one op is one
 * straight-line block.
 *
 * It must not fire:
 *  - when the loop's bounds are not constants: a run-time bound could
 *    make the loop run forever (the induction variable is i64 in C, and
 *    its overflow is undefined), which removal would hide;
 *  - when the body holds an op with an effect, or a pure op with a
 *    run-time check (div, rem, shl, shr);
 *  - when the body is not a chain of blocks (a branch inside) or the
 *    loop's shape is not the one the builder makes (header: compare and
 *    branch; one preheader);
 *  - when a value the loop defines (the induction variable, the
 *    condition, a body result) is used outside it. */
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "rules.h"

typedef struct {
	KdFunc *f;
	char *reach;
	int *npred;
	int *stack;
} Cfg;

static const KdIns *term(const KdFunc *f, int b)
{
	const KdBlock *bl = f->blk[b];
	return bl->nins ? &f->ins[bl->insv[bl->nins - 1]] : NULL;
}

static void analyse(Cfg *c)
{
	kd_cfg_reach(c->f, c->reach, c->npred, c->stack);
}

/* Is the loop headed by h empty?  On success *pre is the preheader's
 * terminator to redirect to *exitb. */
static int empty_loop(Cfg *c, int h, KdIns **pre, int *exitb)
{
	KdFunc *f = c->f;
	const KdBlock *hb = f->blk[h];
	const KdLoop *l = hb->loop;
	if (!l || !c->reach[h] || hb->nparam != 1 || hb->params[0] != l->iv || hb->nins != 2 ||
	    l->step <= 0 || f->val[l->lo].kind != VK_CONST || f->val[l->hi].kind != VK_CONST ||
	    c->npred[h] != 2)
		return 0;
	const KdIns *cond = &f->ins[hb->insv[0]], *br = &f->ins[hb->insv[1]];
	if (cond->op != OP_LT || cond->args[0] != l->iv || cond->args[1] != l->hi || br->op != OP_BR ||
	    br->args[0] != cond->res || br->succ[0].nargs || br->succ[1].nargs)
		return 0;
	int body = br->succ[0].blk;
	*exitb = br->succ[1].blk;
	if (body == h || *exitb == h)
		return 0;
	char *in = calloc((size_t)f->nblk, 1);
	int ok = 1, cur = body, last = -1;
	in[h] = 1;
	while (ok) {
		if (cur == h || cur == *exitb || in[cur] || c->npred[cur] != 1) {
			ok = 0;
			break;
		}
		in[cur] = 1;
		const KdBlock *cb = f->blk[cur];
		for (int k = 0; ok && k + 1 < cb->nins; k++) {
			KdOp op = f->ins[cb->insv[k]].op;
			ok = kd_ops[op].kind == OK_PURE && op != OP_DIV && op != OP_REM && op != OP_SHL &&
			     op != OP_SHR;
		}
		const KdIns *t = term(f, cur);
		if (!ok || !t || t->op != OP_JMP) {
			ok = 0;
			break;
		}
		if (t->succ[0].blk == h) {
			last = cur;
			break;
		}
		if (t->succ[0].nargs)
			ok = 0;
		cur = t->succ[0].blk;
	}
	/* the preheader: the other reachable block that jumps to h */
	*pre = NULL;
	for (int b = 0; ok && b < f->nblk; b++) {
		KdIns *t = c->reach[b] && b != last && f->blk[b]->nins
		           ? &f->ins[f->blk[b]->insv[f->blk[b]->nins - 1]] : NULL;
		if (t && t->op == OP_JMP && t->succ[0].blk == h)
			*pre = t;
	}
	ok = ok && *pre;
	/* nothing the loop defines is used outside it */
	for (int b = 0; ok && b < f->nblk; b++) {
		if (in[b] || !c->reach[b])
			continue;
		for (int k = 0; ok && k < f->blk[b]->nins; k++) {
			const KdIns *u = &f->ins[f->blk[b]->insv[k]];
			for (int lb = 0; ok && lb < f->nblk; lb++) {
				if (!in[lb])
					continue;
				const KdBlock *x = f->blk[lb];
				for (int p = 0; ok && p < x->nparam; p++)
					ok = !kd_ins_uses(u, x->params[p]);
				for (int q = 0; ok && q < x->nins; q++)
					ok = f->ins[x->insv[q]].res < 0 || !kd_ins_uses(u, f->ins[x->insv[q]].res);
			}
		}
	}
	free(in);
	return ok;
}

/* A block that ends in a jump to a block only it reaches (no
 * parameters, not a loop header) takes that block's instructions, so the
 * straight-line code a removed loop leaves is one block.  The emptied
 * block is then unreachable. */
static int merge_chains(KdArena *ar, Cfg *c)
{
	KdFunc *f = c->f;
	int n = 0;
	for (int a = 0; a < f->nblk; a++) {
		while (c->reach[a]) {
			KdBlock *ab = f->blk[a];
			const KdIns *t = term(f, a);
			if (!t || t->op != OP_JMP || t->succ[0].nargs)
				break;
			int b = t->succ[0].blk, jmp = ab->insv[ab->nins - 1];
			KdBlock *bb = f->blk[b];
			if (b == a || b == 0 || c->npred[b] != 1 || bb->nparam || bb->loop || !bb->nins)
				break;
			kd_ins_unlink(f, jmp);
			int need = ab->nins + bb->nins;
			int *v = kd_alloc(ar, sizeof *v * (size_t)need);
			memcpy(v, ab->insv, sizeof *v * (size_t)ab->nins);
			memcpy(v + ab->nins, bb->insv, sizeof *v * (size_t)bb->nins);
			for (int k = 0; k < bb->nins; k++)
				f->ins[bb->insv[k]].blk = a;
			ab->insv = v;
			ab->nins = ab->capins = need;
			bb->nins = 0;
			c->reach[b] = 0;
			n++;
		}
	}
	return n;
}

/* Drops the blocks the entry does not reach and renumbers the rest.
 * Their instructions become empty pure ops (kd_ins_unlink) and their
 * parameters constants, so code scanning f->ins or f->val whole sees
 * nothing of them. */
static int drop_unreachable(Cfg *c)
{
	KdFunc *f = c->f;
	int *to = malloc(sizeof *to * ((size_t)f->nblk + 1)), n = 0;
	for (int b = 0; b < f->nblk; b++)
		to[b] = c->reach[b] ? n++ : -1;
	int dropped = f->nblk - n;
	for (int b = 0; dropped && b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		if (to[b] < 0) {
			while (bl->nins)
				kd_ins_unlink(f, bl->insv[bl->nins - 1]);
			for (int p = 0; p < bl->nparam; p++) {
				KdVal *v = &f->val[bl->params[p]];
				v->kind = VK_CONST;
				v->type = VT_INT;
				v->c = 0;
				v->def = -1;
			}
			continue;
		}
		for (int p = 0; p < bl->nparam; p++)
			f->val[bl->params[p]].def = to[b];
		for (int k = 0; k < bl->nins; k++) {
			KdIns *in = &f->ins[bl->insv[k]];
			in->blk = to[b];
			for (int s = 0; s < in->nsucc; s++)
				in->succ[s].blk = to[in->succ[s].blk];
		}
	}
	for (int b = 0; dropped && b < f->nblk; b++)
		if (to[b] >= 0)
			f->blk[to[b]] = f->blk[b];
	f->nblk = n;
	free(to);
	return dropped;
}

int kd_pass_empty_loops(KdModule *m)
{
	int total = 0;
	for (int fi = 0; fi < m->nfn; fi++) {
		Cfg c = {.f = m->fn[fi]};
		c.reach = calloc((size_t)c.f->nblk + 1, 1);
		c.npred = calloc((size_t)c.f->nblk + 1, sizeof *c.npred);
		c.stack = calloc((size_t)c.f->nblk + 1, sizeof *c.stack);
		for (int changed = 1; changed;) {
			changed = 0;
			analyse(&c);
			for (int h = 0; h < c.f->nblk && !changed; h++) {
				KdIns *pre;
				int exitb;
				if (empty_loop(&c, h, &pre, &exitb)) {
					pre->succ[0].blk = exitb;
					pre->succ[0].nargs = 0;
					changed = 1;
				}
			}
			total += changed;
		}
		analyse(&c);
		total += merge_chains(m->arena, &c);
		total += drop_unreachable(&c);
		free(c.reach);
		free(c.npred);
		free(c.stack);
	}
	return total;
}
