/* bench.h: what the benchmark's files share: a timer that reports the
 * median of several repetitions with their spread, the result table, and
 * the numpy timings read from the file bench/numpy_ops.py wrote. */
#ifndef KDSL_BENCH_H
#define KDSL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "kdsl_rt.h"

#define BENCH_REPS 9

/* One measured routine: called `iters` times per repetition. */
typedef void (*bench_fn)(void *ctx);

typedef struct {
	double med_ns;      /* median time of one call */
	double spread;      /* (max - min) / median over the repetitions */
} bench_time;

/* Times fn: picks an iteration count so one repetition takes about 2 ms,
 * then runs BENCH_REPS repetitions. */
bench_time bench_run(bench_fn fn, void *ctx);
/* Times n (at most BENCH_MAXFN) routines on one ctx the same way, their
 * repetitions interleaved, so the ratios between them compare the same
 * stretches of time. */
#define BENCH_MAXFN 6
void bench_runs(const bench_fn *fns, int n, void *ctx, bench_time *out);

/* One table row.  bytes == 0: an ns/op row (permutations, kernels).
 * A baseline time of 0 is "not measured". */
typedef struct {
	const char *op, *variant;
	size_t bytes;
	/* rows: memcpy of the tile's rows where they lie; hand: the same op
	 * written by hand (permutations: GCC vector extensions; shuffle: the
	 * same rows on the same sbuf layout, fixed 32-byte copies; predicated
	 * copy: plain C over packed buffers) */
	bench_time kdsl, memcpy_, rows, scalar, hand;
	/* memcpy of every byte the op reads, where that is more than bytes
	 * (the predicated copy: its data tile and its predicate tile) */
	bench_time memcpy_read;
	size_t read_bytes;
	double numpy_ns;
} bench_row;

void bench_print_header(void);
void bench_print_row(const bench_row *r);

/* numpy timings: "key ns" lines; 0 when the key is absent. */
void bench_numpy_load(const char *path);
double bench_numpy(const char *key);

/* A 64-byte aligned buffer filled with a fixed pseudo-random pattern. */
void *bench_buf(size_t bytes, uint64_t seed);
/* Keeps the compiler from dropping a computation's result. */
void bench_sink(const void *p);

void bench_rt_ops(kdsl_rt *ascend, kdsl_rt *neuron, int quick);
/* The transpose through a strided load (kdsl-bench --transpose alone). */
void bench_transpose(kdsl_rt *neuron);
/* The nc_stream_shuffle rows alone (kdsl-bench --shuffle). */
void bench_rt_shuffles(kdsl_rt *neuron, int quick);
/* The tensor_copy_predicated rows alone (kdsl-bench --pred). */
void bench_predicated(kdsl_rt *neuron, int quick);
/* The neuron engine ops and nc_matmul (bench_engine.c). */
void bench_engine(kdsl_rt *neuron, int quick);
void bench_perms(int quick);
/* A row copy's speed by the gap between rows, kdsl not involved: its own
 * table (kdsl-bench --row-gaps; bench_gaps.c). */
void bench_row_gaps(kdsl_rt *neuron);
/* aipu's strided and gathered loads against the loops by hand (bench_mem.c). */
void bench_mem(int quick);

/* CLOCK_MONOTONIC in ns, and qsort's comparison of doubles (bench_util.c). */
double bench_now_ns(void);
int bench_cmp_double(const void *a, const void *b);

/* 1 where the by-hand baselines may use x86 vector intrinsics' targets. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAND_X86 1
#else
#define HAND_X86 0
#endif

#endif
