/* loops.c: the control-flow facts the loop passes (fuse-bursts,
 * fuse-tiles, empty-loops) share: reachability, predecessors, the loop
 * shape the builder makes, and which values a loop's outside reads.
 *
 * kd_cfg_analyse computes all of it from one dominator build (dom.c: the
 * reachability and predecessor lists) and one scan, so a pass that looks at
 * every loop costs O(function) per round, not O(function) per loop.  A
 * round may rewrite several loops on one analysis: a rewrite only makes
 * its own loop unreachable (its preheader then jumps to its exit, whose
 * single predecessor stays single), and adds uses only of values defined
 * before the loop, so for every other loop the stale facts are the
 * current ones or err on the side of "no" (a value read by an op that is
 * gone still counts as escaping).  What a rewrite newly enables is found
 * in the next round. */
#include <string.h>

#include "pass.h"
#include "rules.h"

/* reach, npred and jfrom, from the dominator build's reachability and
 * predecessor lists (one per edge, in block order). */
static void edges(KdCfg *c, const KdFunc *f)
{
	const KdDom *d = &c->dom;
	for (int b = 0; b < f->nblk; b++)
		c->reach[b] = d->idom[b] >= 0;
	for (int b = 0; b < f->nblk; b++) {
		c->jfrom[2 * b] = c->jfrom[2 * b + 1] = -1;
		for (int e = d->pstart[b]; e < d->pstart[b + 1]; e++) {
			int from = d->plist[e];
			const KdBlock *pb = f->blk[from];
			if (!c->reach[from])
				continue;
			c->npred[b]++;
			if (f->ins[pb->insv[pb->nins - 1]].op == OP_JMP) {
				c->jfrom[2 * b] = c->jfrom[2 * b + 1];
				c->jfrom[2 * b + 1] = from;
			}
		}
	}
}

/* A read of v in block b: does it leave v's loop? */
static void mark(KdCfg *c, const KdFunc *f, int v, int b)
{
	const KdVal *x = &f->val[v];
	int def = x->kind == VK_BARG ? x->def : x->kind == VK_INS ? f->ins[x->def].blk : -1;
	if (def >= 0 && c->loop_of[def] >= 0 && c->loop_of[def] != c->loop_of[b])
		c->escapes[v] = 1;
}

/* loop_of and escapes: a shape loop's blocks hold one chain each (a
 * chain block has one predecessor), so the labels never overlap. */
static void loop_values(KdCfg *c, const KdFunc *f)
{
	for (int b = 0; b < f->nblk; b++)
		c->loop_of[b] = -1;
	for (int h = 0; h < f->nblk; h++) {
		KdLoopShape sh;
		if (!f->blk[h]->loop || !kd_loop_shape(f, c, h, &sh))
			continue;
		c->loop_of[h] = h;
		for (int i = 0; i < sh.nchain; i++)
			c->loop_of[sh.chain[i]] = h;
	}
	for (int b = 0; b < f->nblk; b++) {
		const KdBlock *bl = f->blk[b];
		for (int k = 0; c->reach[b] && k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			for (int i = 0; i < in->nargs; i++)
				mark(c, f, in->args[i], b);
			for (int s = 0; s < in->nsucc; s++)
				for (int i = 0; i < in->succ[s].nargs; i++)
					mark(c, f, in->succ[s].args[i], b);
		}
	}
}

void kd_cfg_analyse(KdCfg *c, const KdFunc *f)
{
	kd_cfg_free(c);
	c->a = kd_arena_new_like(f->arena);
	kd_dom_build(c->a, f, &c->dom);
	size_t n = (size_t)f->nblk + 1;
	c->reach = kd_alloc(c->a, n);
	c->npred = kd_alloc(c->a, n * sizeof *c->npred);
	c->jfrom = kd_alloc(c->a, 2 * n * sizeof *c->jfrom);
	c->loop_of = kd_alloc(c->a, n * sizeof *c->loop_of);
	c->escapes = kd_alloc(c->a, (size_t)f->nval + 1);
	edges(c, f);
	loop_values(c, f);
}

void kd_cfg_free(KdCfg *c)
{
	kd_arena_free(c->a);
	memset(c, 0, sizeof *c);
}

int kd_loop_shape(const KdFunc *f, const KdCfg *c, int h, KdLoopShape *o)
{
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
	int cur = br->succ[0].blk;
	o->exitb = br->succ[1].blk;
	o->cond = cond->res;
	o->nchain = 0;
	if (cur == h || o->exitb == h)
		return 0;
	/* the body chain: unconditional jumps, the last one back to h */
	for (;;) {
		if (o->nchain == KD_LOOP_CHAIN || cur == h || cur == o->exitb || c->npred[cur] != 1)
			return 0;
		o->chain[o->nchain++] = cur;
		const KdSucc *s = kd_jmp_succ(f, cur);
		if (!s)
			return 0;
		if (s->blk == h)
			break;
		if (s->nargs)
			return 0;
		cur = s->blk;
	}
	/* the preheader: the other reachable block that jumps to h (h has
	 * two predecessors, so jfrom holds both when both jump) */
	o->pre = -1;
	for (int i = 0; i < 2; i++)
		if (c->jfrom[2 * h + i] >= 0 && c->jfrom[2 * h + i] != cur)
			o->pre = c->jfrom[2 * h + i];
	return o->pre >= 0;
}

int kd_loop_holds(const KdLoopShape *sh, int h, int b)
{
	if (b == h)
		return 1;
	for (int c = 0; c < sh->nchain; c++)
		if (sh->chain[c] == b)
			return 1;
	return 0;
}

void kd_loop_skip(KdFunc *f, int pre, int exitb)
{
	KdIns *t = &f->ins[f->blk[pre]->insv[f->blk[pre]->nins - 1]];
	t->succ[0].blk = exitb;
	t->succ[0].nargs = 0;
}

int kd_loop_escapes(const KdFunc *f, const KdCfg *c, const KdLoopShape *sh, int h)
{
	for (int i = -1; i < sh->nchain; i++) {
		const KdBlock *x = f->blk[i < 0 ? h : sh->chain[i]];
		for (int p = 0; p < x->nparam; p++)
			if (c->escapes[x->params[p]])
				return 1;
		for (int q = 0; q < x->nins; q++) {
			int r = f->ins[x->insv[q]].res;
			if (r >= 0 && c->escapes[r])
				return 1;
		}
	}
	return 0;
}

int kd_counted_loop(const KdFunc *f, const KdCfg *c, int h, int (*want)(const KdIns *in),
                    KdCountedLoop *out)
{
	const KdLoop *l = f->blk[h]->loop;
	KdLoopShape sh;
	if (!kd_loop_shape(f, c, h, &sh) || c->npred[sh.exitb] != 1)
		return 0;
	int64_t n = kd_loop_trips(f, l), k0, k;
	if (n < 1)
		return 0;
	/* one wanted op in the chain, pure ops besides */
	int op = -1;
	for (int i = 0; i < sh.nchain; i++) {
		const KdBlock *cb = f->blk[sh.chain[i]];
		for (int q = 0; q + 1 < cb->nins; q++) {
			const KdIns *in = &f->ins[cb->insv[q]];
			if (kd_ops[in->op].kind == OK_PURE)
				continue;
			if (op >= 0 || !want(in))
				return 0;
			op = cb->insv[q];
		}
	}
	if (op < 0)
		return 0;
	/* the latch steps iv by step from lo, and the preheader starts it at lo */
	const KdSucc *ls = kd_jmp_succ(f, sh.chain[sh.nchain - 1]), *ps = kd_jmp_succ(f, sh.pre);
	if (ls->nargs != 1 || !kd_affine_in(f, ls->args[0], h, &k0, &k) || k0 != f->val[l->lo].c + l->step ||
	    k != l->step)
		return 0;
	if (ps->nargs != 1 || f->val[ps->args[0]].kind != VK_CONST || f->val[ps->args[0]].c != f->val[l->lo].c)
		return 0;
	/* The induction variable and the condition live only in the loop. */
	if (c->escapes[l->iv] || c->escapes[sh.cond])
		return 0;
	*out = (KdCountedLoop){.exitb = sh.exitb, .pre = sh.pre, .op = op, .trips = n};
	return 1;
}
