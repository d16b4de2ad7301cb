/* ieval.h: kdsl's integer arithmetic, defined once (docs/language.md,
 * Expressions): 64 bits, two's complement, wrapping on overflow; `/` and
 * `%` truncate toward zero, INT64_MIN / -1 wraps to INT64_MIN and
 * INT64_MIN % -1 is 0; division by zero and shift counts outside 0..63
 * are errors.  Sema's constant folding, canon's folding and the abstract
 * walk all call kd_ieval, and the emitter writes the very same helper
 * bodies (KD_IEVAL_HELPERS, stringified) into the generated C, so the
 * compiler cannot fold a value the kernel would not compute. */
#ifndef KD_IEVAL_H
#define KD_IEVAL_H

#include <stdint.h>

/* The helpers generated C calls, as X(NAME, name, (params), body) for a
 * one-line definition and X2(NAME, name, (params), line1, line2) for one
 * whose return expression the emitter breaks over two lines.  util/ieval.c
 * compiles them into kdslc; backend/emit.c writes their text.  A body may
 * assume what generated C tests before the call (a divisor != 0, a shift
 * count in 0..63) and kd_ieval reports as an error instead.  The spacing
 * inside a body is the generated C's: stringizing keeps it. */
#define KD_IEVAL_HELPERS(X, X2) \
	X(ADD, add, (int64_t a, int64_t b), (int64_t)((uint64_t)a + (uint64_t)b)) \
	X(SUB, sub, (int64_t a, int64_t b), (int64_t)((uint64_t)a - (uint64_t)b)) \
	X(MUL, mul, (int64_t a, int64_t b), (int64_t)((uint64_t)a * (uint64_t)b)) \
	X(NEG, neg, (int64_t a), (int64_t)(0 - (uint64_t)a)) \
	X(DIV, div, (int64_t a, int64_t b), b == -1 ? kd_neg(a) : a / b) \
	X(REM, rem, (int64_t a, int64_t b), b == -1 ? 0 : a % b) \
	X(SHL, shl, (int64_t a, int64_t b), (int64_t)((uint64_t)a << b)) \
	X2(F2I, f2i, (double x), x != x ? 0 : x >= 9.2233720368547758e18 ? INT64_MAX, \
	   : x <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)x)

#define KD_IEVAL_ENUM_(N, n, p, b) KD_IH_##N,
#define KD_IEVAL_ENUM2_(N, n, p, b1, b2) KD_IH_##N,
typedef enum { KD_IEVAL_HELPERS(KD_IEVAL_ENUM_, KD_IEVAL_ENUM2_) KD_IH_N } KdIevalHelper;
#undef KD_IEVAL_ENUM_
#undef KD_IEVAL_ENUM2_

/* "kd_add", ...: the helper's name in generated C. */
extern const char *const kd_ieval_helper_name[KD_IH_N];
/* Its definition, `static inline int64_t kd_add(...) {...}\n`. */
extern const char *const kd_ieval_helper_c[KD_IH_N];

/* The integer operators of the language (the IR's scalar ops map onto
 * them one to one; see kd_eval_op in ir/walk.h).  Comparisons and the
 * logical operators give 0 or 1; `&&` and `||` evaluate both sides. */
typedef enum {
	KD_I_ADD, KD_I_SUB, KD_I_MUL, KD_I_DIV, KD_I_REM, KD_I_SHL, KD_I_SHR,
	KD_I_AND, KD_I_OR, KD_I_XOR,
	KD_I_EQ, KD_I_NE, KD_I_LT, KD_I_LE, KD_I_GT, KD_I_GE, KD_I_LAND, KD_I_LOR,
	KD_I_NEG, KD_I_NOT, KD_I_PLUS     /* unary: b is ignored */
} KdIop;

typedef enum {
	KD_IEVAL_OK,
	KD_IEVAL_DIV_ZERO,  /* `/` or `%` by 0: a compile-time or run-time error */
	KD_IEVAL_SHIFT      /* a shift count outside 0..63: likewise */
} KdIevalStatus;

/* *r = a op b when the operation is defined; otherwise the error the
 * kernel would report at run time, and *r is untouched. */
KdIevalStatus kd_ieval(KdIop op, int64_t a, int64_t b, int64_t *r);

/* A float converted to an integer as generated C's kd_f2i does: truncated,
 * saturating at the int64 limits, NaN to 0. */
int64_t kd_ieval_f2i(double x);

/* v converted to an integer of `bits` bits (8, 16, 32 or 64), signed or
 * not, and back to 64 bits: the wrap of a cast such as `u8(260)`. */
int64_t kd_ieval_narrow(int64_t v, int bits, int is_signed);

#endif
