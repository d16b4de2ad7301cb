/* empty_loops.c: empty-loop removal (pass empty-loops).  A loop that does
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

/* Is the loop headed by h empty?  On success *sh is its shape, whose
 * preheader is to jump to its exit. */
static int empty_loop(const KdFunc *f, const KdCfg *c, int h, KdLoopShape *sh)
{
	if (!kd_loop_shape(f, c, h, sh))
		return 0;
	for (int i = 0; i < sh->nchain; i++) {
		const KdBlock *cb = f->blk[sh->chain[i]];
		for (int k = 0; k + 1 < cb->nins; k++) {
			KdOp op = f->ins[cb->insv[k]].op;
			if (kd_ops[op].kind != OK_PURE || op == OP_DIV || op == OP_REM || op == OP_SHL ||
			    op == OP_SHR)
				return 0;
		}
	}
	/* nothing the loop defines is used outside it */
	return !kd_loop_escapes(f, c, sh, h);
}

/* A block that ends in a jump to a block only it reaches (no
 * parameters, not a loop header) takes that block's instructions, so the
 * straight-line code a removed loop leaves is one block.  The emptied
 * block is then unreachable. */
static int merge_chains(KdArena *ar, KdFunc *f, KdCfg *c)
{
	int n = 0;
	for (int a = 0; a < f->nblk; a++) {
		while (c->reach[a]) {
			KdBlock *ab = f->blk[a];
			const KdSucc *t = kd_jmp_succ(f, a);
			if (!t || t->nargs)
				break;
			int b = t->blk, jmp = ab->insv[ab->nins - 1];
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
static int drop_unreachable(KdFunc *f, const KdCfg *c)
{
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
		KdFunc *f = m->fn[fi];
		KdCfg c = {0};
		/* rounds on one analysis each (loops.c): an emptied inner loop
		 * can leave its outer loop empty */
		for (int changed = 1; changed;) {
			changed = 0;
			kd_cfg_analyse(&c, f);
			for (int h = 0; h < f->nblk; h++) {
				KdLoopShape sh;
				if (empty_loop(f, &c, h, &sh)) {
					kd_loop_skip(f, sh.pre, sh.exitb);
					changed++;
				}
			}
			total += changed;
		}
		kd_cfg_analyse(&c, f);
		total += merge_chains(m->arena, f, &c);
		total += drop_unreachable(f, &c);
		kd_cfg_free(&c);
	}
	return total;
}
