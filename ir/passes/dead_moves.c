/* dead_moves.c: dead-move elimination (pass dead-moves).  An on-chip buffer
 * that no op ever reads holds nothing observable: the ops whose only
 * effect is writing such buffers go.  Kernel parameters (gm, hbm) are
 * outputs and never dead.
 *
 * It must not fire:
 *  - when anything reads the buffer (an operand the op table says the op
 *    writes does not count: an accumulating matmul reads its dst only to
 *    write it);
 *  - on neuron buffers with direct allocation (mod_alloc, alloc): their
 *    blocks may share physical tiles with other blocks, so a write can be
 *    read under another name;
 *  - when the op has a run-time check that may fail (an operand that is
 *    not a constant and not affine in constant-bound loops, or an op under
 *    a guard the rule checker cannot decide): removing it would hide the
 *    error. */
#include <stdlib.h>

#include "pass.h"
#include "rules.h"
#include "tile.h"

static int on_chip(const KdBuffer *b)
{
	if (b->param >= 0)
		return 0;
	return !b->tile || b->tile->alloc == KD_ALLOC_AUTO;
}

/* Every operand a constant or proven by the rule checker. */
static int checked(const KdFunc *f, const KdIns *in)
{
	for (int i = 0; i < in->nargs; i++) {
		const KdVal *x = &f->val[in->args[i]];
		if (x->kind == VK_CONST || x->kind == VK_FCONST || x->kind == VK_STR)
			continue;
		const KdIns *d = kd_defins(f, in->args[i]);
		if (!d || (d->op != OP_VIEW && d->op != OP_TILE && d->op != OP_LIST))
			return 0;
		for (int k = 0; k < d->nargs; k++) {
			int64_t c;
			int n, blk[8];
			int64_t kk[8];
			if (!kd_affine_terms(f, d->args[k], &c, &n, blk, kk))
				return 0;
		}
	}
	return 1;
}

static void func(KdModule *m, KdFunc *f, int *count)
{
	char *read = calloc((size_t)f->nbuf + 1, 1);
	char *proven = calloc((size_t)f->nblk + 1, 1);
	kd_pass_proven(m, f, proven);
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdOpDesc *d = &kd_ops[in->op];
		if (in->op == OP_VIEW || in->op == OP_TILE)
			continue;
		for (int a = 0; a < in->nargs; a++) {
			const KdVal *x = &f->val[in->args[a]];
			if (x->type == VT_REF && !kd_param_writes(d, a))
				read[x->buf] = 1;
		}
	}
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			const KdOpDesc *d = &kd_ops[in->op];
			int dead = d->kind == OK_EFFECT, nwrite = 0;
			for (int a = 0; dead && a < in->nargs && a < d->nparam; a++) {
				const KdVal *x = &f->val[in->args[a]];
				if (x->type != VT_REF || !kd_param_writes(d, a))
					continue;
				nwrite++;
				dead = on_chip(&f->buf[x->buf]) && !read[x->buf];
			}
			if (dead && nwrite && proven[b] && checked(f, in)) {
				kd_ins_unlink(f, bl->insv[k--]);
				++*count;
			}
		}
	}
	free(read);
	free(proven);
}

int kd_pass_dead_moves(KdModule *m)
{
	int n = 0;
	for (int i = 0; i < m->nfn; i++)
		func(m, m->fn[i], &n);
	return n;
}
