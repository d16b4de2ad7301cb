/* pass_util.c: small IR surgery and CFG facts the passes share. */
#include <string.h>

#include "guards.h"
#include "pass.h"
#include "rules.h"
#include "tile.h"

void kd_ins_move_to(KdFunc *f, int blk, int id, int pos)
{
	KdBlock *b = f->blk[blk];
	int at = -1;
	for (int k = 0; k < b->nins; k++)
		if (b->insv[k] == id)
			at = k;
	if (at < 0 || at == pos)
		return;
	if (at > pos)
		memmove(&b->insv[pos + 1], &b->insv[pos], sizeof *b->insv * (size_t)(at - pos));
	else
		memmove(&b->insv[at], &b->insv[at + 1], sizeof *b->insv * (size_t)(pos - at));
	b->insv[pos] = id;
	f->ins[id].blk = blk;
}

void kd_ins_unlink(KdFunc *f, int id)
{
	KdBlock *b = f->blk[f->ins[id].blk];
	int m = 0;
	for (int k = 0; k < b->nins; k++)
		if (b->insv[k] != id)
			b->insv[m++] = b->insv[k];
	b->nins = m;
	/* Passes that scan f->ins whole (dce's roots, the rule checker, the
	 * stats fallback) must not see it: it becomes an empty pure op. */
	KdIns *in = &f->ins[id];
	in->op = OP_LIST;
	in->nargs = 0;
	in->nsucc = 0;
}

int kd_ins_uses(const KdIns *in, int v)
{
	for (int i = 0; i < in->nargs; i++)
		if (in->args[i] == v)
			return 1;
	for (int s = 0; s < in->nsucc; s++)
		for (int i = 0; i < in->succ[s].nargs; i++)
			if (in->succ[s].args[i] == v)
				return 1;
	return 0;
}

const KdSucc *kd_jmp_succ(const KdFunc *f, int blk)
{
	const KdBlock *b = f->blk[blk];
	const KdIns *t = b->nins ? &f->ins[b->insv[b->nins - 1]] : NULL;
	return t && t->op == OP_JMP ? &t->succ[0] : NULL;
}

void kd_cfg_reach(const KdFunc *f, char *reach, int *npred, int *stack)
{
	int sp = 0;
	memset(reach, 0, (size_t)f->nblk);
	memset(npred, 0, sizeof *npred * (size_t)f->nblk);
	reach[0] = 1;
	stack[sp++] = 0;
	while (sp) {
		const KdBlock *b = f->blk[stack[--sp]];
		const KdIns *t = b->nins ? &f->ins[b->insv[b->nins - 1]] : NULL;
		for (int s = 0; t && s < t->nsucc; s++) {
			int to = t->succ[s].blk;
			npred[to]++;
			if (!reach[to]) {
				reach[to] = 1;
				stack[sp++] = to;
			}
		}
	}
}

int kd_loop_shape(const KdFunc *f, const char *reach, const int *npred, int h, KdLoopShape *o)
{
	const KdBlock *hb = f->blk[h];
	const KdLoop *l = hb->loop;
	if (!l || !reach[h] || hb->nparam != 1 || hb->params[0] != l->iv || hb->nins != 2 ||
	    l->step <= 0 || f->val[l->lo].kind != VK_CONST || f->val[l->hi].kind != VK_CONST ||
	    npred[h] != 2)
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
		if (o->nchain == KD_LOOP_CHAIN || cur == h || cur == o->exitb || npred[cur] != 1)
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
	/* the preheader: the other reachable block that jumps to h */
	o->pre = -1;
	for (int b = 0; b < f->nblk; b++) {
		const KdSucc *s = reach[b] ? kd_jmp_succ(f, b) : NULL;
		if (s && s->blk == h && b != cur)
			o->pre = b;
	}
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

int kd_counted_loop(const KdFunc *f, const char *reach, const int *npred, int h,
                    int (*want)(const KdIns *in), KdCountedLoop *out)
{
	const KdLoop *l = f->blk[h]->loop;
	KdLoopShape sh;
	if (!kd_loop_shape(f, reach, npred, h, &sh) || npred[sh.exitb] != 1)
		return 0;
	int64_t n = kd_loop_trips(f, l), c, k;
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
	if (ls->nargs != 1 || !kd_affine_in(f, ls->args[0], h, &c, &k) || c != f->val[l->lo].c + l->step ||
	    k != l->step)
		return 0;
	if (ps->nargs != 1 || f->val[ps->args[0]].kind != VK_CONST || f->val[ps->args[0]].c != f->val[l->lo].c)
		return 0;
	/* The induction variable and the condition live only in the loop. */
	for (int b = 0; b < f->nblk; b++)
		for (int q = 0; !kd_loop_holds(&sh, h, b) && reach[b] && q < f->blk[b]->nins; q++) {
			const KdIns *in = &f->ins[f->blk[b]->insv[q]];
			if (kd_ins_uses(in, l->iv) || kd_ins_uses(in, sh.cond))
				return 0;
		}
	*out = (KdCountedLoop){.exitb = sh.exitb, .pre = sh.pre, .op = op, .trips = n};
	return 1;
}

int kd_const_view(const KdFunc *f, int v, KdConstView *o)
{
	const KdIns *t = kd_defins(f, v);
	if (!t || t->op != OP_TILE || t->nargs != TA_N)
		return 0;
	for (int i = 0; i < TA_N; i++) {
		if (f->val[t->args[i]].kind != VK_CONST)
			return 0;
		o->a[i] = f->val[t->args[i]].c;
	}
	o->buf = f->val[v].buf;
	return 1;
}

/* Do the rules of every op of block b hold under its guards g? */
static int block_holds(KdArena *a, KdModule *m, KdFunc *f, int b, const KdGuardSet *g)
{
	const KdBlock *bl = f->blk[b];
	for (int k = 0; k < bl->nins; k++)
		if (!kd_rules_hold(a, m, f, &f->ins[bl->insv[k]], g))
			return 0;
	return 1;
}

void kd_pass_proven(KdModule *m, KdFunc *f, char *proven)
{
	KdArena *a = kd_arena_new();
	KdGuards g;
	kd_guards_build(a, f, &g);
	for (int b = 0; b < f->nblk; b++)
		proven[b] = (char)(kd_guards_proven(&g, b) || block_holds(a, m, f, b, kd_guards_of(&g, b)));
	kd_arena_free(a);
}
