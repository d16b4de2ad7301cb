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

#endif
