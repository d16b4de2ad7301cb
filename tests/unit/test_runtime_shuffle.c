/* test_runtime_shuffle.c: nc_stream_shuffle against a plain reference
 * across the runtime's plan cache (runtime/neuron_shuffle.c): a small
 * pool of masks (more than the cache holds) drawn in random order, so
 * calls hit and miss, a mask changes between calls on one runtime, keys
 * differ in one entry only or in the rows or the in-place flag alone;
 * copies, in place, shifted overlaps (the snapshot) and psum to sbuf;
 * rows of 1..300 bytes (every short inline copy length and the
 * constant-length walks of 32, 64, 128 and 256 bytes), and long rows
 * around the 8 KiB where the walks hand over to memcpy; partial groups;
 * in place, each kind of plan of the full groups (pairs, cycles, a
 * gather) with a partial last group of pairs;
 * and the constant-operand entry (kdsl_neuron_nc_stream_shuffle_k)
 * against the by-value one, results and errors.  Run under each KDSL_ISA
 * (tests/unit/meson.build), so the SSE2 and AVX2 walks give the same
 * bytes. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

enum { SPAN = 1024, POOL = 13 };

static const kdsl_site site = {"t.k", 1, 1, "op"};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A mask of one of four kinds: a random permutation, pairs swapped,
 * anything (rows read twice), or a rotation; some entries 255. */
static void make_mask(int64_t *mask, uint64_t *x)
{
	int style = (int)(rnd(x) % 4), i;

	for (i = 0; i < 32; i++)
		mask[i] = style == 2 ? (int64_t)(rnd(x) % 32) : style == 3 ? (i + 1 + (int)(rnd(x) % 3)) % 32 : i;
	if (style == 0)
		for (i = 31; i > 0; i--) {
			int j = (int)(rnd(x) % (uint64_t)(i + 1));
			int64_t t = mask[i];
			mask[i] = mask[j];
			mask[j] = t;
		}
	if (style == 1)
		for (i = 0; i + 1 < 32; i += 2)
			if (rnd(x) & 1) {
				mask[i] = i + 1;
				mask[i + 1] = i;
			}
	if (rnd(x) % 3 == 0)
		for (i = 0; i < 32; i++)
			if (rnd(x) % 8 == 0)
				mask[i] = 255;
}

/* The first SPAN bytes of every partition of a memory, random. */
static void fill(unsigned char *m, size_t ps, int parts, unsigned char *copy, uint64_t *x)
{
	for (int p = 0; p < parts; p++)
		for (int j = 0; j < SPAN; j += 8) {
			uint64_t v = rnd(x);
			memcpy(copy + (size_t)p * SPAN + (size_t)j, &v, 8);
		}
	for (int p = 0; p < parts; p++)
		memcpy(m + (size_t)p * ps, copy + (size_t)p * SPAN, SPAN);
}

/* A neuron runtime with its sbuf, and the tests' two scratch buffers:
 * want, the expected partitions, and snap, a copy of the rows read. */
typedef struct {
	kdsl_rt *rt;
	unsigned char *sb, *want, *snap;
	size_t sps;
} shuf_fix;

static shuf_fix fix_open(size_t want_bytes, size_t snap_bytes)
{
	shuf_fix f = {kdsl_rt_create(KDSL_TARGET_NEURON), NULL, malloc(want_bytes), malloc(snap_bytes), 0};

	ck_assert_ptr_nonnull(f.rt);
	ck_assert_ptr_nonnull(f.want);
	ck_assert_ptr_nonnull(f.snap);
	f.sb = kdsl_rt_mem(f.rt, KDSL_MEM_SBUF, NULL);
	f.sps = kdsl_rt_partition_stride(f.rt, KDSL_MEM_SBUF);
	return f;
}

static void fix_close(shuf_fix *f)
{
	free(f->want);
	free(f->snap);
	kdsl_rt_destroy(f->rt);
}

/* Random bytes for the first w of every partition, in want (partitions w
 * apart) and in sbuf where they lie. */
static void fix_fill(const shuf_fix *f, size_t w, uint64_t *x)
{
	for (int p = 0; p < 128; p++)
		for (size_t j = 0; j + 8 <= w; j += 8) {
			uint64_t v = rnd(x);
			memcpy(f->want + (size_t)p * w + j, &v, 8);
		}
	for (int p = 0; p < 128; p++)
		memcpy(f->sb + (size_t)p * f->sps, f->want + (size_t)p * w, w);
}

START_TEST(shuffle_cache_against_reference)
{
	shuf_fix f = fix_open((size_t)128 * SPAN, (size_t)128 * 300);
	kdsl_rt *rt = f.rt;
	unsigned char *sb = f.sb, *want = f.want, *snap = f.snap, *pwant = malloc((size_t)128 * SPAN);
	unsigned char *pb = kdsl_rt_mem(rt, KDSL_MEM_PSUM, NULL);
	size_t sps = f.sps, pps = kdsl_rt_partition_stride(rt, KDSL_MEM_PSUM);
	int64_t pool[POOL][32];
	uint64_t x = 0x2545f4914f6cdd1dull;
	int hits = 0;

	ck_assert_ptr_nonnull(pwant);
	for (int m = 0; m < POOL; m++)
		make_mask(pool[m], &x);
	/* keys that differ from a pooled one in one entry only */
	memcpy(pool[POOL - 1], pool[0], sizeof pool[0]);
	pool[POOL - 1][17] = pool[0][17] == 255 ? 3 : 255;
	memcpy(pool[POOL - 2], pool[1], sizeof pool[1]);
	pool[POOL - 2][0] = (pool[1][0] + 1) % 32;
	for (int trial = 0; trial < 1200; trial++) {
		/* mostly a few masks (hits), now and then any of the pool (misses) */
		int mi = rnd(&x) % 4 ? (int)(rnd(&x) % 3) : (int)(rnd(&x) % POOL);
		int64_t mask[32], np = trial % 5 == 0 ? 128 : 1 + (int64_t)(rnd(&x) % 128);
		int64_t active = (np + 31) / 32 * 32, p0 = active >= 96 ? 0 : (int64_t)(rnd(&x) % (uint64_t)(128 / active)) * active;
		int64_t n = trial % 7 == 0 ? 32 << (rnd(&x) % 4) : 1 + (int64_t)(rnd(&x) % 300);
		int kind = (int)(rnd(&x) % 4);   /* 0 copy, 1 in place, 2 shifted overlap, 3 psum to sbuf */
		size_t soff = (size_t)(rnd(&x) % 64), doff = kind == 1 ? soff
		                                       : kind == 2 ? soff + 1 + (size_t)(rnd(&x) % 40)
		                                       : 320 + (size_t)(rnd(&x) % 300);
		const unsigned char *src = kind == 3 ? pwant : want;
		kdsl_tile s, d;

		hits += mi < 3;
		memcpy(mask, pool[mi], sizeof mask);
		/* entries the last group cannot feed read row 0 of it instead */
		for (int i = 0; i < 32 && i < np; i++)
			if (mask[i] != 255 && (np - 1 - i) / 32 * 32 + mask[i] >= np)
				mask[i] = 0;
		fill(sb, sps, 128, want, &x);
		fill(pb, pps, 128, pwant, &x);
		for (int64_t r = 0; r < np; r++)
			memcpy(snap + (size_t)r * (size_t)n, src + (size_t)(p0 + r) * SPAN + soff, (size_t)n);
		for (int64_t r = 0; r < np; r++)
			if (mask[r % 32] != 255)
				memcpy(want + (size_t)(p0 + r) * SPAN + doff,
				       snap + (size_t)(r / 32 * 32 + mask[r % 32]) * (size_t)n, (size_t)n);
		s = kdsl_tile_of(kind == 3 ? pb + soff : sb + soff, kind == 3 ? pps : sps, (size_t)n, 128, p0, np, 0, n,
		                 kind == 3 ? KDSL_MEM_PSUM : KDSL_MEM_SBUF, KDSL_U8);
		d = kdsl_tile_of(sb + doff, sps, (size_t)n, 128, p0, np, 0, n, KDSL_MEM_SBUF, KDSL_U8);
		ck_assert_msg(kdsl_neuron_nc_stream_shuffle(rt, &site, d,
		                                            kdsl_ctile_of(s.base, s.pstride, s.pbytes, s.nparts, s.p0,
		                                                          s.np, s.off, s.n, s.mem, s.dt),
		                                            mask, 32) == KDSL_OK,
		              "trial %d: %s", trial, kdsl_rt_last_error(rt));
		for (int p = 0; p < 128; p++) {
			ck_assert_msg(!memcmp(sb + (size_t)p * sps, want + (size_t)p * SPAN, SPAN),
			              "trial %d (mask %d, np %lld, n %lld, kind %d): sbuf partition %d differs", trial, mi,
			              (long long)np, (long long)n, kind, p);
			ck_assert_msg(!memcmp(pb + (size_t)p * pps, pwant + (size_t)p * SPAN, SPAN),
			              "trial %d: psum partition %d changed", trial, p);
		}
	}
	/* the draw above is deterministic: most calls reuse three masks */
	ck_assert_int_gt(hits, 600);
	free(pwant);
	fix_close(&f);
}
END_TEST

/* Rows around the longest inline copy (8192 bytes) and past it, copied
 * and in place, with a permutation of pairs and with a mask that reads
 * rows twice and keeps some. */
START_TEST(shuffle_long_rows)
{
	static const int64_t lens[] = {4000, 8191, 8192, 8224, 9000};
	enum { W = 2 * 9000 + 64 };
	shuf_fix f = fix_open((size_t)128 * W, (size_t)128 * 9000);
	kdsl_rt *rt = f.rt;
	unsigned char *sb = f.sb, *want = f.want, *snap = f.snap;
	size_t sps = f.sps;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int li = 0; li < 5; li++)
		for (int kind = 0; kind < 4; kind++) {
			int64_t n = lens[li], np = kind & 2 ? 77 : 128, mask[32];
			size_t doff = kind & 1 ? 0 : (size_t)n + 32;
			for (int i = 0; i < 32; i++)
				mask[i] = kind & 2 ? (i % 5 == 0 ? 255 : (int64_t)(rnd(&x) % 13)) : i ^ 1;
			fix_fill(&f, W, &x);
			for (int64_t r = 0; r < np; r++)
				memcpy(snap + (size_t)r * (size_t)n, want + (size_t)r * W, (size_t)n);
			for (int64_t r = 0; r < np; r++)
				if (mask[r % 32] != 255)
					memcpy(want + (size_t)r * W + doff, snap + (size_t)(r / 32 * 32 + mask[r % 32]) * (size_t)n,
					       (size_t)n);
			ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(
			                     rt, &site, kdsl_tile_of(sb + doff, sps, (size_t)n, 128, 0, np, 0, n, KDSL_MEM_SBUF, KDSL_U8),
			                     kdsl_ctile_of(sb, sps, (size_t)n, 128, 0, np, 0, n, KDSL_MEM_SBUF, KDSL_U8), mask, 32),
			                 KDSL_OK);
			for (int p = 0; p < 128; p++)
				ck_assert_msg(!memcmp(sb + (size_t)p * sps, want + (size_t)p * W, W),
				              "rows of %lld bytes, kind %d: partition %d differs", (long long)n, kind, p);
		}
	fix_close(&f);
}
END_TEST

/* A mask rejected after an accepted one, and the accepted one again: a
 * bad mask is never cached, and the same entries as before are checked
 * against each call's own tiles (a cached mask that fitted 128
 * partitions must still be refused for a src of 33). */
START_TEST(shuffle_cache_keeps_rules)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	unsigned char *sb;
	size_t sps;
	int64_t mask[32], bad[32];
	kdsl_tile t;
	kdsl_ctile src;

	ck_assert_ptr_nonnull(rt);
	sb = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL);
	sps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	for (int i = 0; i < 32; i++)
		mask[i] = 31 - i;
	memcpy(bad, mask, sizeof bad);
	bad[9] = 40;
	t = kdsl_tile_of(sb, sps, 64, 128, 0, 128, 0, 16, KDSL_MEM_SBUF, KDSL_F32);
	src = kdsl_ctile_of(sb + 256, sps, 64, 128, 0, 128, 0, 16, KDSL_MEM_SBUF, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, mask, 32), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, bad, 32), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "shuffle_mask[9] must be in 0..31 or 255, got 40"));
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, bad, 32), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, mask, 32), KDSL_OK);
	/* dst 64 partitions, src 33: entry 0 (31) of the second group reads partition 63 */
	t.np = 64;
	src.np = 33;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, mask, 32), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "shuffle_mask[0] = 31 reads partition 63 of src, which has 33"));
	/* boundary: src of 64 is enough */
	src.np = 64;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, src, mask, 32), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

/* A random rtile of memory mem (0..SPAN-1 bytes into each partition, u8
 * or f32 rows of n elements, partitions p0.. of 128) for a shuffle of np
 * partitions. */
static kdsl_rtile rtile_of(kdsl_mem mem, size_t off, int64_t p0, int64_t np, int64_t n, kdsl_dtype dt)
{
	kdsl_rtile t = {off, (size_t)n * (dt == KDSL_F32 ? 4 : 1), 128, p0, np, 0, n, mem, dt};
	return t;
}

/* The kdsl_tile an rtile stands for on runtime rt (base rt's memory plus
 * off, pstride the memory's): what kdsl_neuron_nc_stream_shuffle is
 * given for the same operand. */
static kdsl_tile tile_of(kdsl_rt *rt, const kdsl_rtile *t)
{
	return kdsl_tile_of(kdsl_rt_mem(rt, t->mem, NULL) + t->off, kdsl_rt_partition_stride(rt, t->mem), t->pbytes,
	                    t->nparts, t->p0, t->np, t->foff, t->n, t->mem, t->dt);
}

/* The mask of an in-place case of shuffle_in_place_groups: rows 0..7
 * swapped in pairs in every kind (what a partial last group of 8 rows
 * uses), rows 8..31 swapped in pairs (0), in a 3-cycle and a pair (1),
 * or all reading row 0 (2: no permutation, gathered). */
static void in_place_mask(int64_t *mask, int kind)
{
	for (int i = 0; i < 32; i++)
		mask[i] = i < 8 ? i ^ 1 : kind == 0 ? 39 - i : kind == 1 ? i : 0;
	if (kind == 1) {
		mask[8] = 9, mask[9] = 10, mask[10] = 8;
		mask[20] = 30, mask[30] = 20;
	}
}

/* In place, the walks by the kind of plan of the groups of 32 and of a
 * partial last group: pairs in both (the pair walk over every full
 * group), cycles or a gather in the full groups and pairs in the last,
 * and a last group alone; rows of every walk (the constant ones and any
 * length, short and long).  Each case through the by-value entry, then
 * twice through the _k entry (its second call a kept operand struct),
 * against the rows moved by hand. */
START_TEST(shuffle_in_place_groups)
{
	static const int64_t lens[] = {1, 5, 32, 64, 100, 128, 256, 2048}, nps[] = {128, 96, 40, 8};
	enum { W = 2048 };
	shuf_fix f = fix_open((size_t)128 * W, (size_t)128 * W);
	kdsl_rt *rt = f.rt;
	unsigned char *sb = f.sb, *want = f.want, *snap = f.snap;
	size_t sps = f.sps;
	uint64_t x = 0x243f6a8885a308d3ull;

	for (int kind = 0; kind < 3; kind++)
		for (int ni = 0; ni < 4; ni++)
			for (int li = 0; li < 8; li++) {
				int64_t n = lens[li], np = nps[ni];
				kdsl_shuf_args a;
				in_place_mask(a.mask, kind);
				a.dst = a.src = rtile_of(KDSL_MEM_SBUF, 0, 0, np, n, KDSL_U8);
				fix_fill(&f, W, &x);
				/* three shuffles in turn: by value, then _k twice */
				for (int call = 0; call < 3; call++) {
					for (int64_t r = 0; r < np; r++)
						memcpy(snap + (size_t)r * (size_t)n, want + (size_t)r * W, (size_t)n);
					for (int64_t r = 0; r < np; r++)
						memcpy(want + (size_t)r * W, snap + (size_t)(r / 32 * 32 + a.mask[r % 32]) * (size_t)n,
						       (size_t)n);
					ck_assert_msg((call ? kdsl_neuron_nc_stream_shuffle_k(rt, &site, &a)
					                    : kdsl_neuron_nc_stream_shuffle(
					                          rt, &site, tile_of(rt, &a.dst),
					                          kdsl_ctile_of(sb, sps, (size_t)n, 128, 0, np, 0, n, KDSL_MEM_SBUF,
					                                        KDSL_U8),
					                          a.mask, 32)) == KDSL_OK,
					              "kind %d, np %lld, rows of %lld bytes, call %d: %s", kind, (long long)np,
					              (long long)n, call, kdsl_rt_last_error(rt));
					for (int p = 0; p < 128; p++)
						ck_assert_msg(!memcmp(sb + (size_t)p * sps, want + (size_t)p * W, W),
						              "kind %d, np %lld, rows of %lld bytes, call %d: partition %d differs", kind,
						              (long long)np, (long long)n, call, p);
				}
			}
	fix_close(&f);
}
END_TEST

/* Breaks field k of t (k 0..8; some values on and past a rule's edge). */
static void break_field(kdsl_rtile *t, int k, uint64_t *x)
{
	static const int64_t odd[] = {-1, 0, 1, 31, 32, 33, 64, 96, 127, 128, 129, INT64_MAX, INT64_MIN};
	int64_t v = odd[rnd(x) % (sizeof odd / sizeof odd[0])];

	switch (k) {
	case 0: t->off = rnd(x) % 2 ? t->off + 200 * 1024 : SIZE_MAX - 3; break;   /* past partition 0, the memory */
	case 1: t->pbytes = rnd(x) % 2 ? t->pbytes - 1 : (size_t)v; break;
	case 2: t->nparts = v; break;
	case 3: t->p0 = v; break;
	case 4: t->np = v; break;
	case 5: t->foff = v; break;
	case 6: t->n = v; break;
	case 7: t->dt = rnd(x) % 2 ? (kdsl_dtype)0 : t->dt == KDSL_U8 ? KDSL_F32 : KDSL_U8; break;
	default: t->mem = t->mem == KDSL_MEM_SBUF ? KDSL_MEM_PSUM : KDSL_MEM_SBUF; break;
	}
}

/* kdsl_neuron_nc_stream_shuffle_k against kdsl_neuron_nc_stream_shuffle
 * on two runtimes filled alike: the same code, the same message and the
 * same bytes in sbuf and psum, for valid operands (copies, in place,
 * overlapping, psum to sbuf, partial groups, every mask kind) and for
 * operands with one field or mask entry broken, in dst or in src; each
 * twice (the second _k call of operands that passed is a kslot hit), and
 * now and then the last operands again or one field or entry apart; the
 * last trials with the uninit checker on (the other path through the
 * op). */
START_TEST(shuffle_k_same_as_tiles)
{
	kdsl_rt *ra = kdsl_rt_create(KDSL_TARGET_NEURON), *rb = kdsl_rt_create(KDSL_TARGET_NEURON);
	unsigned char *junk = malloc((size_t)128 * SPAN);
	uint64_t x = 0x6a09e667f3bcc909ull;
	int ok = 0, failed = 0;
	kdsl_shuf_args a, prev;

	ck_assert_ptr_nonnull(ra);
	ck_assert_ptr_nonnull(rb);
	ck_assert_ptr_nonnull(junk);
	for (int trial = 0; trial < 400; trial++) {
		int64_t np = trial % 5 == 0 ? 128 : 1 + (int64_t)(rnd(&x) % 128);
		int64_t active = (np + 31) / 32 * 32, p0 = active >= 96 ? 0 : (int64_t)(rnd(&x) % (uint64_t)(128 / active)) * active;
		int kind = (int)(rnd(&x) % 4), f32 = rnd(&x) % 2, brk = (int)(rnd(&x) % 3);
		int64_t n = 1 + (int64_t)(rnd(&x) % (f32 ? 64 : 256));
		size_t rb_ = (size_t)n * (f32 ? 4 : 1), soff = (size_t)(rnd(&x) % 16) * 4;
		size_t doff = kind == 1 ? soff : kind == 2 ? soff + 4 + (size_t)(rnd(&x) % 8) * 4 : soff + rb_ + (size_t)(rnd(&x) % 64) * 4;
		kdsl_dtype dt = f32 ? KDSL_F32 : KDSL_U8;

		if (trial % 4 == 3) {
			/* the last operands again, or one field or entry apart (a
			 * kslot's key that must miss) */
			a = prev;
			if (rnd(&x) % 2) {
				int64_t *f[] = {&a.dst.p0, &a.dst.np, &a.dst.foff, &a.dst.n, &a.src.p0, &a.src.np, &a.src.foff,
				                &a.src.n, &a.mask[rnd(&x) % 32]};
				int64_t *g = f[rnd(&x) % 9];
				/* wrapping: the field may be INT64_MIN or INT64_MAX already */
				*g = (int64_t)((uint64_t)*g + (rnd(&x) % 2 ? 1 : UINT64_MAX));
			}
		} else {
			make_mask(a.mask, &x);
			for (int i = 0; i < 32 && i < np; i++)
				if (a.mask[i] != 255 && (np - 1 - i) / 32 * 32 + a.mask[i] >= np)
					a.mask[i] = 0;
			a.src = rtile_of(kind == 3 ? KDSL_MEM_PSUM : KDSL_MEM_SBUF, soff, p0, np, n, dt);
			a.dst = rtile_of(KDSL_MEM_SBUF, doff, p0, np, n, dt);
			if (brk == 1)
				break_field(rnd(&x) % 2 ? &a.dst : &a.src, (int)(rnd(&x) % 9), &x);
			else if (brk == 2)
				a.mask[rnd(&x) % 32] = (int64_t)(rnd(&x) % 40) - 4;
		}
		prev = a;
		if (trial == 350) {   /* the checker for the last trials (setting it clears the shadow: once) */
			ck_assert_int_eq(kdsl_rt_set_check(ra, KDSL_CHECK_UNINIT), KDSL_OK);
			ck_assert_int_eq(kdsl_rt_set_check(rb, KDSL_CHECK_UNINIT), KDSL_OK);
		}
		/* an offset past the memory has no kdsl_tile: the _k entry's own error */
		if (a.dst.off == SIZE_MAX - 3 || a.src.off == SIZE_MAX - 3) {
			ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rb, &site, &a), KDSL_ERR_ARG);
			ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rb), "is not in this runtime's"));
			continue;
		}
		/* twice, on new bytes: the second _k call of operands that passed
		 * takes the kslot */
		for (int round = 0; round < 2; round++) {
			int ca, cb;

			/* new bytes in sbuf (psum every fourth trial), the same in both */
			for (int m = 0; m < (trial % 4 ? 1 : 2); m++) {
				kdsl_mem mem = m ? KDSL_MEM_PSUM : KDSL_MEM_SBUF;
				size_t ps = kdsl_rt_partition_stride(ra, mem);
				fill(kdsl_rt_mem(ra, mem, NULL), ps, 128, junk, &x);
				for (int p = 0; p < 128; p++)
					memcpy(kdsl_rt_mem(rb, mem, NULL) + (size_t)p * ps, junk + (size_t)p * SPAN, SPAN);
			}
			ca = kdsl_neuron_nc_stream_shuffle(ra, &site, tile_of(ra, &a.dst), kdsl_ctile_of(
			                                       kdsl_rt_mem(ra, a.src.mem, NULL) + a.src.off,
			                                       kdsl_rt_partition_stride(ra, a.src.mem), a.src.pbytes, a.src.nparts,
			                                       a.src.p0, a.src.np, a.src.foff, a.src.n, a.src.mem, a.src.dt),
			                                   a.mask, 32);
			cb = kdsl_neuron_nc_stream_shuffle_k(rb, &site, &a);
			ck_assert_msg(ca == cb, "trial %d: codes %d and %d (%s | %s)", trial, ca, cb, kdsl_rt_last_error(ra),
			              kdsl_rt_last_error(rb));
			if (ca != KDSL_OK)
				ck_assert_str_eq(kdsl_rt_last_error(ra), kdsl_rt_last_error(rb));
			ok += ca == KDSL_OK;
			failed += ca != KDSL_OK;
			for (int p = 0; p < 128; p++) {
				ck_assert_msg(!memcmp(kdsl_rt_mem(ra, KDSL_MEM_SBUF, NULL) + (size_t)p * kdsl_rt_partition_stride(ra, KDSL_MEM_SBUF),
				                      kdsl_rt_mem(rb, KDSL_MEM_SBUF, NULL) + (size_t)p * kdsl_rt_partition_stride(rb, KDSL_MEM_SBUF), SPAN),
				              "trial %d: sbuf partition %d differs", trial, p);
				ck_assert_msg(!memcmp(kdsl_rt_mem(ra, KDSL_MEM_PSUM, NULL) + (size_t)p * kdsl_rt_partition_stride(ra, KDSL_MEM_PSUM),
				                      kdsl_rt_mem(rb, KDSL_MEM_PSUM, NULL) + (size_t)p * kdsl_rt_partition_stride(rb, KDSL_MEM_PSUM), SPAN),
				              "trial %d: psum partition %d differs", trial, p);
			}
		}
	}
	/* both kinds of call were made often (the draw is deterministic) */
	ck_assert_msg(ok > 350 && failed > 250, "%d calls ran, %d failed", ok, failed);
	free(junk);
	kdsl_rt_destroy(ra);
	kdsl_rt_destroy(rb);
}
END_TEST

/* A kslot whose plans left the cache: operands A through the _k entry
 * (kept in a kslot), then more distinct masks than the cache holds
 * through the by-value entry (every plan entry refilled, no kslot
 * touched), then A again, which must plan anew: the bytes match the
 * by-value entry's on a twin runtime after each call. */
START_TEST(shuffle_k_after_eviction)
{
	kdsl_rt *ra = kdsl_rt_create(KDSL_TARGET_NEURON), *rb = kdsl_rt_create(KDSL_TARGET_NEURON);
	kdsl_rt *rts[2] = {ra, rb};
	unsigned char *junk = malloc((size_t)128 * SPAN);
	uint64_t x = 0xbb67ae8584caa73bull, y;
	kdsl_shuf_args a;

	ck_assert_ptr_nonnull(ra);
	ck_assert_ptr_nonnull(rb);
	ck_assert_ptr_nonnull(junk);
	for (int i = 0; i < 32; i++)
		a.mask[i] = 31 - i;
	a.dst = rtile_of(KDSL_MEM_SBUF, 512, 0, 128, 32, KDSL_F32);
	a.src = rtile_of(KDSL_MEM_SBUF, 0, 0, 128, 32, KDSL_F32);
	for (int r = 0; r < 2; r++) {
		y = x;
		fill(kdsl_rt_mem(rts[r], KDSL_MEM_SBUF, NULL), kdsl_rt_partition_stride(rts[r], KDSL_MEM_SBUF), 128, junk, &y);
	}
	for (int step = 0; step < 3 + 10; step++) {
		/* steps 0, 1 and the last: A; between them ten other masks */
		int isa = step < 2 || step == 12;
		kdsl_shuf_args o = a;
		for (int i = 0; i < 32; i++)
			o.mask[i] = (i + step) % 32;
		for (int r = 0; r < 2; r++) {
			const kdsl_shuf_args *c = isa ? &a : &o;
			if (r == 1 && isa)
				ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rb, &site, c), KDSL_OK);
			else
				ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rts[r], &site, tile_of(rts[r], &c->dst),
				                                               kdsl_ctile_of(kdsl_rt_mem(rts[r], KDSL_MEM_SBUF, NULL),
				                                                             kdsl_rt_partition_stride(rts[r], KDSL_MEM_SBUF),
				                                                             128, 128, 0, 128, 0, 32, KDSL_MEM_SBUF,
				                                                             KDSL_F32),
				                                               c->mask, 32),
				                 KDSL_OK);
		}
		for (int p = 0; p < 128; p++)
			ck_assert_msg(!memcmp(kdsl_rt_mem(ra, KDSL_MEM_SBUF, NULL) + (size_t)p * kdsl_rt_partition_stride(ra, KDSL_MEM_SBUF),
			                      kdsl_rt_mem(rb, KDSL_MEM_SBUF, NULL) + (size_t)p * kdsl_rt_partition_stride(rb, KDSL_MEM_SBUF), SPAN),
			              "step %d: sbuf partition %d differs", step, p);
		/* new bytes in src for the next step */
		y = rnd(&x);
		for (int r = 0; r < 2; r++) {
			uint64_t z = y;
			for (int p = 0; p < 128; p++)
				for (int j = 0; j < 128; j += 8) {
					uint64_t v = rnd(&z);
					memcpy(kdsl_rt_mem(rts[r], KDSL_MEM_SBUF, NULL) + (size_t)p * kdsl_rt_partition_stride(rts[r], KDSL_MEM_SBUF) + j, &v, 8);
				}
		}
	}
	free(junk);
	kdsl_rt_destroy(ra);
	kdsl_rt_destroy(rb);
}
END_TEST

/* The _k entry's own errors: operands it has no pointer for, each at
 * its edge (the last byte of the memory is a place; one past is not). */
START_TEST(shuffle_k_own_errors)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	size_t bytes;
	kdsl_shuf_args a;

	ck_assert_ptr_nonnull(rt);
	ck_assert_ptr_nonnull(kdsl_rt_mem(rt, KDSL_MEM_PSUM, &bytes));
	for (int i = 0; i < 32; i++)
		a.mask[i] = i;
	a.dst = rtile_of(KDSL_MEM_SBUF, 0, 0, 128, 16, KDSL_F32);
	a.src = rtile_of(KDSL_MEM_PSUM, bytes, 0, 128, 16, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(NULL, &site, &a), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rt, &site, NULL), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "nc_stream_shuffle's operands are NULL"));
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rt, &site, &a), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "src is not in this runtime's psum"));
	/* inside the memory, past the tile's partitions: the tile checks' words */
	a.src.off = bytes - 1;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rt, &site, &a), KDSL_ERR_BOUNDS);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "src lies outside psum"));
	a.src = rtile_of(KDSL_MEM_SBUF, 64, 0, 128, 16, KDSL_F32);
	a.dst.mem = KDSL_MEM_HBM;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rt, &site, &a), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "dst must be in sbuf or psum, got hbm"));
	a.dst.mem = KDSL_MEM_SBUF;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle_k(rt, &site, &a), KDSL_OK);
	kdsl_rt_destroy(rt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime_shuffle");
	TCase *tc = tcase_create("shuffle");

	/* thousands of shuffles: room for the sanitizer build */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, shuffle_cache_against_reference);
	tcase_add_test(tc, shuffle_long_rows);
	tcase_add_test(tc, shuffle_in_place_groups);
	tcase_add_test(tc, shuffle_cache_keeps_rules);
	tcase_add_test(tc, shuffle_k_same_as_tiles);
	tcase_add_test(tc, shuffle_k_after_eviction);
	tcase_add_test(tc, shuffle_k_own_errors);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
