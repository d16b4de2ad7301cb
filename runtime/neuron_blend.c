/* neuron_blend.c: the kernel of tensor_copy_predicated, d[j] = p[j] ? s[j] :
 * f[j] (or the reverse) over the rows of a tile, f being d itself (the
 * predicated copy) or predicated_merge's on_false, for every element width
 * W (1, 2, 4, 8 bytes) and predicate width P (1, 2, 4 bytes), written
 * with GNU vector extensions so no compiler has to discover the
 * vectorisation itself.  The predicate lanes are compared with zero and
 * widened or narrowed to W-bit masks (__builtin_convertvector
 * sign-extends the all-ones lanes) that say where dst keeps its element,
 * then each V-byte vector of the row is selected from src and dst under
 * that mask (one vpblendvb with AVX2, an and-or elsewhere); the last
 * n % lanes elements of a row go through the scalar form of the same
 * formula.  Each kernel exists three times: 16-byte vectors (SSE2, the
 * x86-64 floor, and whatever any other target makes of them) and, on x86
 * with GCC or clang, 32-byte vectors in a target("avx2") clone and
 * 64-byte ones in a target("avx512f,avx512bw,avx512vl") clone.
 * kdsl_rt_create picks one set per runtime (kdsl_isa_detect), so there
 * is no global state.
 *
 * Why the loop looks as it does (docs/performance.md, "The predicated
 * copy"): a tile's rows are one partition stride apart, 128 short
 * streams of src, dst and predicate where a packed buffer is one long
 * one, and from 256 KiB the three do not fit in L2.  The hardware
 * prefetcher starts over on every row; on rows too short for it to get
 * going (PF_MAX_ROW) the loop prefetches PF_AHEAD bytes ahead in the
 * rows taken end to end, so the next row's first lines are on their way
 * before the current row ends.  With the lines
 * coming from L3 the core's window bounds how many misses are in flight,
 * so the loop is kept short: the mask is "keep dst" (a compare with zero
 * and no negation), reverse_pred swaps the two operands of the select
 * instead of flipping the mask (each kernel is compiled for both
 * polarities), and AVX2 selects with vpblendvb (one instruction where
 * the and-or takes three). */
#include <string.h>

#include "rt_internal.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define KDSL_HAVE_AVX2 1
#include <immintrin.h>
#define AVX2_ATTR __attribute__((target("avx2")))
/* avx512vl as well: every AVX-512BW CPU has it, and without it clang 14
 * fails to select a 64-bit lane compare in these kernels (a backend
 * crash at -O2, so `CC=clang` could not build the runtime). */
#define AVX512_ATTR __attribute__((target("avx512f,avx512bw,avx512vl")))
#else
#define KDSL_HAVE_AVX2 0
#endif

/* How far ahead (bytes of the data rows, end to end) the loop prefetches
 * src and dst, and the predicate as many elements ahead.  Measured with
 * the f32 and f16 kernels on the emulated sbuf at 256 KiB to 4 MiB: 512
 * and 2048 gain less than 1024; none, 10-25% less throughput. */
enum { PF_AHEAD = 1024 };
/* Tiles whose three operands together are smaller than this (bytes) are
 * not prefetched: they stay in L2 from one op to the next, where the
 * prefetches only cost instructions (measured: 64 KiB f32 tiles with u32
 * predicates, 192 KiB in all, 20% slower with them; every 256 KiB tile
 * with any predicate, 576 KiB and up, faster). */
enum { PF_MIN_BYTES = 512 << 10 };
/* Nor are rows of this many data bytes or more: on them the hardware
 * prefetcher has the streams long enough, and the loop's own prefetches
 * only take slots.  On the AVX2 VM of 2026-12-07 (128-row tiles on the
 * sbuf layout, the op's median time, five rounds alternating the
 * runtimes), no prefetch against the prefetching loop took 0.91-0.95x
 * the time at 4 MiB tiles (32 KiB rows), 0.95-1.00x at 2 MiB (16 KiB),
 * and 1.03-1.10x at 1 MiB (8 KiB rows); with this bound the 4 MiB tiles
 * took 0.89-0.96x and the 1 MiB ones 0.99-1.04x.  (The loop was tuned
 * on an AVX-512 VM whose rows of every size gained from it.) */
enum { PF_MAX_ROW = 16 << 10 };

/* The row loop around each kernel's body: d, s, pr and f are row r, sn,
 * pn and fn the next row (row r again on the last, so the prefetches stay
 * in the tile's rows), j the element. */
#define ROWS_OPEN(WB, PB)                                                                        \
	for (int64_t r_ = 0; r_ < rows; r_++) {                                                      \
		size_t nx_ = r_ + 1 < rows ? 1 : 0;                                                      \
		unsigned char *d = (unsigned char *)dv + (size_t)r_ * dps;                               \
		const unsigned char *s = (const unsigned char *)sv + (size_t)r_ * sps;                   \
		const unsigned char *pr = (const unsigned char *)pv + (size_t)r_ * pps;                  \
		const unsigned char *f = (const unsigned char *)fv + (size_t)r_ * fps;                   \
		const unsigned char *fn = f + nx_ * fps, *sn = s + nx_ * sps, *pn = pr + nx_ * pps;      \
		const size_t rowb = (size_t)n * (WB), rowp = (size_t)n * (PB);                           \
		int64_t j = 0;
#define ROWS_CLOSE }

/* Prefetches for the 64 data bytes at element j: src's and f's line
 * PF_AHEAD bytes on, and the predicate's lines as many elements on (P/W
 * lines of predicate per step when it is wider, else one line every
 * W/P steps). */
#define PREFETCH_AHEAD(WB, PB)                                                                   \
	{                                                                                            \
		size_t o_ = (size_t)j * (WB) + PF_AHEAD, q_ = (size_t)j * (PB) + PF_AHEAD / (WB) * (PB); \
		__builtin_prefetch(o_ < rowb ? s + o_ : sn + (o_ - rowb));                               \
		__builtin_prefetch(o_ < rowb ? f + o_ : fn + (o_ - rowb));                               \
		if ((PB) >= (WB) || (size_t)j % (64 / (PB)) == 0)                                        \
			for (size_t k_ = 0; k_ < ((PB) >= (WB) ? (PB) / (WB) : 1); k_++, q_ += 64)            \
				__builtin_prefetch(q_ < rowp ? pr + q_ : pn + (q_ - rowp));                      \
	}

/* Scalar form: the predicate becomes an all-ones or all-zeros W-bit mask
 * without a branch ((q | -q) has its top bit set exactly when q != 0). */
#define SCALAR_TAIL(W, P)                                                                        \
	for (; j < n; j++) {                                                                         \
		uint##P##_t q;                                                                           \
		uint##W##_t m, x, y;                                                                     \
		memcpy(&q, pr + j * (P / 8), sizeof q);                                                  \
		memcpy(&x, s + j * (W / 8), sizeof x);                                                   \
		memcpy(&y, f + j * (W / 8), sizeof y);                                                   \
		m = (uint##W##_t)(((uint##W##_t)0 -                                                      \
		    (uint##W##_t)((uint##P##_t)(q | (uint##P##_t)(0u - q)) >> ((P) - 1))) ^ (uint##W##_t)flip); \
		y = (uint##W##_t)((x & m) | (y & (uint##W##_t)~m));                                      \
		memcpy(d + j * (W / 8), &y, sizeof y);                                                   \
	}

/* a where k is zero, b where it is all ones (k's lanes are one or the
 * other), for V-byte vectors: vpblendvb on 32 bytes (x86 only builds the
 * V = 32 kernels), the and-or elsewhere (a vpternlog with AVX-512). */
#define SELECT_16(a, b, k) (((a) & ~(k)) | ((b) & (k)))
#define SELECT_64(a, b, k) SELECT_16(a, b, k)
#define SELECT_32(a, b, k) ((dvec)_mm256_blendv_epi8((__m256i)(a), (__m256i)(b), (__m256i)(k)))

/* One vector of the row at element i: NAME_keep gives the mask where dst
 * keeps its element (predicate zero); rev, a constant in each copy of
 * the kernel, swaps the operands instead. */
#define STEP(NAME, V, W, P, i)                                                                   \
	{                                                                                            \
		dvec x_, y_, k_ = NAME##_keep(pr + (i) * (P / 8));                                       \
		memcpy(&x_, s + (i) * (W / 8), sizeof x_);                                               \
		memcpy(&y_, f + (i) * (W / 8), sizeof y_);                                               \
		y_ = rev ? SELECT_##V(y_, x_, k_) : SELECT_##V(x_, y_, k_);                              \
		memcpy(d + (i) * (W / 8), &y_, sizeof y_);                                               \
	}

/* A kernel, after its NAME_dvec type and NAME_keep: the rows in steps of
 * 64 data bytes (one line: the prefetch's unit), then of one vector, then
 * the scalar tail; NAME dispatches on the polarity to the two copies of
 * NAME_rows. */
#define KERNEL(NAME, ATTR, V, W, P)                                                              \
	static inline __attribute__((always_inline)) ATTR void NAME##_rows(                         \
	    void *dv, size_t dps, const void *sv, size_t sps, const void *pv, size_t pps, const void *fv, \
	    size_t fps, int64_t rows, int64_t n, uint64_t flip, const int rev, const int pf)         \
	{                                                                                            \
		typedef NAME##_dvec dvec;                                                                \
		const int64_t L = 8 * V / W, L64 = 8 * 64 / W;                                           \
		ROWS_OPEN(W / 8, P / 8)                                                                  \
		for (; j + L64 <= n; j += L64) {                                                         \
			if (pf)                                                                              \
				PREFETCH_AHEAD(W / 8, P / 8)                                                     \
			_Pragma("GCC unroll 4")                                                              \
			for (int64_t u_ = 0; u_ < L64; u_ += L)                                              \
				STEP(NAME, V, W, P, j + u_)                                                      \
		}                                                                                        \
		for (; j + L <= n; j += L)                                                               \
			STEP(NAME, V, W, P, j)                                                               \
		SCALAR_TAIL(W, P)                                                                        \
		ROWS_CLOSE                                                                               \
	}                                                                                            \
	ATTR static void NAME(void *dv, size_t dps, const void *sv, size_t sps, const void *pv,      \
	                      size_t pps, const void *fv, size_t fps, int64_t rows, int64_t n, uint64_t flip) \
	{                                                                                            \
		int pf = (size_t)rows * (size_t)n * (2 * W / 8 + P / 8) >= PF_MIN_BYTES &&                  \
		         (size_t)n * (W / 8) < PF_MAX_ROW;                                                   \
		if (flip && pf)                                                                          \
			NAME##_rows(dv, dps, sv, sps, pv, pps, fv, fps, rows, n, flip, 1, 1);                \
		else if (flip)                                                                           \
			NAME##_rows(dv, dps, sv, sps, pv, pps, fv, fps, rows, n, flip, 1, 0);                \
		else if (pf)                                                                             \
			NAME##_rows(dv, dps, sv, sps, pv, pps, fv, fps, rows, n, flip, 0, 1);                \
		else                                                                                     \
			NAME##_rows(dv, dps, sv, sps, pv, pps, fv, fps, rows, n, flip, 0, 0);                \
	}

/* The element vector type of kernel NAME, and the head of its mask
 * function (the L predicates at q). */
#define KEEP_HEAD(NAME, ATTR, V, W)                                                              \
	typedef uint##W##_t NAME##_dvec __attribute__((vector_size(V)));                             \
	static inline __attribute__((always_inline)) ATTR NAME##_dvec NAME##_keep(const unsigned char *q)

/* Predicates as wide as the elements or narrower: one load of L
 * predicates, compared and sign-extended to W bits. */
#define BLEND(NAME, ATTR, V, W, P)                                                               \
	KEEP_HEAD(NAME, ATTR, V, W)                                                                  \
	{                                                                                            \
		typedef int##W##_t mvec __attribute__((vector_size(V)));                                 \
		typedef uint##P##_t pvec __attribute__((vector_size(V * P / W)));                        \
		typedef int##P##_t cvec __attribute__((vector_size(V * P / W)));                         \
		pvec p;                                                                                  \
		memcpy(&p, q, sizeof p);                                                                 \
		return (NAME##_dvec)__builtin_convertvector((cvec)(p == 0), mvec);                       \
	}                                                                                            \
	KERNEL(NAME, ATTR, V, W, P)

/* Predicates wider than the elements: a vector of L predicates spans
 * P/W native vectors, which the compilers split lane by lane when asked
 * to compare and narrow them in one go.  Instead each V-byte piece is
 * compared on its own and the pieces are narrowed pairwise by taking the
 * even (low) halves of their all-ones or all-zeros lanes (KDSL_EVENn,
 * rt_internal.h). */
/* EVEN_<lanes of the result> */
#define EVEN_8 KDSL_EVEN8
#define EVEN_16 KDSL_EVEN16
#define EVEN_32 KDSL_EVEN32
#define EVEN_64 KDSL_EVEN64

/* P = 2W: two pieces, one narrowing. N: lanes of a V-byte W-bit vector. */
#define BLEND_2(NAME, ATTR, V, W, P, N)                                                          \
	KEEP_HEAD(NAME, ATTR, V, W)                                                                  \
	{                                                                                            \
		typedef uint##P##_t pvec __attribute__((vector_size(V)));                                \
		typedef int##P##_t cvec __attribute__((vector_size(V)));                                 \
		typedef int##W##_t hvec __attribute__((vector_size(V)));                                 \
		pvec p0, p1;   /* two loads: one of both through an array stalls on the stack */     \
		memcpy(&p0, q, sizeof p0);                                                               \
		memcpy(&p1, q + V, sizeof p1);                                                           \
		return (NAME##_dvec)__builtin_shufflevector((hvec)(cvec)(p0 == 0), (hvec)(cvec)(p1 == 0), \
		                                            EVEN_##N);                                   \
	}                                                                                            \
	KERNEL(NAME, ATTR, V, W, P)

/* P = 4W (8-bit elements): four pieces, two narrowings (32 to 16 bits,
 * then 16 to 8). */
#define BLEND_4(NAME, ATTR, V, N16, N8)                                                          \
	KEEP_HEAD(NAME, ATTR, V, 8)                                                                  \
	{                                                                                            \
		typedef uint32_t pvec __attribute__((vector_size(V)));                                   \
		typedef int32_t cvec __attribute__((vector_size(V)));                                    \
		typedef int16_t h16 __attribute__((vector_size(V)));                                     \
		typedef int8_t h8 __attribute__((vector_size(V)));                                       \
		pvec p;                                                                                  \
		cvec c[4];                                                                               \
		h16 a, b;                                                                                \
		for (int k = 0; k < 4; k++) {   /* a load each (see BLEND_2) */                        \
			memcpy(&p, q + k * V, sizeof p);                                                     \
			c[k] = (cvec)(p == 0);                                                               \
		}                                                                                        \
		a = __builtin_shufflevector((h16)c[0], (h16)c[1], EVEN_##N16);                           \
		b = __builtin_shufflevector((h16)c[2], (h16)c[3], EVEN_##N16);                           \
		return (NAME##_dvec)__builtin_shufflevector((h8)a, (h8)b, EVEN_##N8);                    \
	}                                                                                            \
	KERNEL(NAME, ATTR, V, 8, 32)

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
