/* bench_gaps.c: what the emulated sbuf's layout costs a copy, measured
 * without kdsl (kdsl-bench --row-gaps, its own table in bench/run.sh).
 *
 * A neuron tile of 256 KiB is 128 rows of 2 KiB, one per partition, a
 * partition stride apart; a copy between two such tiles moves the same
 * bytes as one packed 256 KiB memcpy, which the hot-op rows compare it
 * with.  Here one plain loop of vector moves (32 bytes where the CPU has
 * AVX2, as the runtime's inline row copy) copies 128 rows from one set of rows to another, the rows
 * laid out with a gap between one row's end and the next one's start:
 * none (two packed buffers), a few sizes, and the runtime's own partition
 * stride with the destination rows beside the source ones, as two tiles
 * allocated one after the other lie.  The read-only and write-only
 * columns run the same rows through a load loop and a store loop: if
 * each alone is fast and the copy is not, the cost is in mixing the two
 * streams on that layout, not in either. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { ROWS = 128 };

typedef struct {
	unsigned char *src, *dst;
	size_t rb, stride;   /* row bytes; distance from one row's start to the next */
} gap_ctx;

/* The three loops over VB-byte GNU vectors, built for the target ATTR
 * names (the runtime's AVX2 clones move 32 bytes; SSE2 two 16-byte
 * halves). */
#define GAP_FNS(SUF, ATTR, VB)                                                \
	__attribute__((noinline)) ATTR static void gap_copy##SUF(void *p)         \
	{                                                                         \
		typedef unsigned char vec __attribute__((vector_size(VB)));           \
		gap_ctx *c = p;                                                       \
		for (size_t r = 0; r < ROWS; r++) {                                   \
			const unsigned char *s = c->src + r * c->stride;                  \
			unsigned char *d = c->dst + r * c->stride;                        \
			for (size_t o = 0; o < c->rb; o += (VB)) {                        \
				vec x;                                                        \
				memcpy(&x, s + o, (VB));                                      \
				memcpy(d + o, &x, (VB));                                      \
			}                                                                 \
		}                                                                     \
		bench_sink(c->dst);                                                   \
	}                                                                         \
	__attribute__((noinline)) ATTR static void gap_read##SUF(void *p)         \
	{                                                                         \
		typedef unsigned char vec __attribute__((vector_size(VB)));           \
		gap_ctx *c = p;                                                       \
		vec a0, a1, a2, a3; /* four chains: the loads are not serialised */   \
		memset(&a0, 0, sizeof a0);                                            \
		a1 = a2 = a3 = a0;                                                    \
		for (size_t r = 0; r < ROWS; r++) {                                   \
			const unsigned char *s = c->src + r * c->stride;                  \
			for (size_t o = 0; o < c->rb; o += 4 * (VB)) {                    \
				vec x0, x1, x2, x3;                                           \
				memcpy(&x0, s + o, (VB));                                     \
				memcpy(&x1, s + o + (VB), (VB));                              \
				memcpy(&x2, s + o + 2 * (VB), (VB));                          \
				memcpy(&x3, s + o + 3 * (VB), (VB));                          \
				a0 ^= x0;                                                     \
				a1 ^= x1;                                                     \
				a2 ^= x2;                                                     \
				a3 ^= x3;                                                     \
			}                                                                 \
		}                                                                     \
		a0 ^= a1 ^ a2 ^ a3;                                                   \
		memcpy(c->dst, &a0, sizeof a0);   /* the loads' result is used */     \
		bench_sink(c->dst);                                                   \
	}                                                                         \
	__attribute__((noinline)) ATTR static void gap_write##SUF(void *p)        \
	{                                                                         \
		typedef unsigned char vec __attribute__((vector_size(VB)));           \
		gap_ctx *c = p;                                                       \
		vec x;                                                                \
		memset(&x, 0x5a, sizeof x);                                           \
		for (size_t r = 0; r < ROWS; r++) {                                   \
			unsigned char *d = c->dst + r * c->stride;                        \
			for (size_t o = 0; o < c->rb; o += (VB))                          \
				memcpy(d + o, &x, (VB));                                      \
		}                                                                     \
		bench_sink(c->dst);                                                   \
	}
GAP_FNS(_base, , 16)
#if HAND_X86
GAP_FNS(_avx2, __attribute__((target("avx2"))), 32)
#endif

static double gbs(size_t bytes, bench_time t)
{
	return (double)bytes / t.med_ns;
}

void bench_row_gaps(kdsl_rt *neuron)
{
	static const bench_fn base[] = {gap_copy_base, gap_read_base, gap_write_base};
	const bench_fn *fns = base;
	static const size_t rbs[] = {1024, 2048};   /* tiles of 128 and 256 KiB */
	size_t total, ps = kdsl_rt_partition_stride(neuron, KDSL_MEM_SBUF);
	unsigned char *sbuf = kdsl_rt_mem(neuron, KDSL_MEM_SBUF, &total);
#if HAND_X86
	static const bench_fn avx2[] = {gap_copy_avx2, gap_read_avx2, gap_write_avx2};
	if (__builtin_cpu_supports("avx2"))
		fns = avx2;
#endif

	printf("One loop of %d-byte vector moves copies %d rows from one set of rows to another\n"
	       "(GB/s of the rows' bytes; medians of %d repetitions of about 2 ms, the three loops\n"
	       "interleaved). Gap: bytes between one row's end and the next row's start; the\n"
	       "sbuf row is the emulated sbuf's partition stride (%zu bytes), the destination\n"
	       "rows right after the source ones in each partition, as two tiles allocated one\n"
	       "after the other lie.\n\n",
	       fns == base ? 16 : 32, ROWS, BENCH_REPS, ps);
	printf("| row bytes | gap | copy GB/s | copy / packed copy | read only GB/s | write only GB/s |\n");
	printf("|---:|---|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof rbs / sizeof *rbs; i++) {
		size_t rb = rbs[i];
		static const size_t gaps[] = {0, 64, 512, 2048};
		double packed = 0;
		/* two packed-with-gaps buffers, then the sbuf rows */
		for (size_t g = 0; g <= sizeof gaps / sizeof *gaps; g++) {
			int in_sbuf = g == sizeof gaps / sizeof *gaps;
			gap_ctx c;
			bench_time t[3];
			unsigned char *a = NULL, *b = NULL;
			char gap[48];
			c.rb = rb;
			if (in_sbuf) {
				c.stride = ps;
				c.src = sbuf;
				c.dst = sbuf + rb;   /* rb is a multiple of 64 */
				if (2 * rb > ps)
					continue;
				snprintf(gap, sizeof gap, "sbuf rows (%zu)", ps - rb);
			} else {
				c.stride = rb + gaps[g];
				a = bench_buf(ROWS * c.stride, 5);
				b = bench_buf(ROWS * c.stride, 6);
				c.src = a;
				c.dst = b;
				snprintf(gap, sizeof gap, "%zu", gaps[g]);
			}
			bench_runs(fns, 3, &c, t);
			if (g == 0)
				packed = gbs(ROWS * rb, t[0]);
			printf("| %zu | %s | %.1f | %.2f | %.1f | %.1f |\n", rb, gap, gbs(ROWS * rb, t[0]),
			       gbs(ROWS * rb, t[0]) / packed, gbs(ROWS * rb, t[1]), gbs(ROWS * rb, t[2]));
			free(a);
			free(b);
		}
	}
}
