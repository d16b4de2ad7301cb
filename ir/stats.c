/* stats.c: `kdslc --stats`.  Each kernel is walked (walk.h), so ops in
 * loops with constant bounds count once per iteration; when the walk
 * stops at a runtime branch, the ops are counted once each instead and the
 * line says so.  Bytes are what the target says an op moves, per memory
 * space (KdIrTarget.bytes); cycles come from the op table's cost
 * functions, and for a generic op on a target's values (aipu's vector
 * operators) from the target's (KdIrTarget.cost).  With passes, the driver prints the source program's numbers
 * (tag "source") and the optimised ones. */
#include <string.h>

#include "ir_target.h"

typedef struct {
	int64_t ops, cycles;
	int64_t bytes[KD_NSPACE];
} Stats;

static void count(Stats *s, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	const KdIrTarget *tg = kd_ir_target(f->target);
	s->ops++;
	if (d->cost)
		s->cycles += d->cost(f, ins);
	else if (tg->cost)
		s->cycles += tg->cost(f, ins);
	if (tg->bytes)
		tg->bytes(s->bytes, w, f, ins);
}

static void step(void *ctx, const KdWalk *w, const KdIns *ins)
{
	count(ctx, w, w->f, ins);
}

void kd_ir_stats(KdBuf *out, const KdModule *m)
{
	kd_ir_stats_tagged(out, m, NULL);
}

void kd_ir_stats_tagged(KdBuf *out, const KdModule *m, const char *tag)
{
	for (int fi = 0; fi < m->nfn; fi++) {
		const KdFunc *f = m->fn[fi];
		Stats s;
		memset(&s, 0, sizeof s);
		int exact = kd_walk(f, step, &s, 20000000);
		if (!exact) {
			memset(&s, 0, sizeof s);
			for (int i = 0; i < f->nins; i++)
				if (kd_walk_reports(f, &f->ins[i]))
					count(&s, NULL, f, &f->ins[i]);
		}
		kd_buf_printf(out, "kernel %s%s%s%s: %lld ops, %lld cycles%s\n", f->name, tag ? " (" : "", tag ? tag : "", tag ? ")" : "",
		              (long long)s.ops,
		              (long long)s.cycles, exact ? "" : " (each op counted once: the control flow depends on runtime values)");
		for (int sp = 1; sp < KD_NSPACE; sp++)
			if (s.bytes[sp])
				kd_buf_printf(out, "  %s: %lld bytes\n", kd_spaces[sp].name, (long long)s.bytes[sp]);
	}
}
