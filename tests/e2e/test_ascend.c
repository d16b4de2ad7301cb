/* test_ascend.c: runs the seed 001 examples compiled by kdslc and checks
 * every element against the outputs the seed page states. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ascend_data_move_contiguous.h"
#include "ascend_data_move_large.h"
#include "ascend_data_move_unaligned.h"
#include "ascend_block_stage.h"
#include "ascend_row_gather.h"
#include "runtime_checks.h"
#include "ascend_multi_index.h"
#include "../check_run.h"

static kdsl_rt *rt;

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	ck_assert_ptr_nonnull(rt);
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

/* Example 1: one burst of 32 blocks there and back: dst == src, bit for bit. */
START_TEST(contiguous_is_identity)
{
	kdsl_f16 src[512], dst[512];
	for (int i = 0; i < 512; i++) {
		src[i] = kdsl_f32_to_f16((float)((i * 37 % 200) - 100) / 10.0f);
		dst[i] = 0x7e00;
	}
	ck_assert_int_eq(data_move_contiguous(rt, src, dst), KDSL_OK);
	for (int i = 0; i < 512; i++)
		ck_assert_uint_eq(dst[i], src[i]);
}
END_TEST

/* Example 2: 23 values in two overlapping bursts, doubled by vec_add. */
START_TEST(unaligned_doubles)
{
	kdsl_f16 src[23], dst[24];
	for (int i = 0; i < 23; i++)
		src[i] = kdsl_f32_to_f16((float)i);
	for (int i = 0; i < 24; i++)
		dst[i] = 0xabcd;
	ck_assert_int_eq(data_move_unaligned(rt, src, dst), KDSL_OK);
	for (int i = 0; i < 23; i++)
		ck_assert_float_eq(kdsl_f16_to_f32(dst[i]), 2.0f * (float)i);
	/* the guard element after the tensor is untouched */
	ck_assert_uint_eq(dst[23], 0xabcd);
	/* and the result does not depend on what ub held before */
	ck_assert_int_eq(data_move_unaligned(rt, src, dst), KDSL_OK);
	ck_assert_float_eq(kdsl_f16_to_f32(dst[22]), 44.0f);
}
END_TEST

/* The row gather (one strided data_move at -O1): each slot of 32 gets the
 * second half-row of src, then 16 zeros from the vec_dup. */
START_TEST(row_gather_slots)
{
	static kdsl_f16 src[4096], dst[2048];
	for (int i = 0; i < 4096; i++)
		src[i] = (kdsl_f16)(0x1000 + i);   /* distinct bit patterns */
	for (int i = 0; i < 2048; i++)
		dst[i] = 0xabcd;
	ck_assert_int_eq(row_gather(rt, src, dst), KDSL_OK);
	for (int r = 0; r < 64; r++)
		for (int j = 0; j < 32; j++)
			ck_assert_uint_eq(dst[r * 32 + j], j < 16 ? src[r * 64 + 32 + j] : 0);
}
END_TEST

/* Block staging (512 one-block moves, one move at -O1): the right halves
 * of the rows, packed. */
START_TEST(block_stage_right_halves)
{
	static int16_t src[16384], dst[8192];
	for (int i = 0; i < 16384; i++)
		src[i] = (int16_t)(i * 7 - 3000);
	memset(dst, 0x5a, sizeof dst);
	ck_assert_int_eq(block_stage(rt, src, dst), KDSL_OK);
	for (int r = 0; r < 64; r++)
		for (int j = 0; j < 128; j++)
			ck_assert_int_eq(dst[r * 128 + j], src[r * 256 + 128 + j]);
}
END_TEST

/* Example 3: 2 x 126976 values of 2.0 through a 248 KiB ub: all 4.0. */
START_TEST(large_adds_in_segments)
{
	size_t n = 126976 * 2;
	kdsl_f16 *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
	for (size_t i = 0; i < n; i++) {
		src[i] = kdsl_f32_to_f16(2.0f);
		dst[i] = 0;
	}
	ck_assert_int_eq(data_move_large(rt, src, dst), KDSL_OK);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(dst[i], kdsl_f32_to_f16(4.0f));
	/* The sums are f16 sums: 1 + 2^-10 doubles exactly, 40000 + 40000
	 * overflows to infinity. */
	for (size_t i = 0; i < n; i++)
		src[i] = kdsl_f32_to_f16(i % 2 ? 1.0009765625f : 40000.0f);
	ck_assert_int_eq(data_move_large(rt, src, dst), KDSL_OK);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(dst[i], i % 2 ? kdsl_f32_to_f16(2.001953125f) : 0x7c00);
	free(src);
	free(dst);
}
END_TEST

static void fill(kdsl_f16 *a, int n, kdsl_f16 v)
{
	for (int i = 0; i < n; i++)
		a[i] = v;
}

START_TEST(runtime_bounds_error)
{
	kdsl_f16 src[64], dst[64];
	fill(src, 64, 0x3c00);
	fill(dst, 64, 0x1111);
	ck_assert_int_eq(shifted_copy(rt, src, dst, 0), KDSL_OK);
	ck_assert_uint_eq(dst[63], 0x3c00);
	fill(dst, 64, 0x1111);
	ck_assert_int_eq(shifted_copy(rt, src, dst, 16), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "runtime_checks.k:7:5: data_move:"));
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(dst[i], 0x1111);
	ck_assert_int_eq(shifted_copy(rt, src, dst, -1), KDSL_ERR_BOUNDS);
}
END_TEST

START_TEST(runtime_align_error)
{
	kdsl_f16 src[64], dst[64];
	fill(src, 64, 0x3c00);
	ck_assert_int_eq(misaligned(rt, src, dst, 16), KDSL_OK);
	ck_assert_int_eq(misaligned(rt, src, dst, 3), KDSL_ERR_ALIGN);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "runtime_checks.k:13:5: data_move:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "32-byte aligned"));
}
END_TEST

START_TEST(runtime_range_error)
{
	kdsl_f16 src[64], dst[64];
	fill(src, 64, 0x3c00);
	ck_assert_int_eq(bursts(rt, src, dst, 4), KDSL_OK);
	ck_assert_int_eq(bursts(rt, src, dst, 0), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "runtime_checks.k:19:5: data_move:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "nburst"));
	ck_assert_int_eq(bursts(rt, src, dst, 4096), KDSL_ERR_RANGE);
}
END_TEST

START_TEST(runtime_division_by_zero)
{
	kdsl_f16 src[64], dst[64];
	fill(src, 64, 0x3c00);
	ck_assert_int_eq(divide(rt, src, dst, 1), KDSL_OK);
	ck_assert_int_eq(divide(rt, src, dst, 0), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "runtime_checks.k:25:18:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "division by zero"));
}
END_TEST

START_TEST(wrong_target_and_null)
{
	kdsl_rt *n = kdsl_rt_create(KDSL_TARGET_NEURON);
	kdsl_f16 src[512], dst[512];
	ck_assert_int_eq(data_move_contiguous(n, src, dst), KDSL_ERR_TARGET);
	kdsl_rt_destroy(n);
	ck_assert_int_eq(data_move_contiguous(rt, NULL, dst), KDSL_ERR_ARG);
}
END_TEST

/* x[r, c] is element (r, c) row-major: rows and 16-element blocks come
 * back reversed, each element from where the reference says. */
START_TEST(multi_index_flip_blocks)
{
	kdsl_f16 src[8 * 64], dst[8 * 64];
	for (int i = 0; i < 8 * 64; i++) {
		src[i] = (kdsl_f16)(0x2000 + i);   /* distinct bit patterns */
		dst[i] = 0xabcd;
	}
	ck_assert_int_eq(flip_blocks(rt, src, dst), KDSL_OK);
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 4; c++)
			for (int j = 0; j < 16; j++)
				ck_assert_uint_eq(dst[r * 64 + c * 16 + j], src[(7 - r) * 64 + (3 - c) * 16 + j]);
}
END_TEST

/* Three indices: x[p, r, 0] is element p*64 + r*16. */
START_TEST(multi_index_swap_planes)
{
	int16_t src[2 * 4 * 16], dst[2 * 4 * 16];
	for (int i = 0; i < 2 * 4 * 16; i++) {
		src[i] = (int16_t)(i * 13 - 500);
		dst[i] = 0x5a5a;
	}
	ck_assert_int_eq(swap_planes(rt, src, dst), KDSL_OK);
	for (int p = 0; p < 2; p++)
		for (int r = 0; r < 4; r++)
			for (int j = 0; j < 16; j++)
				ck_assert_int_eq(dst[(p * 4 + r) * 16 + j], src[((1 - p) * 4 + r) * 16 + j]);
}
END_TEST

/* The guarded tile loop on tuple indices: every row from where the
 * reference puts it, the wrapped last row included. */
START_TEST(multi_index_rotate_rows)
{
	kdsl_f16 src[5 * 16], dst[5 * 16];
	for (int i = 0; i < 5 * 16; i++) {
		src[i] = (kdsl_f16)(0x3000 + 7 * i);
		dst[i] = 0xabcd;
	}
	ck_assert_int_eq(rotate_rows(rt, src, dst), KDSL_OK);
	for (int r = 0; r < 5; r++)
		for (int j = 0; j < 16; j++)
			ck_assert_uint_eq(dst[r * 16 + j], src[(r < 4 ? r + 1 : 0) * 16 + j]);
}
END_TEST

/* A run-time column past its row is an error naming the .k line, before
 * anything is written; inside the dims the element is the row-major one. */
START_TEST(multi_index_runtime_dim)
{
	kdsl_f16 src[4 * 32], dst[16];
	for (int i = 0; i < 4 * 32; i++)
		src[i] = (kdsl_f16)(0x1000 + i);
	for (int i = 0; i < 16; i++)
		dst[i] = 0xabcd;
	ck_assert_int_eq(pick(rt, src, dst, 1, 32), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "ascend_multi_index.k:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "index 1 of 'src' must be in 0..31, got 32"));
	ck_assert_int_eq(pick(rt, src, dst, -1, 0), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "index 0 of 'src' must be in 0..3, got -1"));
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(dst[i], 0xabcd);
	ck_assert_int_eq(pick(rt, src, dst, 2, 16), KDSL_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(dst[i], src[2 * 32 + 16 + i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e-ascend");
	TCase *tc = tcase_create("seed001");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, contiguous_is_identity);
	tcase_add_test(tc, unaligned_doubles);
	tcase_add_test(tc, large_adds_in_segments);
	tcase_add_test(tc, row_gather_slots);
	tcase_add_test(tc, block_stage_right_halves);
	tcase_add_test(tc, runtime_bounds_error);
	tcase_add_test(tc, runtime_align_error);
	tcase_add_test(tc, runtime_range_error);
	tcase_add_test(tc, runtime_division_by_zero);
	tcase_add_test(tc, wrong_target_and_null);
	tcase_add_test(tc, multi_index_flip_blocks);
	tcase_add_test(tc, multi_index_swap_planes);
	tcase_add_test(tc, multi_index_rotate_rows);
	tcase_add_test(tc, multi_index_runtime_dim);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
