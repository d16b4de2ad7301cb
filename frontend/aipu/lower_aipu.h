/* lower_aipu.h: lowering of the aipu ops and vector operators to SSA
 * (lower_aipu.c), called from lower.c. */
#ifndef KD_BUILD_AIPU_H
#define KD_BUILD_AIPU_H

#include "ir.h"
#include "sema.h"

typedef struct {
	KdArena *a;
	KdDiag *d;
	KdFunc *f;
	int cur;                              /* the block instructions go to */
	int (*expr)(void *ctx, KdNode *n);    /* lower.c's expression lowering */
	void *ctx;
} KdVecLower;

/* A call of an aipu op: its result value, or -1 (vstore). */
int kd_lower_aipu_call(KdVecLower *vb, KdNode *n);
/* vsplit in `let (a, b) = vsplit(x);`: writes the parts to out, returns their count. */
int kd_lower_aipu_tuple(KdVecLower *vb, KdNode *n, int *out, int max);
/* A binary operator with a vector or mask operand. */
int kd_lower_vec_binary(KdVecLower *vb, KdNode *n);

#endif
