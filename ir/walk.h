/* walk.h: runs a kernel's IR abstractly: integer values are computed where
 * they are known, loops with constant bounds are unrolled, and each effect
 * op, pure target op (aipu's) and generic op on vectors (aipu's operators)
 * is reported in execution order with the values of its operands.  The
 * hazard analysis and --stats are built on it. */
#ifndef KD_WALK_H
#define KD_WALK_H

#include "ir.h"

typedef struct {
	const KdFunc *f;
	int64_t *v;        /* value id -> value, where known[id] */
	char *known;
} KdWalk;

typedef void (*KdWalkFn)(void *ctx, const KdWalk *w, const KdIns *ins);

/* Integer value v: from the walk when it knows it (w may be NULL), else
 * the constant, else dflt. */
static inline int64_t kd_walk_int(const KdWalk *w, const KdFunc *f, int v, int64_t dflt)
{
	if (w && w->known[v])
		return w->v[v];
	return f->val[v].kind == VK_CONST ? f->val[v].c : dflt;
}

/* *out = a op b for a scalar integer or bool op (KdOp) with known
 * operands, by the language's arithmetic (util/ieval.h); 0 when op is
 * no such op or the operands make it fail at run time (division by zero,
 * a shift count outside 0..63).  A unary op ignores b. */
int kd_eval_op(int op, int64_t a, int64_t b, int64_t *out);

/* Whether the walk reports ins: an effect op, or a pure op the engine
 * runs (a target op, or a generic op whose result is a vector or mask). */
int kd_walk_reports(const KdFunc *f, const KdIns *ins);

/* Returns 1 when the walk reached the end, 0 when it stopped at a branch
 * on a runtime value or after max_steps instructions. */
int kd_walk(const KdFunc *f, KdWalkFn fn, void *ctx, int64_t max_steps);

/* --stats: per kernel, ops run, bytes moved per memory space, cycles. */
void kd_ir_stats(KdBuf *out, const KdModule *m);
/* The same, with "kernel K (tag):" lines when tag is not NULL. */
void kd_ir_stats_tagged(KdBuf *out, const KdModule *m, const char *tag);

#endif
