/* test_aipu.c: the worked example tables of seed 004 (aipu permutations),
 * compiled by kdslc from aipu_tables.k and the aipu example, checked lane
 * by lane against the tables as the page prints them.  Inputs are
 * x_i = 10 + i and y_i = 20 + i, so "x3" is 13 and "y2" is 22. */
#include <check.h>
#include <string.h>

#include "aipu_permutations.h"
#include "aipu_tables.h"
#include "../check_run.h"

static kdsl_rt *rt;
static int32_t X[8], Y[8];

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	ck_assert_ptr_nonnull(rt);
	for (int i = 0; i < 8; i++) {
		X[i] = 10 + i;
		Y[i] = 20 + i;
	}
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

static void eq8(const int32_t *got, const int32_t *want)
{
	for (int i = 0; i < 8; i++)
		ck_assert_msg(got[i] == want[i], "lane %d: got %d, want %d", i, got[i], want[i]);
}

START_TEST(vconcat_all_parts)
{
	int32_t all[16], low[8], high[8], even[8], odd[8], sc[8];
	ck_assert_int_eq(t_concat_parts(rt, X, Y, all, low, high, even, odd, sc), KDSL_OK);
	const int32_t w_all[16] = {10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27};
	eq8(all, w_all);
	eq8(all + 8, w_all + 8);
	eq8(low, (const int32_t[]){10, 11, 12, 13, 20, 21, 22, 23});
	eq8(high, (const int32_t[]){14, 15, 16, 17, 24, 25, 26, 27});
	eq8(even, (const int32_t[]){10, 12, 14, 16, 20, 22, 24, 26});
	eq8(odd, (const int32_t[]){11, 13, 15, 17, 21, 23, 25, 27});
	/* vconcat(va, 3, "high"): the scalar is broadcast */
	eq8(sc, (const int32_t[]){14, 15, 16, 17, 3, 3, 3, 3});
}
END_TEST

START_TEST(vzip_all_parts)
{
	int32_t all[16], low[8], high[8], even[8], odd[8], sc[8];
	ck_assert_int_eq(t_zip_parts(rt, X, Y, all, low, high, even, odd, sc), KDSL_OK);
	const int32_t w_all[16] = {10, 20, 11, 21, 12, 22, 13, 23, 14, 24, 15, 25, 16, 26, 17, 27};
	eq8(all, w_all);
	eq8(all + 8, w_all + 8);
	eq8(low, (const int32_t[]){10, 20, 11, 21, 12, 22, 13, 23});
	eq8(high, (const int32_t[]){14, 24, 15, 25, 16, 26, 17, 27});
	eq8(even, (const int32_t[]){10, 20, 12, 22, 14, 24, 16, 26});
	eq8(odd, (const int32_t[]){11, 21, 13, 23, 15, 25, 17, 27});
	eq8(sc, (const int32_t[]){10, 3, 11, 3, 12, 3, 13, 3});
}
END_TEST

START_TEST(vsplit_x16_and_x24)
{
	int32_t x[24], p0[8], p1[8], p2[8];
	for (int i = 0; i < 24; i++)
		x[i] = 100 + i;
	ck_assert_int_eq(t_split16(rt, x, p0, p1), KDSL_OK);
	eq8(p0, (const int32_t[]){100, 101, 102, 103, 104, 105, 106, 107});
	eq8(p1, (const int32_t[]){108, 109, 110, 111, 112, 113, 114, 115});
	ck_assert_int_eq(t_split24(rt, x, p0, p1, p2), KDSL_OK);
	eq8(p0, (const int32_t[]){100, 101, 102, 103, 104, 105, 106, 107});
	eq8(p1, (const int32_t[]){108, 109, 110, 111, 112, 113, 114, 115});
	eq8(p2, (const int32_t[]){116, 117, 118, 119, 120, 121, 122, 123});
}
END_TEST

START_TEST(vcompt_vcompc_masks)
{
	int32_t ts[8], tt[8], cs[8], ct[8], cl[8];
	ck_assert_int_eq(t_compress(rt, X, Y, ts, tt, cs, ct, cl, 3), KDSL_OK);
	/* page: mask T T F F T T T F -> x0 x1 x4 x5 x6 0 0 0 */
	eq8(ts, (const int32_t[]){10, 11, 14, 15, 16, 0, 0, 0});
	eq8(tt, (const int32_t[]){10, 11, 12, 0, 0, 0, 0, 0});
	/* page: mask T T F T F T F F -> x0 x1 x3 x5 y0 y1 y2 y3 */
	eq8(cs, (const int32_t[]){10, 11, 13, 15, 20, 21, 22, 23});
	eq8(ct, (const int32_t[]){10, 11, 12, 20, 21, 22, 23, 24});
	eq8(cl, (const int32_t[]){10, 11, 13, 15, 20, 21, 22, 23});
	ck_assert_int_eq(t_compress(rt, X, Y, ts, tt, cs, ct, cl, 0), KDSL_OK);
	eq8(tt, (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 0});
	eq8(ct, (const int32_t[]){20, 21, 22, 23, 24, 25, 26, 27});
}
END_TEST

START_TEST(vrevs_vector_and_mask)
{
	int32_t r[8], rm[8];
	ck_assert_int_eq(t_reverse(rt, X, r, rm), KDSL_OK);
	eq8(r, (const int32_t[]){17, 16, 15, 14, 13, 12, 11, 10});
	eq8(rm, (const int32_t[]){10, 11, 0, 0, 0, 0, 0, 0});
}
END_TEST

START_TEST(vsel_scalar_and_no_mask)
{
	int32_t s[8], sc[8], sl[8], sn[8];
	ck_assert_int_eq(t_select(rt, X, Y, s, sc, sl, sn), KDSL_OK);
	/* page: mask T T F F T T T F -> x0 x1 y2 y3 x4 x5 x6 y7 */
	eq8(s, (const int32_t[]){10, 11, 22, 23, 14, 15, 16, 27});
	eq8(sc, (const int32_t[]){10, 11, 12, 3, 3, 3, 3, 3});
	eq8(sl, (const int32_t[]){3, 3, 22, 23, 24, 25, 26, 27});
	eq8(sn, X);
}
END_TEST

START_TEST(vshfl_constant_and_runtime)
{
	int32_t c[8], r[8];
	ck_assert_int_eq(t_shuffle(rt, X, c, r, 5), KDSL_OK);
	/* page: shift 2 -> x2 x3 x4 x5 x6 x7 x0 x1 */
	eq8(c, (const int32_t[]){12, 13, 14, 15, 16, 17, 10, 11});
	eq8(r, (const int32_t[]){15, 16, 17, 10, 11, 12, 13, 14});
	ck_assert_int_eq(t_shuffle(rt, X, c, r, -3), KDSL_OK);
	eq8(r, (const int32_t[]){15, 16, 17, 10, 11, 12, 13, 14});
	ck_assert_int_eq(t_shuffle(rt, X, c, r, 10), KDSL_OK);
	eq8(r, (const int32_t[]){12, 13, 14, 15, 16, 17, 10, 11});
}
END_TEST

START_TEST(vbcast_mask_and_lanes)
{
	int32_t m[8];
	int16_t l[16];
	kdsl_f16 h[16];
	uint8_t t[8];
	float f[8];
	ck_assert_int_eq(t_broadcast(rt, m, l, h, t, f, 5), KDSL_OK);
	/* page: mask T T T T F F F F -> 3 3 3 3 and (our reading) zeros */
	eq8(m, (const int32_t[]){3, 3, 3, 3, 0, 0, 0, 0});
	for (int i = 0; i < 16; i++) {
		ck_assert_int_eq(l[i], 5);
		ck_assert_uint_eq(h[i], kdsl_f64_to_f16(1.23));
	}
	for (int i = 0; i < 8; i++) {
		ck_assert_uint_eq(t[i], i < 5 ? 200 : 0);
		ck_assert(f[i] == (i < 3 ? 3.14159f : 0.0f));
	}
}
END_TEST

START_TEST(vsldl_vector_and_scalar)
{
	int32_t r[8], s[8];
	ck_assert_int_eq(t_slide(rt, X, Y, r, s), KDSL_OK);
	/* page: shift 3 -> x3 x4 x5 x6 x7 y0 y1 y2 */
	eq8(r, (const int32_t[]){13, 14, 15, 16, 17, 20, 21, 22});
	eq8(s, (const int32_t[]){12, 13, 14, 15, 16, 17, 3, 3});
}
END_TEST

START_TEST(vtbl_two_three_four)
{
	int32_t t[32], r2[8], r3[8], r4[8];
	for (int i = 0; i < 32; i++)
		t[i] = 100 + i;
	/* the page's indices: 1 1 5 7 3 10 99 100 -> t1 t1 t5 t7 t3 t10 0 0 */
	const int32_t page[8] = {1, 1, 5, 7, 3, 10, 99, 100};
	ck_assert_int_eq(t_table(rt, t, t + 8, t + 16, t + 24, page, r2, r3, r4), KDSL_OK);
	eq8(r4, (const int32_t[]){101, 101, 105, 107, 103, 110, 0, 0});
	eq8(r3, (const int32_t[]){101, 101, 105, 107, 103, 110, 0, 0});
	eq8(r2, (const int32_t[]){101, 101, 105, 107, 103, 110, 0, 0});
	/* indices past 2, 3 and 4 vectors, and a negative one */
	const int32_t mine[8] = {15, 16, 23, 24, 31, 32, -1, 0};
	ck_assert_int_eq(t_table(rt, t, t + 8, t + 16, t + 24, mine, r2, r3, r4), KDSL_OK);
	eq8(r2, (const int32_t[]){115, 0, 0, 0, 0, 0, 0, 100});
	eq8(r3, (const int32_t[]){115, 116, 123, 0, 0, 0, 0, 100});
	eq8(r4, (const int32_t[]){115, 116, 123, 124, 131, 0, 0, 100});
}
END_TEST

START_TEST(vreplic_default_and_scalar)
{
	int32_t r0[8], r3[8], rk[8];
	ck_assert_int_eq(t_replicate(rt, X, r0, r3, rk, 6), KDSL_OK);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(r0[i], 10);
		ck_assert_int_eq(r3[i], 13);
		ck_assert_int_eq(rk[i], 16);
	}
	ck_assert_int_eq(t_replicate(rt, X, r0, r3, rk, 8), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "aipu_tables.k:107:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "vreplic: index must be in 0..7, got 8"));
}
END_TEST

START_TEST(f16_permutations)
{
	kdsl_f16 x[16], y[16], z[32], r[16], e[16];
	for (int i = 0; i < 16; i++) {
		x[i] = kdsl_f32_to_f16((float)i + 0.5f);
		y[i] = kdsl_f32_to_f16(-(float)i - 0.25f);
	}
	ck_assert_int_eq(t_half_ops(rt, x, y, z, r, e), KDSL_OK);
	for (int i = 0; i < 16; i++) {
		ck_assert_uint_eq(z[2 * i], x[i]);
		ck_assert_uint_eq(z[2 * i + 1], y[i]);
		ck_assert_uint_eq(r[i], x[15 - i]);
		ck_assert_uint_eq(e[i], i < 8 ? x[2 * i] : y[2 * (i - 8)]);
	}
	ck_assert_float_eq(kdsl_f16_to_f32(r[0]), 15.5f);
}
END_TEST

START_TEST(u8_permutations)
{
	uint8_t x[32], y[32], o[32], s[32], t[32];
	for (int i = 0; i < 32; i++) {
		x[i] = (uint8_t)i;
		y[i] = (uint8_t)(2 * i);
	}
	ck_assert_int_eq(t_byte_ops(rt, x, y, o, s, t, 10), KDSL_OK);
	for (int i = 0; i < 32; i++) {
		ck_assert_uint_eq(o[i], i < 16 ? x[2 * i + 1] : y[2 * (i - 16) + 1]);
		ck_assert_uint_eq(s[i], i < 10 ? x[i] : 255);
		int k = 3 * i;   /* index lane y + x */
		ck_assert_uint_eq(t[i], k < 32 ? x[k] : k < 64 ? y[k - 32] : 0);
	}
}
END_TEST

START_TEST(elementwise_and_loop_carried)
{
	int32_t x[64], y[8] = {5, -5, 50, 0, 1, 2, 3, 4}, sum[8], mn[8], mx[8];
	float fx[8], fo[8];
	for (int i = 0; i < 64; i++)
		x[i] = i;
	for (int i = 0; i < 8; i++)
		fx[i] = 0.5f * (float)i;
	ck_assert_int_eq(t_arith(rt, x, y, sum, mn, mx, fx, fo), KDSL_OK);
	for (int l = 0; l < 8; l++) {
		ck_assert_int_eq(sum[l], 448 + 16 * l - y[l]);
		ck_assert_int_eq(mn[l], l < y[l] ? l : y[l]);
		ck_assert_int_eq(mx[l], l > 4 ? l : 4);
		ck_assert(fo[l] == fx[l] * fx[l] + 0.5f);
	}
}
END_TEST

START_TEST(masked_and_runtime_bounds)
{
	int32_t x[10], out[10], full[8];
	for (int i = 0; i < 10; i++) {
		x[i] = 100 + i;
		out[i] = -1;
	}
	ck_assert_int_eq(t_masked(rt, x, out, full, 4, 6), KDSL_OK);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(out[i], i < 4 ? -1 : 100 + i);
	eq8(full, (const int32_t[]){104, 105, 106, 107, 108, 109, 0, 0});
	/* lane 6 would read element 10 */
	ck_assert_int_eq(t_masked(rt, x, out, full, 4, 7), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "aipu_tables.k:143:"));
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "vload: lane 6 of the vector at element 4"));
	/* no active lane: nothing is touched, wherever the index points */
	ck_assert_int_eq(t_masked(rt, x, out, full, -100, 0), KDSL_OK);
	eq8(full, (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 0});
}
END_TEST

/* The aipu example of the language contract, with its stated outputs. */
START_TEST(example_zip_and_select)
{
	int32_t zipped[16], picked[8], packed[8];
	ck_assert_int_eq(zip_and_select(rt, X, Y, zipped, picked, packed, 3), KDSL_OK);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(zipped[2 * i], X[i]);
		ck_assert_int_eq(zipped[2 * i + 1], Y[i]);
	}
	eq8(picked, (const int32_t[]){10, 11, 22, 23, 14, 15, 16, 27});
	eq8(packed, (const int32_t[]){10, 11, 12, 0, 0, 0, 0, 0});
}
END_TEST

START_TEST(wrong_target)
{
	kdsl_rt *asc = kdsl_rt_create(KDSL_TARGET_ASCEND);
	int32_t r[8], s[8];
	ck_assert_int_eq(t_slide(asc, X, Y, r, s), KDSL_ERR_TARGET);
	kdsl_rt_destroy(asc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e-aipu");
	TCase *tc = tcase_create("seed004");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, vconcat_all_parts);
	tcase_add_test(tc, vzip_all_parts);
	tcase_add_test(tc, vsplit_x16_and_x24);
	tcase_add_test(tc, vcompt_vcompc_masks);
	tcase_add_test(tc, vrevs_vector_and_mask);
	tcase_add_test(tc, vsel_scalar_and_no_mask);
	tcase_add_test(tc, vshfl_constant_and_runtime);
	tcase_add_test(tc, vbcast_mask_and_lanes);
	tcase_add_test(tc, vsldl_vector_and_scalar);
	tcase_add_test(tc, vtbl_two_three_four);
	tcase_add_test(tc, vreplic_default_and_scalar);
	tcase_add_test(tc, f16_permutations);
	tcase_add_test(tc, u8_permutations);
	tcase_add_test(tc, elementwise_and_loop_carried);
	tcase_add_test(tc, masked_and_runtime_bounds);
	tcase_add_test(tc, example_zip_and_select);
	tcase_add_test(tc, wrong_target);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
