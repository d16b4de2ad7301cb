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
	KD_AIPU_MAX_LANES = 128    /* the most lanes any vector or mask has (i8 at 4x) */
};

/* Native lane count of a dtype; 0 for no dtype. */
static inline int kd_aipu_native(KdDtype dt)
{
	return kd_dtypes[dt].size ? KD_AIPU_VEC_BYTES / kd_dtypes[dt].size : 0;
}

/* Widths the page allows: native, a multiple (2-4x, "Multiple Width
 * Vector") or a divisor of native ("Flexible Width Vector"). */
enum { KD_AIPU_W_NATIVE = 0, KD_AIPU_W_MULTI = 1, KD_AIPU_W_FLEX = 2 };

static inline int kd_aipu_width_ok(int lanes, int native, int allow)
{
	if (lanes == native)
		return 1;
	if ((allow & KD_AIPU_W_MULTI) && native > 0 && lanes % native == 0 && lanes / native >= 2 &&
	    lanes / native <= 4)
		return 1;
	if ((allow & KD_AIPU_W_FLEX) && lanes >= 1 && lanes < native && native % lanes == 0)
		return 1;
	return 0;
}

/* The widths `allow` admits, in words, for diagnostics. */
static inline const char *kd_aipu_width_words(int allow)
{
	return allow == (KD_AIPU_W_MULTI | KD_AIPU_W_FLEX)
	       ? "a divisor of the native lane count or 1-4 times it"
	       : allow == KD_AIPU_W_MULTI ? "1-4 times the native lane count"
	       : allow == KD_AIPU_W_FLEX  ? "the native lane count or a divisor of it"
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
