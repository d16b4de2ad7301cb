/* bench_rt.c: the runtime's hot ops (data_move, nc_stream_shuffle,
 * tensor_copy_predicated) at tile sizes from L1 to beyond L2, each
 * against memcpy of the same bytes, a straightforward scalar C loop, the
 * op written by hand over packed buffers (shuffle, predicated copy) and
 * numpy (timed by bench/numpy_ops.py with the same keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The scalar baselines are the loops a person would write; keep gcc from
 * turning them into memcpy calls or vector code, which would make them
 * just another memcpy. */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR __attribute__((noinline, optimize("no-tree-loop-distribute-patterns", "no-tree-vectorize")))
#elif defined(__clang__)
#define SCALAR __attribute__((noinline))
#else
#define SCALAR
#endif

static const kdsl_site site = {"bench", 0, 0, "bench"};

static void must(kdsl_rt *rt, int rc)
{
	if (rc) {
		fprintf(stderr, "kdsl-bench: op failed: %s\n", kdsl_rt_last_error(rt));
		exit(1);
	}
}

/* ---- data_move ---- */

#define MOVE_CHUNK ((size_t)1 << 20)   /* l1 holds 1 MiB: larger moves go in chunks */
#define SHORT_BURSTS 2048              /* 32-byte bursts per call (nburst <= 4095) */

typedef struct {
	kdsl_rt *rt;
	unsigned char *gm, *gm_dst, *l1;
	size_t bytes;
	int kind;   /* 0 long burst, 1 short bursts, 2 strided (every other block) */
} move_ctx;

static void move_kdsl(void *p)
{
	move_ctx *c = p;
	kdsl_ref dst = kdsl_ref_of(c->l1, MOVE_CHUNK, KDSL_MEM_L1);
	kdsl_cref src = kdsl_cref_of(c->gm, 2 * c->bytes, KDSL_MEM_GM);
	size_t done, len;

	for (done = 0; done < c->bytes; done += len) {
		len = c->bytes - done < MOVE_CHUNK ? c->bytes - done : MOVE_CHUNK;
		if (c->kind == 0) {
			must(c->rt, kdsl_ascend_data_move_fast(c->rt, &site, dst, 0, src, (int64_t)done, 0, 1,
			                                  (int64_t)(len / 32), 0, 0));
		} else {
			size_t b, step;
			for (b = 0; b < len; b += step) {
				step = len - b < SHORT_BURSTS * 32 ? len - b : SHORT_BURSTS * 32;
				must(c->rt, kdsl_ascend_data_move_fast(c->rt, &site, dst, (int64_t)b, src,
				                                  (int64_t)((done + b) * (size_t)(c->kind == 2 ? 2 : 1)),
				                                  0, (int64_t)(step / 32), 1, c->kind == 2 ? 1 : 0, 0));
			}
		}
	}
	bench_sink(c->l1);
}

static void move_memcpy(void *p)
{
	move_ctx *c = p;
	size_t done, len;

	for (done = 0; done < c->bytes; done += len) {
		len = c->bytes - done < MOVE_CHUNK ? c->bytes - done : MOVE_CHUNK;
		memcpy(c->l1, c->gm + done, len);
	}
	bench_sink(c->l1);
}

SCALAR static void move_scalar_loop(unsigned char *d, const unsigned char *s, size_t bytes, size_t sstep)
{
	size_t k, i;
	for (k = 0; k < bytes / 32; k++)
		for (i = 0; i < 32; i++)
			d[k * 32 + i] = s[k * sstep + i];
}

static void move_scalar(void *p)
{
	move_ctx *c = p;
	size_t done, len;

	for (done = 0; done < c->bytes; done += len) {
		len = c->bytes - done < MOVE_CHUNK ? c->bytes - done : MOVE_CHUNK;
		move_scalar_loop(c->l1, c->gm + done * (c->kind == 2 ? 2 : 1), len, c->kind == 2 ? 64 : 32);
	}
	bench_sink(c->l1);
}

static const size_t sizes[] = {16 << 10, 256 << 10, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void bench_moves(kdsl_rt *rt, int quick)
{
	static const char *const kinds[] = {"long burst", "short bursts", "strided"};
	static const char *const keys[] = {"long", "short", "strided"};
	size_t l1bytes;
	move_ctx c;
	size_t si;
	int k;

	c.rt = rt;
	c.l1 = kdsl_rt_mem(rt, KDSL_MEM_L1, &l1bytes);
	c.gm = bench_buf(2 * sizes[NSIZES - 1], 1);
	c.gm_dst = NULL;
	for (k = 0; k < 3; k++)
		for (si = 0; si < NSIZES - (quick ? 2 : 0); si++) {
			bench_row r;
			char key[96];
			memset(&r, 0, sizeof r);
			c.bytes = sizes[si];
			c.kind = k;
			r.op = "data_move";
			r.variant = kinds[k];
			r.bytes = c.bytes;
			{
				static const bench_fn fns[] = {move_kdsl, move_memcpy, move_scalar};
				bench_time t[3];
				bench_runs(fns, 3, &c, t);
				r.kdsl = t[0];
				r.memcpy_ = t[1];
				r.scalar = t[2];
			}
			snprintf(key, sizeof key, "data_move/%s/%zu", keys[k], c.bytes);
			r.numpy_ns = bench_numpy(key);
			bench_print_row(&r);
		}
	free(c.gm);
}

/* ---- nc_stream_shuffle ---- */

#define PART 128

typedef struct {
	kdsl_rt *rt;
	unsigned char *sbuf, *a, *b;   /* a, b: packed baseline buffers */
	unsigned char *tmp;            /* one row, for the in-place swaps by hand */
	size_t pbytes;                 /* sbuf partition stride */
	int64_t n;                     /* f32 elements per partition */
	int inplace;
	size_t doff;                   /* dst tile's byte offset in each partition */
	int64_t mask[32];
	kdsl_shuf_args k;              /* the operands as kdslc emits them (static const) */
} shuf_ctx;

/* Tiles lie where kdslc's automatic allocation puts them: packed in each
 * partition, 64-byte aligned, in the order they are declared.  (Tiles a
 * multiple of 64 KiB apart in every partition share L2 sets row for row
 * and ran a third to 40% slower in a test; a kernel gets that placement by
 * asking for it with alloc(base_addr=...).) */
static size_t align64(size_t x)
{
	return (x + 63) & ~(size_t)63;
}

/* A neuron row's n routines (5 or 6), timed together: kdsl, memcpy,
 * memcpy of the same rows, scalar C, the op by hand and, sixth, memcpy
 * of the bytes the op reads, in that order. */
static void time_row(bench_row *r, const bench_fn *fns, int n, void *ctx)
{
	bench_time t[BENCH_MAXFN];

	bench_runs(fns, n, ctx, t);
	r->kdsl = t[0];
	r->memcpy_ = t[1];
	r->rows = t[2];
	r->scalar = t[3];
	r->hand = t[4];
	if (n > 5)
		r->memcpy_read = t[5];
}

/* The call kdslc emits for a shuffle of constant tiles and mask (every
 * operand in one static const kdsl_shuf_args). */
static void shuf_kdsl(void *p)
{
	shuf_ctx *c = p;
	must(c->rt, kdsl_neuron_nc_stream_shuffle_k(c->rt, &site, &c->k));
	bench_sink(c->sbuf);
}

static void shuf_memcpy(void *p)
{
	shuf_ctx *c = p;
	memcpy(c->b, c->a, (size_t)c->n * 4 * PART);
	bench_sink(c->b);
}

/* memcpy of the same 128 rows where the tiles lie in sbuf, one partition
 * stride apart: what the emulated layout allows a row copy.  (In place,
 * to the tile the copying shuffle writes.) */
static void shuf_rows(void *p)
{
	shuf_ctx *c = p;
	size_t rb = (size_t)c->n * 4;
	unsigned char *d = c->sbuf + align64(rb);
	int i;
	for (i = 0; i < PART; i++)
		memcpy(d + (size_t)i * c->pbytes, c->sbuf + (size_t)i * c->pbytes, rb);
	bench_sink(d);
}

SCALAR static void shuf_scalar_loop(float *d, const float *s, int64_t n, const int64_t *mask)
{
	int64_t i, j;
	for (i = 0; i < PART; i++)
		if (mask[i % 32] != 255)
			for (j = 0; j < n; j++)
				d[i * n + j] = s[(i / 32 * 32 + mask[i % 32]) * n + j];
}

static void shuf_scalar(void *p)
{
	shuf_ctx *c = p;
	shuf_scalar_loop((float *)(void *)c->b, (const float *)(const void *)c->a, c->n, c->mask);
	bench_sink(c->b);
}

/* The same shuffle written by hand on the same layout (the rows where
 * the kdsl tiles lie in sbuf, one partition stride apart), the fastest
 * way we could write it for this benchmark's mask: rows of 32, 64, 128
 * or 256 bytes are fixed 32-byte copies, unrolled for the row length
 * (one AVX register each where the CPU has AVX2, as the runtime
 * dispatches; two SSE2 moves otherwise), longer rows up to 8 KiB a loop
 * of the same moves, rows beyond libc's memcpy;
 * in place, the row pairs the mask swaps are exchanged through
 * registers 32 bytes at a time.  The next row's mask entry is read
 * before the current row's stores (read after them, the load may wait on
 * those stores, which on some placements made the swap 1.2-1.6x
 * slower).  No checks, no plan: the group walk and the mask are the
 * only indirection.  This is the yardstick of
 * issue 16 ("within 1.25x of the best hand-written permutation on the
 * same layout"). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SHUF_X86 1
#else
#define SHUF_X86 0
#endif

/* Row copies of K 32-byte pieces (K a constant in each instance) moved
 * as VB-byte GNU vectors (gcc expands a 32-byte memcpy as two 16-byte
 * moves even with AVX2, ~1.8x slower here). */
#define SHUF_HAND_COPY(NAME, ATTR, K, VB)                                                    \
	__attribute__((noinline)) ATTR static void NAME(unsigned char *d, const unsigned char *s, \
	                                                size_t ps, const int64_t *mask)          \
	{                                                                                        \
		typedef unsigned char vec __attribute__((vector_size(VB)));                          \
		int g, i, k;                                                                         \
		for (g = 0; g < PART; g += 32) {                                                     \
			int64_t m = mask[0], next;                                                       \
			for (i = 0; i < 32; i++, m = next) {                                             \
				unsigned char *o = d + (size_t)(g + i) * ps;                                 \
				const unsigned char *r = s + (size_t)(g + m) * ps;                           \
				next = mask[(i + 1) & 31];   /* before this row's stores */                  \
				_Pragma("GCC unroll 16")                                                     \
				for (k = 0; k < (K) * 32 / (VB); k++) {                                      \
					vec x;                                                                   \
					memcpy(&x, r + (VB) * k, (VB));                                          \
					memcpy(o + (VB) * k, &x, (VB));                                          \
				}                                                                            \
			}                                                                                \
		}                                                                                    \
	}
/* Row pairs (i, mask[i]) swapped VB bytes at a time, K 32-byte pieces per row. */
#define SHUF_HAND_SWAP(NAME, ATTR, K, VB)                                                    \
	__attribute__((noinline)) ATTR static void NAME(unsigned char *d, const unsigned char *s, \
	                                                size_t ps, const int64_t *mask)          \
	{                                                                                        \
		typedef unsigned char vec __attribute__((vector_size(VB)));                          \
		int g, i, k;                                                                         \
		(void)s;                                                                             \
		for (g = 0; g < PART; g += 32) {                                                     \
			int64_t m = mask[0], next;                                                       \
			for (i = 0; i < 32; i++, m = next) {                                             \
				unsigned char *a = d + (size_t)(g + i) * ps, *b = d + (size_t)(g + m) * ps;  \
				next = mask[(i + 1) & 31];   /* before this pair's stores */                 \
				if (m <= i)                                                                  \
					continue;                                                                \
				_Pragma("GCC unroll 16")                                                     \
				for (k = 0; k < (K) * 32 / (VB); k++) {                                      \
					vec x, y;                                                                \
					memcpy(&x, a + (VB) * k, (VB));                                          \
					memcpy(&y, b + (VB) * k, (VB));                                          \
					memcpy(a + (VB) * k, &y, (VB));                                          \
					memcpy(b + (VB) * k, &x, (VB));                                          \
				}                                                                            \
			}                                                                                \
		}                                                                                    \
	}
typedef void (*shuf_hand_fn)(unsigned char *d, const unsigned char *s, size_t ps, const int64_t *mask);
#define SHUF_HAND_SET(ATTR, SUF, VB)                                                        \
	SHUF_HAND_COPY(shuf_copy1##SUF, ATTR, 1, VB) SHUF_HAND_COPY(shuf_copy2##SUF, ATTR, 2, VB) \
	SHUF_HAND_COPY(shuf_copy4##SUF, ATTR, 4, VB) SHUF_HAND_COPY(shuf_copy8##SUF, ATTR, 8, VB) \
	SHUF_HAND_SWAP(shuf_swap1##SUF, ATTR, 1, VB) SHUF_HAND_SWAP(shuf_swap2##SUF, ATTR, 2, VB) \
	SHUF_HAND_SWAP(shuf_swap4##SUF, ATTR, 4, VB) SHUF_HAND_SWAP(shuf_swap8##SUF, ATTR, 8, VB) \
	static const shuf_hand_fn shuf_hand_tab##SUF[2][4] = {                                  \
		{shuf_copy1##SUF, shuf_copy2##SUF, shuf_copy4##SUF, shuf_copy8##SUF},               \
		{shuf_swap1##SUF, shuf_swap2##SUF, shuf_swap4##SUF, shuf_swap8##SUF}};
SHUF_HAND_SET(, _base, 16)
#if SHUF_X86
SHUF_HAND_SET(__attribute__((target("avx2"))), _avx2, 32)
#endif

/* Rows of other lengths: a loop of VB-byte vector moves for rows of a
 * multiple of 32 bytes up to 8 KiB (as fast as libc's memcpy per row or
 * faster there, measured on AVX2), libc's memcpy per row otherwise. */
#define SHUF_HAND_LONG(NAME, ATTR, VB)                                                       \
	__attribute__((noinline)) ATTR static void NAME(const shuf_ctx *c, unsigned char *d,    \
	                                                size_t rb)                               \
	{                                                                                        \
		typedef unsigned char vec __attribute__((vector_size(VB)));                          \
		int i;                                                                               \
		size_t o;                                                                            \
		for (i = 0; i < PART; i++) {                                                         \
			int j = i / 32 * 32 + (int)c->mask[i % 32];                                      \
			unsigned char *a = d + (size_t)i * c->pbytes;                                    \
			unsigned char *b = (c->inplace ? d : c->sbuf) + (size_t)j * c->pbytes;           \
			if (c->inplace && j <= i)                                                        \
				continue;                                                                    \
			if (c->inplace) {                                                                \
				_Pragma("GCC unroll 8")                                                      \
				for (o = 0; o < rb; o += (VB)) {                                             \
					vec x, y;                                                                \
					memcpy(&x, a + o, (VB));                                                 \
					memcpy(&y, b + o, (VB));                                                 \
					memcpy(a + o, &y, (VB));                                                 \
					memcpy(b + o, &x, (VB));                                                 \
				}                                                                            \
				continue;                                                                    \
			}                                                                                \
			_Pragma("GCC unroll 8")                                                          \
			for (o = 0; o < rb; o += (VB)) {                                                 \
				vec y;                                                                       \
				memcpy(&y, b + o, (VB));                                                     \
				memcpy(a + o, &y, (VB));                                                     \
			}                                                                                \
		}                                                                                    \
	}
SHUF_HAND_LONG(shuf_long_base, , 16)
#if SHUF_X86
SHUF_HAND_LONG(shuf_long_avx2, __attribute__((target("avx2"))), 32)
#endif

static void shuf_hand_long(const shuf_ctx *c, unsigned char *d, const unsigned char *s, size_t rb)
{
	int i;

	if (rb % 32 == 0 && rb <= 8192) {
#if SHUF_X86
		if (__builtin_cpu_supports("avx2")) {
			shuf_long_avx2(c, d, rb);
			return;
		}
#endif
		shuf_long_base(c, d, rb);
		return;
	}
	for (i = 0; i < PART; i++) {
		int j = i / 32 * 32 + (int)c->mask[i % 32];
		if (!c->inplace) {
			memcpy(d + (size_t)i * c->pbytes, s + (size_t)j * c->pbytes, rb);
		} else if (j > i) {
			memcpy(c->tmp, d + (size_t)i * c->pbytes, rb);
			memcpy(d + (size_t)i * c->pbytes, d + (size_t)j * c->pbytes, rb);
			memcpy(d + (size_t)j * c->pbytes, c->tmp, rb);
		}
	}
}

static void shuf_hand(void *p)
{
	shuf_ctx *c = p;
	size_t rb = (size_t)c->n * 4;
	unsigned char *d = c->sbuf + c->doff;
	int k = rb == 32 ? 0 : rb == 64 ? 1 : rb == 128 ? 2 : rb == 256 ? 3 : -1;

	if (k < 0)
		shuf_hand_long(c, d, c->sbuf, rb);
#if SHUF_X86
	else if (__builtin_cpu_supports("avx2"))
		shuf_hand_tab_avx2[c->inplace][k](d, c->sbuf, c->pbytes, c->mask);
#endif
	else
		shuf_hand_tab_base[c->inplace][k](d, c->sbuf, c->pbytes, c->mask);
	bench_sink(d);
}

void bench_rt_shuffles(kdsl_rt *rt, int quick)
{
	static const bench_fn shuf_fns[] = {shuf_kdsl, shuf_memcpy, shuf_rows, shuf_scalar, shuf_hand};
	shuf_ctx c;
	size_t si, total;
	int i, inplace;

	c.rt = rt;
	c.sbuf = kdsl_rt_mem(rt, KDSL_MEM_SBUF, &total);
	c.pbytes = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	for (i = 0; i < 32; i++)
		c.mask[i] = 31 - i;   /* reverse each group of 32 partitions */
	c.a = bench_buf(sizes[NSIZES - 1], 2);
	c.b = bench_buf(sizes[NSIZES - 1], 3);
	c.tmp = bench_buf(sizes[NSIZES - 1] / PART, 4);
	for (inplace = 0; inplace < 2; inplace++)
		for (si = 0; si < NSIZES - (quick ? 2 : 0); si++) {
			bench_row r;
			char key[96];
			memset(&r, 0, sizeof r);
			c.n = (int64_t)(sizes[si] / 4 / PART);
			c.inplace = inplace;
			c.doff = inplace ? 0 : align64((size_t)c.n * 4);
			{
				kdsl_rtile s = {0, (size_t)c.n * 4, PART, 0, PART, 0, c.n, KDSL_MEM_SBUF, KDSL_F32}, d = s;
				d.off = c.doff;
				c.k.dst = d;
				c.k.src = s;
				memcpy(c.k.mask, c.mask, sizeof c.k.mask);
			}
			r.op = "nc_stream_shuffle";
			r.variant = inplace ? "128 partitions, in place" : "128 partitions";
			r.bytes = sizes[si];
			time_row(&r, shuf_fns, 5, &c);
			snprintf(key, sizeof key, "nc_stream_shuffle/%s/%zu", inplace ? "inplace" : "copy", sizes[si]);
			r.numpy_ns = bench_numpy(key);
			bench_print_row(&r);
		}
	free(c.a);
	free(c.b);
	free(c.tmp);
}

/* ---- tensor_copy_predicated ---- */

typedef struct {
	kdsl_rt *rt;
	unsigned char *sbuf, *a, *b, *pr;   /* a, b, pr: packed baseline buffers */
	unsigned char *ra, *rb;             /* memcpy of the bytes read: from, to */
	size_t pbytes;
	int64_t n;
	kdsl_dtype dt, pdt;
	size_t soff, doff;   /* src and dst offsets in each partition; predicate at 0 */
} pred_ctx;

static void pred_kdsl(void *p)
{
	pred_ctx *c = p;
	size_t ds = kdsl_dtype_size(c->dt), ps = kdsl_dtype_size(c->pdt);
	kdsl_ctile s = kdsl_ctile_of(c->sbuf + c->soff, c->pbytes, (size_t)c->n * ds, PART, 0, PART, 0, c->n,
	                             KDSL_MEM_SBUF, c->dt);
	kdsl_tile d = kdsl_tile_of(c->sbuf + c->doff, c->pbytes, (size_t)c->n * ds, PART, 0, PART, 0, c->n,
	                           KDSL_MEM_SBUF, c->dt);
	kdsl_ctile q = kdsl_ctile_of(c->sbuf, c->pbytes, (size_t)c->n * ps, PART, 0, PART, 0, c->n,
	                             KDSL_MEM_SBUF, c->pdt);
	must(c->rt, kdsl_neuron_tensor_copy_predicated(c->rt, &site, s, 0, d, q, 1, 0, 0));
	bench_sink(c->sbuf);
}

static void pred_memcpy(void *p)
{
	pred_ctx *c = p;
	memcpy(c->b, c->a, (size_t)c->n * PART * kdsl_dtype_size(c->dt));
	bench_sink(c->b);
}

/* The bytes the op has to read, the data tile and the predicate tile. */
static size_t pred_read_bytes(const pred_ctx *c)
{
	return (size_t)c->n * PART * (kdsl_dtype_size(c->dt) + kdsl_dtype_size(c->pdt));
}

/* memcpy of as many bytes as the op reads, between packed buffers. */
static void pred_memcpy_read(void *p)
{
	pred_ctx *c = p;
	memcpy(c->rb, c->ra, pred_read_bytes(c));
	bench_sink(c->rb);
}

/* memcpy of the data rows from src to dst where they lie in sbuf. */
static void pred_rows(void *p)
{
	pred_ctx *c = p;
	size_t rb = (size_t)c->n * kdsl_dtype_size(c->dt);
	int i;
	for (i = 0; i < PART; i++)
		memcpy(c->sbuf + c->doff + (size_t)i * c->pbytes, c->sbuf + c->soff + (size_t)i * c->pbytes, rb);
	bench_sink(c->sbuf);
}

/* The loops below over the packed baseline buffers, one per dtype pair
 * the benchmark times, in the order of pred_pair. */
typedef void (*pred_loop)(void *d, const void *s, const void *q, size_t n);

static int pred_pair(const pred_ctx *c)
{
	return (c->dt == KDSL_F32 ? 0 : 2) + (c->pdt == KDSL_U8 ? 0 : 1);
}

static void pred_run(const pred_ctx *c, const pred_loop *loops)
{
	loops[pred_pair(c)](c->b, c->a, c->pr, (size_t)c->n * PART);
	bench_sink(c->b);
}

#define PRED_SCALAR(NAME, D, P)                                                   \
	SCALAR static void NAME(void *dv, const void *sv, const void *qv, size_t n)   \
	{                                                                             \
		D *d = dv;                                                                \
		const D *s = sv;                                                          \
		const P *q = qv;                                                          \
		size_t j;                                                                 \
		for (j = 0; j < n; j++)                                                   \
			if (q[j])                                                             \
				d[j] = s[j];                                                      \
	}
PRED_SCALAR(pred_scalar_32_8, uint32_t, uint8_t)
PRED_SCALAR(pred_scalar_32_32, uint32_t, uint32_t)
PRED_SCALAR(pred_scalar_16_8, uint16_t, uint8_t)
PRED_SCALAR(pred_scalar_16_32, uint16_t, uint32_t)

static void pred_scalar(void *p)
{
	static const pred_loop loops[4] = {pred_scalar_32_8, pred_scalar_32_32, pred_scalar_16_8,
	                                   pred_scalar_16_32};
	pred_run(p, loops);
}

/* The branchless blend a person would write for speed, vectorised by gcc
 * at -O3, over packed buffers: what the op costs without the emulated
 * layout or any checks.  gcc vectorises only this mask form (`d[j] =
 * q[j] ? s[j] : d[j]` stays scalar).  On x86 it is built as a person
 * would with -march for this machine: AVX-512 or AVX2 when the CPU has
 * them, else SSE2, as the runtime dispatches. */
#if defined(__GNUC__) && !defined(__clang__)
#define HAND __attribute__((noinline, optimize("O3")))
#else
#define HAND __attribute__((noinline))
#endif
#define PRED_HAND1(NAME, ATTR, D, P)                                              \
	HAND ATTR static void NAME(void *dv, const void *sv, const void *qv, size_t n) \
	{                                                                             \
		D *restrict d = dv;                                                       \
		const D *restrict s = sv;                                                 \
		const P *restrict q = qv;                                                 \
		size_t j;                                                                 \
		for (j = 0; j < n; j++) {                                                 \
			D m = (D) - (D)(q[j] != 0);                                           \
			d[j] = (D)((s[j] & m) | (d[j] & (D)~m));                              \
		}                                                                         \
	}
#if HAND_X86
#define PRED_HAND(NAME, D, P)                                                     \
	PRED_HAND1(NAME##_base, , D, P)                                               \
	PRED_HAND1(NAME##_avx2, __attribute__((target("avx2"))), D, P)                \
	PRED_HAND1(NAME##_avx512, __attribute__((target("avx512f,avx512bw"))), D, P)  \
	static void NAME(void *d, const void *s, const void *q, size_t n)             \
	{                                                                             \
		if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) \
			NAME##_avx512(d, s, q, n);                                            \
		else if (__builtin_cpu_supports("avx2"))                                  \
			NAME##_avx2(d, s, q, n);                                              \
		else                                                                      \
			NAME##_base(d, s, q, n);                                              \
	}
#else
#define PRED_HAND(NAME, D, P) PRED_HAND1(NAME, , D, P)
#endif
PRED_HAND(pred_hand_32_8, uint32_t, uint8_t)
PRED_HAND(pred_hand_32_32, uint32_t, uint32_t)
PRED_HAND(pred_hand_16_8, uint16_t, uint8_t)
PRED_HAND(pred_hand_16_32, uint16_t, uint32_t)

static void pred_hand(void *p)
{
	static const pred_loop loops[4] = {pred_hand_32_8, pred_hand_32_32, pred_hand_16_8, pred_hand_16_32};
	pred_run(p, loops);
}

/* Predicate values: every other element set, or a random half. */
static void fill_pred(unsigned char *p, size_t esize, size_t count, size_t stride, size_t rows, int random)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	size_t r, j;

	for (r = 0; r < rows; r++)
		for (j = 0; j < count; j++) {
			uint32_t v;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = random ? (uint32_t)(x >> 40) & 1 : (uint32_t)(j & 1) ^ 1;
			if (esize == 1) {
				unsigned char b = (unsigned char)v;
				memcpy(p + r * stride + j, &b, 1);
			} else {
				memcpy(p + r * stride + j * 4, &v, 4);
			}
		}
}

void bench_predicated(kdsl_rt *rt, int quick)
{
	static const size_t psizes[] = {16 << 10, 256 << 10, 1 << 20, 4 << 20};
	pred_ctx c;
	size_t si, total;
	int dti, pti, dens;

	c.rt = rt;
	c.sbuf = kdsl_rt_mem(rt, KDSL_MEM_SBUF, &total);
	c.pbytes = kdsl_rt_partition_stride(rt, KDSL_MEM_SBUF);
	c.a = bench_buf(8 << 20, 4);
	c.b = bench_buf(8 << 20, 5);
	c.pr = bench_buf(8 << 20, 6);
	c.ra = bench_buf(12 << 20, 7);
	c.rb = bench_buf(12 << 20, 8);
	for (dti = 0; dti < 2; dti++)
		for (pti = 0; pti < 2; pti++)
			for (dens = 0; dens < 2; dens++)
				for (si = 0; si < 4 - (quick ? 2 : 0); si++) {
					static const bench_fn fns[] = {pred_kdsl, pred_memcpy, pred_rows, pred_scalar,
					                               pred_hand, pred_memcpy_read};
					bench_row r;
					char key[96], var[64];
					size_t ds;
					memset(&r, 0, sizeof r);
					c.dt = dti ? KDSL_F16 : KDSL_F32;
					c.pdt = pti ? KDSL_U32 : KDSL_U8;
					ds = kdsl_dtype_size(c.dt);
					c.n = (int64_t)(psizes[si] / ds / PART);
					/* as examples/neuron_copy_predicated.k declares them */
					c.soff = align64((size_t)c.n * kdsl_dtype_size(c.pdt));
					c.doff = c.soff + align64((size_t)c.n * ds);
					fill_pred(c.sbuf, kdsl_dtype_size(c.pdt), (size_t)c.n, c.pbytes, PART, dens);
					fill_pred(c.pr, kdsl_dtype_size(c.pdt), (size_t)c.n * PART, 0, 1, dens);
					snprintf(var, sizeof var, "%s data, %s pred, %s", dti ? "f16" : "f32",
					         pti ? "u32" : "u8", dens ? "random" : "50%");
					r.op = "tensor_copy_predicated";
					r.variant = var;
					r.bytes = psizes[si];
					time_row(&r, fns, 6, &c);
					r.read_bytes = pred_read_bytes(&c);
					snprintf(key, sizeof key, "tensor_copy_predicated/%s/%s/%s/%zu", dti ? "f16" : "f32",
					         pti ? "u32" : "u8", dens ? "random" : "half", psizes[si]);
					r.numpy_ns = bench_numpy(key);
					bench_print_row(&r);
				}
	free(c.a);
	free(c.b);
	free(c.pr);
	free(c.ra);
	free(c.rb);
}

/* ---- a transpose through a strided view (LANGUAGE.md 7) ----
 * b = a.T for a [512, 128] f32 in hbm, as examples/nki_transpose2d_load.k
 * does it: load(t, a.T) (one strided DMA into a [128, 512] sbuf tile),
 * then store(b, t).  Against memcpy of the 256 KiB, the scalar loop and
 * the transpose written by hand in C from a to b (the acceptance: kdsl at
 * least half its speed, although kdsl also goes through sbuf). */

enum { TR_R = 512, TR_C = 128 };

typedef struct {
	kdsl_rt *rt;
	float *a, *b;
	unsigned char *sbuf;
	size_t ps;
} tr_ctx;

static void tr_kdsl(void *p)
{
	tr_ctx *c = p;
	kdsl_tile t = kdsl_tile_of(c->sbuf, c->ps, TR_R * 4, TR_C, 0, TR_C, 0, TR_R, KDSL_MEM_SBUF, KDSL_F32);
	kdsl_ctile aT = kdsl_ctile_ap(kdsl_ctile_of(c->a, TR_C * 4, TR_C * 4, TR_R, 0, TR_C, 0, TR_R, KDSL_MEM_HBM,
	                                            KDSL_F32),
	                              1, 1, TR_C, TR_R, 0, 0, 0, 0);
	must(c->rt, kdsl_neuron_load(c->rt, &site, t, aT));
	must(c->rt, kdsl_neuron_store(c->rt, &site,
	                              kdsl_tile_of(c->b, TR_R * 4, TR_R * 4, TR_C, 0, TR_C, 0, TR_R, KDSL_MEM_HBM, KDSL_F32),
	                              kdsl_ctile_of(c->sbuf, c->ps, TR_R * 4, TR_C, 0, TR_C, 0, TR_R, KDSL_MEM_SBUF,
	                                            KDSL_F32)));
	bench_sink(c->b);
}

static void tr_memcpy(void *p)
{
	tr_ctx *c = p;
	memcpy(c->b, c->a, sizeof(float) * TR_R * TR_C);
	bench_sink(c->b);
}

SCALAR static void tr_scalar(void *p)
{
	tr_ctx *c = p;
	for (int i = 0; i < TR_R; i++)
		for (int j = 0; j < TR_C; j++)
			c->b[j * TR_R + i] = c->a[i * TR_C + j];
	bench_sink(c->b);
}

/* By hand: the loop a person writes, rows of b in turn (reads strided,
 * writes sequential), left to the compiler's optimiser. */
static void tr_hand(void *p)
{
	tr_ctx *c = p;
	for (int j = 0; j < TR_C; j++)
		for (int i = 0; i < TR_R; i++)
			c->b[j * TR_R + i] = c->a[i * TR_C + j];
	bench_sink(c->b);
}

void bench_transpose(kdsl_rt *neuron)
{
	static const bench_fn fns[] = {tr_kdsl, tr_memcpy, tr_scalar, tr_hand};
	tr_ctx c;
	bench_time t[4];
	bench_row r;

	c.rt = neuron;
	c.sbuf = kdsl_rt_mem(neuron, KDSL_MEM_SBUF, NULL);
	c.ps = kdsl_rt_partition_stride(neuron, KDSL_MEM_SBUF);
	c.a = bench_buf(sizeof(float) * TR_R * TR_C, 7);
	c.b = bench_buf(sizeof(float) * TR_R * TR_C, 8);
	memset(&r, 0, sizeof r);
	r.op = "transpose (load a.T, store)";
	r.variant = "512x128 f32 -> 128x512";
	r.bytes = sizeof(float) * TR_R * TR_C;
	bench_runs(fns, 4, &c, t);
	r.kdsl = t[0];
	r.memcpy_ = t[1];
	r.scalar = t[2];
	r.hand = t[3];
	bench_print_row(&r);
	free(c.a);
	free(c.b);
}

void bench_rt_ops(kdsl_rt *ascend, kdsl_rt *neuron, int quick)
{
	bench_moves(ascend, quick);
	bench_rt_shuffles(neuron, quick);
	bench_predicated(neuron, quick);
	bench_transpose(neuron);
}
