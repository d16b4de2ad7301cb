/* test_runtime_merge.c: kdsl_neuron_predicated_merge, the op fuse-select
 * makes of load / tensor_copy_predicated / store, against a plain
 * reference: dst = (predicate != 0) != reverse_pred ? on_true : on_false,
 * every input read before dst is written.  Every element and predicate
 * width, both polarities, dst as on_false's very view, dst shifted over
 * on_true, on_false or the predicate by a few elements, on_true and the
 * predicate on chip; its rules, and the uninit check's reads.  Run under
 * each KDSL_ISA by meson, as the blend's other tests are. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

enum { SPAN = 8192, ROWS = 128, NMEM = 3 };

static kdsl_rt *rt;
static const kdsl_site site = {"t.k", 1, 1, "predicated_merge"};
/* the memories a view may be in: an hbm arena of ROWS rows of SPAN
 * bytes, and the first SPAN bytes of every sbuf and psum partition */
static const kdsl_mem mems[NMEM] = {KDSL_MEM_HBM, KDSL_MEM_SBUF, KDSL_MEM_PSUM};
static unsigned char *base[NMEM], *old[NMEM], *want[NMEM];
static size_t pitch[NMEM];

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_ptr_nonnull(rt);
	for (int m = 0; m < NMEM; m++) {
		old[m] = malloc((size_t)ROWS * SPAN);
		want[m] = malloc((size_t)ROWS * SPAN);
		ck_assert_ptr_nonnull(old[m]);
		ck_assert_ptr_nonnull(want[m]);
	}
	base[0] = malloc((size_t)ROWS * SPAN);
	ck_assert_ptr_nonnull(base[0]);
	pitch[0] = SPAN;
	for (int m = 1; m < NMEM; m++) {
		base[m] = kdsl_rt_mem(rt, mems[m], NULL);
		pitch[m] = kdsl_rt_partition_stride(rt, mems[m]);
	}
}

static void teardown(void)
{
	for (int m = 0; m < NMEM; m++) {
		free(old[m]);
		free(want[m]);
	}
	free(base[0]);
	kdsl_rt_destroy(rt);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A view of memory m: partitions (rows) p0..p0+np-1, elements
 * off..off+n-1 of each (off counted in elements of dt from the row's
 * start). */
typedef struct {
	int m;
	int64_t p0, np, off, n;
	kdsl_dtype dt;
} V;

static kdsl_tile tile_of(V v)
{
	return kdsl_tile_of(base[v.m], pitch[v.m], SPAN, ROWS, v.p0, v.np, v.off, v.n, mems[v.m], v.dt);
}

static kdsl_ctile ctile_of(V v)
{
	kdsl_tile t = tile_of(v);
	return kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt);
}

/* Element (p, j) of v in the copy c (pitch SPAN) of its memory. */
static unsigned char *at(unsigned char *const *c, V v, int64_t p, int64_t j)
{
	return c[v.m] + (size_t)(v.p0 + p) * SPAN + (size_t)(v.off + j) * kdsl_dtype_size(v.dt);
}

/* Random bytes, zero three times in four (a wide predicate lane is set by
 * any of its bytes), into every memory; old and want keep them. */
static void fill(uint64_t *x)
{
	for (int m = 0; m < NMEM; m++) {
		for (size_t i = 0; i < (size_t)ROWS * SPAN; i += 8) {
			uint64_t v = rnd(x), b = rnd(x);
			for (int k = 0; k < 8; k++)
				old[m][i + (size_t)k] = (unsigned char)(((b >> (2 * k)) & 3) == 3 ? (v >> (8 * k)) | 1 : 0);
		}
		for (int p = 0; p < ROWS; p++)
			memcpy(base[m] + (size_t)p * pitch[m], old[m] + (size_t)p * SPAN, SPAN);
		memcpy(want[m], old[m], (size_t)ROWS * SPAN);
	}
}

/* The merge's definition on the copies: every input from old. */
static void reference(V d, V t, V f, V q, int rev)
{
	size_t sz = kdsl_dtype_size(d.dt), qz = kdsl_dtype_size(q.dt);
	for (int64_t p = 0; p < d.np; p++)
		for (int64_t j = 0; j < d.n; j++) {
			const unsigned char *pb = at(old, q, p, j);
			int on = 0;
			for (size_t k = 0; k < qz; k++)
				on |= pb[k] != 0;
			memcpy(at(want, d, p, j), on != rev ? at(old, t, p, j) : at(old, f, p, j), sz);
		}
}

/* Runs the merge and compares every memory with the reference. */
static void merge_and_compare(V d, V t, V f, V q, int rev, const char *what, int trial)
{
	reference(d, t, f, q, rev);
	ck_assert_msg(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(t), ctile_of(f), ctile_of(q), rev) ==
	                  KDSL_OK,
	              "%s %d: %s", what, trial, kdsl_rt_last_error(rt));
	for (int m = 0; m < NMEM; m++)
		for (int p = 0; p < ROWS; p++)
			ck_assert_msg(!memcmp(base[m] + (size_t)p * pitch[m], want[m] + (size_t)p * SPAN, SPAN),
			              "%s %d (%s data, %s predicate, p0 %lld, np %lld, n %lld, rev %d, on_true in %d, "
			              "predicate in %d): memory %d partition %d differs",
			              what, trial, kdsl_dtype_name(d.dt), kdsl_dtype_name(q.dt), (long long)d.p0,
			              (long long)d.np, (long long)d.n, rev, t.m, q.m, m, p);
}

static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_F32, KDSL_I64};
static const kdsl_dtype pts[] = {KDSL_U8, KDSL_U16, KDSL_U32};

/* Every element width with every predicate width, both polarities, each
 * operand apart: all in hbm, or on_true and the predicate on chip. */
START_TEST(merge_every_width)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	int trial = 0;
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 3; b++)
			for (int rev = 0; rev < 2; rev++, trial++) {
				/* all in hbm, on_true in psum and the predicate in
				 * sbuf, or the other way round, in turn */
				int chip = trial % 3;
				size_t sz = kdsl_dtype_size(dts[a]);
				int64_t n = 133, seg = (SPAN / 4) / (int64_t)sz;
				/* rows split in four: predicate, on_true, on_false, dst */
				V q = {chip ? chip : 0, 0, ROWS, 0, n, pts[b]};
				V t = {chip ? 3 - chip : 0, 0, ROWS, seg, n, dts[a]};
				V f = {0, 0, ROWS, 2 * seg, n, dts[a]}, d = {0, 0, ROWS, 3 * seg, n, dts[a]};
				fill(&x);
				merge_and_compare(d, t, f, q, rev, "width", trial);
			}
}
END_TEST

/* Random views, every width, and dst meeting the inputs: on_false's very
 * view (the blend in place), or dst a few elements after on_true,
 * on_false or the predicate (the scratch path: each is read before dst
 * is written). */
START_TEST(merge_random_and_overlapping)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int trial = 0; trial < 60; trial++) {
		kdsl_dtype dt = dts[rnd(&x) % 4], pt = pts[rnd(&x) % 3];
		size_t sz = kdsl_dtype_size(dt), qz = kdsl_dtype_size(pt);
		int64_t np = 1 + (int64_t)(rnd(&x) % ROWS), n = 1 + (int64_t)(rnd(&x) % 300);
		int64_t p0 = (int64_t)(rnd(&x) % (uint64_t)(ROWS + 1 - np));
		int rev = (int)(rnd(&x) & 1), kind = (int)(rnd(&x) % 5);
		int64_t seg = 2048 / (int64_t)sz, shift = 1 + (int64_t)(rnd(&x) % 5);
		V q = {(int)(rnd(&x) % 3), p0, np, 2048 / (int64_t)qz * 3 + (int64_t)(rnd(&x) % 8), n, pt};
		V t = {(int)(rnd(&x) % 3), p0, np, (int64_t)(rnd(&x) % 8), n, dt};
		V f = {0, p0, np, seg + (int64_t)(rnd(&x) % 8), n, dt};
		V d = {0, p0, np, 2 * seg + (int64_t)(rnd(&x) % 8), n, dt};
		if (q.m == 2 && t.m == 2)
			q.m = 1;                     /* seed 002: not both in psum */
		if (kind == 1) {
			d = f;                       /* dst == on_false */
		} else if (kind == 2) {
			t.m = 0;                     /* dst shifted over on_true */
			d.off = t.off + shift;
		} else if (kind == 3) {
			d.off = f.off + shift;       /* dst shifted over on_false */
		} else if (kind == 4) {
			q.m = 0;                     /* dst over the predicate's bytes */
			q.off = 4096 / (int64_t)qz + (int64_t)(rnd(&x) % 8);
			d.off = (int64_t)((size_t)q.off * qz / sz) + shift;
		}
		fill(&x);
		merge_and_compare(d, t, f, q, rev, "random", trial);
	}
}
END_TEST

/* Every rule fails with its error and writes nothing. */
START_TEST(merge_rules)
{
	uint64_t x = 7;
	V d = {0, 0, 4, 0, 16, KDSL_F32}, t = {0, 0, 4, 64, 16, KDSL_F32}, f = {0, 0, 4, 128, 16, KDSL_F32};
	V q = {0, 0, 4, 1024, 16, KDSL_U8};
	V bad_d = d, bad_f = f, bad_q = q, bad_t = t, bad_n = f, bad_p = q, psum_t = t, psum_q = q;
	bad_d.m = 1;
	bad_f.m = 2;
	bad_q.dt = KDSL_I8;
	bad_t.dt = KDSL_I32;
	bad_n.n = 15;
	bad_p.np = 3;
	psum_t.m = psum_q.m = 2;
	struct {
		V d, t, f, q;
		int rc;
		const char *msg;
	} c[] = {
		{bad_d, t, f, q, KDSL_ERR_ARG, "dst must be in hbm, got sbuf"},
		{d, t, bad_f, q, KDSL_ERR_ARG, "on_false must be in hbm, got psum"},
		{d, t, f, bad_q, KDSL_ERR_RANGE, "predicate must be u8, u16 or u32, got i8"},
		{d, bad_t, f, q, KDSL_ERR_RANGE, "on_true must have the same dtype as dst, got i32 and f32"},
		{d, t, bad_n, q, KDSL_ERR_RANGE,
		 "on_false must have the same number of elements per partition as dst, got 15 and 16"},
		{d, t, f, bad_p, KDSL_ERR_RANGE, "predicate must occupy the same number of partitions as dst, got 3 and 4"},
		{d, psum_t, f, psum_q, KDSL_ERR_ARG, "on_true and predicate must not both be in psum"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		fill(&x);
		ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(c[i].d), ctile_of(c[i].t),
		                                              ctile_of(c[i].f), ctile_of(c[i].q), 0),
		                 c[i].rc);
		/* the site's position and the op's name, then the rule */
		ck_assert(!strncmp(kdsl_rt_last_error(rt), "t.k:1:1: predicated_merge: ", 27));
		ck_assert_str_eq(kdsl_rt_last_error(rt) + strlen("t.k:1:1: predicated_merge: "), c[i].msg);
		for (int m = 0; m < NMEM; m++)
			for (int p = 0; p < ROWS; p++)
				ck_assert(!memcmp(base[m] + (size_t)p * pitch[m], old[m] + (size_t)p * SPAN, SPAN));
	}
	/* the boundary: u32 predicate; on_true in psum with the predicate in
	 * sbuf, and the other way round (seed 002: not both in psum) */
	q.dt = KDSL_U32;
	t.m = 2;
	q.m = 1;
	fill(&x);
	merge_and_compare(d, t, f, q, 1, "boundary", 0);
	t.m = 1;
	q.m = 2;
	fill(&x);
	merge_and_compare(d, t, f, q, 1, "boundary", 0);
}
END_TEST

/* The uninit check sees the chain's on-chip reads: all of an on-chip
 * predicate, on_true only where the predicate selects. */
START_TEST(merge_uninit)
{
	kdsl_rt_set_check(rt, KDSL_CHECK_UNINIT);
	V d = {0, 0, 4, 0, 16, KDSL_F32}, f = {0, 0, 4, 64, 16, KDSL_F32};
	V t = {1, 0, 4, 0, 16, KDSL_F32}, q = {1, 0, 4, 1024, 16, KDSL_U8}, qh = {0, 0, 4, 1024, 16, KDSL_U8};
	memset(base[0], 0, (size_t)ROWS * SPAN);   /* hbm: no predicate selects */
	/* nothing on chip written: an hbm predicate that selects nothing
	 * reads no on_true byte */
	ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(t), ctile_of(f), ctile_of(qh), 0),
	                 KDSL_OK);
	/* reverse_pred selects every element: on_true is read */
	ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(t), ctile_of(f), ctile_of(qh), 1),
	                 KDSL_ERR_UNINIT);
	/* an on-chip predicate is read whole */
	ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(f), ctile_of(f), ctile_of(q), 0),
	                 KDSL_ERR_UNINIT);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, tile_of(q), 0), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(t), ctile_of(f), ctile_of(q), 0),
	                 KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_memset(rt, &site, tile_of(t), 2), KDSL_OK);
	ck_assert_int_eq(kdsl_neuron_predicated_merge(rt, &site, tile_of(d), ctile_of(t), ctile_of(f), ctile_of(q), 1),
	                 KDSL_OK);
	ck_assert(*(float *)(void *)base[0] == 2.0f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime_merge");
	TCase *tc = tcase_create("merge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, merge_every_width);
	tcase_add_test(tc, merge_random_and_overlapping);
	tcase_add_test(tc, merge_rules);
	tcase_add_test(tc, merge_uninit);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
