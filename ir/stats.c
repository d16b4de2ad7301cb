/* stats.c: `kdslc --stats`.  Each kernel is walked (walk.h), so ops in
 * loops with constant bounds count once per iteration; when the walk
 * stops at a runtime branch, the ops are counted once each instead and the
 * line says so.  Bytes are the elements each tile operand covers, counted
 * in its memory space (read and written alike); cycles come from the op
 * table's cost functions. */
#include <string.h>

#include "tile.h"
#include "walk.h"

typedef struct {
	int64_t ops, cycles;
	int64_t bytes[KD_NSPACE];
} Stats;

static void count(Stats *s, const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	s->ops++;
	if (d->cost)
		s->cycles += d->cost(f, ins);
	for (int i = 0; i < ins->nargs; i++) {
		const KdIns *t = kd_tile_ins(f, ins, i);
		if (!t)
			continue;
		const KdBuffer *b = &f->buf[f->val[ins->args[i]].buf];
		s->bytes[b->space] += f->val[t->args[TA_NPART]].c * f->val[t->args[TA_NFREE]].c *
		                      kd_dtypes[b->dt].size;
	}
}

static void step(void *ctx, const KdWalk *w, const KdIns *ins)
{
	count(ctx, w->f, ins);
}

void kd_ir_stats(KdBuf *out, const KdModule *m)
{
	for (int fi = 0; fi < m->nfn; fi++) {
		const KdFunc *f = m->fn[fi];
		Stats s;
		memset(&s, 0, sizeof s);
		int exact = kd_walk(f, step, &s, 20000000);
		if (!exact) {
			memset(&s, 0, sizeof s);
			for (int i = 0; i < f->nins; i++)
				if (kd_ops[f->ins[i].op].kind == OK_EFFECT)
					count(&s, f, &f->ins[i]);
		}
		kd_buf_printf(out, "kernel %s: %lld ops, %lld cycles%s\n", f->name, (long long)s.ops,
		              (long long)s.cycles, exact ? "" : " (each op counted once: the control flow depends on runtime values)");
		for (int sp = 1; sp < KD_NSPACE; sp++)
			if (s.bytes[sp])
				kd_buf_printf(out, "  %s: %lld bytes\n", kd_spaces[sp].name, (long long)s.bytes[sp]);
	}
}
