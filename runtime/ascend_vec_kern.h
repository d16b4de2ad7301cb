/* ascend_vec_kern.h: the repeat kernels of ascend_vec.c, included once
 * per instruction set with KPFX naming it (base, avx2, avx512) under a
 * `#pragma GCC target` of that set, so the same plain loops are
 * vectorised for 16-, 32- and 64-byte vectors.  No header guard: each
 * inclusion defines KV(...)-prefixed copies and the table KV(kernels).
 * One element operation per iteration, the op a constant of each loop,
 * NaN rules as selects (no branch), elements read and written with
 * memcpy (the operands need no alignment). */

#define KV(x) KV_(KPFX, x)

/* A row of halves to f32 and back: F16C's conversions where the set has
 * them (exact, and round-to-nearest-even, as kdsl_h_f16_to_f32 and
 * kdsl_lane_f2h; an f16 signalling NaN comes out quiet, which the store
 * to f16 does anyway), else the branch-free loops. */
static void KV(h2f_row)(float *restrict o, const void *restrict i, int64_t n)
{
	int64_t j = 0;
#ifdef KV_F16C
	for (; j + 8 <= n; j += 8)
		_mm256_storeu_ps(o + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const unsigned char *)i + 2 * j))));
#endif
	for (; j < n; j++) {
		uint16_t h;
		memcpy(&h, (const unsigned char *)i + 2 * j, 2);
		o[j] = kdsl_h_f16_to_f32(h);
	}
}

static void KV(f2h_row)(void *restrict o, const float *restrict x, int64_t n)
{
	int64_t j = 0;
#ifdef KV_F16C
	for (; j + 8 <= n; j += 8)
		_mm_storeu_si128((__m128i *)((unsigned char *)o + 2 * j),
		                 _mm256_cvtps_ph(_mm256_loadu_ps(x + j), _MM_FROUND_TO_NEAREST_INT));
#endif
	for (; j < n; j++) {
		uint16_t h = kdsl_lane_f2h(x[j]);
		memcpy((unsigned char *)o + 2 * j, &h, 2);
	}
}

/* f16: the halves to f32 rows, the f32 result (exact once rounded to f16:
 * see ascend_vec.h), NaN picked by kdsl_av_nan2 (the store quiets it),
 * rounded to f16; n <= 128 (a repeat). */
#define KV_BIN_F16(NAME, EXPR)                                                                       \
	static void KV(NAME)(void *restrict o, const void *restrict a, const void *restrict b, int64_t n) \
	{                                                                                              \
		float fa[KDSL_ASCEND_REPEAT_BYTES / 2], fb[KDSL_ASCEND_REPEAT_BYTES / 2];                  \
		float fr[KDSL_ASCEND_REPEAT_BYTES / 2];                                                    \
		KV(h2f_row)(fa, a, n);                                                                     \
		KV(h2f_row)(fb, b, n);                                                                     \
		for (int64_t j = 0; j < n; j++) {                                                          \
			float x = fa[j], y = fb[j];                                                            \
			fr[j] = EXPR;                                                                          \
		}                                                                                          \
		KV(f2h_row)(o, fr, n);                                                                     \
	}
KV_BIN_F16(add_f16, kdsl_av_nan2(x, y, x + y))
KV_BIN_F16(sub_f16, kdsl_av_nan2(x, y, x - y))
KV_BIN_F16(mul_f16, kdsl_av_nan2(x, y, x * y))
KV_BIN_F16(max_f16, kdsl_av_max(x, y))
KV_BIN_F16(min_f16, kdsl_av_min(x, y))

/* f32: IEEE binary32, a NaN operand quieted (kdsl_av_nan2q); max and min
 * return an operand as it is. */
#define KV_BIN_F32(NAME, EXPR)                                                                       \
	static void KV(NAME)(void *restrict o, const void *restrict a, const void *restrict b, int64_t n) \
	{                                                                                              \
		for (int64_t j = 0; j < n; j++) {                                                          \
			float x, y, r;                                                                         \
			memcpy(&x, (const unsigned char *)a + 4 * j, 4);                                       \
			memcpy(&y, (const unsigned char *)b + 4 * j, 4);                                       \
			r = EXPR;                                                                              \
			memcpy((unsigned char *)o + 4 * j, &r, 4);                                             \
		}                                                                                          \
	}
KV_BIN_F32(add_f32, kdsl_av_nan2q(x, y, x + y))
KV_BIN_F32(sub_f32, kdsl_av_nan2q(x, y, x - y))
KV_BIN_F32(mul_f32, kdsl_av_nan2q(x, y, x * y))
KV_BIN_F32(max_f32, kdsl_av_max(x, y))
KV_BIN_F32(min_f32, kdsl_av_min(x, y))

/* i32: add, sub and mul wrap (unsigned arithmetic), max and min signed. */
#define KV_BIN_I32(NAME, EXPR)                                                                       \
	static void KV(NAME)(void *restrict o, const void *restrict a, const void *restrict b, int64_t n) \
	{                                                                                              \
		for (int64_t j = 0; j < n; j++) {                                                          \
			uint32_t x, y, r;                                                                      \
			memcpy(&x, (const unsigned char *)a + 4 * j, 4);                                       \
			memcpy(&y, (const unsigned char *)b + 4 * j, 4);                                       \
			r = EXPR;                                                                              \
			memcpy((unsigned char *)o + 4 * j, &r, 4);                                             \
		}                                                                                          \
	}
KV_BIN_I32(add_i32, x + y)
KV_BIN_I32(sub_i32, x - y)
KV_BIN_I32(mul_i32, x * y)
KV_BIN_I32(max_i32, (int32_t)x > (int32_t)y ? x : y)
KV_BIN_I32(min_i32, (int32_t)x < (int32_t)y ? x : y)

/* The one-source ops, x the element and k the scalar (of the dtype). */
#define KV_ONE_F16(NAME, EXPR)                                                                       \
	static void KV(NAME)(void *restrict o, const void *restrict a, float k, int64_t n)              \
	{                                                                                              \
		float fa[KDSL_ASCEND_REPEAT_BYTES / 2], fr[KDSL_ASCEND_REPEAT_BYTES / 2];                  \
		(void)k;                                                                                   \
		KV(h2f_row)(fa, a, n);                                                                     \
		for (int64_t j = 0; j < n; j++) {                                                          \
			float x = fa[j];                                                                       \
			fr[j] = EXPR;                                                                          \
		}                                                                                          \
		KV(f2h_row)(o, fr, n);                                                                     \
	}
#define KV_ONE_F32(NAME, EXPR)                                                                       \
	static void KV(NAME)(void *restrict o, const void *restrict a, float k, int64_t n)              \
	{                                                                                              \
		(void)k;                                                                                   \
		for (int64_t j = 0; j < n; j++) {                                                          \
			float x, r;                                                                            \
			memcpy(&x, (const unsigned char *)a + 4 * j, 4);                                       \
			r = EXPR;                                                                              \
			memcpy((unsigned char *)o + 4 * j, &r, 4);                                             \
		}                                                                                          \
	}
KV_ONE_F16(adds_f16, kdsl_av_nan2(x, k, x + k))
KV_ONE_F16(muls_f16, kdsl_av_nan2(x, k, x * k))
KV_ONE_F16(abs_f16, kdsl_av_abs(x))
KV_ONE_F16(rec_f16, 1.0f / x)
KV_ONE_F16(relu_f16, kdsl_av_relu(x))
KV_ONE_F32(adds_f32, kdsl_av_nan2q(x, k, x + k))
KV_ONE_F32(muls_f32, kdsl_av_nan2q(x, k, x * k))
KV_ONE_F32(abs_f32, kdsl_av_abs(x))
KV_ONE_F32(rec_f32, 1.0f / x)

static const av_kernels KV(kernels) = {
	.bin = {[AV_F16] = {KV(add_f16), KV(sub_f16), KV(mul_f16), KV(max_f16), KV(min_f16)},
	        [AV_F32] = {KV(add_f32), KV(sub_f32), KV(mul_f32), KV(max_f32), KV(min_f32)},
	        [AV_I32] = {KV(add_i32), KV(sub_i32), KV(mul_i32), KV(max_i32), KV(min_i32)}},
	.one = {[AV_F16] = {[KDSL_VU_ADDS] = KV(adds_f16), [KDSL_VU_MULS] = KV(muls_f16), [KDSL_VU_ABS] = KV(abs_f16),
	                    [KDSL_VU_REC] = KV(rec_f16), [KDSL_VU_RELU] = KV(relu_f16)},
	        [AV_F32] = {[KDSL_VU_ADDS] = KV(adds_f32), [KDSL_VU_MULS] = KV(muls_f32), [KDSL_VU_ABS] = KV(abs_f32),
	                    [KDSL_VU_REC] = KV(rec_f32)}},
};

#undef KV_BIN_F16
#undef KV_BIN_F32
#undef KV_BIN_I32
#undef KV_ONE_F16
#undef KV_ONE_F32
#undef KV
