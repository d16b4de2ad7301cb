/* test_neuron.c: runs the neuron examples (seeds 000, 002, 003) compiled by
 * kdslc and checks every element against a reference computed here: the
 * shuffles and the predicated copy exactly, matmul + exp against a double
 * reference with a tolerance, the engines' f32 rounding of i32 values
 * exactly.  The aliasing kernel shows that blocks on
 * one PSUM bank really share it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_alias.h"
#include "neuron_copy_predicated.h"
#include "neuron_f32_rounding.h"
#include "neuron_psum_double_buffer.h"
#include "neuron_stream_shuffle.h"
#include "neuron_transpose.h"
#include "../check_run.h"

static kdsl_rt *rt;

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_ptr_nonnull(rt);
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* uniform in [-s, s) */
static float unif(float s)
{
	return (float)((double)(next() >> 11) * 0x1p-53 * 2.0 - 1.0) * s;
}

/* Seed 002 example 1: result = predicate ? on_true : on_false. */
START_TEST(copy_predicated_selects)
{
	enum { P = 128, F = 512 };
	uint8_t *pred = malloc(P * F);
	float *t = malloc(sizeof *t * P * F), *f = malloc(sizeof *f * P * F), *r = malloc(sizeof *r * P * F);
	for (int i = 0; i < P * F; i++) {
		uint64_t x = next();
		pred[i] = x % 3 == 0 ? 0 : (uint8_t)(x >> 8);   /* nonzero bytes of every value */
		if (x % 3 && !pred[i])
			pred[i] = 1;
		t[i] = unif(100);
		f[i] = unif(100);
		r[i] = -7.0f;
	}
	/* kernel select: a glibc name, so kd_k_select in C (docs/language.md) */
	ck_assert_int_eq(kd_k_select(rt, pred, t, f, r), KDSL_OK);
	for (int i = 0; i < P * F; i++)
		ck_assert_uint_eq(*(uint32_t *)(void *)&r[i], *(uint32_t *)(void *)(pred[i] ? &t[i] : &f[i]));
	free(pred);
	free(t);
	free(f);
	free(r);
}
END_TEST

/* examples/neuron_transpose.k: at[j, p] = a[p, j] for every bit pattern,
 * NaNs with payloads, infinities, -0.0 and subnormals among them (the
 * Tensor Engine's transpose is bit-exact from NeuronCore-v3 on), over both
 * 128x128 blocks. */
START_TEST(transpose_is_bit_exact)
{
	enum { P = 128, F = 256 };
	uint32_t *a = malloc(sizeof *a * P * F), *at = malloc(sizeof *at * F * P);
	static const uint32_t special[] = {0x7fc01234u, 0xffbfffffu, 0x7f800000u, 0x80000000u, 0x00000001u};
	for (int i = 0; i < P * F; i++) {
		a[i] = (uint32_t)(next() >> 32);
		if (i % 97 < 5)
			a[i] = special[i % 97];
	}
	memset(at, 0xa5, sizeof *at * F * P);
	ck_assert_int_eq(transpose(rt, (const float *)(void *)a, (float *)(void *)at), KDSL_OK);
	for (int p = 0; p < P; p++)
		for (int j = 0; j < F; j++)
			ck_assert_uint_eq(at[j * P + p], a[p * F + j]);
	free(a);
	free(at);
}
END_TEST

/* examples/neuron_f32_rounding.k: the engines read an i32 as the nearest
 * f32 (ties to even) and store an f32 into an i32 or u32 truncated and
 * wrapped, so odd values above 2^24 do not survive activation "copy",
 * tensor_scalar or a converting tensor_copy; an i32 -> i32 copy does. */
START_TEST(f32_rounding_of_i32)
{
	enum { N = 128 * 64 };
	int32_t *x = malloc(sizeof *x * N), *copied = malloc(sizeof *x * N), *plus = malloc(sizeof *x * N);
	int32_t *same = malloc(sizeof *x * N);
	uint32_t *as_u32 = malloc(sizeof *as_u32 * N);
	float *as_f32 = malloc(sizeof *as_f32 * N);
	static const int32_t special[] = {16777217, 16777216, -16777217, 2147483647, -2147483647 - 1, 33554435, -3};
	int changed = 0;
	for (int i = 0; i < N; i++) {
		uint64_t r = next();
		x[i] = i % 2 ? (int32_t)(uint32_t)(r >> 32) : (int32_t)(16777216 - 64 + (int64_t)(r % 128)) * (r >> 63 ? -1 : 1);
		if (i < 7)
			x[i] = special[i];
	}
	ck_assert_int_eq(f32_rounding(rt, x, copied, plus, as_f32, as_u32, same), KDSL_OK);
	for (int i = 0; i < N; i++) {
		float f = (float)x[i];
		ck_assert_int_eq(copied[i], (int32_t)(uint32_t)(int64_t)f);
		ck_assert_int_eq(plus[i], (int32_t)(uint32_t)(int64_t)(f + 1.0f));
		ck_assert_int_eq(memcmp(&as_f32[i], &f, 4), 0);
		ck_assert_uint_eq(as_u32[i], (uint32_t)(int64_t)f);
		ck_assert_int_eq(same[i], x[i]);
		changed += copied[i] != x[i];
	}
	ck_assert_int_eq(copied[0], 16777216);
	ck_assert_int_eq(plus[0], 16777216);
	ck_assert_int_eq(copied[3], -2147483647 - 1);
	ck_assert_uint_eq(as_u32[6], 4294967293u);
	ck_assert_int_gt(changed, N / 8);   /* the rounding shows in many elements */
	free(x);
	free(copied);
	free(plus);
	free(same);
	free(as_u32);
	free(as_f32);
}
END_TEST

/* The matmul + exp of seed 003's example for block b of w, in double. */
static double ref_block(const float *xT, const float *w, int m, int col)
{
	double s = 0;
	for (int k = 0; k < 128; k++)
		s += (double)xT[k * 128 + m] * (double)w[k * 2048 + col];
	return exp(s);
}

static void matmul_inputs(float *xT, float *w)
{
	for (int i = 0; i < 128 * 128; i++)
		xT[i] = unif(0.25f);
	for (int i = 0; i < 128 * 2048; i++)
		w[i] = unif(0.25f);
}

static void check_close(double got, double want)
{
	ck_assert_msg(fabs(got - want) <= 1e-5 * fmax(1.0, fabs(want)), "got %.9g, want %.9g", got, want);
}

/* Seed 003: interleaved matmul and exp on a double-buffered PSUM tensor. */
START_TEST(double_buffer_matmul_exp)
{
	float *xT = malloc(sizeof *xT * 128 * 128), *w = malloc(sizeof *w * 128 * 2048);
	float *y = malloc(sizeof *y * 128 * 2048);
	matmul_inputs(xT, w);
	ck_assert_int_eq(matmul_exp(rt, xT, w, y), KDSL_OK);
	for (int m = 0; m < 128; m++)
		for (int c = 0; c < 2048; c++)
			check_close(y[m * 2048 + c], ref_block(xT, w, m, c));
	free(xT);
	free(w);
	free(y);
}
END_TEST

/* Four matmuls, then four activations, on two banks: block i's exp reads
 * the product of block (i mod 2) + 2, the last one written to its bank. */
START_TEST(aliasing_is_real)
{
	float *xT = malloc(sizeof *xT * 128 * 128), *w = malloc(sizeof *w * 128 * 2048);
	float *y = malloc(sizeof *y * 128 * 2048);
	matmul_inputs(xT, w);
	ck_assert_int_eq(matmul_then_exp(rt, xT, w, y), KDSL_OK);
	for (int m = 0; m < 128; m++)
		for (int c = 0; c < 2048; c++) {
			int blk = c / 512, last = blk % 2 + 2;
			check_close(y[m * 2048 + c], ref_block(xT, w, m, last * 512 + c % 512));
		}
	/* and it differs from the unaliased result for blocks 0 and 1 */
	ck_assert(fabs(y[0] - ref_block(xT, w, 0, 0)) > 1e-3);
	free(xT);
	free(w);
	free(y);
}
END_TEST

/* Seed 000: neighbouring partitions swapped in place in every quadrant. */
START_TEST(shuffle_swaps_pairs)
{
	float a[128 * 64], b[128 * 64];
	for (int i = 0; i < 128 * 64; i++) {
		a[i] = unif(10);
		b[i] = 0;
	}
	ck_assert_int_eq(swap_pairs(rt, a, b), KDSL_OK);
	for (int p = 0; p < 128; p++)
		for (int j = 0; j < 64; j++)
			ck_assert_float_eq(b[p * 64 + j], a[(p ^ 1) * 64 + j]);
}
END_TEST

/* Seed 000: one quadrant rotated from partition 32 to partition 64; mask
 * entry 255 leaves partition 31 of the view as memset made it. */
START_TEST(shuffle_rotates_quadrant)
{
	float a[32 * 16], b[32 * 16];
	for (int i = 0; i < 32 * 16; i++) {
		a[i] = unif(10);
		b[i] = 123;
	}
	ck_assert_int_eq(rotate_quadrant(rt, a, b), KDSL_OK);
	for (int i = 0; i < 32; i++)
		for (int j = 0; j < 16; j++)
			ck_assert_float_eq(b[i * 16 + j], i < 31 ? a[(i + 1) * 16 + j] : 0.0f);
}
END_TEST

/* tensor_tensor, tensor_scalar, tensor_copy, activation, iota and memset
 * with a runtime partition start. */
START_TEST(misc_ops)
{
	float a[128 * 8], b[128 * 8], out[128 * 8];
	int32_t ids[128 * 8];
	for (int i = 0; i < 128 * 8; i++) {
		a[i] = unif(4);
		b[i] = unif(4);
	}
	ck_assert_int_eq(misc(rt, a, b, out, ids, 5), KDSL_OK);
	for (int p = 0; p < 128; p++)
		for (int j = 0; j < 8; j++) {
			int i = p * 8 + j;
			float m = 2.0f * (a[i] > b[i] ? a[i] : b[i]);
			ck_assert_float_eq(out[i], (m > 0 ? m : 0.0f) - a[i]);
			ck_assert_int_eq(ids[i], p == 5 ? -1 : 5 + 3 * i);
		}
	/* partition 128 does not exist: an error, nothing stored */
	for (int i = 0; i < 128 * 8; i++)
		out[i] = 42;
	ck_assert_int_eq(misc(rt, a, b, out, ids, 128), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "neuron_alias.k:41:5: memset: dst: partitions 128..128"));
	ck_assert_float_eq(out[0], 42);
}
END_TEST

START_TEST(runtime_block_index)
{
	float x[128 * 8], y[128 * 8];
	for (int i = 0; i < 128 * 8; i++)
		x[i] = unif(5);
	for (int b = 0; b < 4; b++) {
		memset(y, 0, sizeof y);
		ck_assert_int_eq(pick(rt, x, y, b), KDSL_OK);
		for (int i = 0; i < 128 * 8; i++)
			ck_assert_float_eq(y[i], x[i] + 1.0f);
	}
	ck_assert_int_eq(pick(rt, x, y, 4), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "block index of 'acc' must be in 0..3, got 4"));
	ck_assert_int_eq(pick(rt, x, y, -1), KDSL_ERR_BOUNDS);
}
END_TEST

START_TEST(wrong_target)
{
	kdsl_rt *a = kdsl_rt_create(KDSL_TARGET_ASCEND);
	float x[32 * 16], y[32 * 16];
	ck_assert_int_eq(rotate_quadrant(a, x, y), KDSL_ERR_TARGET);
	kdsl_rt_destroy(a);
	ck_assert_int_eq(rotate_quadrant(rt, NULL, y), KDSL_ERR_ARG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e-neuron");
	TCase *tc = tcase_create("neuron");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, copy_predicated_selects);
	tcase_add_test(tc, double_buffer_matmul_exp);
	tcase_add_test(tc, aliasing_is_real);
	tcase_add_test(tc, shuffle_swaps_pairs);
	tcase_add_test(tc, shuffle_rotates_quadrant);
	tcase_add_test(tc, transpose_is_bit_exact);
	tcase_add_test(tc, f32_rounding_of_i32);
	tcase_add_test(tc, misc_ops);
	tcase_add_test(tc, runtime_block_index);
	tcase_add_test(tc, wrong_target);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
