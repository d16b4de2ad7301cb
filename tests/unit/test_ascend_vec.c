/* test_ascend_vec.c: the TIK vector ops' typed kernels
 * (runtime/ascend_vec.c) against the generic definition they replaced,
 * byte for byte: each enabled element computed in double from the exact
 * operands and rounded once to the dtype (f16 through kdsl_f64_to_f16),
 * the NaN rule of docs/language.md (an operand NaN is the result, the
 * first's when both are, quieted), i32 wrapping, repeat by repeat in
 * order (each repeat reads all its inputs before it writes).  Random
 * calls of every two-source and one-source op on every dtype of its list,
 * both mask forms, repeat counts 0..6, rep strides around the dense one,
 * sources in place, apart and in the accumulation form, on ub filled with
 * random bits and edge values (NaN payloads, signalling NaNs, infinities,
 * -0, subnormals, f16's largest values and midpoints, i32's extremes);
 * calls a rule refuses must leave ub as it was.  meson runs it under each
 * KDSL_ISA the CPU has, so every instruction set's kernels meet the same
 * reference. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "../check_run.h"

static const kdsl_site SITE = {"t.k", 5, 5, "vec"};

enum { REGION = 8192 };   /* the part of ub the calls use */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const uint16_t f16_edges[] = {
	0x7e00, 0x7c01, 0xfe35, 0x7d55, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x83ff, 0x0400,
	0x7bff, 0xfbff, 0x7bfe, 0x3c00, 0x3c01, 0xbc00, 0x3555, 0x0200, 0x03ff, 0x5bff, 0x6400,
};
static const uint32_t f32_edges[] = {
	0x7fc00000, 0x7f800001, 0xffc00123, 0x7fa5a5a5, 0x7f800000, 0xff800000, 0x00000000,
	0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000,
	0x3f800001, 0x33800000, 0x4b800001, 0x3eaaaaab,
};
static const uint32_t i32_edges[] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 0, 1, 0x10000, 0xffff};

/* ub's region: random bits, one element in three an edge value of dt */
static void fill(unsigned char *m, kdsl_dtype dt, uint64_t *x)
{
	size_t size = kdsl_dtype_size(dt);
	for (size_t o = 0; o < REGION; o += size) {
		uint64_t r = rnd(x);
		uint32_t v = (uint32_t)(r >> 8);
		if (r % 3 == 0)
			v = dt == KDSL_F16 ? f16_edges[(r >> 40) % (sizeof f16_edges / 2)]
			  : dt == KDSL_F32 ? f32_edges[(r >> 40) % (sizeof f32_edges / 4)]
			                   : i32_edges[(r >> 40) % (sizeof i32_edges / 4)];
		memcpy(m + o, &v, size);   /* little-endian: the low bytes */
	}
}

/* An element as a double (f16 and f32 exactly). */
static double get(kdsl_dtype dt, const unsigned char *p)
{
	uint16_t h;
	float f;
	if (dt == KDSL_F16) {
		memcpy(&h, p, 2);
		return kdsl_f16_to_f64(h);
	}
	memcpy(&f, p, 4);
	return f;
}

/* A double rounded once to dt (a NaN keeps its sign and payload's top
 * bits, quieted: what kdsl_f64_to_f16 and C's double -> float do). */
static void put(kdsl_dtype dt, unsigned char *p, double v)
{
	uint16_t h;
	float f;
	if (dt == KDSL_F16) {
		h = kdsl_f64_to_f16(v);
		memcpy(p, &h, 2);
		return;
	}
	f = (float)v;
	memcpy(p, &f, 4);
}

/* The first NaN of x, y (the result of an arithmetic op with a NaN
 * operand), or r. */
static double nan2(double x, double y, double r)
{
	return x != x ? x : y != y ? y : r;
}

static void ref_bin(int op, kdsl_dtype dt, unsigned char *o, const unsigned char *a, const unsigned char *b)
{
	if (dt == KDSL_I32) {
		uint32_t x, y, r;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y
		  : op == 3 ? ((int32_t)x > (int32_t)y ? x : y) : ((int32_t)x < (int32_t)y ? x : y);
		memcpy(o, &r, 4);
		return;
	}
	double x = get(dt, a), y = get(dt, b);
	double r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : op == 3 ? (x > y ? x : y) : (x < y ? x : y);
	if (op >= 3 && dt == KDSL_F32 && (x != x || y != y)) {
		/* max/min give the NaN operand as it is, not quieted */
		memcpy(o, x != x ? a : b, 4);
		return;
	}
	put(dt, o, nan2(x, y, r));
}

static void ref_one(int op, kdsl_dtype dt, unsigned char *o, const unsigned char *a, double k)
{
	double x = get(dt, a), r;
	switch (op) {
	case 0: r = nan2(x, k, x + k); break;
	case 1: r = nan2(x, k, x * k); break;
	case 2: r = fabs(x); break;
	case 3: r = exp(x); break;
	case 4: r = log(x); break;
	case 5: r = 1.0 / x; break;
	default: r = x != x ? x : x > 0 ? x : 0.0; break;
	}
	put(dt, o, r);
}

typedef int (*bin_fn)(kdsl_rt *, const kdsl_site *, kdsl_dtype, kdsl_ascend_mask, kdsl_ref, int64_t, kdsl_cref,
                      int64_t, kdsl_cref, int64_t, int64_t, int64_t, int64_t, int64_t);
typedef int (*one_fn)(kdsl_rt *, const kdsl_site *, kdsl_dtype, kdsl_ascend_mask, kdsl_ref, int64_t, kdsl_cref,
                      int64_t, int64_t, int64_t, int64_t);
static const bin_fn bins[5] = {kdsl_ascend_vec_add, kdsl_ascend_vec_sub, kdsl_ascend_vec_mul, kdsl_ascend_vec_max,
                               kdsl_ascend_vec_min};
static const one_fn unaries[5] = {kdsl_ascend_vec_abs, kdsl_ascend_vec_exp, kdsl_ascend_vec_ln, kdsl_ascend_vec_rec,
                                  kdsl_ascend_vec_relu};

/* A repeat stride in blocks: the dense one mostly, else 0..16. */
static int64_t stride(uint64_t *x, int64_t dense)
{
	uint64_t r = rnd(x) % 4;
	return r < 2 ? dense : r == 2 ? 0 : (int64_t)(rnd(x) % 17);
}

START_TEST(kernels_match_reference)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	unsigned char *ub, *want, *before;
	uint64_t x = 0x853c49e6748fea9bu;
	int call, nok[2] = {0, 0}, ndt[3] = {0, 0, 0}, nbits = 0, ninplace = 0, nacc = 0;

	ck_assert_ptr_nonnull(rt);
	ub = kdsl_rt_mem(rt, KDSL_MEM_UB, NULL);
	want = malloc(REGION);
	before = malloc(REGION);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(before);
	for (call = 0; call < 6000; call++) {
		int two = (int)(rnd(&x) % 2), op = (int)(rnd(&x) % (two ? 5 : 7));
		kdsl_dtype dt = two ? (kdsl_dtype[]){KDSL_F16, KDSL_F32, KDSL_I32}[rnd(&x) % 3]
		              : op == 6 ? KDSL_F16 : rnd(&x) % 2 ? KDSL_F16 : KDSL_F32;
		int64_t size = (int64_t)kdsl_dtype_size(dt), max = 256 / size, n, dense, rep = (int64_t)(rnd(&x) % 7);
		kdsl_ascend_mask mask;
		int64_t doff = 32 * (int64_t)(rnd(&x) % 96), s0off = 32 * (int64_t)(rnd(&x) % 96);
		int64_t s1off = 32 * (int64_t)(rnd(&x) % 96), ds, s0s, s1s, r, i;
		uint64_t h = 0, l = 0;
		double scalar = 0, k = 0;
		int rc, form = (int)(rnd(&x) % 4);

		if (rnd(&x) % 3 == 0) {
			/* bitwise: random bits, sometimes sparse */
			l = rnd(&x) & (rnd(&x) % 2 ? rnd(&x) : ~0ull);
			h = max > 64 ? rnd(&x) & rnd(&x) : 0;
			if (!h && !l)
				l = 1;
			mask = kdsl_ascend_mask_bits(h, l);
			n = h ? 128 - __builtin_clzll(h) : 64 - __builtin_clzll(l);
			nbits++;
		} else {
			n = 1 + (int64_t)(rnd(&x) % (uint64_t)max);
			if (rnd(&x) % 2)
				n = max;
			mask = kdsl_ascend_mask_count(n);
			h = n > 64 ? (n == 128 ? ~0ull : (1ull << (n - 64)) - 1) : 0;
			l = n >= 64 ? ~0ull : (1ull << n) - 1;
		}
		dense = (n * size + 31) / 32;
		ds = stride(&x, dense);
		s0s = stride(&x, dense);
		s1s = stride(&x, dense);
		if (form == 1) {
			/* in place: src0 (or src) is dst */
			s0off = doff;
			s0s = ds;
		} else if (form == 2 && two) {
			/* the accumulation: dst is src1, both strides 0 */
			s1off = doff;
			ds = s1s = 0;
		}
		fill(ub, dt, &x);
		memcpy(before, ub, REGION);
		memcpy(want, ub, REGION);
		if (!two && op <= 1) {
			/* the scalar: a random double, sometimes NaN */
			uint64_t b = rnd(&x);
			scalar = b % 5 == 0 ? NAN : (double)(int64_t)(b >> 20) / 1048576.0;
			unsigned char one[4];
			kdsl_dtype_store(dt, one, scalar);
			k = get(dt, one);
		}
		if (two)
			rc = bins[op](rt, &SITE, dt, mask, kdsl_ref_of(ub, REGION, KDSL_MEM_UB), doff,
			              kdsl_cref_of(ub, REGION, KDSL_MEM_UB), s0off, kdsl_cref_of(ub, REGION, KDSL_MEM_UB),
			              s1off, rep, ds, s0s, s1s);
		else if (op <= 1)
			rc = (op ? kdsl_ascend_vec_muls : kdsl_ascend_vec_adds)(rt, &SITE, dt, mask,
			                                                       kdsl_ref_of(ub, REGION, KDSL_MEM_UB), doff,
			                                                       kdsl_cref_of(ub, REGION, KDSL_MEM_UB), s0off,
			                                                       scalar, rep, ds, s0s);
		else
			rc = unaries[op - 2](rt, &SITE, dt, mask, kdsl_ref_of(ub, REGION, KDSL_MEM_UB), doff,
			                     kdsl_cref_of(ub, REGION, KDSL_MEM_UB), s0off, rep, ds, s0s);
		if (rc != KDSL_OK) {
			ck_assert_msg(memcmp(ub, before, REGION) == 0, "call %d: a refused op wrote ub", call);
			continue;
		}
		/* the reference: repeat by repeat, all inputs of a repeat read first */
		for (r = 0; r < rep; r++) {
			unsigned char a[256], b[256], out[256];
			memcpy(a, want + s0off + r * s0s * 32, (size_t)(n * size));
			if (two)
				memcpy(b, want + s1off + r * s1s * 32, (size_t)(n * size));
			for (i = 0; i < n; i++) {
				if (!((i < 64 ? l >> i : h >> (i - 64)) & 1))
					continue;
				if (two)
					ref_bin(op, dt, out + i * size, a + i * size, b + i * size);
				else
					ref_one(op, dt, out + i * size, a + i * size, k);
				memcpy(want + doff + r * ds * 32 + i * size, out + i * size, (size_t)size);
			}
		}
		for (i = 0; i < REGION; i++)
			if (ub[i] != want[i])
				ck_abort_msg("call %d (%s op %d, %s, n %lld, repeats %lld, strides %lld %lld %lld, form %d): "
				             "byte %lld is %02x, want %02x",
				             call, two ? "two-source" : "one-source", op, kdsl_dtype_name(dt), (long long)n,
				             (long long)rep, (long long)ds, (long long)s0s, (long long)s1s, form, (long long)i,
				             ub[i], want[i]);
		nok[two]++;
		ndt[dt == KDSL_F16 ? 0 : dt == KDSL_F32 ? 1 : 2] += rep > 0;
		ninplace += form == 1 && rep > 0;
		nacc += form == 2 && two && rep > 1;
	}
	/* every kind of call ran and was compared, not just refused */
	ck_assert_int_gt(nok[0], 800);
	ck_assert_int_gt(nok[1], 800);
	ck_assert_int_gt(ndt[0], 800);
	ck_assert_int_gt(ndt[1], 500);
	ck_assert_int_gt(ndt[2], 200);
	ck_assert_int_gt(nbits, 500);
	ck_assert_int_gt(ninplace, 200);
	ck_assert_int_gt(nacc, 50);
	free(want);
	free(before);
	kdsl_rt_destroy(rt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ascend_vec");
	TCase *tc = tcase_create("kernels");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, kernels_match_reference);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
