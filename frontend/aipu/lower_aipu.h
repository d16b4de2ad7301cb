/* lower_aipu.h: lowering of the aipu ops and vector operators to SSA
 * (lower_aipu.c), the lowering hooks of the aipu KdFrontendTarget. */
#ifndef KD_BUILD_AIPU_H
#define KD_BUILD_AIPU_H

#include "frontend_target.h"

typedef KdLowerCtx KdVecLower;

/* A call of an aipu op: its result value, or -1 (vstore). */
int kd_lower_aipu_call(KdVecLower *vb, KdNode *n);
/* vsplit in `let (a, b) = vsplit(x);`: writes the parts to out, returns their count. */
int kd_lower_aipu_tuple(KdVecLower *vb, KdNode *n, int *out, int max);
/* A binary operator with a vector or mask operand. */
int kd_lower_vec_binary(KdVecLower *vb, KdNode *n);
/* `!` on a mask. */
int kd_lower_vec_unary(KdVecLower *vb, KdNode *n);

#endif
