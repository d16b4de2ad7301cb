/* neuron_act_fast.h: vectorisable exp, sigmoid, tanh and log for the
 * activation kernels, included by neuron_engine_kern.h once per
 * instruction set (no guard around the KN(...) functions; the constants
 * once).
 *
 * The activations are defined through libm's double functions rounded
 * once to f32: exp(x) = (float)exp((double)x), sigmoid(x) =
 * (float)(1.0 / (1.0 + exp(-(double)x))), tanh and log likewise.  A call
 * per element is slow and no vector library gives those bits, so each
 * lane computes the double value y (af_exp, af_tanh, af_log below), whose
 * relative error against the exact value is under 2^-40 (each function's
 * comment has its bound), and rounds the two doubles y * (1 - 2^-36) and
 * y * (1 + 2^-36) to f32.  libm's double functions are within 2 ulps
 * (2^-51) of the exact value, the sigmoid's sum and quotient add 2^-52
 * each on either side, and the two products are within 2^-53 of their
 * exact values: the interval they bound holds both y and the libm
 * definition with room to spare.  Rounding to f32 is monotone, so when
 * the two round to the same float every value between them does, the
 * definition's included: that float is the result.  Otherwise (the lane
 * is "hard": the value lies within about 2^-36 of an f32 rounding
 * boundary, about one lane in 2^11) or for a NaN input, a second pass
 * over the block's flagged lanes calls libm.  The main loop is
 * branch-free, so gcc vectorises it for every instruction set; the bytes
 * are the definition's on each (tests/unit/test_engine.c sweeps them
 * under each KDSL_ISA; its opt-in test, KDSL_ACT_EXHAUSTIVE=1, checks
 * all 2^32 inputs).
 *
 * Inputs beyond the range af_exp serves are clamped to +-AF_XMAX first:
 * e^120 is past FLT_MAX and e^-120 below half the least f32 subnormal,
 * so for |x| >= 120 the clamped lane and the definition (inf, or a double
 * that rounds to +0) give the same float; +-inf are covered alike. */

/* a * b + c: one fused rounding where the includer's instruction set has
 * FMA (KDSL_AF_FMA), else two.  Either is within the bounds below, which
 * count two roundings per step, and the guard makes the f32 bytes the
 * definition's on both; the runtime is built with -ffp-contract=off, so
 * nothing else is fused. */
#undef AF_FMA
#if defined(KDSL_AF_FMA)
#define AF_FMA(a, b, c) __builtin_fma(a, b, c)
#else
#define AF_FMA(a, b, c) ((a) * (b) + (c))
#endif

#ifndef KDSL_NEURON_ACT_FAST_CONSTS
#define KDSL_NEURON_ACT_FAST_CONSTS
enum { AF_BLOCK = 256 };                /* lanes per flag pass (a kernel chunk is 512) */
#define AF_XMAX 120.0                   /* the clamp: see above */
#define AF_DELTA 0x1p-36                /* the guard's relative width */
#define AF_N 64                         /* table entries: e^x = 2^(k / AF_N) e^r */
#define AF_NINVLN2 0x1.71547652b82fep6  /* AF_N / ln 2 */
/* Cody-Waite: ln 2 / AF_N = AF_LN2HI + AF_LN2LO + 2^-92.1; AF_LN2HI has
 * 32 significant bits, so k * AF_LN2HI is exact for |k| < 2^21 */
#define AF_LN2HI 0x1.62e42feep-7
#define AF_LN2LO 0x1.a39ef35793c76p-39
#define AF_SHIFT 0x1.8p52   /* adding it rounds to an integer held in the low bits */
/* 2^(j / 64) for j = 0..63, each the double nearest (from 60-digit
 * decimal arithmetic): within 2^-53 relative */
static const double af_exp2_tab[AF_N] = {
	0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
	0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
	0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
	0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
	0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
	0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
	0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
	0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
	0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
	0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
	0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
	0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
	0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
	0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
	0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
	0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
};
#endif

/* e^x in double for |x| <= AF_XMAX (no NaN), relative error under 2^-44.4.
 * x = k ln2 / 64 + r with k = round(x * 64 / ln2), |k| <= 11081, so
 * |r| <= 0.0054153 (the product x * AF_NINVLN2 is rounded, by at most
 * 2^-39.6 for these k: k may be off by one only where |r| is at ln2 / 128
 * within that).  x - k * AF_LN2HI is exact (x itself when k = 0, else
 * |x| >= 2^-8, so x and k * AF_LN2HI are multiples of 2^-38 and so is
 * their difference, below 2^-7), so r's own error is below 2^-60 absolute.  e^x = 2^(k / 64) e^r
 * = 2^m * T[j] * e^r with k = 64 m + j: T[j] from the table (within
 * 2^-53), e^r its Taylor polynomial of degree 4 by Horner: the truncation,
 * e^|r| |r|^5 / 5! against e^r >= e^-|r|, is below 2^-44.53 relative, and
 * the 8 roundings of Horner's steps (all but the last add round partial
 * results under 0.006 of the result) plus the table's and the last
 * product's under 11 * 2^-53 = 2^-49.5; together under 2^-44.4.  A table of 2^(j / 64)
 * takes seven Horner steps off the degree-11 polynomial that |r| <= ln2 / 2
 * needs: the polynomial's multiplies and adds are the loop's cost.  2^m
 * joins T[j] in its exponent field, exact (e^-120 is a normal double). */
static inline double KN(af_exp)(double x)
{
	double z = AF_FMA(x, AF_NINVLN2, AF_SHIFT), kd = z - AF_SHIFT, r, p, s;
	uint64_t zb, sb;

	r = AF_FMA(-kd, AF_LN2LO, AF_FMA(-kd, AF_LN2HI, x));
	p = 0x1.5555555555555p-5;                /* 1/4! */
	p = AF_FMA(p, r, 0x1.5555555555555p-3);  /* 1/3! */
	p = AF_FMA(p, r, 0.5);
	p = AF_FMA(p, r, 1.0);
	p = AF_FMA(p, r, 1.0);
	/* z's low bits are k (two's complement): j its low 6 bits, and bits 6
	 * to 17 m mod 2^12, which shifted to bit 52 adds m to the exponent */
	memcpy(&zb, &z, 8);
	memcpy(&sb, &af_exp2_tab[zb & (AF_N - 1)], 8);
	sb += (zb >> 6) << 52;
	memcpy(&s, &sb, 8);
	return p * s;
}

/* c = s * x clamped to [-AF_XMAX, AF_XMAX] (s = +-1, exact); a NaN stays
 * NaN, and so does af_exp of it (the integer steps only move bits), so
 * af_round flags its lane.  A loop of its own: inlined into the main loop,
 * gcc specialises the clamped lanes into branches and vectorises none. */
static void KN(af_clamp)(float *restrict c, const float *restrict x, float s, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		float v = s * x[j];
		v = v < (float)-AF_XMAX ? (float)-AF_XMAX : v;
		c[j] = v > (float)AF_XMAX ? (float)AF_XMAX : v;
	}
}

/* The guard: y's f32 in *o, and nonzero when y * (1 +- AF_DELTA) round to
 * different floats or y is NaN (NaN != NaN), so the lane needs libm. */
static inline int32_t KN(af_round)(float *o, double y)
{
	float lo = (float)(y * (1.0 - AF_DELTA)), hi = (float)(y * (1.0 + AF_DELTA));
	*o = lo;
	return (int32_t)(lo != hi);
}

/* The second pass of every function below: the lanes the guard flagged
 * (hard[j] != 0) recomputed by the definition, slow(x).  Rare (about one
 * lane in 2500 on realistic inputs, and NaNs), so a call per lane. */
static void KN(af_redo)(float *restrict ob, const float *restrict ab, const int32_t *hard, int64_t len,
                        float (*slow)(float))
{
	for (int64_t j = 0; j < len; j++)
		if (hard[j])
			ob[j] = slow(ab[j]);
}

static float KN(af_exp_def)(float x)
{
	return (float)exp((double)x);
}

static float KN(af_sigmoid_def)(float x)
{
	return (float)(1.0 / (1.0 + exp(-(double)x)));
}

static float KN(af_tanh_def)(float x)
{
	return (float)tanh((double)x);
}

static float KN(af_log_def)(float x)
{
	return (float)log((double)x);
}

#if defined(KDSL_AF_AVX512)
/* af_exp on 8 lanes as AVX-512 code: the same operations in the same
 * order, so the same bits, but the table lookup in registers (the 64
 * entries in 8 of them, four two-register permutes by the index's low 4
 * bits, two blends by bits 4 and 5) where gcc makes eight scalar loads
 * and inserts of af_exp's (an AVX-512 gather measured slower still on
 * AMD). */
static inline __m512d KN(af_exp8)(__m512d x, const __m512d tab[8])
{
	const __m512d shift = _mm512_set1_pd(AF_SHIFT);
	__m512d z = _mm512_fmadd_pd(x, _mm512_set1_pd(AF_NINVLN2), shift), kd = _mm512_sub_pd(z, shift);
	__m512d r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(AF_LN2LO), _mm512_fnmadd_pd(kd, _mm512_set1_pd(AF_LN2HI), x));
	__m512d p = _mm512_set1_pd(0x1.5555555555555p-5);
	__m512i zb = _mm512_castpd_si512(z);
	__mmask8 b4 = _mm512_test_epi64_mask(zb, _mm512_set1_epi64(16));
	__mmask8 b5 = _mm512_test_epi64_mask(zb, _mm512_set1_epi64(32));
	__m512d t01 = _mm512_permutex2var_pd(tab[0], zb, tab[1]), t23 = _mm512_permutex2var_pd(tab[2], zb, tab[3]);
	__m512d t45 = _mm512_permutex2var_pd(tab[4], zb, tab[5]), t67 = _mm512_permutex2var_pd(tab[6], zb, tab[7]);
	__m512d t = _mm512_mask_blend_pd(b5, _mm512_mask_blend_pd(b4, t01, t23), _mm512_mask_blend_pd(b4, t45, t67));
	__m512i sb = _mm512_add_epi64(_mm512_castpd_si512(t), _mm512_slli_epi64(_mm512_srli_epi64(zb, 6), 52));

	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0x1.5555555555555p-3));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
	p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
	return _mm512_mul_pd(p, _mm512_castsi512_pd(sb));
}

/* af_round on 8 lanes: their f32s in o, the hard lanes' mask returned */
static inline __mmask8 KN(af_round8)(float *o, __m512d y)
{
	__m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(y, _mm512_set1_pd(1.0 - AF_DELTA)));
	__m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(y, _mm512_set1_pd(1.0 + AF_DELTA)));
	_mm256_storeu_ps(o, lo);
	return _mm256_cmp_ps_mask(lo, hi, _CMP_NEQ_UQ);
}
#endif

/* tanh: odd, and rounding to f32 is symmetric, so a lane computes
 * tanh(a) for a = |x| clamped to AF_TANH_MAX and takes x's sign bit.
 * For a >= 2^-4, 1 - 2 / (e^2a + 1) with af_exp: e^2a, the sum and the
 * quotient q are within 2^-44.3 of theirs, and 1 - q turns q's error into
 * at most q / (1 - q) <= 15.1 times as much relative to tanh(a) (at
 * a = 2^-4), plus one rounding: under 2^-40.3.  Below 2^-4, where that
 * subtraction cancels, the odd Taylor polynomial through a^11 (truncation
 * under 2^-56, roundings under 2^-51).  libm's tanh is within 2 ulps, so
 * the guard's 2^-36 holds as for exp.  tanh(20) rounds to 1.0f (so does
 * every larger a, the definition included: 1 - tanh(9.02) < 2^-25). */
#ifndef KDSL_NEURON_ACT_FAST_TANH
#define KDSL_NEURON_ACT_FAST_TANH
#define AF_TANH_MAX 20.0
#define AF_TANH_SMALL 0x1p-4
#endif

/* c = |x| clamped to AF_TANH_MAX; a NaN stays NaN (and is flagged) */
static void KN(af_abs_clamp)(float *restrict c, const float *restrict x, int64_t n)
{
	for (int64_t j = 0; j < n; j++) {
		float v = fabsf(x[j]);
		c[j] = (float)AF_TANH_MAX < v ? (float)AF_TANH_MAX : v;
	}
}

/* tanh(x) in double for 0 <= x <= AF_TANH_MAX (a NaN gives NaN) */
static inline double KN(af_tanh)(double x)
{
	double z = x * x, e = KN(af_exp)(2.0 * x), big, small, y;
	uint64_t sb, bb, m;

	big = 1.0 - 2.0 / (e + 1.0);
	small = -0x1.226e355e6c23dp-7;                      /* -1382/155925 */
	small = AF_FMA(small, z, 0x1.664f4882c10fap-6);    /* 62/2835 */
	small = AF_FMA(small, z, -0x1.ba1ba1ba1ba1cp-5);   /* 17/315 */
	small = AF_FMA(small, z, 0x1.1111111111111p-3);    /* 2/15 */
	small = AF_FMA(small, z, -0x1.5555555555555p-2);   /* 1/3 */
	small = AF_FMA(x * z, small, x);
	/* a select of bits: with ?: gcc computes each side under a branch
	 * and vectorises nothing */
	memcpy(&sb, &small, 8);
	memcpy(&bb, &big, 8);
	m = 0u - (uint64_t)(x < AF_TANH_SMALL);
	sb = (sb & m) | (bb & ~m);
	memcpy(&y, &sb, 8);
	return y;
}

/* The functions af_run drives (af_block8's kinds too) */
#ifndef KDSL_NEURON_ACT_FAST_KINDS
#define KDSL_NEURON_ACT_FAST_KINDS
enum { AF8_EXP, AF8_SIGMOID, AF8_TANH };
#endif

#if defined(KDSL_AF_AVX512)

/* af_tanh on 8 lanes, its operations in its order */
static inline __m512d KN(af_tanh8)(__m512d x, const __m512d tab[8])
{
	const __m512d one = _mm512_set1_pd(1.0);
	__m512d z = _mm512_mul_pd(x, x), e = KN(af_exp8)(_mm512_mul_pd(_mm512_set1_pd(2.0), x), tab);
	__m512d big = _mm512_sub_pd(one, _mm512_div_pd(_mm512_set1_pd(2.0), _mm512_add_pd(e, one)));
	__m512d small = _mm512_set1_pd(-0x1.226e355e6c23dp-7);

	small = _mm512_fmadd_pd(small, z, _mm512_set1_pd(0x1.664f4882c10fap-6));
	small = _mm512_fmadd_pd(small, z, _mm512_set1_pd(-0x1.ba1ba1ba1ba1cp-5));
	small = _mm512_fmadd_pd(small, z, _mm512_set1_pd(0x1.1111111111111p-3));
	small = _mm512_fmadd_pd(small, z, _mm512_set1_pd(-0x1.5555555555555p-2));
	small = _mm512_fmadd_pd(_mm512_mul_pd(x, z), small, x);
	return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, _mm512_set1_pd(AF_TANH_SMALL), _CMP_LT_OQ), big, small);
}

/* The lanes of one block 8 at a time for exp, sigmoid or tanh (kind, a
 * constant once inlined) on AVX-512: c the clamped inputs, ab the
 * inputs, the results in ob (tanh's with the input's sign bit), then
 * slow, the definition, for the lanes the guard flagged (their flags a
 * mask byte per 8 lanes: about one lane in 2^11).  Returns the lanes
 * done, a multiple of 8; the caller does the rest one by one. */
static inline __attribute__((always_inline)) int64_t KN(af_block8)(int kind, float *restrict ob,
                                                                   const float *restrict ab, const float *c,
                                                                   int64_t len, const __m512d tab[8],
                                                                   float (*slow)(float))
{
	uint8_t hm[AF_BLOCK / 8];
	int any = 0;
	int64_t j = 0;

	for (; j + 8 <= len; j += 8) {
		__m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(c + j)), y;
		if (kind == AF8_EXP)
			y = KN(af_exp8)(x, tab);
		else if (kind == AF8_SIGMOID)
			y = _mm512_div_pd(_mm512_set1_pd(1.0), _mm512_add_pd(_mm512_set1_pd(1.0), KN(af_exp8)(x, tab)));
		else
			y = KN(af_tanh8)(x, tab);
		hm[j / 8] = KN(af_round8)(ob + j, y);
		if (kind == AF8_TANH) {   /* x's sign bit */
			__m256i r = _mm256_loadu_si256((const __m256i *)(const void *)(ob + j));
			__m256i sg = _mm256_loadu_si256((const __m256i *)(const void *)(ab + j));
			r = _mm256_or_si256(r, _mm256_and_si256(sg, _mm256_set1_epi32((int)0x80000000u)));
			_mm256_storeu_si256((__m256i *)(void *)(ob + j), r);
		}
		any |= hm[j / 8];
	}
	if (any)
		for (int64_t g = 0; g < j / 8; g++)
			for (int b = 0; b < 8; b++)
				if (hm[g] >> b & 1)
					ob[8 * g + b] = slow(ab[8 * g + b]);
	return j;
}

/* The table of af_exp8 in registers */
#define AF_TAB8(tab)                                      \
	__m512d tab[8];                                       \
	for (int i_ = 0; i_ < 8; i_++)                        \
		tab[i_] = _mm512_loadu_pd(af_exp2_tab + 8 * i_);
#define AF_BLOCK8(kind, ob, ab, c, len, tab, slow) KN(af_block8)(kind, ob, ab, c, len, tab, slow)
#else
#define AF_TAB8(tab)
#define AF_BLOCK8(kind, ob, ab, c, len, tab, slow) 0
#endif

/* exp, sigmoid or tanh over n lanes (kind, a constant once inlined):
 * the fast pass, then the definition (libm) for the lanes the guard
 * flagged; on AVX-512 af_block8 does the block's lanes 8 at a time and
 * this loop the rest.  exp takes the clamped x; sigmoid 1 / (1 + e^-x)
 * with the fast e^-x (the same clamp: for |x| >= 120 the result is 1.0f
 * or +0 either way); tanh tanh(|x|) with x's sign bit. */
static inline __attribute__((always_inline)) void KN(af_run)(int kind, float *restrict o, const float *restrict a,
                                                             int64_t n)
{
	float (*slow)(float) = kind == AF8_EXP ? KN(af_exp_def) : kind == AF8_SIGMOID ? KN(af_sigmoid_def)
	                                                                              : KN(af_tanh_def);
	int32_t hard[AF_BLOCK];   /* as wide as the f32 results: fewer conversions */
	float c[AF_BLOCK];
	AF_TAB8(tab)

	for (int64_t j0 = 0; j0 < n; j0 += AF_BLOCK) {
		int64_t len = n - j0 < AF_BLOCK ? n - j0 : AF_BLOCK, j, jt;
		int32_t any = 0;
		float *restrict ob = o + j0;
		const float *restrict ab = a + j0;
		if (kind == AF8_TANH)
			KN(af_abs_clamp)(c, ab, len);
		else
			KN(af_clamp)(c, ab, kind == AF8_EXP ? 1.0f : -1.0f, len);
		for (j = jt = AF_BLOCK8(kind, ob, ab, c, len, tab, slow); j < len; j++) {
			double y = kind == AF8_EXP ? KN(af_exp)(c[j])
			         : kind == AF8_SIGMOID ? 1.0 / (1.0 + KN(af_exp)(c[j])) : KN(af_tanh)(c[j]);
			hard[j] = KN(af_round)(ob + j, y);
			any |= hard[j];
			if (kind == AF8_TANH) {
				uint32_t r, s;
				memcpy(&r, ob + j, 4);   /* x's sign bit */
				memcpy(&s, ab + j, 4);
				r |= s & 0x80000000u;
				memcpy(ob + j, &r, 4);
			}
		}
		if (any)
			KN(af_redo)(ob + jt, ab + jt, hard + jt, len - jt, slow);
	}
}

static void KN(act_exp)(float *restrict o, const float *restrict a, int64_t n)
{
	KN(af_run)(AF8_EXP, o, a, n);
}

static void KN(act_sigmoid)(float *restrict o, const float *restrict a, int64_t n)
{
	KN(af_run)(AF8_SIGMOID, o, a, n);
}

static void KN(act_tanh)(float *restrict o, const float *restrict a, int64_t n)
{
	KN(af_run)(AF8_TANH, o, a, n);
}

#undef AF_TAB8
#undef AF_BLOCK8

/* log of a positive normal f32 (bits u) in double, relative error under
 * 2^-46: u = 2^e * m with m in [0.707, 1.414] (the mantissa halved, e
 * raised, above sqrt 2), s = (m - 1) / (m + 1) (m - 1 exact, s within
 * 2^-52), log m = 2s (1 + s^2/3 + ... + s^16/17) by Horner in s^2
 * (|s| <= 0.1716: truncation under 2^-49.9, roundings under 2^-50), and
 * e ln2 + log m, whose terms never cancel by more than a factor 3
 * (|e ln2| >= 0.69 >= 2 |log m| when e != 0); libm's log is within an
 * ulp, so the guard's 2^-36 holds as for exp.  Other inputs (<= 0,
 * subnormal, inf, NaN) give anything: act_log flags them. */
static inline double KN(af_log)(uint32_t u)
{
	uint32_t t = (u & 0x7fffffu) > 0x3504f3u, mb = (u & 0x7fffffu) | (0x3f800000u - (t << 23));
	int32_t e = (int32_t)(u >> 23) - 127 + (int32_t)t;
	float mf;
	double m, s2, z, p;

	memcpy(&mf, &mb, 4);
	m = mf;
	s2 = 2.0 * ((m - 1.0) / (m + 1.0));
	z = 0.25 * s2 * s2;   /* s^2: both factors exact powers of 2 apart */
	p = 0x1.e1e1e1e1e1e1ep-5;                 /* 1/17 */
	p = AF_FMA(p, z, 0x1.1111111111111p-4);   /* 1/15 */
	p = AF_FMA(p, z, 0x1.3b13b13b13b14p-4);   /* 1/13 */
	p = AF_FMA(p, z, 0x1.745d1745d1746p-4);   /* 1/11 */
	p = AF_FMA(p, z, 0x1.c71c71c71c71cp-4);   /* 1/9 */
	p = AF_FMA(p, z, 0x1.2492492492492p-3);   /* 1/7 */
	p = AF_FMA(p, z, 0x1.999999999999ap-3);   /* 1/5 */
	p = AF_FMA(p, z, 0x1.5555555555555p-2);   /* 1/3 */
	return AF_FMA((double)e, 0x1.62e42fefa39efp-1, AF_FMA(s2, z * p, s2));
}

static void KN(act_log)(float *restrict o, const float *restrict a, int64_t n)
{
	int32_t hard[AF_BLOCK];   /* as wide as the f32 results: fewer conversions */

	for (int64_t j0 = 0; j0 < n; j0 += AF_BLOCK) {
		int64_t len = n - j0 < AF_BLOCK ? n - j0 : AF_BLOCK;
		int32_t any = 0;
		float *restrict ob = o + j0;
		const float *restrict ab = a + j0;
		for (int64_t j = 0; j < len; j++) {
			uint32_t u;
			memcpy(&u, ab + j, 4);
			/* positive, normal and finite: 0x00800000 <= u < 0x7f800000 */
			hard[j] = KN(af_round)(ob + j, KN(af_log)(u)) | (int32_t)(u - 0x00800000u >= 0x7f000000u);
			any |= hard[j];
		}
		if (any)
			KN(af_redo)(ob, ab, hard, len, KN(af_log_def));
	}
}
