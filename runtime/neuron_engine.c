/* neuron_engine.c: the arithmetic of the neuron engine ops (tensor_tensor,
 * tensor_scalar, activation, tensor_reduce, converting copies, iota,
 * nc_matmul, the select of affine_select and identity, and nc_transpose's
 * move; their checks are in neuron.c).
 * An op is dispatched once, on its dtypes and
 * its alu op or activation, to typed row kernels (neuron_engine_kern.h):
 * a chunk of each input row is converted to f32 (in place of the old
 * per-element dtype switch, memcpy and double widening), computed and
 * converted to dst's dtype, each step one vectorised loop; an f32 operand
 * is used where it lies, so an all-f32 op is one pass.  The kernels exist
 * once per instruction set, like neuron_blend.c's, chosen by the
 * runtime's isa.  This file is built with -O3 (gcc vectorises loops of
 * run-time length from -O3; -O2's cost model leaves them scalar) and
 * -ffp-contract=off (no fused multiply-add: every isa rounds each product
 * and each sum, so all give the same bytes). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "f16_lane.h"
#include "neuron_engine.h"
#include "pool.h"

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define KDSL_ENG_X86 1
#include <immintrin.h>   /* fold8's maxps / minps (neuron_engine_kern.h) */
#else
#define KDSL_ENG_X86 0
#endif

typedef void (*eng_load)(float *restrict o, const unsigned char *restrict i, int64_t n);
typedef void (*eng_store)(unsigned char *restrict o, const float *restrict x, int64_t n);
typedef void (*eng_bin)(float *restrict o, const float *restrict a, const float *restrict b, int64_t n);
typedef void (*eng_sca)(float *restrict o, const float *restrict a, float y, int64_t n);
typedef void (*eng_un)(float *restrict o, const float *restrict a, int64_t n);
typedef void (*eng_bin_ip)(float *restrict o, const float *restrict b, int64_t n);
typedef void (*eng_sca_ip)(float *restrict o, float y, int64_t n);
typedef void (*eng_mm)(unsigned char *restrict d, size_t ds, const unsigned char *restrict a, size_t lda,
                       const unsigned char *restrict b, size_t ldb, int64_t K, int64_t M, int64_t N, int accumulate,
                       float *restrict ea, float *restrict eb);
typedef void (*eng_iota)(unsigned char *restrict o, double base, double step, double first, int64_t n);
typedef void (*eng_fold8)(int64_t op, const float *const x[8], int64_t n, float acc[8]);

/* One instruction set's kernels, indexed by dtype, alu op and activation. */
typedef struct {
	eng_load load[KDSL_NDTYPE];
	eng_store store[KDSL_NDTYPE];
	eng_bin bin[KDSL_NALU];
	eng_sca sca[KDSL_NALU];
	eng_sca rsca[KDSL_NALU];   /* the scalar as the left operand */
	eng_bin_ip ibin[KDSL_NALU], jbin[KDSL_NALU];   /* in place: dst is a (ibin) or b (jbin) */
	eng_sca_ip isca[KDSL_NALU], irsca[KDSL_NALU];
	eng_un act[KDSL_NACT];
	eng_mm matmul;
	eng_iota iota_f32;
	eng_fold8 fold8;   /* tensor_reduce's plain folds of FOLD_ROWS rows */
} eng_kernels;

#define KN__(p, x) kdsl_eng_##p##_##x
#define KN_(p, x) KN__(p, x)

/* nc_matmul's block per isa (neuron_engine_kern.h): KMM_MR rows by
 * KMM_NR vectors of KMM_VB bytes, as many sums as the registers hold
 * beside the vectors of b and a product (SSE2 and AVX2: 16 registers,
 * 8 and 12 sums; AVX-512: 32, 16 sums).  Measured on SSE2 and AVX2 with
 * 128x128x512 (docs/performance.md); the rows divide 128 and the vectors'
 * width 512 where the registers allow. */
#define KMM_VB 16
#define KMM_MR 4
#define KMM_NR 2
#define KPFX base
#include "neuron_engine_kern.h"
#undef KPFX
#undef KMM_VB
#undef KMM_MR
#undef KMM_NR

#if KDSL_ENG_X86
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")   /* fma: the activations' lanes (neuron_act_fast.h); f16c: f16 rows */
#define KDSL_AF_FMA 1
#define KMM_VB 32
#define KMM_MR 4
#define KMM_NR 3
#define KPFX avx2
#include "neuron_engine_kern.h"
#undef KPFX
#undef KMM_VB
#undef KMM_MR
#undef KMM_NR
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,fma,f16c")   /* as kdsl_isa_detect requires */
#define KDSL_AF_AVX512 1   /* exp's lanes in AVX-512 code (neuron_act_fast.h) */
#define KMM_VB 64
#define KMM_MR 8
#define KMM_NR 2
#define KPFX avx512
#include "neuron_engine_kern.h"
#undef KPFX
#undef KMM_VB
#undef KMM_MR
#undef KMM_NR
#undef KDSL_AF_FMA
#undef KDSL_AF_AVX512
#pragma GCC pop_options
#endif

static const eng_kernels *select_kernels(kdsl_isa isa)
{
#if KDSL_ENG_X86
	if (isa >= KDSL_ISA_AVX512)
		return &kdsl_eng_avx512_kernels;
	if (isa >= KDSL_ISA_AVX2)
		return &kdsl_eng_avx2_kernels;
#else
	(void)isa;
#endif
	return &kdsl_eng_base_kernels;
}

/* Elements per chunk: three f32 chunks stay in L1 with the rows. */
#define CHUNK 512

/* An f32 operand's chunk used where it lies: 4-byte aligned f32. */
static int direct(kdsl_dtype dt, const unsigned char *p)
{
	return dt == KDSL_F32 && ((uintptr_t)p & 3) == 0;
}

/* Every row of x is f32 used where it lies: the first aligned and the
 * stride a multiple of 4. */
static int direct_rows(kdsl_eng_rows x)
{
	return direct(x.dt, x.p) && (x.ps & 3) == 0;
}

/* Where chunk j0.. of row r of x (elements es bytes) starts. */
static const unsigned char *chunk_at(kdsl_eng_rows x, size_t es, int64_t r, int64_t j0)
{
	return x.p + (size_t)r * x.ps + (size_t)j0 * es;
}

/* Chunk j0.. of row r of x (elements es bytes) as f32: in place, or
 * loaded into buf; also into buf when it is the output chunk o (an op in
 * place whose kernel takes operands that must not alias: the whole chunk
 * is read before any of it is written).  o NULL: the caller's kernel
 * writes elsewhere. */
static const float *f32_chunk(const eng_kernels *k, kdsl_eng_rows x, size_t es, int64_t r, int64_t j0,
                              int64_t len, float *buf, const unsigned char *o)
{
	const unsigned char *p = chunk_at(x, es, r, j0);

	if (direct(x.dt, p) && p != o)
		return (const float *)(const void *)p;
	k->load[x.dt](buf, p, len);
	return buf;
}

/* An op's operands and their element sizes (found once, not per row). */
typedef struct {
	const eng_kernels *k;
	kdsl_eng_kind kind;
	int64_t code;
	kdsl_eng_rows d, a, b;
	size_t ds, as, bs;
} map_job;

/* One chunk of dst = f(a[, b]): the result computed into dst when dst is
 * an aligned f32 row, else into a buffer and then stored.  An operand
 * that is the dst chunk itself (in place) goes to the in-place kernels
 * (ibin: dst is a; jbin: dst is b), so it is not copied first. */
static void map_chunk(const map_job *m, int64_t r, int64_t j0, int64_t len)
{
	float ba[CHUNK], bb[CHUNK], bo[CHUNK];
	const eng_kernels *k = m->k;
	unsigned char *o = (unsigned char *)(uintptr_t)chunk_at(m->d, m->ds, r, j0);
	float *fo = direct(m->d.dt, o) ? (float *)(void *)o : bo;
	int ia = fo != bo && chunk_at(m->a, m->as, r, j0) == o, ib = fo != bo && chunk_at(m->b, m->bs, r, j0) == o;

	if (m->kind == KDSL_ENG_COPY) {
		if (fo != bo)   /* a converted straight into dst */
			k->load[m->a.dt](fo, chunk_at(m->a, m->as, r, j0), len);
		else            /* into a non-f32 dst: a's f32 values stored */
			k->store[m->d.dt](o, f32_chunk(k, m->a, m->as, r, j0, len, ba, o), len);
		return;
	}
	if (ia && !ib)
		k->ibin[m->code](fo, f32_chunk(k, m->b, m->bs, r, j0, len, bb, o), len);
	else if (ib && !ia)
		k->jbin[m->code](fo, f32_chunk(k, m->a, m->as, r, j0, len, ba, o), len);
	else
		k->bin[m->code](fo, f32_chunk(k, m->a, m->as, r, j0, len, ba, o),
		                f32_chunk(k, m->b, m->bs, r, j0, len, bb, o), len);
	if (fo == bo)
		k->store[m->d.dt](o, fo, len);
}

/* Row r of a binary op whose three operands are direct_rows, given to
 * its kernel whole: map_chunk's per-row work (chunk pointers, buffer
 * choice) is most of a small tile's time.  dst is a, or b, or apart from
 * both (the op snapshotted any other overlap); the row of an op with dst
 * as both operands goes to map_chunk.  Returns whether it did the row. */
static int map_row_direct(const map_job *m, int64_t r, int64_t n)
{
	float *o = (float *)(uintptr_t)chunk_at(m->d, m->ds, r, 0);
	const float *x = (const float *)(const void *)chunk_at(m->a, m->as, r, 0);
	const float *y = (const float *)(const void *)chunk_at(m->b, m->bs, r, 0);

	if (o == x && o == y)
		return 0;
	if (o == x)
		m->k->ibin[m->code](o, y, n);
	else if (o == y)
		m->k->jbin[m->code](o, x, n);
	else
		m->k->bin[m->code](o, x, y, n);
	return 1;
}

void kdsl_engine_map(kdsl_isa isa, kdsl_eng_kind kind, int64_t code, kdsl_eng_rows dst, kdsl_eng_rows a,
                     kdsl_eng_rows b, int64_t rows, int64_t n)
{
	map_job m;
	int64_t r, j0;
	int whole = kind == KDSL_ENG_ALU && direct_rows(dst) && direct_rows(a) && direct_rows(b);

	m.k = select_kernels(isa);
	m.kind = kind;
	m.code = code;
	m.d = dst;
	m.a = a;
	m.b = b;
	m.ds = kdsl_dtype_size(dst.dt);
	m.as = kdsl_dtype_size(a.dt);
	m.bs = kdsl_dtype_size(b.dt);
	for (r = 0; r < rows; r++) {
		if (whole && map_row_direct(&m, r, n))
			continue;
		for (j0 = 0; j0 < n; j0 += CHUNK)
			map_chunk(&m, r, j0, n - j0 < CHUNK ? n - j0 : CHUNK);
	}
}

/* Row r's value of a per-partition operand: its number, or element r of
 * its [P, 1] tile as an f32. */
static float scalar_of(const eng_kernels *k, const kdsl_eng_scalar *s, int64_t r)
{
	float v;

	if (!s->tile)
		return s->v;
	if (s->t.dt == KDSL_F32)   /* a fixed-size copy: no call per row */
		memcpy(&v, s->t.p + (size_t)r * s->t.ps, 4);
	else
		k->load[s->t.dt](&v, s->t.p + (size_t)r * s->t.ps, 1);
	return v;
}

/* o = x op y, or y op x when rev (the scalar on the left). */
static void sca_op(const eng_kernels *k, int64_t op, int rev, float *o, const float *x, float y, int64_t len)
{
	(rev ? k->rsca : k->sca)[op](o, x, y, len);
}

/* The output chunk of row r at element j0: dst itself when it is aligned
 * f32, else buf (stored by put_chunk). */
static float *out_chunk(kdsl_eng_rows d, size_t ds, int64_t r, int64_t j0, float *buf, unsigned char **o)
{
	*o = (unsigned char *)(uintptr_t)(d.p + (size_t)r * d.ps + (size_t)j0 * ds);
	return direct(d.dt, *o) ? (float *)(void *)*o : buf;
}

static void put_chunk(const eng_kernels *k, kdsl_eng_rows d, unsigned char *o, const float *fo, int64_t len)
{
	if (fo != (const float *)(const void *)o)
		k->store[d.dt](o, fo, len);
}

void kdsl_engine_tensor_scalar(kdsl_isa isa, kdsl_eng_rows dst, kdsl_eng_rows a, int64_t op0, kdsl_eng_scalar y0,
                               int rev0, int64_t op1, kdsl_eng_scalar y1, int rev1, int64_t rows, int64_t n)
{
	const eng_kernels *k = select_kernels(isa);
	size_t ds = kdsl_dtype_size(dst.dt), as = kdsl_dtype_size(a.dt);
	float ba[CHUNK], bt[CHUNK], bo[CHUNK];
	int64_t r, j0, len;

	for (r = 0; r < rows; r++) {
		float v0 = scalar_of(k, &y0, r), v1 = op1 == KDSL_ALU_BYPASS ? 0 : scalar_of(k, &y1, r);
		for (j0 = 0; j0 < n; j0 += len) {
			unsigned char *o;
			float *fo;
			const float *x;
			len = n - j0 < CHUNK ? n - j0 : CHUNK;
			fo = out_chunk(dst, ds, r, j0, bo, &o);
			if (op1 == KDSL_ALU_BYPASS && fo != bo && chunk_at(a, as, r, j0) == o) {
				(rev0 ? k->irsca : k->isca)[op0](fo, v0, len);   /* in place */
			} else if (op1 == KDSL_ALU_BYPASS) {
				sca_op(k, op0, rev0, fo, f32_chunk(k, a, as, r, j0, len, ba, o), v0, len);
			} else {   /* the first result goes to bt, so a may be dst itself, uncopied */
				x = f32_chunk(k, a, as, r, j0, len, ba, NULL);
				sca_op(k, op0, rev0, bt, x, v0, len);
				sca_op(k, op1, rev1, fo, bt, v1, len);
			}
			put_chunk(k, dst, o, fo, len);
		}
	}
}

/* activation on rows r0..r1-1 (one part of a split call: a row reads and
 * writes only its own partition's bytes once the checks have copied any
 * overlapping operand, so rows may go in any order and to any thread). */
static void act_rows(const eng_kernels *k, int64_t func, kdsl_eng_rows dst, kdsl_eng_rows src,
                     kdsl_eng_scalar scale, kdsl_eng_scalar bias, int64_t r0, int64_t r1, int64_t n)
{
	size_t ds = kdsl_dtype_size(dst.dt), ss = kdsl_dtype_size(src.dt);
	/* a number scale 1 or bias 0 is no step at all: the v0 activation,
	 * bit for bit (x * 1 would quiet a NaN, x + 0 turn -0.0 into 0.0) */
	int mul = scale.tile || scale.v != 1.0f, add = bias.tile || bias.v != 0.0f;
	float ba[CHUNK], bs[CHUNK], bt[CHUNK], bo[CHUNK];
	int64_t r, j0, len;

	for (r = r0; r < r1; r++) {
		float s = scalar_of(k, &scale, r), b = scalar_of(k, &bias, r);
		for (j0 = 0; j0 < n; j0 += len) {
			unsigned char *o;
			float *fo;
			const float *x;
			len = n - j0 < CHUNK ? n - j0 : CHUNK;
			fo = out_chunk(dst, ds, r, j0, bo, &o);
			/* src may be dst itself: copied first only when func reads it directly */
			x = f32_chunk(k, src, ss, r, j0, len, ba, mul || add ? NULL : o);
			if (mul) {   /* into bs, then the sum into bt: the kernels' operands never alias */
				k->sca[KDSL_ALU_MULTIPLY](bs, x, s, len);
				x = bs;
			}
			if (add) {
				k->sca[KDSL_ALU_ADD](bt, x, b, len);
				x = bt;
			}
			k->act[func](fo, x, len);
			put_chunk(k, dst, o, fo, len);
		}
	}
}

/* The functions whose lanes cost enough (some 1.5 ns an element, the
 * others a tenth of that and bound by memory) for rows on other threads
 * to pay, and from how many elements: a part handed to a worker costs a
 * few microseconds. */
static const unsigned char act_splits[KDSL_NACT] = {
	[KDSL_ACT_EXP] = 1, [KDSL_ACT_LOG] = 1, [KDSL_ACT_TANH] = 1, [KDSL_ACT_SIGMOID] = 1,
};
enum { ACT_SPLIT_MIN = 1 << 14 };

typedef struct {
	const eng_kernels *k;
	int64_t func, rows, n;
	int parts;
	kdsl_eng_rows dst, src;
	kdsl_eng_scalar scale, bias;
} act_job;

/* Part i of an act_job: the i-th of its parts' even shares of rows. */
static void act_part(void *arg, int i)
{
	const act_job *j = arg;

	act_rows(j->k, j->func, j->dst, j->src, j->scale, j->bias, kdsl_pool_share(j->rows, i, j->parts),
	         kdsl_pool_share(j->rows, i + 1, j->parts), j->n);
}

void kdsl_engine_activation(kdsl_isa isa, int64_t func, kdsl_eng_rows dst, kdsl_eng_rows src,
                            kdsl_eng_scalar scale, kdsl_eng_scalar bias, int64_t rows, int64_t n,
                            struct kdsl_pool *pool, int threads)
{
	act_job j = {select_kernels(isa), func, rows, n, 1, dst, src, scale, bias};

	if (pool && threads > 1 && act_splits[func] && rows > 1 && rows * n >= ACT_SPLIT_MIN) {
		j.parts = threads < rows ? threads : (int)rows;
		kdsl_pool_run(pool, j.parts, act_part, &j);
		return;
	}
	act_rows(j.k, func, dst, src, scale, bias, 0, rows, n);
}

/* x op y with the NaN rule of add and multiply written out (a NaN x
 * quieted, else a NaN y quieted: docs/language.md, "Engine arithmetic"),
 * for the rows whose plain fold ended in a NaN. */
static float nan_step(int64_t op, float x, float y)
{
	float r = op == KDSL_ALU_ADD ? x + y : x * y;
	uint32_t b;

	if (x == x && y == y)
		return r;
	if (x != x)
		memcpy(&b, &x, 4);
	else
		memcpy(&b, &y, 4);
	b |= 0x400000u;
	memcpy(&r, &b, 4);
	return r;
}

/* One row's fold, left to right from element 0, in f32: the order the
 * runtime promises (docs/language.md).  exact: add and multiply take the
 * NaN rule step by step (plain steps agree with it whenever the result is
 * not a NaN, and a NaN stays a NaN, so only a row that ends in a NaN needs
 * this pass). */
static float fold(int64_t op, const float *x, int64_t len, float acc, int first, int exact)
{
	int64_t j = 0;

	if (first)
		acc = x[j++];
	/* one f32 operation per element (no contraction in this file), without
	 * a call per element */
	switch (op) {
	case KDSL_ALU_ADD:
		for (; j < len; j++)
			acc = exact ? nan_step(op, acc, x[j]) : acc + x[j];
		break;
	case KDSL_ALU_MULTIPLY:
		for (; j < len; j++)
			acc = exact ? nan_step(op, acc, x[j]) : acc * x[j];
		break;
	case KDSL_ALU_MAX:
		for (; j < len; j++)
			acc = acc > x[j] ? acc : x[j];
		break;
	default:
		for (; j < len; j++)
			acc = acc < x[j] ? acc : x[j];
		break;
	}
	return acc;
}

/* Row r of src folded a chunk at a time (converted to f32 when it is not
 * f32 where it lies). */
static float fold_row(const eng_kernels *k, int64_t op, kdsl_eng_rows src, int64_t r, int64_t n, int exact)
{
	size_t ss = kdsl_dtype_size(src.dt);
	float ba[CHUNK], acc = 0;
	int64_t j0, len;

	for (j0 = 0; j0 < n; j0 += len) {
		len = n - j0 < CHUNK ? n - j0 : CHUNK;
		acc = fold(op, f32_chunk(k, src, ss, r, j0, len, ba, NULL), len, acc, j0 == 0, exact);
	}
	return acc;
}

/* Rows folded together: a fold is a chain of dependent f32 operations
 * (one per 3-4 cycles on one row), and FOLD_ROWS independent chains, one
 * a vector lane (the kernels' fold8), keep the adder busy, each row still
 * folded in its own order. */
enum { FOLD_ROWS = 8 };

/* Row r's result: an add or multiply fold that ended in a NaN folded
 * again under the NaN rule, negated if asked (exactly, by the kernels'
 * multiply), stored to dst's dtype. */
static void reduce_out(const eng_kernels *k, int64_t op, int negate, kdsl_eng_rows dst, kdsl_eng_rows src,
                       int64_t r, int64_t n, float acc)
{
	if (acc != acc && (op == KDSL_ALU_ADD || op == KDSL_ALU_MULTIPLY))
		acc = fold_row(k, op, src, r, n, 1);
	if (negate) {
		float v = acc;
		k->sca[KDSL_ALU_MULTIPLY](&acc, &v, -1.0f, 1);
	}
	k->store[dst.dt]((unsigned char *)(uintptr_t)(dst.p + (size_t)r * dst.ps), &acc, 1);
}

void kdsl_engine_reduce(kdsl_isa isa, int64_t op, int negate, kdsl_eng_rows dst, kdsl_eng_rows src,
                        int64_t rows, int64_t n)
{
	const eng_kernels *k = select_kernels(isa);
	float acc[FOLD_ROWS];
	const float *x[FOLD_ROWS];
	int64_t r = 0, i;

	/* f32 rows where they lie: FOLD_ROWS at a time */
	if (direct_rows(src))
		for (; rows - r >= FOLD_ROWS; r += FOLD_ROWS) {
			for (i = 0; i < FOLD_ROWS; i++)
				x[i] = (const float *)(const void *)(src.p + (size_t)(r + i) * src.ps);
			k->fold8(op, x, n, acc);
			for (i = 0; i < FOLD_ROWS; i++)
				reduce_out(k, op, negate, dst, src, r + i, n, acc[i]);
		}
	for (; r < rows; r++)
		reduce_out(k, op, negate, dst, src, r, n, fold_row(k, op, src, r, n, 0));
}

void kdsl_engine_iota(kdsl_isa isa, kdsl_eng_rows d, double base, double step, int64_t pstep, int64_t rows,
                      int64_t n)
{
	const eng_kernels *k = select_kernels(isa);
	size_t size = kdsl_dtype_size(d.dt);
	int v0 = pstep == KDSL_NEURON_IOTA_PSTEP_DEFAULT;
	int64_t r, j;

	for (r = 0; r < rows; r++) {
		unsigned char *o = (unsigned char *)(uintptr_t)(d.p + (size_t)r * d.ps);
		/* v0: the row continues the previous one's numbering; else the
		 * row starts at base + pstep * r and counts from 0 */
		double rb = v0 ? base : base + (double)pstep * (double)r, first = v0 ? (double)(r * n) : 0;
		if (d.dt == KDSL_F32) {
			k->iota_f32(o, rb, step, first, n);
			continue;
		}
		/* other dtypes: rare, element by element */
		for (j = 0; j < n; j++)
			kdsl_store_value(d.dt, o + (size_t)j * size, rb + step * (first + (double)j));
	}
}

/* Whether v cmp 0 (a KDSL_CMP_* code, checked by the caller). */
static int cmp_zero(int64_t cmp, int64_t v)
{
	switch (cmp) {
	case KDSL_CMP_EQ:
		return v == 0;
	case KDSL_CMP_NE:
		return v != 0;
	case KDSL_CMP_LT:
		return v < 0;
	case KDSL_CMP_LE:
		return v <= 0;
	case KDSL_CMP_GT:
		return v > 0;
	default:
		return v >= 0;
	}
}

/* Elements j0..j1-1 of row o selected from row s (NULL: ones, as one). */
static void select_run(kdsl_eng_rows d, kdsl_eng_rows s, unsigned char *o, const unsigned char *i, size_t ds,
                       size_t ss, const unsigned char *one, int64_t j0, int64_t j1)
{
	int64_t j;

	if (!s.p)
		kdsl_splat(o + (size_t)j0 * ds, one, ds, (size_t)(j1 - j0));
	else if (s.dt == d.dt)
		memcpy(o + (size_t)j0 * ds, i + (size_t)j0 * ss, (size_t)(j1 - j0) * ds);
	else
		for (j = j0; j < j1; j++)
			kdsl_store_f32(d.dt, o + (size_t)j * ds, kdsl_load_f32(s.dt, i + (size_t)j * ss));
}

/* Where the run of one predicate value that starts at element j0 ends
 * (v = base + b*j against 0; a, b and c are int32, so v never leaves
 * int64).  v is monotone along the row: an order comparison flips at
 * most once, found by bisection; == and != flip only around the one j
 * where v may be 0.  (Walking the row tested every element.)  keep is
 * the predicate at j0. */
static int64_t select_run_end(int64_t cmp, int64_t base, int64_t b, int64_t j0, int64_t n, int keep)
{
	int64_t lo = j0, hi = n;

	if (b == 0)
		return n;
	if (cmp == KDSL_CMP_EQ || cmp == KDSL_CMP_NE) {
		int64_t z = -base / b;
		if (base % b || z < j0)   /* no zero from j0 on */
			return n;
		z = z == j0 ? j0 + 1 : z;   /* the zero is a run of its own */
		return z < n ? z : n;
	}
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (cmp_zero(cmp, base + b * mid) == keep)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* The predicate is monotone along a row (b*j is), so each row is at most
 * three runs of one value, each copied or filled whole. */
void kdsl_engine_select(kdsl_eng_rows d, kdsl_eng_rows s, float fill, int64_t a, int64_t b, int64_t c,
                        int64_t cmp, int64_t rows, int64_t n)
{
	size_t ds = kdsl_dtype_size(d.dt), ss = s.p ? kdsl_dtype_size(s.dt) : ds;
	unsigned char fb[8], one[8];
	int64_t r, j0, j1;

	kdsl_store_f32(d.dt, fb, fill);
	kdsl_store_f32(d.dt, one, 1.0f);
	for (r = 0; r < rows; r++) {
		unsigned char *o = (unsigned char *)(uintptr_t)(d.p + (size_t)r * d.ps);
		const unsigned char *i = s.p ? s.p + (size_t)r * s.ps : NULL;
		int64_t base = a * r + c;
		for (j0 = 0; j0 < n; j0 = j1) {
			int keep = cmp_zero(cmp, base + b * j0);
			j1 = select_run_end(cmp, base, b, j0, n, keep);
			if (keep)
				select_run(d, s, o, i, ds, ss, one, j0, j1);
			else
				kdsl_splat(o + (size_t)j0 * ds, fb, ds, (size_t)(j1 - j0));
		}
	}
}

/* The transpose a square block at a time, TB source rows by TB
 * elements: the block's source lines and destination lines stay in L1
 * (tile rows lie a padded partition apart, so each row of a block is its
 * own line).  rim_T moves elements (p, j), p0 <= p < p1, j0 <= j < j1,
 * one typed copy each (memcpy of a fixed size is a move, not a call). */
enum { TB = 16 };

#define KTRANSPOSE_RIM(T)                                                                             \
	static void rim_##T(kdsl_eng_rows d, kdsl_eng_rows s, int64_t p0, int64_t p1, int64_t j0, int64_t j1) \
	{                                                                                                 \
		for (int64_t j = j0; j < j1; j++) {                                                           \
			unsigned char *o = (unsigned char *)(uintptr_t)(d.p + (size_t)j * d.ps);                  \
			const unsigned char *i = s.p + (size_t)j * sizeof(T);                                     \
			for (int64_t p = p0; p < p1; p++) {                                                       \
				T v;                                                                                  \
				memcpy(&v, i + (size_t)p * s.ps, sizeof v);                                           \
				memcpy(o + (size_t)p * sizeof v, &v, sizeof v);                                       \
			}                                                                                         \
		}                                                                                             \
	}
KTRANSPOSE_RIM(uint8_t)
KTRANSPOSE_RIM(uint16_t)
KTRANSPOSE_RIM(uint32_t)
KTRANSPOSE_RIM(uint64_t)

typedef uint32_t kdsl_v4u __attribute__((vector_size(16)));

/* 4-byte elements (p, j), p0 <= p < p0 + 4, j0 <= j < j0 + 4: four rows
 * loaded as vectors, interleaved in two rounds of shuffles, stored as
 * four rows of dst (the elements' bits unchanged). */
static void quad4(kdsl_eng_rows d, kdsl_eng_rows s, int64_t p0, int64_t j0)
{
	kdsl_v4u r[4], t[4], o[4];
	int k;

	for (k = 0; k < 4; k++)
		memcpy(&r[k], s.p + (size_t)(p0 + k) * s.ps + (size_t)j0 * 4, 16);
	t[0] = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5);
	t[1] = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
	t[2] = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5);
	t[3] = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
	o[0] = __builtin_shufflevector(t[0], t[2], 0, 1, 4, 5);
	o[1] = __builtin_shufflevector(t[0], t[2], 2, 3, 6, 7);
	o[2] = __builtin_shufflevector(t[1], t[3], 0, 1, 4, 5);
	o[3] = __builtin_shufflevector(t[1], t[3], 2, 3, 6, 7);
	for (k = 0; k < 4; k++)
		memcpy((unsigned char *)(uintptr_t)(d.p + (size_t)(j0 + k) * d.ps) + (size_t)p0 * 4, &o[k], 16);
}

/* 4-byte elements: each block's whole 4 x 4 squares by quad4, its rims
 * (rows or elements past a multiple of 4) by rim_uint32_t. */
static void transpose4(kdsl_eng_rows d, kdsl_eng_rows s, int64_t rows, int64_t n)
{
	for (int64_t j0 = 0; j0 < n; j0 += TB)
		for (int64_t p0 = 0; p0 < rows; p0 += TB) {
			int64_t j1 = n - j0 < TB ? n : j0 + TB, p1 = rows - p0 < TB ? rows : p0 + TB;
			int64_t jq = j0 + ((j1 - j0) & ~(int64_t)3), pq = p0 + ((p1 - p0) & ~(int64_t)3);
			for (int64_t j = j0; j < jq; j += 4)
				for (int64_t p = p0; p < pq; p += 4)
					quad4(d, s, p, j);
			rim_uint32_t(d, s, pq, p1, j0, jq);
			rim_uint32_t(d, s, p0, p1, jq, j1);
		}
}

/* Other sizes: the blocks element by element. */
#define KTRANSPOSE(T)                                                                                 \
	static void transpose_##T(kdsl_eng_rows d, kdsl_eng_rows s, int64_t rows, int64_t n)              \
	{                                                                                                 \
		for (int64_t j0 = 0; j0 < n; j0 += TB)                                                        \
			for (int64_t p0 = 0; p0 < rows; p0 += TB)                                                 \
				rim_##T(d, s, p0, rows - p0 < TB ? rows : p0 + TB, j0, n - j0 < TB ? n : j0 + TB);    \
	}
KTRANSPOSE(uint8_t)
KTRANSPOSE(uint16_t)
KTRANSPOSE(uint64_t)

void kdsl_engine_transpose(kdsl_eng_rows dst, kdsl_eng_rows src, int64_t rows, int64_t n)
{
	switch (kdsl_dtype_size(src.dt)) {
	case 1:
		transpose_uint8_t(dst, src, rows, n);
		break;
	case 2:
		transpose_uint16_t(dst, src, rows, n);
		break;
	case 4:
		transpose4(dst, src, rows, n);
		break;
	default:
		transpose_uint64_t(dst, src, rows, n);
		break;
	}
}

/* Operand x's K rows of n elements as f32 rows: where they lie when they
 * are aligned f32 (*ps stays x's stride), else converted into buf (*ps
 * becomes n floats). */
static const unsigned char *mm_rows(const eng_kernels *k, kdsl_eng_rows x, int64_t K, int64_t n, float *buf,
                                    size_t *ps)
{
	int64_t kk;

	*ps = x.ps;
	if (direct_rows(x))
		return x.p;
	for (kk = 0; kk < K; kk++)
		k->load[x.dt](buf + kk * n, x.p + (size_t)kk * x.ps, n);
	*ps = (size_t)n * 4;
	return (const unsigned char *)buf;
}

/* One thread's share of a matmul: the block kernel on columns n0..n0+N-1
 * of dst and of b (the pointers below already point at column n0), with
 * its own areas for a's edge block and b's packed panels. */
typedef struct {
	eng_mm fn;
	unsigned char *d;
	const unsigned char *a, *b;
	size_t ds, lda, ldb;
	int64_t K, M, N;
	int accumulate;
	float *ea, *eb;
} mm_part;

/* Part i of the parts table arg (kdsl_pool_run's fn). */
static void mm_part_run(void *arg, int i)
{
	const mm_part *p = (const mm_part *)arg + i;

	p->fn(p->d, p->ds, p->a, p->lda, p->b, p->ldb, p->K, p->M, p->N, p->accumulate, p->ea, p->eb);
}

/* A product of fewer multiply-adds than this stays on one thread: below
 * it, handing a part to a worker (a few microseconds when it spins, tens
 * when it must be woken) costs about what a second core saves.  2^22
 * until 2026-12-07; with the worker spinning 1 ms (pool.c), splitting
 * nki_causal_mask.k's two 128x128x128 transposes through the PE too
 * (before mm_by_identity took them) took its 2-thread calls from 345-380
 * to 314-316 us (medians of three alternating processes each; whole
 * processes 0.91x, 11 pairs). */
enum { MM_SPLIT_MIN = 1 << 21, MM_SPLIT_ALIGN = 32 };

/* How many threads share N columns of a K x M x N product: at most
 * `threads`, each with at least MM_SPLIT_ALIGN columns. */
static int mm_parts(int64_t K, int64_t M, int64_t N, int threads)
{
	int64_t t = threads < 1 ? 1 : threads;

	if (K * M * N < MM_SPLIT_MIN)
		return 1;
	if (t > N / MM_SPLIT_ALIGN)
		t = N / MM_SPLIT_ALIGN;
	return t < 1 ? 1 : (int)t;
}

/* ---- nc_matmul by an identity: a transpose through the PE ----
 * NKI moves a tile across partitions by nc_matmul(dst, x, identity):
 * dst[m][n] = the sum over k in order of x[k][m] * I[k][n].  With every
 * x finite each sum is exact: the products off the diagonal are zeros
 * (signed as x), 0.0f plus a zero is +0, and +0 plus x[n][m] is x[n][m]
 * unless that is -0, which comes out +0.  So dst is x transposed with
 * -0 made +0: the transpose's block move (and, for an x with a -0, a
 * pass over dst), the same bytes as the block kernels for a fraction of
 * their time.  An x with an infinity or a NaN (whose products with zero are NaNs, the NaN rule
 * fixing their payloads), an accumulating product, or a moving operand
 * that is not exactly the identity take the block kernels. */

/* Whether K rows of n floats, ps bytes apart, are the identity (K = n;
 * 1.0f on the diagonal, +0.0f off it, bit for bit).  Any other tile
 * fails at its first wrong element, which is near the start unless it
 * is nearly the identity. */
static int mm_is_identity(const unsigned char *b, size_t ps, int64_t K, int64_t n)
{
	if (K != n)
		return 0;
	for (int64_t k = 0; k < K; k++)
		for (int64_t j = 0; j < n; j++) {
			uint32_t u;
			memcpy(&u, b + (size_t)k * ps + (size_t)j * 4, 4);
			if (u != (j == k ? 0x3f800000u : 0u))
				return 0;
		}
	return 1;
}

/* What one pass over K rows of n floats, ps bytes apart, finds: an
 * infinity or a NaN (MM_NONFINITE), a -0 (MM_NEGZERO). */
enum { MM_NONFINITE = 1, MM_NEGZERO = 2 };

static unsigned mm_scan(const unsigned char *a, size_t ps, int64_t K, int64_t n)
{
	unsigned seen = 0;

	for (int64_t k = 0; k < K; k++)
		for (int64_t j = 0; j < n; j++) {
			uint32_t u;
			memcpy(&u, a + (size_t)k * ps + (size_t)j * 4, 4);
			seen |= ((u & 0x7f800000u) == 0x7f800000u) * MM_NONFINITE | (u == 0x80000000u) * MM_NEGZERO;
		}
	return seen;
}

/* dst = a^T, -0 made +0, when the product a^T b is that (above); returns
 * whether it was.  The pass over dst runs only for an a with a -0. */
static int mm_by_identity(kdsl_eng_rows d, const unsigned char *a, size_t lda, const unsigned char *b, size_t ldb,
                          int64_t K, int64_t M, int64_t N, int accumulate)
{
	unsigned seen;

	if (accumulate || !mm_is_identity(b, ldb, K, N) || ((seen = mm_scan(a, lda, K, M)) & MM_NONFINITE))
		return 0;
	transpose4(d, (kdsl_eng_rows){ .p = a, .ps = lda, .dt = KDSL_F32 }, K, M);
	for (int64_t m = 0; m < M && (seen & MM_NEGZERO); m++) {
		unsigned char *o = (unsigned char *)(uintptr_t)(d.p + (size_t)m * d.ps);
		for (int64_t j = 0; j < N; j++) {
			uint32_t u;
			memcpy(&u, o + (size_t)j * 4, 4);
			u = u == 0x80000000u ? 0 : u;
			memcpy(o + (size_t)j * 4, &u, 4);
		}
	}
	return 1;
}

void kdsl_engine_matmul(kdsl_isa isa, kdsl_eng_rows d, kdsl_eng_rows st, kdsl_eng_rows mv, int64_t K,
                        int64_t M, int64_t N, int accumulate, float *scratch, int threads,
                        struct kdsl_pool *pool)
{
	const eng_kernels *k = select_kernels(isa);
	/* the converted inputs, then each part's edge block and panel areas on a 64-byte boundary */
	float *ca = scratch, *cb = ca + K * M;
	float *edges = (float *)(void *)(((uintptr_t)(scratch + KDSL_ENG_MM_CONV) + 63) & ~(uintptr_t)63);
	size_t lda, ldb;
	/* Both inputs are read where they lie or converted first; dst is in
	 * psum, which never overlaps them (sbuf). */
	const unsigned char *a = mm_rows(k, st, K, M, ca, &lda), *b = mm_rows(k, mv, K, N, cb, &ldb);
	int parts = mm_parts(K, M, N, threads);
	int64_t per;
	mm_part part[KDSL_RT_MAX_THREADS];

	if (mm_by_identity(d, a, lda, b, ldb, K, M, N, accumulate))
		return;
	if (parts == 1) {   /* the common case: no part table */
		k->matmul((unsigned char *)(uintptr_t)d.p, d.ps, a, lda, b, ldb, K, M, N, accumulate, edges,
		          edges + K * KDSL_ENG_MM_MAX_MR);
		return;
	}
	/* columns per part, a multiple of MM_SPLIT_ALIGN (the last takes the rest) */
	per = (N / parts) & ~(int64_t)(MM_SPLIT_ALIGN - 1);
	for (int i = 0; i < parts; i++) {
		int64_t n0 = i * per;
		float *ea = edges + (size_t)i * KDSL_ENG_MM_EDGE;

		part[i] = (mm_part){ k->matmul, (unsigned char *)(uintptr_t)d.p + n0 * 4, a, b + n0 * 4, d.ps, lda, ldb,
		                     K, M, i == parts - 1 ? N - n0 : per, accumulate, ea, ea + K * KDSL_ENG_MM_MAX_MR };
	}
	/* the parts on the pool's workers and this thread, whichever is free
	 * (with no pool, here in turn): the same bytes either way */
	kdsl_pool_run(pool, parts, mm_part_run, part);
}
