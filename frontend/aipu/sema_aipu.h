/* sema_aipu.h: the aipu part of semantic analysis: vector and mask types,
 * element-wise operators on vectors, and the type rules of every aipu op
 * (seed 004): the sema hooks of the aipu KdFrontendTarget (target_aipu.c);
 * sema.c prints and compares vector types itself. */
#ifndef KD_SEMA_AIPU_H
#define KD_SEMA_AIPU_H

#include "op.h"
#include "sema.h"
#include "types_aipu.h"

/* Parameter positions shared by the aipu ops sema and lowering treat in
 * one case: the two-vector ops' x and y and their third parameter (a
 * part, a mask or a shift), and x, where every other op but vtbl and
 * tail_mask takes it too. */
enum { KD_AIPU_X = VCONCAT_X, KD_AIPU_Y = VCONCAT_Y, KD_AIPU_THIRD = VCONCAT_PART };
_Static_assert(KD_SAME_POS(VZIP_X, KD_AIPU_X) && KD_SAME_POS(VZIP_Y, KD_AIPU_Y) &&
               KD_SAME_POS(VZIP_PART, KD_AIPU_THIRD) && KD_SAME_POS(VCOMPC_X, KD_AIPU_X) &&
               KD_SAME_POS(VCOMPC_Y, KD_AIPU_Y) && KD_SAME_POS(VCOMPC_MASK, KD_AIPU_THIRD) &&
               KD_SAME_POS(VSEL_X, KD_AIPU_X) && KD_SAME_POS(VSEL_Y, KD_AIPU_Y) &&
               KD_SAME_POS(VSEL_MASK, KD_AIPU_THIRD) && KD_SAME_POS(VSLDL_X, KD_AIPU_X) &&
               KD_SAME_POS(VSLDL_Y, KD_AIPU_Y) && KD_SAME_POS(VSLDL_SHIFT, KD_AIPU_THIRD) &&
               KD_SAME_POS(VMIN_X, KD_AIPU_X) && KD_SAME_POS(VMIN_Y, KD_AIPU_Y) &&
               KD_SAME_POS(VMAX_X, KD_AIPU_X) && KD_SAME_POS(VMAX_Y, KD_AIPU_Y) &&
               KD_SAME_POS(VCOMPT_X, KD_AIPU_X) && KD_SAME_POS(VREVS_X, KD_AIPU_X) &&
               KD_SAME_POS(VSHFL_X, KD_AIPU_X) && KD_SAME_POS(VREPLIC_X, KD_AIPU_X) &&
               KD_SAME_POS(VSPLIT_X, KD_AIPU_X) && KD_SAME_POS(MASK_AND_X, KD_AIPU_X) &&
               KD_SAME_POS(MASK_AND_Y, KD_AIPU_Y) && KD_SAME_POS(MASK_OR_X, KD_AIPU_X) &&
               KD_SAME_POS(MASK_OR_Y, KD_AIPU_Y) && KD_SAME_POS(MASK_XOR_X, KD_AIPU_X) &&
               KD_SAME_POS(MASK_XOR_Y, KD_AIPU_Y) && KD_SAME_POS(MASK_NOT_X, KD_AIPU_X),
               "aipu ops share positions");
/* vload and vstore: the tensor first, then the mask and the stride. */
_Static_assert(KD_SAME_POS(VLOAD_SRC, VSTORE_DST) && KD_SAME_POS(VLOAD_MASK, VSTORE_MASK) &&
               KD_SAME_POS(VLOAD_STRIDE, VSTORE_STRIDE), "vload and vstore share positions");

/* The type a written vector or mask type names, or err after reporting. */
KdType *kd_sema_vec_type(KdArena *a, KdDiag *d, KdNode *ty, KdType *err);
/* A call of an aipu op whose arguments sema has typed and bound: checks
 * the op's rules and returns its result type (err after reporting). */
KdType *kd_sema_aipu_call(KdArena *a, KdDiag *d, KdNode *n, KdType *err);
/* A binary operator with a vector or mask operand. */
KdType *kd_sema_vec_binary(KdArena *a, KdDiag *d, KdNode *n, KdType *l, KdType *r, KdType *err);
/* A unary operator on a vector or mask (only `!` on a mask). */
KdType *kd_sema_vec_unary(KdArena *a, KdDiag *d, KdNode *n, KdType *t, KdType *err);
/* Same vector or mask type. */
int kd_vec_type_same(const KdType *x, const KdType *y);
const char *kd_vec_type_str(KdArena *a, const KdType *t);

/* Reads a mask string as the Compass DSL's parser does: a count repeats
 * the group of T/F letters after it, up to the next count or '_' ("4FT"
 * is FTFTFTFT, "2FTT1FT" FTTFTTFT, "4T_FT" TTTTFT); letters before the
 * first count form a group of one.  Returns the lane count and writes up
 * to max lanes (0/1) to out; -1 on a malformed string, with the reason in
 * why (KD_AIPU_MASK_WHY bytes) when it is not NULL. */
enum { KD_AIPU_MASK_WHY = 96 };
int kd_aipu_mask_parse(const char *s, unsigned char *out, int max, char *why);

#endif
