/* pass_util.c: small IR surgery and CFG facts the passes share. */
#include <stdlib.h>
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
	KdArena *a = kd_arena_new_like(m->arena);
	KdGuards g;
	kd_guards_build(a, f, &g);
	for (int b = 0; b < f->nblk; b++)
		proven[b] = (char)(kd_guards_proven(&g, b) || block_holds(a, m, f, b, kd_guards_of(&g, b)));
	kd_arena_free(a);
}

int kd_pass_rewrite_proven(KdModule *m, KdFunc *f, int (*block)(KdModule *m, KdFunc *f, int b))
{
	int n = 0;
	char *proven = calloc((size_t)f->nblk + 1, 1);
	kd_pass_proven(m, f, proven);
	for (int b = 0; b < f->nblk; b++)
		while (proven[b] && block(m, f, b))
			n++;
	free(proven);
	return n;
}

int kd_pass_rewrite_module(KdModule *m, int (*block)(KdModule *m, KdFunc *f, int b))
{
	int n = 0;
	for (int fi = 0; fi < m->nfn; fi++)
		n += kd_pass_rewrite_proven(m, m->fn[fi], block);
	return n;
}

int kd_ins_names_buf(const KdFunc *f, const KdIns *in, int buf)
{
	for (int i = 0; i < in->nargs; i++)
		if (f->val[in->args[i]].type == VT_REF && f->val[in->args[i]].buf == buf)
			return 1;
	return 0;
}

int kd_buf_shared(const KdBuffer *b)
{
	return b->param >= 0 || (b->tile && b->tile->alloc != KD_ALLOC_AUTO);
}

/* Does operand a of in write without reading first (the op table's
 * memory effect; an accumulating one only when its flag is a constant
 * false)? */
static int plain_write(const KdFunc *f, const KdIns *in, int a)
{
	const KdOpDesc *d = &kd_ops[in->op];
	int c = kd_param_rmw_if(d, a);
	return kd_param_writes(d, a) &&
	       (c < 0 || (c < in->nargs && f->val[in->args[c]].kind == VK_CONST && !f->val[in->args[c]].c));
}

int kd_buf_read_elsewhere(const KdFunc *f, int b, const int *skip, int nskip)
{
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		int k = 0;
		while (k < nskip && skip[k] != i)
			k++;
		if (k < nskip || in->op == OP_VIEW || in->op == OP_TILE)
			continue;
		for (int a = 0; a < in->nargs; a++) {
			const KdVal *x = &f->val[in->args[a]];
			if (x->type == VT_REF && x->buf == b && !plain_write(f, in, a))
				return 1;
		}
	}
	return 0;
}
