/* neuron_shuffle.c: nc_stream_shuffle (seed 000) after neuron.c has
 * checked its tiles: the mask's rules, its plans and the row moves.
 *
 * dst row g + j (g a multiple of 32) reads src row g + mask[j].  The mask
 * is the same for every group of 32 rows, so what a group does (the plan:
 * which rows it writes, from where, and in place the cycles it rotates)
 * is worked out once per distinct mask and kept in the runtime's cache
 * (kdsl_shuf_cache, neuron_shuffle.h); a call looks its plans up and
 * walks the groups.  A partial last group has a plan of its own.
 *
 * Rows are copied inline: a shuffle of short rows is a few hundred
 * copies of a few dozen bytes, where a libc call per row cost more than
 * the copy (half of a 16 KiB shuffle's time in issue 16's profile).  Rows
 * of 32 bytes up to SHUF_INLINE_MAX are 32-byte pieces (the last one
 * ending at the row's end), shorter ones two overlapping pieces of a
 * power of two; longer rows go to memcpy.  The walks exist for the
 * common row lengths as constants (32, 64, 128, 256 bytes: the copies
 * unroll) and once for any length, each twice: 16-byte vectors (SSE2,
 * the x86-64 floor) and a target("avx2") clone with 32-byte moves, chosen
 * per call from the runtime's kdsl_isa.
 *
 * In place (dst and src the same rows), each group only reads itself and
 * column c only column c, so no snapshot of the tile is taken: when the
 * written rows permute themselves, pairs are swapped through vector
 * registers and longer cycles rotated through a one-chunk buffer, so
 * memory sees one read and one write of each moved byte; otherwise the
 * rows that are read are copied to a small buffer a column chunk at a
 * time. */
#include <inttypes.h>
#include <string.h>

#include "rt_internal.h"

enum { QUAD = KDSL_NEURON_QUADRANT, KEEP = KDSL_NEURON_SHUFFLE_KEEP };
#define SHUF_CHUNK 512
/* The longest row copied inline.  Measured on an AVX2 machine (AMD EPYC,
 * glibc 2.36): the 32-byte pieces were as fast as libc's memcpy per row
 * or faster for rows of 512, 2048 and 8192 bytes (the group walk saves a
 * call per row; glibc takes `rep movsb` from 4 KiB), and 2.5x faster at
 * 128; longer rows were not measured, so they stay with memcpy. */
#define SHUF_INLINE_MAX 8192

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SHUF_HAVE_AVX2 1
#define SHUF_AVX2 __attribute__((target("avx2")))
#include <immintrin.h>
#else
#define SHUF_HAVE_AVX2 0
#endif
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* ---- the mask and its plans ---- */

/* The rules of the mask checked one by one, the first broken one
 * reported (KDSL_OK when none is): the slow path, taken only when the
 * fast checks of kdsl_shuffle_plan found something. */
static int mask_error(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t dnp, int64_t snp)
{
	int64_t i;

	for (i = 0; i < QUAD; i++)
		if ((mask[i] < 0 || mask[i] > QUAD - 1) && mask[i] != KEEP)
			return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "shuffle_mask[%" PRId64 "] must be in 0..%d or %d, "
			                    "got %" PRId64, i, QUAD - 1, KEEP, mask[i]);
	/* Entry i is used by dst rows i, i + 32, ...; the last of them reads
	 * the highest src partition. */
	for (i = 0; i < QUAD && i < dnp; i++) {
		int64_t last = (dnp - 1 - i) / QUAD * QUAD;
		if (mask[i] != KEEP && last + mask[i] >= snp)
			return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS, "shuffle_mask[%" PRId64 "] = %" PRId64 " reads "
			                    "partition %" PRId64 " of src, which has %" PRId64, i, mask[i],
			                    last + mask[i], snp);
	}
	return KDSL_OK;
}

/* Every entry 0..31 or 255, without a branch per entry. */
static int mask_in_range(const int64_t *mask)
{
	uint64_t bad = 0;
	int i;

	for (i = 0; i < QUAD; i++)
		bad |= ((uint64_t)mask[i] > QUAD - 1) & (mask[i] != KEEP);
	return !bad;
}

/* The plan of one group of `rows` rows (1..32) for a mask in range, and
 * the entry's prefix and suffix maxima of the entries read. */
static void plan_build(kdsl_shuf_entry *e, int rows, int inplace)
{
	kdsl_shuf_plan *pl = &e->plan;
	const int64_t *mask = e->mask;
	char seen[QUAD] = {0}, done[QUAD] = {0};
	int j, k, c = 0, m = -QUAD;

	for (j = 0; j < QUAD; j++) {
		m = mask[j] != KEEP && mask[j] > m ? (int)mask[j] : m;
		e->pmax[j] = (signed char)m;
	}
	e->smax[QUAD] = (signed char)(m = -QUAD);
	for (j = QUAD - 1; j >= 0; j--) {
		m = mask[j] != KEEP && mask[j] > m ? (int)mask[j] : m;
		e->smax[j] = (signed char)m;
	}
	memset(pl, 0, sizeof *pl);
	for (j = 0; j < rows; j++)
		if (mask[j] != KEEP && !(inplace && mask[j] == j)) {
			pl->to[pl->n] = (signed char)j;
			pl->from[pl->n++] = (signed char)mask[j];
			pl->need[mask[j]] = 1;
		}
	if (!inplace)
		return;
	for (k = 0; k < pl->n; k++) {
		int f = pl->from[k];
		if (f >= rows || mask[f] == KEEP || mask[f] == f || seen[f])
			return;
		seen[f] = 1;
	}
	pl->perm = 1;
	for (k = 0; k < pl->n; k++) {
		int len = 0;
		for (j = pl->to[k]; !done[j]; j = (int)mask[j]) {
			done[j] = 1;
			pl->cyc[c + len++] = (signed char)j;
		}
		if (len)
			pl->clen[pl->ncyc++] = (signed char)len;
		c += len;
	}
	pl->pairs = c == 2 * pl->ncyc;
}

/* n (a multiple of 4) 64-bit words equal: 16-byte vectors XORed and ORed
 * together, no branch per word (a loop of them, or of 64-bit words, was
 * a sixth of a call that moves nothing). */
ALWAYS_INLINE int words_eq(const void *a, const void *b, int n)
{
	typedef uint64_t u64x2 __attribute__((vector_size(16)));
	const unsigned char *x8 = a, *y8 = b;
	u64x2 x = {0, 0}, y = {0, 0}, p, q;
	int i;

	/* two chains of ORs, half as long */
#pragma GCC unroll 12
	for (i = 0; i < n * 8; i += 32) {
		memcpy(&p, x8 + i, 16);
		memcpy(&q, y8 + i, 16);
		x |= p ^ q;
		memcpy(&p, x8 + i + 16, 16);
		memcpy(&q, y8 + i + 16, 16);
		y |= p ^ q;
	}
	x |= y;
	return !(x[0] | x[1]);
}

#if SHUF_HAVE_AVX2
/* words_eq with 32-byte vectors (n a multiple of 8): half the loads, and
 * one vptest at the end (four lane extracts and ORs were a third of the
 * compare). */
SHUF_AVX2 ALWAYS_INLINE int words_eq_avx2(const void *a, const void *b, int n)
{
	const unsigned char *x8 = a, *y8 = b;
	__m256i x = _mm256_setzero_si256(), y = _mm256_setzero_si256();
	int i;

#pragma GCC unroll 6
	for (i = 0; i < n * 8; i += 64) {
		x = _mm256_or_si256(x, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x8 + i)),
		                                        _mm256_loadu_si256((const __m256i *)(const void *)(y8 + i))));
		y = _mm256_or_si256(y, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x8 + i + 32)),
		                                        _mm256_loadu_si256((const __m256i *)(const void *)(y8 + i + 32))));
	}
	x = _mm256_or_si256(x, y);
	return _mm256_testz_si256(x, x);
}

SHUF_AVX2 static int mask_eq_avx2(const int64_t *a, const int64_t *b)
{
	return words_eq_avx2(a, b, QUAD);
}

/* A kslot's operand struct is a: the 48 words of two kdsl_rtiles (no
 * padding) and the mask. */
SHUF_AVX2 static int args_eq_avx2(const kdsl_shuf_args *a, const kdsl_shuf_args *b)
{
	return words_eq_avx2(a, b, (int)(sizeof *a / 8));
}
#endif

_Static_assert(sizeof(kdsl_shuf_args) % 64 == 0 && sizeof(kdsl_rtile) == 64,
               "kdsl_shuf_args is compared as 64-byte blocks of 64-bit words, without padding");

/* n words at a and b equal, with the widest vectors the runtime uses; n
 * is a mask's QUAD or an operand struct's, a constant at each call, for
 * which the AVX2 compare has a copy with its loop unrolled. */
static inline int same_words(const kdsl_rt *rt, const void *a, const void *b, int n)
{
#if SHUF_HAVE_AVX2
	if (rt->isa >= KDSL_ISA_AVX2)
		return n == QUAD ? mask_eq_avx2(a, b) : args_eq_avx2(a, b);
#else
	(void)rt;
#endif
	return words_eq(a, b, n);
}

/* The 32 entries equal. */
static inline int mask_same(const kdsl_rt *rt, const int64_t *a, const int64_t *b)
{
	return same_words(rt, a, b, QUAD);
}

/* Two operand structs the same bytes. */
static inline int args_same(const kdsl_rt *rt, const kdsl_shuf_args *a, const kdsl_shuf_args *b)
{
	return same_words(rt, a, b, (int)(sizeof *a / 8));
}

/* entry_get past the slot found last: the others, then a miss, which
 * checks the range (a hit was checked when it was built) and builds the
 * entry into a slot other than `keep` (the entry the caller still holds;
 * NULL: none). */
static kdsl_shuf_entry *entry_search(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t dnp,
                                     int64_t snp, int rows, int inplace, const kdsl_shuf_entry *keep)
{
	kdsl_shuf_cache *c = &rt->shuf;
	kdsl_shuf_entry *e;
	unsigned i, k;

	for (i = 1; i < KDSL_SHUF_CACHE; i++) {
		e = &c->e[k = (c->hit + i) % KDSL_SHUF_CACHE];
		if (e->rows == rows && e->inplace == inplace && mask_same(rt, e->mask, mask)) {
			c->hit = k;
			return e;
		}
	}
	if (!mask_in_range(mask)) {
		mask_error(rt, site, mask, dnp, snp);
		return NULL;
	}
	k = c->next;
	if (&c->e[k] == keep)
		k = (k + 1) % KDSL_SHUF_CACHE;
	c->next = (k + 1) % KDSL_SHUF_CACHE;
	e = &c->e[c->hit = k];
	e->gen++;   /* kslots that named the entry's old plan miss */
	memcpy(e->mask, mask, sizeof e->mask);
	e->rows = rows;
	e->inplace = inplace;
	plan_build(e, rows, inplace);
	return e;
}

/* The cache entry for (mask, rows, inplace), or NULL after reporting a
 * mask entry out of range.  The slot found last is tried inline: a
 * kernel shuffles with one mask many times in a row. */
static inline kdsl_shuf_entry *entry_get(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t dnp,
                                         int64_t snp, int rows, int inplace, const kdsl_shuf_entry *keep)
{
	kdsl_shuf_entry *e = &rt->shuf.e[rt->shuf.hit];

	if (e->rows == rows && e->inplace == inplace && mask_same(rt, e->mask, mask))
		return e;
	return entry_search(rt, site, mask, dnp, snp, rows, inplace, keep);
}

/* The mask's rules, then its plans.  The reach of the entries is read
 * from the largest entry among those the last dst group uses (entries
 * 0..r, whose last dst row is L + i, L the group's first) and among the
 * others (last used in the group before, when there is one); when that
 * finds a broken rule, mask_error reports it as the plain checks word
 * it. */
ALWAYS_INLINE int plan_get(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t nmask, int64_t dnp,
                           int64_t snp, int inplace, kdsl_shuf_plans *pl)
{
	kdsl_shuf_entry *e, *f = NULL;
	int64_t L = (dnp - 1) / QUAD * QUAD;
	int r = (int)((dnp - 1) % QUAD), rc;

	if (!mask || nmask != QUAD)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "shuffle_mask must have %d entries, got %" PRId64, QUAD,
		                    nmask);
	if (!(e = entry_get(rt, site, mask, dnp, snp, dnp >= QUAD ? QUAD : r + 1, inplace, NULL)))
		return KDSL_ERR_RANGE;
	if ((L + e->pmax[r] >= snp || (dnp > QUAD && L - QUAD + e->smax[r + 1] >= snp)) &&
	    (rc = mask_error(rt, site, mask, dnp, snp)))
		return rc;
	if (dnp > QUAD && r + 1 < QUAD && !(f = entry_get(rt, site, mask, dnp, snp, r + 1, inplace, e)))
		return KDSL_ERR_RANGE;
	pl->full = dnp >= QUAD ? &e->plan : NULL;
	pl->last = dnp < QUAD ? &e->plan : f ? &f->plan : NULL;
	pl->inplace = inplace;
	return KDSL_OK;
}

/* ---- row moves ---- */

typedef unsigned char v16 __attribute__((vector_size(16)));
typedef unsigned char v32 __attribute__((vector_size(32)));

/* 32 bytes through vector registers: one 32-byte vector when wide (the
 * AVX2 clones), two 16-byte ones otherwise.  GNU vectors, because gcc
 * expands a 32-byte memcpy as two 16-byte moves even for AVX2 (its
 * generic tuning), which made the 128-byte rows ~1.8x slower. */
ALWAYS_INLINE void copy32(unsigned char *d, const unsigned char *s, int wide)
{
	if (wide) {
		v32 x;
		memcpy(&x, s, 32);
		memcpy(d, &x, 32);
	} else {
		v16 x, y;
		memcpy(&x, s, 16);
		memcpy(&y, s + 16, 16);
		memcpy(d, &x, 16);
		memcpy(d + 16, &y, 16);
	}
}

/* rb bytes from s to d, which do not overlap.  With rb a constant the
 * tests fold and the pieces unroll.  The pieces may overlap each other
 * within the row: they copy the same bytes twice. */
ALWAYS_INLINE void row_copy(unsigned char *d, const unsigned char *s, size_t rb, int wide)
{
	size_t o;

	if (rb > SHUF_INLINE_MAX) {
		memcpy(d, s, rb);
	} else if (rb >= 32) {
#pragma GCC unroll 8
		for (o = 0; o + 32 < rb; o += 32)
			copy32(d + o, s + o, wide);
		copy32(d + rb - 32, s + rb - 32, wide);
	} else if (rb >= 16) {
		memcpy(d, s, 16);
		memcpy(d + rb - 16, s + rb - 16, 16);
	} else if (rb >= 8) {
		memcpy(d, s, 8);
		memcpy(d + rb - 8, s + rb - 8, 8);
	} else if (rb >= 4) {
		memcpy(d, s, 4);
		memcpy(d + rb - 4, s + rb - 4, 4);
	} else {   /* 1..3 bytes: 0, rb / 2 and rb - 1 are all of them */
		d[0] = s[0];
		d[rb / 2] = s[rb / 2];
		d[rb - 1] = s[rb - 1];
	}
}

/* Rows a and b exchanged 32 bytes at a time through vector registers
 * (as copy32; byte arrays would go through the stack); the
 * last rb % 32 bytes 8 and then 1 at a time.  Pieces must not overlap
 * here: a byte swapped twice is back where it was. */
ALWAYS_INLINE void row_swap(unsigned char *a, unsigned char *b, size_t rb, int wide)
{
	size_t o = 0;

#pragma GCC unroll 8
	for (; o + 32 <= rb; o += 32) {
		if (wide) {
			v32 x, y;
			memcpy(&x, a + o, 32);
			memcpy(&y, b + o, 32);
			memcpy(a + o, &y, 32);
			memcpy(b + o, &x, 32);
		} else {
			v16 x0, x1, y0, y1;
			memcpy(&x0, a + o, 16);
			memcpy(&x1, a + o + 16, 16);
			memcpy(&y0, b + o, 16);
			memcpy(&y1, b + o + 16, 16);
			memcpy(a + o, &y0, 16);
			memcpy(a + o + 16, &y1, 16);
			memcpy(b + o, &x0, 16);
			memcpy(b + o + 16, &x1, 16);
		}
	}
	for (; o + 8 <= rb; o += 8) {
		uint64_t x, y;
		memcpy(&x, a + o, 8);
		memcpy(&y, b + o, 8);
		memcpy(a + o, &y, 8);
		memcpy(b + o, &x, 8);
	}
	for (; o < rb; o++) {
		unsigned char t = a[o];
		a[o] = b[o];
		b[o] = t;
	}
}

/* The n pairs (n < 32) of each of ng in-place groups, gs bytes apart,
 * swapped: pair k's rows at the group's start plus the low and the high
 * half of off[k].  Nothing but the rows is read between one pair's
 * stores and the next pair's loads: pair k + 1's offsets are read
 * before pair k's stores, and the first pair's and n before any group
 * (the same plan serves every group of 32).  A load after those stores
 * may be held until they are done (the CPU cannot tell that they do not
 * write off, the plan, or a stack slot a value was spilled to), which
 * chains the pairs one after another: with the offsets read after the
 * stores a 16 KiB swap took 1.13x the hand-written one in the median of
 * 12 runtimes and up to 1.6x on some (where the runtime's memory lay
 * decided), with each group's plan fields read after them 1.0x, and now
 * 0.91-0.93x on every one.  off[n] is read and not used. */
ALWAYS_INLINE void swap_pair_groups(unsigned char *d, size_t gs, int64_t ng, const uint64_t *off, int n, size_t rb,
                                    int wide)
{
	const uint64_t first = off[0];
	int k;

	for (; ng > 0; ng--, d += gs) {
		uint64_t o = first;
		for (k = 0; k < n; k++) {
			unsigned char *a = d + (uint32_t)o, *b = d + (o >> 32);
			o = off[k + 1];
			row_swap(a, b, rb, wide);
		}
	}
}

/* A cycle of three or more rows of group g (stride ps) rotated a chunk
 * at a time: row cyc[k] takes row cyc[k + 1], the last the first's. */
static void rotate_cycle(unsigned char *g, size_t ps, const signed char *cyc, int len, size_t rb)
{
	unsigned char tmp[SHUF_CHUNK];
	size_t c, n;
	int k;

	for (c = 0; c < rb; c += n) {
		n = rb - c < SHUF_CHUNK ? rb - c : SHUF_CHUNK;
		row_copy(tmp, g + (size_t)cyc[0] * ps + c, n, 0);
		for (k = 0; k + 1 < len; k++)
			row_copy(g + (size_t)cyc[k] * ps + c, g + (size_t)cyc[k + 1] * ps + c, n, 0);
		row_copy(g + (size_t)cyc[len - 1] * ps + c, tmp, n, 0);
	}
}

/* In place, a plan that is no permutation (rows repeated or kept): the
 * rows read are copied out a column chunk at a time, then written. */
static void gather_in_place(unsigned char *g, size_t ps, const kdsl_shuf_plan *pl, size_t rb)
{
	unsigned char tmp[QUAD][SHUF_CHUNK];
	size_t c, n;
	int k;

	for (c = 0; c < rb; c += n) {
		n = rb - c < SHUF_CHUNK ? rb - c : SHUF_CHUNK;
		for (k = 0; k < QUAD; k++)
			if (pl->need[k])
				row_copy(tmp[k], g + (size_t)k * ps + c, n, 0);
		for (k = 0; k < pl->n; k++)
			row_copy(g + (size_t)pl->to[k] * ps + c, tmp[pl->from[k]], n, 0);
	}
}

/* One in-place group of plan pl (rows ps bytes apart from g): its
 * pairs swapped, its cycles rotated, or the rows it reads gathered. */
ALWAYS_INLINE void inplace_group(unsigned char *g, size_t ps, const kdsl_shuf_plan *pl, size_t len, int wide)
{
	const signed char *cyc = pl->cyc;
	int k;

	if (!pl->perm) {
		gather_in_place(g, ps, pl, len);
		return;
	}
	if (pl->pairs) {
		swap_pair_groups(g, 0, 1, pl->off, pl->ncyc, len, wide);
		return;
	}
	for (k = 0; k < pl->ncyc; cyc += pl->clen[k++])
		if (pl->clen[k] == 2)
			row_swap(g + (size_t)cyc[0] * ps, g + (size_t)cyc[1] * ps, len, wide);
		else
			rotate_cycle(g, ps, cyc, pl->clen[k], len);
}

/* The plan's row offsets (its off) for strides dps and sps: once per
 * plan and pair of strides, not per call, since 32 pairs of multiplies
 * cost a tenth of a 16 KiB shuffle.  The walks read them from the plan,
 * one load per row (two, to[k] and from[k], were measurably slower). */
static void plan_offsets(kdsl_shuf_plan *pl, size_t dps, size_t sps, int inplace)
{
	int k;

	if (pl->dps == dps && pl->sps == sps)
		return;
	if (!inplace)
		for (k = 0; k < pl->n; k++)
			pl->off[k] = (uint64_t)pl->to[k] * dps | (uint64_t)pl->from[k] * sps << 32;
	else if (pl->pairs)
		for (k = 0; k < pl->ncyc; k++)
			pl->off[k] = (uint64_t)pl->cyc[2 * k] * dps | (uint64_t)pl->cyc[2 * k + 1] * dps << 32;
	pl->dps = dps;
	pl->sps = sps;
}

/* Dst rows of a copying plan's group: every one (n == 32: to[k] == k,
 * the rows walked with a pointer) or those in to. */
ALWAYS_INLINE void copy_group(unsigned char *d, size_t dps, const unsigned char *s, const kdsl_shuf_plan *pl,
                              size_t len, int wide)
{
	int k;

	if (pl->n == QUAD)
		for (k = 0; k < QUAD; k++, d += dps)
			row_copy(d, s + (pl->off[k] >> 32), len, wide);
	else
		for (k = 0; k < pl->n; k++)
			row_copy(d + (uint32_t)pl->off[k], s + (pl->off[k] >> 32), len, wide);
}

/* A walk over the groups of a shuffle: full is the plan of a group of 32,
 * last that of a partial last group (each NULL when there is none). */
typedef void (*walk_fn)(unsigned char *d, size_t dps, const unsigned char *s, size_t sps, int64_t np,
                        const kdsl_shuf_plan *full, const kdsl_shuf_plan *last, size_t rb);

/* The two walks (copying, in place) for rows of RB bytes (a constant, or
 * the argument rb), with the instruction set ATTR and 32-byte swaps when
 * WIDE. */
#define SHUF_WALKS(NAME, ATTR, WIDE, RB)                                                                  \
	ATTR static void NAME##_copy(unsigned char *d, size_t dps, const unsigned char *s, size_t sps,       \
	                             int64_t np, const kdsl_shuf_plan *full, const kdsl_shuf_plan *last,      \
	                             size_t rb)                                                              \
	{                                                                                                    \
		const size_t len = (RB);                                                                         \
		int64_t g;                                                                                       \
		(void)rb;                                                                                        \
		for (g = 0; g + QUAD <= np; g += QUAD, d += QUAD * dps, s += QUAD * sps)                         \
			copy_group(d, dps, s, full, len, WIDE);                                                      \
		if (last)                                                                                        \
			copy_group(d, dps, s, last, len, WIDE);                                                      \
	}                                                                                                    \
	ATTR static void NAME##_inplace(unsigned char *d, size_t ps, const unsigned char *s, size_t sps,     \
	                                int64_t np, const kdsl_shuf_plan *full, const kdsl_shuf_plan *last,   \
	                                size_t rb)                                                           \
	{                                                                                                    \
		const size_t len = (RB);                                                                         \
		int64_t g, nfull = np / QUAD;                                                                    \
		(void)rb;                                                                                        \
		(void)s;                                                                                         \
		(void)sps;                                                                                       \
		if (nfull && full->perm && full->pairs)                                                          \
			swap_pair_groups(d, QUAD * ps, nfull, full->off, full->ncyc, len, WIDE);                     \
		else                                                                                             \
			for (g = 0; g < nfull; g++)                                                                  \
				inplace_group(d + (size_t)g * QUAD * ps, ps, full, len, WIDE);                           \
		if (last)                                                                                        \
			inplace_group(d + (size_t)nfull * QUAD * ps, ps, last, len, WIDE);                           \
	}

#define SHUF_WALK_SET(SUF, ATTR, WIDE)                                                                   \
	SHUF_WALKS(walk32_##SUF, ATTR, WIDE, 32)                                                             \
	SHUF_WALKS(walk64_##SUF, ATTR, WIDE, 64)                                                             \
	SHUF_WALKS(walk128_##SUF, ATTR, WIDE, 128)                                                           \
	SHUF_WALKS(walk256_##SUF, ATTR, WIDE, 256)                                                           \
	SHUF_WALKS(walkany_##SUF, ATTR, WIDE, rb)                                                            \
	static const walk_fn walks_##SUF[5][2] = {                                                           \
		{walk32_##SUF##_copy, walk32_##SUF##_inplace},                                                   \
		{walk64_##SUF##_copy, walk64_##SUF##_inplace},                                                   \
		{walk128_##SUF##_copy, walk128_##SUF##_inplace},                                                 \
		{walk256_##SUF##_copy, walk256_##SUF##_inplace},                                                 \
		{walkany_##SUF##_copy, walkany_##SUF##_inplace}};

SHUF_WALK_SET(base, , 0)
#if SHUF_HAVE_AVX2
SHUF_WALK_SET(avx2, SHUF_AVX2, 1)
#endif

/* kdsl_shuffle_rows's body: the walk for rb and the runtime's
 * instruction set, after the plans' offsets for these strides. */
ALWAYS_INLINE void rows_go(kdsl_rt *rt, unsigned char *d, size_t dps, const unsigned char *s, size_t sps,
                           int64_t np, const kdsl_shuf_plans *pl, size_t rb)
{
	int cls = rb == 32 ? 0 : rb == 64 ? 1 : rb == 128 ? 2 : rb == 256 ? 3 : 4;
	const walk_fn *walks = walks_base[cls];

#if SHUF_HAVE_AVX2
	if (rt->isa >= KDSL_ISA_AVX2)
		walks = walks_avx2[cls];
#else
	(void)rt;
#endif
	if (pl->full)
		plan_offsets(pl->full, dps, sps, pl->inplace);
	if (pl->last)
		plan_offsets(pl->last, dps, sps, pl->inplace);
	walks[pl->inplace](d, dps, s, sps, np, pl->full, pl->last, rb);
}

int kdsl_shuffle_plan(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t nmask, int64_t dnp,
                      int64_t snp, int inplace, kdsl_shuf_plans *pl)
{
	return plan_get(rt, site, mask, nmask, dnp, snp, inplace, pl);
}

void kdsl_shuffle_rows(kdsl_rt *rt, unsigned char *d, size_t dps, const unsigned char *s, size_t sps,
                       int64_t np, const kdsl_shuf_plans *pl, size_t rb)
{
	rows_go(rt, d, dps, s, sps, np, pl, rb);
}

/* The cache entry that holds plan p (KDSL_SHUF_CACHE for none). */
static unsigned entry_of(const kdsl_shuf_cache *c, const kdsl_shuf_plan *p)
{
	unsigned i;

	for (i = 0; i < KDSL_SHUF_CACHE; i++)
		if (p == &c->e[i].plan)
			return i;
	return KDSL_SHUF_CACHE;
}

/* Keeps a passed call of operand struct k in the next kslot. */
static void kslot_keep(kdsl_shuf_cache *c, const kdsl_shuf_args *k, unsigned char *d, size_t dps,
                       const unsigned char *s, size_t sps, int64_t np, const kdsl_shuf_plans *pl, size_t rb)
{
	kdsl_shuf_kslot *ks = &c->k[c->khit = c->knext];

	c->knext = (c->knext + 1) % KDSL_SHUF_KSLOTS;
	memcpy(&ks->a, k, sizeof ks->a);
	ks->d = d, ks->s = s, ks->dps = dps, ks->sps = sps, ks->np = np, ks->rb = rb;
	ks->inplace = pl->inplace;
	ks->full = pl->full ? entry_of(c, pl->full) : KDSL_SHUF_CACHE;
	ks->last = pl->last ? entry_of(c, pl->last) : KDSL_SHUF_CACHE;
	ks->fgen = ks->full < KDSL_SHUF_CACHE ? c->e[ks->full].gen : 0;
	ks->lgen = ks->last < KDSL_SHUF_CACHE ? c->e[ks->last].gen : 0;
	ks->used = 1;
}

int kdsl_shuffle(kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t nmask, unsigned char *d,
                 size_t dps, const unsigned char *s, size_t sps, int64_t dnp, int64_t snp, size_t rb, int inplace,
                 const kdsl_shuf_args *k)
{
	kdsl_shuf_plans pl = {NULL, NULL, 0};   /* set on KDSL_OK; gcc cannot tell */
	int rc;

	if ((rc = plan_get(rt, site, mask, nmask, dnp, snp, inplace, &pl)))
		return rc;
	rows_go(rt, d, dps, s, sps, dnp, &pl, rb);
	if (k)
		kslot_keep(&rt->shuf, k, d, dps, s, sps, dnp, &pl, rb);
	return KDSL_OK;
}

/* A kslot's plan: entry i's while it holds the same fill (gen), else
 * *gone set. */
static kdsl_shuf_plan *kslot_plan(kdsl_shuf_cache *c, unsigned i, uint64_t gen, int *gone)
{
	if (i >= KDSL_SHUF_CACHE)
		return NULL;
	*gone |= c->e[i].gen != gen;
	return &c->e[i].plan;
}

int kdsl_shuffle_k_again(kdsl_rt *rt, const kdsl_shuf_args *a)
{
	kdsl_shuf_cache *c = &rt->shuf;
	kdsl_shuf_kslot *ks;
	kdsl_shuf_plans pl;
	unsigned i;
	int gone = 0;

	for (i = 0; i < KDSL_SHUF_KSLOTS; i++) {
		ks = &c->k[(c->khit + i) % KDSL_SHUF_KSLOTS];
		if (ks->used && args_same(rt, &ks->a, a))
			break;
	}
	if (i == KDSL_SHUF_KSLOTS)
		return 0;
	pl.full = kslot_plan(c, ks->full, ks->fgen, &gone);
	pl.last = kslot_plan(c, ks->last, ks->lgen, &gone);
	pl.inplace = ks->inplace;
	if (gone) {   /* checked and planned again, then kept anew */
		ks->used = 0;
		return 0;
	}
	c->khit = (c->khit + i) % KDSL_SHUF_KSLOTS;
	rows_go(rt, ks->d, ks->dps, ks->s, ks->sps, ks->np, &pl, ks->rb);
	return 1;
}
