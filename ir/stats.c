/* stats.c: `kdslc --stats`.  Each kernel is walked (walk.h), so ops in
 * loops with constant bounds count once per iteration; when the walk
 * stops at a runtime branch, the ops are counted once each instead and the
 * line says so.  Bytes are the elements each tile operand covers, counted
 * in its memory space (read and written alike); an ascend data_move
 * counts nburst*burst*32 bytes in each of its two spaces, an aipu vstore
 * its lanes (vload is pure, so only the stores are counted); cycles come
 * from the op table's cost functions.  With passes, the driver prints the
 * source program's numbers (tag "source") and the optimised ones. */
#include <string.h>

#include "tile.h"
#include "walk.h"

typedef struct {
	int64_t ops, cycles;
	int64_t bytes[KD_NSPACE];
} Stats;

/* An integer operand: from the walk when it knows it, else a constant. */
static int64_t ival(const KdWalk *w, const KdFunc *f, int v, int64_t dflt)
{
	if (w && w->known[v])
		return w->v[v];
	return f->val[v].kind == VK_CONST ? f->val[v].c : dflt;
}

/* Bytes of the views (ascend, aipu) an op covers, per memory space. */
static void view_bytes(Stats *s, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	if (ins->op == OP_DATA_MOVE) {
		int64_t n = ival(w, f, ins->args[DATA_MOVE_NBURST], 1) * ival(w, f, ins->args[DATA_MOVE_BURST], 1) * 32;
		s->bytes[f->buf[f->val[ins->args[DATA_MOVE_DST]].buf].space] += n;
		s->bytes[f->buf[f->val[ins->args[DATA_MOVE_SRC]].buf].space] += n;
	} else if (ins->op == OP_VEC_DUP || ins->op == OP_VEC_ADD) {
		/* mask elements per repeat, in each tensor operand */
		_Static_assert(KD_SAME_POS(VEC_DUP_MASK, VEC_ADD_MASK), "vec ops take mask first");
		int rep = ins->op == OP_VEC_ADD ? VEC_ADD_REPEAT_TIMES : VEC_DUP_REPEAT_TIMES;
		for (int t = 0; t < d->nparam; t++) {
			if (d->param[t].kind != PK_TENSOR)
				continue;
			const KdBuffer *b = &f->buf[f->val[ins->args[t]].buf];
			s->bytes[b->space] += ival(w, f, ins->args[VEC_ADD_MASK], 0) * ival(w, f, ins->args[rep], 0) *
			                      kd_dtypes[b->dt].size;
		}
	} else if (ins->op == OP_VSTORE) {
		const KdBuffer *b = &f->buf[f->val[ins->args[VSTORE_DST]].buf];
		s->bytes[b->space] += (int64_t)f->val[ins->args[VSTORE_V]].lanes * kd_dtypes[b->dt].size;
	}
}

static void count(Stats *s, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	s->ops++;
	if (d->cost)
		s->cycles += d->cost(f, ins);
	view_bytes(s, w, f, ins);
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
				if (kd_ops[f->ins[i].op].kind == OK_EFFECT)
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
