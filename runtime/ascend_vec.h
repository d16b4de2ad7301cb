/* ascend_vec.h (internal): the arithmetic of the TIK vector ops
 * (ascend_vec.c), apart from their checks and their repeats (ascend.c).
 * One call computes one repeat's first n elements from operands copied
 * out of ub (so out never shares a byte with a source), with typed loops
 * that gcc vectorises, compiled once per kdsl_isa and picked by the
 * runtime's.  Results are docs/language.md's ("The two-source vector
 * ops", "The one-source vector ops") to the bit on every isa: f16 is
 * computed in f32, which for a sum, difference, product or quotient of
 * two halves rounded once more to f16 is the exact result rounded once
 * (24 >= 2 * 11 + 2 bits: no double-rounding error), then stored with
 * round-to-nearest-even; f32 and i32 are their own arithmetic. */
#ifndef KDSL_ASCEND_VEC_H
#define KDSL_ASCEND_VEC_H

#include "rt_internal.h"

/* The two-source ops (vec_add's shape). */
typedef enum { KDSL_VB_ADD, KDSL_VB_SUB, KDSL_VB_MUL, KDSL_VB_MAX, KDSL_VB_MIN, KDSL_NVB } kdsl_vb_op;
/* The one-source ops: with a scalar, then unary. */
typedef enum {
	KDSL_VU_ADDS, KDSL_VU_MULS, KDSL_VU_ABS, KDSL_VU_EXP, KDSL_VU_LN, KDSL_VU_REC, KDSL_VU_RELU, KDSL_NVU
} kdsl_vu_op;

/* out = a op b over n elements of dt (f16, f32 or i32; the caller has
 * checked it). */
void kdsl_ascend_vbin(kdsl_isa isa, kdsl_vb_op op, kdsl_dtype dt, int64_t n, void *out, const void *a,
                      const void *b);

/* out = op(a[, k]) over n elements of dt (f16 or f32), k the scalar
 * already of dt.  Returns 0 for the ops it leaves to the caller's double
 * loop (exp and ln: libm's double functions, one call per element). */
int kdsl_ascend_vone(kdsl_isa isa, kdsl_vu_op op, kdsl_dtype dt, int64_t n, void *out, const void *a, float k);

#endif
