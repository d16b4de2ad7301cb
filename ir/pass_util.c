/* pass_util.c: small IR surgery the passes share. */
#include <string.h>

#include "pass.h"

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
