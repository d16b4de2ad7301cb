/* test_runtime.c: unit tests of the runtime library: half conversions,
 * runtime creation and errors, the ascend ops, .npy and numpy-style
 * printing.  Expected printouts were produced by numpy 1.24's str(). */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kdsl_harness.h"
#include "kdsl_rt.h"
#include "../check_run.h"

static const kdsl_site SITE = {"t.k", 7, 35, "data_move"};
static const kdsl_site VSITE = {"t.k", 9, 5, "vec_add"};
static const kdsl_site DSITE = {"t.k", 8, 5, "vec_dup"};
/* the continuous form of a vector op's mask: the first n elements */
#define MASK(n) kdsl_ascend_mask_count(n)

static uint64_t bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static uint32_t bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float from32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* ---------------------------------------------------------------- half */

START_TEST(f16_exact_values)
{
	ck_assert_uint_eq(kdsl_f64_to_f16(0.0), 0x0000);
	ck_assert_uint_eq(kdsl_f64_to_f16(-0.0), 0x8000);
	ck_assert_uint_eq(kdsl_f64_to_f16(1.0), 0x3c00);
	ck_assert_uint_eq(kdsl_f64_to_f16(-2.0), 0xc000);
	ck_assert_uint_eq(kdsl_f64_to_f16(65504.0), 0x7bff);
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-14), 0x0400);      /* smallest normal */
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-24), 0x0001);      /* smallest subnormal */
	ck_assert_uint_eq(kdsl_f64_to_f16(1023 * 0x1p-24), 0x03ff);
	ck_assert_uint_eq(kdsl_f32_to_f16(1.0f), 0x3c00);
	ck_assert_uint_eq(kdsl_f32_to_f16(0x1p-24f), 0x0001);
}
END_TEST

START_TEST(f16_overflow_and_specials)
{
	uint16_t h;

	ck_assert_uint_eq(kdsl_f64_to_f16(65520.0), 0x7c00);      /* tie above max: to inf */
	ck_assert_uint_eq(kdsl_f64_to_f16(65519.99), 0x7bff);
	ck_assert_uint_eq(kdsl_f64_to_f16(-1e10), 0xfc00);
	ck_assert_uint_eq(kdsl_f64_to_f16(INFINITY), 0x7c00);
	ck_assert_uint_eq(kdsl_f64_to_f16(-INFINITY), 0xfc00);
	ck_assert_uint_eq(kdsl_f32_to_f16(65520.0f), 0x7c00);
	ck_assert_uint_eq(kdsl_f32_to_f16(-INFINITY), 0xfc00);
	h = kdsl_f64_to_f16(NAN);
	ck_assert_uint_eq(h & 0x7c00, 0x7c00);
	ck_assert_uint_ne(h & 0x03ff, 0);
	ck_assert_uint_eq(h & 0x0200, 0x0200);                    /* quiet */
	h = kdsl_f64_to_f16(-NAN);
	ck_assert_uint_eq(h & 0x8000, 0x8000);                    /* sign kept */
	/* A signalling NaN with payload only in its low bits stays a NaN. */
	h = kdsl_f32_to_f16(from32(0x7f800001u));
	ck_assert_uint_eq(h & 0x7e00, 0x7e00);
	/* Top payload bits survive. */
	h = kdsl_f32_to_f16(from32(0x7fc0a000u));
	ck_assert_uint_eq(h, 0x7e05);
	ck_assert(isnan(kdsl_f16_to_f32(0x7e00)));
	ck_assert(isnan(kdsl_f16_to_f64(0xfd00)));
	ck_assert(isinf(kdsl_f16_to_f32(0x7c00)) && kdsl_f16_to_f32(0x7c00) > 0);
	ck_assert(isinf(kdsl_f16_to_f64(0xfc00)) && kdsl_f16_to_f64(0xfc00) < 0);
}
END_TEST

START_TEST(f16_subnormal_rounding)
{
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-25), 0x0000);      /* tie to even: 0 */
	ck_assert_uint_eq(kdsl_f64_to_f16(-0x1p-25), 0x8000);
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-25 + 0x1p-60), 0x0001);
	ck_assert_uint_eq(kdsl_f64_to_f16(3 * 0x1p-25), 0x0002);  /* tie to even: 2 */
	ck_assert_uint_eq(kdsl_f64_to_f16(5 * 0x1p-25), 0x0002);  /* tie to even: 2 */
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-26), 0x0000);
	ck_assert_uint_eq(kdsl_f64_to_f16(1e-300), 0x0000);
	/* Rounds up out of the subnormals into the smallest normal. */
	ck_assert_uint_eq(kdsl_f64_to_f16(0x1p-14 - 0x1p-26), 0x0400);
	ck_assert_uint_eq(kdsl_f32_to_f16(3 * 0x1p-25f), 0x0002);
	ck_assert_uint_eq(kdsl_f32_to_f16(0x1p-25f), 0x0000);
	ck_assert(kdsl_f16_to_f32(0x0001) == 0x1p-24f);
	ck_assert(kdsl_f16_to_f64(0x83ff) == -1023 * 0x1p-24);
}
END_TEST

START_TEST(f16_ties_and_binades)
{
	ck_assert_uint_eq(kdsl_f64_to_f16(1.0 + 0x1p-11), 0x3c00);     /* tie, down to even */
	ck_assert_uint_eq(kdsl_f64_to_f16(1.0 + 3 * 0x1p-11), 0x3c02); /* tie, up to even */
	ck_assert_uint_eq(kdsl_f64_to_f16(1.0 + 0x1p-11 + 0x1p-30), 0x3c01);
	ck_assert_uint_eq(kdsl_f64_to_f16(2047.5), 0x6800);             /* up into 2048 */
	ck_assert_uint_eq(kdsl_f64_to_f16(2.0 - 0x1p-12), 0x4000);
	ck_assert_uint_eq(kdsl_f64_to_f16(0.1), 0x2e66);
	ck_assert_uint_eq(kdsl_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
	ck_assert_uint_eq(kdsl_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
}
END_TEST

/* Rounding from double directly differs from rounding through float when
 * the float rounding lands exactly on an f16 tie. */
START_TEST(f16_no_double_rounding)
{
	double d = 1.0 + 0x1p-11 + 0x1p-40;

	ck_assert_uint_eq(kdsl_f64_to_f16(d), 0x3c01);
	ck_assert_uint_eq(kdsl_f32_to_f16((float)d), 0x3c00);
}
END_TEST

START_TEST(f16_round_trip_all)
{
	unsigned b;

	for (b = 0; b < 0x10000; b++) {
		uint16_t h = (uint16_t)b;
		float f = kdsl_f16_to_f32(h);
		double d = kdsl_f16_to_f64(h);

		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
			ck_assert(isnan(f) && isnan(d));
			ck_assert_uint_eq(kdsl_f32_to_f16(f) & 0x81ff, h & 0x81ff);
			continue;
		}
		ck_assert(d == (double)f);
		ck_assert_uint_eq(bits64(d) >> 63, h >> 15);
		ck_assert_uint_eq(kdsl_f32_to_f16(f), h);
		ck_assert_uint_eq(kdsl_f64_to_f16(d), h);
	}
}
END_TEST

/* The branch-free f16 -> f32 of generated code's lanes gives the bits of
 * the double conversion narrowed to float for every pattern: normals,
 * subnormals, zeros of both signs, infinities, and NaNs (quiet, payload
 * and sign kept, a signalling one made quiet).  The runtime's keeps a
 * signalling NaN signalling and is the same on every other pattern. */
START_TEST(f16_to_f32_inline_all)
{
	unsigned b;

	for (b = 0; b < 0x10000; b++) {
		uint16_t h = (uint16_t)b;
		volatile double d = kdsl_f16_to_f64(h);
		float want = (float)d, got = kdsl_h_f16_to_f32_quiet(h), raw = kdsl_h_f16_to_f32(h);
		uint32_t wb, gb, rb, rwant;

		memcpy(&wb, &want, 4);
		memcpy(&gb, &got, 4);
		memcpy(&rb, &raw, 4);
		if (wb != gb)
			ck_abort_msg("f16 0x%04x: 0x%08x, want 0x%08x", b, (unsigned)gb, (unsigned)wb);
		/* the payload moved up 13 bits and nothing set, for a NaN */
		rwant = (b & 0x7fffu) > 0x7c00u ? (b & 0x8000u) << 16 | 0x7f800000u | (b & 0x3ffu) << 13 : wb;
		if (rb != rwant)
			ck_abort_msg("f16 0x%04x (runtime's): 0x%08x, want 0x%08x", b, (unsigned)rb, (unsigned)rwant);
	}
	/* the cases named: a signalling NaN, a subnormal, -0 */
	ck_assert_float_eq(kdsl_h_f16_to_f32_quiet(0x0001), 0x1p-24f);
	ck_assert(signbit(kdsl_h_f16_to_f32_quiet(0x8000)) && kdsl_h_f16_to_f32_quiet(0x8000) == 0.0f);
	{
		float q = kdsl_h_f16_to_f32_quiet(0x7c01);
		uint32_t qb;
		memcpy(&qb, &q, 4);
		ck_assert_uint_eq(qb, 0x7fc02000u);
	}
}
END_TEST

/* Every midpoint between neighbouring halves rounds to the even one, and
 * anything a hair off it rounds to the nearer one. */
START_TEST(f16_midpoints)
{
	unsigned b;

	for (b = 0; b < 0x7bff; b++) {
		double lo = kdsl_f16_to_f64((uint16_t)b), hi = kdsl_f16_to_f64((uint16_t)(b + 1));
		double mid = (lo + hi) / 2;
		uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;

		ck_assert_uint_eq(kdsl_f64_to_f16(mid), even);
		ck_assert_uint_eq(kdsl_f64_to_f16(nextafter(mid, 0)), b);
		ck_assert_uint_eq(kdsl_f64_to_f16(nextafter(mid, INFINITY)), b + 1);
		ck_assert_uint_eq(kdsl_f32_to_f16((float)mid), even);
	}
}
END_TEST

START_TEST(bf16_basics)
{
	uint16_t h;

	ck_assert_uint_eq(kdsl_f32_to_bf16(1.0f), 0x3f80);
	ck_assert_uint_eq(kdsl_f32_to_bf16(-2.0f), 0xc000);
	ck_assert_uint_eq(kdsl_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);     /* tie, down to even */
	ck_assert_uint_eq(kdsl_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82); /* tie, up to even */
	ck_assert_uint_eq(kdsl_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
	ck_assert_uint_eq(kdsl_f32_to_bf16(from32(0x7f7fffffu)), 0x7f80); /* FLT_MAX -> inf */
	ck_assert_uint_eq(kdsl_f32_to_bf16(INFINITY), 0x7f80);
	ck_assert_uint_eq(kdsl_f32_to_bf16(-0.0f), 0x8000);
	h = kdsl_f32_to_bf16(from32(0x7f800001u));   /* NaN whose payload would round away */
	ck_assert_uint_eq(h & 0x7f80, 0x7f80);
	ck_assert_uint_ne(h & 0x7f, 0);
	ck_assert(isnan(kdsl_bf16_to_f32(h)));
	ck_assert(kdsl_bf16_to_f32(0x4049) == 3.140625f);
	ck_assert_uint_eq(bits32(kdsl_bf16_to_f32(0x3f80)), 0x3f800000u);
}
END_TEST

START_TEST(dtype_table)
{
	ck_assert_uint_eq(kdsl_dtype_size(KDSL_F16), 2);
	ck_assert_uint_eq(kdsl_dtype_size(KDSL_U64), 8);
	ck_assert_uint_eq(kdsl_dtype_size(KDSL_BOOL), 1);
	ck_assert_uint_eq(kdsl_dtype_size((kdsl_dtype)99), 0);
	ck_assert_str_eq(kdsl_dtype_name(KDSL_BF16), "bf16");
	ck_assert_str_eq(kdsl_dtype_name(KDSL_I32), "i32");
}
END_TEST

/* ------------------------------------------------------------- runtime */

START_TEST(rt_memories)
{
	kdsl_rt *a = kdsl_rt_create(KDSL_TARGET_ASCEND);
	kdsl_rt *n = kdsl_rt_create(KDSL_TARGET_NEURON);
	kdsl_rt *p = kdsl_rt_create(KDSL_TARGET_AIPU);
	size_t bytes = 1;
	unsigned char *ub;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(kdsl_rt_create((kdsl_target)0));
	ck_assert_ptr_null(kdsl_rt_create((kdsl_target)42));
	ck_assert_int_eq(kdsl_rt_target(a), KDSL_TARGET_ASCEND);
	ub = kdsl_rt_mem(a, KDSL_MEM_UB, &bytes);
	ck_assert_ptr_nonnull(ub);
	ck_assert_uint_eq(bytes, 256 * 1024);
	ck_assert_uint_eq((uintptr_t)ub % 64, 0);
	ck_assert_ptr_nonnull(kdsl_rt_mem(a, KDSL_MEM_L1, &bytes));
	ck_assert_uint_eq(bytes, 1024 * 1024);
	ck_assert_ptr_null(kdsl_rt_mem(a, KDSL_MEM_SBUF, &bytes));
	ck_assert_uint_eq(bytes, 0);
	ck_assert_ptr_null(kdsl_rt_mem(a, KDSL_MEM_GM, &bytes));
	ck_assert_ptr_nonnull(kdsl_rt_mem(n, KDSL_MEM_SBUF, &bytes));
	ck_assert_uint_eq(kdsl_rt_partition_bytes(n, KDSL_MEM_SBUF), 192 * 1024);
	/* partitions are padded apart by 65 cache lines (4160 bytes), never closer than their size */
	ck_assert_uint_eq(kdsl_rt_partition_stride(n, KDSL_MEM_SBUF), 192 * 1024 + 4160);
	ck_assert_uint_eq(bytes, (size_t)128 * kdsl_rt_partition_stride(n, KDSL_MEM_SBUF));
	ck_assert_ptr_nonnull(kdsl_rt_mem(n, KDSL_MEM_PSUM, &bytes));
	ck_assert_uint_eq(kdsl_rt_partition_bytes(n, KDSL_MEM_PSUM), 16 * 1024);
	ck_assert_uint_eq(kdsl_rt_partition_stride(n, KDSL_MEM_PSUM), 16 * 1024 + 4160);
	ck_assert_uint_eq(bytes, (size_t)128 * kdsl_rt_partition_stride(n, KDSL_MEM_PSUM));
	ck_assert_uint_eq(kdsl_rt_partition_bytes(a, KDSL_MEM_UB), 256 * 1024);
	ck_assert_uint_eq(kdsl_rt_partition_stride(a, KDSL_MEM_UB), 256 * 1024);
	ck_assert_ptr_null(kdsl_rt_mem(p, KDSL_MEM_UB, NULL));
	ck_assert_ptr_null(kdsl_rt_mem(p, KDSL_MEM_SBUF, NULL));
	kdsl_rt_destroy(a);
	kdsl_rt_destroy(n);
	kdsl_rt_destroy(p);
	kdsl_rt_destroy(NULL);
}
END_TEST

START_TEST(rt_garbage_fill)
{
	kdsl_rt *a = kdsl_rt_create(KDSL_TARGET_ASCEND);
	kdsl_rt *b = kdsl_rt_create(KDSL_TARGET_ASCEND);
	size_t n, i, zeros = 0;
	unsigned char *ub = kdsl_rt_mem(a, KDSL_MEM_UB, &n);

	for (i = 0; i < n; i++)
		zeros += ub[i] == 0;
	/* Garbage, not zeros: about 1/256 of the bytes may be 0 by chance. */
	ck_assert_uint_lt(zeros, n / 64);
	/* Deterministic: another runtime starts with the same bytes. */
	ck_assert_int_eq(memcmp(ub, kdsl_rt_mem(b, KDSL_MEM_UB, NULL), n), 0);
	kdsl_rt_destroy(a);
	kdsl_rt_destroy(b);
}
END_TEST

START_TEST(rt_errors)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	char big[3000];

	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	ck_assert_int_eq(kdsl_rt_fail(rt, &SITE, KDSL_ERR_RANGE, "burst must be in 1..65535, got %d", 0),
	                 KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:7:35: data_move: burst must be in 1..65535, got 0");
	/* the locus "t.k:7:35", so a caller can print it GCC's way */
	ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), 8);
	kdsl_rt_clear_error(rt);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), 0);
	/* An over-long message is truncated, never overflowed. */
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	kdsl_rt_fail(rt, &SITE, KDSL_ERR_ARG, "%s", big);
	ck_assert_uint_gt(strlen(kdsl_rt_last_error(rt)), 500);
	ck_assert_uint_lt(strlen(kdsl_rt_last_error(rt)), sizeof big - 1);
	ck_assert_int_eq(kdsl_rt_enter(rt, KDSL_TARGET_ASCEND, "k"), KDSL_ERR_TARGET);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "kernel 'k' is for target ascend but the runtime was created for neuron");
	ck_assert_int_eq(kdsl_rt_enter(rt, KDSL_TARGET_NEURON, "k"), KDSL_OK);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	ck_assert_int_eq(kdsl_rt_null_param(rt, "k", "src"), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "kernel 'k': parameter 'src' is NULL");
	ck_assert_uint_eq(kdsl_rt_last_error_locus(rt), 0);
	ck_assert_uint_eq(kdsl_rt_last_error_locus(NULL), 0);
	ck_assert_int_eq(kdsl_rt_enter(NULL, KDSL_TARGET_NEURON, "k"), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(NULL), "");
	/* the inline entry of generated kernels: clears the last error for a
	 * runtime of the target, and leaves every other case to kdsl_rt_enter */
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_NEURON), 1);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_ASCEND), 0);
	ck_assert_int_eq(kdsl_rt_try_enter(NULL, KDSL_TARGET_NEURON), 0);
	kdsl_rt_fail(rt, &SITE, KDSL_ERR_RANGE, "again");
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:7:35: data_move: again");
	ck_assert_int_eq(kdsl_rt_try_enter(rt, KDSL_TARGET_NEURON), 1);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	kdsl_rt_destroy(rt);
}
END_TEST

/* ----------------------------------------------------------- data_move */

static kdsl_rt *ascend(unsigned char **ub)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);

	ck_assert_ptr_nonnull(rt);
	*ub = kdsl_rt_mem(rt, KDSL_MEM_UB, NULL);
	return rt;
}

static void fill_f16_iota(uint16_t *p, int n, double scale)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = kdsl_f64_to_f16(i * scale);
}

/* Seed 001 example 1: 512 halves gm -> ub -> gm in one burst of 32 blocks. */
START_TEST(move_contiguous)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	uint16_t src[512], dst[512];

	fill_f16_iota(src, 512, 0.5);
	memset(dst, 0, sizeof dst);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 1024, KDSL_MEM_UB), 0,
	                                       kdsl_cref_of(src, sizeof src, KDSL_MEM_GM), 0,
	                                       0, 1, 32, 0, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(dst, sizeof dst, KDSL_MEM_GM), 0,
	                                       kdsl_cref_of(ub, 1024, KDSL_MEM_UB), 0,
	                                       0, 1, 32, 0, 0), KDSL_OK);
	ck_assert_int_eq(memcmp(src, dst, sizeof src), 0);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "");
	kdsl_rt_destroy(rt);
}
END_TEST

START_TEST(move_strided)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char src[12 * 32], dst[12 * 32];
	int k, i;

	for (i = 0; i < (int)sizeof src; i++)
		src[i] = (unsigned char)i;
	memset(dst, 0xee, sizeof dst);
	/* 3 bursts of 2 blocks: src skips 1 block between, dst skips 2. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(dst, sizeof dst, KDSL_MEM_GM), 32,
	                                       kdsl_cref_of(src, sizeof src, KDSL_MEM_GM), 0,
	                                       0, 3, 2, 1, 2), KDSL_ERR_ARG);   /* gm -> gm */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 12 * 32, KDSL_MEM_UB), 32,
	                                       kdsl_cref_of(src, sizeof src, KDSL_MEM_GM), 0,
	                                       0, 3, 2, 1, 2), KDSL_OK);
	memcpy(dst, ub, sizeof dst);
	for (k = 0; k < 3; k++)
		for (i = 0; i < 64; i++)
			ck_assert_uint_eq(dst[32 + k * 128 + i], src[k * 96 + i]);
	/* The gaps between destination bursts keep the old ub contents. */
	{
		kdsl_rt *fresh = kdsl_rt_create(KDSL_TARGET_ASCEND);
		unsigned char *ub0 = kdsl_rt_mem(fresh, KDSL_MEM_UB, NULL);

		ck_assert_int_eq(memcmp(dst + 96, ub0 + 96, 64), 0);
		ck_assert_int_eq(memcmp(dst, ub0, 32), 0);
		kdsl_rt_destroy(fresh);
	}
	kdsl_rt_destroy(rt);
}
END_TEST

/* Seed 001 example 2: 23 halves 0..22 move to ub in two overlapping
 * 32-byte bursts, double with vec_add, and come back the same way; the
 * bytes after the 23rd element are never touched. */
START_TEST(move_unaligned_example)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	uint16_t src_gm[23], dst_host[32];
	kdsl_ref src_ub = kdsl_ref_of(ub, 64, KDSL_MEM_UB);
	kdsl_ref dst_ub = kdsl_ref_of(ub + 64, 64, KDSL_MEM_UB);
	kdsl_ref dst_gm = kdsl_ref_of(dst_host, 46, KDSL_MEM_GM);
	int i;

	fill_f16_iota(src_gm, 23, 1.0);
	for (i = 0; i < 32; i++)
		dst_host[i] = 0xabcd;
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(32), src_ub, 0, 0.0, 1, 1), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(32), dst_ub, 0, 0.0, 1, 1), KDSL_OK);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, src_ub, i * 16 * 2,
		                                       kdsl_cref_of(src_gm, sizeof src_gm, KDSL_MEM_GM),
		                                       i * (23 - 16) * 2, 0, 1, 1, 0, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(32), dst_ub, 0,
	                                     kdsl_cref_of(src_ub.base, 64, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(src_ub.base, 64, KDSL_MEM_UB), 0,
	                                     1, 1, 1, 1), KDSL_OK);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, dst_gm, i * (23 - 16) * 2,
		                                       kdsl_cref_of(dst_ub.base, 64, KDSL_MEM_UB),
		                                       i * 16 * 2, 0, 1, 1, 0, 0), KDSL_OK);
	for (i = 0; i < 23; i++)
		ck_assert(kdsl_f16_to_f64(dst_host[i]) == 2.0 * i);
	for (i = 23; i < 32; i++)
		ck_assert_uint_eq(dst_host[i], 0xabcd);
	kdsl_rt_destroy(rt);
}
END_TEST

/* Each rejected argument: the code, a message naming rule and value, and
 * not one byte written. */
static void expect_move_error(int64_t dst_off, int64_t src_off, int64_t sid, int64_t nburst,
                              int64_t burst, int64_t ss, int64_t ds, int code, const char *msg)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char src[100], before[4096];
	char full[512];

	memset(src, 7, sizeof src);
	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 4096, KDSL_MEM_UB), dst_off,
	                                       kdsl_cref_of(src, sizeof src, KDSL_MEM_GM), src_off,
	                                       sid, nburst, burst, ss, ds), code);
	snprintf(full, sizeof full, "t.k:7:35: data_move: %s", msg);
	ck_assert_str_eq(kdsl_rt_last_error(rt), full);
	ck_assert_int_eq(memcmp(before, ub, sizeof before), 0);
	kdsl_rt_destroy(rt);
}

START_TEST(move_range_errors)
{
	expect_move_error(0, 0, -1, 1, 1, 0, 0, KDSL_ERR_RANGE, "sid must be in 0..15, got -1");
	expect_move_error(0, 0, 16, 1, 1, 0, 0, KDSL_ERR_RANGE, "sid must be in 0..15, got 16");
	expect_move_error(0, 0, 0, 0, 1, 0, 0, KDSL_ERR_RANGE, "nburst must be in 1..4095, got 0");
	expect_move_error(0, 0, 0, 4096, 1, 0, 0, KDSL_ERR_RANGE, "nburst must be in 1..4095, got 4096");
	expect_move_error(0, 0, 0, 1, 0, 0, 0, KDSL_ERR_RANGE, "burst must be in 1..65535, got 0");
	expect_move_error(0, 0, 0, 1, 65536, 0, 0, KDSL_ERR_RANGE, "burst must be in 1..65535, got 65536");
	expect_move_error(0, 0, 0, 1, 1, -1, 0, KDSL_ERR_RANGE, "src_stride must be in 0..65535, got -1");
	expect_move_error(0, 0, 0, 1, 1, 0, 65536, KDSL_ERR_RANGE,
	                  "dst_stride must be in 0..65535, got 65536");
	expect_move_error(0, 0, 0, 1, INT64_MIN, 0, 0, KDSL_ERR_RANGE,
	                  "burst must be in 1..65535, got -9223372036854775808");
}
END_TEST

START_TEST(move_align_and_bounds_errors)
{
	/* ub offsets must be 32-byte aligned; gm offsets need not be. */
	expect_move_error(18, 0, 0, 1, 1, 0, 0, KDSL_ERR_ALIGN,
	                  "dst address in ub must be 32-byte aligned, got byte offset 18");
	/* Burst 3 of 1 block each at src offset 4: bytes 100..131 of 100. */
	expect_move_error(0, 4, 0, 4, 1, 0, 0, KDSL_ERR_BOUNDS,
	                  "src burst 3 reads bytes 100..131 outside the tensor of 100 bytes");
	expect_move_error(0, 0, 0, 2, 1, 2, 0, KDSL_ERR_BOUNDS,
	                  "src burst 1 reads bytes 96..127 outside the tensor of 100 bytes");
	expect_move_error(0, 80, 0, 1, 1, 0, 0, KDSL_ERR_BOUNDS,
	                  "src burst 0 reads bytes 80..111 outside the tensor of 100 bytes");
	expect_move_error(0, 0, 0, 4, 1, 0, 0, KDSL_ERR_BOUNDS,
	                  "src burst 3 reads bytes 96..127 outside the tensor of 100 bytes");
}
END_TEST

START_TEST(move_more_errors)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char gm[256], l1host[64];
	size_t l1n;
	unsigned char *l1 = kdsl_rt_mem(rt, KDSL_MEM_L1, &l1n);

	memset(gm, 1, sizeof gm);
	/* dst bounds: the second burst would write past 4096 bytes of ub. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 4096, KDSL_MEM_UB), 4064,
	                                       kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM), 0,
	                                       0, 2, 1, 0, 0), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: dst burst 1 writes bytes 4096..4127 outside the tensor of 4096 bytes");
	/* Offsets: negative, and absurdly large without overflow. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 4096, KDSL_MEM_UB), 0,
	                                       kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM), -2,
	                                       0, 1, 1, 0, 0), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: src offset must be >= 0, got byte offset -2");
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(gm, sizeof gm, KDSL_MEM_GM),
	                                       INT64_MAX, kdsl_cref_of(ub, 4096, KDSL_MEM_UB), 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: dst burst 0 writes bytes 9223372036854775807..9223372036854775838"
	                 " outside the tensor of 256 bytes");
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 4096, KDSL_MEM_UB), 0,
	                                       kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM), INT64_MAX,
	                                       15, 4095, 65535, 65535, 65535), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "src burst 0 reads bytes 9223372036854775807.."));
	/* Scope pairs outside Table 2. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 4096, KDSL_MEM_UB), 0,
	                                       kdsl_cref_of(l1, l1n, KDSL_MEM_L1), 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "cannot move from l1 to ub"));
	/* l1 is aligned like ub; a tensor placed at an odd l1 address is named. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(l1 + 16, 64, KDSL_MEM_L1), 0,
	                                       kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM), 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ALIGN);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: dst address in l1 must be 32-byte aligned, got l1 address 16"
	                 " (tensor at 16, byte offset 0)");
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(l1, 64, KDSL_MEM_L1), 0,
	                                       kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM), 0,
	                                       0, 1, 2, 0, 0), KDSL_OK);
	ck_assert_int_eq(memcmp(l1, gm, 64), 0);
	/* NULL tensors. */
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(NULL, 64, KDSL_MEM_GM), 0,
	                                       kdsl_cref_of(l1, 64, KDSL_MEM_L1), 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:7:35: data_move: dst tensor is NULL");
	ck_assert_int_eq(kdsl_ascend_data_move(NULL, &SITE, kdsl_ref_of(l1host, 64, KDSL_MEM_GM), 0,
	                                       kdsl_cref_of(l1, 64, KDSL_MEM_L1), 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	kdsl_rt_destroy(rt);
}
END_TEST

/* An on-chip operand must lie inside the runtime's memory: its size
 * cannot be trusted otherwise (fuzz/regress/rt).  The boundary: a ub
 * tensor that ends at the last byte of ub is accepted. */
START_TEST(onchip_operand_outside_memory)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	size_t ubn;
	static unsigned char host[4096], gm[64];
	kdsl_rt_mem(rt, KDSL_MEM_UB, &ubn);
	kdsl_cref src = kdsl_cref_of(gm, sizeof gm, KDSL_MEM_GM);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(host, sizeof host, KDSL_MEM_UB), 0, src, 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: dst tensor of 4096 bytes is not in this runtime's ub");
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub + ubn - 64, 96, KDSL_MEM_UB), 0, src, 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub + ubn - 64, SIZE_MAX, KDSL_MEM_UB), 0, src,
	                                       0, 0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &SITE, KDSL_F32, kdsl_ascend_mask_count(8),
	                                     kdsl_ref_of(host, sizeof host, KDSL_MEM_UB), 0, 1.0, 1, 1), KDSL_ERR_ARG);
	/* the inline paths refuse them as the library does */
	ck_assert_int_eq(kdsl_ascend_data_move_fast(rt, &SITE, kdsl_ref_of(host, sizeof host, KDSL_MEM_UB), 0, src,
	                                            0, 0, 1, 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_vec_dup_fast(rt, &SITE, KDSL_F32, kdsl_ascend_mask_count(8),
	                                          kdsl_ref_of(host, sizeof host, KDSL_MEM_UB), 0, 0.0, 1, 1),
	                 KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_vec_dup_fast(rt, &SITE, KDSL_F32, kdsl_ascend_mask_count(8),
	                                          kdsl_ref_of(ub + ubn - 32, 64, KDSL_MEM_UB), 0, 0.0, 1, 1),
	                 KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub + ubn - 64, 64, KDSL_MEM_UB), 32, src, 0,
	                                       0, 1, 1, 0, 0), KDSL_OK);
	ck_assert_int_eq(memcmp(ub + ubn - 32, gm, 32), 0);
	/* a neuron runtime has no ub at all */
	kdsl_rt *nrt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_int_eq(kdsl_ascend_data_move(nrt, &SITE, kdsl_ref_of(ub, 64, KDSL_MEM_UB), 0, src, 0,
	                                       0, 1, 1, 0, 0), KDSL_ERR_ARG);
	kdsl_rt_destroy(nrt);
	kdsl_rt_destroy(rt);
}
END_TEST

/* A strided move whose last burst is out of bounds writes nothing, not
 * even its first bursts. */
START_TEST(move_all_or_nothing)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char src[8 * 32], dst[200];

	memset(src, 5, sizeof src);
	memset(dst, 9, sizeof dst);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(dst, sizeof dst, KDSL_MEM_GM), 0,
	                                       kdsl_cref_of(ub, 8 * 32, KDSL_MEM_UB), 0,
	                                       0, 4, 1, 1, 1), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:7:35: data_move: dst burst 3 writes bytes 192..223 outside the tensor of 200 bytes");
	ck_assert_uint_eq(dst[0], 9);
	ck_assert_uint_eq(dst[64], 9);
	(void)src;
	kdsl_rt_destroy(rt);
}
END_TEST

/* ub -> ub moves between overlapping ranges behave like memmove, burst by
 * burst. */
START_TEST(move_overlap)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char want[160];
	int i;

	for (i = 0; i < 160; i++)
		ub[i] = (unsigned char)i;
	/* Contiguous, dst one block after src: the bursts in order, so each
	 * copies the block the previous one wrote and block 0 fills 1..4. */
	memcpy(want, ub, 32);
	for (i = 1; i < 5; i++)
		memcpy(want + 32 * i, ub, 32);
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 160, KDSL_MEM_UB), 32,
	                                       kdsl_cref_of(ub, 160, KDSL_MEM_UB), 0,
	                                       0, 4, 1, 0, 0), KDSL_OK);
	ck_assert_int_eq(memcmp(ub, want, 160), 0);
	/* Strided, in order: burst 0 copies block 0 to block 2, then burst 1
	 * copies block 2 (now block 0's bytes) to block 4. */
	for (i = 0; i < 160; i++)
		ub[i] = (unsigned char)i;
	ck_assert_int_eq(kdsl_ascend_data_move(rt, &SITE, kdsl_ref_of(ub, 160, KDSL_MEM_UB), 64,
	                                       kdsl_cref_of(ub, 160, KDSL_MEM_UB), 0,
	                                       0, 2, 1, 1, 1), KDSL_OK);
	for (i = 0; i < 32; i++) {
		ck_assert_uint_eq(ub[64 + i], i);
		ck_assert_uint_eq(ub[128 + i], i);
		ck_assert_uint_eq(ub[32 + i], 32 + i);   /* the gap: untouched */
	}
	kdsl_rt_destroy(rt);
}
END_TEST

/* The inline fast path generated code calls must do exactly what the
 * library entry does, on success and on every error: random calls (most
 * of them contiguous, many of them breaking a rule) run on two runtimes
 * with the same initial memory, one through each entry, and must give
 * the same return code, error text and bytes everywhere. */
typedef struct {
	kdsl_rt *rt;
	unsigned char *mem[4];   /* indexed by kdsl_mem: gm (host), ub, l1 */
	size_t bytes[4];         /* calls reach only the first 8 KiB of each */
} move_world;

static void world_init(move_world *w, unsigned char *gm, size_t gm_bytes)
{
	w->rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	ck_assert_ptr_nonnull(w->rt);
	w->mem[KDSL_MEM_GM] = gm;
	w->bytes[KDSL_MEM_GM] = gm_bytes;
	w->mem[KDSL_MEM_UB] = kdsl_rt_mem(w->rt, KDSL_MEM_UB, &w->bytes[KDSL_MEM_UB]);
	w->mem[KDSL_MEM_L1] = kdsl_rt_mem(w->rt, KDSL_MEM_L1, &w->bytes[KDSL_MEM_L1]);
}

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

START_TEST(move_fast_agrees)
{
	static unsigned char gm0[8192], gm1[8192];
	static const int64_t odd[] = {-1, 0, 16, 4096, 65536};
	move_world w[2];
	uint64_t x = 0x9e3779b97f4a7c15u;
	int call, k, nok = 0, nstrided = 0, nub = 0;

	for (k = 0; k < 8192; k++)
		gm0[k] = gm1[k] = (unsigned char)(k * 7 + 3);
	world_init(&w[0], gm0, sizeof gm0);
	world_init(&w[1], gm1, sizeof gm1);
	for (call = 0; call < 20000; call++) {
		/* memories 1..3 (gm, ub, l1), 4 sometimes: a pair no table allows */
		kdsl_mem dm = (kdsl_mem)(1 + next_rand(&x) % 4), sm = (kdsl_mem)(1 + next_rand(&x) % 4);
		int64_t at_d = (int64_t)(next_rand(&x) % 64) * (next_rand(&x) % 4 ? 32 : 8);
		int64_t at_s = (int64_t)(next_rand(&x) % 64) * (next_rand(&x) % 4 ? 32 : 8);
		int64_t tb_d = 2048 - (int64_t)(next_rand(&x) % 3) * 512, tb_s = 2048 - (int64_t)(next_rand(&x) % 3) * 512;
		int64_t doff = (int64_t)(next_rand(&x) % 48) * (next_rand(&x) % 5 ? 32 : 12);
		int64_t soff = (int64_t)(next_rand(&x) % 48) * (next_rand(&x) % 5 ? 32 : 12);
		int64_t sid = next_rand(&x) % 9 ? 0 : odd[next_rand(&x) % 5];
		int64_t nburst = next_rand(&x) % 9 ? (int64_t)(1 + next_rand(&x) % 4) : odd[next_rand(&x) % 5];
		int64_t burst = next_rand(&x) % 9 ? (int64_t)(1 + next_rand(&x) % 12) : odd[next_rand(&x) % 5];
		int64_t ss = next_rand(&x) % 4 ? 0 : (int64_t)(next_rand(&x) % 3);
		int64_t ds = next_rand(&x) % 4 ? 0 : (int64_t)(next_rand(&x) % 3);
		int null_side = next_rand(&x) % 50 == 0 ? 1 + (int)(next_rand(&x) % 2) : 0;
		int rc[2], i;

		if (next_rand(&x) % 20 == 0)
			doff = -32;
		for (i = 0; i < 2; i++) {
			unsigned char *db = dm <= KDSL_MEM_L1 ? w[i].mem[dm] + at_d : w[i].mem[KDSL_MEM_GM];
			unsigned char *sb = sm <= KDSL_MEM_L1 ? w[i].mem[sm] + at_s : w[i].mem[KDSL_MEM_GM];
			kdsl_ref d = kdsl_ref_of(null_side == 1 ? NULL : db, (size_t)tb_d, dm);
			kdsl_cref s = kdsl_cref_of(null_side == 2 ? NULL : sb, (size_t)tb_s, sm);
			rc[i] = (i ? kdsl_ascend_data_move_fast : kdsl_ascend_data_move)(w[i].rt, &SITE, d, doff, s, soff,
			                                                                 sid, nburst, burst, ss, ds);
		}
		ck_assert_msg(rc[0] == rc[1], "call %d: rc %d (library) vs %d (fast)", call, rc[0], rc[1]);
		nok += rc[0] == KDSL_OK;
		nstrided += rc[0] == KDSL_OK && (ss || ds) && nburst > 1;
		nub += rc[0] == KDSL_OK && sm == KDSL_MEM_UB && dm == KDSL_MEM_UB;
		ck_assert_str_eq(kdsl_rt_last_error(w[0].rt), kdsl_rt_last_error(w[1].rt));
		for (k = KDSL_MEM_GM; k <= KDSL_MEM_L1; k++)
			ck_assert_msg(memcmp(w[0].mem[k], w[1].mem[k], 8192) == 0, "call %d: memory %d differs",
			              call, k);
	}
	/* contiguous and strided successes, ub to ub ones (which may overlap
	 * and then take the library's path), and errors all occurred */
	ck_assert_int_gt(nok - nstrided, 500);
	ck_assert_int_gt(nstrided, 150);
	ck_assert_int_gt(nub, 100);
	ck_assert_int_gt(call - nok, 10000);
	kdsl_rt_destroy(w[0].rt);
	kdsl_rt_destroy(w[1].rt);
}
END_TEST

/* ------------------------------------------------------------- vec ops */

START_TEST(vec_dup_values)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref r = kdsl_ref_of(ub, 1024, KDSL_MEM_UB);
	uint16_t h[128];
	uint32_t w[64];
	float f[64];
	int i;

	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(128), r, 0, 1.5, 1, 8), KDSL_OK);
	memcpy(h, ub, sizeof h);
	for (i = 0; i < 128; i++)
		ck_assert_uint_eq(h[i], 0x3e00);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_I16, MASK(4), r, 0, -1.7, 1, 0), KDSL_OK);
	memcpy(h, ub, 16);
	ck_assert_uint_eq(h[0], 0xffff);
	ck_assert_uint_eq(h[3], 0xffff);
	ck_assert_uint_eq(h[4], 0x3e00);   /* past the mask: untouched */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_U16, MASK(1), r, 0, 70000.9, 1, 0), KDSL_OK);
	memcpy(h, ub, 2);
	ck_assert_uint_eq(h[0], 70000 - 65536);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_I32, MASK(2), r, 0, 1e20, 1, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_U32, MASK(2), r, 32, -1e20, 1, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_I32, MASK(1), r, 64, NAN, 1, 0), KDSL_OK);
	memcpy(w, ub, 4);
	ck_assert_uint_eq(w[0], 1661992960u);   /* 10^20 mod 2^32 */
	memcpy(w, ub + 32, 4);
	ck_assert_uint_eq(w[0], 2632974336u);   /* -10^20 mod 2^32 */
	memcpy(w, ub + 64, 4);
	ck_assert_uint_eq(w[0], 0);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, MASK(64), r, 0, 0.1, 1, 0), KDSL_OK);
	memcpy(f, ub, sizeof f);
	ck_assert(f[0] == 0.1f && f[63] == 0.1f);
	kdsl_rt_destroy(rt);
}
END_TEST

START_TEST(vec_dup_repeats)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char before[512];
	uint16_t h[256];
	int r, i;

	memcpy(before, ub, sizeof before);
	/* 3 repeats of 16 halves (one block), 2 blocks apart. */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(16), kdsl_ref_of(ub, 512, KDSL_MEM_UB),
	                                     32, 2.0, 3, 2), KDSL_OK);
	memcpy(h, ub, sizeof h);
	for (r = 0; r < 3; r++)
		for (i = 0; i < 16; i++)
			ck_assert_uint_eq(h[16 + r * 32 + i], 0x4000);
	ck_assert_int_eq(memcmp(ub, before, 32), 0);
	ck_assert_int_eq(memcmp(ub + 64, before + 64, 32), 0);
	ck_assert_int_eq(memcmp(ub + 224, before + 224, 512 - 224), 0);
	/* Repeats one after the other (one block each, stride 1): one run,
	 * filled by doubling; 5 repeats, not a power of two, end at byte 192. */
	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(16), kdsl_ref_of(ub, 512, KDSL_MEM_UB),
	                                     32, -1.5, 5, 1), KDSL_OK);
	memcpy(h, ub, sizeof h);
	for (i = 16; i < 96; i++)
		ck_assert_uint_eq(h[i], 0xbe00);
	ck_assert_int_eq(memcmp(ub, before, 32), 0);
	ck_assert_int_eq(memcmp(ub + 192, before + 192, 512 - 192), 0);
	/* The same with 0.0 (every byte 0: a memset) and with -0.0 in f32
	 * (bytes 00 00 00 80: not one byte repeated). */
	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, MASK(8), kdsl_ref_of(ub, 512, KDSL_MEM_UB),
	                                     64, 0.0, 3, 1), KDSL_OK);
	for (i = 64; i < 160; i++)
		ck_assert_uint_eq(ub[i], 0);
	ck_assert_int_eq(memcmp(ub, before, 64), 0);
	ck_assert_int_eq(memcmp(ub + 160, before + 160, 512 - 160), 0);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, MASK(8), kdsl_ref_of(ub, 512, KDSL_MEM_UB),
	                                     64, -0.0, 3, 1), KDSL_OK);
	for (i = 64; i < 160; i++)
		ck_assert_uint_eq(ub[i], i % 4 == 3 ? 0x80 : 0);
	ck_assert_int_eq(memcmp(ub + 160, before + 160, 512 - 160), 0);
	/* repeat_times 0 writes nothing. */
	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(16), kdsl_ref_of(ub, 512, KDSL_MEM_UB),
	                                     0, 5.0, 0, 1), KDSL_OK);
	ck_assert_int_eq(memcmp(ub, before, sizeof before), 0);
	kdsl_rt_destroy(rt);
}
END_TEST

START_TEST(vec_dup_errors)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref r = kdsl_ref_of(ub, 256, KDSL_MEM_UB);
	unsigned char gm[256], before[512];

	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, MASK(65), r, 0, 1, 1, 1), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:8:5: vec_dup: mask must be in 1..64 for f32, got 65");
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(0), r, 0, 1, 1, 1), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_I8, MASK(1), r, 0, 1, 1, 1), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "dtype must be one of i16, u16, i32, u32, f16, f32, got i8"));
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(1), r, 0, 1, 256, 1), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "repeat_times must be in 0..255, got 256"));
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(1), r, 0, 1, 1, -1), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "dst_rep_stride must be in 0..255, got -1"));
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(1), r, 2, 1, 1, 1), KDSL_ERR_ALIGN);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(1), kdsl_ref_of(gm, 256, KDSL_MEM_GM),
	                                     0, 1, 1, 1), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:8:5: vec_dup: dst must be in ub, got gm");
	/* Repeat 1 of 128 halves, 8 blocks after repeat 0, leaves 256 bytes. */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, MASK(128), r, 0, 1, 2, 8), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:8:5: vec_dup: dst repeat 1 writes bytes 256..511 outside the tensor of 256 bytes");
	ck_assert_int_eq(memcmp(ub, before, sizeof before), 0);
	kdsl_rt_destroy(rt);
}
END_TEST

static void put16(unsigned char *ub, int idx, uint16_t v)
{
	memcpy(ub + 2 * idx, &v, 2);
}

static uint16_t get16(const unsigned char *ub, int idx)
{
	uint16_t v;
	memcpy(&v, ub + 2 * idx, 2);
	return v;
}

/* vec_dup's inline zero fill against the library entry, as for data_move:
 * random calls, many of them zero fills over adjacent repeats, many
 * breaking a rule, on two runtimes with the same memory. */
START_TEST(vec_dup_fast_agrees)
{
	static const kdsl_dtype dts[] = {KDSL_I16, KDSL_U16, KDSL_F16, KDSL_I32, KDSL_U32, KDSL_F32, KDSL_I8,
	                                 KDSL_F16};
	static const double vals[] = {0.0, 0.0, 0.0, -0.0, 1.0};
	kdsl_rt *rt[2];
	unsigned char *ub[2];
	uint64_t x = 0x2545f4914f6cdd1du;
	int call, i, nzero = 0, nerr = 0;

	for (i = 0; i < 2; i++) {
		rt[i] = kdsl_rt_create(KDSL_TARGET_ASCEND);
		ck_assert_ptr_nonnull(rt[i]);
		ub[i] = kdsl_rt_mem(rt[i], KDSL_MEM_UB, NULL);
	}
	for (call = 0; call < 20000; call++) {
		kdsl_dtype dt = dts[next_rand(&x) % 8];
		int64_t size = dt == KDSL_I32 || dt == KDSL_U32 || dt == KDSL_F32 ? 4 : 2;
		int64_t mask = next_rand(&x) % 4 ? 16 * (int64_t)(1 + next_rand(&x) % 8) / size * 2
		                                 : (int64_t)(next_rand(&x) % 140);
		int64_t rep = (int64_t)(next_rand(&x) % 12) - (next_rand(&x) % 10 == 0 ? 3 : 0);
		int64_t stride = next_rand(&x) % 3 ? mask * size / 32 : (int64_t)(next_rand(&x) % 10);
		int64_t off = (int64_t)(next_rand(&x) % 64) * (next_rand(&x) % 6 ? 32 : 12);
		size_t bytes = 1024 + 512 * (size_t)(next_rand(&x) % 4);
		kdsl_mem mem = next_rand(&x) % 12 ? KDSL_MEM_UB : KDSL_MEM_L1;
		double v = vals[next_rand(&x) % 5];
		int rc[2];

		if (next_rand(&x) % 30 == 0)
			stride = (int64_t)1 << 62;   /* far outside: no overflow on the way to the error */
		for (i = 0; i < 2; i++)
			rc[i] = (i ? kdsl_ascend_vec_dup_fast : kdsl_ascend_vec_dup)(rt[i], &DSITE, dt, MASK(mask),
			                                                           kdsl_ref_of(ub[i], bytes, mem), off,
			                                                           v, rep, stride);
		ck_assert_msg(rc[0] == rc[1], "call %d: rc %d (library) vs %d (fast)", call, rc[0], rc[1]);
		ck_assert_str_eq(kdsl_rt_last_error(rt[0]), kdsl_rt_last_error(rt[1]));
		ck_assert_msg(memcmp(ub[0], ub[1], 8192) == 0, "call %d: ub differs", call);
		nzero += rc[0] == KDSL_OK && v == 0.0 && stride <= 255 && stride * 32 == mask * size;
		nerr += rc[0] != KDSL_OK;
	}
	ck_assert_int_gt(nzero, 2000);
	ck_assert_int_gt(nerr, 8000);
	for (i = 0; i < 2; i++)
		kdsl_rt_destroy(rt[i]);
}
END_TEST

START_TEST(vec_add_f16_rounding)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub + 256, 64, KDSL_MEM_UB);
	kdsl_cref a = kdsl_cref_of(ub, 64, KDSL_MEM_UB), b = kdsl_cref_of(ub + 64, 64, KDSL_MEM_UB);
	static const uint16_t x[6] = {0x3c00, 0x3c00, 0x7bff, 0x3c00, 0x0001, 0x7c00};
	static const uint16_t y[6] = {0x1000, 0x1600, 0x4c00, 0xbc00, 0x8001, 0xfc00};
	/* 1 + 2^-11 ties down to 1; 1 + 3*2^-11 ties up to 1 + 2^-9;
	 * 65504 + 16 ties to inf; 1 - 1 = +0; 2^-24 - 2^-24 = +0; inf - inf NaN. */
	int i;

	for (i = 0; i < 6; i++) {
		put16(ub, i, x[i]);
		put16(ub + 64, i, y[i]);
	}
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(6), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x3c00);
	ck_assert_uint_eq(get16(ub + 256, 1), 0x3c02);
	ck_assert_uint_eq(get16(ub + 256, 2), 0x7c00);
	ck_assert_uint_eq(get16(ub + 256, 3), 0x0000);
	ck_assert_uint_eq(get16(ub + 256, 4), 0x0000);
	ck_assert_uint_eq(get16(ub + 256, 5) & 0x7e00, 0x7e00);
	kdsl_rt_destroy(rt);
}
END_TEST

/* vec_sub, vec_mul, vec_max, vec_min: vec_add's rules, their own values
 * (f16 exact then rounded once, i32 wrapping, NaN winning max/min). */
START_TEST(vec_binary_values)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub + 256, 64, KDSL_MEM_UB);
	kdsl_cref a = kdsl_cref_of(ub, 64, KDSL_MEM_UB), b = kdsl_cref_of(ub + 64, 64, KDSL_MEM_UB);
	int32_t w[3] = {INT32_MIN, 65536, 3}, v[3] = {1, 65536, -4}, r[3];
	float f[2] = {NAN, 1.0f}, g[2] = {2.0f, NAN}, fr[2];

	/* f16: 1 - 2^-11 is exact; 1.5 * 1.5 = 2.25 */
	put16(ub, 0, 0x3c00);
	put16(ub + 64, 0, 0x1000);
	put16(ub, 1, 0x3e00);
	put16(ub + 64, 1, 0x3e00);
	ck_assert_int_eq(kdsl_ascend_vec_sub(rt, &VSITE, KDSL_F16, MASK(1), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x3bff);
	ck_assert_int_eq(kdsl_ascend_vec_mul(rt, &VSITE, KDSL_F16, MASK(2), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 1), 0x4080);
	/* i32: sub and mul wrap, max and min are signed */
	memcpy(ub, w, 12);
	memcpy(ub + 64, v, 12);
	ck_assert_int_eq(kdsl_ascend_vec_sub(rt, &VSITE, KDSL_I32, MASK(3), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(r, ub + 256, 12);
	ck_assert_int_eq(r[0], INT32_MAX);
	ck_assert_int_eq(kdsl_ascend_vec_mul(rt, &VSITE, KDSL_I32, MASK(3), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(r, ub + 256, 12);
	ck_assert_int_eq(r[1], 0);
	ck_assert_int_eq(r[2], -12);
	ck_assert_int_eq(kdsl_ascend_vec_max(rt, &VSITE, KDSL_I32, MASK(3), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(r, ub + 256, 12);
	ck_assert_int_eq(r[0], 1);
	ck_assert_int_eq(r[2], 3);
	ck_assert_int_eq(kdsl_ascend_vec_min(rt, &VSITE, KDSL_I32, MASK(3), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(r, ub + 256, 12);
	ck_assert_int_eq(r[0], INT32_MIN);
	ck_assert_int_eq(r[2], -4);
	/* f32: a NaN operand wins either way */
	memcpy(ub, f, 8);
	memcpy(ub + 64, g, 8);
	ck_assert_int_eq(kdsl_ascend_vec_max(rt, &VSITE, KDSL_F32, MASK(2), d, 0, a, 0, b, 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(fr, ub + 256, 8);
	ck_assert(fr[0] != fr[0] && fr[1] != fr[1]);
	/* the rules are vec_add's: i16 is not listed */
	ck_assert_int_eq(kdsl_ascend_vec_min(rt, &VSITE, KDSL_I16, MASK(2), d, 0, a, 0, b, 0, 1, 0, 0, 0),
	                 KDSL_ERR_RANGE);
	kdsl_rt_destroy(rt);
}
END_TEST

/* The one-source ops: the scalar rounded to the dtype first, the exact
 * value rounded once, vec_add's rules with one source. */
START_TEST(vec_one_values)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub + 256, 64, KDSL_MEM_UB);
	kdsl_cref a = kdsl_cref_of(ub, 64, KDSL_MEM_UB);

	put16(ub, 0, 0x3c00);   /* 1.0 */
	put16(ub, 1, 0x8000);   /* -0.0 */
	put16(ub, 2, 0xbc00);   /* -1.0 */
	/* 1 + f16(0.1) = 1 + 0.0999755859375, rounded: 0x3c66 */
	ck_assert_int_eq(kdsl_ascend_vec_adds(rt, &VSITE, KDSL_F16, MASK(1), d, 0, a, 0, 0.1, 1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x3c66);
	ck_assert_int_eq(kdsl_ascend_vec_relu(rt, &VSITE, KDSL_F16, MASK(3), d, 0, a, 0, 1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x3c00);
	ck_assert_uint_eq(get16(ub + 256, 1), 0x0000);
	ck_assert_uint_eq(get16(ub + 256, 2), 0x0000);
	ck_assert_int_eq(kdsl_ascend_vec_rec(rt, &VSITE, KDSL_F16, MASK(2), d, 0, a, 0, 1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 1), 0xfc00);   /* 1/-0 = -inf */
	ck_assert_int_eq(kdsl_ascend_vec_exp(rt, &VSITE, KDSL_F16, MASK(1), d, 0, a, 0, 1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x4170);   /* e = 2.71875 in f16 */
	ck_assert_int_eq(kdsl_ascend_vec_ln(rt, &VSITE, KDSL_F16, MASK(1), d, 0, a, 0, 1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub + 256, 0), 0x0000);
	/* vec_relu is f16 only; src shifted by one block inside a repeat overlaps */
	ck_assert_int_eq(kdsl_ascend_vec_relu(rt, &VSITE, KDSL_F32, MASK(3), d, 0, a, 0, 1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_abs(rt, &VSITE, KDSL_F16, MASK(32), kdsl_ref_of(ub, 256, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 256, KDSL_MEM_UB), 32, 1, 0, 0), KDSL_ERR_ARG);
	kdsl_rt_destroy(rt);
}
END_TEST

/* vec_conv: the page's pairs and modes, the mask of the wider dtype,
 * in place at one address, and the overlap rules across element sizes. */
START_TEST(vec_conv_rules)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub + 1024, 1024, KDSL_MEM_UB), w = kdsl_ref_of(ub, 1024, KDSL_MEM_UB);
	kdsl_cref a = kdsl_cref_of(ub, 1024, KDSL_MEM_UB);
	float f[2] = {1e5f, -2.5f}, g[2];
	int32_t r[2];

	/* f32 -> f16 in place (the same address): 1e5 saturates to 65504 */
	memcpy(ub, f, 8);
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F16, KDSL_F32, MASK(2), KDSL_ROUND_NONE, w, 0, a, 0,
	                                      1, 0, 0), KDSL_OK);
	ck_assert_uint_eq(get16(ub, 0), 0x7bff);
	ck_assert_uint_eq(get16(ub, 1), 0xc100);   /* -2.5 */
	/* f16 -> i32: "round" ties to even, "floor" down */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_I32, KDSL_F16, MASK(2), KDSL_ROUND_ROUND, d, 0, a, 0,
	                                      1, 0, 0), KDSL_OK);
	memcpy(r, ub + 1024, 8);
	ck_assert_int_eq(r[0], 65504);
	ck_assert_int_eq(r[1], -2);
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_I32, KDSL_F16, MASK(2), KDSL_ROUND_FLOOR, d, 0, a, 0,
	                                      1, 0, 0), KDSL_OK);
	memcpy(r, ub + 1024, 8);
	ck_assert_int_eq(r[1], -3);
	/* f16 -> f32 is exact */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(2), KDSL_ROUND_EMPTY, d, 0, a, 0,
	                                      1, 0, 0), KDSL_OK);
	memcpy(g, ub + 1024, 8);
	ck_assert(g[0] == 65504.0f && g[1] == -2.5f);
	/* pairs and modes: f32 -> i32 is not in the table, f16 -> f32 takes no "floor" */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_I32, KDSL_F32, MASK(2), KDSL_ROUND_ROUND, d, 0, a, 0,
	                                      1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(2), KDSL_ROUND_FLOOR, d, 0, a, 0,
	                                      1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(2), KDSL_NROUND, d, 0, a, 0,
	                                      1, 0, 0), KDSL_ERR_RANGE);
	/* the mask counts the wider dtype's elements: 64 with f32, 128 with i8 */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(65), KDSL_ROUND_NONE, d, 0, a, 0,
	                                      1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_I8, KDSL_F16, MASK(128), KDSL_ROUND_NONE, d, 0, a, 0,
	                                      1, 0, 0), KDSL_OK);
	/* f16 -> f32 in place over two repeats: repeat 1 reads src bytes
	 * 128..255, which repeat 0 wrote */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(64), KDSL_ROUND_NONE, w, 0, a, 0,
	                                      2, 8, 4), KDSL_ERR_ARG);
	/* within a repeat: src 32 bytes after dst meets dst's elements */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(64), KDSL_ROUND_NONE, w, 0, a, 32,
	                                      1, 8, 4), KDSL_ERR_ARG);
	/* ... and 256 bytes after it, apart from dst's 256 bytes: fine */
	ck_assert_int_eq(kdsl_ascend_vec_conv(rt, &VSITE, KDSL_F32, KDSL_F16, MASK(64), KDSL_ROUND_NONE, w, 0, a, 256,
	                                      1, 8, 4), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

/* u[i] and u[i] = v: the dtype's value, every rule before any access. */
START_TEST(elem_access)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	static const kdsl_site ES = {"t.k", 3, 9, "elem_read"};
	kdsl_ref u = kdsl_ref_of(ub, 32, KDSL_MEM_UB);
	kdsl_cref c = kdsl_cref_of(ub, 32, KDSL_MEM_UB);
	kdsl_scalar x;
	unsigned char gm[32];

	ck_assert_int_eq(kdsl_ascend_elem_write(rt, &ES, KDSL_I8, u, 31, kdsl_scalar_i(-129)), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_I8, c, 31, &x), KDSL_OK);
	ck_assert_int_eq(x.i, 127);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_U8, c, 31, &x), KDSL_OK);
	ck_assert_int_eq(x.i, 127);
	ck_assert_int_eq(kdsl_ascend_elem_write(rt, &ES, KDSL_U64, u, 8, kdsl_scalar_i(-1)), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_I64, c, 8, &x), KDSL_OK);
	ck_assert_int_eq(x.i, -1);
	ck_assert_int_eq(kdsl_ascend_elem_write(rt, &ES, KDSL_F16, u, 2, kdsl_scalar_f(1.0 + 1.0 / 2048)), KDSL_OK);
	ck_assert_uint_eq(get16(ub, 1), 0x3c00);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_F16, c, 2, &x), KDSL_OK);
	ck_assert(x.f == 1.0);
	/* the last element, then one past it and a negative index */
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_F32, c, 28, &x), KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_F32, c, 32, &x), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:3:9: elem_read: the element must be inside its tensor: "
	                 "index 8 of a tensor of 8 elements (0..7)");
	ck_assert_int_eq(kdsl_ascend_elem_write(rt, &ES, KDSL_F32, u, -4, kdsl_scalar_f(0)), KDSL_ERR_BOUNDS);
	/* gm, bf16 and bool are not element values */
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_F32, kdsl_cref_of(gm, 32, KDSL_MEM_GM), 0, &x),
	                 KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_ascend_elem_read(rt, &ES, KDSL_BF16, c, 0, &x), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_elem_write(rt, &ES, KDSL_BOOL, u, 0, kdsl_scalar_i(1)), KDSL_ERR_RANGE);
	kdsl_rt_destroy(rt);
}
END_TEST

/* Element access's inline entries against the library's, as
 * move_fast_agrees: random reads and writes (every dtype, bf16 and bool
 * included; ub mostly, gm and l1 sometimes; offsets in, at the edges,
 * past the end, negative, misaligned; a NULL tensor; f16 and f32 values
 * from random bits, NaNs and values past f16's range included), a few
 * hundred calls with the uninit check on (both then take the library's
 * path, which tests and marks the shadow), the same return code, error
 * text, value read and bytes everywhere. */
START_TEST(elem_fast_agrees)
{
	static unsigned char gm0[8192], gm1[8192];
	static const kdsl_site ES = {"t.k", 4, 13, "elem_read"};
	move_world w[2];
	uint64_t x = 0x2545f4914f6cdd1du;
	int call, k, nok = 0, nerr = 0, nchecked = 0, nread = 0;

	for (k = 0; k < 8192; k++)
		gm0[k] = gm1[k] = (unsigned char)(k * 5 + 1);
	world_init(&w[0], gm0, sizeof gm0);
	world_init(&w[1], gm1, sizeof gm1);
	for (call = 0; call < 40000; call++) {
		kdsl_dtype dt = (kdsl_dtype)(next_rand(&x) % KDSL_NDTYPE);
		kdsl_mem mem = next_rand(&x) % 10 ? KDSL_MEM_UB : (kdsl_mem)(1 + next_rand(&x) % 3);
		/* dtype 0 (none) too: an error of the library's */
		int64_t size = dt ? (int64_t)kdsl_dtype_size(dt) : 1, bytes = 32 * (int64_t)(1 + next_rand(&x) % 8);
		int64_t at = 32 * (int64_t)(next_rand(&x) % 64), off = size * (int64_t)(next_rand(&x) % (uint64_t)(bytes / size + 2));
		int read = (int)(next_rand(&x) % 2), null_base = next_rand(&x) % 100 == 0;
		uint64_t bits = next_rand(&x);
		kdsl_scalar v, got[2];
		int rc[2], i;

		if (next_rand(&x) % 16 == 0)
			off = next_rand(&x) % 2 ? -size : off + 1;   /* negative, misaligned */
		if (dt == KDSL_F16 || dt == KDSL_F32 || dt == KDSL_BF16) {
			/* near a rounding boundary of f16, a float, or any double */
			switch (next_rand(&x) % 3) {
			case 0: {
				/* just off a midpoint of two f16 values (0..65504): rounding
				 * through f32 first would land on the midpoint, then go even */
				kdsl_f16 h = (kdsl_f16)(bits % 0x7bff);
				double m = (kdsl_f16_to_f64(h) + kdsl_f16_to_f64((kdsl_f16)(h + 1))) / 2;
				v.f = (bits >> 32 & 1 ? -m : m) * (bits >> 33 & 1 ? 1 + 0x1p-40 : 1 - 0x1p-40);
				break;
			}
			case 1: v.f = from32((uint32_t)bits); break;
			default: memcpy(&v.f, &bits, 8); break;
			}
		} else {
			v.i = (int64_t)bits;
		}
		if (call == 30000) {
			/* the rest under the uninit check, on both runtimes */
			ck_assert_int_eq(kdsl_rt_set_check(w[0].rt, KDSL_CHECK_UNINIT), KDSL_OK);
			ck_assert_int_eq(kdsl_rt_set_check(w[1].rt, KDSL_CHECK_UNINIT), KDSL_OK);
		}
		for (i = 0; i < 2; i++) {
			unsigned char *b = mem <= KDSL_MEM_L1 ? w[i].mem[mem] + at : w[i].mem[KDSL_MEM_GM];
			got[i].i = 0;
			if (null_base)
				b = NULL;
			if (read)
				rc[i] = (i ? kdsl_ascend_elem_read_fast : kdsl_ascend_elem_read)(
					w[i].rt, &ES, dt, kdsl_cref_of(b, (size_t)bytes, mem), off, &got[i]);
			else
				rc[i] = (i ? kdsl_ascend_elem_write_fast : kdsl_ascend_elem_write)(
					w[i].rt, &ES, dt, kdsl_ref_of(b, (size_t)bytes, mem), off, v);
		}
		ck_assert_msg(rc[0] == rc[1], "call %d: rc %d (library) vs %d (fast)", call, rc[0], rc[1]);
		ck_assert_str_eq(kdsl_rt_last_error(w[0].rt), kdsl_rt_last_error(w[1].rt));
		ck_assert_msg(got[0].i == got[1].i, "call %d: read %" PRIx64 " vs %" PRIx64, call, (uint64_t)got[0].i,
		              (uint64_t)got[1].i);
		nok += rc[0] == KDSL_OK;
		nerr += rc[0] != KDSL_OK;
		nchecked += call >= 30000 && rc[0] == KDSL_OK;
		nread += read && rc[0] == KDSL_OK;
		for (k = KDSL_MEM_GM; k <= KDSL_MEM_L1; k++)
			ck_assert_msg(memcmp(w[0].mem[k], w[1].mem[k], 8192) == 0, "call %d: memory %d differs", call, k);
	}
	/* successes of both kinds, successes under the check, and errors (the
	 * uninit ones among them) all occurred */
	ck_assert_int_gt(nok, 20000);
	ck_assert_int_gt(nread, 8000);
	ck_assert_int_gt(nchecked, 1000);
	ck_assert_int_gt(nerr, 5000);
	kdsl_rt_destroy(w[0].rt);
	kdsl_rt_destroy(w[1].rt);
}
END_TEST

START_TEST(vec_add_f32_and_ints)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	float f[2] = {0.1f, 1e30f}, g[2] = {0.2f, 1e30f}, fr[2];
	int16_t s[2] = {32767, -32768}, t[2] = {1, -1}, sr[2];
	int32_t w[2] = {INT32_MAX, 5}, v[2] = {1, -7}, wr[2];

	memcpy(ub, f, 8);
	memcpy(ub + 32, g, 8);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F32, MASK(2), kdsl_ref_of(ub + 64, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub + 32, 32, KDSL_MEM_UB), 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(fr, ub + 64, 8);
	ck_assert(fr[0] == 0.1f + 0.2f);
	ck_assert(fr[1] == 2e30f);
	memcpy(ub, s, 4);
	memcpy(ub + 32, t, 4);
	memcpy(sr, ub + 64, 4);
	/* i16 is not a vec_add dtype on the seed's products (the page lists
	 * float16, float32 and int32 there). */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_I16, MASK(2), kdsl_ref_of(ub + 64, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub + 32, 32, KDSL_MEM_UB), 0, 1, 0, 0, 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:9:5: vec_add: dtype must be one of i32, f16, f32, got i16");
	ck_assert_int_eq(memcmp(sr, ub + 64, 4), 0);
	memcpy(ub, w, 8);
	memcpy(ub + 32, v, 8);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_I32, MASK(2), kdsl_ref_of(ub + 64, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub + 32, 32, KDSL_MEM_UB), 0, 1, 0, 0, 0), KDSL_OK);
	memcpy(wr, ub + 64, 8);
	ck_assert_int_eq(wr[0], INT32_MIN);
	ck_assert_int_eq(wr[1], -2);
	/* u16 is a vec_dup dtype but not a vec_add one. */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_U16, MASK(2), kdsl_ref_of(ub + 64, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 32, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub + 32, 32, KDSL_MEM_UB), 0, 1, 0, 0, 0), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "dtype must be one of i32, f16, f32, got u16"));
	kdsl_rt_destroy(rt);
}
END_TEST

/* Seed 001 example 3's pattern: dst, src0 and src1 all the same buffer,
 * 128 halves per repeat, 8 blocks apart. */
START_TEST(vec_add_in_place)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	int i;

	for (i = 0; i < 128 * 5; i++)
		put16(ub, i, 0x4000);   /* 2.0 */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(128), kdsl_ref_of(ub, 1280, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 1280, KDSL_MEM_UB), 0,
	                                     kdsl_cref_of(ub, 1280, KDSL_MEM_UB), 0, 5, 8, 8, 8), KDSL_OK);
	for (i = 0; i < 128 * 5; i++)
		ck_assert_uint_eq(get16(ub, i), 0x4400);   /* 4.0 */
	kdsl_rt_destroy(rt);
}
END_TEST

/* The pages' overlap rules: within a repeat dst and a source coincide or
 * do not meet; no repeat reads what an earlier one wrote; dst == src1 at
 * rep stride 0 accumulates.  A refused call writes nothing. */
START_TEST(vec_add_overlap_rules)
{
	unsigned char *ub, before[512];
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub, 512, KDSL_MEM_UB);
	kdsl_cref all = kdsl_cref_of(ub, 512, KDSL_MEM_UB);
	int i;

	for (i = 0; i < 256; i++)
		put16(ub, i, kdsl_f64_to_f16(i));
	memcpy(before, ub, sizeof before);
	/* 32 halves from 0 into 32 halves 16 up: they meet without coinciding */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(32), d, 32, all, 0, all, 64,
	                                     1, 0, 0, 0), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:9:5: vec_add: within a repeat dst and src0 must coincide exactly or not overlap: "
	                 "repeat 0's src0 starts -32 bytes from its dst");
	/* one element less apart each way is fine: 16 halves at 0 and at 32 bytes */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(16), d, 32, all, 0, all, 32,
	                                     1, 0, 0, 0), KDSL_OK);
	for (i = 0; i < 16; i++)
		ck_assert(kdsl_f16_to_f64(get16(ub, 16 + i)) == (double)i + (16 + i));
	memcpy(ub, before, sizeof before);
	/* in place, repeats one block apart: each reads only its own block */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(16), d, 0, all, 0, all, 0,
	                                     2, 1, 1, 1), KDSL_OK);
	memcpy(ub, before, sizeof before);
	/* across repeats: repeat 1 reads the block repeat 0 wrote */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(16), d, 32, all, 0, all, 32,
	                                     2, 1, 1, 1), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:9:5: vec_add: no repeat may read what an earlier repeat wrote: "
	                 "repeat 1 reads src0 bytes that repeat 0 wrote to dst");
	ck_assert_int_eq(memcmp(ub, before, sizeof before), 0);
	/* accumulation: dst == src1, both rep strides 0: four repeats add
	 * src0's blocks 4..7 into block 0 one after the other */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(16), d, 0, all, 128, all, 0,
	                                     4, 0, 1, 0), KDSL_OK);
	for (i = 0; i < 16; i++)
		ck_assert(kdsl_f16_to_f64(get16(ub, i)) == i + (64 + i) + (80 + i) + (96 + i) + (112 + i));
	memcpy(ub, before, sizeof before);
	/* the same with dst == src0 is not the pages' exception */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(16), d, 0, all, 0, all, 128,
	                                     4, 0, 0, 1), KDSL_ERR_ARG);
	ck_assert_int_eq(memcmp(ub, before, sizeof before), 0);
	kdsl_rt_destroy(rt);
}
END_TEST

/* The bitwise mask: element i of a repeat iff bit i of h << 64 | l; the
 * others keep their value.  mask_h must be 0 for 4-byte dtypes, and a mask
 * enables something. */
START_TEST(vec_mask_bits)
{
	unsigned char *ub, before[1024];
	kdsl_rt *rt = ascend(&ub);
	kdsl_ref d = kdsl_ref_of(ub, 1024, KDSL_MEM_UB);
	kdsl_cref all = kdsl_cref_of(ub, 1024, KDSL_MEM_UB);
	int i;

	for (i = 0; i < 512; i++)
		put16(ub, i, kdsl_f64_to_f16(i % 100));
	memcpy(before, ub, sizeof before);
	/* bits 0, 63, 64 and 127 over two repeats 8 blocks apart */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F16, kdsl_ascend_mask_bits(0x8000000000000001u,
	                 0x8000000000000001u), d, 0, -1.0, 2, 8), KDSL_OK);
	for (i = 0; i < 512; i++) {
		int on = i < 256 && (i % 128 == 0 || i % 128 == 63 || i % 128 == 64 || i % 128 == 127);
		ck_assert(kdsl_f16_to_f64(get16(ub, i)) == (on ? -1.0 : i % 100));
	}
	memcpy(ub, before, sizeof before);
	/* vec_add in place, every other element of halves 256..383 */
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, kdsl_ascend_mask_bits(0x5555555555555555u,
	                 0x5555555555555555u), d, 512, all, 512, all, 0, 1, 0, 0, 0), KDSL_OK);
	for (i = 0; i < 128; i++)
		ck_assert(kdsl_f16_to_f64(get16(ub, 256 + i)) ==
		          (i % 2 ? (256 + i) % 100 : (256 + i) % 100 + i % 100));
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, kdsl_ascend_mask_bits(1, 1), d, 0, 1.0, 1, 8),
	                 KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:8:5: vec_dup: mask_h must be 0 for f32 (64 elements a repeat), got 0x1");
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, kdsl_ascend_mask_bits(0, 0), d, 0, all, 0, all, 0,
	                                     1, 0, 0, 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:9:5: vec_add: a bitwise mask must enable at least one element, got [0, 0]");
	/* f32: bit 63 is the last element; 64 elements end at byte 256 */
	memcpy(ub, before, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, kdsl_ascend_mask_bits(0, 0x8000000000000000u),
	                                     kdsl_ref_of(ub, 256, KDSL_MEM_UB), 0, 2.0, 1, 8), KDSL_OK);
	ck_assert_int_eq(memcmp(ub, before, 252), 0);
	/* a runtime repeat_times of 0 does nothing */
	ck_assert_int_eq(kdsl_ascend_vec_dup(rt, &DSITE, KDSL_F32, MASK(64), d, 0, 2.0, 0, 8),
	                 KDSL_OK);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(128), d, 0, all, 0, all, 0,
	                                     0, 8, 8, 8), KDSL_OK);
	ck_assert_int_eq(memcmp(ub + 256, before + 256, sizeof before - 256), 0);
	kdsl_rt_destroy(rt);
}
END_TEST

START_TEST(vec_add_errors)
{
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char gm[64], before[1024];
	kdsl_ref d = kdsl_ref_of(ub, 512, KDSL_MEM_UB);
	kdsl_cref s = kdsl_cref_of(ub, 512, KDSL_MEM_UB);

	memcpy(before, ub, sizeof before);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(1), d, 0, kdsl_cref_of(gm, 64, KDSL_MEM_GM), 0,
	                                     s, 0, 1, 0, 0, 0), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:9:5: vec_add: src0 must be in ub, got gm");
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(1), d, 0, s, 0, s, 64 + 2, 1, 0, 0, 0),
	                 KDSL_ERR_ALIGN);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:9:5: vec_add: src1 address in ub must be 32-byte aligned, got byte offset 66");
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(1), d, 0, s, 0, s, 0, 1, 0, 256, 0),
	                 KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:9:5: vec_add: src0_rep_stride must be in 0..255, got 256");
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(129), d, 0, s, 0, s, 0, 1, 0, 0, 0),
	                 KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_ascend_vec_add(rt, &VSITE, KDSL_F16, MASK(128), d, 0, s, 0, s, 0, 3, 0, 0, 8),
	                 KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:9:5: vec_add: src1 repeat 2 reads bytes 512..767 outside the tensor of 512 bytes");
	ck_assert_int_eq(memcmp(ub, before, sizeof before), 0);
	kdsl_rt_destroy(rt);
}
END_TEST

/* ----------------------------------------------------------------- npy */

static char *tmp_path(char *dir, const char *name)
{
	static char path[256];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

START_TEST(npy_round_trip)
{
	char dir[] = "/tmp/kdsl-npy-XXXXXX";
	int64_t dims[2] = {2, 3}, wrong[2] = {3, 2}, d23 = 23;
	uint16_t a[6], b[6];
	char err[256], *path, head[129];
	FILE *f;
	int i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = tmp_path(dir, "a.npy");
	for (i = 0; i < 6; i++)
		a[i] = kdsl_f64_to_f16(i * 1.5);
	ck_assert_int_eq(kdsl_npy_write(path, KDSL_F16, 2, dims, a), 0);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 2, dims, b, err, sizeof err), 0);
	ck_assert_int_eq(memcmp(a, b, sizeof a), 0);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F32, 2, dims, b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "dtype '<f2' does not match f32 (expected '<f4')"));
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 2, wrong, b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "shape (2, 3) does not match f16 (expected (3, 2))"));
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 1, &d23, b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "shape (2, 3) does not match f16 (expected (23,))"));
	ck_assert_int_eq(kdsl_npy_read(tmp_path(dir, "none.npy"), KDSL_F16, 2, dims, b, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "none.npy"));
	/* The header is byte for byte what numpy 1.24's np.save writes. */
	path = tmp_path(dir, "h.npy");
	{
		uint16_t z[23] = {0};

		ck_assert_int_eq(kdsl_npy_write(path, KDSL_F16, 1, &d23, z), 0);
	}
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(head, 1, 128, f), 128);
	fclose(f);
	ck_assert_int_eq(memcmp(head, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f2', 'fortran_order': False, "
	                        "'shape': (23,), }", 68), 0);
	for (i = 68; i < 127; i++)
		ck_assert_int_eq(head[i], ' ');
	ck_assert_int_eq(head[127], '\n');
	/* A truncated data section is reported. */
	f = fopen(path, "r+b");
	ck_assert_int_eq(ftruncate(fileno(f), 128 + 10), 0);
	fclose(f);
	{
		uint16_t z[23];

		ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 1, &d23, z, err, sizeof err), -1);
		ck_assert_ptr_nonnull(strstr(err, "file ends after 5 of 23 elements"));
	}
	remove(tmp_path(dir, "a.npy"));
	remove(tmp_path(dir, "h.npy"));
	rmdir(dir);
}
END_TEST

/* -------------------------------------------------------------- format */

static void expect_format(kdsl_dtype dt, int rank, const int64_t *dims, const void *data,
                          const char *want)
{
	char *got = kdsl_format_array(dt, rank, dims, data);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(format_f16)
{
	uint16_t h[23], x[5];
	int64_t n = 23, two = 2, five = 5;
	int i;

	/* Seed 001 example 2's output: 18 per line at numpy's 75 columns. */
	for (i = 0; i < 23; i++)
		h[i] = kdsl_f64_to_f16(2.0 * i);
	expect_format(KDSL_F16, 1, &n, h,
	              "[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18. 20. 22. 24. 26. 28. 30. 32. 34.\n"
	              " 36. 38. 40. 42. 44.]");
	x[0] = kdsl_f64_to_f16(0.1);
	x[1] = kdsl_f64_to_f16(0.2);
	expect_format(KDSL_F16, 1, &two, x, "[0.1 0.2]");
	x[0] = 0x7bff;
	x[1] = 0x3c00;
	expect_format(KDSL_F16, 1, &two, x, "[6.55e+04 1.00e+00]");
	x[0] = 0;
	x[1] = kdsl_f64_to_f16(1e-5);
	x[2] = kdsl_f64_to_f16(1.5);
	x[3] = 0x7e00;
	x[4] = 0xfc00;
	expect_format(KDSL_F16, 1, &five, x, "[0.0e+00 1.0e-05 1.5e+00     nan    -inf]");
	x[0] = 0x8000;
	expect_format(KDSL_F16, 1, &(int64_t){1}, x, "[-0.]");
	/* Shortest digits: 12300 lies exactly between 12296 and 12304 and
	 * reads back as 12304 (even significand) but not as 12296 (odd). */
	x[0] = kdsl_f64_to_f16(12304);
	x[1] = kdsl_f64_to_f16(1e-7);
	expect_format(KDSL_F16, 1, &two, x, "[1.23e+04 1.19e-07]");
	x[0] = kdsl_f64_to_f16(12296);
	expect_format(KDSL_F16, 1, &two, x, "[1.2296e+04 1.1921e-07]");
	x[0] = kdsl_f64_to_f16(4128);   /* 4130 is its upper midpoint */
	expect_format(KDSL_F16, 1, &two, x, "[4.13e+03 1.19e-07]");
}
END_TEST

START_TEST(format_summarised)
{
	static uint16_t h[126976 * 2];
	static int16_t s[2000];
	int64_t d2[2] = {126976, 2}, d40[2] = {40, 50}, n2000 = 2000;
	int i;

	for (i = 0; i < 126976 * 2; i++)
		h[i] = 0x4400;
	expect_format(KDSL_F16, 2, d2, h,
	              "[[4. 4.]\n [4. 4.]\n [4. 4.]\n ...\n [4. 4.]\n [4. 4.]\n [4. 4.]]");
	expect_format(KDSL_F16, 1, &n2000, h, "[4. 4. 4. ... 4. 4. 4.]");
	for (i = 0; i < 2000; i++)
		s[i] = (int16_t)i;
	expect_format(KDSL_I16, 2, d40, s,
	              "[[   0    1    2 ...   47   48   49]\n"
	              " [  50   51   52 ...   97   98   99]\n"
	              " [ 100  101  102 ...  147  148  149]\n"
	              " ...\n"
	              " [1850 1851 1852 ... 1897 1898 1899]\n"
	              " [1900 1901 1902 ... 1947 1948 1949]\n"
	              " [1950 1951 1952 ... 1997 1998 1999]]");
}
END_TEST

START_TEST(format_other_dtypes)
{
	int32_t w[3] = {0, 1, 2}, r[30];
	int8_t b[4] = {-1, 0, 127, -128};
	unsigned char t[2] = {1, 0};
	uint8_t u[30];
	float f[24], g[3] = {1.5f, -2.25f, 1000.125f}, k[2] = {0.5f, INFINITY};
	int64_t three = 3, four = 4, two = 2, thirty = 30, d3[3] = {2, 3, 4}, d56[2] = {5, 6}, zero = 0;
	int i;

	expect_format(KDSL_I32, 1, &three, w, "[0 1 2]");
	/* 24 two-digit numbers reach column 74; the 25th would pass 75. */
	for (i = 0; i < 30; i++)
		r[i] = 10 + i;
	expect_format(KDSL_I32, 1, &thirty, r,
	              "[10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33\n"
	              " 34 35 36 37 38 39]");
	expect_format(KDSL_I8, 1, &four, b, "[  -1    0  127 -128]");
	expect_format(KDSL_BOOL, 1, &two, t, "[ True False]");
	for (i = 0; i < 30; i++)
		u[i] = (uint8_t)i;
	expect_format(KDSL_U8, 2, d56, u,
	              "[[ 0  1  2  3  4  5]\n [ 6  7  8  9 10 11]\n [12 13 14 15 16 17]\n"
	              " [18 19 20 21 22 23]\n [24 25 26 27 28 29]]");
	for (i = 0; i < 24; i++)
		f[i] = (float)i / 4;
	expect_format(KDSL_F32, 3, d3, f,
	              "[[[0.   0.25 0.5  0.75]\n  [1.   1.25 1.5  1.75]\n  [2.   2.25 2.5  2.75]]\n\n"
	              " [[3.   3.25 3.5  3.75]\n  [4.   4.25 4.5  4.75]\n  [5.   5.25 5.5  5.75]]]");
	expect_format(KDSL_F32, 1, &three, g, "[   1.5     -2.25  1000.125]");
	expect_format(KDSL_F32, 1, &two, k, "[0.5 inf]");
	expect_format(KDSL_F32, 1, &zero, f, "[]");
}
END_TEST

/* ------------------------------------------------ in-order ub->ub bursts */

/* The reading of docs/language.md, written out: burst k, after burst k-1
 * has completed, copies its len bytes as one atomic copy (all read, then
 * all written). */
static void bursts_in_order(unsigned char *ub, int64_t dst_off, int64_t src_off, int64_t nburst,
                            int64_t burst, int64_t src_stride, int64_t dst_stride)
{
	unsigned char tmp[8 * 32];
	int64_t k, len = burst * 32;

	for (k = 0; k < nburst; k++) {
		memcpy(tmp, ub + src_off + k * (burst + src_stride) * 32, (size_t)len);
		memcpy(ub + dst_off + k * (burst + dst_stride) * 32, tmp, (size_t)len);
	}
}

/* Overlapping ub->ub moves with several bursts, dst before and after src,
 * with and without strides: the library entry and the inline fast path
 * both give the explicit in-order loop's bytes. */
START_TEST(move_overlap_in_order)
{
	static const int64_t cases[][6] = {
		/* dst_off, src_off, nburst, burst, src_stride, dst_stride */
		{32, 0, 4, 1, 0, 0},    {0, 32, 4, 1, 0, 0},   {64, 0, 5, 2, 0, 0},
		{32, 0, 3, 2, 0, 0},    {0, 64, 6, 2, 0, 0},   {64, 0, 3, 1, 1, 1},
		{96, 0, 4, 2, 1, 0},    {0, 96, 4, 2, 0, 1},   {32, 64, 5, 1, 2, 0},
		{64, 32, 5, 1, 0, 2},   {128, 0, 6, 3, 1, 2},  {0, 0, 3, 2, 0, 1},
		{0, 0, 3, 2, 1, 0},     {160, 96, 7, 1, 0, 0}, {96, 160, 7, 1, 0, 0},
	};
	unsigned char *ub;
	kdsl_rt *rt = ascend(&ub);
	unsigned char want[1024];
	size_t c;
	int i, path;

	for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (path = 0; path < 2; path++) {
			const int64_t *a = cases[c];
			kdsl_ref d = kdsl_ref_of(ub, 1024, KDSL_MEM_UB);
			kdsl_cref s = kdsl_cref_of(ub, 1024, KDSL_MEM_UB);
			int rc;

			for (i = 0; i < 1024; i++)
				ub[i] = want[i] = (unsigned char)(i * 7 + 3);
			bursts_in_order(want, a[0], a[1], a[2], a[3], a[4], a[5]);
			if (path == 0)
				rc = kdsl_ascend_data_move(rt, &SITE, d, a[0], s, a[1], 0, a[2], a[3], a[4], a[5]);
			else
				rc = kdsl_ascend_data_move_fast(rt, &SITE, d, a[0], s, a[1], 0, a[2], a[3], a[4],
				                                a[5]);
			ck_assert_msg(rc == KDSL_OK, "case %zu path %d: rc %d", c, path, rc);
			ck_assert_msg(memcmp(ub, want, 1024) == 0, "case %zu path %d: bytes differ", c, path);
		}
	kdsl_rt_destroy(rt);
}
END_TEST

static Suite *runtime_suite(void)
{
	Suite *s = suite_create("runtime");
	TCase *half = tcase_create("half");
	TCase *rt = tcase_create("rt");
	TCase *move = tcase_create("data_move");
	TCase *vec = tcase_create("vec");
	TCase *io = tcase_create("npy_format");

	tcase_add_test(half, f16_exact_values);
	tcase_add_test(half, f16_overflow_and_specials);
	tcase_add_test(half, f16_subnormal_rounding);
	tcase_add_test(half, f16_ties_and_binades);
	tcase_add_test(half, f16_no_double_rounding);
	tcase_add_test(half, f16_round_trip_all);
	tcase_add_test(half, f16_to_f32_inline_all);
	tcase_add_test(half, f16_midpoints);
	tcase_add_test(half, bf16_basics);
	tcase_add_test(half, dtype_table);
	tcase_set_timeout(half, 60);
	suite_add_tcase(s, half);

	tcase_add_test(rt, rt_memories);
	tcase_add_test(rt, rt_garbage_fill);
	tcase_add_test(rt, rt_errors);
	suite_add_tcase(s, rt);

	tcase_add_test(move, move_contiguous);
	tcase_add_test(move, move_strided);
	tcase_add_test(move, move_unaligned_example);
	tcase_add_test(move, move_range_errors);
	tcase_add_test(move, move_align_and_bounds_errors);
	tcase_add_test(move, move_more_errors);
	tcase_add_test(move, onchip_operand_outside_memory);
	tcase_add_test(move, move_all_or_nothing);
	tcase_add_test(move, move_overlap);
	tcase_add_test(move, move_fast_agrees);
	tcase_add_test(move, move_overlap_in_order);
	suite_add_tcase(s, move);

	tcase_add_test(vec, vec_dup_values);
	tcase_add_test(vec, vec_dup_repeats);
	tcase_add_test(vec, vec_dup_errors);
	tcase_add_test(vec, vec_dup_fast_agrees);
	tcase_add_test(vec, elem_fast_agrees);
	tcase_add_test(vec, vec_add_f16_rounding);
	tcase_add_test(vec, vec_add_f32_and_ints);
	tcase_add_test(vec, vec_binary_values);
	tcase_add_test(vec, vec_one_values);
	tcase_add_test(vec, vec_conv_rules);
	tcase_add_test(vec, elem_access);
	tcase_add_test(vec, vec_add_in_place);
	tcase_add_test(vec, vec_add_overlap_rules);
	tcase_add_test(vec, vec_mask_bits);
	tcase_add_test(vec, vec_add_errors);
	suite_add_tcase(s, vec);

	tcase_add_test(io, npy_round_trip);
	tcase_add_test(io, format_f16);
	tcase_add_test(io, format_summarised);
	tcase_add_test(io, format_other_dtypes);
	tcase_set_timeout(io, 60);
	suite_add_tcase(s, io);
	return s;
}

int main(void)
{
	return kd_check_run(runtime_suite());
}
