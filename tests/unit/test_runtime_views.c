/* test_runtime_views.c: neuron tiles with an access pattern (kdsl_rt.h,
 * kdsl_tile_ap): strided copies against a reference, each engine op with
 * a strided dst and source (the one pack/unpack place of neuron.c), the
 * uninit shadow of strided reads and writes, and hostile patterns, which
 * must be refused before anything is touched. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

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

/* `parts` partitions of `n` f32 at byte `addr` of sbuf (or psum). */
static kdsl_tile chip(kdsl_mem mem, size_t addr, int64_t parts, int64_t n)
{
	return kdsl_tile_of(kdsl_rt_mem(rt, mem, NULL) + addr, kdsl_rt_partition_stride(rt, mem), (size_t)n * 4, parts,
	                    0, parts, 0, n, mem, KDSL_F32);
}

static kdsl_tile hbm(float *a, int64_t rows, int64_t cols)
{
	return kdsl_tile_of(a, (size_t)cols * 4, (size_t)cols * 4, rows, 0, rows, 0, cols, KDSL_MEM_HBM, KDSL_F32);
}

static kdsl_ctile ct(kdsl_tile t)
{
	return kdsl_ctile_ap(kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt),
	                     t.pstep, t.nd, t.st[0], t.ct[0], t.st[1], t.ct[1], t.st[2], t.ct[2]);
}

static float at(kdsl_tile t, int64_t p, int64_t j)
{
	float v;
	memcpy(&v, t.base + (size_t)p * t.pstride + (size_t)j * 4, 4);
	return v;
}

static void put(kdsl_tile t, int64_t p, int64_t j, float v)
{
	memcpy(t.base + (size_t)p * t.pstride + (size_t)j * 4, &v, 4);
}

/* t viewed as partitions p0.. (np of them) from element off with the
 * pattern (pstep; nd dims of stride and count). */
static kdsl_tile view(kdsl_tile t, int64_t p0, int64_t np, int64_t off, int64_t pstep, int64_t nd, const int64_t *sc)
{
	int64_t n = 1;
	for (int k = 0; k < nd; k++)
		n *= sc[2 * k + 1];
	t.p0 = p0, t.np = np, t.off = off, t.n = n;
	return kdsl_tile_ap(t, pstep, nd, sc[0], sc[1], nd > 1 ? sc[2] : 0, nd > 1 ? sc[3] : 0, nd > 2 ? sc[4] : 0,
	                    nd > 2 ? sc[5] : 0);
}

/* load(t, a.T) and store(b.T, t): a [R, C] in hbm, t [C, R]; every
 * element lands where numpy's transpose puts it. */
START_TEST(transpose_load_store)
{
	enum { R = 48, C = 40 };
	float *a = malloc(sizeof(float) * R * C), *b = calloc(R * C, sizeof(float));
	for (int i = 0; i < R * C; i++)
		a[i] = (float)i;
	kdsl_tile t = chip(KDSL_MEM_SBUF, 0, C, R);
	kdsl_tile aT = view(hbm(a, R, C), 0, C, 0, 1, 1, (const int64_t[]){C, R});
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, t, ct(aT)), KDSL_OK);
	for (int p = 0; p < C; p++)
		for (int j = 0; j < R; j++)
			ck_assert_float_eq(at(t, p, j), a[j * C + p]);
	kdsl_tile bT = view(hbm(b, R, C), 0, C, 0, 1, 1, (const int64_t[]){C, R});
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, bT, ct(t)), KDSL_OK);
	ck_assert_int_eq(memcmp(a, b, sizeof(float) * R * C), 0);
	free(a);
	free(b);
}
END_TEST

/* The transposing copies of every element width (one line of
 * partitions at a time: 64, 32, 16 or 8 of them), with partition counts
 * below, at and past one block and the whole 128, from a view that
 * starts off element 0: load(t, a[1:, :].T) then store(b[1:, :].T, t);
 * t holds a's bytes where numpy's transpose puts them and b ends equal
 * to a past its untouched first row. */
START_TEST(transpose_widths)
{
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_U32, KDSL_I64};
	static const int64_t parts[] = {1, 2, 7, 8, 9, 16, 31, 32, 33, 64, 67, 128};
	enum { R = 29 };

	for (size_t di = 0; di < 4; di++)
		for (size_t ci = 0; ci < sizeof parts / sizeof *parts; ci++) {
			kdsl_dtype dt = dts[di];
			int64_t C = parts[ci];
			size_t z = kdsl_dtype_size(dt), rb = (size_t)C * z, bytes = (size_t)(R + 1) * rb;
			unsigned char *a = malloc(bytes), *b = calloc(bytes, 1);
			for (size_t i = 0; i < bytes; i++)
				a[i] = (unsigned char)(i * 131 + i / 7);
			kdsl_tile ha = kdsl_tile_of(a, rb, rb, R + 1, 0, R + 1, 0, C, KDSL_MEM_HBM, dt);
			kdsl_tile hb = kdsl_tile_of(b, rb, rb, R + 1, 0, R + 1, 0, C, KDSL_MEM_HBM, dt);
			kdsl_tile t = kdsl_tile_of(kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL) + 64,
			                           kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF), (size_t)R * z, C, 0, C, 0, R,
			                           KDSL_MEM_SBUF, dt);
			kdsl_tile aT = view(ha, 1, C, 0, 1, 1, (const int64_t[]){C, R});
			kdsl_tile bT = view(hb, 1, C, 0, 1, 1, (const int64_t[]){C, R});
			ck_assert_msg(kdsl_neuron_load(rt, &site, t, ct(aT)) == KDSL_OK, "%s", kdsl_rt_last_error(rt));
			for (int64_t p = 0; p < C; p++)
				for (int64_t j = 0; j < R; j++)
					if (memcmp(t.base + (size_t)p * t.pstride + (size_t)j * z, a + (size_t)((j + 1) * C + p) * z, z))
						ck_abort_msg("%s, %lld partitions: t[%lld][%lld] is not a[%lld][%lld]",
						             kdsl_dtype_name(dt), (long long)C, (long long)p, (long long)j,
						             (long long)j + 1, (long long)p);
			ck_assert_int_eq(kdsl_neuron_store(rt, &site, bT, ct(t)), KDSL_OK);
			for (size_t i = 0; i < rb; i++)
				ck_assert_int_eq(b[i], 0);
			ck_assert_msg(!memcmp(a + rb, b + rb, bytes - rb), "%s, %lld partitions: b differs from a",
			              kdsl_dtype_name(dt), (long long)C);
			free(a);
			free(b);
		}
}
END_TEST

/* A transposing store whose partitions write one element twice (stride
 * 3 over 8 partitions): partition by partition, the later one's value
 * stays, as the per-partition walk has it. */
START_TEST(transpose_store_overlapping)
{
	enum { NP = 8, N = 4, S = 3 };
	float b[S * (N - 1) + NP], want[S * (N - 1) + NP];
	kdsl_tile t = chip(KDSL_MEM_SBUF, 0, NP, N);
	for (int p = 0; p < NP; p++)
		for (int j = 0; j < N; j++)
			put(t, p, j, (float)(p * 10 + j));
	memset(b, 0, sizeof b);
	memset(want, 0, sizeof want);
	/* partition after partition; each value through a volatile, since
	 * gcc 12.2's -O2 vectoriser reorders this loop's overlapping stores
	 * (want[3] came out 1, not 30; -O1, -O3 and clang keep the order) */
	for (int p = 0; p < NP; p++)
		for (int j = 0; j < N; j++) {
			volatile float v = (float)(p * 10 + j);
			want[p + j * S] = v;
		}
	kdsl_tile bT = view(kdsl_tile_of(b, sizeof b, sizeof b, 1, 0, 1, 0, S * (N - 1) + NP, KDSL_MEM_HBM, KDSL_F32),
	                    0, NP, 0, 1, 1, (const int64_t[]){S, N});
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, bT, ct(t)), KDSL_OK);
	ck_assert_int_eq(memcmp(b, want, sizeof b), 0);
}
END_TEST

/* Step-2 views (pooling's windows) of every element width, even and odd
 * starts, at counts below, at and past the 16 bytes the packing moves at
 * a time: tensor_copy(d, x[:, o:o + 2c:2]) holds x's elements o, o + 2,
 * ... and nothing past them. */
START_TEST(step2_views)
{
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_U32, KDSL_I64};
	static const int64_t counts[] = {1, 2, 3, 4, 7, 8, 9, 16, 17, 33};
	unsigned char *sb = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL);
	size_t ps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);

	for (size_t di = 0; di < 4; di++)
		for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
			for (int64_t o = 0; o < 2; o++) {
				kdsl_dtype dt = dts[di];
				int64_t c = counts[ci], n = 2 * c + 1, np = 3;
				size_t z = kdsl_dtype_size(dt);
				kdsl_tile x = kdsl_tile_of(sb, ps, (size_t)n * z, np, 0, np, 0, n, KDSL_MEM_SBUF, dt);
				kdsl_tile d = kdsl_tile_of(sb + 2048, ps, (size_t)(c + 1) * z, np, 0, np, 0, c, KDSL_MEM_SBUF, dt);
				for (int64_t p = 0; p < np; p++) {
					for (size_t b = 0; b < (size_t)n * z; b++)
						sb[(size_t)p * ps + b] = (unsigned char)(p * 97 + b * 7 + 1);
					memset(sb + 2048 + (size_t)p * ps, 0xee, (size_t)(c + 1) * z);
				}
				kdsl_tile xv = view(x, 0, np, o, 0, 1, (const int64_t[]){2, c});
				ck_assert_msg(kdsl_neuron_tensor_copy(rt, &site, d, ct(xv)) == KDSL_OK, "%s",
				              kdsl_rt_last_error(rt));
				for (int64_t p = 0; p < np; p++) {
					const unsigned char *row = sb + (size_t)p * ps, *got = sb + 2048 + (size_t)p * ps;
					for (int64_t j = 0; j < c; j++)
						ck_assert_msg(!memcmp(got + (size_t)j * z, row + (size_t)(o + 2 * j) * z, z),
						              "%s, %lld elements from %lld: partition %lld element %lld",
						              kdsl_dtype_name(dt), (long long)c, (long long)o, (long long)p, (long long)j);
					for (size_t b = 0; b < z; b++)
						ck_assert_int_eq(got[(size_t)c * z + b], 0xee);
				}
			}
}
END_TEST

/* a[i] of a [4, 8, 6] tensor: rows 8 of 6 from element i * 48, and a
 * strided sbuf dst with two free dims (a 2x2 pool window's corner). */
START_TEST(nd_hbm_and_two_free_dims)
{
	float a[4 * 8 * 6];
	for (int i = 0; i < 4 * 8 * 6; i++)
		a[i] = (float)i;
	kdsl_tile t = chip(KDSL_MEM_SBUF, 0, 8, 6);
	kdsl_tile src = view(hbm(a, 4, 48), 2, 8, 0, 6, 1, (const int64_t[]){1, 6});
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, t, ct(src)), KDSL_OK);
	for (int p = 0; p < 8; p++)
		for (int j = 0; j < 6; j++)
			ck_assert_float_eq(at(t, p, j), (float)(96 + p * 6 + j));
	/* t seen as [8, 2, 3]: elements (1, 0) and (1, 2) of each, via [8, 1:2, 0:3:2] */
	kdsl_tile w = chip(KDSL_MEM_SBUF, 1024, 8, 4);
	kdsl_tile corner = view(t, 0, 8, 3, 0, 1, (const int64_t[]){2, 2});
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, view(w, 0, 8, 0, 0, 2, (const int64_t[]){2, 2, 1, 1}),
	                                         ct(corner)),
	                 KDSL_OK);
	for (int p = 0; p < 8; p++) {
		ck_assert_float_eq(at(w, p, 0), (float)(96 + p * 6 + 3));
		ck_assert_float_eq(at(w, p, 2), (float)(96 + p * 6 + 5));
	}
}
END_TEST

/* The engine ops through the pack/unpack place: a strided dst keeps the
 * elements between its own; strided sources read only theirs. */
START_TEST(engines_strided)
{
	kdsl_tile s = chip(KDSL_MEM_SBUF, 0, 4, 8), d = chip(KDSL_MEM_SBUF, 512, 4, 8);
	for (int p = 0; p < 4; p++)
		for (int j = 0; j < 8; j++)
			put(s, p, j, (float)(p * 8 + j)), put(d, p, j, -1.0f);
	const int64_t even[] = {2, 4}, odd[] = {2, 4};
	kdsl_tile de = view(d, 0, 4, 0, 0, 1, even);
	ck_assert_int_eq(kdsl_neuron_tensor_tensor(rt, &site, de, ct(view(s, 0, 4, 0, 0, 1, even)),
	                                           ct(view(s, 0, 4, 1, 0, 1, odd)), KDSL_ALU_ADD),
	                 KDSL_OK);
	for (int p = 0; p < 4; p++)
		for (int j = 0; j < 8; j++)
			ck_assert_float_eq(at(d, p, j), j % 2 ? -1.0f : (float)(2 * (p * 8 + j) + 1));
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, view(d, 0, 4, 1, 0, 1, odd), 7.0), KDSL_OK);
	ck_assert_float_eq(at(d, 3, 7), 7.0f);
	ck_assert_float_eq(at(d, 3, 6), (float)(2 * 30 + 1));
	ck_assert_int_eq(kdsl_neuron_iota(rt, &site, view(d, 0, 4, 1, 0, 1, odd), 0, 1,
	                                  KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_OK);
	ck_assert_float_eq(at(d, 0, 5), 2.0f);
	ck_assert_float_eq(at(d, 0, 4), 9.0f);
	ck_assert_int_eq(kdsl_neuron_tensor_scalar(rt, &site, de, ct(de), KDSL_ALU_MULTIPLY, kdsl_ctile_none(), 2.0, 0,
	                                           KDSL_ALU_BYPASS, kdsl_ctile_none(), 0, 0), KDSL_OK);
	ck_assert_float_eq(at(d, 0, 4), 18.0f);
	ck_assert_float_eq(at(d, 0, 5), 2.0f);
	/* in place and overlapping: d's even elements from its odd ones */
	ck_assert_int_eq(kdsl_neuron_activation(rt, &site, de, ct(view(d, 0, 4, 1, 0, 1, odd)), KDSL_ACT_COPY,
	                                        kdsl_ctile_none(), 0, kdsl_ctile_none(), 1),
	                 KDSL_OK);
	ck_assert_float_eq(at(d, 0, 4), 2.0f);
	ck_assert_float_eq(at(d, 0, 6), 3.0f);
	/* a predicated copy into a strided dst */
	kdsl_tile pr = kdsl_tile_of(kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL) + 2048, kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF),
	                            4, 4, 0, 4, 0, 4, KDSL_MEM_SBUF, KDSL_U8);
	memset(pr.base, 0, 4);
	pr.base[1] = 1;
	ck_assert_int_eq(kdsl_neuron_tensor_copy_predicated(rt, &site, kdsl_ctile_none(), 5.0, view(d, 0, 1, 0, 0, 1, even),
	                                                    ct(view(pr, 0, 1, 0, 0, 1, (const int64_t[]){1, 4})), 1, 0, 0),
	                 KDSL_OK);
	ck_assert_float_eq(at(d, 0, 2), 5.0f);
	ck_assert_float_eq(at(d, 0, 0), 0.0f);
}
END_TEST

/* A strided matmul operand and a shuffle's refusal of a pattern. */
START_TEST(matmul_and_shuffle)
{
	kdsl_tile st = chip(KDSL_MEM_SBUF, 0, 2, 4), mv = chip(KDSL_MEM_SBUF, 256, 2, 2);
	kdsl_tile out = chip(KDSL_MEM_PSUM, 0, 2, 2);
	for (int p = 0; p < 2; p++) {
		for (int j = 0; j < 4; j++)
			put(st, p, j, (float)(p * 4 + j));
		put(mv, p, 0, 1.0f), put(mv, p, 1, (float)p);
	}
	/* stationary = st[:, 0:4:2], [K=2, M=2] */
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, out, ct(view(st, 0, 2, 0, 0, 1, (const int64_t[]){2, 2})),
	                                       ct(mv), 0),
	                 KDSL_OK);
	ck_assert_float_eq(at(out, 0, 0), 0.0f + 4.0f);
	ck_assert_float_eq(at(out, 1, 0), 2.0f + 6.0f);
	ck_assert_float_eq(at(out, 1, 1), 6.0f);
	ck_assert_int_eq(kdsl_neuron_nc_stream_shuffle(rt, &site, view(st, 0, 2, 0, 0, 1, (const int64_t[]){2, 2}),
	                                               ct(view(st, 0, 2, 1, 0, 1, (const int64_t[]){2, 2})),
	                                               (const int64_t[32]){0, 1}, 32),
	                 KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst must be a contiguous view (no access pattern)");
}
END_TEST

/* Hostile patterns: every field at and past its edge is refused, with
 * nothing written; the last element of a tensor is reachable. */
START_TEST(hostile_patterns)
{
	float a[4 * 6], keep[4 * 6];
	for (int i = 0; i < 24; i++)
		a[i] = keep[i] = (float)i;
	kdsl_tile t = chip(KDSL_MEM_SBUF, 0, 6, 4);
	kdsl_tile base = hbm(a, 4, 6);
	/* a.T [6, 4] reaches element 23: fine; one more row is not */
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, t, ct(view(base, 0, 6, 0, 1, 1, (const int64_t[]){6, 4}))), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, t, ct(view(base, 0, 6, 1, 1, 1, (const int64_t[]){6, 4}))),
	                 KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt),
	                 "t.k:1:1: op: src: the access pattern reaches element 24 of a tensor of 24");
	static const int64_t bad[][8] = {
		/* pstep, nd, s0, c0, s1, c1, s2, c2 */
		{1, 4, 6, 4, 0, 0, 0, 0},            /* nd past 3 */
		{1, -1, 6, 4, 0, 0, 0, 0},           /* nd negative */
		{-1, 1, 6, 4, 0, 0, 0, 0},           /* pstep negative */
		{1, 1, 0, 4, 0, 0, 0, 0},            /* stride 0 */
		{1, 1, 6, 0, 0, 0, 0, 0},            /* count 0 */
		{1, 1, INT64_MAX, 2, 0, 0, 0, 0},    /* stride overflows */
		{1, 2, INT64_MAX / 2, 3, 1, 2, 0, 0},
		{1, 2, 2, INT64_MAX, 1, 2, 0, 0},    /* counts' product overflows */
		{INT64_MAX, 1, 6, 4, 0, 0, 0, 0},    /* pstep overflows */
		{1, 1, 6, 3, 0, 0, 0, 0},            /* counts multiply to 3, n is 4 */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kdsl_tile v = base;
		v.np = 6, v.n = 4;
		v = kdsl_tile_ap(v, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5], bad[i][6], bad[i][7]);
		int rc = kdsl_neuron_load(rt, &site, t, ct(v));
		ck_assert_msg(rc == KDSL_ERR_ARG || rc == KDSL_ERR_BOUNDS, "pattern %zu: rc %d", i, rc);
		rc = kdsl_neuron_store(rt, &site, v, ct(t));
		ck_assert_msg(rc == KDSL_ERR_ARG || rc == KDSL_ERR_BOUNDS, "pattern %zu: rc %d", i, rc);
	}
	ck_assert_int_eq(memcmp(a, keep, sizeof a), 0);
	/* A strided view's first partition and element are checked before a
	 * pointer is formed from them (fuzz_rt found the pointer formed
	 * first: UBSan's pointer overflow; fuzz/regress/rt/neuron_ap_*). */
	static const int64_t start[][2] = {{-1, 0}, {0, -16}, {INT64_MIN, 0}, {0, INT64_MIN}, {6, 0}};
	for (size_t i = 0; i < sizeof start / sizeof start[0]; i++) {
		kdsl_tile v = view(base, start[i][0], 1, start[i][1], 1, 1, (const int64_t[]){1, 4});
		ck_assert_int_eq(kdsl_neuron_load(rt, &site, chip(KDSL_MEM_SBUF, 0, 1, 4), ct(v)), KDSL_ERR_BOUNDS);
		kdsl_tile c = view(chip(KDSL_MEM_SBUF, 0, 2, 8), start[i][0], 1, start[i][1], 0, 1, (const int64_t[]){2, 4});
		ck_assert_int_eq(kdsl_neuron_memset(rt, &site, c, 0), KDSL_ERR_BOUNDS);
	}
	/* a strided view's element count is checked before it is used (n - 1 overflowed) */
	kdsl_tile nmin = view(base, 0, 1, 0, 1, 1, (const int64_t[]){1, 4});
	nmin.n = INT64_MIN;
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, chip(KDSL_MEM_SBUF, 0, 1, 4), ct(nmin)), KDSL_ERR_ARG);
	/* rows of 0 bytes at one place (pstride 0) in any number: refused, no divide by 0 */
	kdsl_tile flat = kdsl_tile_of(a, 0, 0, (int64_t)1 << 58, 0, 4, 0, 2, KDSL_MEM_HBM, KDSL_F32);
	flat = kdsl_tile_ap(flat, 0, 1, 1, 2, 0, 0, 0, 0);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, chip(KDSL_MEM_SBUF, 0, 4, 2), ct(flat)), KDSL_ERR_ARG);
	/* on chip: a partition step is refused, and the pattern must stay in the partition */
	kdsl_tile s = chip(KDSL_MEM_SBUF, 0, 2, 8);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, view(s, 0, 2, 0, 1, 1, (const int64_t[]){1, 8}), 0), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, view(s, 0, 2, 2, 0, 1, (const int64_t[]){2, 4}), 0), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst: elements 2..8 of each partition are outside its 8");
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, view(s, 0, 2, 1, 0, 1, (const int64_t[]){2, 4}), 0), KDSL_OK);
	/* an hbm pattern over a tile whose rows are not packed */
	kdsl_tile gap = base;
	gap.pstride = 32;
	gap.nparts = 3;
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, chip(KDSL_MEM_SBUF, 0, 1, 4),
	                                  ct(view(gap, 0, 1, 0, 1, 1, (const int64_t[]){1, 4}))),
	                 KDSL_ERR_ARG);
}
END_TEST

/* The uninit shadow: a strided write marks only its elements. */
START_TEST(uninit_strided)
{
	kdsl_rt_destroy(rt);
	rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_int_eq(kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT), KDSL_OK);
	kdsl_tile s = chip(KDSL_MEM_SBUF, 0, 2, 8), d = chip(KDSL_MEM_SBUF, 256, 2, 4);
	const int64_t even[] = {2, 4};
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, view(s, 0, 2, 0, 0, 1, even), 1.0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, d, ct(view(s, 0, 2, 0, 0, 1, even))), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, d, ct(view(s, 0, 2, 1, 0, 1, even))), KDSL_ERR_UNINIT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime-views");
	TCase *tc = tcase_create("views");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, transpose_load_store);
	tcase_add_test(tc, transpose_widths);
	tcase_add_test(tc, transpose_store_overlapping);
	tcase_add_test(tc, step2_views);
	tcase_add_test(tc, nd_hbm_and_two_free_dims);
	tcase_add_test(tc, engines_strided);
	tcase_add_test(tc, matmul_and_shuffle);
	tcase_add_test(tc, hostile_patterns);
	tcase_add_test(tc, uninit_strided);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
