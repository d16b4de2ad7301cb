/* sema_aipu.h: the aipu part of semantic analysis: vector and mask types,
 * element-wise operators on vectors, and the type rules of every aipu op
 * (seed 004): the sema hooks of the aipu KdFrontendTarget (target_aipu.c);
 * sema.c prints and compares vector types itself. */
#ifndef KD_SEMA_AIPU_H
#define KD_SEMA_AIPU_H

#include "sema.h"
#include "types_aipu.h"

/* The type a written vector or mask type names, or err after reporting. */
KdType *kd_sema_vec_type(KdArena *a, KdDiag *d, KdNode *ty, KdType *err);
/* A call of an aipu op whose arguments sema has typed and bound: checks
 * the op's rules and returns its result type (err after reporting). */
KdType *kd_sema_aipu_call(KdArena *a, KdDiag *d, KdNode *n, KdType *err);
/* A binary operator with a vector or mask operand. */
KdType *kd_sema_vec_binary(KdArena *a, KdDiag *d, KdNode *n, KdType *l, KdType *r, KdType *err);
/* Same vector or mask type. */
int kd_vec_type_same(const KdType *x, const KdType *y);
const char *kd_vec_type_str(KdArena *a, const KdType *t);

/* Parses a run-length mask string ("3T5F", "TTF"): returns the lane count
 * and writes up to max lanes (0/1) to out; -1 on a malformed string. */
int kd_aipu_mask_parse(const char *s, unsigned char *out, int max);

#endif
