/* frontend_target.h: what sema and lowering ask a target.  One
 * KdFrontendTarget per target lives in frontend/<target>/target_<target>.c;
 * sema.c and lower.c call these hooks instead of testing the target.  A
 * NULL hook means the target has nothing to add and the shared code does
 * the generic thing (or reports that the construct is not the target's). */
#ifndef KD_FRONTEND_TARGET_H
#define KD_FRONTEND_TARGET_H

#include "ir.h"
#include "sema.h"

/* What a lowering hook sees of lower.c: the function, the block the
 * instructions go to, and the lowering of an expression. */
typedef struct {
	KdArena *a;
	KdDiag *d;        /* internal errors: an op the hook has no case for */
	KdFunc *f;
	int cur;
	int (*expr)(void *ctx, KdNode *n);
	void *ctx;
} KdLowerCtx;

typedef struct {
	/* ---- sema ---- */
	/* t[...] on a tensor of type base that is not a view: the view's
	 * type, or err after reporting (NULL: the target indexes nothing). */
	KdType *(*index)(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *err);
	/* A view indexed again that the target reads as one index (neuron:
	 * acc[i][a:b, :] is acc[i, a:b, :]): rewrites n and returns 1. */
	int (*index_chain)(KdArena *a, KdNode *n);
	/* Checks a tensor type beyond its dims (neuron: the partition dim);
	 * <0 after reporting. */
	int (*tensor_type)(KdDiag *d, KdNode *ty, const KdType *t);
	/* Tensors may have block dims (psum f32[4][128, 512]). */
	int blocks;
	/* Views with slice steps, .T and permute (LANGUAGE.md 7), which the
	 * index hook reads (N_SLICE's c, N_INDEX's b). */
	int views;
	/* The on-chip spaces to name when a buffer is declared in external
	 * memory (NULL: "on-chip memory"). */
	const char *onchip;
	/* The spaces whose elements are values (ascend: ub, TIK's
	 * Scalar.set_as): t[i] outside a tensor operand reads the element,
	 * `t[i] = v;` writes it (0: a view is never a value). */
	unsigned elem_spaces;
	/* Buffers declared in a block (a loop body, an if arm, { }) live until
	 * the block ends (ascend, LANGUAGE.md 7): lowering records each
	 * buffer's lifetime (KdBuffer.live_lo/live_hi) so placement may
	 * reuse the space of blocks never live at once.  0: every buffer
	 * lives for the whole kernel. */
	int scoped_buffers;
	/* `let b: T = call(...)` that places a buffer where the call says
	 * (neuron's mod_alloc/alloc): is_alloc recognises the call, alloc
	 * checks it and records it on t. */
	int (*is_alloc)(const KdNode *init);
	void (*alloc)(KdArena *a, KdDiag *d, KdNode *let, KdType *t);
	/* Vector and mask values (aipu): a written type (NULL: the target
	 * has none), and a binary or unary operator with such an operand. */
	KdType *(*vec_type)(KdArena *a, KdDiag *d, KdNode *ty, KdType *err);
	KdType *(*vec_binary)(KdArena *a, KdDiag *d, KdNode *n, KdType *l, KdType *r, KdType *err);
	KdType *(*vec_unary)(KdArena *a, KdDiag *d, KdNode *n, KdType *t, KdType *err);
	/* A call whose arguments are typed and bound to the op's parameters
	 * (bad: the binding failed and was reported): its result type, err
	 * after reporting.  NULL: the op table's parameter kinds decide and
	 * the call returns nothing. */
	KdType *(*call)(KdArena *a, KdDiag *d, KdNode *n, int bad, KdType *err);

	/* ---- lowering ---- */
	/* A tensor operand (buffer buf named, indexed or sliced by n) as a
	 * view value (NULL: `view @buf, offset` of the flat index). */
	int (*lower_view)(KdLowerCtx *lc, int buf, KdNode *n);
	/* What the target adds to a buffer of type ty (neuron: its tiles). */
	void (*lower_buffer)(KdArena *a, KdBuffer *b, const KdType *ty);
	/* A call of one of its ops: the result value, or -1 (NULL: one
	 * instruction with every parameter an operand, defaults filled). */
	int (*lower_call)(KdLowerCtx *lc, KdNode *n);
	/* Vector values: a binary or unary operator, and `let (a, b) =
	 * call(...)` (writes up to max parts to out and returns their count). */
	int (*lower_vec_binary)(KdLowerCtx *lc, KdNode *n);
	int (*lower_vec_unary)(KdLowerCtx *lc, KdNode *n);
	int (*lower_tuple)(KdLowerCtx *lc, KdNode *n, int *out, int max);
} KdFrontendTarget;

/* The hooks of target t (not KD_TARGET_NONE). */
const KdFrontendTarget *kd_frontend_target(KdTarget t);

#endif
