/* bench_engine.c: the neuron engine ops (tensor_tensor, tensor_scalar,
 * activation, a converting tensor_copy, nc_matmul followed by an
 * activation) on [128, F] sbuf tiles, each against memcpy of the bytes
 * written, a plain scalar C loop, the same loop written for speed (restrict,
 * -O3, the widest vectors this CPU has, as the runtime dispatches) over
 * packed buffers, and numpy (bench/numpy_ops.py, keys "engine/..." and
 * "nc_matmul/..."). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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

#define PART 128
#define MM_K 128
#define MM_M 128
#define MM_N 512

#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((noinline, optimize("no-tree-loop-distribute-patterns", "no-tree-vectorize")))
#define HAND __attribute__((noinline, optimize("O3", "fp-contract=off")))
#else
#define SCALAR __attribute__((noinline))
#define HAND __attribute__((noinline))
#endif

static const kdsl_site site = {"bench", 0, 0, "bench"};

enum { E_ADD, E_SCALAR_MUL, E_ACT_COPY, E_ACT_RELU, E_ACT_EXP, E_CVT_F16, E_MATMUL, E_NOPS };

static const struct {
	const char *op, *variant, *key;
} rows[E_NOPS] = {
	{"tensor_tensor", "add, f32", "tensor_tensor_add"},
	{"tensor_scalar", "multiply, f32", "tensor_scalar_mul"},
	{"activation", "copy, f32", "activation_copy"},
	{"activation", "relu, f32", "activation_relu"},
	{"activation", "exp, f32", "activation_exp"},
	{"tensor_copy", "f32 to f16", "tensor_copy_f16"},
	{"nc_matmul + activation", "128x128x512 f32, then copy psum to sbuf", "nc_matmul"},
};

typedef struct {
	kdsl_rt *rt;
	unsigned char *sbuf, *psum;
	float *a, *b, *o;   /* packed baseline buffers */
	size_t pbytes, psbytes;
	int64_t n;          /* elements per partition */
	int op;
} eng_ctx;

static void must(kdsl_rt *rt, int rc)
{
	if (rc) {
		fprintf(stderr, "kdsl-bench: op failed: %s\n", kdsl_rt_last_error(rt));
		exit(1);
	}
}

static size_t align64(size_t x)
{
	return (x + 63) & ~(size_t)63;
}

/* Tile t (0 a, 1 b, 2 dst) of [128, n] elements of dt, packed in each
 * partition the way kdslc's allocation places three declared tiles. */
static kdsl_tile sb(const eng_ctx *c, int t, kdsl_dtype dt)
{
	size_t off = (size_t)t * align64((size_t)c->n * 4);
	return kdsl_tile_of(c->sbuf + off, c->pbytes, (size_t)c->n * kdsl_dtype_size(dt), PART, 0, PART, 0, c->n,
	                    KDSL_MEM_SBUF, dt);
}

static kdsl_ctile csb(const eng_ctx *c, int t, kdsl_dtype dt)
{
	kdsl_tile x = sb(c, t, dt);
	return kdsl_ctile_of(x.base, x.pstride, x.pbytes, x.nparts, x.p0, x.np, x.off, x.n, x.mem, x.dt);
}

static void eng_kdsl(void *p)
{
	eng_ctx *c = p;
	kdsl_rt *rt = c->rt;

	switch (c->op) {
	case E_ADD:
		must(rt, kdsl_neuron_tensor_tensor(rt, &site, sb(c, 2, KDSL_F32), csb(c, 0, KDSL_F32), csb(c, 1, KDSL_F32),
		                                   KDSL_ALU_ADD));
		break;
	case E_SCALAR_MUL:
		must(rt, ts1(rt, &site, sb(c, 2, KDSL_F32), csb(c, 0, KDSL_F32), KDSL_ALU_MULTIPLY,
		                                   1.5));
		break;
	case E_ACT_COPY:
	case E_ACT_RELU:
	case E_ACT_EXP:
		must(rt, act1(rt, &site, sb(c, 2, KDSL_F32), csb(c, 0, KDSL_F32),
		              c->op == E_ACT_COPY ? KDSL_ACT_COPY : c->op == E_ACT_RELU ? KDSL_ACT_RELU : KDSL_ACT_EXP));
		break;
	case E_CVT_F16:
		must(rt, kdsl_neuron_tensor_copy(rt, &site, sb(c, 2, KDSL_F16), csb(c, 0, KDSL_F32)));
		break;
	default: {
		/* stationary [K, M] and moving [K, N] in sbuf, dst [M, N] in psum,
		 * then the activation that takes the result back to sbuf */
		kdsl_ctile st = kdsl_ctile_of(c->sbuf, c->pbytes, MM_M * 4, PART, 0, MM_K, 0, MM_M, KDSL_MEM_SBUF, KDSL_F32);
		kdsl_ctile mv = kdsl_ctile_of(c->sbuf + MM_M * 4, c->pbytes, MM_N * 4, PART, 0, MM_K, 0, MM_N,
		                              KDSL_MEM_SBUF, KDSL_F32);
		kdsl_tile ps = kdsl_tile_of(c->psum, c->psbytes, MM_N * 4, PART, 0, MM_M, 0, MM_N, KDSL_MEM_PSUM, KDSL_F32);
		kdsl_ctile cps = kdsl_ctile_of(c->psum, c->psbytes, MM_N * 4, PART, 0, MM_M, 0, MM_N, KDSL_MEM_PSUM,
		                               KDSL_F32);
		kdsl_tile out = kdsl_tile_of(c->sbuf + (MM_M + MM_N) * 4, c->pbytes, MM_N * 4, PART, 0, MM_M, 0, MM_N,
		                             KDSL_MEM_SBUF, KDSL_F32);
		must(rt, kdsl_neuron_nc_matmul(rt, &site, ps, st, mv, 0));
		must(rt, act1(rt, &site, out, cps, KDSL_ACT_COPY));
	}
	}
	bench_sink(c->sbuf);
}

/* The bytes the op writes (matmul: its psum result and the copy). */
static size_t out_bytes(const eng_ctx *c)
{
	if (c->op == E_MATMUL)
		return 2 * (size_t)MM_M * MM_N * 4;
	return (size_t)c->n * PART * (c->op == E_CVT_F16 ? 2 : 4);
}

static void eng_memcpy(void *p)
{
	eng_ctx *c = p;
	memcpy(c->o, c->a, out_bytes(c));
	bench_sink(c->o);
}

/* The loops, in two builds: the scalar one a person writes first and the
 * fast one (restrict, vectorised).  n: elements; matmul: [M, N] from
 * a [K, M] and b [K, N], k in order, no FMA, then copied to o + M*N. */
#define ENGINE_LOOPS(PFX, ATTR, RESTRICT)                                                          \
	ATTR static void PFX##_add(float *RESTRICT o, const float *RESTRICT a, const float *RESTRICT b, \
	                           size_t n)                                                           \
	{                                                                                              \
		for (size_t j = 0; j < n; j++)                                                             \
			o[j] = a[j] + b[j];                                                                    \
	}                                                                                              \
	ATTR static void PFX##_smul(float *RESTRICT o, const float *RESTRICT a, size_t n)              \
	{                                                                                              \
		for (size_t j = 0; j < n; j++)                                                             \
			o[j] = a[j] * 1.5f;                                                                    \
	}                                                                                              \
	ATTR static void PFX##_copy(float *RESTRICT o, const float *RESTRICT a, size_t n)              \
	{                                                                                              \
		for (size_t j = 0; j < n; j++)                                                             \
			o[j] = a[j];                                                                           \
	}                                                                                              \
	ATTR static void PFX##_relu(float *RESTRICT o, const float *RESTRICT a, size_t n)              \
	{                                                                                              \
		for (size_t j = 0; j < n; j++)                                                             \
			o[j] = a[j] > 0 ? a[j] : 0;                                                            \
	}                                                                                              \
	/* kdsl's exp by its definition, libm per element (no vector loop gives these bits) */       \
	ATTR static void PFX##_exp(float *RESTRICT o, const float *RESTRICT a, size_t n)               \
	{                                                                                              \
		for (size_t j = 0; j < n; j++)                                                             \
			o[j] = (float)exp((double)a[j]);                                                       \
	}                                                                                              \
	ATTR static void PFX##_matmul(float *RESTRICT o, const float *RESTRICT a, const float *RESTRICT b) \
	{                                                                                              \
		for (size_t m = 0; m < MM_M; m++) {                                                        \
			float *RESTRICT r = o + m * MM_N;                                                      \
			for (size_t j = 0; j < MM_N; j++)                                                      \
				r[j] = 0;                                                                          \
			for (size_t k = 0; k < MM_K; k++)                                                      \
				for (size_t j = 0; j < MM_N; j++)                                                  \
					r[j] += a[k * MM_M + m] * b[k * MM_N + j];                                     \
		}                                                                                          \
		for (size_t j = 0; j < (size_t)MM_M * MM_N; j++)                                           \
			o[MM_M * MM_N + j] = o[j];                                                             \
	}

#define NOATTR
ENGINE_LOOPS(scalar, SCALAR, )
#if HAND_X86
ENGINE_LOOPS(hand_base, HAND, restrict)
ENGINE_LOOPS(hand_avx2, HAND __attribute__((target("avx2"))), restrict)
ENGINE_LOOPS(hand_avx512, HAND __attribute__((target("avx512f,avx512bw"))), restrict)
#else
ENGINE_LOOPS(hand_base, HAND, restrict)
#endif

/* The f32 -> f16 conversion through GCC's _Float16 (a GNU extension in
 * C11): the scalar loop, and by hand with F16C's conversion instruction
 * where the CPU has it (what a person writes for speed on x86). */
#if defined(__FLT16_MAX__) && defined(__GNUC__) && !defined(__clang__)
__extension__ typedef _Float16 f16_t;
SCALAR static void scalar_f16(f16_t *o, const float *a, size_t n)
{
	for (size_t j = 0; j < n; j++)
		o[j] = (f16_t)a[j];
}
#if HAND_X86
HAND __attribute__((target("avx2,f16c"))) static void hand_f16_f16c(f16_t *restrict o, const float *restrict a,
                                                                    size_t n)
{
	for (size_t j = 0; j < n; j++)
		o[j] = (f16_t)a[j];
}
#endif
HAND static void hand_f16_base(f16_t *restrict o, const float *restrict a, size_t n)
{
	for (size_t j = 0; j < n; j++)
		o[j] = (f16_t)a[j];
}
static void hand_f16(f16_t *o, const float *a, size_t n)
{
#if HAND_X86
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) {
		hand_f16_f16c(o, a, n);
		return;
	}
#endif
	hand_f16_base(o, a, n);
}
#define HAVE_F16 1
#else
#define HAVE_F16 0
#endif

#define DISPATCH(PFX, c)                                                                          \
	do {                                                                                          \
		size_t n_ = (size_t)(c)->n * PART;                                                        \
		switch ((c)->op) {                                                                        \
		case E_ADD: PFX##_add((c)->o, (c)->a, (c)->b, n_); break;                                 \
		case E_SCALAR_MUL: PFX##_smul((c)->o, (c)->a, n_); break;                                 \
		case E_ACT_COPY: PFX##_copy((c)->o, (c)->a, n_); break;                                   \
		case E_ACT_RELU: PFX##_relu((c)->o, (c)->a, n_); break;                                   \
		case E_ACT_EXP: PFX##_exp((c)->o, (c)->a, n_); break;                                     \
		case E_MATMUL: PFX##_matmul((c)->o, (c)->a, (c)->b); break;                               \
		default: break;                                                                           \
		}                                                                                         \
	} while (0)

static void eng_scalar(void *p)
{
	eng_ctx *c = p;
#if HAVE_F16
	if (c->op == E_CVT_F16)
		scalar_f16((f16_t *)(void *)c->o, c->a, (size_t)c->n * PART);
#endif
	DISPATCH(scalar, c);
	bench_sink(c->o);
}

static void eng_hand(void *p)
{
	eng_ctx *c = p;
#if HAVE_F16
	if (c->op == E_CVT_F16)
		hand_f16((f16_t *)(void *)c->o, c->a, (size_t)c->n * PART);
#endif
#if HAND_X86
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
		DISPATCH(hand_avx512, c);
	else if (__builtin_cpu_supports("avx2"))
		DISPATCH(hand_avx2, c);
	else
		DISPATCH(hand_base, c);
#else
	DISPATCH(hand_base, c);
#endif
	bench_sink(c->o);
}

/* Inputs: values in [-1, 1) so relu takes both branches and sums stay finite. */
static void fill(float *f, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		f[i] = (float)(int32_t)x * 0x1p-31f;
	}
}

void bench_engine(kdsl_rt *rt, int quick)
{
	static const size_t esizes[] = {16 << 10, 256 << 10, 1 << 20};
	static const bench_fn fns[] = {eng_kdsl, eng_memcpy, eng_scalar, eng_hand};
	size_t total, big = (size_t)4 << 20, si, p;
	eng_ctx c;
	int op;

	c.rt = rt;
	c.sbuf = kdsl_rt_mem(rt, KDSL_MEM_SBUF, &total);
	c.psum = kdsl_rt_mem(rt, KDSL_MEM_PSUM, &total);
	c.pbytes = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	c.psbytes = kdsl_rt_partition_stride(rt, KDSL_MEM_PSUM);
	c.a = bench_buf(big, 7);
	c.b = bench_buf(big, 8);
	c.o = bench_buf(big, 9);
	fill(c.a, big / 4, 7);
	fill(c.b, big / 4, 8);
	for (p = 0; p < PART; p++)
		fill((float *)(void *)(c.sbuf + p * c.pbytes), c.pbytes / 4, (uint32_t)p + 11);
	for (op = 0; op < E_NOPS; op++)
		for (si = 0; si < (op == E_MATMUL ? 1 : 3 - (quick ? 1 : 0)); si++) {
			bench_row r;
			bench_time t[4];
			char key[96];

			memset(&r, 0, sizeof r);
			c.op = op;
			c.n = (int64_t)(esizes[si] / 4 / PART);
			bench_runs(fns, 4, &c, t);
			r.op = rows[op].op;
			r.variant = rows[op].variant;
			r.bytes = op == E_MATMUL ? 0 : out_bytes(&c);
			r.kdsl = t[0];
			r.memcpy_ = t[1];
			r.scalar = t[2];
			if (op != E_CVT_F16 || HAVE_F16)
				r.hand = t[3];
			if (op == E_MATMUL)
				snprintf(key, sizeof key, "nc_matmul/%dx%dx%d", MM_K, MM_M, MM_N);
			else
				snprintf(key, sizeof key, "engine/%s/%zu", rows[op].key, esizes[si]);
			r.numpy_ns = bench_numpy(key);
			bench_print_row(&r);
		}
	free(c.a);
	free(c.b);
	free(c.o);
}
