/* test_engine.c: the neuron engine ops' vectorised kernels
 * (runtime/neuron_engine.c) against a plain scalar reference, byte for
 * byte: every op (tensor_copy converting, tensor_tensor and tensor_scalar
 * with each alu op, activation with each func, iota, nc_matmul, the
 * element-wise ops in place, tensor_reduce's folds, nc_transpose's move)
 * over every dtype pair, partition counts 1, 7, 31 and 128, free sizes
 * 1..513 around the vector widths, views that start off a vector boundary, and
 * edge values (NaN payloads, infinities, -0, subnormals, f16 and bf16
 * ties, the f16 overflow boundary, integers past 2^31 and wrapping).
 * Every byte must match, NaN payloads included (kdsl's NaN rule).
 * meson runs it under each KDSL_ISA the CPU has (sse2, avx2, and the
 * widest), so each instruction set's kernels are compared with the same
 * reference.  The reference is the runtime's element-by-element code
 * before the kernels: kdsl_load_f32, one f32 operation, kdsl_store_f32. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
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
static unsigned char *sbuf, *psum;
static size_t sps, pps;

static void setup(void)
{
	rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	ck_assert_ptr_nonnull(rt);
	sbuf = kdsl_rt_mem(rt, KDSL_MEM_SBUF, NULL);
	psum = kdsl_rt_mem(rt, KDSL_MEM_PSUM, NULL);
	sps = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	pps = kdsl_rt_partition_stride(rt, KDSL_MEM_PSUM);
}

static void teardown(void)
{
	kdsl_rt_destroy(rt);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- operands ---- */

/* Regions of each sbuf partition: a, b, dst; each holds 513 8-byte
 * elements and a guard. */
enum { REG = 8192, GUARD = 64 };

static const uint32_t f32_edges[] = {
	0x7fc00000, 0x7f800001, 0xffc00123, 0x7fa5a5a5, 0x7f800000, 0xff800000, 0x00000000, 0x80000000,
	0x00000001, 0x807fffff, 0x00800000, 0x477fe000, 0x477fefff, 0x477ff000, 0xc77ff000, 0x47800000,
	0x33800000, 0x33000000, 0x33400000, 0xb3000001, 0x38800000, 0x387fffff, 0x38000000, 0x4f000000,
	0xcf000000, 0x4effffff, 0xceffffff, 0x4f800000, 0xc0400000, 0x60ad78ec, 0x437f8000, 0xc3008000,
	0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000, 0x4b800001, 0x3f808000, 0x3f818000, 0x3f80ffff,
};

static const uint16_t half_edges[] = {
	0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xfe55,
	0x7f80, 0xff81, 0x7fc0, 0x0080, 0x007f, 0x3c00, 0xbc01,
};

/* An f32 near an f16 or bf16 value: its bits with a tie, just below or
 * just above half an ulp of the narrow format, or a random low part. */
static uint32_t near_narrow(uint64_t *s)
{
	uint64_t r = rnd(s);
	uint32_t base, low;

	if (r & 1) {   /* f16: an f16 in range, widened, then 13 low bits */
		uint32_t h = (uint32_t)(r >> 8) & 0x7fff;
		float f = kdsl_h_f16_to_f32((kdsl_f16)h);
		memcpy(&base, &f, 4);
		low = (r >> 24 & 3) == 0 ? 0x1000 : (r >> 24 & 3) == 1 ? 0x0fff : (r >> 24 & 3) == 2 ? 0x1001
		                                                                                      : (uint32_t)(r >> 32) & 0x1fff;
		if ((base & 0x7f800000) == 0x7f800000 || base == 0)
			return base;
		return (base | low) ^ (uint32_t)((r >> 40) & 1) << 31;
	}
	base = (uint32_t)(r >> 8) & 0xffff0000u;
	low = (r >> 24 & 3) == 0 ? 0x8000 : (r >> 24 & 3) == 1 ? 0x7fff : (uint32_t)(r >> 32) & 0xffff;
	return base | low;
}

/* One element of dtype dt at p: random bits, an edge value, or (f32) a
 * value near a narrow float or an integer. */
static void fill_elem(kdsl_dtype dt, unsigned char *p, uint64_t *s)
{
	uint64_t r = rnd(s), v = rnd(s);
	int pick = (int)(r % 8);

	switch (dt) {
	case KDSL_F32: {
		uint32_t u;
		float f;
		if (pick < 2) {
			u = f32_edges[(r >> 8) % (sizeof f32_edges / sizeof f32_edges[0])];
		} else if (pick < 5) {
			u = near_narrow(s);
		} else if (pick < 7) {
			f = (float)((int64_t)v >> (v & 63));   /* integers of every size */
			memcpy(&u, &f, 4);
		} else {
			u = (uint32_t)v;
		}
		memcpy(p, &u, 4);
		return;
	}
	case KDSL_F16:
	case KDSL_BF16: {
		uint16_t h = pick < 2 ? half_edges[(r >> 8) % (sizeof half_edges / sizeof half_edges[0])] : (uint16_t)v;
		memcpy(p, &h, 2);
		return;
	}
	default:
		/* integers: random bits, or the extremes (pick 0: min, 1: max) */
		if (pick == 0)
			v = (uint64_t)1 << (8 * kdsl_dtype_size(dt) - 1);
		else if (pick == 1)
			v = ((uint64_t)1 << (8 * kdsl_dtype_size(dt) - 1)) - 1;
		memcpy(p, &v, kdsl_dtype_size(dt));
		return;
	}
}

/* An sbuf tile of np partitions x n elements of dt in region reg, its
 * view starting `off` elements into each partition. */
static kdsl_tile tile(int reg, int64_t np, int64_t off, int64_t n, kdsl_dtype dt)
{
	return kdsl_tile_of(sbuf + (size_t)reg * REG, sps, (size_t)(off + n) * kdsl_dtype_size(dt), np, 0, np, off,
	                    n, KDSL_MEM_SBUF, dt);
}

static kdsl_ctile ct(kdsl_tile t)
{
	return kdsl_ctile_of(t.base, t.pstride, t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem, t.dt);
}

static unsigned char *at(kdsl_tile t, int64_t p, int64_t j)
{
	return t.base + (size_t)p * t.pstride + (size_t)(t.off + j) * kdsl_dtype_size(t.dt);
}

/* The bytes of a region's partition that a view of n elements (at most 2
 * in) can touch, and a guard after them. */
static size_t span(int64_t n)
{
	return (size_t)(n + 3) * 8 + GUARD;
}

/* Fills the span of every partition of the three regions (view, the
 * elements around it, the guard): random bits, and every third element a
 * value chosen for the dtypes of a, b and dst (fill_elem). */
static void fill(int64_t np, int64_t n, kdsl_dtype da, kdsl_dtype db, kdsl_dtype dd, uint64_t *s)
{
	kdsl_dtype dts[3] = {da, db, dd};
	for (int reg = 0; reg < 3; reg++)
		for (int64_t p = 0; p < np; p++) {
			unsigned char *row = sbuf + (size_t)reg * REG + (size_t)p * sps;
			size_t es = kdsl_dtype_size(dts[reg]), len = span(n);
			for (size_t o = 0; o < len; o += 8) {
				uint64_t v = rnd(s);
				memcpy(row + o, &v, 8);
			}
			for (size_t o = (size_t)(p % 3) * es; o + es <= len; o += 3 * es)
				fill_elem(dts[reg], row + o, s);
		}
}

/* ---- the reference ---- */

/* kdsl's NaN rule for add, subtract and multiply: a NaN x quieted, else a
 * NaN y quieted, else r (docs/language.md, "Engine arithmetic"). */
static float nan_rule(float r, float x, float y)
{
	uint32_t b;
	if (x != x)
		memcpy(&b, &x, 4);
	else if (y != y)
		memcpy(&b, &y, 4);
	else
		return r;
	b |= 0x400000u;
	memcpy(&r, &b, 4);
	return r;
}

static float ref_alu(int64_t op, float x, float y)
{
	switch (op) {
	case KDSL_ALU_ADD: return nan_rule(x + y, x, y);
	case KDSL_ALU_SUBTRACT: return nan_rule(x - y, x, y);
	case KDSL_ALU_MULTIPLY: return nan_rule(x * y, x, y);
	case KDSL_ALU_MAX: return x > y ? x : y;
	case KDSL_ALU_DIVIDE: return nan_rule(x / y, x, y);
	default: return x < y ? x : y;
	}
}

static float ref_act(int64_t func, float x)
{
	switch (func) {
	case KDSL_ACT_EXP: return (float)exp((double)x);
	case KDSL_ACT_RELU: return x > 0 ? x : 0;
	case KDSL_ACT_SQUARE: return x * x;
	case KDSL_ACT_SQRT: return sqrtf(x);
	case KDSL_ACT_RSQRT: return (float)(1.0 / sqrt((double)x));
	case KDSL_ACT_RECIPROCAL: return 1.0f / x;
	case KDSL_ACT_LOG: return (float)log((double)x);
	case KDSL_ACT_TANH: return (float)tanh((double)x);
	case KDSL_ACT_SIGMOID: return (float)(1.0 / (1.0 + exp(-(double)x)));
	default: return x;
	}
}

enum { K_COPY, K_TT, K_TS, K_ACT };

/* Expected dst partition rows (the span, so bytes around the view must be
 * unchanged): exp holds np rows of REG bytes. */
static void reference(int kind, int64_t code, kdsl_tile d, kdsl_tile a, kdsl_tile b, float y, unsigned char *exp)
{
	size_t ds = kdsl_dtype_size(d.dt);
	for (int64_t p = 0; p < d.np; p++) {
		memcpy(exp + (size_t)p * REG, d.base + (size_t)p * sps, span(d.n));
		for (int64_t j = 0; j < d.n; j++) {
			float x = kdsl_load_f32(a.dt, at(a, p, j)), r;
			if (kind == K_COPY)
				r = x;
			else if (kind == K_ACT)
				r = ref_act(code, x);
			else
				r = ref_alu(code, x, kind == K_TT ? kdsl_load_f32(b.dt, at(b, p, j)) : y);
			kdsl_store_f32(d.dt, exp + (size_t)p * REG + (size_t)(d.off + j) * ds, r);
		}
	}
}

/* Whether len bytes at x and y are equal (a wrapper, so a failure names
 * the op). */
static int same_bytes(const unsigned char *x, const unsigned char *y, size_t len)
{
	return !memcmp(x, y, len);
}

static int run_op(int kind, int64_t code, kdsl_tile d, kdsl_tile a, kdsl_tile b, double y)
{
	switch (kind) {
	case K_COPY: return kdsl_neuron_tensor_copy(rt, &site, d, ct(a));
	case K_TT: return kdsl_neuron_tensor_tensor(rt, &site, d, ct(a), ct(b), code);
	case K_TS: return ts1(rt, &site, d, ct(a), code, y);
	default: return act1(rt, &site, d, ct(a), code);
	}
}

/* Free sizes around 16-, 32- and 64-byte vectors of every element width. */
static const int64_t free_sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                     127, 128, 129, 255, 256, 257, 511, 512, 513};
static const int64_t part_counts[] = {1, 7, 31, 128};
static const double scalars[] = {0.0, -0.0, 1.5, -2.25, NAN, INFINITY, -INFINITY, 1e-40, 65519.99, 3e9, 1e30};

static const struct {
	int kind;
	int64_t code;
	const char *name;
} ops[] = {
	{K_COPY, 0, "tensor_copy"},
	{K_TT, KDSL_ALU_ADD, "tensor_tensor add"}, {K_TT, KDSL_ALU_SUBTRACT, "tensor_tensor subtract"},
	{K_TT, KDSL_ALU_MULTIPLY, "tensor_tensor multiply"}, {K_TT, KDSL_ALU_MAX, "tensor_tensor max"},
	{K_TT, KDSL_ALU_MIN, "tensor_tensor min"},
	{K_TS, KDSL_ALU_ADD, "tensor_scalar add"}, {K_TS, KDSL_ALU_SUBTRACT, "tensor_scalar subtract"},
	{K_TS, KDSL_ALU_MULTIPLY, "tensor_scalar multiply"}, {K_TS, KDSL_ALU_MAX, "tensor_scalar max"},
	{K_TS, KDSL_ALU_MIN, "tensor_scalar min"},
	{K_ACT, KDSL_ACT_COPY, "activation copy"}, {K_ACT, KDSL_ACT_EXP, "activation exp"},
	{K_ACT, KDSL_ACT_RELU, "activation relu"},
	{K_TT, KDSL_ALU_DIVIDE, "tensor_tensor divide"}, {K_TS, KDSL_ALU_DIVIDE, "tensor_scalar divide"},
	{K_ACT, KDSL_ACT_SQUARE, "activation square"}, {K_ACT, KDSL_ACT_SQRT, "activation sqrt"},
	{K_ACT, KDSL_ACT_RSQRT, "activation rsqrt"}, {K_ACT, KDSL_ACT_RECIPROCAL, "activation reciprocal"},
	{K_ACT, KDSL_ACT_LOG, "activation log"}, {K_ACT, KDSL_ACT_TANH, "activation tanh"},
	{K_ACT, KDSL_ACT_SIGMOID, "activation sigmoid"},
};

/* One op over all (a, dst) dtype pairs (b's dtype rotating), each pair
 * at each partition count with a free size and view offset that move
 * with the case number. */
static void check_op(int oi)
{
	static unsigned char exp[128 * REG];
	uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)oi;
	int64_t cases = 0;

	for (int da = 1; da < KDSL_NDTYPE; da++)
		for (int dd = 1; dd < KDSL_NDTYPE; dd++) {
			/* tensor_copy between equal dtypes is the bit copy: not these kernels */
			if (ops[oi].kind == K_COPY && da == dd)
				continue;
			for (size_t pi = 0; pi < sizeof part_counts / sizeof part_counts[0]; pi++, cases++) {
				int64_t np = part_counts[pi];
				size_t nsz = sizeof free_sizes / sizeof free_sizes[0];
				/* 128 partitions: the smaller sizes, to keep the test short */
				int64_t n = free_sizes[(size_t)(cases * 7 + oi) % (np == 128 ? 14 : nsz)];
				int64_t off = (cases + oi) % 3;   /* 0: aligned views; 1, 2: off vector boundaries */
				kdsl_dtype db = (kdsl_dtype)((da + dd + (int)cases) % (KDSL_NDTYPE - 1) + 1);
				kdsl_tile a = tile(0, np, off, n, (kdsl_dtype)da), b = tile(1, np, (off + 1) % 3, n, db);
				kdsl_tile d = tile(2, np, (off * 2) % 3, n, (kdsl_dtype)dd);
				double y = scalars[(size_t)cases % (sizeof scalars / sizeof scalars[0])];
				fill(np, n, (kdsl_dtype)da, db, (kdsl_dtype)dd, &s);
				reference(ops[oi].kind, ops[oi].code, d, a, b, (float)y, exp);
				ck_assert_int_eq(run_op(ops[oi].kind, ops[oi].code, d, a, b, y), KDSL_OK);
				for (int64_t p = 0; p < np; p++) {
					if (!same_bytes(d.base + (size_t)p * sps, exp + (size_t)p * REG, span(n)))
						ck_abort_msg("%s %s -> %s (b %s): [%lld, %lld] off %lld: partition %lld differs",
						             ops[oi].name, kdsl_dtype_name((kdsl_dtype)da),
						             kdsl_dtype_name((kdsl_dtype)dd), kdsl_dtype_name(db), (long long)np,
						             (long long)n, (long long)off, (long long)p);
				}
			}
		}
}

/* The converting copies f16 -> f32 on every f16 pattern and f32 -> f16 on
 * one f32 pattern in 61 across all 2^32 (AVX-512's hardware conversions
 * among them, whose f16 -> f32 quiets a signalling NaN that the
 * definition keeps): kdsl_load_f32 / kdsl_store_f32's bytes, under each
 * KDSL_ISA this suite runs with.  Rows of 512 at an odd offset, so the
 * vector loops and their tails both run. */
START_TEST(f16_conversions_match_definition)
{
	enum { N = 512, P = 128 };
	kdsl_tile h = tile(0, P, 1, N, KDSL_F16), f = tile(1, P, 3, N, KDSL_F32);
	uint64_t u = 0;
	int64_t bad = 0;

	for (uint32_t k = 0; k < 65536; k++)
		memcpy(at(h, (int64_t)(k / N), (int64_t)(k % N)), &(uint16_t){(uint16_t)k}, 2);
	ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, f, ct(h)), KDSL_OK);
	for (uint32_t k = 0; k < 65536; k++) {
		float want = kdsl_load_f32(KDSL_F16, at(h, (int64_t)(k / N), (int64_t)(k % N)));
		if (!same_bytes(at(f, (int64_t)(k / N), (int64_t)(k % N)), (const unsigned char *)&want, 4) && bad++ < 5)
			fprintf(stderr, "f16 %04x -> f32 differs\n", (unsigned)k);
	}
	ck_assert_int_eq(bad, 0);
	while (u < (1ull << 32)) {
		for (int64_t e = 0; e < P * N && u < (1ull << 32); e++, u += 61)
			memcpy(at(f, e / N, e % N), &(uint32_t){(uint32_t)u}, 4);
		ck_assert_int_eq(kdsl_neuron_tensor_copy(rt, &site, h, ct(f)), KDSL_OK);
		for (int64_t e = 0; e < P * N; e++) {
			unsigned char want[2];
			float x;
			uint32_t xb;
			memcpy(&x, at(f, e / N, e % N), 4);
			memcpy(&xb, &x, 4);
			kdsl_store_f32(KDSL_F16, want, x);
			if (!same_bytes(at(h, e / N, e % N), want, 2) && bad++ < 5)
				fprintf(stderr, "f32 %08x -> f16 differs\n", (unsigned)xb);
		}
	}
	ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(elementwise_matches_reference)
{
	check_op(_i);
}
END_TEST

/* iota into every dtype: base + step * index in double, stored directly. */
START_TEST(iota_matches_reference)
{
	static const double bases[] = {0, -3.5, 1e9, 65504, 0.1};
	static const double steps[] = {1, 0.25, -7, 3e7, 1e-3};
	static unsigned char exp[128 * REG];
	int64_t cases = 0;

	for (int dd = 1; dd < KDSL_NDTYPE; dd++)
		for (size_t pi = 0; pi < sizeof part_counts / sizeof part_counts[0]; pi++, cases++) {
			int64_t np = part_counts[pi], n = free_sizes[(size_t)(cases * 5) % 14], off = cases % 3;
			double base = bases[cases % 5], step = steps[(cases / 5) % 5];
			kdsl_tile d = tile(2, np, off, n, (kdsl_dtype)dd);
			size_t ds = kdsl_dtype_size(d.dt);
			uint64_t s = (uint64_t)cases + 1;
			fill(np, n, (kdsl_dtype)dd, (kdsl_dtype)dd, (kdsl_dtype)dd, &s);
			for (int64_t p = 0; p < np; p++) {
				memcpy(exp + (size_t)p * REG, d.base + (size_t)p * sps, span(n));
				for (int64_t j = 0; j < n; j++)
					kdsl_store_value(d.dt, exp + (size_t)p * REG + (size_t)(off + j) * ds,
					                 base + step * (double)(p * n + j));
			}
			ck_assert_int_eq(kdsl_neuron_iota(rt, &site, d, base, step, KDSL_NEURON_IOTA_PSTEP_DEFAULT), KDSL_OK);
			for (int64_t p = 0; p < np; p++)
				ck_assert_msg(!memcmp(d.base + (size_t)p * sps, exp + (size_t)p * REG, span(n)),
				              "iota %s [%lld, %lld]: partition %lld differs", kdsl_dtype_name(d.dt),
				              (long long)np, (long long)n, (long long)p);
		}
}
END_TEST

/* ---- nc_matmul ---- */

/* How a matmul case's inputs are chosen. */
enum {
	MM_EDGES,    /* fill(): random bits and edge values, NaNs included (the NaN-rule kernels) */
	MM_NO_NAN,   /* the same with every NaN made an infinity of its sign (the plain kernels) */
	MM_RANDOM,   /* values of one magnitude, some -0: a sum in another order differs */
	/* mv the identity (K = N), st MM_RANDOM's values with some subnormals:
	 * the transpose's path (engine.c, mm_by_identity) */
	MM_EYE,
	MM_EYE_INF,  /* the same with one infinity or NaN in st: the block kernels */
	MM_EYE_NEAR  /* mv one element off the identity (a -0, or a 1 off the diagonal) */
};

/* Element (k, j) of t: a value for MM_RANDOM and the MM_EYE modes (1 or
 * 0 for those when t is the moving tile), or a NaN turned into an
 * infinity for MM_NO_NAN. */
static void mm_elem(kdsl_tile t, int moving, int64_t k, int64_t j, int mode, uint64_t *s)
{
	unsigned char *p = at(t, k, j);
	uint64_t r = rnd(s);
	float f = (float)(int64_t)(r >> 40) * 0x1p-23f - 1.0f;   /* [-1, 1) with 23 random bits */

	if (mode >= MM_EYE && moving) {
		kdsl_store_f32(t.dt, p, k == j ? 1.0f : 0.0f);
	} else if (mode >= MM_RANDOM) {
		if (r % 61 == 0)
			f = -0.0f;
		else if (mode >= MM_EYE && r % 7 == 0)
			f *= 0x1p-130f;   /* subnormal in f32 */
		kdsl_store_f32(t.dt, p, f);
	} else if (mode == MM_NO_NAN && isnan(kdsl_load_f32(t.dt, p))) {
		kdsl_store_f32(t.dt, p, signbit(kdsl_load_f32(t.dt, p)) ? -INFINITY : INFINITY);
	}
}

/* The psum floats around dst's rows that must not change: up to MM_PAD
 * before and after each row, and one row past the last. */
enum { MM_PAD = 72 };

/* One nc_matmul of K x M by K x N against the scalar k-order reference,
 * byte for byte: dst's M rows (then accumulate adds to what they hold),
 * and the psum floats around them untouched.  st and mv start soff and
 * moff elements into their partitions, dst doff floats into its. */
static void matmul_case(int64_t K, int64_t M, int64_t N, kdsl_dtype sd, kdsl_dtype md, int64_t acc, int mode,
                        int64_t soff, int64_t moff, int64_t doff, uint64_t *s)
{
	static float a[128 * 128], b[128 * 512], exp[129 * (512 + 2 * MM_PAD)];
	int64_t W = N + 2 * MM_PAD, rows = M < 128 ? M + 1 : M;
	kdsl_tile st = tile(0, K, soff, M, sd), mv = tile(1, K, moff, N, md);
	kdsl_tile d = kdsl_tile_of(psum, pps, (size_t)(doff + N) * 4, M, 0, M, doff, N, KDSL_MEM_PSUM, KDSL_F32);

	fill(K, (M > N ? M : N) + 2, sd, md, KDSL_F32, s);
	for (int64_t k = 0; k < K; k++) {
		for (int64_t m = 0; m < M; m++)
			mm_elem(st, 0, k, m, mode, s);
		for (int64_t j = 0; j < N; j++)
			mm_elem(mv, 1, k, j, mode, s);
	}
	if (mode == MM_EYE_INF)
		kdsl_store_f32(sd, at(st, K / 2, M / 2), K % 2 ? NAN : -INFINITY);
	if (mode == MM_EYE_NEAR)
		kdsl_store_f32(md, at(mv, K - 1, 0), K % 2 || K == 1 ? -0.0f : 1.0f);
	for (int64_t k = 0; k < K; k++) {
		for (int64_t m = 0; m < M; m++)
			a[k * M + m] = kdsl_load_f32(sd, at(st, k, m));
		for (int64_t j = 0; j < N; j++)
			b[k * N + j] = kdsl_load_f32(md, at(mv, k, j));
	}
	for (int64_t m = 0; m < rows; m++)
		for (int64_t j = 0; j < W; j++) {
			unsigned char *o = psum + (size_t)m * pps + (size_t)(doff + j - MM_PAD) * 4;
			if (j < MM_PAD - doff)
				continue;   /* before the partition */
			fill_elem(KDSL_F32, o, s);
			memcpy(&exp[m * W + j], o, 4);
		}
	for (int64_t m = 0; m < M; m++)
		for (int64_t j = 0; j < N; j++) {
			float sum = 0.0f, old = exp[m * W + MM_PAD + j];
			for (int64_t k = 0; k < K; k++) {
				float x = a[k * M + m], y = b[k * N + j];
				float prod = nan_rule(x * y, x, y);
				sum = nan_rule(sum + prod, sum, prod);
			}
			exp[m * W + MM_PAD + j] = acc ? nan_rule(old + sum, old, sum) : sum;
		}
	ck_assert_int_eq(kdsl_neuron_nc_matmul(rt, &site, d, ct(st), ct(mv), acc), KDSL_OK);
	for (int64_t m = 0; m < rows; m++) {
		int64_t j0 = doff < MM_PAD ? MM_PAD - doff : 0;
		ck_assert_msg(same_bytes(psum + (size_t)m * pps + (size_t)(doff + j0 - MM_PAD) * 4,
		                         (unsigned char *)(exp + m * W + j0), (size_t)(W - j0) * 4),
		              "matmul %s x %s K=%lld M=%lld N=%lld acc=%lld mode %d offsets %lld %lld %lld: "
		              "row %lld differs%s",
		              kdsl_dtype_name(sd), kdsl_dtype_name(md), (long long)K, (long long)M, (long long)N,
		              (long long)acc, mode, (long long)soff, (long long)moff, (long long)doff, (long long)m,
		              m == M ? " (the row after dst)" : "");
	}
}

/* nc_matmul: dst[m][n] = sum over k in order of st[k][m] * mv[k][n] in
 * f32, no fused multiply-add, from 0.0f; accumulate adds the sum to dst.
 * Every dtype pair over small shapes and the full 128x128x512. */
START_TEST(matmul_matches_reference)
{
	static const kdsl_dtype pairs[][2] = {{KDSL_F32, KDSL_F32}, {KDSL_F16, KDSL_F16}, {KDSL_BF16, KDSL_BF16},
	                                      {KDSL_F16, KDSL_BF16}, {KDSL_BF16, KDSL_F16}};
	static const int64_t Ks[] = {1, 7, 31, 128}, Ms[] = {1, 3, 4, 7, 128}, Ns[] = {1, 7, 33, 512};
	uint64_t s = 42;
	int64_t cases = 0;

	for (size_t pi = 0; pi < 5; pi++)
		for (size_t ki = 0; ki < 4; ki++)
			for (size_t mi = 0; mi < 5; mi++)
				for (size_t ni = 0; ni < 4; ni++, cases++) {
					int64_t K = Ks[ki], M = Ms[mi], N = Ns[ni];
					/* the full 128x128x512 for f32 and f16 only: the reference is slow */
					if (K * M * N > (1 << 18) && !(ki == 3 && mi == 4 && ni == 3 && pi < 2))
						continue;
					matmul_case(K, M, N, pairs[pi][0], pairs[pi][1], cases & 1, MM_EDGES, 0, cases % 3, 0, &s);
				}
}
END_TEST

/* The register blocks' edges: M, N and K of 1, 3, 5, 17, 127 and 128
 * (N also 512) cut every block shape of every isa (rows 4 or 8, vectors
 * of 4, 8 or 16 floats, 2 or 3 of them) at every kind of remainder; each
 * shape with accumulate off and on, inputs with NaNs (the NaN-rule
 * kernels) and without (the plain ones), values whose sums depend on
 * their order, f32 read in place (views off a vector boundary) and f16 or
 * bf16 converted first. */
START_TEST(matmul_block_edges)
{
	static const int64_t sizes[] = {1, 3, 5, 17, 127, 128, 512};
	static const kdsl_dtype dts[] = {KDSL_F32, KDSL_F16, KDSL_BF16};
	uint64_t s = 7;
	int64_t cases = 0;

	for (size_t ki = 0; ki < 6; ki++)
		for (size_t mi = 0; mi < 6; mi++)
			for (size_t ni = 0; ni < 7; ni++, cases++) {
				int64_t K = sizes[ki], M = sizes[mi], N = sizes[ni];
				kdsl_dtype dt = K * M * N > (1 << 20) ? KDSL_F32 : dts[cases % 3];
				/* f32 reads in place, so the plain and NaN kernels both see each shape there */
				int mode = dt == KDSL_F32 ? (int)(cases / 3 % 3) : (int)(cases % 3);
				matmul_case(K, M, N, dt, dt, cases / 2 % 2, mode, cases % 5, cases % 7, cases % 3, &s);
				if (K * M * N <= (1 << 16))
					matmul_case(K, M, N, dt, dt, !(cases / 2 % 2), (mode + 1) % 3, 1, 0, 0, &s);
			}
}
END_TEST

/* nc_matmul with its columns split among threads (kdsl_rt_set_threads)
 * gives the reference's bytes: products above the split's size with N a
 * multiple of the split's 32 columns and not, M and K cut off a block,
 * accumulate off and on, more threads than columns allow, one just above
 * the size (128x128x128, 2^21: a transpose through the PE) and one below
 * it (computed on one thread); then 1 thread again. */
START_TEST(matmul_threads_split)
{
	static const int64_t shapes[][3] = {{128, 128, 256}, {128, 127, 300}, {127, 128, 300}, {128, 128, 128},
	                                    {64, 64, 64}};
	static const int counts[] = {2, 3, 64};
	uint64_t s = 99;

	for (size_t c = 0; c < 3; c++) {
		ck_assert_int_eq(kdsl_rt_set_threads(rt, counts[c]), KDSL_OK);
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			matmul_case(shapes[i][0], shapes[i][1], shapes[i][2], KDSL_F32, KDSL_F32, (int64_t)((c + i) & 1),
			            (int)((c + i) % 3), 0, (int64_t)i, 0, &s);
	}
	ck_assert_int_eq(kdsl_rt_set_threads(rt, 1), KDSL_OK);
	matmul_case(128, 128, 256, KDSL_BF16, KDSL_BF16, 1, MM_EDGES, 0, 0, 0, &s);
}
END_TEST

/* nc_matmul(dst, x, identity), a transpose through the PE, gives the
 * reference's bytes on its own path (x finite, not accumulating: x
 * transposed, -0 made +0, subnormals kept) and off it (an infinity or a
 * NaN in x, accumulating, a moving tile one element off the identity):
 * square and not, in place and converted, on 1 and 2 threads. */
START_TEST(matmul_by_identity)
{
	static const int64_t shapes[][2] = {{1, 1}, {5, 3}, {17, 128}, {128, 128}, {128, 7}};
	static const kdsl_dtype dts[] = {KDSL_F32, KDSL_BF16, KDSL_F16};
	uint64_t s = 11;
	int64_t cases = 0;

	for (int thr = 1; thr <= 2; thr++) {
		ck_assert_int_eq(kdsl_rt_set_threads(rt, thr), KDSL_OK);
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			for (int mode = MM_EYE; mode <= MM_EYE_NEAR; mode++)
				for (int acc = 0; acc < 2; acc++, cases++) {
					int64_t K = shapes[i][0], M = shapes[i][1];
					kdsl_dtype dt = dts[cases % 3];
					matmul_case(K, M, K, dt, dt, acc, mode, cases % 5, cases % 3, cases % 4, &s);
				}
	}
	ck_assert_int_eq(kdsl_rt_set_threads(rt, 1), KDSL_OK);
}
END_TEST

/* activation's exp, log, tanh and sigmoid with rows split among threads
 * (from 2^14 elements: 128 x 128 is split, 127 x 129 is not) give the
 * reference's bytes, in place and not, for 2, 3 and 64 threads (64
 * parts of 2 rows on 128 partitions), and on 1 thread again. */
START_TEST(activation_threads_split)
{
	static const int64_t funcs[] = {KDSL_ACT_EXP, KDSL_ACT_LOG, KDSL_ACT_TANH, KDSL_ACT_SIGMOID};
	static const int64_t shapes[][3] = {{128, 512, 0}, {128, 128, 2}, {127, 129, 1}};
	static const int counts[] = {2, 3, 64, 1};
	static unsigned char exp[128 * REG];
	uint64_t s = 5;

	for (size_t c = 0; c < 4; c++) {
		ck_assert_int_eq(kdsl_rt_set_threads(rt, counts[c]), KDSL_OK);
		for (size_t f = 0; f < 4; f++)
			for (size_t i = 0; i < 3; i++) {
				int64_t np = shapes[i][0], n = shapes[i][1], off = shapes[i][2];
				int inplace = (int)((c + f + i) & 1);
				kdsl_tile d = tile(2, np, off, n, KDSL_F32), a = inplace ? d : tile(0, np, 1, n, KDSL_F32);
				fill(np, n, KDSL_F32, KDSL_F32, KDSL_F32, &s);
				reference(K_ACT, funcs[f], d, a, a, 0, exp);
				ck_assert_int_eq(run_op(K_ACT, funcs[f], d, a, a, 0), KDSL_OK);
				for (int64_t p = 0; p < np; p++)
					ck_assert_msg(same_bytes(d.base + (size_t)p * sps, exp + (size_t)p * REG, span(n)),
					              "activation %lld on %d threads, [%lld, %lld]%s: partition %lld differs",
					              (long long)funcs[f], counts[c], (long long)np, (long long)n,
					              inplace ? " in place" : "", (long long)p);
			}
	}
}
END_TEST

/* An op in place (a source that is dst itself: no snapshot, the engine
 * reads each chunk before writing it) gives the bytes the reference
 * computes from dst's values before the op: tensor_tensor with a or b as
 * dst, tensor_scalar and activation with src as dst, each dtype. */
START_TEST(in_place_matches_reference)
{
	static const int kinds[][2] = {{K_TT, 0}, {K_TT, 1}, {K_TS, 0}, {K_ACT, 0}};
	static const int64_t codes[] = {KDSL_ALU_ADD, KDSL_ALU_MULTIPLY, KDSL_ALU_DIVIDE, KDSL_ALU_MAX};
	static unsigned char exp[128 * REG];
	uint64_t s = 7;
	int64_t cases = 0;

	for (int dt = 1; dt < KDSL_NDTYPE; dt++)
		for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
			for (size_t pi = 0; pi < sizeof part_counts / sizeof part_counts[0]; pi++, cases++) {
				int kind = kinds[ki][0], bsrc = kinds[ki][1];
				int64_t np = part_counts[pi], n = free_sizes[(size_t)(cases * 5) % (np == 128 ? 14 : 26)];
				int64_t off = cases % 3, code = kind == K_ACT ? KDSL_ACT_SQUARE : codes[cases % 4];
				kdsl_tile d = tile(2, np, off, n, (kdsl_dtype)dt), o = tile(1, np, (off + 1) % 3, n, KDSL_F32);
				kdsl_tile a = bsrc ? o : d, b = bsrc ? d : o;
				double y = scalars[(size_t)cases % (sizeof scalars / sizeof scalars[0])];
				fill(np, n, (kdsl_dtype)dt, KDSL_F32, (kdsl_dtype)dt, &s);
				reference(kind, code, d, a, b, (float)y, exp);
				ck_assert_int_eq(run_op(kind, code, d, a, b, y), KDSL_OK);
				for (int64_t p = 0; p < np; p++)
					ck_assert_msg(same_bytes(d.base + (size_t)p * sps, exp + (size_t)p * REG, span(n)),
					              "in place kind %d (b is dst: %d) code %lld %s [%lld, %lld] off %lld: "
					              "partition %lld differs", kind, bsrc, (long long)code,
					              kdsl_dtype_name(d.dt), (long long)np, (long long)n, (long long)off,
					              (long long)p);
			}
}
END_TEST

/* The in-place forms with more than one step: tensor_scalar with the
 * scalar on either side and one or two operators, activation with a
 * scale and a bias; dst's values before the op are the source. */
static float ref_two_step(int act, int64_t code, int rev, int two, float x, float y)
{
	float t;
	if (act)
		return ref_act(code, ref_alu(KDSL_ALU_ADD, ref_alu(KDSL_ALU_MULTIPLY, x, y), 0.5f));
	t = rev ? ref_alu(code, y, x) : ref_alu(code, x, y);
	return two ? ref_alu(KDSL_ALU_SUBTRACT, t, 1.5f) : t;
}

START_TEST(in_place_steps_match_reference)
{
	static const kdsl_dtype dts[] = {KDSL_F32, KDSL_F16, KDSL_I32};
	static const int64_t codes[] = {KDSL_ALU_SUBTRACT, KDSL_ALU_DIVIDE, KDSL_ALU_MIN, KDSL_ALU_ADD};
	static unsigned char exp[128 * REG];
	uint64_t s = 11;
	int64_t cases = 0;

	for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++)
		for (int form = 0; form < 4; form++)   /* ts reversed, ts two operators, both, activation */
			for (size_t pi = 0; pi < sizeof part_counts / sizeof part_counts[0]; pi++, cases++) {
				int act = form == 3, rev = form == 0 || form == 2, two = form >= 1;
				int64_t np = part_counts[pi], n = free_sizes[(size_t)(cases * 3) % (np == 128 ? 14 : 26)];
				int64_t off = cases % 3, code = act ? KDSL_ACT_SQUARE : codes[cases % 4];
				kdsl_tile d = tile(2, np, off, n, dts[di]);
				size_t ds = kdsl_dtype_size(d.dt);
				float y = (float)scalars[(size_t)cases % (sizeof scalars / sizeof scalars[0])];
				int rc;
				fill(np, n, dts[di], dts[di], dts[di], &s);
				for (int64_t p = 0; p < np; p++) {
					memcpy(exp + (size_t)p * REG, d.base + (size_t)p * sps, span(n));
					for (int64_t j = 0; j < n; j++)
						kdsl_store_f32(d.dt, exp + (size_t)p * REG + (size_t)(off + j) * ds,
						               ref_two_step(act, code, rev, two, kdsl_load_f32(d.dt, at(d, p, j)), y));
				}
				if (act)
					rc = kdsl_neuron_activation(rt, &site, d, ct(d), code, kdsl_ctile_none(), 0.5,
					                            kdsl_ctile_none(), y);
				else
					rc = kdsl_neuron_tensor_scalar(rt, &site, d, ct(d), code, kdsl_ctile_none(), y, rev,
					                               two ? KDSL_ALU_SUBTRACT : KDSL_ALU_BYPASS, kdsl_ctile_none(),
					                               1.5, 0);
				ck_assert_int_eq(rc, KDSL_OK);
				for (int64_t p = 0; p < np; p++)
					ck_assert_msg(same_bytes(d.base + (size_t)p * sps, exp + (size_t)p * REG, span(n)),
					              "in place form %d code %lld %s [%lld, %lld] off %lld: partition %lld differs",
					              form, (long long)code, kdsl_dtype_name(d.dt), (long long)np, (long long)n,
					              (long long)off, (long long)p);
			}
}
END_TEST

/* tensor_reduce: element p of dst is the fold of partition p of src from
 * element 0 in f32 (add and multiply under the NaN rule at every step),
 * times -1 when negated, stored to dst's dtype.  Rows of NaN-heavy edge
 * values and rows of finite values (whose sums round at every step),
 * partition counts around the rows the engine folds together. */
static float ref_fold(int64_t op, kdsl_tile a, int64_t p, int negate)
{
	float acc = kdsl_load_f32(a.dt, at(a, p, 0));
	for (int64_t j = 1; j < a.n; j++)
		acc = ref_alu(op, acc, kdsl_load_f32(a.dt, at(a, p, j)));
	return negate ? ref_alu(KDSL_ALU_MULTIPLY, acc, -1.0f) : acc;
}

/* Finite values: multiples of 1/8 up to about 2^12 (sums that round),
 * near 1 (products that stay finite for a while), or an edge value on
 * one element in 1024 (a NaN row now and then, two payloads, inf - inf). */
static void fill_finite(kdsl_tile a, uint64_t *s)
{
	for (int64_t p = 0; p < a.np; p++)
		for (int64_t j = 0; j < a.n; j++) {
			uint64_t r = rnd(s);
			float f = (r & 1) ? (float)((int64_t)(r >> 8) % 32768 - 16384) / 8.0f
			                  : 1.0f + (float)((int64_t)(r >> 8) % 1024 - 512) / 8192.0f;
			if ((r >> 40) % 1024 == 0) {
				uint32_t u = f32_edges[(r >> 48) % 8];
				memcpy(&f, &u, 4);
			}
			kdsl_store_f32(a.dt, at(a, p, j), f);
		}
}

START_TEST(reduce_matches_reference)
{
	static const kdsl_dtype sdts[] = {KDSL_F32, KDSL_F16, KDSL_BF16, KDSL_I32};
	static const int64_t nps[] = {1, 7, 8, 9, 17, 31, 128};
	static const int64_t ops4[] = {KDSL_ALU_ADD, KDSL_ALU_MULTIPLY, KDSL_ALU_MAX, KDSL_ALU_MIN};
	uint64_t s = 99;
	int64_t cases = 0;

	for (size_t oi = 0; oi < 4; oi++)
		for (size_t si = 0; si < sizeof sdts / sizeof sdts[0]; si++)
			for (size_t pi = 0; pi < sizeof nps / sizeof nps[0]; pi++)
				for (int finite = 0; finite < 2; finite++, cases++) {
					int64_t np = nps[pi], n = free_sizes[(size_t)(cases * 7) % 26], off = cases % 3;
					int negate = (int)(cases / 2 % 2);
					kdsl_dtype dd = cases % 3 ? KDSL_F32 : KDSL_F16;
					kdsl_tile a = tile(0, np, off, n, sdts[si]), d = tile(2, np, (off + 1) % 3, 1, dd);
					unsigned char want[128][8];
					fill(np, n, sdts[si], sdts[si], dd, &s);
					if (finite)
						fill_finite(a, &s);
					for (int64_t p = 0; p < np; p++)
						kdsl_store_f32(dd, want[p], ref_fold(ops4[oi], a, p, negate));
					ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, d, ct(a), ops4[oi], negate), KDSL_OK);
					for (int64_t p = 0; p < np; p++)
						ck_assert_msg(same_bytes(at(d, p, 0), want[p], kdsl_dtype_size(dd)),
						              "reduce op %lld %s -> %s [%lld, %lld] negate %d finite %d: partition "
						              "%lld differs", (long long)ops4[oi], kdsl_dtype_name(sdts[si]),
						              kdsl_dtype_name(dd), (long long)np, (long long)n, negate, finite,
						              (long long)p);
				}
}
END_TEST

/* max and min keep the later of two equal elements (acc > x ? acc : x),
 * which only a zero's sign shows: rows whose max (min) is zero, of +0,
 * -0 and negative (positive) values in every order, at row counts around
 * the 8 the engine folds together and lengths around its 8 columns. */
START_TEST(reduce_signed_zeros)
{
	static const int64_t nps[] = {1, 8, 9, 16, 17};
	static const int64_t ns[] = {1, 2, 8, 9, 10, 17, 33};
	uint64_t s = 5;

	for (int mx = 0; mx < 2; mx++)
		for (size_t pi = 0; pi < sizeof nps / sizeof nps[0]; pi++)
			for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
				int64_t np = nps[pi], n = ns[ni], op = mx ? KDSL_ALU_MAX : KDSL_ALU_MIN;
				kdsl_tile a = tile(0, np, 1, n, KDSL_F32), d = tile(2, np, 0, 1, KDSL_F32);
				unsigned char want[32][4];
				for (int64_t p = 0; p < np; p++)
					for (int64_t j = 0; j < n; j++) {
						uint64_t r = rnd(&s) % 4;
						float f = r == 0 ? 0.0f : r == 1 ? -0.0f : (mx ? -1.0f : 1.0f) * (float)r;
						memcpy(at(a, p, j), &f, 4);
					}
				for (int64_t p = 0; p < np; p++) {
					float w = ref_fold(op, a, p, 0);
					memcpy(want[p], &w, 4);
				}
				ck_assert_int_eq(kdsl_neuron_tensor_reduce(rt, &site, d, ct(a), op, 0), KDSL_OK);
				for (int64_t p = 0; p < np; p++)
					ck_assert_msg(same_bytes(at(d, p, 0), want[p], 4), "%s [%lld, %lld]: partition %lld differs",
					              mx ? "max" : "min", (long long)np, (long long)n, (long long)p);
			}
}
END_TEST

/* nc_transpose moves bits: element (j, p) of dst is element (p, j) of
 * src for every element size, at shapes around the 4 x 4 squares and
 * 16 x 16 blocks of the engine, views off their row starts; the psum
 * bytes around dst's view are unchanged. */
START_TEST(transpose_matches_reference)
{
	static const kdsl_dtype dts[] = {KDSL_U8, KDSL_F16, KDSL_F32, KDSL_I64};
	static const int64_t shapes[][2] = {{1, 1}, {3, 5}, {4, 4}, {5, 17}, {16, 16}, {17, 33},
	                                    {128, 128}, {128, 3}, {7, 128}, {64, 100}};
	static unsigned char want[128 * REG];
	uint64_t s = 5;
	int64_t cases = 0;

	for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++)
		for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++, cases++) {
			int64_t P = shapes[si][0], N = shapes[si][1], off = cases % 3, doff = (cases + 1) % 3;
			size_t z = kdsl_dtype_size(dts[di]), row = (size_t)(P + 3) * 8 + GUARD;
			kdsl_tile a = tile(0, P, off, N, dts[di]);
			kdsl_tile d = kdsl_tile_of(psum, pps, (size_t)(doff + P) * z, N, 0, N, doff, P, KDSL_MEM_PSUM, dts[di]);
			fill(P, N, dts[di], dts[di], dts[di], &s);
			for (int64_t j = 0; j < N; j++) {
				for (size_t o = 0; o < row; o += 8) {
					uint64_t v = rnd(&s);
					memcpy(psum + (size_t)j * pps + o, &v, 8);
				}
				memcpy(want + (size_t)j * REG, psum + (size_t)j * pps, row);
				for (int64_t p = 0; p < P; p++)
					memcpy(want + (size_t)j * REG + (size_t)(doff + p) * z, at(a, p, j), z);
			}
			ck_assert_int_eq(kdsl_neuron_nc_transpose(rt, &site, d, ct(a)), KDSL_OK);
			for (int64_t j = 0; j < N; j++)
				ck_assert_msg(same_bytes(psum + (size_t)j * pps, want + (size_t)j * REG, row),
				              "transpose %s [%lld, %lld]: dst partition %lld differs", kdsl_dtype_name(dts[di]),
				              (long long)P, (long long)N, (long long)j);
		}
}
END_TEST

/* ---- the fast transcendental activations ---- */

/* The lanes of runtime/neuron_act_fast.h once more, built as this file's
 * plain code, so the exhaustive test can count the lanes its guard hands
 * to libm (the count is the same on every isa: the same IEEE steps). */
#define KN(x) t_##x
#include "../../runtime/neuron_act_fast.h"
#undef KN

/* One activation of the f32 inputs in `in` (ACT_N of them) through the
 * runtime (128 partitions x ACT_ROW elements of sbuf); the number of
 * outputs whose bytes differ from ref_act's, the first few printed. */
enum { ACT_ROW = 16384, ACT_N = 128 * ACT_ROW };

static int64_t act_mismatches(int64_t func, const uint32_t *in)
{
	kdsl_tile a = kdsl_tile_of(sbuf, sps, ACT_ROW * 4, 128, 0, 128, 0, ACT_ROW, KDSL_MEM_SBUF, KDSL_F32);
	kdsl_tile d = kdsl_tile_of(sbuf + ACT_ROW * 4, sps, ACT_ROW * 4, 128, 0, 128, 0, ACT_ROW, KDSL_MEM_SBUF,
	                           KDSL_F32);
	int64_t bad = 0;

	for (int64_t p = 0; p < 128; p++)
		memcpy(sbuf + (size_t)p * sps, in + p * ACT_ROW, ACT_ROW * 4);
	ck_assert_int_eq(act1(rt, &site, d, ct(a), func), KDSL_OK);
	for (int64_t i = 0; i < ACT_N; i++) {
		float x, r;
		uint32_t got, want;
		memcpy(&x, in + i, 4);
		r = ref_act(func, x);
		memcpy(&want, &r, 4);
		memcpy(&got, sbuf + (size_t)(i / ACT_ROW) * sps + ACT_ROW * 4 + (size_t)(i % ACT_ROW) * 4, 4);
		if (got != want && bad++ < 5)
			fprintf(stderr, "func %lld: x = %08x: got %08x, libm %08x\n", (long long)func, (unsigned)in[i],
			        (unsigned)got, (unsigned)want);
	}
	return bad;
}

static const int64_t fast_funcs[] = {KDSL_ACT_EXP, KDSL_ACT_SIGMOID, KDSL_ACT_TANH, KDSL_ACT_LOG};
static const char *const fast_names[] = {"exp", "sigmoid", "tanh", "log"};

/* Whether the guard hands x's lane of func to libm (the kernels' steps). */
static int32_t act_hard(int64_t func, float x)
{
	float c, o;
	double e;

	if (func == KDSL_ACT_LOG) {
		uint32_t u;
		memcpy(&u, &x, 4);
		return t_af_round(&o, t_af_log(u)) | (int32_t)(u - 0x00800000u >= 0x7f000000u);
	}
	if (func == KDSL_ACT_TANH) {
		t_af_abs_clamp(&c, &x, 1);
		return t_af_round(&o, t_af_tanh(c));
	}
	t_af_clamp(&c, &x, func == KDSL_ACT_SIGMOID ? -1.0f : 1.0f, 1);
	e = t_af_exp(c);
	return t_af_round(&o, func == KDSL_ACT_SIGMOID ? 1.0 / (1.0 + e) : e);
}

/* Centres of the edge runs: +-120 (the clamp), exp's f32 overflow
 * (88.72), its normal and subnormal underflow (-87.34, -103.28, -103.97),
 * sigmoid's last value below 1 (16.64), +-2^-25 and +-2^-26 (e^x rounds
 * to 1), tanh's formula switch (+-2^-4), clamp (+-20) and last value
 * below 1 (+-9.01), log's mantissa split (sqrt 2) and the normal range's
 * ends, zeros, subnormals, infinities (the run past them is NaNs). */
static const uint32_t act_centres[] = {
	0x42f00000, 0xc2f00000, 0x42b17218, 0xc2aeac50, 0xc2ce8ed0, 0xc2cff1b5, 0x41851592, 0xc1851592,
	0x33000000, 0xb3000000, 0x32800000, 0xb2800000, 0x00000000, 0x80000000, 0x00000001, 0x807fffff,
	0x7f800000, 0xff800000, 0x7fc00000, 0xffc00123, 0x3f800000, 0xbf800000, 0x3d800000, 0xbd800000,
	0x41a00000, 0xc1a00000, 0x41102cb3, 0xc1102cb3, 0x3fb504f3, 0x3f3504f3, 0x00800000, 0x7f7fffff,
};

/* Every 2^11-th f32 bit pattern (each with its own low bits) and 2^12
 * patterns either side of each edge centre: the runtime's fast exp,
 * sigmoid, tanh and log give libm's bytes under this process's KDSL_ISA. */
START_TEST(fast_act_matches_libm)
{
	static uint32_t in[ACT_N];

	for (size_t f = 0; f < sizeof fast_funcs / sizeof fast_funcs[0]; f++) {
		for (uint32_t i = 0; i < ACT_N; i++)
			in[i] = i << 11 | ((i * 0x2c9u) & 0x7ffu);
		ck_assert_int_eq(act_mismatches(fast_funcs[f], in), 0);
		for (uint32_t i = 0; i < ACT_N; i++) {
			uint32_t c = act_centres[i % (sizeof act_centres / sizeof act_centres[0])];
			uint32_t k = i / (sizeof act_centres / sizeof act_centres[0]);
			in[i] = c + (k & 1 ? k / 2 + 1 : 0u - k / 2);   /* c, c+1, c-1, c+2, ... */
		}
		ck_assert_int_eq(act_mismatches(fast_funcs[f], in), 0);
	}
}
END_TEST

/* Opt-in (KDSL_ACT_EXHAUSTIVE=1, minutes of CPU per function): all 2^32
 * inputs of exp, sigmoid, tanh and log (one loop iteration each), and the
 * number of lanes the guard hands to libm, printed.  On a loaded machine
 * run it with CK_FORK=no CK_TIMEOUT_MULTIPLIER=1000: Check cannot report
 * a forked test that ran over ~35 minutes. */
START_TEST(fast_act_exhaustive)
{
	static uint32_t in[ACT_N];
	int64_t bad = 0, hard = 0;

	if (!getenv("KDSL_ACT_EXHAUSTIVE"))
		return;
	for (uint64_t b0 = 0; b0 < (1ull << 32); b0 += ACT_N) {
		for (uint32_t i = 0; i < ACT_N; i++) {
			float x;
			in[i] = (uint32_t)b0 + i;
			memcpy(&x, in + i, 4);
			hard += act_hard(fast_funcs[_i], x);
		}
		bad += act_mismatches(fast_funcs[_i], in);
	}
	fprintf(stderr, "activation %s: %lld mismatches over 4294967296 inputs, %lld hard lanes\n", fast_names[_i],
	        (long long)bad, (long long)hard);
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* The header's kernels as this file's plain code: libm's bytes too. */
START_TEST(fast_act_plain_build)
{
	static const struct {
		void (*fn)(float *restrict, const float *restrict, int64_t);
		int64_t act;
		const char *name;
	} fns[] = {{t_act_exp, KDSL_ACT_EXP, "exp"}, {t_act_sigmoid, KDSL_ACT_SIGMOID, "sigmoid"},
	           {t_act_tanh, KDSL_ACT_TANH, "tanh"}, {t_act_log, KDSL_ACT_LOG, "log"}};
	static float x[4096], o[4096];

	for (uint32_t i = 0; i < 4096; i++) {
		uint32_t u = i * 0x100801u;
		memcpy(x + i, &u, 4);
	}
	for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
		fns[f].fn(o, x, 4096);
		for (int i = 0; i < 4096; i++)
			ck_assert_msg(!memcmp(o + i, &(float){ref_act(fns[f].act, x[i])}, 4), "%s lane %d", fns[f].name, i);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* thousands of ops each: room for the sanitizer build */
	tcase_set_timeout(tc, 100);
	tcase_add_test(tc, f16_conversions_match_definition);
	tcase_add_loop_test(tc, elementwise_matches_reference, 0, (int)(sizeof ops / sizeof ops[0]));
	tcase_add_test(tc, iota_matches_reference);
	tcase_add_test(tc, matmul_matches_reference);
	tcase_add_test(tc, matmul_block_edges);
	tcase_add_test(tc, matmul_threads_split);
	tcase_add_test(tc, matmul_by_identity);
	tcase_add_test(tc, activation_threads_split);
	tcase_add_test(tc, in_place_matches_reference);
	tcase_add_test(tc, in_place_steps_match_reference);
	tcase_add_test(tc, reduce_matches_reference);
	tcase_add_test(tc, reduce_signed_zeros);
	tcase_add_test(tc, transpose_matches_reference);
	tcase_add_test(tc, fast_act_matches_libm);
	tcase_add_test(tc, fast_act_plain_build);
	tcase_add_loop_test(tc, fast_act_exhaustive, 0, (int)(sizeof fast_funcs / sizeof fast_funcs[0]));
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
