/* pass_util.c: small IR surgery and CFG facts the passes share. */
#include <string.h>

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

int kd_counted_loop(const KdFunc *f, const char *reach, const int *npred, int h,
                    int (*want)(const KdIns *in), KdCountedLoop *out)
{
	const KdBlock *hb = f->blk[h];
	const KdLoop *l = hb->loop;
	if (!l || !reach[h] || hb->nparam != 1 || hb->params[0] != l->iv || hb->nins != 2 ||
	    l->step <= 0 || f->val[l->lo].kind != VK_CONST || f->val[l->hi].kind != VK_CONST ||
	    npred[h] != 2)
		return 0;
	int64_t n = kd_loop_trips(f, l);
	const KdIns *cond = &f->ins[hb->insv[0]], *br = &f->ins[hb->insv[1]];
	if (n < 1 || cond->op != OP_LT || cond->args[0] != l->iv || cond->args[1] != l->hi ||
	    br->op != OP_BR || br->args[0] != cond->res || br->succ[0].nargs || br->succ[1].nargs)
		return 0;
	int body = br->succ[0].blk, exitb = br->succ[1].blk;
	if (body == h || exitb == h || npred[exitb] != 1)
		return 0;
	/* the body chain: unconditional jumps back to h, one wanted op */
	int chain[64], nchain = 0, op = -1, cur = body;
	for (;;) {
		if (nchain == 64 || cur == h || cur == exitb || npred[cur] != 1)
			return 0;
		chain[nchain++] = cur;
		const KdBlock *cb = f->blk[cur];
		for (int k = 0; k + 1 < cb->nins; k++) {
			const KdIns *in = &f->ins[cb->insv[k]];
			if (kd_ops[in->op].kind == OK_PURE)
				continue;
			if (op >= 0 || !want(in))
				return 0;
			op = cb->insv[k];
		}
		const KdSucc *s = kd_jmp_succ(f, cur);
		if (!s)
			return 0;
		if (s->blk == h) {
			int64_t c, k;
			if (s->nargs != 1 || !kd_affine_in(f, s->args[0], h, &c, &k) ||
			    c != f->val[l->lo].c + l->step || k != l->step)
				return 0;
			break;
		}
		if (s->nargs)
			return 0;
		cur = s->blk;
	}
	/* the preheader: the one other reachable block that jumps to h */
	int pre = -1;
	for (int b = 0; b < f->nblk; b++) {
		const KdSucc *s = reach[b] ? kd_jmp_succ(f, b) : NULL;
		if (s && s->blk == h && b != cur)
			pre = b;
	}
	if (pre < 0 || op < 0)
		return 0;
	const KdSucc *ps = kd_jmp_succ(f, pre);
	if (ps->nargs != 1 || f->val[ps->args[0]].kind != VK_CONST || f->val[ps->args[0]].c != f->val[l->lo].c)
		return 0;
	/* The induction variable and the condition live only in the loop. */
	for (int b = 0; b < f->nblk; b++) {
		int inside = b == h;
		for (int c = 0; c < nchain; c++)
			inside |= chain[c] == b;
		for (int k = 0; !inside && reach[b] && k < f->blk[b]->nins; k++) {
			const KdIns *in = &f->ins[f->blk[b]->insv[k]];
			if (kd_ins_uses(in, l->iv) || kd_ins_uses(in, cond->res))
				return 0;
		}
	}
	*out = (KdCountedLoop){.exitb = exitb, .pre = pre, .op = op, .trips = n};
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
