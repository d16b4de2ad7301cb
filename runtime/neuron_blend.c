/* neuron_blend.c: the kernel of tensor_copy_predicated, d[j] = p[j] ? s[j] :
 * d[j] (or the reverse) over the rows of a tile, for every element width
 * W (1, 2, 4, 8 bytes) and predicate width P (1, 2, 4 bytes), written
 * with GNU vector extensions so no compiler has to discover the
 * vectorisation itself.  The predicate lanes are compared with zero and
 * widened or narrowed to W-bit masks (__builtin_convertvector
 * sign-extends the all-ones lanes), then each row is (s & m) | (d & ~m),
 * V bytes at a time; the last n % lanes elements of a row go through the
 * scalar form of the same formula.  Each kernel exists three times:
 * 16-byte vectors (SSE2, the x86-64 floor, and whatever any other target
 * makes of them) and, on x86 with GCC or clang, 32-byte vectors in a
 * target("avx2") clone and 64-byte ones in a target("avx512f,avx512bw,avx512vl")
 * clone.  kdsl_rt_create picks one set per runtime (kdsl_isa_detect), so
 * there is no global state. */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define KDSL_HAVE_AVX2 1
#define AVX2_ATTR __attribute__((target("avx2")))
/* avx512vl as well: every AVX-512BW CPU has it, and without it clang 14
 * fails to select a 64-bit lane compare in these kernels (a backend
 * crash at -O2, so `CC=clang` could not build the runtime). */
#define AVX512_ATTR __attribute__((target("avx512f,avx512bw,avx512vl")))
#else
#define KDSL_HAVE_AVX2 0
#endif

/* The row loop around each kernel's body: d, s and pr are row r, j the
 * element. */
#define ROWS_OPEN                                                                                \
	for (int64_t r_ = 0; r_ < rows; r_++) {                                                      \
		unsigned char *d = (unsigned char *)dv + (size_t)r_ * dps;                               \
		const unsigned char *s = (const unsigned char *)sv + (size_t)r_ * sps;                   \
		const unsigned char *pr = (const unsigned char *)pv + (size_t)r_ * pps;                  \
		int64_t j = 0;
#define ROWS_CLOSE }

/* Scalar form: the predicate becomes an all-ones or all-zeros W-bit mask
 * without a branch ((q | -q) has its top bit set exactly when q != 0). */
#define SCALAR_TAIL(W, P)                                                                        \
	for (; j < n; j++) {                                                                         \
		uint##P##_t q;                                                                           \
		uint##W##_t m, x, y;                                                                     \
		memcpy(&q, pr + j * (P / 8), sizeof q);                                                  \
		memcpy(&x, s + j * (W / 8), sizeof x);                                                   \
		memcpy(&y, d + j * (W / 8), sizeof y);                                                   \
		m = (uint##W##_t)(((uint##W##_t)0 -                                                      \
		    (uint##W##_t)((uint##P##_t)(q | (uint##P##_t)(0u - q)) >> ((P) - 1))) ^ (uint##W##_t)flip); \
		y = (uint##W##_t)((x & m) | (y & (uint##W##_t)~m));                                      \
		memcpy(d + j * (W / 8), &y, sizeof y);                                                   \
	}

/* One kernel: V-byte vectors of W-bit lanes, L = 8 * V / W lanes. */
#define BLEND(NAME, ATTR, V, W, P)                                                               \
	ATTR static void NAME(void *dv, size_t dps, const void *sv, size_t sps, const void *pv,      \
	                      size_t pps, int64_t rows, int64_t n, uint64_t flip)                        \
	{                                                                                            \
		typedef uint##W##_t dvec __attribute__((vector_size(V)));                                \
		typedef int##W##_t mvec __attribute__((vector_size(V)));                                 \
		typedef uint##P##_t pvec __attribute__((vector_size(V * P / W)));                        \
		typedef int##P##_t cvec __attribute__((vector_size(V * P / W)));                         \
		const int64_t L = 8 * V / W;                                                             \
		dvec fl = (dvec){0} + (uint##W##_t)flip;                                                 \
		ROWS_OPEN                                                                                \
		for (; j + L <= n; j += L) {                                                             \
			pvec q;                                                                              \
			dvec x, y, m;                                                                        \
			memcpy(&q, pr + j * (P / 8), sizeof q);                                              \
			memcpy(&x, s + j * (W / 8), sizeof x);                                               \
			memcpy(&y, d + j * (W / 8), sizeof y);                                               \
			m = (dvec)__builtin_convertvector((cvec)(q != 0), mvec) ^ fl;                       \
			y = (x & m) | (y & ~m);                                                              \
			memcpy(d + j * (W / 8), &y, sizeof y);                                               \
		}                                                                                        \
		SCALAR_TAIL(W, P)                                                                        \
		ROWS_CLOSE                                                                               \
	}

/* Predicates wider than the elements: a vector of L predicates spans
 * P/W native vectors, which the compilers split lane by lane when asked
 * to compare and narrow them in one go.  Instead each V-byte piece is
 * compared on its own and the pieces are narrowed pairwise by taking the
 * even (low) halves of their all-ones or all-zeros lanes. */
#define EVEN8 0, 2, 4, 6, 8, 10, 12, 14
#define EVEN16 EVEN8, 16, 18, 20, 22, 24, 26, 28, 30
#define EVEN32 EVEN16, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62
#define EVEN64 EVEN32, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 90, 92, 94, \
	96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 120, 122, 124, 126
/* EVEN_<lanes of the result> */
#define EVEN_8 EVEN8
#define EVEN_16 EVEN16
#define EVEN_32 EVEN32
#define EVEN_64 EVEN64

#define NARROW_HEAD(V, W, P)                                                                     \
	typedef uint##W##_t dvec __attribute__((vector_size(V)));                                    \
	typedef uint##P##_t pvec __attribute__((vector_size(V)));                                    \
	typedef int##P##_t cvec __attribute__((vector_size(V)));                                     \
	const int64_t L = 8 * V / W;                                                                 \
	dvec fl = (dvec){0} + (uint##W##_t)flip;

#define BLEND_BODY(W)                                                                            \
	{                                                                                            \
		dvec x, y;                                                                               \
		memcpy(&x, s + j * (W / 8), sizeof x);                                                   \
		memcpy(&y, d + j * (W / 8), sizeof y);                                                   \
		y = (x & m) | (y & ~m);                                                                  \
		memcpy(d + j * (W / 8), &y, sizeof y);                                                   \
	}

/* P = 2W: two pieces, one narrowing. N: lanes of a V-byte W-bit vector. */
#define BLEND_2(NAME, ATTR, V, W, P, N)                                                          \
	ATTR static void NAME(void *dv, size_t dps, const void *sv, size_t sps, const void *pv,      \
	                      size_t pps, int64_t rows, int64_t n, uint64_t flip)                        \
	{                                                                                            \
		NARROW_HEAD(V, W, P)                                                                     \
		typedef int##W##_t hvec __attribute__((vector_size(V)));                                 \
		ROWS_OPEN                                                                                \
		for (; j + L <= n; j += L) {                                                             \
			cvec c0, c1;                                                                         \
			pvec q0, q1;                                                                         \
			dvec m;                                                                              \
			memcpy(&q0, pr + j * (P / 8), sizeof q0);                                            \
			memcpy(&q1, pr + j * (P / 8) + V, sizeof q1);                                        \
			c0 = (cvec)(q0 != 0);                                                                \
			c1 = (cvec)(q1 != 0);                                                                \
			m = (dvec)__builtin_shufflevector((hvec)c0, (hvec)c1, EVEN_##N) ^ fl;               \
			BLEND_BODY(W)                                                                        \
		}                                                                                        \
		SCALAR_TAIL(W, P)                                                                        \
		ROWS_CLOSE                                                                               \
	}

/* P = 4W: four pieces, two narrowings (32 to 16 bits, then 16 to 8). */
#define BLEND_4(NAME, ATTR, V, N16, N8)                                                          \
	ATTR static void NAME(void *dv, size_t dps, const void *sv, size_t sps, const void *pv,      \
	                      size_t pps, int64_t rows, int64_t n, uint64_t flip)                        \
	{                                                                                            \
		NARROW_HEAD(V, 8, 32)                                                                    \
		typedef int16_t h16 __attribute__((vector_size(V)));                                     \
		typedef int8_t h8 __attribute__((vector_size(V)));                                       \
		ROWS_OPEN                                                                                \
		for (; j + L <= n; j += L) {                                                             \
			pvec q[4];                                                                           \
			cvec c[4];                                                                           \
			h16 a, b;                                                                            \
			dvec m;                                                                              \
			memcpy(q, pr + j * 4, sizeof q);                                                     \
			for (int k = 0; k < 4; k++)                                                          \
				c[k] = (cvec)(q[k] != 0);                                                        \
			a = __builtin_shufflevector((h16)c[0], (h16)c[1], EVEN_##N16);                       \
			b = __builtin_shufflevector((h16)c[2], (h16)c[3], EVEN_##N16);                       \
			m = (dvec)__builtin_shufflevector((h8)a, (h8)b, EVEN_##N8) ^ fl;                     \
			BLEND_BODY(8)                                                                        \
		}                                                                                        \
		SCALAR_TAIL(8, 32)                                                                       \
		ROWS_CLOSE                                                                               \
	}

/* Per element width: the predicate widths, each kernel in the form that
 * vectorises. */
#define BLEND_W8(PFX, ATTR, V, N16, N8) \
	BLEND(PFX##_8_8, ATTR, V, 8, 8) BLEND_2(PFX##_8_16, ATTR, V, 8, 16, N8) BLEND_4(PFX##_8_32, ATTR, V, N16, N8)
#define BLEND_W16(PFX, ATTR, V, N16) \
	BLEND(PFX##_16_8, ATTR, V, 16, 8) BLEND(PFX##_16_16, ATTR, V, 16, 16) BLEND_2(PFX##_16_32, ATTR, V, 16, 32, N16)
#define BLEND_P(PFX, ATTR, V, W) \
	BLEND(PFX##_##W##_8, ATTR, V, W, 8) BLEND(PFX##_##W##_16, ATTR, V, W, 16) BLEND(PFX##_##W##_32, ATTR, V, W, 32)
/* N16, N8: lanes of a V-byte vector of 16-bit and of 8-bit elements */
#define BLEND_ALL(PFX, ATTR, V, N16, N8) \
	BLEND_W8(PFX, ATTR, V, N16, N8) BLEND_W16(PFX, ATTR, V, N16) BLEND_P(PFX, ATTR, V, 32) BLEND_P(PFX, ATTR, V, 64)

#define NOATTR
BLEND_ALL(v16, NOATTR, 16, 8, 16)
#if KDSL_HAVE_AVX2
BLEND_ALL(v32, AVX2_ATTR, 32, 16, 32)
BLEND_ALL(v64, AVX512_ATTR, 64, 32, 64)
#endif

#define ROW(PFX, W) {PFX##_##W##_8, PFX##_##W##_16, PFX##_##W##_32}
static const kdsl_blend_fn table16[4][3] = {ROW(v16, 8), ROW(v16, 16), ROW(v16, 32), ROW(v16, 64)};
#if KDSL_HAVE_AVX2
static const kdsl_blend_fn table32[4][3] = {ROW(v32, 8), ROW(v32, 16), ROW(v32, 32), ROW(v32, 64)};
static const kdsl_blend_fn table64[4][3] = {ROW(v64, 8), ROW(v64, 16), ROW(v64, 32), ROW(v64, 64)};
#endif

static int log2_small(size_t x)
{
	return x >= 8 ? 3 : x >= 4 ? 2 : x >= 2 ? 1 : 0;
}

kdsl_blend_fn kdsl_blend_select(kdsl_isa isa, size_t wbytes, size_t pbytes)
{
	int w = log2_small(wbytes), p = log2_small(pbytes);

	if (p > 2)
		p = 2;
#if KDSL_HAVE_AVX2
	if (isa >= KDSL_ISA_AVX512)
		return table64[w][p];
	if (isa >= KDSL_ISA_AVX2)
		return table32[w][p];
#else
	(void)isa;
#endif
	return table16[w][p];
}

/* KDSL_ISA=sse2|avx2 caps the choice (tests compare the kernels that way). */
kdsl_isa kdsl_isa_detect(void)
{
	const char *cap = getenv("KDSL_ISA");
	kdsl_isa isa = KDSL_ISA_BASE;

#if KDSL_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		isa = KDSL_ISA_AVX2;
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl"))
		isa = KDSL_ISA_AVX512;
#endif
	if (cap && (!strcmp(cap, "sse2") || !strcmp(cap, "base")))
		isa = KDSL_ISA_BASE;
	else if (cap && !strcmp(cap, "avx2") && isa > KDSL_ISA_AVX2)
		isa = KDSL_ISA_AVX2;
	return isa;
}
