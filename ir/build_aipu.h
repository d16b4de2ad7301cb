/* build_aipu.h: lowering of the aipu ops and vector operators to SSA
 * (build_aipu.c), called from build.c. Internal to ir/. */
#ifndef KD_BUILD_AIPU_H
#define KD_BUILD_AIPU_H

#include "ir.h"
#include "../frontend/sema.h"

typedef struct {
	KdArena *a;
	KdFunc *f;
	int cur;                              /* the block instructions go to */
	int (*expr)(void *ctx, KdNode *n);    /* build.c's expression lowering */
	void *ctx;
} KdVecBuild;

/* A call of an aipu op: its result value, or -1 (vstore). */
int kd_build_aipu_call(KdVecBuild *vb, KdNode *n);
/* vsplit in `let (a, b) = vsplit(x);`: writes the parts to out, returns their count. */
int kd_build_aipu_tuple(KdVecBuild *vb, KdNode *n, int *out, int max);
/* A binary operator with a vector or mask operand. */
int kd_build_vec_binary(KdVecBuild *vb, KdNode *n);

#endif
