/* test_runtime_hostile.c: the exported functions that are not op entries
 * (kdsl_rt.h's runtime, checking, error, dtype and half-precision
 * functions, the inline helpers of kdsl_rt.h and kdsl_hw.h, and
 * kdsl_harness.h's .npy, printing and driver functions) called with
 * hostile arguments: NULL runtimes, strings and out-pointers, enum values
 * cast from any int, sizes and offsets near overflow, ranges past the
 * memories, kernel tables with holes.  Each must give its documented
 * error or safe result (kdsl_rt.h, kdsl_harness.h) and never undefined
 * behaviour: the suite runs under ASan and UBSan in the sanitizer build.
 * Every test also has the boundary case next to the hostile one that
 * must still work.  (The op entries are fuzz/fuzz_rt.c's and the other
 * runtime tests'.) */
#include <check.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kdsl_harness.h"
#include "../check_run.h"
#include "capture.h"

static const kdsl_site SITE = {"t.k", 7, 3, "op"};

/* Enum values no enumerator has: below, at and far past each list. */
static const int BAD_ENUMS[] = {0, -1, INT_MIN, INT_MAX, 99};
#define NBAD (sizeof BAD_ENUMS / sizeof BAD_ENUMS[0])

/* ---- the runtime ---- */

/* A NULL runtime: every query's safe result, every call's KDSL_ERR_ARG,
 * and the boundary: a real runtime answers. */
START_TEST(null_runtime)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	size_t bytes = 123;

	kdsl_rt_destroy(NULL);
	ck_assert_int_eq(kdsl_rt_target(NULL), 0);
	ck_assert_str_eq(kdsl_rt_last_error(NULL), "");
	ck_assert_uint_eq(kdsl_rt_last_error_locus(NULL), 0);
	kdsl_rt_clear_error(NULL);
	ck_assert_ptr_null(kdsl_rt_mem(NULL, KDSL_MEM_LSRAM, &bytes));
	ck_assert_uint_eq(bytes, 0);
	ck_assert_uint_eq(kdsl_rt_partition_bytes(NULL, KDSL_MEM_LSRAM), 0);
	ck_assert_uint_eq(kdsl_rt_partition_stride(NULL, KDSL_MEM_LSRAM), 0);
	ck_assert_int_eq(kdsl_rt_fail(NULL, &SITE, KDSL_ERR_RANGE, "x %d", 1), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_rt_fail(NULL, NULL, KDSL_ERR_BOUNDS, NULL), KDSL_ERR_BOUNDS);
	ck_assert_int_eq(kdsl_rt_enter(NULL, KDSL_TARGET_AIPU, "k"), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_null_param(NULL, "k", "p"), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_set_check(NULL, KDSL_CHECK_UNINIT), KDSL_ERR_ARG);
	ck_assert_uint_eq(kdsl_rt_check(NULL), 0);
	ck_assert_int_eq(kdsl_rt_set_threads(NULL, 2), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_threads(NULL), 0);
	kdsl_rt_check_start(NULL);
	ck_assert_int_eq(kdsl_rt_check_mark(NULL, KDSL_MEM_LSRAM, 0, 1), KDSL_ERR_ARG);
	kdsl_rt_check_buffers(NULL, NULL, SIZE_MAX);
	/* the inline helpers */
	ck_assert_int_eq(kdsl_rt_try_enter(NULL, KDSL_TARGET_AIPU), 0);
	ck_assert_int_eq(kdsl_rt_checking(NULL), 0);
	ck_assert_int_eq(kdsl_rt_holds_(NULL, KDSL_MEM_LSRAM, &bytes, 0), 0);
	ck_assert_int_eq(kdsl_ascend_inside_(NULL, KDSL_MEM_UB, &bytes, 0), 0);

	/* boundary: the same calls on a runtime */
	ck_assert_ptr_nonnull(rt);
	ck_assert_int_eq(kdsl_rt_target(rt), KDSL_TARGET_AIPU);
	ck_assert_ptr_nonnull(kdsl_rt_mem(rt, KDSL_MEM_LSRAM, &bytes));
	ck_assert_uint_eq(bytes, KDSL_AIPU_LSRAM_BYTES);
	ck_assert_uint_eq(kdsl_rt_partition_bytes(rt, KDSL_MEM_LSRAM), KDSL_AIPU_LSRAM_BYTES);
	ck_assert_uint_eq(kdsl_rt_partition_stride(rt, KDSL_MEM_LSRAM), KDSL_AIPU_LSRAM_BYTES);
	ck_assert_int_eq(kdsl_rt_holds_(rt, KDSL_MEM_LSRAM, kdsl_rt_mem(rt, KDSL_MEM_LSRAM, NULL), bytes), 1);
	ck_assert_int_eq(kdsl_rt_checking(rt), 0);
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_AIPU), 1);
	/* a thread count outside 1..KDSL_RT_MAX_THREADS leaves the count as it was */
	ck_assert_int_eq(kdsl_rt_set_threads(rt, 0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_set_threads(rt, -1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_set_threads(rt, KDSL_RT_MAX_THREADS + 1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_set_threads(rt, INT_MIN), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_threads(rt), 1);
	ck_assert_int_eq(kdsl_rt_set_threads(rt, KDSL_RT_MAX_THREADS), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_threads(rt), KDSL_RT_MAX_THREADS);
	ck_assert_int_eq(kdsl_rt_set_threads(rt, 1), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_threads(rt), 1);
	kdsl_rt_destroy(rt);
}
END_TEST

/* kdsl_target, kdsl_mem and kdsl_dtype values cast from ints no
 * enumerator has; the boundary is each list's first and last value. */
START_TEST(enums_out_of_range)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	unsigned char *lsram = kdsl_rt_mem(rt, KDSL_MEM_LSRAM, NULL);
	size_t i, bytes;

	for (i = 0; i < NBAD; i++) {
		int v = BAD_ENUMS[i];
		ck_assert_ptr_null(kdsl_rt_create((kdsl_target)v));
		ck_assert_str_eq(kdsl_target_name((kdsl_target)v), "unknown");
		bytes = 7;
		ck_assert_ptr_null(kdsl_rt_mem(rt, (kdsl_mem)v, &bytes));
		ck_assert_uint_eq(bytes, 0);
		ck_assert_uint_eq(kdsl_rt_partition_bytes(rt, (kdsl_mem)v), 0);
		ck_assert_uint_eq(kdsl_rt_partition_stride(rt, (kdsl_mem)v), 0);
		ck_assert_int_eq(kdsl_rt_holds_(rt, (kdsl_mem)v, lsram, 1), 0);
		ck_assert_uint_eq(kdsl_dtype_size((kdsl_dtype)v), 0);
		ck_assert_str_eq(kdsl_dtype_name((kdsl_dtype)v), "?");
		ck_assert_int_eq(kdsl_ascend_move_allowed((kdsl_mem)v, KDSL_MEM_UB), 0);
		ck_assert_int_eq(kdsl_aipu_dma_allowed(KDSL_MEM_GM, (kdsl_mem)v), 0);
	}
	ck_assert_ptr_null(kdsl_rt_mem(rt, (kdsl_mem)KDSL_NMEM, NULL));
	/* a kernel for a target no runtime has */
	ck_assert_int_eq(kdsl_rt_enter(rt, (kdsl_target)99, "k"), KDSL_ERR_TARGET);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "kernel 'k' is for target unknown but the runtime was created for aipu");
	ck_assert_int_eq(kdsl_rt_try_enter(rt, (kdsl_target)-1), 0);

	/* boundary: the first and last of each list */
	ck_assert_str_eq(kdsl_target_name(KDSL_TARGET_NEURON), "neuron");
	ck_assert_str_eq(kdsl_target_name((kdsl_target)(KDSL_NTARGET - 1)), "aipu");
	ck_assert_ptr_nonnull(kdsl_rt_mem(rt, (kdsl_mem)(KDSL_NMEM - 1), NULL));   /* lsram */
	ck_assert_ptr_null(kdsl_rt_mem(rt, KDSL_MEM_GM, NULL));   /* the caller's memory */
	ck_assert_uint_eq(kdsl_dtype_size(KDSL_I8), 1);
	ck_assert_uint_eq(kdsl_dtype_size((kdsl_dtype)(KDSL_NDTYPE - 1)), 1);
	ck_assert_str_eq(kdsl_dtype_name((kdsl_dtype)(KDSL_NDTYPE - 1)), "bool");
	ck_assert_int_eq(kdsl_ascend_move_allowed(KDSL_MEM_UB, KDSL_MEM_UB), 1);
	ck_assert_int_eq(kdsl_aipu_dma_allowed(KDSL_MEM_GM, KDSL_MEM_LSRAM), 1);
	kdsl_rt_destroy(rt);
}
END_TEST

/* kdsl_rt_fail and the kernel entry with NULL strings and extreme
 * numbers; the boundary: a message of exactly the buffer's 1023
 * characters is kept whole, one more is cut. */
START_TEST(fail_hostile_strings)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	static const kdsl_site empty = {NULL, -1, INT_MIN, NULL};
	char big[1100];

	ck_assert_int_eq(kdsl_rt_fail(rt, &empty, KDSL_ERR_RANGE, "m"), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "<unknown>:-1:-2147483648: m");
	ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), strlen("<unknown>:-1:-2147483648"));
	ck_assert_int_eq(kdsl_rt_fail(rt, &SITE, INT_MIN, NULL), INT_MIN);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:7:3: op: error without a message");
	ck_assert_int_eq(kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, NULL), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "error without a message");
	ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), 0);
	ck_assert_int_eq(kdsl_rt_enter(rt, KDSL_TARGET_NEURON, NULL), KDSL_ERR_TARGET);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "kernel '?' is for target neuron but the runtime was created for aipu");
	ck_assert_int_eq(kdsl_rt_null_param(rt, NULL, NULL), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "kernel '?': parameter '?' is NULL");

	/* boundary: 1023 characters fit the 1 KiB buffer, 1024 are cut */
	memset(big, 'x', sizeof big);
	big[1023] = '\0';
	kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, "%s", big);
	ck_assert_uint_eq(strlen(kdsl_rt_last_error(rt)), 1023);
	big[1023] = 'x';
	big[1024] = '\0';
	kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, "%s", big);
	ck_assert_uint_eq(strlen(kdsl_rt_last_error(rt)), 1023);
	/* a locus that alone fills the buffer: no locus length past it */
	{
		kdsl_site longsite = {big, 1, 1, "op"};
		kdsl_rt_fail(rt, &longsite, KDSL_ERR_ARG, "m");
		ck_assert_uint_eq(strlen(kdsl_rt_last_error(rt)), 1023);
		ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), 0);
	}
	kdsl_rt_destroy(rt);
}
END_TEST

/* kdsl_rt_check_mark's range: past the end, wrapping off + len, other
 * memories; the boundary: the whole memory and an empty range at its end. */
START_TEST(check_mark_ranges)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	const size_t n = KDSL_AIPU_LSRAM_BYTES;
	static const struct { size_t off, len; } bad[] = {
		{n, 1}, {1, n}, {n + 1, 0}, {SIZE_MAX, 1}, {1, SIZE_MAX}, {SIZE_MAX, SIZE_MAX}, {n - 1, SIZE_MAX - n + 2},
	};
	size_t i;

	/* off: the mark is a no-op, the range is still checked */
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, n, 1), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kdsl_rt_clear_error(rt);
		ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, bad[i].off, bad[i].len), KDSL_ERR_ARG);
		ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "are not in this runtime's lsram"));
	}
	for (i = 0; i < NBAD; i++) {
		ck_assert_int_eq(kdsl_rt_check_mark(rt, (kdsl_mem)BAD_ENUMS[i], 0, 1), KDSL_ERR_ARG);
		ck_assert_str_eq(kdsl_rt_last_error(rt), "bytes 0..+1 are not in this runtime's memory");
	}
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_UB, 0, 1), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "bytes 0..+1 are not in this runtime's ub");
	ck_assert_int_eq(kdsl_rt_set_check(rt, ~0u), KDSL_ERR_ARG);
	ck_assert_uint_eq(kdsl_rt_check(rt), KDSL_CHECK_UNINIT);

	/* boundary */
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, 0, n), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, n, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, n - 1, 1), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

/* lsram byte 0 unwritten, read by a dma_copy: the message's buffer. */
static int read_unwritten(kdsl_rt *rt, unsigned char *gm)
{
	unsigned char *lsram = kdsl_rt_mem(rt, KDSL_MEM_LSRAM, NULL);
	return kdsl_aipu_dma_copy(rt, &SITE, KDSL_U8, kdsl_ref_of(gm, 64, KDSL_MEM_GM), 0,
	                          kdsl_cref_of(lsram, 64, KDSL_MEM_LSRAM), 0, 64);
}

/* kdsl_rt_check_buffers with a NULL name, a NULL table of any length and
 * an empty table; the boundary: a named buffer is named. */
START_TEST(check_buffers_hostile)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	static const kdsl_buffer nameless[] = {{NULL, KDSL_MEM_LSRAM, 0, 64, 1}};
	static const kdsl_buffer named[] = {{"x", (kdsl_mem)-1, 0, SIZE_MAX, SIZE_MAX},
	                                    {"buf", KDSL_MEM_LSRAM, 0, 64, 1}};
	unsigned char gm[64];

	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	kdsl_rt_check_buffers(rt, nameless, 1);
	ck_assert_int_eq(read_unwritten(rt, gm), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "byte 0 of '?' (lsram byte 0)"));
	kdsl_rt_check_buffers(rt, NULL, SIZE_MAX);
	ck_assert_int_eq(read_unwritten(rt, gm), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "byte 0 of the tensor at lsram byte 0"));
	kdsl_rt_check_buffers(rt, named, 0);
	ck_assert_int_eq(read_unwritten(rt, gm), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "of the tensor at lsram byte 0"));

	/* boundary: a buffer of another memory (any value) is passed over */
	kdsl_rt_check_buffers(rt, named, 2);
	ck_assert_int_eq(read_unwritten(rt, gm), KDSL_ERR_UNINIT);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "byte 0 of 'buf' (lsram byte 0)"));
	ck_assert_int_eq(kdsl_rt_check_mark(rt, KDSL_MEM_LSRAM, 0, 64), KDSL_OK);
	ck_assert_int_eq(read_unwritten(rt, gm), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

/* ---- dtypes and half precision ---- */

/* kdsl_dtype_store(_bits): NULL p and unknown dtypes store nothing; any
 * double converts defined; the boundary: the edges of u8 and i64. */
START_TEST(dtype_store_hostile)
{
	static const double xs[] = {NAN, -NAN, INFINITY, -INFINITY, 1e300, -1e300, DBL_MAX, -DBL_MAX,
	                            DBL_TRUE_MIN, 18446744073709551616.0, -9223372036854775808.0 * 4};
	unsigned char el[8], before[8];
	size_t i;
	int d;

	for (i = 0; i < NBAD; i++) {
		memset(el, 0xa5, sizeof el);
		memcpy(before, el, sizeof el);
		kdsl_dtype_store((kdsl_dtype)BAD_ENUMS[i], el, 1.0);
		kdsl_dtype_store_bits((kdsl_dtype)BAD_ENUMS[i], el, ~(uint64_t)0);
		ck_assert_int_eq(memcmp(el, before, sizeof el), 0);
	}
	for (d = 1; d < KDSL_NDTYPE; d++) {
		kdsl_dtype_store((kdsl_dtype)d, NULL, 1.0);
		kdsl_dtype_store_bits((kdsl_dtype)d, NULL, 1);
		for (i = 0; i < sizeof xs / sizeof xs[0]; i++)
			kdsl_dtype_store((kdsl_dtype)d, el, xs[i]);
	}
	/* NaN and infinities give 0 in an integer; 2^64 wraps to 0 */
	kdsl_dtype_store(KDSL_I32, el, NAN);
	ck_assert_int_eq(el[0] | el[1] | el[2] | el[3], 0);
	kdsl_dtype_store(KDSL_U64, el, 18446744073709551616.0);
	ck_assert_int_eq(el[0] | el[7], 0);

	/* boundary */
	kdsl_dtype_store(KDSL_U8, el, 255.9);
	ck_assert_uint_eq(el[0], 255);
	kdsl_dtype_store(KDSL_U8, el, 256.0);
	ck_assert_uint_eq(el[0], 0);
	kdsl_dtype_store(KDSL_U8, el, -1.0);
	ck_assert_uint_eq(el[0], 255);
	{
		int64_t v;
		kdsl_dtype_store(KDSL_I64, el, -9223372036854775808.0);
		memcpy(&v, el, 8);
		ck_assert(v == INT64_MIN);
		kdsl_dtype_store_bits(KDSL_I64, el, (uint64_t)INT64_MAX);
		memcpy(&v, el, 8);
		ck_assert(v == INT64_MAX);
	}
}
END_TEST

static int is_nan16(uint16_t h, int t)
{
	uint16_t e = (uint16_t)(((1u << (15 - t)) - 1u) << t);
	return (h & e) == e && (h & ((1u << t) - 1u));
}

/* Every f16 and bf16 bit pattern through every conversion (UBSan sees
 * each shift), and doubles at the edges; the boundary: the largest
 * finite f16 and the first value that rounds to infinity. */
START_TEST(half_every_pattern)
{
	static const double xs[] = {NAN, -NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,
	                            -DBL_TRUE_MIN, 0.0, -0.0, 5.960464477539063e-08, 0x1p-25, 3.4e38,
	                            3.4028235677973366e38, 1e-45};
	uint32_t h, bad16 = 0, badbf = 0;
	size_t i;

	/* the patterns that fail each check counted, one assertion after
	 * the loop: 65536 ck_asserts were most of the time under ASan */
	for (h = 0; h <= 0xffff; h++) {
		float f = kdsl_f16_to_f32((kdsl_f16)h), b = kdsl_bf16_to_f32((kdsl_bf16)h);
		double d = kdsl_f16_to_f64((kdsl_f16)h);
		if (is_nan16((uint16_t)h, 10))
			bad16 += !(isnan(f) && isnan(d) && is_nan16(kdsl_f32_to_f16(f), 10) &&
			           is_nan16(kdsl_f64_to_f16(d), 10));
		else
			bad16 += !(f == d && kdsl_f32_to_f16(f) == h && kdsl_f64_to_f16(d) == h);
		if (is_nan16((uint16_t)h, 7))
			badbf += !(isnan(b) && is_nan16(kdsl_f32_to_bf16(b), 7) && is_nan16(kdsl_f64_to_bf16(b), 7));
		else
			badbf += !(kdsl_f32_to_bf16(b) == h && kdsl_f64_to_bf16(b) == h);
	}
	ck_assert_uint_eq(bad16, 0);
	ck_assert_uint_eq(badbf, 0);
	for (i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		(void)kdsl_f64_to_f16(xs[i]);
		(void)kdsl_f64_to_bf16(xs[i]);
		(void)kdsl_f32_to_f16((float)xs[i]);
		(void)kdsl_f32_to_bf16((float)xs[i]);
	}
	ck_assert_uint_eq(kdsl_f64_to_f16(DBL_MAX), 0x7c00);
	ck_assert_uint_eq(kdsl_f64_to_f16(-DBL_TRUE_MIN), 0x8000);
	ck_assert_uint_eq(kdsl_f64_to_bf16(-DBL_MAX), 0xff80);
	/* boundary: 65504 is f16's largest, 65520 rounds (to even) up to inf */
	ck_assert_uint_eq(kdsl_f64_to_f16(65519.99), 0x7bff);
	ck_assert_uint_eq(kdsl_f64_to_f16(65520.0), 0x7c00);
	/* half the smallest subnormal rounds to even (0), just above it up */
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-25), 0);
	ck_assert_uint_eq(kdsl_f64_to_f16(nextafter(0x1p-25, 1.0)), 1);
}
END_TEST

/* kdsl_hw.h's mask and overlap predicates outside their preconditions:
 * element sizes of 0 or less (once a division by zero), huge deltas,
 * repeat counts and strides past the ranges; the boundary: a real
 * overlap is still found. */
/* kdsl_ascend_vec_overlap by its definition: every repeat against every
 * later one, the first pair in (r, r2) order. */
static int ref_vec_overlap(int64_t delta, int64_t dstep, int64_t sstep, int64_t n, kdsl_ascend_bits m, int64_t dsz,
                           int64_t ssz, int64_t *r, int64_t *r2)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t dd = delta + i * (sstep - dstep);
		if (dd && kdsl_ascend_elems_meet2(m, dd, dsz, ssz)) {
			*r = i;
			return 1;
		}
	}
	for (int64_t i = 0; i + 1 < n; i++)
		for (int64_t j = i + 1; j < n; j++)
			if (kdsl_ascend_elems_meet2(m, delta - i * dstep + j * sstep, dsz, ssz)) {
				*r = i, *r2 = j;
				return 2;
			}
	return 0;
}

/* The overlap rules against that definition on random operands: equal
 * rep strides (where repeat 0 decides) about half the time, deltas near
 * the repeats' span, masks full, short and with holes. */
START_TEST(vec_overlap_matches_definition)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	static const int64_t sizes[] = {1, 2, 4, 8, 256};

	for (int k = 0; k < 20000; k++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		int64_t n = 1 + (int64_t)(s % 40), dsz = sizes[(s >> 8) % 5], ssz = (s >> 12) & 1 ? dsz : sizes[(s >> 16) % 5];
		int64_t dstep = 32 * (int64_t)((s >> 20) % 9), sstep = (s >> 24) & 1 ? dstep : 32 * (int64_t)((s >> 28) % 9);
		int64_t delta = (int64_t)((s >> 32) % 1025) - 512;
		kdsl_ascend_bits m = kdsl_ascend_bits_count(1 + (int64_t)((s >> 44) % 128));
		if ((s >> 52) & 1)
			m.l &= 0x5555555555555555u;
		if (dsz * 128 > 256 || ssz * 128 > 256)
			m = kdsl_ascend_bits_count(256 / (dsz > ssz ? dsz : ssz));
		int64_t r = -1, r2 = -1, wr = -1, wr2 = -1;
		int got = kdsl_ascend_vec_overlap(delta, dstep, sstep, n, m, dsz, ssz, &r, &r2);
		int want = ref_vec_overlap(delta, dstep, sstep, n, m, dsz, ssz, &wr, &wr2);
		ck_assert_msg(got == want && (!got || r == wr) && (got != 2 || r2 == wr2),
		              "delta %lld steps %lld %lld n %lld sizes %lld %lld: %d (%lld, %lld), want %d (%lld, %lld)",
		              (long long)delta, (long long)dstep, (long long)sstep, (long long)n, (long long)dsz,
		              (long long)ssz, got, (long long)r, (long long)r2, want, (long long)wr, (long long)wr2);
	}
}
END_TEST

START_TEST(hw_predicates_hostile)
{
	kdsl_ascend_bits m = kdsl_ascend_bits_count(16), none = kdsl_ascend_bits_count(-5);
	kdsl_ascend_bits all = kdsl_ascend_bits_count(1000);
	int64_t r = -1, r2 = -1;
	static const int64_t sizes[] = {0, -1, INT64_MIN, INT64_MAX, 257};
	size_t i;

	ck_assert(none.h == 0 && none.l == 0);
	ck_assert(all.h == ~(uint64_t)0 && all.l == ~(uint64_t)0);
	ck_assert(kdsl_ascend_bits_shift(m, INT64_MIN).l == 0 && kdsl_ascend_bits_shift(m, INT64_MAX).h == 0);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int64_t sz = sizes[i];
		if (sz < 1)
			ck_assert_int_eq(kdsl_ascend_elems_meet(m, 2, sz), 0);
		ck_assert_int_eq(kdsl_ascend_elems_meet2(m, 2, sz, 2), 0);
		ck_assert_int_eq(kdsl_ascend_elems_meet2(m, 2, 2, sz), 0);
		ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, 32, 1, m, sz, 2, &r, &r2), 0);
		ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, 32, 1, m, 2, sz, &r, &r2), 0);
	}
	ck_assert_int_eq(kdsl_ascend_elems_meet(m, INT64_MIN, 1), 0);
	ck_assert_int_eq(kdsl_ascend_elems_meet(m, INT64_MAX, 3), 0);
	ck_assert_int_eq(kdsl_ascend_elems_meet2(m, INT64_MAX, 2, 4), 0);
	ck_assert_int_eq(kdsl_ascend_elems_meet2(m, INT64_MIN, 4, 2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(INT64_MAX, 32, 32, 255, all, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(INT64_MIN, 32, 32, 255, all, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, 32, 256, m, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, -32, 32, 2, m, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, INT64_MAX, 2, m, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, 32, INT64_MIN, m, 2, 2, &r, &r2), 0);

	/* boundary: dst and a source 2 bytes apart within a repeat overlap
	 * (1, repeat 0), at the ranges' edges too; 32 bytes apart with 16
	 * f16 elements they touch nothing; with src's rep stride 0 and
	 * dst's 1, repeat 1 reads what repeat 0 wrote (2) */
	ck_assert_int_eq(kdsl_ascend_elems_meet(m, 2, 2), 1);
	ck_assert_int_eq(kdsl_ascend_elems_meet2(m, 2, 4, 2), 1);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 32, 32, 1, m, 2, 2, &r, &r2), 1);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(2, 255 * 32, 255 * 32, 255, m, 256, 256, &r, &r2), 1);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(32, 32, 32, 1, m, 2, 2, &r, &r2), 0);
	ck_assert_int_eq(kdsl_ascend_vec_overlap(0, 32, 0, 2, m, 2, 2, &r, &r2), 2);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(r2, 1);
}
END_TEST

/* An op's strided view (access pattern) with a partition and an offset
 * far outside its tile: the view's pointer was formed before the
 * pattern's checks, an overflowing pointer expression (UBSan; found by
 * fuzz_rt), the error came after.  The boundary: the last partition and
 * element of the tile as a one-element pattern load. */
START_TEST(view_pointer_after_checks)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	int32_t host[4] = {1, 2, 3, 4};
	kdsl_tile dst = kdsl_tile_of(kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL), kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF),
	                             64, 1, 0, 1, 0, 1, KDSL_MEM_SBUF, KDSL_I32);
	kdsl_ctile src = kdsl_ctile_ap(kdsl_ctile_of(host, 8, 8, 2, -8002994109948104721, 1, 71, 1, KDSL_MEM_HBM,
	                                             KDSL_I32), 0, 1, 1, 1, 0, 0, 0, 0);
	kdsl_ctile far = src;
	int32_t got = 0;

	far.p0 = 0;
	far.off = INT64_MAX / 4;
	ck_assert_int_eq(kdsl_neuron_load(rt, &SITE, dst, src), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "partitions -8002994109948104721.."));
	ck_assert_int_eq(kdsl_neuron_load(rt, &SITE, dst, far), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "of each partition are outside its 2"));

	/* boundary: partition 1, element 1 (host[3]) */
	src.p0 = 1;
	src.off = 1;
	ck_assert_int_eq(kdsl_neuron_load(rt, &SITE, dst, src), KDSL_OK);
	memcpy(&got, kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL), 4);
	ck_assert_int_eq(got, 4);
	kdsl_rt_destroy(rt);
}
END_TEST

/* ---- the harness library ---- */

static char *tmpfile_path(void)
{
	static char p[64];
	int fd;

	strcpy(p, "/tmp/kdsl-hostile-XXXXXX");
	fd = mkstemp(p);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return p;
}

/* kdsl_format_array: bad dtypes, ranks, extents whose product overflows,
 * NULL pointers; the boundary: the deepest rank printed, an empty array
 * with huge extents, and the largest extent that still fits. */
START_TEST(format_array_hostile)
{
	static const int64_t neg[2] = {2, -1}, over[2] = {INT64_MAX, 2}, wrap[3] = {1 << 22, 1 << 22, 1 << 22};
	static const int64_t wrap64[2] = {(int64_t)1 << 62, 4}, empty[3] = {INT64_MAX, 0, INT64_MAX};
	int64_t ones[KDSL_HARNESS_MAX_RANK + 1];
	int32_t five = 5;
	char *s;
	size_t i;

	for (i = 0; i < sizeof ones / sizeof ones[0]; i++)
		ones[i] = 1;
	for (i = 0; i < NBAD; i++)
		ck_assert_ptr_null(kdsl_format_array((kdsl_dtype)BAD_ENUMS[i], 1, ones, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, -1, ones, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, INT_MIN, ones, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, KDSL_HARNESS_MAX_RANK + 1, ones, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, INT_MAX, ones, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, 1, NULL, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, 1, ones, NULL));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, 2, neg, &five));
	ck_assert_ptr_null(kdsl_format_array(KDSL_I32, 2, over, &five));   /* 2^65 bytes */
	ck_assert_ptr_null(kdsl_format_array(KDSL_I8, 3, wrap, &five));   /* 2^66 elements */
	ck_assert_ptr_null(kdsl_format_array(KDSL_I8, 2, wrap64, &five));   /* 2^64 */

	/* boundary */
	s = kdsl_format_array(KDSL_I32, KDSL_HARNESS_MAX_RANK, ones, &five);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(strlen(s), 2 * KDSL_HARNESS_MAX_RANK + 1);
	ck_assert_uint_eq(strspn(s, "["), KDSL_HARNESS_MAX_RANK);
	ck_assert_int_eq(s[KDSL_HARNESS_MAX_RANK], '5');
	free(s);
	s = kdsl_format_array(KDSL_I32, 3, empty, NULL);
	ck_assert_str_eq(s, "[]");
	free(s);
	s = kdsl_format_array(KDSL_I32, 0, NULL, &five);
	ck_assert_str_eq(s, "5");
	free(s);
}
END_TEST

/* kdsl_npy_write: NULL path, bad dtype, ranks, shapes and data, each -1
 * with errno EINVAL; the boundary: rank 0 and rank 32 write and read back. */
START_TEST(npy_write_hostile)
{
	static const int64_t neg[1] = {-1}, over[2] = {INT64_MAX, 4};
	int64_t ones[33];
	int32_t v = 42, back = 0;
	char *p = tmpfile_path(), err[256];
	size_t i;

	for (i = 0; i < 33; i++)
		ones[i] = 1;
	errno = 0;
	ck_assert_int_eq(kdsl_npy_write(NULL, KDSL_I32, 0, NULL, &v), -1);
	ck_assert_int_eq(errno, EINVAL);
	for (i = 0; i < NBAD; i++)
		ck_assert_int_eq(kdsl_npy_write(p, (kdsl_dtype)BAD_ENUMS[i], 0, NULL, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, -1, ones, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 33, ones, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, INT_MAX, ones, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 1, NULL, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 1, neg, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 2, over, &v), -1);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 0, NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);

	/* boundary */
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 0, NULL, &v), 0);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 0, NULL, &back, err, sizeof err), 0);
	ck_assert_int_eq(back, 42);
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 32, ones, &v), 0);
	back = 0;
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 32, ones, &back, err, sizeof err), 0);
	ck_assert_int_eq(back, 42);
	unlink(p);
}
END_TEST

/* kdsl_npy_read: NULL path, data, err; bad requests; a shape whose text
 * is longer than the message buffer and differs only at its end (its
 * cut text once matched); the boundary: an empty array needs no data, an
 * errlen of 0 writes nothing. */
START_TEST(npy_read_hostile)
{
	int64_t dims[20], other[20];
	static const int64_t four[1] = {4}, neg[1] = {-4}, over[2] = {INT64_MAX, 4};
	int32_t data[4] = {1, 2, 3, 4}, back[4] = {0};
	char *p = tmpfile_path(), err[256], keep[4] = "abc";
	size_t i;

	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 1, four, data), 0);
	ck_assert_int_eq(kdsl_npy_read(NULL, KDSL_I32, 1, four, back, err, sizeof err), -1);
	ck_assert_str_eq(err, "kdsl_npy_read: no file name (NULL path)");
	ck_assert_int_eq(kdsl_npy_read(NULL, KDSL_I32, 1, four, back, NULL, 100), -1);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 1, four, NULL, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, ": no buffer (NULL data) for 4 elements"));
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 1, four, NULL, NULL, 0), -1);
	for (i = 0; i < NBAD; i++) {
		ck_assert_int_eq(kdsl_npy_read(p, (kdsl_dtype)BAD_ENUMS[i], 1, four, back, err, sizeof err), -1);
		ck_assert_ptr_nonnull(strstr(err, "bad dtype or shape requested"));
	}
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, -1, four, back, err, sizeof err), -1);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, KDSL_HARNESS_MAX_RANK + 1, four, back, err, sizeof err), -1);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 1, NULL, back, err, sizeof err), -1);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 1, neg, back, err, sizeof err), -1);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 2, over, back, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad dtype or shape requested"));
	ck_assert_int_eq(back[0], 0);   /* nothing written */

	/* (0, 10^17 x 18, 1) against (0, 10^17 x 18, 2): 380 characters */
	dims[0] = other[0] = 0;
	for (i = 1; i < 19; i++)
		dims[i] = other[i] = 100000000000000000;
	dims[19] = 1;
	other[19] = 2;
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 20, dims, NULL), 0);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 20, other, NULL, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, ": shape (0, 100000000000000000, 100000000000000000, "));   /* cut */

	/* boundary: the same shape reads, without data (empty) */
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 20, dims, NULL, err, sizeof err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 20, other, NULL, keep, 0), -1);
	ck_assert_str_eq(keep, "abc");
	ck_assert_int_eq(kdsl_npy_write(p, KDSL_I32, 1, four, data), 0);
	ck_assert_int_eq(kdsl_npy_read(p, KDSL_I32, 1, four, back, err, sizeof err), 0);
	ck_assert_int_eq(back[3], 4);
	unlink(p);
}
END_TEST

/* ---- kdsl_harness_main with a bad call ---- */

static char err_text[8192];

/* kdsl_harness_main with both streams captured (capture.h): stdout's
 * text, then stderr's, in err_text. */
static int run_main(int argc, char **argv, const kdsl_kernel_info *k, int nk)
{
	static char out[4096], err[4096];
	int rc = kd_capture_main(argc, argv, k, nk, out, sizeof out, err, sizeof err);

	snprintf(err_text, sizeof err_text, "%s%s", out, err);
	return rc;
}

static int k_ok(kdsl_rt *rt, void *const *t, const int64_t *s)
{
	(void)rt;
	(void)t;
	(void)s;
	return KDSL_OK;
}

static const int64_t d2[1] = {2};

/* Each bad call returns 2 with its message; the boundary: argc 0 with a
 * NULL argv and no kernels is a run of nothing (0), and a table of
 * rank-0 and rank-64 tensors runs. */
START_TEST(harness_main_hostile)
{
	char *argv[] = {"kdsl-run", NULL, NULL};
	static const kdsl_param_info noname[1] = {{NULL, KDSL_I32, 1, 0, 1, d2}};
	static const kdsl_param_info nodims[1] = {{"t", KDSL_I32, 1, 0, 1, NULL}};
	static const kdsl_param_info deep[1] = {{"t", KDSL_I32, 1, 0, KDSL_HARNESS_MAX_RANK + 1, d2}};
	static const kdsl_param_info negrank[1] = {{"t", KDSL_I32, 1, 0, -1, d2}};
	static int64_t ones[KDSL_HARNESS_MAX_RANK];
	kdsl_param_info good[2] = {{"s", KDSL_I32, 0, 0, 0, NULL}, {"t", KDSL_I32, 1, 1, KDSL_HARNESS_MAX_RANK, ones}};
	const kdsl_kernel_info bad[] = {
		{NULL, KDSL_TARGET_AIPU, 0, NULL, k_ok},
		{"k", KDSL_TARGET_AIPU, 0, NULL, NULL},
		{"k", KDSL_TARGET_AIPU, -1, NULL, k_ok},
		{"k", KDSL_TARGET_AIPU, 1, NULL, k_ok},
		{"k", KDSL_TARGET_AIPU, 1, noname, k_ok},
		{"k", KDSL_TARGET_AIPU, 1, nodims, k_ok},
		{"k", KDSL_TARGET_AIPU, 1, deep, k_ok},
		{"k", KDSL_TARGET_AIPU, 1, negrank, k_ok},
	};
	static const char *const msgs[] = {
		"error: kernel table: kernel 0 has no name\n",
		"error: kernel table: kernel 'k' has no function\n",
		"error: kernel table: kernel 'k' has -1 parameters\n",
		"error: kernel table: kernel 'k' has 1 parameters but no parameter table\n",
		"error: kernel table: parameter 0 of kernel 'k' has no name\n",
		"error: kernel table: tensor 't' of kernel 'k' has rank 1 but no extents\n",
		"error: kernel table: tensor 't' of kernel 'k' has rank 65\n",
		"error: kernel table: tensor 't' of kernel 'k' has rank -1\n",
	};
	const kdsl_kernel_info okk[1] = {{"ok", KDSL_TARGET_AIPU, 2, good, k_ok}};
	const kdsl_kernel_info badtarget[1] = {{"ok", (kdsl_target)77, 0, NULL, k_ok}};
	size_t i;

	ck_assert_int_eq(run_main(-1, argv, okk, 1), 2);
	ck_assert_str_eq(err_text, "error: kdsl_harness_main: argc is -1\n");
	ck_assert_int_eq(run_main(1, NULL, okk, 1), 2);
	ck_assert_str_eq(err_text, "error: kdsl_harness_main: argv is NULL (argc 1)\n");
	ck_assert_int_eq(run_main(3, argv, okk, 1), 2);
	ck_assert_str_eq(err_text, "error: kdsl_harness_main: argv[1] is NULL (argc 3)\n");
	ck_assert_int_eq(run_main(1, argv, okk, -1), 2);
	ck_assert_str_eq(err_text, "error: kdsl_harness_main: -1 kernels\n");
	ck_assert_int_eq(run_main(1, argv, NULL, 1), 2);
	ck_assert_str_eq(err_text, "error: kdsl_harness_main: 1 kernels in a NULL table\n");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(run_main(1, argv, &bad[i], 1), 2);
		ck_assert_str_eq(err_text, msgs[i]);
	}
	ck_assert_int_eq(run_main(1, argv, badtarget, 1), 2);
	ck_assert_str_eq(err_text, "error: cannot create a runtime for target unknown\n");

	/* boundary */
	ck_assert_int_eq(run_main(0, NULL, NULL, 0), 0);
	ck_assert_str_eq(err_text, "");
	for (i = 0; i < KDSL_HARNESS_MAX_RANK; i++)
		ones[i] = 1;
	ck_assert_int_eq(run_main(2, (char *[]){"kdsl-run", "--quiet", NULL}, okk, 1), 0);
	ck_assert_str_eq(err_text, "");
	ck_assert_int_eq(run_main(1, argv, okk, 1), 0);
	ck_assert_ptr_nonnull(strstr(err_text, "kernel ok (aipu)\ninputs:\ns: i32 = 0\noutputs:\nt: i32[1, 1,"));
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("runtime_hostile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, null_runtime);
	tcase_add_test(tc, enums_out_of_range);
	tcase_add_test(tc, fail_hostile_strings);
	tcase_add_test(tc, check_mark_ranges);
	tcase_add_test(tc, check_buffers_hostile);
	tcase_add_test(tc, dtype_store_hostile);
	tcase_add_test(tc, half_every_pattern);
	tcase_add_test(tc, hw_predicates_hostile);
	tcase_add_test(tc, vec_overlap_matches_definition);
	tcase_add_test(tc, view_pointer_after_checks);
	tcase_add_test(tc, format_array_hostile);
	tcase_add_test(tc, npy_write_hostile);
	tcase_add_test(tc, npy_read_hostile);
	tcase_add_test(tc, harness_main_hostile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return kd_check_run(hostile_suite());
}
