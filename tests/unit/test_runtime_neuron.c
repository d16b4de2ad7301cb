/* test_runtime_neuron.c: the neuron runtime entries called directly: the
 * semantics of seeds 000 and 002 on emulated sbuf/psum, every rule
 * re-checked at run time, and nothing written when a rule fails. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

/* The v0 forms of tensor_scalar and activation (one number operand, no
 * bias or scale). */
static int ts1(kdsl_rt *r, const kdsl_site *s, kdsl_tile d, kdsl_ctile a, int64_t op, double y)
{
	return kdsl_neuron_tensor_scalar(r, s, d, a, op, kdsl_ctile_none(), y, 0, KDSL_ALU_BYPASS,
	                                 kdsl_ctile_none(), 0, 0);
}

static int act1(kdsl_rt *r, const kdsl_site *s, kdsl_tile d, kdsl_ctile a, int64_t func)
{
	return kdsl_neuron_activation(r, s, d, a, func, kdsl_ctile_none(), 0, kdsl_ctile_none(), 1);
}

static kdsl_rt *rt;
static const kdsl_site site = {"t.k", 1, 1, "op"};

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_ptr_nonnull(rt);
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

/* A tile of `parts` partitions x `n` elements at byte `addr` of every partition. */
static kdsl_tile tile(kdsl_mem mem, size_t addr, int64_t parts, int64_t n, kdsl_dtype dt)
{
	size_t ps = kdsl_rt_partition_stride(rt, mem);
	return kdsl_tile_of(kdsl_rt_mem(rt, mem, NULL) + addr, ps, (size_t)n * kdsl_dtype_size(dt), parts, 0, parts,
	                    0, n, mem, dt);
}

static kdsl_ctile ct(kdsl_tile t)
{
	return kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt);
}

static kdsl_tile sub(kdsl_tile t, int64_t p0, int64_t np, int64_t off, int64_t n)
{
	t.p0 = p0;
	t.np = np;
	t.off = off;
	t.n = n;
	return t;
}

static float *fat(kdsl_tile t, int64_t p, int64_t j)
{
	return (float *)(void *)(t.base + (size_t)p * t.pstride + (size_t)j * 4);
}

static const int64_t ident[32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

static void fill_rows(kdsl_tile t)
{
	for (int64_t p = 0; p < t.nparts; p++)
		for (int64_t j = 0; j < t.n; j++)
			*fat(t, p, j) = (float)(p * 1000 + j);
}

START_TEST(shuffle_in_place_reads_first)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 128, 8, KDSL_F32);
	int64_t mask[32];
	fill_rows(t);
	/* reverse each quadrant, keep partition 5 of every quadrant */
	for (int i = 0; i < 32; i++)
		mask[i] = i == 5 ? 255 : 31 - i;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, ct(t), mask, 32), KDSL_OK);
	for (int p = 0; p < 128; p++) {
		int q = p / 32, i = p % 32, from = i == 5 ? p : q * 32 + 31 - i;
		for (int j = 0; j < 8; j++)
			ck_assert_float_eq(*fat(t, p, j), (float)(from * 1000 + j));
	}
}
END_TEST

/* In place with rows longer than the runtime's column chunk, a partial
 * last group and masks that are permutations (rotated cycle by cycle) or
 * not (a row read twice): every row gets its source's old value. */
START_TEST(shuffle_in_place_cycles)
{
	for (int perm = 0; perm < 2; perm++) {
		kdsl_tile t = tile(KDSL_MEM_SBUF, 64, 40, 300, KDSL_F32);
		int64_t mask[32];
		fill_rows(t);
		for (int i = 0; i < 32; i++)
			mask[i] = i < 8 ? (i + 3) % 8 : 8 + (i - 8 + 5) % 24;
		if (!perm)
			mask[9] = 2;   /* rows 2 and 9 both read row 2 */
		ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, ct(t), mask, 32), KDSL_OK);
		for (int p = 0; p < 40; p++) {
			int from = p / 32 * 32 + (int)mask[p % 32];
			for (int j = 0; j < 300; j += 7)
				ck_assert_float_eq(*fat(t, p, j), (float)(from * 1000 + j));
		}
	}
}
END_TEST

START_TEST(shuffle_psum_to_sbuf_quadrants)
{
	kdsl_tile s = tile(KDSL_MEM_PSUM, 2048, 128, 4, KDSL_F32), d = tile(KDSL_MEM_SBUF, 64, 128, 4, KDSL_F32);
	fill_rows(s);
	/* 32 active partitions: psum 96..127 to sbuf 32..63 */
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, sub(d, 32, 32, 0, 4), ct(sub(s, 96, 32, 0, 4)),
	                                               ident, 32), KDSL_OK);
	for (int i = 0; i < 32; i++)
		ck_assert_float_eq(*fat(d, 32 + i, 3), (float)((96 + i) * 1000 + 3));
}
END_TEST

START_TEST(shuffle_rules_at_run_time)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 128, 8, KDSL_F32), h = tile(KDSL_MEM_SBUF, 512, 128, 8, KDSL_F16);
	int64_t bad[32];
	fill_rows(t);
	memcpy(bad, ident, sizeof bad);
	/* 64 active partitions may start at 0 or 64 only */
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, sub(t, 32, 64, 0, 8), ct(sub(t, 0, 64, 0, 8)),
	                                               ident, 32), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "t.k:1:1: op: dst start partition must be 0 or 64 "
	                                                     "when num_active_partitions is 64, got 32"));
	/* 96: only 0 */
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, sub(t, 0, 96, 0, 8), ct(sub(t, 32, 96, 0, 8)),
	                                               ident, 32), KDSL_ERR_RANGE);
	bad[7] = 32;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, ct(t), bad, 32), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "shuffle_mask[7] must be in 0..31 or 255, got 32"));
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, t, ct(t), ident, 31), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, h, ct(t), ident, 32), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, sub(t, 0, 128, 0, 4), ct(t), ident, 32),
	                 KDSL_ERR_RANGE);
	/* a 16-partition source cannot feed mask entry 20 */
	bad[7] = 20;
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, sub(t, 32, 32, 0, 8), ct(sub(t, 0, 16, 0, 8)),
	                                               bad, 32), KDSL_ERR_BOUNDS);
	/* nothing was written by the failed calls */
	for (int p = 0; p < 128; p++)
		ck_assert_float_eq(*fat(t, p, 0), (float)(p * 1000));
}
END_TEST

/* Random shuffles against the op's definition, computed the plain way
 * (every source row read first, then the written rows assigned), 1,500
 * of them: copies,
 * in place and shifted by a few bytes (the snapshot), partial groups,
 * masks that permute (cycles of every length, pairs), repeat or skip
 * (255) rows, rows of 1..700 bytes (across the runtime's 512-byte chunk).
 * All of the first 2 KiB of every partition is compared, so a byte
 * written outside the view fails too. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

START_TEST(shuffle_random_against_reference)
{
	enum { SPAN = 2048 };
	unsigned char *sb = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL), *want = malloc((size_t)128 * SPAN);
	unsigned char *snap = malloc((size_t)128 * 700);
	size_t ps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(snap);
	for (int trial = 0; trial < 1500; trial++) {
		int64_t np = 1 + (int64_t)(rnd(&x) % 128), n = 1 + (int64_t)(rnd(&x) % 700), mask[32];
		int64_t active = (np + 31) / 32 * 32, p0 = active >= 96 ? 0 : (int64_t)(rnd(&x) % (128 / active)) * active;
		int kind = (int)(rnd(&x) % 3);   /* 0 copy, 1 in place, 2 shifted */
		size_t soff = (size_t)(rnd(&x) % 64), doff = kind == 0 ? 704 + (size_t)(rnd(&x) % 600)
		                                         : kind == 1 ? soff : soff + 1 + (size_t)(rnd(&x) % 40);
		int style = (int)(rnd(&x) % 4);
		kdsl_tile s, d;

		/* style 0: a random permutation; 1: pairs swapped; 2: anything; 3: rotation */
		for (int i = 0; i < 32; i++)
			mask[i] = style == 2 ? (int64_t)(rnd(&x) % 32) : style == 3 ? (i + 1 + trial % 31) % 32 : i;
		if (style == 0)
			for (int i = 31; i > 0; i--) {
				int j = (int)(rnd(&x) % (uint64_t)(i + 1));
				int64_t t = mask[i];
				mask[i] = mask[j];
				mask[j] = t;
			}
		if (style == 1)
			for (int i = 0; i + 1 < 32; i += 2)
				if (rnd(&x) & 1) {
					mask[i] = i + 1;
					mask[i + 1] = i;
				}
		/* entries the last group cannot feed read row 0 of it instead */
		for (int i = 0; i < 32 && i < np; i++)
			if ((np - 1 - i) / 32 * 32 + mask[i] >= np)
				mask[i] = 0;
		/* a third of the masks skip rows (255): the rest keep the
		 * permutations whole, for the in-place cycle rotation */
		if (rnd(&x) % 3 == 0)
			for (int i = 0; i < 32; i++)
				if (rnd(&x) % 8 == 0)
					mask[i] = 255;
		for (int p = 0; p < 128; p++)
			for (int j = 0; j < SPAN; j += 8) {
				uint64_t v = rnd(&x);
				memcpy(want + (size_t)p * SPAN + (size_t)j, &v, 8);
			}
		for (int p = 0; p < 128; p++)
			memcpy(sb + (size_t)p * ps, want + (size_t)p * SPAN, SPAN);
		for (int64_t r = 0; r < np; r++)
			memcpy(snap + (size_t)r * (size_t)n, want + (size_t)(p0 + r) * SPAN + soff, (size_t)n);
		for (int64_t r = 0; r < np; r++)
			if (mask[r % 32] != 255)
				memcpy(want + (size_t)(p0 + r) * SPAN + doff, snap + (size_t)(r / 32 * 32 + mask[r % 32]) * (size_t)n,
				       (size_t)n);
		s = sub(tile(KDSL_MEM_SBUF, soff, 128, n, KDSL_U8), p0, np, 0, n);
		d = sub(tile(KDSL_MEM_SBUF, doff, 128, n, KDSL_U8), p0, np, 0, n);
		ck_assert_msg(kdsl_neuron_nc_stream_shuffle(rt, &site, d, ct(s), mask, 32) == KDSL_OK, "trial %d: %s",
		              trial, kdsl_rt_last_error(rt));
		for (int p = 0; p < 128; p++)
			ck_assert_msg(!memcmp(sb + (size_t)p * ps, want + (size_t)p * SPAN, SPAN),
			              "trial %d (np %lld, n %lld, kind %d, style %d): partition %d differs", trial,
			              (long long)np, (long long)n, kind, style, p);
	}
	free(want);
	free(snap);
}
END_TEST

START_TEST(tile_checks)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 128, 8, KDSL_F32);
	float host[4 * 8] = {0};
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, sub(t, 100, 29, 0, 8), 1.0), KDSL_ERR_BOUNDS);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, sub(t, -1, 1, 0, 8), 1.0), KDSL_ERR_BOUNDS);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, sub(t, 0, 1, 4, 5), 1.0), KDSL_ERR_BOUNDS);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, sub(t, 0, 1, -1, 2), 1.0), KDSL_ERR_BOUNDS);
	/* a host array is not sbuf */
	kdsl_tile fake = kdsl_tile_of(host, 32, 32, 4, 0, 4, 0, 8, KDSL_MEM_SBUF, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, fake, 1.0), KDSL_ERR_ARG);
	/* a tile running past the last partition of the memory */
	kdsl_tile end = tile(KDSL_MEM_PSUM, 0, 128, 8, KDSL_F32);
	end.base += kdsl_rt_partition_stride(rt, KDSL_MEM_PSUM);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, end, 1.0), KDSL_ERR_BOUNDS);
	/* the host pad between partitions is no partition's memory */
	kdsl_tile last = tile(KDSL_MEM_PSUM, 16384 - 32, 128, 8, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, last, 1.0), KDSL_OK);
	last.base += 4;
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, last, 1.0), KDSL_ERR_BOUNDS);
	/* a tile must use the runtime's partition stride */
	kdsl_tile packed = tile(KDSL_MEM_PSUM, 0, 128, 8, KDSL_F32);
	packed.pstride = 16384;
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, packed, 1.0), KDSL_ERR_BOUNDS);
	/* hbm is not a memset target */
	kdsl_tile hbm = kdsl_tile_of(host, 32, 32, 4, 0, 4, 0, 8, KDSL_MEM_HBM, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, hbm, 1.0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, t, ct(hbm)), KDSL_ERR_RANGE);   /* 4 vs 128 partitions */
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sub(t, 8, 4, 0, 8), ct(hbm)), KDSL_OK);
}
END_TEST

/* Hostile tile geometry (fuzz/regress/rt): a view whose last index
 * passes INT64_MAX is reported without overflowing, and rows that would
 * wrap the address space are refused before any pointer is formed; both
 * at their boundary too. */
START_TEST(tile_hostile_geometry)
{
	float host[4 * 8] = {0};
	kdsl_tile sb = tile(KDSL_MEM_SBUF, 0, 4, 8, KDSL_F32);
	kdsl_tile t = kdsl_tile_of(host, 32, 32, 4, 0, 4, 0, 8, KDSL_MEM_HBM, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sb, ct(sub(t, 0, 4, 512, INT64_MAX))), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: src: elements 512..9223372036854775807 of each partition are outside its 8");
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sb, ct(sub(t, INT64_MAX, INT64_MAX, 0, 8))), KDSL_ERR_BOUNDS);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sb, ct(sub(t, INT64_MIN, INT64_MIN, 0, 8))), KDSL_ERR_BOUNDS);
	/* rows that wrap: 2^62 partitions 2^62 bytes apart, and a row past the top */
	kdsl_tile wrap = kdsl_tile_of(host, (size_t)1 << 62, 32, (int64_t)1 << 62, 3, 1, 0, 8, KDSL_MEM_HBM, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sub(sb, 0, 1, 0, 8), ct(wrap)), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "overflow the address space"));
	kdsl_tile top = kdsl_tile_of((void *)(UINTPTR_MAX - 16), 32, 32, 1, 0, 1, 0, 8, KDSL_MEM_HBM, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sub(sb, 0, 1, 0, 8), ct(top)), KDSL_ERR_ARG);
	/* the boundary: the same geometry that fits is accepted */
	kdsl_tile fits = kdsl_tile_of(host, 32, 32, 4, 3, 1, 0, 8, KDSL_MEM_HBM, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, sub(sb, 0, 1, 0, 8), ct(fits)), KDSL_OK);
	/* a NULL runtime is an error, not a crash */
	ck_assert_int_eq(kdsl_neuron_load(NULL, &site, sb, ct(t)), KDSL_ERR_ARG);
}
END_TEST

/* The checks of a tile take an inline path for contiguous on-chip tiles
 * whose storage starts in the memory's first partition and pass every
 * rule; anything else goes through the full checks.  At each edge of
 * that path a tile is accepted or refused with the full checks' text
 * (dst's error before src's), whichever path decides. */
START_TEST(tile_checks_fast_path_edges)
{
	size_t pb = kdsl_rt_partition_bytes(rt, KDSL_MEM_SBUF), ps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	kdsl_tile ok = tile(KDSL_MEM_SBUF, 0, 128, 8, KDSL_F32), t;
	static const struct {
		int edge;          /* which field is moved, below */
		int rc;
		const char *msg;   /* the error after "t.k:1:1: op: ", NULL when accepted */
	} cases[] = {
		{0, KDSL_OK, NULL},                                      /* the last 32 bytes of partition 0 */
		{1, KDSL_ERR_BOUNDS, "dst lies outside sbuf"},           /* 4 bytes further: into the pad */
		{2, KDSL_OK, NULL},                                      /* a whole partition's bytes */
		{3, KDSL_ERR_BOUNDS, "dst lies outside sbuf"},           /* one element more */
		{4, KDSL_OK, NULL},                                      /* stored from partition 1 on, 127 of them */
		{5, KDSL_ERR_BOUNDS, "dst lies outside sbuf"},           /* ... 128 of them */
		{6, KDSL_ERR_ARG, "dst is not a valid tile"},            /* pbytes not whole elements */
		{7, KDSL_ERR_ARG, "dst has no valid dtype"},             /* dtype 0 */
		{8, KDSL_ERR_ARG, "dst has no valid dtype"},             /* one past the last dtype */
		{9, KDSL_ERR_BOUNDS, "dst lies outside sbuf"},           /* another partition stride */
		{10, KDSL_ERR_BOUNDS, "dst: partitions 1..128 are outside its 128 partitions"},
		{11, KDSL_ERR_BOUNDS, "dst: elements 1..8 of each partition are outside its 8"},
		{12, KDSL_ERR_ARG, "dst is not in this runtime's sbuf"}, /* a byte before sbuf */
		{13, KDSL_ERR_ARG, "dst is not a valid tile"},           /* no partitions */
		{14, KDSL_OK, NULL},                                     /* psum, its last partition */
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t = ok;
		switch (cases[i].edge) {
		case 0: t = tile(KDSL_MEM_SBUF, pb - 32, 128, 8, KDSL_F32); break;
		case 1: t = tile(KDSL_MEM_SBUF, pb - 28, 128, 8, KDSL_F32); break;
		case 2: t = sub(tile(KDSL_MEM_SBUF, 0, 128, (int64_t)pb / 4, KDSL_F32), 0, 128, 0, 8); break;
		case 3: t = sub(tile(KDSL_MEM_SBUF, 0, 128, (int64_t)pb / 4 + 1, KDSL_F32), 0, 128, 0, 8); break;
		case 4: t = sub(tile(KDSL_MEM_SBUF, ps, 127, 8, KDSL_F32), 0, 127, 0, 8); break;
		case 5: t = tile(KDSL_MEM_SBUF, ps, 128, 8, KDSL_F32); break;
		case 6: t.pbytes = 30; t.n = 7; break;
		case 7: t.dt = (kdsl_dtype)0; break;
		case 8: t.dt = (kdsl_dtype)KDSL_NDTYPE; break;
		case 9: t.pstride = ps + 64; t.nparts = t.np = 4; break;
		case 10: t.p0 = 1; break;
		case 11: t.off = 1; break;
		case 12: t.base -= 1; break;
		case 13: t.nparts = 0; break;
		case 14: t = sub(tile(KDSL_MEM_PSUM, kdsl_rt_partition_stride(rt, KDSL_MEM_PSUM) * 127, 1, 8, KDSL_F32),
		                 0, 1, 0, 8); break;
		}
		/* src as broken as dst: dst's error comes first */
		kdsl_tile src = cases[i].rc ? t : sub(ok, 0, t.np, 0, t.n);
		int rc = kdsl_neuron_tensor_copy(rt, &site, t, ct(src));
		ck_assert_msg(rc == cases[i].rc, "case %d: rc %d, %s", cases[i].edge, rc, kdsl_rt_last_error(rt));
		if (cases[i].msg) {
			char want[160];
			snprintf(want, sizeof want, "t.k:1:1: op: %s", cases[i].msg);
			ck_assert_str_eq(kdsl_rt_last_error(rt), want);
			/* the same tile as src, after a valid dst: the same text for src */
			ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, sub(ok, 0, t.np, 0, t.n), ct(t)), cases[i].rc);
			snprintf(want, sizeof want, "t.k:1:1: op: src%s", cases[i].msg + 3);
			ck_assert_str_eq(kdsl_rt_last_error(rt), want);
		}
	}
}
END_TEST

/* tensor_copy's dtype conversions (plain loops for f32 <-> f16/bf16 and
 * small integers) give what converting each element through a double
 * does: every f16, random f32 bit patterns, integers that wrap. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int f16_nan(uint16_t h)
{
	return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static int bf16_nan(uint16_t h)
{
	return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static void copy_as(kdsl_dtype dd, kdsl_dtype sd, int64_t n)
{
	kdsl_tile d = tile(KDSL_MEM_SBUF, 65536, 1, n, dd);
	kdsl_tile s = tile(KDSL_MEM_SBUF, 0, 1, n, sd);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, d, ct(s)), KDSL_OK);
}

START_TEST(convert_rows)
{
	enum { N = 8192 };
	unsigned char *sb = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL);
	uint64_t seed = 7;
	for (int c = 0; c < 8; c++) {   /* every f16 -> f32 */
		uint16_t h[N];
		float got[N];
		for (int j = 0; j < N; j++)
			h[j] = (uint16_t)(c * N + j);
		memcpy(sb, h, sizeof h);
		copy_as(KDSL_F32, KDSL_F16, N);
		memcpy(got, sb + 65536, sizeof got);
		for (int j = 0; j < N; j++) {
			float want = (float)kdsl_f16_to_f64(h[j]);
			if (want != want)
				ck_assert(got[j] != got[j]);
			else
				ck_assert_int_eq(memcmp(&got[j], &want, 4), 0);
		}
	}
	for (int c = 0; c < 4; c++) {   /* random f32 -> f16 and bf16 */
		uint32_t x[N];
		uint16_t got[N];
		for (int j = 0; j < N; j++) {
			uint64_t r = mix(&seed);
			/* half the values near f16's range, so rounding and subnormals show */
			x[j] = j % 2 ? (uint32_t)r : (uint32_t)((0x30000000u + (uint32_t)(r % 0x1a000000u)) | (uint32_t)(r >> 63) << 31);
		}
		memcpy(sb, x, sizeof x);
		copy_as(KDSL_F16, KDSL_F32, N);
		memcpy(got, sb + 65536, sizeof got);
		for (int j = 0; j < N; j++) {
			float f;
			memcpy(&f, &x[j], 4);
			uint16_t want = kdsl_f64_to_f16((double)f);
			ck_assert_int_eq(f16_nan(got[j]), f16_nan(want));
			if (!f16_nan(want))
				ck_assert_uint_eq(got[j], want);
		}
		copy_as(KDSL_BF16, KDSL_F32, N);
		memcpy(got, sb + 65536, sizeof got);
		for (int j = 0; j < N; j++) {
			float f;
			memcpy(&f, &x[j], 4);
			uint16_t want = kdsl_f32_to_bf16(f);
			ck_assert_int_eq(bf16_nan(got[j]), bf16_nan(want));
			if (!bf16_nan(want))
				ck_assert_uint_eq(got[j], want);
		}
	}
	{   /* integers go through f32 and wrap: i32 -> u8, i16 -> i32, u16 -> i8 */
		int32_t v[N], w[N];
		int16_t v16[N];
		uint16_t u16[N];
		uint8_t u8[N];
		int8_t i8[N];
		for (int j = 0; j < N; j++) {
			uint64_t r = mix(&seed);
			v[j] = (int32_t)(uint32_t)r;
			v16[j] = (int16_t)(uint16_t)(r >> 32);
			u16[j] = (uint16_t)(r >> 48);
		}
		memcpy(sb, v, sizeof v);
		copy_as(KDSL_U8, KDSL_I32, N);
		memcpy(u8, sb + 65536, sizeof u8);
		for (int j = 0; j < N; j++)
			ck_assert_uint_eq(u8[j], (uint64_t)(int64_t)(float)v[j] & 0xff);
		memcpy(sb, v16, sizeof v16);
		copy_as(KDSL_I32, KDSL_I16, N);
		memcpy(w, sb + 65536, sizeof w);
		for (int j = 0; j < N; j++)
			ck_assert_int_eq(w[j], v16[j]);
		memcpy(sb, u16, sizeof u16);
		copy_as(KDSL_I8, KDSL_U16, N);
		memcpy(i8, sb + 65536, sizeof i8);
		for (int j = 0; j < N; j++)
			ck_assert_int_eq((uint8_t)i8[j], u16[j] & 0xff);
	}
}
END_TEST

/* Predicated copies of every element width with every predicate width,
 * lengths off the chunk size, reverse_pred, a scalar src, dtype casts. */
START_TEST(predicated_blend)
{
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_F32, KDSL_I64};
	static const kdsl_dtype pts[] = {KDSL_U8, KDSL_U16, KDSL_U32};
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++)
			for (int rev = 0; rev < 2; rev++) {
				int64_t n = 133;
				size_t sz = kdsl_dtype_size(dts[a]), psz = kdsl_dtype_size(pts[b]);
				kdsl_tile d = tile(KDSL_MEM_SBUF, 0, 4, n, dts[a]), s = tile(KDSL_MEM_SBUF, 4096, 4, n, dts[a]);
				kdsl_tile pr = tile(KDSL_MEM_PSUM, 0, 4, n, pts[b]);
				for (int64_t p = 0; p < 4; p++)
					for (int64_t j = 0; j < n; j++) {
						memset(d.base + p * d.pstride + j * sz, 0x11, sz);
						memset(s.base + p * s.pstride + j * sz, 0x22, sz);
						/* nonzero in the top byte only sometimes: all bits count */
						uint32_t v = (uint32_t)((p * n + j) % 3 == 0 ? 0 : (j % 2 ? 1u : 1u << (8 * psz - 1)));
						memcpy(pr.base + p * pr.pstride + j * psz, &v, psz);
					}
				ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(s), 0, d, ct(pr), 1, 0, rev),
				                 KDSL_OK);
				for (int64_t p = 0; p < 4; p++)
					for (int64_t j = 0; j < n; j++) {
						int on = ((p * n + j) % 3 != 0) != rev;
						ck_assert_uint_eq(d.base[p * d.pstride + j * sz], on ? 0x22 : 0x11);
						ck_assert_uint_eq(d.base[p * d.pstride + j * sz + sz - 1], on ? 0x22 : 0x11);
					}
			}
}
END_TEST

/* Random predicated copies against the op's definition: views of 1..128
 * partitions and 1..300 elements at random offsets, every element width
 * with every predicate width, either polarity, each operand in sbuf or
 * psum (their partition strides differ; src and predicate not both in
 * psum), src and dst apart or shifted over each other (the snapshot).
 * The predicate's bytes are random, so a lane is set by any of its bits.
 * The first 8 KiB of every partition of both memories is compared.  Run
 * under each KDSL_ISA by meson. */
START_TEST(predicated_random_against_reference)
{
	enum { SPAN = 8192 };
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_F32, KDSL_I64};
	static const kdsl_dtype pts[] = {KDSL_U8, KDSL_U16, KDSL_U32};
	static const kdsl_mem mems[2] = {KDSL_MEM_SBUF, KDSL_MEM_PSUM};
	unsigned char *base[2], *want[2], *old[2];
	size_t ps[2];
	uint64_t x = 0x2545f4914f6cdd1dull;

	for (int m = 0; m < 2; m++) {
		base[m] = kdsl_rt_mem(rt, mems[m], NULL);
		ps[m] = kdsl_rt_partition_stride(rt, mems[m]);
		want[m] = malloc((size_t)128 * SPAN);
		old[m] = malloc((size_t)128 * SPAN);
		ck_assert_ptr_nonnull(want[m]);
		ck_assert_ptr_nonnull(old[m]);
	}
	for (int trial = 0; trial < 200; trial++) {
		kdsl_dtype dt = dts[rnd(&x) % 4], pt = pts[rnd(&x) % 3];
		size_t sz = kdsl_dtype_size(dt), psz = kdsl_dtype_size(pt);
		int64_t np = 1 + (int64_t)(rnd(&x) % 128), n = 1 + (int64_t)(rnd(&x) % 300);
		int64_t p0 = (int64_t)(rnd(&x) % (uint64_t)(129 - np));
		int rev = (int)(rnd(&x) & 1), mq = (int)(rnd(&x) % 3 == 0), ms = !mq && rnd(&x) % 3 == 0;
		int md = (int)(rnd(&x) % 3 == 0), shifted = rnd(&x) % 4 == 0;
		/* in each partition: predicate in 0..1279, src from 1280, dst from
		 * 4096 or a few elements after src */
		size_t poff = (size_t)(rnd(&x) % 8) * psz, soff = 1280 + (size_t)(rnd(&x) % 8) * sz;
		size_t doff = 4096 + (size_t)(rnd(&x) % 8) * sz;
		kdsl_tile s, d, q;

		if (shifted) {
			md = ms;
			doff = soff + sz * (1 + (size_t)(rnd(&x) % 5));
		}
		/* each byte 0 with probability 3/4 (a u32 lane is set 68% of the time) */
		for (int m = 0; m < 2; m++) {
			for (int p = 0; p < 128; p++)
				for (int j = 0; j < SPAN; j += 8) {
					uint64_t v = rnd(&x), b = rnd(&x);
					for (int k = 0; k < 8; k++)
						old[m][(size_t)p * SPAN + (size_t)(j + k)] =
						    (unsigned char)(((b >> (2 * k)) & 3) == 3 ? (v >> (8 * k)) | 1 : 0);
				}
			for (int p = 0; p < 128; p++)
				memcpy(base[m] + (size_t)p * ps[m], old[m] + (size_t)p * SPAN, SPAN);
			memcpy(want[m], old[m], (size_t)128 * SPAN);
		}
		for (int64_t r = p0; r < p0 + np; r++)
			for (int64_t j = 0; j < n; j++) {
				const unsigned char *pb = old[mq] + (size_t)r * SPAN + poff + (size_t)j * psz;
				int on = 0;
				for (size_t k = 0; k < psz; k++)
					on |= pb[k] != 0;
				if (on != rev)
					memcpy(want[md] + (size_t)r * SPAN + doff + (size_t)j * sz,
					       old[ms] + (size_t)r * SPAN + soff + (size_t)j * sz, sz);
			}
		q = sub(tile(mems[mq], poff, 128, n, pt), p0, np, 0, n);
		s = sub(tile(mems[ms], soff, 128, n, dt), p0, np, 0, n);
		d = sub(tile(mems[md], doff, 128, n, dt), p0, np, 0, n);
		ck_assert_msg(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(s), 0, d, ct(q), 1, 0, rev) == KDSL_OK,
		              "trial %d: %s", trial, kdsl_rt_last_error(rt));
		for (int m = 0; m < 2; m++)
			for (int p = 0; p < 128; p++)
				ck_assert_msg(!memcmp(base[m] + (size_t)p * ps[m], want[m] + (size_t)p * SPAN, SPAN),
				              "trial %d (%s data, %s predicate, p0 %lld, np %lld, n %lld, rev %d, shifted %d, "
				              "mems q%d s%d d%d): %s partition %d differs", trial, kdsl_dtype_name(dt),
				              kdsl_dtype_name(pt), (long long)p0, (long long)np, (long long)n, rev, shifted, mq, ms,
				              md, m ? "psum" : "sbuf", p);
	}
	for (int m = 0; m < 2; m++) {
		free(want[m]);
		free(old[m]);
	}
}
END_TEST

/* Predicated copies of tiles large enough for the blend kernels'
 * prefetching copy (their three operands 512 KiB or more and rows under
 * 16 KiB, neuron_blend.c's PF_MIN_BYTES and PF_MAX_ROW): all 128
 * partitions, rows whose length
 * is no multiple of a vector, every element width with every predicate
 * width and both polarities, against the op's definition.  The
 * predicate's random bytes are zero three times in four.  The first 48
 * KiB of every partition is compared.  Run under each KDSL_ISA. */
START_TEST(predicated_large_against_reference)
{
	enum { SPAN = 48 << 10, SOFF = 16 << 10, DOFF = 32 << 10 };
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_F32, KDSL_I64};
	static const kdsl_dtype pts[] = {KDSL_U8, KDSL_U16, KDSL_U32};
	unsigned char *base = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL), *want = malloc((size_t)128 * SPAN);
	size_t ps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	ck_assert_ptr_nonnull(want);
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++)
			for (int rev = 0; rev < 2; rev++) {
				size_t sz = kdsl_dtype_size(dts[a]), psz = kdsl_dtype_size(pts[b]);
				/* just over 512 KiB in all, and a few elements off a 64-byte step */
				int64_t n = (int64_t)((512u << 10) / 128 / (2 * sz + psz)) + 37;
				ck_assert_uint_le((size_t)n * sz, SOFF);
				for (int p = 0; p < 128; p++)
					for (size_t j = 0; j < SPAN; j++) {
						uint64_t v = rnd(&x);
						want[(size_t)p * SPAN + j] = (unsigned char)(j < SOFF && (v & 3) ? 0 : v >> 8);
					}
				for (int p = 0; p < 128; p++)
					memcpy(base + (size_t)p * ps, want + (size_t)p * SPAN, SPAN);
				for (int p = 0; p < 128; p++)
					for (int64_t j = 0; j < n; j++) {
						const unsigned char *pb = want + (size_t)p * SPAN + (size_t)j * psz;
						int on = 0;
						for (size_t k = 0; k < psz; k++)
							on |= pb[k] != 0;
						if (on != rev)
							memcpy(want + (size_t)p * SPAN + DOFF + (size_t)j * sz,
							       want + (size_t)p * SPAN + SOFF + (size_t)j * sz, sz);
					}
				kdsl_tile q = tile(KDSL_MEM_SBUF, 0, 128, n, pts[b]), sv = tile(KDSL_MEM_SBUF, SOFF, 128, n, dts[a]);
				kdsl_tile d = tile(KDSL_MEM_SBUF, DOFF, 128, n, dts[a]);
				ck_assert_msg(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(sv), 0, d, ct(q), 1, 0, rev) == KDSL_OK,
				              "%s", kdsl_rt_last_error(rt));
				for (int p = 0; p < 128; p++)
					ck_assert_msg(!memcmp(base + (size_t)p * ps, want + (size_t)p * SPAN, SPAN),
					              "%s data, %s predicate, n %lld, rev %d: partition %d differs",
					              kdsl_dtype_name(dts[a]), kdsl_dtype_name(pts[b]), (long long)n, rev, p);
			}
	free(want);
}
END_TEST

START_TEST(predicated_scalar_cast_and_rules)
{
	kdsl_tile d = tile(KDSL_MEM_SBUF, 0, 2, 70, KDSL_F32), h = tile(KDSL_MEM_SBUF, 1024, 2, 70, KDSL_F16);
	kdsl_tile pr = tile(KDSL_MEM_SBUF, 2048, 2, 70, KDSL_U8), pp = tile(KDSL_MEM_PSUM, 0, 2, 70, KDSL_U8);
	kdsl_tile sp = tile(KDSL_MEM_PSUM, 1024, 2, 70, KDSL_F32), bad = tile(KDSL_MEM_SBUF, 4096, 2, 70, KDSL_I8);
	for (int p = 0; p < 2; p++)
		for (int j = 0; j < 70; j++) {
			*fat(d, p, j) = -1;
			pr.base[p * pr.pstride + j] = (uint8_t)(j % 2);
			kdsl_f16 x = kdsl_f32_to_f16(0.5f * (float)j);
			memcpy(h.base + p * h.pstride + j * 2, &x, 2);
		}
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, kdsl_ctile_none(), 7.5, d, ct(pr), 1, 0, 0),
	                 KDSL_OK);
	for (int j = 0; j < 70; j++)
		ck_assert_float_eq(*fat(d, 1, j), j % 2 ? 7.5f : -1.0f);
	/* f16 src cast to f32 dst with dtype=f32, reversed */
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(h), 0, d, ct(pr), 1, KDSL_F32, 1), KDSL_OK);
	for (int j = 0; j < 70; j++)
		ck_assert_float_eq(*fat(d, 0, j), j % 2 ? 7.5f : 0.5f * (float)j);
	/* without dtype, f16 -> f32 is an error; mask=false does nothing */
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(h), 0, d, ct(pr), 1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, kdsl_ctile_none(), 9, d, ct(pr), 0, 0, 1), KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 0), 0.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(sp), 0, d, ct(pp), 1, 0, 0), KDSL_ERR_ARG);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "src and predicate must not both be in psum"));
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(sp), 0, d, ct(pr), 1, 0, 0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(d), 0, d, ct(bad), 1, 0, 0), KDSL_ERR_RANGE);
	ck_assert_ptr_nonnull(strstr(kdsl_rt_last_error(rt), "predicate must be u8, u16 or u32, got i8"));
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(sub(d, 0, 1, 0, 70)), 0, d, ct(pr), 1, 0, 0),
	                 KDSL_ERR_RANGE);
}
END_TEST

START_TEST(matmul_accumulates)
{
	kdsl_tile st = tile(KDSL_MEM_SBUF, 0, 3, 2, KDSL_F32), mv = tile(KDSL_MEM_SBUF, 64, 3, 4, KDSL_F32);
	kdsl_tile acc = tile(KDSL_MEM_PSUM, 0, 2, 4, KDSL_F32);
	for (int k = 0; k < 3; k++) {
		for (int m = 0; m < 2; m++)
			*fat(st, k, m) = (float)(k + m);
		for (int n = 0; n < 4; n++)
			*fat(mv, k, n) = (float)(k * n - 1);
	}
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st), ct(mv), 0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st), ct(mv), 1), KDSL_OK);
	for (int m = 0; m < 2; m++)
		for (int n = 0; n < 4; n++) {
			float want = 0;
			for (int k = 0; k < 3; k++)
				want += (float)(k + m) * (float)(k * n - 1);
			ck_assert_float_eq(*fat(acc, m, n), 2 * want);
		}
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, sub(acc, 0, 1, 0, 4), ct(st), ct(mv), 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, tile(KDSL_MEM_SBUF, 0, 2, 4, KDSL_F32), ct(st), ct(mv), 0),
	                 KDSL_ERR_ARG);
}
END_TEST

/* nc_transpose moves bits, not values: a NaN payload and -0.0 survive, as
 * on NeuronCore-v3's bit-accurate Tensor Engine; a sub-view at an offset
 * lands where its dst view says; the limits and spaces are checked. */
START_TEST(transpose_bits_and_rules)
{
	kdsl_tile src = tile(KDSL_MEM_SBUF, 0, 128, 128, KDSL_F32), dst = tile(KDSL_MEM_PSUM, 0, 128, 128, KDSL_F32);
	uint32_t nan = 0x7fc01234u;
	fill_rows(src);
	memcpy(fat(src, 5, 9), &nan, 4);
	*fat(src, 6, 1) = -0.0f;
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, dst, ct(src)), KDSL_OK);
	for (int p = 0; p < 128; p++)
		for (int j = 0; j < 128; j++)
			ck_assert(!memcmp(fat(dst, j, p), fat(src, p, j), 4));
	/* [3, 5] at partition 2, element 7 -> [5, 3] at partition 10, element 4 */
	kdsl_tile d2 = sub(dst, 10, 5, 4, 3);
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, d2, ct(sub(src, 2, 3, 7, 5))), KDSL_OK);
	for (int p = 0; p < 3; p++)
		for (int j = 0; j < 5; j++)
			ck_assert_float_eq(*fat(dst, 10 + j, 4 + p), (float)((2 + p) * 1000 + 7 + j));
	ck_assert_float_eq(*fat(dst, 9, 4), (float)(4 * 1000 + 9));   /* outside d2: untouched */
	/* shape, dtype, spaces, limit */
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, sub(dst, 0, 4, 0, 4), ct(sub(src, 0, 4, 0, 5))),
	                 KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, tile(KDSL_MEM_PSUM, 0, 4, 4, KDSL_I32),
	                                          ct(sub(src, 0, 4, 0, 4))), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, tile(KDSL_MEM_SBUF, 65536, 4, 4, KDSL_F32),
	                                          ct(sub(src, 0, 4, 0, 4))), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, sub(dst, 0, 4, 0, 4),
	                                          ct(tile(KDSL_MEM_PSUM, 4096, 4, 4, KDSL_F32))), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, sub(dst, 0, 1, 0, 128),
	                                          ct(tile(KDSL_MEM_SBUF, 0, 128, 129, KDSL_F32))), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: src must be at most [128, 128], got [128, 129]");
}
END_TEST

/* Element-wise ops read shifted, overlapping sources before writing. */
START_TEST(elementwise_overlap)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 8, 4, KDSL_F32);
	fill_rows(t);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, sub(t, 1, 7, 0, 4), ct(sub(t, 0, 7, 0, 4)),
	                                           ct(sub(t, 0, 7, 0, 4)), KDSL_ALU_ADD), KDSL_OK);
	for (int p = 1; p < 8; p++)
		ck_assert_float_eq(*fat(t, p, 2), 2.0f * (float)((p - 1) * 1000 + 2));
	ck_assert_int_eq(act1(rt, &site, t, ct(t), KDSL_NACT), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 1, 2, KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_OK);
	ck_assert_float_eq(*fat(t, 7, 3), 1.0f + 2.0f * 31);
	ck_assert_int_eq(ts1(rt, &site, t, ct(t), KDSL_ALU_MIN, 10), KDSL_OK);
	ck_assert_float_eq(*fat(t, 7, 3), 10.0f);
	ck_assert_float_eq(*fat(t, 0, 1), 3.0f);
}
END_TEST

/* The engines' f32 arithmetic (LANGUAGE.md, neuron): inputs and scalar
 * operands rounded to f32, f32 results, then dst's dtype; copies bit-exact
 * between equal dtypes and through f32 between different ones. */
START_TEST(engines_compute_in_f32)
{
	enum { N = 4096 };
	kdsl_tile a = tile(KDSL_MEM_SBUF, 0, 1, N, KDSL_F32), d = tile(KDSL_MEM_SBUF, 65536, 1, N, KDSL_F32);
	kdsl_tile ia = tile(KDSL_MEM_SBUF, 0, 1, 8, KDSL_I32), id = tile(KDSL_MEM_SBUF, 65536, 1, 8, KDSL_I32);
	kdsl_tile fd = tile(KDSL_MEM_SBUF, 32768, 1, 8, KDSL_F32), ud = tile(KDSL_MEM_SBUF, 40960, 1, 8, KDSL_U32);
	uint64_t seed = 11;
	int off_by_double = 0;
	/* add 2.2 on f32: (float)x + (float)2.2, not (float)((double)x + 2.2) */
	for (int j = 0; j < N; j++) {
		float x = (float)(int64_t)(mix(&seed) % 2000001u) / 1000.0f - 1000.0f;
		*fat(a, 0, j) = x;
	}
	ck_assert_int_eq(ts1(rt, &site, d, ct(a), KDSL_ALU_ADD, 2.2), KDSL_OK);
	for (int j = 0; j < N; j++) {
		float x = *fat(a, 0, j), want = x + (float)2.2;
		ck_assert_int_eq(memcmp(fat(d, 0, j), &want, 4), 0);
		off_by_double += want != (float)((double)x + 2.2);
	}
	ck_assert_int_gt(off_by_double, 0);   /* the inputs tell the two readings apart */
	/* NaN and infinities go through f32 arithmetic */
	*fat(a, 0, 0) = NAN;
	*fat(a, 0, 1) = INFINITY;
	*fat(a, 0, 2) = -INFINITY;
	*fat(a, 0, 3) = 3.0e38f;
	ck_assert_int_eq(ts1(rt, &site, sub(d, 0, 1, 0, 4), ct(sub(a, 0, 1, 0, 4)),
	                                           KDSL_ALU_MULTIPLY, 2), KDSL_OK);
	ck_assert(isnan(*fat(d, 0, 0)));
	ck_assert(isinf(*fat(d, 0, 1)) && *fat(d, 0, 1) > 0);
	ck_assert(isinf(*fat(d, 0, 2)) && *fat(d, 0, 2) < 0);
	ck_assert(isinf(*fat(d, 0, 3)));   /* 6e38 overflows f32, not a double */
	/* exp: the f32 nearest e^x of the f32 input */
	*fat(a, 0, 0) = 1.0f;
	*fat(a, 0, 1) = -2.5f;
	*fat(a, 0, 2) = 89.0f;   /* past f32's range */
	ck_assert_int_eq(act1(rt, &site, sub(d, 0, 1, 0, 3), ct(sub(a, 0, 1, 0, 3)), KDSL_ACT_EXP),
	                 KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 0), (float)exp(1.0));
	ck_assert_float_eq(*fat(d, 0, 1), (float)exp(-2.5));
	ck_assert(isinf(*fat(d, 0, 2)));
	/* i32 16777217 copied to f32 and back is 16777216; i32 -> i32 is bit-exact */
	static const int32_t iv[8] = {16777217, 16777216, -16777217, 2147483647, -2147483647 - 1, 33554435, -3, 7};
	memcpy(ia.base, iv, sizeof iv);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, fd, ct(ia)), KDSL_OK);
	ck_assert_float_eq(*fat(fd, 0, 0), 16777216.0f);
	ck_assert_float_eq(*fat(fd, 0, 2), -16777216.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, id, ct(fd)), KDSL_OK);
	int32_t got[8];
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[0], 16777216);
	ck_assert_int_eq(got[5], 33554436);   /* ties to even */
	ck_assert_int_eq(got[6], -3);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, id, ct(ia)), KDSL_OK);
	ck_assert_int_eq(memcmp(id.base, iv, sizeof iv), 0);
	/* i32 -> u32 through f32: 16777217 becomes 16777216, -3 wraps to 2^32 - 3 */
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, ud, ct(ia)), KDSL_OK);
	uint32_t ug[8];
	memcpy(ug, ud.base, sizeof ug);
	ck_assert_uint_eq(ug[0], 16777216u);
	ck_assert_uint_eq(ug[6], 4294967293u);
	ck_assert_uint_eq(ug[7], 7u);
	/* activation "copy" and tensor_scalar add 0 on i32 round the same way */
	ck_assert_int_eq(act1(rt, &site, id, ct(ia), KDSL_ACT_COPY), KDSL_OK);
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[0], 16777216);
	ck_assert_int_eq(got[1], 16777216);
	ck_assert_int_eq(got[3], -2147483647 - 1);   /* 2^31 wraps */
	ck_assert_int_eq(got[4], -2147483647 - 1);
	ck_assert_int_eq(ts1(rt, &site, id, ct(ia), KDSL_ALU_ADD, 0), KDSL_OK);
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[0], 16777216);
	/* the scalar operand is an f32 too: 16777217 + 16777217 is 2^25 */
	ck_assert_int_eq(ts1(rt, &site, id, ct(ia), KDSL_ALU_ADD, 16777217), KDSL_OK);
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[0], 33554432);
	/* negative f32 to u32 and NaN/inf to integers: truncated and wrapped, NaN and inf 0 */
	*fat(fd, 0, 0) = -3.7f;
	*fat(fd, 0, 1) = NAN;
	*fat(fd, 0, 2) = INFINITY;
	*fat(fd, 0, 3) = 2.9f;
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, sub(id, 0, 1, 0, 4), ct(sub(fd, 0, 1, 0, 4))), KDSL_OK);
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[0], -3);
	ck_assert_int_eq(got[1], 0);
	ck_assert_int_eq(got[2], 0);
	ck_assert_int_eq(got[3], 2);
	/* the predicated copy: i32 -> u32 with dtype= through f32, i32 -> i32
	 * bit-exact, a scalar src an f32 operand */
	kdsl_tile pr = tile(KDSL_MEM_SBUF, 49152, 1, 8, KDSL_U8);
	memset(pr.base, 1, 8);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(ia), 0, ud, ct(pr), 1, KDSL_U32, 0), KDSL_OK);
	memcpy(ug, ud.base, sizeof ug);
	ck_assert_uint_eq(ug[0], 16777216u);
	ck_assert_uint_eq(ug[6], 4294967293u);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, ct(ia), 0, id, ct(pr), 1, KDSL_I32, 0), KDSL_OK);
	ck_assert_int_eq(memcmp(id.base, iv, sizeof iv), 0);
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, kdsl_ctile_none(), 16777217, id, ct(pr), 1, 0, 0),
	                 KDSL_OK);
	memcpy(got, id.base, sizeof got);
	ck_assert_int_eq(got[7], 16777216);
	kdsl_tile u8d = tile(KDSL_MEM_SBUF, 65536, 1, 4, KDSL_U8);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, u8d, ct(sub(fd, 0, 1, 0, 4))), KDSL_OK);
	ck_assert_uint_eq(u8d.base[0], 253);
	ck_assert_uint_eq(u8d.base[3], 2);
}
END_TEST

/* The engines' rules at run time: iota writes sbuf only (GpSimd);
 * tensor_tensor reads at most one input from psum; nc_matmul multiplies
 * f32 only by f32.  Each at its boundary and past it, and a refused op
 * leaves dst untouched. */
/* tensor_reduce, the two-operator tensor_scalar with [P, 1] operands and
 * reverse, and activation's bias and scale (LANGUAGE.md 7): values per
 * partition, the fold order, and each rule at run time. */
START_TEST(reduce_and_per_partition_operands)
{
	kdsl_tile a = tile(KDSL_MEM_SBUF, 0, 4, 3, KDSL_F32), d = tile(KDSL_MEM_SBUF, 1024, 4, 3, KDSL_F32);
	kdsl_tile r = tile(KDSL_MEM_SBUF, 2048, 4, 1, KDSL_F32), o = tile(KDSL_MEM_PSUM, 0, 4, 2, KDSL_F32);
	kdsl_tile o0 = sub(o, 0, 4, 0, 1), o1 = sub(o, 0, 4, 1, 1);
	for (int64_t p = 0; p < 4; p++) {
		*fat(a, p, 0) = (float)(p + 1);
		*fat(a, p, 1) = -2.0f;
		*fat(a, p, 2) = 0.5f;
		*fat(o, p, 0) = (float)(10 * (p + 1));
		*fat(o, p, 1) = 4.0f;
	}
	/* per partition: 1e8 + 1 - 1e8 folds left to right in f32 to 0 */
	*fat(a, 3, 0) = 1e8f;
	*fat(a, 3, 1) = 1.0f;
	*fat(a, 3, 2) = -1e8f;
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_ALU_ADD, 0), KDSL_OK);
	ck_assert_float_eq(*fat(r, 0, 0), -0.5f);
	ck_assert_float_eq(*fat(r, 2, 0), 1.5f);
	ck_assert_float_eq(*fat(r, 3, 0), 0.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_ALU_MAX, 1), KDSL_OK);
	ck_assert_float_eq(*fat(r, 1, 0), -2.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_ALU_MULTIPLY, 0), KDSL_OK);
	ck_assert_float_eq(*fat(r, 1, 0), -2.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_ALU_MIN, 0), KDSL_OK);
	ck_assert_float_eq(*fat(r, 0, 0), -2.0f);
	/* (operand0 - a) / operand1 with operand0 10(p+1) from psum, operand1 4 */
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_SUBTRACT, ct(o0), 0, 1,
	                                           KDSL_ALU_DIVIDE, ct(o1), 0, 0), KDSL_OK);
	ck_assert_float_eq(*fat(d, 1, 0), (20.0f - 2.0f) / 4.0f);
	ck_assert_float_eq(*fat(d, 2, 1), (30.0f + 2.0f) / 4.0f);
	/* reverse1: operand1 / (a - 1) */
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_SUBTRACT, kdsl_ctile_none(), 1, 0,
	                                           KDSL_ALU_DIVIDE, kdsl_ctile_none(), 3, 1), KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 1), 3.0f / -3.0f);
	/* activation: func(src * scale + bias), scale a [P, 1] tile */
	ck_assert_int_eq(kdsl_neuron_activation(rt, &site, d, ct(a), KDSL_ACT_SQUARE, kdsl_ctile_none(), 1, ct(o1), 0),
	                 KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 1), 49.0f);   /* (-2 * 4 + 1)^2 */
	ck_assert_int_eq(kdsl_neuron_activation(rt, &site, d, ct(a), KDSL_ACT_RSQRT, ct(o1), 0, kdsl_ctile_none(), 1),
	                 KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 0), (float)(1.0 / sqrt(5.0)));
	/* -0.0 passes the v0 form unchanged (scale 1.0, no bias) */
	*fat(a, 0, 0) = -0.0f;
	ck_assert_int_eq(act1(rt, &site, d, ct(a), KDSL_ACT_COPY), KDSL_OK);
	ck_assert(signbit(*fat(d, 0, 0)));
	/* the rules */
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, sub(d, 0, 4, 0, 2), ct(a), KDSL_ALU_ADD, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, sub(r, 0, 3, 0, 1), ct(a), KDSL_ALU_ADD, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_ALU_SUBTRACT, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, r, ct(a), KDSL_NALU, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_ADD, ct(sub(o, 0, 4, 0, 2)), 0, 0,
	                                           KDSL_ALU_BYPASS, kdsl_ctile_none(), 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_ADD, ct(sub(o, 0, 3, 0, 1)), 0, 0,
	                                           KDSL_ALU_BYPASS, kdsl_ctile_none(), 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_ADD, kdsl_ctile_none(), 0, 0,
	                                           KDSL_ALU_BYPASS + 1, kdsl_ctile_none(), 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, d, ct(a), KDSL_ALU_BYPASS, kdsl_ctile_none(), 0, 0,
	                                           KDSL_ALU_BYPASS, kdsl_ctile_none(), 0, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_activation(rt, &site, d, ct(a), KDSL_ACT_EXP, ct(sub(o, 0, 2, 0, 1)), 0,
	                                        kdsl_ctile_none(), 1), KDSL_ERR_RANGE);
}
END_TEST

START_TEST(engine_rules_at_run_time)
{
	kdsl_tile s = tile(KDSL_MEM_SBUF, 0, 4, 4, KDSL_F32), p = tile(KDSL_MEM_PSUM, 0, 4, 4, KDSL_F32);
	kdsl_tile q = tile(KDSL_MEM_PSUM, 64, 4, 4, KDSL_F32);
	fill_rows(p);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, p, 0, 1, KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst must be in sbuf, got psum");
	ck_assert_float_eq(*fat(p, 3, 3), 3003.0f);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, s, 0, 1, KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_OK);
	/* one psum input (either side) is fine */
	fill_rows(q);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, s, ct(p), ct(s), KDSL_ALU_ADD), KDSL_OK);
	ck_assert_float_eq(*fat(s, 1, 2), 1002.0f + 6.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, q, ct(s), ct(p), KDSL_ALU_MAX), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, s, ct(p), ct(q), KDSL_ALU_ADD), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: a and b must not both be in psum");
	ck_assert_float_eq(*fat(s, 1, 2), 1008.0f);
	/* f32 with f32, and two 16-bit types, multiply; f32 with bf16 does not */
	kdsl_tile acc = tile(KDSL_MEM_PSUM, 128, 2, 4, KDSL_F32);
	kdsl_tile st = tile(KDSL_MEM_SBUF, 64, 3, 2, KDSL_F32), mv = tile(KDSL_MEM_SBUF, 128, 3, 4, KDSL_F32);
	kdsl_tile st16 = tile(KDSL_MEM_SBUF, 256, 3, 2, KDSL_F16), mv16 = tile(KDSL_MEM_SBUF, 512, 3, 4, KDSL_BF16);
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st), ct(mv), 0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st16), ct(mv16), 0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st), ct(mv16), 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: stationary and moving must both be f32 if either is, got f32 and bf16");
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, acc, ct(st16), ct(mv), 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: stationary and moving must both be f32 if either is, got f16 and f32");
}
END_TEST

/* iota with pstep: (base + pstep*p) + step*j, any int32 pstep (0 repeats
 * the row, a negative one counts down); past int32 it is refused and dst
 * is left as it was.  Without it the v0 numbering continues row to row. */
START_TEST(iota_pstep_values_and_rules)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 4, 5, KDSL_F32), i = tile(KDSL_MEM_SBUF, 64, 4, 5, KDSL_I16);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 3, 2, 100), KDSL_OK);
	for (int p = 0; p < 4; p++)
		for (int j = 0; j < 5; j++)
			ck_assert_float_eq(*fat(t, p, j), (float)(3 + 100 * p + 2 * j));
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 0.5, 1, 0), KDSL_OK);
	ck_assert_float_eq(*fat(t, 3, 4), 4.5f);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, i, 0, 1, -2147483647 - 1), KDSL_OK);
	/* -2^31 * 1 wraps to 0 in i16, -2^31 * 3 + 4 to 4 */
	ck_assert_int_eq(((int16_t *)(void *)(i.base + i.pstride))[0], 0);
	ck_assert_int_eq(((int16_t *)(void *)(i.base + 3 * i.pstride))[4], 4);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 0, 1, KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_OK);
	ck_assert_float_eq(*fat(t, 2, 1), 11.0f);
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 9, 9, 2147483648), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: pstep must be an int32 (-2147483648..2147483647), got 2147483648");
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, t, 9, 9, 2147483647), KDSL_OK);
	ck_assert_float_eq(*fat(t, 0, 0), 9.0f);
	ck_assert_float_eq(*fat(t, 1, 0), 2147483647.0f + 9.0f);
}
END_TEST

/* identity: 1 on the diagonal, 0 elsewhere, in the dtype; square sbuf
 * tiles only, a sub-view touching nothing outside it. */
START_TEST(identity_values_and_rules)
{
	kdsl_tile t = tile(KDSL_MEM_SBUF, 0, 128, 128, KDSL_F32), b = tile(KDSL_MEM_SBUF, 1024, 8, 8, KDSL_BF16);
	fill_rows(t);
	ck_assert_int_eq(kdsl_neuron_identity(rt, &site, sub(t, 2, 3, 5, 3)), KDSL_OK);
	for (int p = 0; p < 8; p++)
		for (int j = 0; j < 10; j++) {
			int in = p >= 2 && p < 5 && j >= 5 && j < 8;
			float want = in ? (p - 2 == j - 5 ? 1.0f : 0.0f) : (float)(p * 1000 + j);
			ck_assert_float_eq(*fat(t, p, j), want);
		}
	ck_assert_int_eq(kdsl_neuron_identity(rt, &site, t), KDSL_OK);
	for (int p = 0; p < 128; p++)
		for (int j = 0; j < 128; j++)
			ck_assert_float_eq(*fat(t, p, j), p == j ? 1.0f : 0.0f);
	ck_assert_int_eq(kdsl_neuron_identity(rt, &site, b), KDSL_OK);
	ck_assert_uint_eq(((uint16_t *)(void *)(b.base + 3 * b.pstride))[3], 0x3f80);
	ck_assert_uint_eq(((uint16_t *)(void *)(b.base + 3 * b.pstride))[4], 0);
	ck_assert_int_eq(kdsl_neuron_identity(rt, &site, sub(t, 0, 4, 0, 5)), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: dst must be square (NKI's identity is [n, n]), got [4, 5]");
	ck_assert_int_eq(kdsl_neuron_identity(rt, &site, tile(KDSL_MEM_PSUM, 0, 4, 4, KDSL_F32)), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst must be in sbuf, got psum");
}
END_TEST

/* affine_select: src where p*q + f*j + c cmp 0, else fill (an f32): each
 * comparison against a reference, in place, through f32 between dtypes,
 * and every rule refused before dst is written. */
START_TEST(affine_select_values_and_rules)
{
	kdsl_tile s = tile(KDSL_MEM_SBUF, 0, 16, 24, KDSL_F32), d = tile(KDSL_MEM_SBUF, 4096, 16, 24, KDSL_F32);
	kdsl_tile h = tile(KDSL_MEM_SBUF, 8192, 16, 24, KDSL_F16);
	/* f of 2, 3 and -5: rows where == 0 falls on an element and rows where
	 * it falls between two */
	const int64_t ps[] = {1, 0, -3, 2, 1, -2}, fs[] = {-1, 2, 1, 0, 3, -5}, cs[] = {0, -7, 5, -9, -40, 61};
	fill_rows(s);
	for (int64_t cmp = 0; cmp < KDSL_NCMP; cmp++)
		for (int k = 0; k < 6; k++) {
			ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), -9984.0, ps[k], fs[k], cs[k], cmp),
			                 KDSL_OK);
			for (int q = 0; q < 16; q++)
				for (int j = 0; j < 24; j++) {
					int64_t v = ps[k] * q + fs[k] * j + cs[k];
					int keep = cmp == KDSL_CMP_EQ ? v == 0 : cmp == KDSL_CMP_NE ? v != 0 : cmp == KDSL_CMP_LT ? v < 0
					         : cmp == KDSL_CMP_LE ? v <= 0 : cmp == KDSL_CMP_GT ? v > 0 : v >= 0;
					ck_assert_float_eq(*fat(d, q, j), keep ? (float)(q * 1000 + j) : -9984.0f);
				}
		}
	/* in place, the causal mask; fill 0.1 is rounded to an f32 */
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, s, ct(s), 0.1, 1, -1, 0, KDSL_CMP_GE), KDSL_OK);
	ck_assert_float_eq(*fat(s, 5, 5), 5005.0f);
	ck_assert_float_eq(*fat(s, 5, 6), 0.1f);
	/* f32 -> f16 through f32: 1001 and 2002 are exact, fill -1e6 is -inf */
	fill_rows(s);
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, h, ct(s), -1e6, 1, -1, 0, KDSL_CMP_GE), KDSL_OK);
	ck_assert_uint_eq(((uint16_t *)(void *)(h.base + 2 * h.pstride))[2], 0x67d2);   /* 2002 */
	ck_assert_uint_eq(((uint16_t *)(void *)(h.base + 2 * h.pstride))[3], 0xfc00);
	/* the rules, dst untouched */
	fill_rows(d);
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), 0, 1, 1, 1, KDSL_NCMP), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: cmp code must be in 0..5, got 6");
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), 0, 2147483648, 1, 1, 0), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: p must be an int32 (-2147483648..2147483647), got 2147483648");
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), 0, 1, -2147483649, 1, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), 0, 1, 1, 2147483648, 0), KDSL_ERR_RANGE);
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(tile(KDSL_MEM_PSUM, 0, 16, 24, KDSL_F32)), 0, 0,
	                                           0, 0, 0), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: src must be in sbuf, got psum");
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(sub(s, 0, 16, 0, 23)), 0, 0, 0, 0, 0),
	                 KDSL_ERR_RANGE);
	ck_assert_float_eq(*fat(d, 15, 23), 15023.0f);
	/* int32 ends are accepted: the sum is exact in 64 bits */
	ck_assert_int_eq(kdsl_neuron_affine_select(rt, &site, d, ct(s), -1, 2147483647, 2147483647, -2147483647 - 1,
	                                           KDSL_CMP_GT), KDSL_OK);
	ck_assert_float_eq(*fat(d, 0, 1), -1.0f);      /* 2^31 - 1 - 2^31 */
	ck_assert_float_eq(*fat(d, 0, 2), 2.0f);       /* 2^32 - 2 - 2^31 */
	ck_assert_float_eq(*fat(d, 1, 1), 1001.0f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime-neuron");
	TCase *tc = tcase_create("neuron");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* the random tests run thousands of ops: room for the sanitizer build */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, shuffle_in_place_reads_first);
	tcase_add_test(tc, shuffle_in_place_cycles);
	tcase_add_test(tc, shuffle_psum_to_sbuf_quadrants);
	tcase_add_test(tc, shuffle_rules_at_run_time);
	tcase_add_test(tc, shuffle_random_against_reference);
	tcase_add_test(tc, tile_checks);
	tcase_add_test(tc, tile_checks_fast_path_edges);
	tcase_add_test(tc, predicated_blend);
	tcase_add_test(tc, predicated_random_against_reference);
	tcase_add_test(tc, predicated_large_against_reference);
	tcase_add_test(tc, predicated_scalar_cast_and_rules);
	tcase_add_test(tc, matmul_accumulates);
	tcase_add_test(tc, transpose_bits_and_rules);
	tcase_add_test(tc, elementwise_overlap);
	tcase_add_test(tc, convert_rows);
	tcase_add_test(tc, tile_hostile_geometry);
	tcase_add_test(tc, engines_compute_in_f32);
	tcase_add_test(tc, engine_rules_at_run_time);
	tcase_add_test(tc, iota_pstep_values_and_rules);
	tcase_add_test(tc, identity_values_and_rules);
	tcase_add_test(tc, affine_select_values_and_rules);
	tcase_add_test(tc, reduce_and_per_partition_operands);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
