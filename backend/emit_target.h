/* emit_target.h: what the C backend asks a target.  One KdEmitTarget
 * per target lives in backend/<target>/target_<target>.c; emit.c calls
 * these hooks instead of testing the target.  A NULL hook means the
 * target has nothing to add and emit.c does the generic thing. */
#ifndef KD_EMIT_TARGET_H
#define KD_EMIT_TARGET_H

#include "ir.h"

/* What a hook sees of emit.c: where the C goes, the function, the
 * instruction's kd_site entry (-1: none), and emit.c's writer of a
 * scalar operand. */
typedef struct {
	KdBuf *o;
	KdDiag *d;        /* internal errors: an op the hook has no C for */
	const KdFunc *f;
	int site;
	void (*val)(void *ctx, int v);
	void *ctx;
} KdEmitCtx;

typedef struct {
	/* Type definitions the module's values need, before the kernels
	 * (aipu: a struct per vector and mask type). */
	void (*types)(KdBuf *o, const KdModule *m);
	/* Writes the C type of value x's local and returns 1 when the
	 * target owns x's type (aipu: vectors, masks); 0: emit.c's scalars. */
	int (*ctype)(KdBuf *o, const KdVal *x);
	/* Instructions the target writes whole (aipu: those giving vectors
	 * or masks, and vstore), with ins; needs_site says which of those
	 * check at run time and so need a kd_site entry. */
	int (*handles)(const KdFunc *f, const KdIns *in);
	int (*ins)(KdEmitCtx *c, const KdIns *in);   /* <0: internal error reported */
	int (*needs_site)(const KdFunc *f, const KdIns *in);
	/* Statements before an op's runtime call (neuron: run-time checks
	 * of block indices). */
	void (*checks)(KdEmitCtx *c, const KdIns *in);
	/* Writes operand v of parameter p and returns 1 when the target
	 * spells it (neuron: tiles, lists, tile-or-number); 0: emit.c does. */
	int (*arg)(KdEmitCtx *c, const KdOpParam *p, int v);
	/* Writes effect op in's whole runtime call, its error return included,
	 * and returns 1 when the target has a form of it for these operands
	 * (neuron: the op's rt_k entry when every operand is a constant); 0:
	 * emit.c writes the call operand by operand.  Never for an op that
	 * gives a value (result_of). */
	int (*call)(KdEmitCtx *c, const KdIns *in);
	/* An on-chip buffer's bytes from its address in each partition, and
	 * its partitions, for the runtime's buffer table (kdsl_buffer: the
	 * checks' messages name buffers).  NULL: b->bytes in one partition. */
	void (*footprint)(const KdBuffer *b, int64_t *bytes, int64_t *parts);
} KdEmitTarget;

/* The hooks of target t (not KD_TARGET_NONE). */
const KdEmitTarget *kd_emit_target(KdTarget t);

#endif
