/* test_runtime_aipu.c: aipu's runtime entry called directly: dma_copy
 * between the caller's tensors and the emulated lsram, every rule
 * re-checked at run time, and nothing written when a rule fails. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

static kdsl_rt *rt;
static const kdsl_site site = {"t.k", 1, 1, "dma_copy"};
static unsigned char *lsram;
static size_t lsram_bytes;

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	ck_assert_ptr_nonnull(rt);
	lsram = kdsl_rt_mem(rt, KDSL_MEM_LSRAM, &lsram_bytes);
	ck_assert_ptr_nonnull(lsram);
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

START_TEST(lsram_is_32_kib_of_garbage)
{
	ck_assert_uint_eq(lsram_bytes, KDSL_AIPU_LSRAM_BYTES);
	ck_assert_uint_eq(lsram_bytes, 32 * 1024);
	/* not zero, as the device's memory is not */
	size_t zeros = 0;
	for (size_t i = 0; i < 256; i++)
		zeros += lsram[i] == 0;
	ck_assert_uint_lt(zeros, 16);
}
END_TEST

START_TEST(gm_to_lsram_and_back)
{
	int32_t t[64], y[64] = {0};
	for (int i = 0; i < 64; i++)
		t[i] = 1000 + i;
	kdsl_ref l = kdsl_ref_of(lsram + 256, 256, KDSL_MEM_LSRAM);
	kdsl_cref lc = kdsl_cref_of(lsram + 256, 256, KDSL_MEM_LSRAM);
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, l, 0, kdsl_cref_of((unsigned char *)t, 256,
	                                    KDSL_MEM_GM), 0, 64), KDSL_OK);
	/* elements 8..39 of lsram to y[4..35] */
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, kdsl_ref_of((unsigned char *)y, 256, KDSL_MEM_GM),
	                                    16, lc, 32, 32), KDSL_OK);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(y[i], i >= 4 && i < 36 ? 1004 + i : 0);
	/* gm to gm, overlapping: as memmove */
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, kdsl_ref_of((unsigned char *)t, 256, KDSL_MEM_GM),
	                                    4, kdsl_cref_of((unsigned char *)t, 256, KDSL_MEM_GM), 0, 63), KDSL_OK);
	ck_assert_int_eq(t[0], 1000);
	for (int i = 1; i < 64; i++)
		ck_assert_int_eq(t[i], 999 + i);
}
END_TEST

START_TEST(rules_at_run_time)
{
	int32_t t[16], keep[16];
	for (int i = 0; i < 16; i++)
		t[i] = i;
	memcpy(keep, t, sizeof t);
	kdsl_ref g = kdsl_ref_of((unsigned char *)t, 64, KDSL_MEM_GM);
	kdsl_cref gc = kdsl_cref_of((unsigned char *)t, 64, KDSL_MEM_GM);
	kdsl_ref l = kdsl_ref_of(lsram, 64, KDSL_MEM_LSRAM);
	kdsl_cref lc = kdsl_cref_of(lsram, 64, KDSL_MEM_LSRAM);
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, l, 0, gc, 0, 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: dma_copy: count must be at least 1, got 0");
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, l, 0, lc, 32, 4), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: dma_copy: cannot copy from lsram to lsram (allowed: gm->lsram, lsram->gm, gm->gm)");
	/* the boundary: the last element */
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, l, 60, gc, 60, 1), KDSL_OK);
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, l, 60, gc, 0, 2), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: dma_copy: dst: 2 elements from element 15 are outside the tensor of 16 elements");
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, g, 0, lc, -4, 2), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: dma_copy: src: 2 elements from element -1 are outside the tensor of 16 elements");
	/* an lsram operand outside this runtime's lsram */
	int32_t other[16];
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, kdsl_ref_of((unsigned char *)other, 64,
	                                    KDSL_MEM_LSRAM), 0, gc, 0, 4), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_aipu_dma_copy(rt, &site, KDSL_I32, g, 0, kdsl_cref_of(NULL, 64, KDSL_MEM_GM), 0, 4),
	                 KDSL_ERR_ARG);
	/* nothing written by the refused copies */
	ck_assert_mem_eq(t, keep, sizeof t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime-aipu");
	TCase *tc = tcase_create("aipu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, lsram_is_32_kib_of_garbage);
	tcase_add_test(tc, gm_to_lsram_and_back);
	tcase_add_test(tc, rules_at_run_time);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
