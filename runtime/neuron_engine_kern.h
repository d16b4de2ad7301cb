/* neuron_engine_kern.h: the row kernels of neuron_engine.c, included once
 * per instruction set with KPFX naming the set (base, avx2, avx512) under
 * a `#pragma GCC target` of that set, so the same plain loops are
 * vectorised for 16-, 32- and 64-byte vectors.  No header guard: each
 * inclusion defines KN(...)-prefixed copies and the table KN(kernels).
 *
 * Every loop here is one element operation per iteration, written so gcc
 * vectorises it without changing a result bit: no reassociation, no
 * contraction (the file is built with -ffp-contract=off), conversions in
 * branch-free forms whose every lane computes what kdsl_load_f32 and
 * kdsl_store_f32 compute for that element (tests/unit compares them byte
 * for byte under each KDSL_ISA).  Elements are read and written with
 * memcpy, so operands need no alignment. */

#define KN(x) KN_(KPFX, x)

/* ---- loads: n elements of a dtype to f32 ---- */

static void KN(load_f32)(float *restrict o, const unsigned char *restrict i, int64_t n)
{
	memcpy(o, i, (size_t)n * 4);
}

/* f16 -> f32: kdsl_h_f16_to_f32 lane by lane, a loop gcc vectorises,
 * after the vector sets' conversion instructions. */
static void KN(load_f16)(float *restrict o, const unsigned char *restrict i, int64_t n)
{
	int64_t j = 0;
#if KDSL_ENG_X86 && KMM_VB == 64
	/* AVX-512: vcvtph2ps, 16 a time, which gives the same bits except
	 * that it makes a signalling NaN quiet: the quiet bit is cleared
	 * again in those lanes (all 65536 inputs checked: tests/unit) */
	for (; j + 16 <= n; j += 16) {
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(i + 2 * j));
		__m512i hw = _mm512_cvtepu16_epi32(h), f = _mm512_castps_si512(_mm512_cvtph_ps(h));
		__mmask16 snan = _mm512_cmpeq_epi32_mask(_mm512_and_si512(hw, _mm512_set1_epi32(0x7e00)),
		                                         _mm512_set1_epi32(0x7c00)) &
		                 _mm512_test_epi32_mask(hw, _mm512_set1_epi32(0x1ff));
		f = _mm512_mask_andnot_epi32(f, snan, _mm512_set1_epi32(0x400000), f);
		_mm512_storeu_si512((void *)(o + j), f);
	}
#elif KDSL_ENG_X86 && KMM_VB == 32
	/* AVX2: F16C's vcvtph2ps, 8 a time, with the same repair */
	for (; j + 8 <= n; j += 8) {
		__m128i h = _mm_loadu_si128((const __m128i *)(const void *)(i + 2 * j));
		__m256i hw = _mm256_cvtepu16_epi32(h), f = _mm256_castps_si256(_mm256_cvtph_ps(h));
		__m256i nan = _mm256_cmpeq_epi32(_mm256_and_si256(hw, _mm256_set1_epi32(0x7e00)), _mm256_set1_epi32(0x7c00));
		__m256i pay = _mm256_cmpeq_epi32(_mm256_and_si256(hw, _mm256_set1_epi32(0x1ff)), _mm256_setzero_si256());
		__m256i snan = _mm256_andnot_si256(pay, nan);
		f = _mm256_andnot_si256(_mm256_and_si256(snan, _mm256_set1_epi32(0x400000)), f);
		_mm256_storeu_si256((__m256i *)(void *)(o + j), f);
	}
#endif
	for (; j < n; j++) {
		uint16_t h;
		memcpy(&h, i + 2 * j, 2);
		o[j] = kdsl_h_f16_to_f32(h);
	}
}

static void KN(load_bf16)(float *restrict o, const unsigned char *restrict i, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		uint16_t h;
		uint32_t bits;
		memcpy(&h, i + 2 * j, 2);
		bits = (uint32_t)h << 16;
		memcpy(o + j, &bits, 4);
	}
}

/* Integers: C's int -> float conversion rounds to nearest even, as
 * kdsl_load_f32; bool is any nonzero byte. */
#define KLOAD_INT(NAME, T)                                                                 \
	static void KN(NAME)(float *restrict o, const unsigned char *restrict i, int64_t n)    \
	{                                                                                      \
		for (int64_t j = 0; j < n; j++) {                                                  \
			T v;                                                                           \
			memcpy(&v, i + sizeof v * (size_t)j, sizeof v);                                \
			o[j] = (float)v;                                                               \
		}                                                                                  \
	}
KLOAD_INT(load_i8, int8_t)
KLOAD_INT(load_i16, int16_t)
KLOAD_INT(load_i32, int32_t)
KLOAD_INT(load_i64, int64_t)
KLOAD_INT(load_u8, uint8_t)
KLOAD_INT(load_u16, uint16_t)
KLOAD_INT(load_u32, uint32_t)
KLOAD_INT(load_u64, uint64_t)

static void KN(load_bool)(float *restrict o, const unsigned char *restrict i, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = i[j] != 0 ? 1.0f : 0.0f;
}

/* ---- stores: n f32 values to a dtype ---- */

static void KN(store_f32)(unsigned char *restrict o, const float *restrict x, int64_t n)
{
	memcpy(o, x, (size_t)n * 4);
}

/* f32 -> f16 lane by lane (f16_lane.h), a loop gcc vectorises. */
static void KN(store_f16)(unsigned char *restrict o, const float *restrict x, int64_t n)
{
	int64_t j = 0;
#if KDSL_ENG_X86 && KMM_VB == 64
	/* AVX-512: vcvtps2ph to nearest even, 16 a time: the same bits as
	 * kdsl_lane_f2h for all 2^32 inputs (NaNs quiet, payload's top bits
	 * kept, as the definition makes them) */
	for (; j + 16 <= n; j += 16)
		_mm256_storeu_si256((__m256i *)(void *)(o + 2 * j),
		                    _mm512_cvtps_ph(_mm512_loadu_ps(x + j), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif KDSL_ENG_X86 && KMM_VB == 32
	for (; j + 8 <= n; j += 8)   /* AVX2: F16C's vcvtps2ph */
		_mm_storeu_si128((__m128i *)(void *)(o + 2 * j),
		                 _mm256_cvtps_ph(_mm256_loadu_ps(x + j), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
	for (; j < n; j++) {
		uint16_t h = kdsl_lane_f2h(x[j]);
		memcpy(o + 2 * j, &h, 2);
	}
}

static void KN(store_bf16)(unsigned char *restrict o, const float *restrict x, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		uint32_t u;
		uint16_t h;
		memcpy(&u, x + j, 4);
		h = (u & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((u >> 16) | 0x40u)
		                                    : (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
		memcpy(o + 2 * j, &h, 2);
	}
}

/* Integers up to 32 bits: when every value of the chunk is below 2^31 in
 * magnitude (the usual case, found by one vectorised pass), truncation to
 * int32 then the low bits is kdsl_store_f32's truncate-and-wrap; a chunk
 * with a larger value, NaN or an infinity goes element by element through
 * kdsl_store_f32 itself. */
#define KSTORE_INT(NAME, T, DT)                                                            \
	static void KN(NAME)(unsigned char *restrict o, const float *restrict x, int64_t n)    \
	{                                                                                      \
		int ok = 1;                                                                        \
		for (int64_t j = 0; j < n; j++)                                                    \
			ok &= fabsf(x[j]) < 0x1p31f;                                                   \
		if (ok) {                                                                          \
			for (int64_t j = 0; j < n; j++) {                                              \
				T v = (T)(int32_t)x[j];                                                    \
				memcpy(o + sizeof v * (size_t)j, &v, sizeof v);                            \
			}                                                                              \
			return;                                                                        \
		}                                                                                  \
		for (int64_t j = 0; j < n; j++)                                                    \
			kdsl_store_f32(DT, o + sizeof(T) * (size_t)j, x[j]);                           \
	}
KSTORE_INT(store_i8, uint8_t, KDSL_I8)
KSTORE_INT(store_i16, uint16_t, KDSL_I16)
KSTORE_INT(store_i32, uint32_t, KDSL_I32)
KSTORE_INT(store_u8, uint8_t, KDSL_U8)
KSTORE_INT(store_u16, uint16_t, KDSL_U16)
KSTORE_INT(store_u32, uint32_t, KDSL_U32)

/* 64-bit integers: rare; kdsl_store_f32 per element. */
#define KSTORE_GEN(NAME, DT)                                                               \
	static void KN(NAME)(unsigned char *restrict o, const float *restrict x, int64_t n)    \
	{                                                                                      \
		for (int64_t j = 0; j < n; j++)                                                    \
			kdsl_store_f32(DT, o + 8 * (size_t)j, x[j]);                                   \
	}
KSTORE_GEN(store_i64, KDSL_I64)
KSTORE_GEN(store_u64, KDSL_U64)

static void KN(store_bool)(unsigned char *restrict o, const float *restrict x, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = x[j] != 0;
}

/* ---- f32 arithmetic: one rounding per operation ---- */

/* r = x op y with kdsl's NaN rule: a NaN result with a NaN operand is x
 * quieted if x is NaN, else y quieted (x86's rule for its first operand;
 * C lets a compiler swap the operands of + and *, so vector and scalar
 * code would keep different payloads when both are NaN).  Masks, not
 * branches: it vectorises. */
static inline float KN(nan_rule)(float r, float x, float y)
{
	uint32_t br, bx, by, xn = 0u - (uint32_t)(x != x), yn = 0u - (uint32_t)(y != y);
	memcpy(&br, &r, 4);
	memcpy(&bx, &x, 4);
	memcpy(&by, &y, 4);
	br = (xn & (bx | 0x400000u)) | (~xn & ((yn & (by | 0x400000u)) | (~yn & br)));
	memcpy(&r, &br, 4);
	return r;
}

#define KBIN(NAME, EXPR)                                                                       \
	static void KN(bin_##NAME)(float *restrict o, const float *restrict a, const float *restrict b, \
	                           int64_t n)                                                          \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float x = a[j], y = b[j];                                                          \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	static void KN(sca_##NAME)(float *restrict o, const float *restrict a, float y, int64_t n) \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float x = a[j];                                                                    \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	/* reversed: the scalar is the left operand (tensor_scalar's reverse) */                   \
	static void KN(rsca_##NAME)(float *restrict o, const float *restrict a, float x, int64_t n) \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float y = a[j];                                                                    \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	/* in place: o is the left (ibin, isca) or the right (jbin, irsca) operand */              \
	static void KN(ibin_##NAME)(float *restrict o, const float *restrict b, int64_t n)         \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float x = o[j], y = b[j];                                                          \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	static void KN(jbin_##NAME)(float *restrict o, const float *restrict a, int64_t n)         \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float x = a[j], y = o[j];                                                          \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	static void KN(isca_##NAME)(float *restrict o, float y, int64_t n)                         \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float x = o[j];                                                                    \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}                                                                                          \
	static void KN(irsca_##NAME)(float *restrict o, float x, int64_t n)                        \
	{                                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                      \
			float y = o[j];                                                                    \
			o[j] = EXPR;                                                                       \
		}                                                                                      \
	}
/* max and min in this form: NaN in x gives y, NaN in y gives y (x86's
 * maxps/minps, and what the engines' reference defines) */
KBIN(add, KN(nan_rule)(x + y, x, y))
KBIN(sub, KN(nan_rule)(x - y, x, y))
KBIN(mul, KN(nan_rule)(x * y, x, y))
KBIN(max, x > y ? x : y)
KBIN(min, x < y ? x : y)
/* IEEE division, correctly rounded on every isa (divps is) */
KBIN(div, KN(nan_rule)(x / y, x, y))

static void KN(act_copy)(float *restrict o, const float *restrict a, int64_t n)
{
	memcpy(o, a, (size_t)n * 4);
}

/* exp is the f32 nearest e^x: libm's double exp rounded once to f32, so
 * it is the same on every libc (expf is not correctly rounded and differs
 * between libcs; numpy's own f32 exp differs from both in the last bit).
 * act_exp, act_sigmoid, act_tanh and act_log compute these bits in vector lanes,
 * with libm for the rare lanes they cannot decide (neuron_act_fast.h). */
#include "neuron_act_fast.h"

static void KN(act_relu)(float *restrict o, const float *restrict a, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = a[j] > 0 ? a[j] : 0;
}

/* The functions below are one f32 (or double) operation each, correctly
 * rounded, so vector and scalar code agree; the transcendental ones are
 * libm's double function rounded once to f32, like exp above (sigmoid,
 * 1 / (1 + e^-x) in double, is in neuron_act_fast.h). */
static void KN(act_square)(float *restrict o, const float *restrict a, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = a[j] * a[j];
}

static void KN(act_sqrt)(float *restrict o, const float *restrict a, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = sqrtf(a[j]);
}

/* 1/sqrt(x) in double (each step correctly rounded), rounded once to f32:
 * within half an f32 ulp but for a double rounding no test input meets */
static void KN(act_rsqrt)(float *restrict o, const float *restrict a, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = (float)(1.0 / sqrt((double)a[j]));
}

static void KN(act_reciprocal)(float *restrict o, const float *restrict a, int64_t n)
{
	for (int64_t j = 0; j < n; j++)
		o[j] = 1.0f / a[j];
}


/* ---- nc_matmul ---- */

/* The register-blocked matmul: a block of KMM_MR output rows by nv
 * vectors of KMM_VB bytes (nv <= KMM_NR, both set per instruction set by
 * neuron_engine.c) is summed in registers over all of k, k innermost,
 * then written to dst once.  Each element is still the scalar loop's
 * c = 0.0f, then c = c + a[k][m] * b[k][j] for k in order, the product
 * and the sum each rounded (no contraction in this file), so the bytes
 * are the same on every isa and for every block shape. */
typedef float KN(vf) __attribute__((vector_size(KMM_VB)));
typedef uint32_t KN(vu) __attribute__((vector_size(KMM_VB)));
#define KVL (KMM_VB / 4)

_Static_assert(KMM_MR <= KDSL_ENG_MM_MAX_MR && KMM_NR * KVL <= KDSL_ENG_MM_MAX_W,
               "nc_matmul's block exceeds the scratch that neuron_engine.h reserves for its edges");

/* nan_rule lane by lane (the same masks). */
static inline __attribute__((always_inline)) KN(vf) KN(vnan)(KN(vf) r, KN(vf) x, KN(vf) y)
{
	KN(vu) xn = (KN(vu))(x != x), yn = (KN(vu))(y != y), br = (KN(vu))r, bx = (KN(vu))x, by = (KN(vu))y;
	br = (xn & (bx | 0x400000u)) | (~xn & ((yn & (by | 0x400000u)) | (~yn & br)));
	return (KN(vf))br;
}

/* s in every lane (0.0f + s would turn -0 into +0). */
static inline __attribute__((always_inline)) KN(vf) KN(splat)(float s)
{
	KN(vf) v;
#pragma GCC unroll 16
	for (int l = 0; l < KVL; l++)
		v[l] = s;
	return v;
}

/* A result row into dst: stored, or added to what dst holds (the NaN
 * rule, dst's value first).  The edges of a block go through here. */
static void KN(mm_out)(unsigned char *restrict o, const float *restrict c, int64_t N, int accumulate)
{
	if (!accumulate) {
		memcpy(o, c, (size_t)N * 4);
		return;
	}
	for (int64_t j = 0; j < N; j++) {
		float v;
		memcpy(&v, o + 4 * j, 4);
		v = KN(nan_rule)(v + c[j], v, c[j]);
		memcpy(o + 4 * j, &v, 4);
	}
}

/* The block's sums c into dst rows ds bytes apart: mr rows of nc floats
 * (nc <= nv * KVL); a whole block straight from the registers. */
static inline __attribute__((always_inline)) void KN(mm_put)(unsigned char *restrict d, size_t ds,
                                                             KN(vf) c[KMM_MR][KMM_NR], int64_t mr, int64_t nc,
                                                             int accumulate, const int nv)
{
	float t[KMM_MR][KMM_NR * KVL];

	if (mr == KMM_MR && nc == nv * KVL) {
#pragma GCC unroll 16
		for (int i = 0; i < KMM_MR; i++)
#pragma GCC unroll 16
			for (int v = 0; v < nv; v++) {
				unsigned char *o = d + (size_t)i * ds + (size_t)v * KMM_VB;
				KN(vf) x = c[i][v];
				if (accumulate) {
					KN(vf) old;
					memcpy(&old, o, KMM_VB);
					x = KN(vnan)(old + x, old, x);
				}
				memcpy(o, &x, KMM_VB);
			}
		return;
	}
	for (int i = 0; i < KMM_MR; i++)
		for (int v = 0; v < nv; v++)
			memcpy(&t[i][v * KVL], &c[i][v], KMM_VB);
	for (int64_t i = 0; i < mr; i++)
		KN(mm_out)(d + (size_t)i * ds, t[i], nc, accumulate);
}

/* One block: rows m of a (row k at a + k * lda, KMM_MR floats from a)
 * against nv vectors of b (row k at b + k * ldb).  nan: every product
 * and sum under the NaN rule.  Without it (the plain kernel) a block
 * whose sums hold no NaN is exact, since a NaN input makes NaN sums in
 * its row or column and no sum leaves NaN once it is one: so a NaN in
 * the sums stores nothing and returns 1, for the caller to redo the block
 * under the rule (its NaNs may come from NaN inputs, whose payloads the
 * rule fixes; every other NaN is the default NaN either way). */
static inline __attribute__((always_inline)) int KN(mm_block)(unsigned char *restrict d, size_t ds,
                                                              const unsigned char *restrict a, size_t lda,
                                                              const unsigned char *restrict b, size_t ldb,
                                                              int64_t K, int64_t mr, int64_t nc, int accumulate,
                                                              const int nv, const int nan)
{
	KN(vf) c[KMM_MR][KMM_NR];

#pragma GCC unroll 16
	for (int i = 0; i < KMM_MR; i++)
#pragma GCC unroll 16
		for (int v = 0; v < nv; v++)
			c[i][v] = (KN(vf)){0};
	for (int64_t k = 0; k < K; k++) {
		const unsigned char *ak = a + (size_t)k * lda, *bk = b + (size_t)k * ldb;
		KN(vf) bv[KMM_NR];
#pragma GCC unroll 16
		for (int v = 0; v < nv; v++)
			memcpy(&bv[v], bk + (size_t)v * KMM_VB, KMM_VB);
#pragma GCC unroll 16
		for (int i = 0; i < KMM_MR; i++) {
			float s;
			memcpy(&s, ak + 4 * i, 4);
			KN(vf) sv = KN(splat)(s);
#pragma GCC unroll 16
			for (int v = 0; v < nv; v++) {
				if (nan) {
					KN(vf) p = KN(vnan)(sv * bv[v], sv, bv[v]);
					c[i][v] = KN(vnan)(c[i][v] + p, c[i][v], p);
				} else {
					c[i][v] = c[i][v] + sv * bv[v];
				}
			}
		}
	}
	if (!nan) {
		KN(vu) any = {0};
#pragma GCC unroll 16
		for (int i = 0; i < KMM_MR; i++)
#pragma GCC unroll 16
			for (int v = 0; v < nv; v++)
				any |= (KN(vu))(c[i][v] != c[i][v]);
#pragma GCC unroll 16
		for (int l = 1; l < KVL; l++)
			any[0] |= any[l];
		if (any[0])
			return 1;
	}
	KN(mm_put)(d, ds, c, mr, nc, accumulate, nv);
	return 0;
}

typedef void (*KN(mm_fn))(unsigned char *restrict d, size_t ds, const unsigned char *restrict a, size_t lda,
                          const unsigned char *restrict b, size_t ldb, int64_t K, int64_t mr, int64_t nc,
                          int accumulate);

/* The block kernels of NV vectors: the plain one, redoing a block with a
 * NaN under the rule. */
#define KMM_BLOCK(NV)                                                                                         \
	static void KN(mm_block_nan_##NV)(unsigned char *restrict d, size_t ds, const unsigned char *restrict a,   \
	                                  size_t lda, const unsigned char *restrict b, size_t ldb, int64_t K,       \
	                                  int64_t mr, int64_t nc, int accumulate)                                   \
	{                                                                                                         \
		(void)KN(mm_block)(d, ds, a, lda, b, ldb, K, mr, nc, accumulate, NV, 1);                               \
	}                                                                                                         \
	static void KN(mm_block_##NV)(unsigned char *restrict d, size_t ds, const unsigned char *restrict a,       \
	                              size_t lda, const unsigned char *restrict b, size_t ldb, int64_t K,           \
	                              int64_t mr, int64_t nc, int accumulate)                                       \
	{                                                                                                         \
		if (KN(mm_block)(d, ds, a, lda, b, ldb, K, mr, nc, accumulate, NV, 0))                                 \
			KN(mm_block_nan_##NV)(d, ds, a, lda, b, ldb, K, mr, nc, accumulate);                               \
	}
KMM_BLOCK(1)
#if KMM_NR >= 2
KMM_BLOCK(2)
#endif
#if KMM_NR >= 3
KMM_BLOCK(3)
#endif
#if KMM_NR >= 4
KMM_BLOCK(4)
#endif
#if KMM_NR > 4
#error "nc_matmul: KMM_NR above 4 needs more block kernels"
#endif

/* [nv - 1] */
static const KN(mm_fn) KN(mm_blocks)[KMM_NR] = {
	KN(mm_block_1),
#if KMM_NR >= 2
	KN(mm_block_2),
#endif
#if KMM_NR >= 3
	KN(mm_block_3),
#endif
#if KMM_NR >= 4
	KN(mm_block_4),
#endif
};

/* K rows of n floats at p, ps bytes apart, into a packed buffer of w
 * floats a row, zeros after the n (the lanes and rows they make are
 * computed and never stored; an infinity times such a zero makes a NaN
 * there, which only sends the block to the NaN-rule kernel). */
static void KN(mm_pack)(float *restrict o, int64_t w, const unsigned char *restrict p, size_t ps, int64_t K,
                        int64_t n)
{
	for (int64_t k = 0; k < K; k++) {
		memcpy(o + k * w, p + (size_t)k * ps, (size_t)n * 4);
		memset(o + k * w + n, 0, (size_t)(w - n) * 4);
	}
}

/* mm_pack for a full panel (n = w = KMM_NR vectors): each row's copy is
 * KMM_NR vector moves.  mm_pack's copy of a run-time length became a
 * `rep movsq` and a memset call a row, 7% of bench/matmul_act.k's time
 * on one thread on the AVX2 VM of 2026-12-07 (perf; 3.4% after, and the
 * whole kernel 0.94x in 11 alternating pairs of 1000 calls). */
static void KN(mm_pack_full)(float *restrict o, const unsigned char *restrict p, size_t ps, int64_t K)
{
	for (int64_t k = 0; k < K; k++)
#pragma GCC unroll 16
		for (int v = 0; v < KMM_NR; v++) {
			KN(vf) x;
			memcpy(&x, p + (size_t)k * ps + (size_t)v * KMM_VB, KMM_VB);
			memcpy(o + (k * KMM_NR + v) * KVL, &x, KMM_VB);
		}
}

/* dst = (or +=) a^T b for f32 rows: a, K rows of M floats lda bytes
 * apart; b, K rows of N floats ldb bytes apart; dst, M rows ds bytes
 * apart.  Blocks of KMM_MR rows by KMM_NR vectors.  Each panel of b (its
 * K rows of KMM_NR vectors) is copied packed into eb (K * KMM_NR * KVL
 * floats, an edge panel zero-padded) and stays in L1 while the blocks of
 * a pass it, read where they lie: b's rows are a partition stride apart
 * in sbuf, and packed the panel is one run of lines (4% faster for a
 * 128x128x512 product on the AVX2 VM of 2026-12-07, alternating runs).
 * An edge block of a reads a zero-padded copy (ea: K * KMM_MR floats)
 * instead of reading past a row. */
static void KN(matmul)(unsigned char *restrict d, size_t ds, const unsigned char *restrict a, size_t lda,
                       const unsigned char *restrict b, size_t ldb, int64_t K, int64_t M, int64_t N,
                       int accumulate, float *restrict ea, float *restrict eb)
{
	int64_t mfull = M - M % KMM_MR, j0, m0;

	if (mfull < M)
		KN(mm_pack)(ea, KMM_MR, a + (size_t)mfull * 4, lda, K, M - mfull);
	const unsigned char *panel = (const unsigned char *)eb;
	for (j0 = 0; j0 < N; j0 += KMM_NR * KVL) {
		int64_t nc = N - j0 < KMM_NR * KVL ? N - j0 : KMM_NR * KVL, nv = (nc + KVL - 1) / KVL;
		size_t lb = (size_t)(nv * KVL) * 4;
		KN(mm_fn) f = KN(mm_blocks)[nv - 1];
		if (nc == KMM_NR * KVL)
			KN(mm_pack_full)(eb, b + (size_t)j0 * 4, ldb, K);
		else
			KN(mm_pack)(eb, nv * KVL, b + (size_t)j0 * 4, ldb, K, nc);
		for (m0 = 0; m0 < mfull; m0 += KMM_MR)
			f(d + (size_t)m0 * ds + (size_t)j0 * 4, ds, a + (size_t)m0 * 4, lda, panel, lb, K, KMM_MR, nc,
			  accumulate);
		if (mfull < M)
			f(d + (size_t)mfull * ds + (size_t)j0 * 4, ds, (const unsigned char *)ea, KMM_MR * 4, panel, lb, K,
			  M - mfull, nc, accumulate);
	}
}

/* ---- iota ---- */

/* f32 row: base + step * (first + j) in double, rounded once to f32;
 * first + j is the exact double of the element's index. */
static void KN(iota_f32)(unsigned char *restrict o, double base, double step, double first, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		float v = (float)(base + step * (first + (double)(int32_t)j));
		memcpy(o + 4 * j, &v, 4);
	}
}

/* ---- tensor_reduce's plain folds of 8 aligned f32 rows ----
 * Row i's fold is a chain of dependent steps ((x0 op x1) op x2 ...), so
 * a row cannot be split across lanes without reassociating.  The 8 rows
 * go in the 8 lanes instead: 8 columns of the 8 rows are loaded as 8
 * row vectors, transposed (lane i of column vector k is x[i][j + k]),
 * and each column folded into the accumulators in turn, every lane in
 * its own row's order, the same step the scalar fold takes (fold_step:
 * max and min are tensor_tensor's acc > x ? acc : x). */
typedef float KN(v8f) __attribute__((vector_size(32)));
typedef int32_t KN(v8i) __attribute__((vector_size(32)));

/* *acc = *acc op *c, lane by lane, for the four ops (op checked by the
 * caller; pointers, since 32-byte vectors by value change the SSE2
 * build's calling convention).  On x86 max and min are maxps and minps,
 * which compute a > b ? a : b and a < b ? a : b exactly (b when the two
 * are equal or unordered) in one instruction: the fold's chain is as
 * short as add's. */
static inline __attribute__((always_inline)) void KN(fold_step)(int64_t op, KN(v8f) *acc, const KN(v8f) *c)
{
	switch (op) {
	case KDSL_ALU_ADD:
		*acc = *acc + *c;
		return;
	case KDSL_ALU_MULTIPLY:
		*acc = *acc * *c;
		return;
	default:
		break;
	}
#if KDSL_ENG_X86 && KMM_VB >= 32
	{
		__m256 a, b;
		memcpy(&a, acc, sizeof a);
		memcpy(&b, c, sizeof b);
		a = op == KDSL_ALU_MAX ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
		memcpy(acc, &a, sizeof a);
	}
#elif KDSL_ENG_X86
	for (int h = 0; h < 2; h++) {
		__m128 a, b;
		memcpy(&a, (float *)acc + 4 * h, sizeof a);
		memcpy(&b, (const float *)c + 4 * h, sizeof b);
		a = op == KDSL_ALU_MAX ? _mm_max_ps(a, b) : _mm_min_ps(a, b);
		memcpy((float *)acc + 4 * h, &a, sizeof a);
	}
#else
	{
		KN(v8i) m = op == KDSL_ALU_MAX ? *acc > *c : *acc < *c;
		*acc = (KN(v8f))(((KN(v8i))*acc & m) | ((KN(v8i))*c & ~m));
	}
#endif
}

static inline __attribute__((always_inline)) void KN(fold8_op)(int64_t op, const float *const x[8], int64_t n,
                                                               float acc[8])
{
	KN(v8f) a, r[8], t[8], u[8], c[8];
	int64_t i, j, k;

	for (i = 0; i < 8; i++)
		a[i] = x[i][0];
	for (j = 1; j + 8 <= n; j += 8) {
		for (i = 0; i < 8; i++)
			memcpy(&r[i], x[i] + j, sizeof r[i]);
		for (i = 0; i < 8; i += 2) {
			t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
			t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
		}
		for (i = 0; i < 8; i += 4)
			for (k = 0; k < 2; k++) {
				u[i + 2 * k] = __builtin_shufflevector(t[i + k], t[i + k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
				u[i + 2 * k + 1] = __builtin_shufflevector(t[i + k], t[i + k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
			}
		for (k = 0; k < 4; k++) {
			c[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
			c[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
		}
		for (k = 0; k < 8; k++)
			KN(fold_step)(op, &a, &c[k]);
	}
	for (; j < n; j++) {
		KN(v8f) col;
		for (i = 0; i < 8; i++)
			col[i] = x[i][j];
		KN(fold_step)(op, &a, &col);
	}
	memcpy(acc, &a, sizeof a);
}

/* One copy per op, so each loop has its step inline. */
static void KN(fold8)(int64_t op, const float *const x[8], int64_t n, float acc[8])
{
	switch (op) {
	case KDSL_ALU_ADD:
		KN(fold8_op)(KDSL_ALU_ADD, x, n, acc);
		break;
	case KDSL_ALU_MULTIPLY:
		KN(fold8_op)(KDSL_ALU_MULTIPLY, x, n, acc);
		break;
	case KDSL_ALU_MAX:
		KN(fold8_op)(KDSL_ALU_MAX, x, n, acc);
		break;
	default:
		KN(fold8_op)(KDSL_ALU_MIN, x, n, acc);
		break;
	}
}

static const eng_kernels KN(kernels) = {
	.load = {[KDSL_I8] = KN(load_i8), [KDSL_I16] = KN(load_i16), [KDSL_I32] = KN(load_i32),
	         [KDSL_I64] = KN(load_i64), [KDSL_U8] = KN(load_u8), [KDSL_U16] = KN(load_u16),
	         [KDSL_U32] = KN(load_u32), [KDSL_U64] = KN(load_u64), [KDSL_F16] = KN(load_f16),
	         [KDSL_BF16] = KN(load_bf16), [KDSL_F32] = KN(load_f32), [KDSL_BOOL] = KN(load_bool)},
	.store = {[KDSL_I8] = KN(store_i8), [KDSL_I16] = KN(store_i16), [KDSL_I32] = KN(store_i32),
	          [KDSL_I64] = KN(store_i64), [KDSL_U8] = KN(store_u8), [KDSL_U16] = KN(store_u16),
	          [KDSL_U32] = KN(store_u32), [KDSL_U64] = KN(store_u64), [KDSL_F16] = KN(store_f16),
	          [KDSL_BF16] = KN(store_bf16), [KDSL_F32] = KN(store_f32), [KDSL_BOOL] = KN(store_bool)},
	.bin = {[KDSL_ALU_ADD] = KN(bin_add), [KDSL_ALU_SUBTRACT] = KN(bin_sub), [KDSL_ALU_MULTIPLY] = KN(bin_mul),
	        [KDSL_ALU_MAX] = KN(bin_max), [KDSL_ALU_MIN] = KN(bin_min), [KDSL_ALU_DIVIDE] = KN(bin_div)},
	.sca = {[KDSL_ALU_ADD] = KN(sca_add), [KDSL_ALU_SUBTRACT] = KN(sca_sub), [KDSL_ALU_MULTIPLY] = KN(sca_mul),
	        [KDSL_ALU_MAX] = KN(sca_max), [KDSL_ALU_MIN] = KN(sca_min), [KDSL_ALU_DIVIDE] = KN(sca_div)},
	.rsca = {[KDSL_ALU_ADD] = KN(rsca_add), [KDSL_ALU_SUBTRACT] = KN(rsca_sub),
	         [KDSL_ALU_MULTIPLY] = KN(rsca_mul), [KDSL_ALU_MAX] = KN(rsca_max), [KDSL_ALU_MIN] = KN(rsca_min),
	         [KDSL_ALU_DIVIDE] = KN(rsca_div)},
	.ibin = {[KDSL_ALU_ADD] = KN(ibin_add), [KDSL_ALU_SUBTRACT] = KN(ibin_sub), [KDSL_ALU_MULTIPLY] = KN(ibin_mul),
	         [KDSL_ALU_MAX] = KN(ibin_max), [KDSL_ALU_MIN] = KN(ibin_min), [KDSL_ALU_DIVIDE] = KN(ibin_div)},
	.jbin = {[KDSL_ALU_ADD] = KN(jbin_add), [KDSL_ALU_SUBTRACT] = KN(jbin_sub), [KDSL_ALU_MULTIPLY] = KN(jbin_mul),
	         [KDSL_ALU_MAX] = KN(jbin_max), [KDSL_ALU_MIN] = KN(jbin_min), [KDSL_ALU_DIVIDE] = KN(jbin_div)},
	.isca = {[KDSL_ALU_ADD] = KN(isca_add), [KDSL_ALU_SUBTRACT] = KN(isca_sub), [KDSL_ALU_MULTIPLY] = KN(isca_mul),
	         [KDSL_ALU_MAX] = KN(isca_max), [KDSL_ALU_MIN] = KN(isca_min), [KDSL_ALU_DIVIDE] = KN(isca_div)},
	.irsca = {[KDSL_ALU_ADD] = KN(irsca_add), [KDSL_ALU_SUBTRACT] = KN(irsca_sub),
	          [KDSL_ALU_MULTIPLY] = KN(irsca_mul), [KDSL_ALU_MAX] = KN(irsca_max),
	          [KDSL_ALU_MIN] = KN(irsca_min), [KDSL_ALU_DIVIDE] = KN(irsca_div)},
	.act = {[KDSL_ACT_COPY] = KN(act_copy), [KDSL_ACT_EXP] = KN(act_exp), [KDSL_ACT_RELU] = KN(act_relu),
	        [KDSL_ACT_SQUARE] = KN(act_square), [KDSL_ACT_SQRT] = KN(act_sqrt), [KDSL_ACT_RSQRT] = KN(act_rsqrt),
	        [KDSL_ACT_RECIPROCAL] = KN(act_reciprocal), [KDSL_ACT_LOG] = KN(act_log),
	        [KDSL_ACT_TANH] = KN(act_tanh), [KDSL_ACT_SIGMOID] = KN(act_sigmoid)},
	.matmul = KN(matmul),
	.iota_f32 = KN(iota_f32),
	.fold8 = KN(fold8),
};

#undef KMM_BLOCK
#undef KVL
#undef KN
