/* types_aipu.h: the facts about aipu vector types (seed 004) that sema
 * checks on the AST, lowering uses, and the IR verifier checks again on
 * IR (verify_aipu.c): one definition for all three. */
#ifndef KD_TYPES_AIPU_H
#define KD_TYPES_AIPU_H

#include <string.h>

#include "kd.h"

/* The element dtypes a vector may hold (the op table's AIPU_DT lists
 * the same set; test_ir.c holds them together). */
#define KD_AIPU_DTYPES (KD_DTBIT(KD_I8) | KD_DTBIT(KD_I16) | KD_DTBIT(KD_I32) | KD_DTBIT(KD_U8) | \
                        KD_DTBIT(KD_U16) | KD_DTBIT(KD_U32) | KD_DTBIT(KD_F16) | KD_DTBIT(KD_F32))

enum {
	KD_AIPU_VEC_BYTES = KDSL_AIPU_VECTOR_BYTES,   /* a native vector: 256 bits */
	/* The widest vector, in native widths: vconcat and vzip ("all") of two
	 * 4x vectors give 8x (the Compass API doubles its operands' lanes and
	 * sets no bound of its own; kdsl's lane arrays need one). */
	KD_AIPU_MAX_MULT = 8,
	KD_AIPU_MAX_LANES = 256    /* the most lanes any vector or mask has (i8 at 8x) */
};

/* Native lane count of a dtype; 0 for no dtype. */
static inline int kd_aipu_native(KdDtype dt)
{
	return kd_dtypes[dt].size ? KD_AIPU_VEC_BYTES / kd_dtypes[dt].size : 0;
}

/* Widths the Compass API allows: native; a multiple of native ("Multiple
 * Width Vector": whole 256-bit registers, up to KD_AIPU_MAX_MULT); or any
 * lane count above 1 up to that bound ("Flexible Width Vector": i32x3,
 * i32x12 and f16x24 included).  A vector always has more than one lane. */
enum { KD_AIPU_W_NATIVE = 0, KD_AIPU_W_MULTI = 1, KD_AIPU_W_FLEX = 2 };

static inline int kd_aipu_width_ok(int lanes, int native, int allow)
{
	if (lanes == native)
		return 1;
	if (native <= 0 || lanes < 2 || lanes > KD_AIPU_MAX_MULT * native)
		return 0;
	if ((allow & KD_AIPU_W_MULTI) && lanes % native == 0)
		return 1;
	return (allow & KD_AIPU_W_FLEX) != 0;
}

/* The widths `allow` admits, in words, for diagnostics. */
static inline const char *kd_aipu_width_words(int allow)
{
	return allow & KD_AIPU_W_FLEX ? "more than 1 and at most 8 times the native lane count"
	       : allow == KD_AIPU_W_MULTI ? "1-8 times the native lane count"
	                                  : "the native lane count";
}

/* The parts vconcat and vzip select: lowered to these numbers. */
enum { KD_AIPU_PART_ALL, KD_AIPU_PART_LOW, KD_AIPU_PART_HIGH, KD_AIPU_PART_EVEN,
       KD_AIPU_PART_ODD, KD_AIPU_NPART };

/* A part's number from its name; -1 if unknown. */
static inline int kd_aipu_part(const char *s)
{
	static const char *const parts[KD_AIPU_NPART] = {"all", "low", "high", "even", "odd"};
	for (int i = 0; i < KD_AIPU_NPART; i++)
		if (!strcmp(s, parts[i]))
			return i;
	return -1;
}

/* Lanes of vconcat's or vzip's result from operands of `lanes` lanes:
 * `all` takes every lane of both, a half or the even/odd lanes half of
 * each; -1 when the part cannot split the operands (an odd count). */
static inline int kd_aipu_part_lanes(int lanes, int part)
{
	if (part == KD_AIPU_PART_ALL)
		return 2 * lanes;
	return lanes % 2 ? -1 : lanes;
}

/* cast's parts (the Compass API's): the first five are vconcat's and
 * vzip's numbers; ll, lh, hl, hh are quarters.  NULL-terminated, for the
 * op table's enums (rules_aipu.c). */
enum { KD_AIPU_PART_LL = KD_AIPU_NPART, KD_AIPU_PART_LH, KD_AIPU_PART_HL, KD_AIPU_PART_HH,
       KD_AIPU_NCAST_PART };
extern const char *const kd_aipu_cast_parts[KD_AIPU_NCAST_PART + 1];

/* The range of dtype dt as doubles (floats: their largest finite
 * magnitude): sema's broadcast rule and clip's clamped constants. */
static inline void kd_aipu_dt_range(KdDtype dt, double *lo, double *hi)
{
	int bits = kd_dtypes[dt].size * 8;
	double two = 2.0 * (double)(UINT64_C(1) << (bits - 1));   /* 2^bits, bits 8..64 */
	if (kd_dtypes[dt].is_float) {
		*hi = dt == KD_F16 ? 65504.0 : dt == KD_BF16 ? 3.3895313892515355e38 : 3.4028234663852886e38;
		*lo = -*hi;
	} else if (kd_dtypes[dt].is_signed) {
		*hi = two / 2 - 1;
		*lo = -two / 2;
	} else {
		*hi = two - 1;
		*lo = 0;
	}
}

/* A cast part's number from its name; -1 if unknown. */
static inline int kd_aipu_cast_part_of(const char *s)
{
	for (int i = 0; i < KD_AIPU_NCAST_PART; i++)
		if (!strcmp(s, kd_aipu_cast_parts[i]))
			return i;
	return -1;
}

/* The lanes cast gives from `lanes` lanes of `from_bits` to `to_bits`
 * with part p (the Compass API's rules): "all" keeps the lanes; a half
 * (low, high, even, odd) of a native vector widens to twice the bits, a
 * quarter (ll, lh, hl, hh) to four times.  0 when the part does not go
 * with the widths (the caller says why), -1 when it needs a native x. */
static inline int kd_aipu_cast_lanes(int lanes, int native, int from_bits, int to_bits, int p)
{
	if (p == KD_AIPU_PART_ALL)
		return lanes;
	if (to_bits != from_bits * (p >= KD_AIPU_PART_LL ? 4 : 2))
		return 0;
	if (lanes != native)
		return -1;
	return lanes / (p >= KD_AIPU_PART_LL ? 4 : 2);
}

/* Lane i of cast's result is lane kd_aipu_cast_src(i, n, p) of x, n the
 * result's lanes. */
static inline int kd_aipu_cast_src(int i, int n, int p)
{
	switch (p) {
	case KD_AIPU_PART_HIGH: return n + i;
	case KD_AIPU_PART_EVEN: return 2 * i;
	case KD_AIPU_PART_ODD: return 2 * i + 1;
	case KD_AIPU_PART_LH: return n + i;
	case KD_AIPU_PART_HL: return 2 * n + i;
	case KD_AIPU_PART_HH: return 3 * n + i;
	default: return i;   /* all, low, ll */
	}
}

/* Why the Compass API has no direct cast from `from` to `to` (a cast of
 * other dtypes there and back is the way), or NULL when it has one:
 * f16 and integers narrower than 32 bits have no conversion instruction
 * either way, and u32 to f32, f32 to u32 and u32 to f16 would lose
 * precision. */
static inline const char *kd_aipu_cast_unsupported(KdDtype from, KdDtype to)
{
	int fi = !kd_dtypes[from].is_float, ti = !kd_dtypes[to].is_float;
	if ((from == KD_F16 && ti && kd_dtypes[to].size < 4) || (fi && kd_dtypes[from].size < 4 && to == KD_F16))
		return "there is no conversion between f16 and integers narrower than 32 bits (cast through i32)";
	if ((from == KD_U32 && (to == KD_F32 || to == KD_F16)) || (from == KD_F32 && to == KD_U32))
		return "it would lose precision (cast through i32 or another dtype)";
	return NULL;
}

#endif
