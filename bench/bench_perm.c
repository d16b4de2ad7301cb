/* bench_perm.c: the aipu permutation ops as kdslc emits them (the kernels
 * of bench/perms.k, generated at build time) against the same shuffle
 * written by hand with GCC vector extensions, a scalar C loop and numpy.
 * Each call loads two i32x8 vectors, permutes and stores, so both sides do
 * the same memory traffic; times are ns per call.  The loop rows time the
 * op itself, ns per op: n dependent applications in one call (numpy: the
 * same n steps in a Python loop, bench/numpy_ops.py's perm_loops).  The
 * stream rows run a kernel over 1M i32 (4 MiB, bench/perms.k's s_perm)
 * against memcpy of the same bytes and the loop by hand three ways. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "perms.h"

typedef int32_t v8 __attribute__((vector_size(32)));
typedef int32_t v16 __attribute__((vector_size(64)));

#define NOINLINE __attribute__((noinline))

#define HAND2(NAME, ...)                                                   \
	NOINLINE static void NAME(const int32_t *x, const int32_t *y, int32_t *r) \
	{                                                                      \
		v8 a, b, o;                                                        \
		memcpy(&a, x, sizeof a);                                           \
		memcpy(&b, y, sizeof b);                                           \
		o = __builtin_shufflevector(a, b, __VA_ARGS__);                    \
		memcpy(r, &o, sizeof o);                                           \
	}

NOINLINE static void h_vzip(const int32_t *x, const int32_t *y, int32_t *r)
{
	v8 a, b;
	v16 o;
	memcpy(&a, x, sizeof a);
	memcpy(&b, y, sizeof b);
	o = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
	memcpy(r, &o, sizeof o);
}
HAND2(h_vconcat, 0, 2, 4, 6, 8, 10, 12, 14)
HAND2(h_vsel, 0, 1, 10, 11, 4, 5, 6, 15)
HAND2(h_vsldl, 3, 4, 5, 6, 7, 8, 9, 10)
HAND2(h_vcompc, 0, 1, 3, 5, 8, 9, 10, 11)

NOINLINE static void h_vsplit(const int32_t *x, const int32_t *y, int32_t *r)
{
	v16 a;
	v8 o;
	(void)y;
	memcpy(&a, x, sizeof a);
	o = __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
	memcpy(r, &o, sizeof o);
}

#define HAND1(NAME, ...)                                                   \
	NOINLINE static void NAME(const int32_t *x, const int32_t *y, int32_t *r) \
	{                                                                      \
		v8 a, z = {0}, o;                                                  \
		(void)y;                                                           \
		memcpy(&a, x, sizeof a);                                           \
		o = __builtin_shufflevector(a, z, __VA_ARGS__);                    \
		memcpy(r, &o, sizeof o);                                           \
	}
HAND1(h_vrevs, 7, 6, 5, 4, 3, 2, 1, 0)
HAND1(h_vshfl, 2, 3, 4, 5, 6, 7, 0, 1)
HAND1(h_vreplic, 3, 3, 3, 3, 3, 3, 3, 3)
HAND1(h_vcompt, 0, 1, 4, 5, 6, 8, 8, 8)
HAND1(h_copy, 0, 1, 2, 3, 4, 5, 6, 7)

/* The scalar loop: an index table, one lane at a time (-1: zero). */
NOINLINE static void scalar_perm(const int32_t *x, const int32_t *y, int32_t *r, const int *idx, int n)
{
	int i;
	for (i = 0; i < n; i++)
		r[i] = idx[i] < 0 ? 0 : idx[i] < 8 ? x[idx[i]] : y[idx[i] - 8];
}

typedef struct {
	const char *name;
	int two;   /* the kernel takes x and y */
	int (*k1)(kdsl_rt *, const int32_t *, int32_t *);
	int (*k2)(kdsl_rt *, const int32_t *, const int32_t *, int32_t *);
	void (*hand)(const int32_t *, const int32_t *, int32_t *);
	int n;
	int idx[16];
} perm;

static const perm perms[] = {
	{"vzip", 1, NULL, p_vzip, h_vzip, 16, {0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}},
	{"vconcat even", 1, NULL, p_vconcat, h_vconcat, 8, {0, 2, 4, 6, 8, 10, 12, 14}},
	{"vsplit", 0, p_vsplit, NULL, h_vsplit, 8, {8, 9, 10, 11, 12, 13, 14, 15}},
	{"vrevs", 0, p_vrevs, NULL, h_vrevs, 8, {7, 6, 5, 4, 3, 2, 1, 0}},
	{"vsel const", 1, NULL, p_vsel, h_vsel, 8, {0, 1, 10, 11, 4, 5, 6, 15}},
	{"vshfl 2", 0, p_vshfl, NULL, h_vshfl, 8, {2, 3, 4, 5, 6, 7, 0, 1}},
	{"vsldl 3", 1, NULL, p_vsldl, h_vsldl, 8, {3, 4, 5, 6, 7, 8, 9, 10}},
	{"vreplic 3", 0, p_vreplic, NULL, h_vreplic, 8, {3, 3, 3, 3, 3, 3, 3, 3}},
	{"vcompt const", 0, p_vcompt, NULL, h_vcompt, 8, {0, 1, 4, 5, 6, -1, -1, -1}},
	{"vcompc const", 1, NULL, p_vcompc, h_vcompc, 8, {0, 1, 3, 5, 8, 9, 10, 11}},
	/* the frame every kernel call pays: no permutation at all */
	{"(kernel call, no op)", 0, p_copy, NULL, h_copy, 8, {0, 1, 2, 3, 4, 5, 6, 7}},
};

typedef struct {
	const perm *p;
	kdsl_rt *rt;
	int32_t x[16], y[8], r[16];
} perm_ctx;

/* One routine per kernel signature, so the timed call has no branch on
 * the signature the hand-written side does not have. */
static void run_kernel1(void *v)
{
	perm_ctx *c = v;
	c->p->k1(c->rt, c->x, c->r);
	bench_sink(c->r);
}

static void run_kernel2(void *v)
{
	perm_ctx *c = v;
	c->p->k2(c->rt, c->x, c->y, c->r);
	bench_sink(c->r);
}

static void run_kernel(void *v)
{
	perm_ctx *c = v;
	if (c->p->two)
		run_kernel2(c);
	else
		run_kernel1(c);
}

static void run_hand(void *v)
{
	perm_ctx *c = v;
	c->p->hand(c->x, c->y, c->r);
	bench_sink(c->r);
}

static void run_scalar(void *v)
{
	perm_ctx *c = v;
	scalar_perm(c->x, c->y, c->r, c->p->idx, c->p->n);
	bench_sink(c->r);
}

/* ---- the ops in a loop: n dependent applications per call ---- */

#define LOOPS 1000

#define HAND_LOOP(NAME, ...)                                                            \
	NOINLINE static void NAME(const int32_t *x, const int32_t *y, int32_t *r, int n)    \
	{                                                                                   \
		v8 a, b;                                                                        \
		memcpy(&a, x, sizeof a);                                                        \
		memcpy(&b, y, sizeof b);                                                        \
		for (int i = 0; i < n; i++)                                                     \
			a = __builtin_shufflevector(a, b, __VA_ARGS__);                             \
		memcpy(r, &a, sizeof a);                                                        \
	}
HAND_LOOP(hl_vrevs, 7, 6, 5, 4, 3, 2, 1, 0)
HAND_LOOP(hl_vshfl, 2, 3, 4, 5, 6, 7, 0, 1)
HAND_LOOP(hl_vreplic, 3, 3, 3, 3, 3, 3, 3, 3)
HAND_LOOP(hl_vzip, 0, 8, 1, 9, 2, 10, 3, 11)
HAND_LOOP(hl_vconcat, 0, 2, 4, 6, 8, 10, 12, 14)
HAND_LOOP(hl_vsel, 8, 9, 2, 3, 12, 13, 14, 7)
HAND_LOOP(hl_vsldl, 3, 4, 5, 6, 7, 8, 9, 10)

/* The same loops as someone writes them for SSE2 who knows that gcc
 * without -march lowers 32-byte shuffles lane by lane: each 16-byte half
 * of the result one __builtin_shufflevector of 16-byte halves (a0 a1: the
 * vector, b0 b1: the other operand).  LO and HI read the old halves. */
typedef int32_t v4 __attribute__((vector_size(16)));
#define SH(...) __builtin_shufflevector(__VA_ARGS__)
#define HAND_LOOP16(NAME, LO, HI)                                                       \
	NOINLINE static void NAME(const int32_t *x, const int32_t *y, int32_t *r, int n)    \
	{                                                                                   \
		v4 a0, a1, b0, b1, t;                                                           \
		memcpy(&a0, x, sizeof a0);                                                      \
		memcpy(&a1, x + 4, sizeof a1);                                                  \
		memcpy(&b0, y, sizeof b0);                                                      \
		memcpy(&b1, y + 4, sizeof b1);                                                  \
		(void)b0;                                                                       \
		(void)b1;                                                                       \
		for (int i = 0; i < n; i++) {                                                   \
			t = LO;                                                                     \
			a1 = HI;                                                                    \
			a0 = t;                                                                     \
		}                                                                               \
		memcpy(r, &a0, sizeof a0);                                                      \
		memcpy(r + 4, &a1, sizeof a1);                                                  \
	}
HAND_LOOP16(hh_vrevs, SH(a1, a1, 3, 2, 1, 0), SH(a0, a0, 3, 2, 1, 0))
HAND_LOOP16(hh_vshfl, SH(a0, a1, 2, 3, 4, 5), SH(a1, a0, 2, 3, 4, 5))
HAND_LOOP16(hh_vreplic, SH(a0, a0, 3, 3, 3, 3), SH(a0, a0, 3, 3, 3, 3))
HAND_LOOP16(hh_vzip, SH(a0, b0, 0, 4, 1, 5), SH(a0, b0, 2, 6, 3, 7))
HAND_LOOP16(hh_vconcat, SH(a0, a1, 0, 2, 4, 6), SH(b0, b1, 0, 2, 4, 6))
HAND_LOOP16(hh_vsel, SH(b0, a0, 0, 1, 6, 7), SH(b1, a1, 0, 1, 2, 7))
HAND_LOOP16(hh_vsldl, SH(a0, a1, 3, 4, 5, 6), SH(a1, b0, 3, 4, 5, 6))

typedef struct {
	const char *name, *key;   /* key: bench/numpy_ops.py's timing of the same loop */
	int (*k1)(kdsl_rt *, const int32_t *, int32_t *, int32_t);
	int (*k2)(kdsl_rt *, const int32_t *, const int32_t *, int32_t *, int32_t);
	void (*hand)(const int32_t *, const int32_t *, int32_t *, int);
	void (*hand16)(const int32_t *, const int32_t *, int32_t *, int);   /* by 16-byte halves */
} loop_perm;

static const loop_perm loops[] = {
	{"vrevs, in a loop", "perm_loop/vrevs", l_vrevs, NULL, hl_vrevs, hh_vrevs},
	{"vshfl 2, in a loop", "perm_loop/vshfl_2", l_vshfl, NULL, hl_vshfl, hh_vshfl},
	{"vreplic 3, in a loop", "perm_loop/vreplic_3", l_vreplic, NULL, hl_vreplic, hh_vreplic},
	{"vzip low, in a loop", "perm_loop/vzip_low", NULL, l_vzip, hl_vzip, hh_vzip},
	{"vconcat even, in a loop", "perm_loop/vconcat_even", NULL, l_vconcat, hl_vconcat, hh_vconcat},
	{"vsel const, in a loop", "perm_loop/vsel_const", NULL, l_vsel, hl_vsel, hh_vsel},
	{"vsldl 3, in a loop", "perm_loop/vsldl_3", NULL, l_vsldl, hl_vsldl, hh_vsldl},
};

typedef struct {
	const loop_perm *p;
	kdsl_rt *rt;
	int n;
	int32_t x[8], y[8], r[8];
} loop_ctx;

static void loop_kernel(void *v)
{
	loop_ctx *c = v;
	if (c->p->k1)
		c->p->k1(c->rt, c->x, c->r, c->n);
	else
		c->p->k2(c->rt, c->x, c->y, c->r, c->n);
	bench_sink(c->r);
}

static void loop_hand(void *v)
{
	loop_ctx *c = v;
	c->p->hand(c->x, c->y, c->r, c->n);
	bench_sink(c->r);
}

static void loop_hand16(void *v)
{
	loop_ctx *c = v;
	c->p->hand16(c->x, c->y, c->r, c->n);
	bench_sink(c->r);
}

static void bench_loops(kdsl_rt *rt)
{
	size_t i;
	int j, n;

	for (i = 0; i < sizeof loops / sizeof loops[0]; i++) {
		loop_ctx c;
		char name[96];
		int32_t want[8];
		bench_row r;
		bench_fn fns[2];
		bench_time t[2];
		int ok = 1;

		memset(&c, 0, sizeof c);
		c.p = &loops[i];
		c.rt = rt;
		for (j = 0; j < 8; j++) {
			c.x[j] = 10 + j;
			c.y[j] = 100 + j;
		}
		for (n = 0; n < 6 && ok; n++) {
			c.n = n;
			loop_kernel(&c);
			memcpy(want, c.r, sizeof want);
			loop_hand(&c);
			ok = !memcmp(want, c.r, sizeof want);
			loop_hand16(&c);
			ok &= !memcmp(want, c.r, sizeof want);
		}
		if (!ok) {
			fprintf(stderr, "kdsl-bench: the hand-written loop of %s differs from the kernel\n", c.p->name);
			continue;
		}
		c.n = LOOPS;
		memset(&r, 0, sizeof r);
		r.op = "aipu permutation (ns per op)";
		r.variant = c.p->name;
		r.numpy_ns = bench_numpy(c.p->key);
		fns[0] = loop_kernel;
		fns[1] = loop_hand;
		bench_runs(fns, 2, &c, t);
		r.kdsl = t[0];
		r.hand = t[1];
		r.kdsl.med_ns /= LOOPS;
		r.hand.med_ns /= LOOPS;
		bench_print_row(&r);
		/* the same kernel against the hand-written 16-byte halves */
		snprintf(name, sizeof name, "%s, hand by 16-byte halves", c.p->name);
		r.variant = name;
		fns[1] = loop_hand16;
		bench_runs(fns, 2, &c, t);
		r.kdsl = t[0];
		r.hand = t[1];
		r.kdsl.med_ns /= LOOPS;
		r.hand.med_ns /= LOOPS;
		bench_print_row(&r);
	}
}

/* ---- a streaming loop: 1M i32 through vzip, vconcat, vrevs and vsel ---- */

#define STREAM_N (1 << 20)   /* elements: bench/perms.k's s_perm */

/* The same loop by hand, three ways, each computing what s_perm does:
 * 16 elements a step, two i32x8 vectors a and b,
 *   r[0..8]  = vsel(vzip(a, b, "low"), vrevs(vconcat(a, b, "odd")), "TTFFTTTF")
 *   r[8..16] = vsel(vrevs(a), vzip(a, b, "high"), "FTFTFTFT").
 * 1. the ops on 32-byte GNU vectors, as the ops read (gcc without -march
 *    lowers each 32-byte shuffle lane by lane through the stack); */
NOINLINE static void hs_v8(const int32_t *x, int32_t *r)
{
	for (long i = 0; i < STREAM_N; i += 16) {
		v8 a, b, z, e, re, o0, ra, zh, o1;
		memcpy(&a, x + i, sizeof a);
		memcpy(&b, x + i + 8, sizeof b);
		z = SH(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
		e = SH(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
		re = SH(e, e, 7, 6, 5, 4, 3, 2, 1, 0);
		o0 = SH(z, re, 0, 1, 10, 11, 4, 5, 6, 15);
		ra = SH(a, a, 7, 6, 5, 4, 3, 2, 1, 0);
		zh = SH(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
		o1 = SH(ra, zh, 8, 1, 10, 3, 12, 5, 14, 7);
		memcpy(r + i, &o0, sizeof o0);
		memcpy(r + i + 8, &o1, sizeof o1);
	}
}

/* 2. the same ops on 16-byte halves, one shuffle per half and op (gcc
 *    merges shuffles it then cannot do in one SSE2 instruction and moves
 *    their lanes through the stack); */
NOINLINE static void hs_v4(const int32_t *x, int32_t *r)
{
	for (long i = 0; i < STREAM_N; i += 16) {
		v4 a0, a1, b0, b1;
		memcpy(&a0, x + i, sizeof a0);
		memcpy(&a1, x + i + 4, sizeof a1);
		memcpy(&b0, x + i + 8, sizeof b0);
		memcpy(&b1, x + i + 12, sizeof b1);
		v4 z0 = SH(a0, b0, 0, 4, 1, 5), z1 = SH(a0, b0, 2, 6, 3, 7);
		v4 e0 = SH(a0, a1, 1, 3, 5, 7), e1 = SH(b0, b1, 1, 3, 5, 7);
		v4 re0 = SH(e1, e1, 3, 2, 1, 0), re1 = SH(e0, e0, 3, 2, 1, 0);
		v4 o0 = SH(z0, re0, 0, 1, 6, 7), o1 = SH(z1, re1, 0, 1, 2, 7);
		v4 ra0 = SH(a1, a1, 3, 2, 1, 0), ra1 = SH(a0, a0, 3, 2, 1, 0);
		v4 zh0 = SH(a1, b1, 0, 4, 1, 5), zh1 = SH(a1, b1, 2, 6, 3, 7);
		v4 o2 = SH(ra0, zh0, 4, 1, 6, 3), o3 = SH(ra1, zh1, 4, 1, 6, 3);
		memcpy(r + i, &o0, sizeof o0);
		memcpy(r + i + 4, &o1, sizeof o1);
		memcpy(r + i + 8, &o2, sizeof o2);
		memcpy(r + i + 12, &o3, sizeof o3);
	}
}

/* 3. the best found: the ops composed by hand into the lanes each output
 *    half takes from a and b, (a0 b0 b3 b1) (a2 b2 a3 a1) (a4 a6 a5 a4)
 *    (a6 a2 a7 a0), each one or two SSE2 shuffles (shufps, pshufd), and b1,
 *    which no output lane reads, not loaded. */
NOINLINE static void hs_best(const int32_t *x, int32_t *r)
{
	for (long i = 0; i < STREAM_N; i += 16) {
		v4 a0, a1, b0, t, o0, o1, o2, o3;
		memcpy(&a0, x + i, sizeof a0);
		memcpy(&a1, x + i + 4, sizeof a1);
		memcpy(&b0, x + i + 8, sizeof b0);
		t = SH(a0, b0, 0, 0, 4, 4);
		o0 = SH(t, b0, 0, 2, 7, 5);
		t = SH(a0, b0, 2, 2, 6, 6);
		o1 = SH(t, a0, 0, 2, 7, 5);
		o2 = SH(a1, a1, 0, 2, 1, 0);
		t = SH(a1, a0, 2, 3, 6, 4);
		o3 = SH(t, t, 0, 2, 1, 3);
		memcpy(r + i, &o0, sizeof o0);
		memcpy(r + i + 4, &o1, sizeof o1);
		memcpy(r + i + 8, &o2, sizeof o2);
		memcpy(r + i + 12, &o3, sizeof o3);
	}
}

typedef struct {
	kdsl_rt *rt;
	int32_t *x, *r;
} stream_ctx;

static void stream_kernel(void *v)
{
	stream_ctx *c = v;
	s_perm(c->rt, c->x, c->r);
	bench_sink(c->r);
}

static void stream_memcpy(void *v)
{
	stream_ctx *c = v;
	memcpy(c->r, c->x, (size_t)STREAM_N * 4);
	bench_sink(c->r);
}

#define STREAM_HAND(NAME, FN)                 \
	static void NAME(void *v)                 \
	{                                         \
		stream_ctx *c = v;                    \
		FN(c->x, c->r);                       \
		bench_sink(c->r);                     \
	}
STREAM_HAND(stream_v8, hs_v8)
STREAM_HAND(stream_v4, hs_v4)
STREAM_HAND(stream_best, hs_best)

/* Times each of n routines STREAM_REPS times, one call at a time, the
 * routines in turn: a call is ~0.2-1 ms, and on a shared machine the
 * median single call is one that ran undisturbed, where bench_runs'
 * 2 ms repetitions of a few calls each were mostly interrupted (spreads
 * of 100%-1000% with load 12 on 2 cores). */
#define STREAM_REPS 51
static void stream_runs(const bench_fn *fns, int n, void *ctx, bench_time *out)
{
	static double t[5][STREAM_REPS];
	int r, k;

	for (k = 0; k < n; k++)
		fns[k](ctx);   /* warm: pages and caches */
	for (r = 0; r < STREAM_REPS; r++)
		for (k = 0; k < n; k++) {
			double t0 = bench_now_ns();
			fns[k](ctx);
			t[k][r] = bench_now_ns() - t0;
		}
	for (k = 0; k < n; k++) {
		qsort(t[k], STREAM_REPS, sizeof t[k][0], bench_cmp_double);
		out[k].med_ns = t[k][STREAM_REPS / 2];
		out[k].spread = (t[k][STREAM_REPS * 3 / 4] - t[k][STREAM_REPS / 4]) / out[k].med_ns;
	}
}

/* The streaming rows: kdsl, memcpy of the same 4 MiB and the three loops by
 * hand, their calls interleaved; one row per hand-written loop.  (The
 * spread column of these rows is the interquartile range.) */
static void bench_stream(kdsl_rt *rt)
{
	static const bench_fn fns[] = {stream_kernel, stream_memcpy, stream_v8, stream_v4, stream_best};
	static const char *const names[] = {"1M i32 stream, hand: 32-byte vectors",
	                                    "1M i32 stream, hand: 16-byte halves op by op",
	                                    "1M i32 stream, hand: composed 16-byte shuffles (best)"};
	size_t bytes = (size_t)STREAM_N * 4;
	stream_ctx c = {rt, bench_buf(bytes, 11), bench_buf(bytes, 12)};
	int32_t *want = bench_buf(bytes, 13);
	bench_time t[5];
	int k;

	stream_kernel(&c);
	memcpy(want, c.r, bytes);
	for (k = 2; k < 5; k++) {
		memset(c.r, 0, bytes);
		fns[k](&c);
		if (memcmp(want, c.r, bytes)) {
			fprintf(stderr, "kdsl-bench: the hand-written stream loop %d differs from the kernel\n", k - 1);
			goto out;
		}
	}
	stream_runs(fns, 5, &c, t);
	for (k = 0; k < 3; k++) {
		bench_row r;
		memset(&r, 0, sizeof r);
		r.op = "aipu permutation";
		r.variant = names[k];
		r.bytes = bytes;
		r.kdsl = t[0];
		r.memcpy_ = t[1];
		r.hand = t[2 + k];
		bench_print_row(&r);
	}
out:
	free(c.x);
	free(c.r);
	free(want);
}

void bench_perms(int quick)
{
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	size_t i;
	int j;

	(void)quick;
	for (i = 0; i < sizeof perms / sizeof perms[0]; i++) {
		perm_ctx c;
		int32_t want[16];
		bench_row r;
		bench_fn fns[3];
		bench_time t[3];
		char key[96];

		memset(&c, 0, sizeof c);
		c.p = &perms[i];
		c.rt = rt;
		for (j = 0; j < 16; j++)
			c.x[j] = 10 + j;
		for (j = 0; j < 8; j++)
			c.y[j] = 100 + j;
		/* the hand-written shuffle must compute what the kernel does */
		run_kernel(&c);
		memcpy(want, c.r, sizeof want);
		memset(c.r, 0, sizeof c.r);
		run_hand(&c);
		if (memcmp(want, c.r, (size_t)c.p->n * 4)) {
			fprintf(stderr, "kdsl-bench: the hand-written %s differs from the kernel\n", c.p->name);
			continue;
		}
		memset(&r, 0, sizeof r);
		r.op = "aipu permutation";
		r.variant = c.p->name;
		fns[0] = c.p->two ? run_kernel2 : run_kernel1;
		fns[1] = run_hand;
		fns[2] = run_scalar;
		bench_runs(fns, 3, &c, t);
		r.kdsl = t[0];
		r.hand = t[1];
		r.scalar = t[2];
		snprintf(key, sizeof key, "perm/%s", c.p->name);
		for (j = 0; key[j]; j++)
			if (key[j] == ' ')
				key[j] = '_';
		r.numpy_ns = bench_numpy(key);
		bench_print_row(&r);
	}
	bench_loops(rt);
	bench_stream(rt);
	kdsl_rt_destroy(rt);
}
