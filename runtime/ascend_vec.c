/* ascend_vec.c: the arithmetic of the TIK vector ops (their checks and
 * repeats are in ascend.c): one repeat of an op on one dtype is one
 * typed loop (ascend_vec_kern.h), in place of the element loop through
 * double and the software f16 conversion it had.  The loops exist once
 * per instruction set, like neuron_engine.c's, chosen by the runtime's
 * isa; every set gives the same bytes (tests/unit/test_ascend_vec.c
 * compares each with the double-based definition).  Built at -O3 (gcc
 * vectorises loops of run-time length from -O3) without fused
 * multiply-add (none of the ops has a product and a sum, but a future
 * one must round each). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ascend_vec.h"
#include "f16_lane.h"

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define KDSL_AV_X86 1
#else
#define KDSL_AV_X86 0
#endif

static inline uint32_t kdsl_av_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return u;
}

static inline float kdsl_av_float(uint32_t u)
{
	float x;
	memcpy(&x, &u, 4);
	return x;
}

/* All ones when x is NaN, else 0. */
static inline uint32_t kdsl_av_isnan(float x)
{
	return 0u - (uint32_t)(x != x);
}

/* r unless an operand is NaN: then that NaN, x's when both are, with q
 * or'ed in (the quiet bit, or 0).  docs/language.md: the first
 * operand's, fixed here because C lets a compiler swap the operands of +
 * and *.  Masks, not branches (?: on floats is a branch to gcc, and the
 * loop would stay scalar). */
static inline float kdsl_av_pick(float x, float y, float r, uint32_t q)
{
	uint32_t xn = kdsl_av_isnan(x), yn = kdsl_av_isnan(y);
	return kdsl_av_float((xn & (kdsl_av_bits(x) | q)) |
	                     (~xn & ((yn & (kdsl_av_bits(y) | q)) | (~yn & kdsl_av_bits(r)))));
}

/* f16 results: the store to f16 quiets a NaN itself. */
static inline float kdsl_av_nan2(float x, float y, float r)
{
	return kdsl_av_pick(x, y, r, 0);
}

/* f32 results: a NaN operand quieted, as IEEE arithmetic returns it. */
static inline float kdsl_av_nan2q(float x, float y, float r)
{
	return kdsl_av_pick(x, y, r, 0x400000u);
}

/* max and min pick an operand as it is, a NaN one winning (x's first). */
static inline float kdsl_av_max(float x, float y)
{
	uint32_t gt = 0u - (uint32_t)(x > y);
	return kdsl_av_nan2(x, y, kdsl_av_float((gt & kdsl_av_bits(x)) | (~gt & kdsl_av_bits(y))));
}

static inline float kdsl_av_min(float x, float y)
{
	uint32_t lt = 0u - (uint32_t)(x < y);
	return kdsl_av_nan2(x, y, kdsl_av_float((lt & kdsl_av_bits(x)) | (~lt & kdsl_av_bits(y))));
}

/* |x|; a NaN quieted as well (the double-based definition widens x, which
 * quiets it; f16 results are quieted by their store anyway). */
static inline float kdsl_av_abs(float x)
{
	return kdsl_av_float((kdsl_av_bits(x) & 0x7fffffffu) | (kdsl_av_isnan(x) & 0x400000u));
}

/* +0.0 for negatives and -0.0, NaN kept. */
static inline float kdsl_av_relu(float x)
{
	return kdsl_av_float(kdsl_av_bits(x) & (kdsl_av_isnan(x) | (0u - (uint32_t)(x > 0))));
}

typedef void (*av_bin)(void *restrict o, const void *restrict a, const void *restrict b, int64_t n);
typedef void (*av_one)(void *restrict o, const void *restrict a, float k, int64_t n);

/* The kernels' dtypes, as table rows. */
enum { AV_F16, AV_F32, AV_I32, AV_NDT };

/* One instruction set's kernels, by dtype and op (NULL: not here). */
typedef struct {
	av_bin bin[AV_NDT][KDSL_NVB];
	av_one one[AV_NDT][KDSL_NVU];
} av_kernels;

#define KV__(p, x) kdsl_av_##p##_##x
#define KV_(p, x) KV__(p, x)

#define KPFX base
#include "ascend_vec_kern.h"
#undef KPFX

#if KDSL_AV_X86
/* The wider sets with F16C's conversions (part of both levels
 * kdsl_isa_detect finds). */
#pragma GCC push_options
#pragma GCC target("avx2,f16c")
#define KV_F16C 1
#define KPFX avx2
#include "ascend_vec_kern.h"
#undef KPFX
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,f16c")   /* as kdsl_isa_detect requires */
#define KPFX avx512
#include "ascend_vec_kern.h"
#undef KPFX
#undef KV_F16C
#pragma GCC pop_options
#endif

static const av_kernels *select_kernels(kdsl_isa isa)
{
#if KDSL_AV_X86
	if (isa >= KDSL_ISA_AVX512)
		return &kdsl_av_avx512_kernels;
	if (isa >= KDSL_ISA_AVX2)
		return &kdsl_av_avx2_kernels;
#else
	(void)isa;
#endif
	return &kdsl_av_base_kernels;
}

static int av_row(kdsl_dtype dt)
{
	return dt == KDSL_F16 ? AV_F16 : dt == KDSL_F32 ? AV_F32 : AV_I32;
}

void kdsl_ascend_vbin(kdsl_isa isa, kdsl_vb_op op, kdsl_dtype dt, int64_t n, void *out, const void *a,
                      const void *b)
{
	select_kernels(isa)->bin[av_row(dt)][op](out, a, b, n);
}

int kdsl_ascend_vone(kdsl_isa isa, kdsl_vu_op op, kdsl_dtype dt, int64_t n, void *out, const void *a, float k)
{
	av_one f = dt == KDSL_I32 ? NULL : select_kernels(isa)->one[av_row(dt)][op];

	if (!f)
		return 0;
	f(out, a, k, n);
	return 1;
}
