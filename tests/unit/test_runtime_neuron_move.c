/* test_runtime_neuron_move.c: neuron's data movement beyond same-dtype
 * copies (LANGUAGE.md 7): load and store that convert, store from psum,
 * load_gather and store_scatter; each rule again at run time, nothing
 * written when one fails. */
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

/* A tile of `parts` partitions x `n` elements at byte `addr` of every partition. */
static kdsl_tile tile(kdsl_mem mem, size_t addr, int64_t parts, int64_t n, kdsl_dtype dt)
{
	size_t ps = kdsl_rt_partition_stride(rt, mem);
	return kdsl_tile_of(kdsl_rt_mem(rt, mem, NULL) + addr, ps, (size_t)n * kdsl_dtype_size(dt), parts, 0, parts,
	                    0, n, mem, dt);
}

/* A host array of rows x n elements as an hbm tensor. */
static kdsl_tile hbm(void *p, int64_t rows, int64_t n, kdsl_dtype dt)
{
	size_t rb = (size_t)n * kdsl_dtype_size(dt);
	return kdsl_tile_of(p, rb, rb, rows, 0, rows, 0, n, KDSL_MEM_HBM, dt);
}

static kdsl_ctile ct(kdsl_tile t)
{
	return kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt);
}

static void *at(kdsl_tile t, int64_t p, int64_t j)
{
	return t.base + (size_t)p * t.pstride + (size_t)j * kdsl_dtype_size(t.dt);
}

/* load converts through f32 as tensor_copy: an i32 16777217 becomes the
 * f32 16777216, and 3.7f becomes the i32 3 (toward zero). */
/* A same-dtype load, tensor_copy and store of 128 KiB or more is shared
 * among the runtime's threads (neuron.c, rows_split): on 1, 2, 3 and 64
 * threads, with partition counts that split evenly and not, and just
 * under the size, every byte lands where one thread puts it and nothing
 * around the tiles changes. */
START_TEST(row_copies_split)
{
	static const int64_t shapes[][2] = {{128, 1024}, {127, 333}, {3, 11000}, {2, 16383}, {128, 255}};
	static const int counts[] = {1, 2, 3, 64};
	enum { N = 128 * 1024 };
	uint32_t *in = malloc(N * 4), *out = malloc(N * 4);
	uint64_t x = 88172645463325252ull;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		ck_assert_int_eq(kdsl_rt_set_threads(rt, counts[c]), KDSL_OK);
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
			int64_t np = shapes[i][0], n = shapes[i][1];
			/* a: the load's tile at 64 bytes in; b: tensor_copy's, after a and a gap */
			size_t boff = 64 + (size_t)n * 4 + 64;
			kdsl_tile a = tile(KDSL_MEM_SBUF, 64, np, n, KDSL_U32), b = tile(KDSL_MEM_SBUF, boff, np, n, KDSL_U32);
			unsigned char *sb = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL);
			size_t ps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);

			for (int64_t k = 0; k < np * n; k++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				in[k] = (uint32_t)x;
			}
			memset(out, 0xa5, N * 4);
			for (int64_t p = 0; p < 128; p++)
				memset(sb + (size_t)p * ps, 0x5a, boff + (size_t)n * 4 + 64);
			ck_assert_int_eq(kdsl_neuron_load(rt, &site, a, ct(hbm(in, np, n, KDSL_U32))), KDSL_OK);
			ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, b, ct(a)), KDSL_OK);
			ck_assert_int_eq(kdsl_neuron_store(rt, &site, hbm(out, np, n, KDSL_U32), ct(b)), KDSL_OK);
			ck_assert_msg(!memcmp(in, out, (size_t)(np * n) * 4), "%lld x %lld on %d threads: the rows differ",
			              (long long)np, (long long)n, counts[c]);
			for (int64_t k = np * n; k < N; k++)
				ck_assert_uint_eq(out[k], 0xa5a5a5a5u);
			for (int64_t p = 0; p < 128; p++) {
				const unsigned char *r = sb + (size_t)p * ps;
				size_t j, bad = SIZE_MAX;
				for (j = 0; j < boff + (size_t)n * 4 + 64 && bad == SIZE_MAX; j++)
					if (!(p < np && ((j >= 64 && j < 64 + (size_t)n * 4) || (j >= boff && j < boff + (size_t)n * 4))) &&
					    r[j] != 0x5a)
						bad = j;
				ck_assert_msg(bad == SIZE_MAX, "%lld x %lld on %d threads: partition %lld byte %zu written",
				              (long long)np, (long long)n, counts[c], (long long)p, bad);
			}
		}
	}
	ck_assert_int_eq(kdsl_rt_set_threads(rt, 1), KDSL_OK);
	free(in);
	free(out);
}
END_TEST

START_TEST(load_converts)
{
	int32_t in[2][4] = {{16777217, -5, 0, 7}, {1, 2, 3, 4}};
	kdsl_tile f = tile(KDSL_MEM_SBUF, 0, 2, 4, KDSL_F32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, f, ct(hbm(in, 2, 4, KDSL_I32))), KDSL_OK);
	ck_assert_float_eq(*(float *)at(f, 0, 0), 16777216.0f);
	ck_assert_float_eq(*(float *)at(f, 0, 1), -5.0f);
	ck_assert_float_eq(*(float *)at(f, 1, 3), 4.0f);
	float back[2][4] = {{3.7f, -3.7f, 0, 0}, {0, 0, 0, 0}};
	kdsl_tile i = tile(KDSL_MEM_SBUF, 64, 2, 4, KDSL_I32);
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, i, ct(hbm(back, 2, 4, KDSL_F32))), KDSL_OK);
	ck_assert_int_eq(*(int32_t *)at(i, 0, 0), 3);
	ck_assert_int_eq(*(int32_t *)at(i, 0, 1), -3);
}
END_TEST

/* store takes a psum src: bit-exact of one dtype (a NaN payload kept), and
 * converting to bf16 (round to nearest even) of another. */
START_TEST(store_from_psum)
{
	kdsl_tile p = tile(KDSL_MEM_PSUM, 0, 2, 2, KDSL_F32);
	uint32_t nan = 0x7fc01234u;
	float one_third = 1.0f / 3.0f;
	memcpy(at(p, 0, 0), &nan, 4);
	memcpy(at(p, 0, 1), &one_third, 4);
	*(float *)at(p, 1, 0) = -0.0f;
	*(float *)at(p, 1, 1) = 2.0f;
	uint32_t out[2][2];
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, hbm(out, 2, 2, KDSL_F32), ct(p)), KDSL_OK);
	ck_assert_uint_eq(out[0][0], nan);
	ck_assert_uint_eq(out[1][0], 0x80000000u);
	uint16_t h[2][2];
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, hbm(h, 2, 2, KDSL_BF16), ct(p)), KDSL_OK);
	ck_assert_uint_eq(h[0][1], 0x3eab);   /* 0x3eaaaaab rounds up */
	ck_assert_uint_eq(h[1][1], 0x4000);
	/* load still takes hbm only, and store's dst stays hbm */
	ck_assert_int_eq(kdsl_neuron_load(rt, &site, p, ct(hbm(out, 2, 2, KDSL_F32))), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst must be in sbuf, got psum");
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, p, ct(p)), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: dst must be in hbm, got psum");
	ck_assert_int_eq(kdsl_neuron_store(rt, &site, hbm(out, 2, 2, KDSL_F32), ct(hbm(h, 2, 2, KDSL_BF16))),
	                 KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: src must be in sbuf or psum, got hbm");
}
END_TEST

/* Writes n i32 indices into partitions 0..n-1 of an sbuf [n, 1] tile. */
static kdsl_tile indices(size_t addr, const int32_t *v, int64_t n)
{
	kdsl_tile x = tile(KDSL_MEM_SBUF, addr, n, 1, KDSL_I32);
	for (int64_t p = 0; p < n; p++)
		memcpy(at(x, p, 0), &v[p], 4);
	return x;
}

/* load_gather: row index[p] of the view (counted from its first row) to
 * partition p; repeated rows are fine. */
START_TEST(gather_rows)
{
	float table[6][3];
	for (int r = 0; r < 6; r++)
		for (int j = 0; j < 3; j++)
			table[r][j] = (float)(10 * r + j);
	kdsl_tile d = tile(KDSL_MEM_SBUF, 0, 4, 3, KDSL_F32);
	const int32_t v[4] = {5, 0, 5, 2};
	kdsl_tile x = indices(64, v, 4);
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(hbm(table, 6, 3, KDSL_F32)), ct(x)), KDSL_OK);
	for (int p = 0; p < 4; p++)
		for (int j = 0; j < 3; j++)
			ck_assert_float_eq(*(float *)at(d, p, j), (float)(10 * v[p] + j));
	/* a view of rows 2..5 and elements 1..2: index 1 is table row 3 */
	kdsl_tile view = hbm(table, 6, 3, KDSL_F32);
	view.p0 = 2;
	view.np = 4;
	view.off = 1;
	view.n = 2;
	const int32_t w[2] = {1, 3};
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, tile(KDSL_MEM_SBUF, 0, 2, 2, KDSL_F32), ct(view),
	                                         ct(indices(64, w, 2))), KDSL_OK);
	ck_assert_float_eq(*(float *)at(d, 0, 0), 31.0f);
	ck_assert_float_eq(*(float *)at(d, 1, 1), 52.0f);
}
END_TEST

/* store_scatter: partition p to row index[p]; other rows keep their
 * values, and of duplicate indices the highest partition wins. */
START_TEST(scatter_rows)
{
	int16_t out[5][2];
	memset(out, 0x7f, sizeof out);
	kdsl_tile s = tile(KDSL_MEM_SBUF, 0, 3, 2, KDSL_I16);
	for (int p = 0; p < 3; p++)
		for (int j = 0; j < 2; j++)
			*(int16_t *)at(s, p, j) = (int16_t)(100 * p + j);
	const int32_t v[3] = {4, 1, 4};
	ck_assert_int_eq(kdsl_neuron_store_scatter(rt, &site, hbm(out, 5, 2, KDSL_I16), ct(s), ct(indices(64, v, 3))),
	                 KDSL_OK);
	ck_assert_int_eq(out[4][0], 200);
	ck_assert_int_eq(out[4][1], 201);
	ck_assert_int_eq(out[1][1], 101);
	ck_assert_int_eq(out[0][0], 0x7f7f);
	ck_assert_int_eq(out[2][0], 0x7f7f);
	ck_assert_int_eq(out[3][1], 0x7f7f);
}
END_TEST

/* Every rule again at run time; an index outside the view (one past the
 * last row, or negative) writes nothing, at its boundary it works. */
START_TEST(indirect_rules)
{
	float table[4][2] = {{0}}, before[4][2];
	kdsl_tile d = tile(KDSL_MEM_SBUF, 0, 2, 2, KDSL_F32);
	kdsl_tile h = hbm(table, 4, 2, KDSL_F32);
	memset(at(d, 0, 0), 0x55, 8);
	memset(at(d, 1, 0), 0x55, 8);
	const int32_t past[2] = {3, 4}, neg[2] = {-1, 0}, last[2] = {3, 3};
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(indices(64, past, 2))), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index[1] = 4 is outside src's 4 rows");
	ck_assert_uint_eq(*(uint32_t *)at(d, 0, 0), 0x55555555u);
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(indices(64, neg, 2))), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index[0] = -1 is outside src's 4 rows");
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(indices(64, last, 2))), KDSL_OK);
	memcpy(before, table, sizeof table);
	ck_assert_int_eq(kdsl_neuron_store_scatter(rt, &site, h, ct(d), ct(indices(64, past, 2))), KDSL_ERR_BOUNDS);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index[1] = 4 is outside dst's 4 rows");
	ck_assert_mem_eq(table, before, sizeof table);
	/* the index tile: i32, [P, 1], in sbuf */
	kdsl_tile u = tile(KDSL_MEM_SBUF, 64, 2, 1, KDSL_U32);
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(u)), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index must be i32, got u32");
	kdsl_tile wide = tile(KDSL_MEM_SBUF, 64, 2, 2, KDSL_I32);
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(wide)), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index must be [2, 1], one row number per partition "
	                                         "of dst, got [2, 2]");
	kdsl_tile px = tile(KDSL_MEM_PSUM, 0, 2, 1, KDSL_I32);
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, d, ct(h), ct(px)), KDSL_ERR_ARG);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: index must be in sbuf, got psum");
	/* shapes and dtypes of the two sides */
	ck_assert_int_eq(kdsl_neuron_load_gather(rt, &site, tile(KDSL_MEM_SBUF, 0, 2, 1, KDSL_F32), ct(h),
	                                         ct(indices(64, last, 2))), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: src must have as many elements per row as dst per "
	                                         "partition, got 2 and 1");
	ck_assert_int_eq(kdsl_neuron_store_scatter(rt, &site, hbm(table, 4, 2, KDSL_I32), ct(d),
	                                           ct(indices(64, last, 2))), KDSL_ERR_RANGE);
	ck_assert_str_eq(kdsl_rt_last_error(rt), "t.k:1:1: op: src must have the same dtype as dst, got f32 and i32");
	ck_assert_int_eq(kdsl_neuron_store_scatter(rt, &site, d, ct(d), ct(indices(64, last, 2))), KDSL_ERR_ARG);
	ck_assert_int_eq(kdsl_neuron_load_gather(NULL, &site, d, ct(h), ct(u)), KDSL_ERR_ARG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime-neuron-move");
	TCase *tc = tcase_create("neuron-move");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, row_copies_split);
	tcase_add_test(tc, load_converts);
	tcase_add_test(tc, store_from_psum);
	tcase_add_test(tc, gather_rows);
	tcase_add_test(tc, scatter_rows);
	tcase_add_test(tc, indirect_rules);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
