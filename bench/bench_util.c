/* bench_util.c: timing, buffers and the result table. */
#define _DEFAULT_SOURCE 1   /* MADV_HUGEPAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "bench.h"

/* Buffers of this size and up are aligned to it and asked for huge pages,
 * as the runtime asks for its emulated memories (runtime/rt.c): with 4 KiB
 * pages the physical pages, and so the L2 sets a buffer's lines fall in,
 * differ from process to process, and the memcpy baseline of a 256 KiB
 * tile ran at 24 or 44 GB/s by the luck of the draw. */
#define BENCH_HUGE ((size_t)2 << 20)

double bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* An iteration count worth ~2 ms of fn, after warming the caches. */
static long calibrate(bench_fn fn, void *ctx)
{
	long iters = 1, i;
	double t0, el;

	for (;;) {
		t0 = bench_now_ns();
		for (i = 0; i < iters; i++)
			fn(ctx);
		el = bench_now_ns() - t0;
		if (el >= 2e6 || iters >= (1L << 26))
			return iters;
		iters = el < 1e4 ? iters * 16 : (long)((double)iters * 2.2e6 / el) + 1;
	}
}

void bench_runs(const bench_fn *fns, int n, void *ctx, bench_time *out)
{
	double t[BENCH_MAXFN][BENCH_REPS], t0;
	long iters[BENCH_MAXFN], i;
	int r, k;

	for (k = 0; k < n; k++)
		iters[k] = calibrate(fns[k], ctx);
	/* Repetition by repetition, every routine in turn: a slow spell of a
	 * shared machine falls on all of them, not on one column. */
	for (r = 0; r < BENCH_REPS; r++)
		for (k = 0; k < n; k++) {
			fns[k](ctx);   /* back in cache after the other routines */
			t0 = bench_now_ns();
			for (i = 0; i < iters[k]; i++)
				fns[k](ctx);
			t[k][r] = (bench_now_ns() - t0) / (double)iters[k];
		}
	for (k = 0; k < n; k++) {
		qsort(t[k], BENCH_REPS, sizeof t[k][0], bench_cmp_double);
		out[k].med_ns = t[k][BENCH_REPS / 2];
		out[k].spread = out[k].med_ns > 0 ? (t[k][BENCH_REPS - 1] - t[k][0]) / out[k].med_ns : 0;
	}
}

bench_time bench_run(bench_fn fn, void *ctx)
{
	bench_time out;
	bench_runs(&fn, 1, ctx, &out);
	return out;
}

void *bench_buf(size_t bytes, uint64_t seed)
{
	size_t n = (bytes + 63) / 64 * 64, i;
	size_t align = n >= BENCH_HUGE ? BENCH_HUGE : 64;
	unsigned char *p;
	uint64_t x = seed | 1;

	n = ((n ? n : 64) + align - 1) / align * align;
	p = aligned_alloc(align, n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p && align == BENCH_HUGE)
		(void)madvise(p, n, MADV_HUGEPAGE);
#endif
	if (!p) {
		fprintf(stderr, "kdsl-bench: out of memory\n");
		exit(2);
	}
	for (i = 0; i < n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	return p;
}

void bench_sink(const void *p)
{
	/* an empty asm that "reads" p: the stores before it must happen */
#if defined(__GNUC__)
	__asm__ volatile("" : : "r"(p) : "memory");
#else
	(void)p;
#endif
}

/* ---- numpy timings ---- */

typedef struct {
	char key[96];
	double ns;
} np_entry;

static np_entry *np_tab;
static size_t np_n;

void bench_numpy_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f) {
		fprintf(stderr, "kdsl-bench: no numpy timings (%s)\n", path);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		np_entry e;
		np_entry *t;
		if (sscanf(line, "%95s %lf", e.key, &e.ns) != 2)
			continue;
		t = realloc(np_tab, (np_n + 1) * sizeof *t);
		if (!t)
			break;
		np_tab = t;
		np_tab[np_n++] = e;
	}
	fclose(f);
}

double bench_numpy(const char *key)
{
	size_t i;
	for (i = 0; i < np_n; i++)
		if (!strcmp(np_tab[i].key, key))
			return np_tab[i].ns;
	return 0;
}

/* ---- the table ---- */

void bench_print_header(void)
{
	printf("| op | variant | bytes | kdsl | spread | memcpy | kdsl/memcpy | memcpy same rows | kdsl/rows "
	       "| scalar C | kdsl/scalar | by hand | kdsl time / hand time | numpy | kdsl/numpy "
	       "| bytes read | memcpy of those | kdsl/that |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

/* Speed figure of a time: GB/s for byte rows, ns/op otherwise. */
static void cell(char *buf, size_t n, double ns, size_t bytes)
{
	if (ns <= 0)
		snprintf(buf, n, "-");
	else if (bytes)
		snprintf(buf, n, "%.2f GB/s", (double)bytes / ns);
	else if (ns < 100)
		snprintf(buf, n, "%.2f ns", ns);
	else
		snprintf(buf, n, "%.0f ns", ns);
}

/* Speed-up of kdsl over a baseline (> 1: kdsl is faster). */
static void ratio(char *buf, size_t n, double base_ns, double kdsl_ns)
{
	if (base_ns <= 0 || kdsl_ns <= 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2fx", base_ns / kdsl_ns);
}

void bench_print_row(const bench_row *r)
{
	char k[32], m[32], mr[16], w[32], wr[16], s[32], sr[16], v[32], vr[16], np[32], npr[16];
	char rb[24], rm[32], rr[16];

	cell(k, sizeof k, r->kdsl.med_ns, r->bytes);
	cell(m, sizeof m, r->memcpy_.med_ns, r->bytes);
	ratio(mr, sizeof mr, r->memcpy_.med_ns, r->kdsl.med_ns);
	cell(w, sizeof w, r->rows.med_ns, r->bytes);
	ratio(wr, sizeof wr, r->rows.med_ns, r->kdsl.med_ns);
	cell(s, sizeof s, r->scalar.med_ns, r->bytes);
	ratio(sr, sizeof sr, r->scalar.med_ns, r->kdsl.med_ns);
	cell(v, sizeof v, r->hand.med_ns, r->bytes);
	/* by-hand column: kdsl time / hand-written time (permutations: target <= 1.2) */
	if (r->hand.med_ns > 0)
		snprintf(vr, sizeof vr, "%.2f", r->kdsl.med_ns / r->hand.med_ns);
	else
		snprintf(vr, sizeof vr, "-");
	cell(np, sizeof np, r->numpy_ns, r->bytes);
	ratio(npr, sizeof npr, r->numpy_ns, r->kdsl.med_ns);
	/* the read bytes' memcpy, in GB/s of those bytes */
	if (r->read_bytes)
		snprintf(rb, sizeof rb, "%zu", r->read_bytes);
	else
		snprintf(rb, sizeof rb, "-");
	cell(rm, sizeof rm, r->read_bytes ? r->memcpy_read.med_ns : 0, r->read_bytes);
	ratio(rr, sizeof rr, r->read_bytes ? r->memcpy_read.med_ns : 0, r->kdsl.med_ns);
	printf("| %s | %s | %zu | %s | %.0f%% | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
	       r->op, r->variant, r->bytes, k, r->kdsl.spread * 100, m, mr, w, wr, s, sr, v, vr, np, npr, rb, rm,
	       rr);
	fflush(stdout);
}
