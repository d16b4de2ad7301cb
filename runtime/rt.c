/* rt.c: a runtime instance: its emulated on-chip memories and its last
 * error.  All state lives in the kdsl_rt, so runtimes are independent and
 * the library has no global mutable state. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1   /* MADV_HUGEPAGE */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "pool.h"
#include "rt_internal.h"

/* Every memory starts KDSL_HOST_MEM_ALIGN (64-byte) aligned, so a buffer
 * the compiler places at a 32-byte aligned offset is at a truly aligned
 * host address. */
#define HUGE_PAGE ((size_t)2 << 20)

const char *kdsl_mem_name(kdsl_mem mem)
{
	switch (mem) {
#define NAME_CASE(m, name, ...) case m: return name;
	KDSL_MEM_LIST(NAME_CASE)
#undef NAME_CASE
	}
	return "?";
}

const char *kdsl_target_name(kdsl_target target)
{
	switch (target) {
#define NAME_CASE(t, name) case t: return name;
	KDSL_TARGET_LIST(NAME_CASE)
#undef NAME_CASE
	}
	return "unknown";
}

/* The on-chip memories of each target, from kdsl_hw.h's list. */
typedef struct {
	unsigned targets, external, partitions;
	size_t bytes;      /* per partition when partitioned */
} mem_fact;

static const mem_fact mem_facts[KDSL_NMEM] = {
#define FACT_ROW(m, name, vendor, targets, external, align, parts, bytes) \
	[m] = {targets, external, parts, bytes},
	KDSL_MEM_LIST(FACT_ROW)
#undef FACT_ROW
};

/* The device's memory holds whatever the previous program left, so a
 * kernel that reads a buffer before writing it must not see zeros by
 * luck.  We fill with xorshift64 output from a fixed seed, different per
 * memory: deterministic (runs are reproducible, outputs comparable across
 * machines) yet clearly not zero. */
static void fill_garbage(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t x = seed;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < n; i++)
		p[i] = (unsigned char)(x >> (8 * (i & 7)));
}

/* Partitions lie PART_PAD bytes further apart in host memory than their
 * size.  Device addresses are per partition, so nothing a kernel can do
 * sees the pad; without it partitions of 192 or 16 KiB start at multiples
 * of 4 KiB, the same column of all 128 falls in one L1 set, and a tile of
 * short rows thrashes L1.  65 cache lines: one line over per partition in
 * L1 (its sets repeat every 4 KiB), 65 lines over in a 1 MiB 16-way L2
 * (sets repeat every 64 KiB, and on huge pages the address picks the set),
 * so rows of a few KiB spread over all of L2 instead of piling into the
 * first sets one line apart (measured: a 256 KiB tile's rows copied at
 * 26-31 GB/s with a 64-byte pad, 37-39 GB/s with this one). */
enum { PART_PAD = 4160 };

static int add_mem(kdsl_rt *rt, kdsl_mem mem, size_t parts, size_t part_bytes)
{
	size_t stride = parts > 1 ? part_bytes + PART_PAD : part_bytes;
	size_t n = parts * stride;

	/* The 128 partitions of sbuf are 128 pages apart: one tile row per
	 * partition touches more pages than the TLB holds.  Huge pages, where
	 * the system gives them on request, make the whole memory a dozen. */
	if (n >= HUGE_PAGE) {
		size_t whole = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
		rt->mem[mem] = aligned_alloc(HUGE_PAGE, whole);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
		if (rt->mem[mem])
			(void)madvise(rt->mem[mem], whole, MADV_HUGEPAGE);
#endif
	} else {
		rt->mem[mem] = aligned_alloc(KDSL_HOST_MEM_ALIGN, n);
	}
	if (!rt->mem[mem])
		return -1;
	rt->mem_bytes[mem] = n;
	rt->part_bytes[mem] = part_bytes;
	rt->part_stride[mem] = stride;
	rt->nparts[mem] = parts;
	fill_garbage(rt->mem[mem], n, 0x9e3779b97f4a7c15ull ^ (uint64_t)mem);
	return 0;
}

/* KDSL_THREADS: a count 1..KDSL_RT_MAX_THREADS, in decimal.  Another
 * value is named on stderr and ignored, as KDSL_CHECK's unknown words
 * are (kdsl_rt_create cannot report an error but by failing). */
static int threads_from_env(void)
{
	const char *e = getenv("KDSL_THREADS");
	char *end;
	long n;

	if (!e || !*e)
		return 1;
	errno = 0;
	n = strtol(e, &end, 10);
	if (errno || *end || n < 1 || n > KDSL_RT_MAX_THREADS) {
		fprintf(stderr, "kdsl: warning: KDSL_THREADS: '%s' is not a count 1..%d; 1 thread\n", e,
		        KDSL_RT_MAX_THREADS);
		return 1;
	}
	return (int)n;
}

kdsl_rt *kdsl_rt_create(kdsl_target target)
{
	kdsl_rt *rt;
	int bad = 0, m;

	if (target != KDSL_TARGET_NEURON && target != KDSL_TARGET_ASCEND &&
	    target != KDSL_TARGET_AIPU)
		return NULL;
	rt = calloc(1, sizeof *rt);
	if (!rt)
		return NULL;
	rt->head.target = target;
	rt->isa = kdsl_isa_detect();
	rt->threads = threads_from_env();
	for (m = 1; m < KDSL_NMEM; m++) {
		const mem_fact *mf = &mem_facts[m];
		if ((mf->targets & KDSL_TARGET_BIT(target)) && !mf->external)
			bad |= add_mem(rt, (kdsl_mem)m, mf->partitions ? mf->partitions : 1, mf->bytes);
	}
	if (bad) {
		kdsl_rt_destroy(rt);
		return NULL;
	}
	for (m = 1; m < KDSL_NMEM; m++)
		if (rt->mem[m]) {
			rt->head.mem_lo[m] = (uintptr_t)rt->mem[m];
			rt->head.mem_hi[m] = (uintptr_t)rt->mem[m] + rt->mem_bytes[m];
		}
	kdsl_check_from_env(rt);
	return rt;
}

int kdsl_rt_set_threads(kdsl_rt *rt, int n)
{
	if (!rt || n < 1 || n > KDSL_RT_MAX_THREADS)
		return KDSL_ERR_ARG;
	if (n != rt->threads) {
		/* nc_matmul's scratch holds edge areas per thread: the next
		 * matmul allocates it for the new count */
		free(rt->eng_scratch);
		rt->eng_scratch = NULL;
		kdsl_pool_destroy(rt->pool);
		rt->pool = NULL;
		rt->threads = n;
	}
	return KDSL_OK;
}

int kdsl_rt_threads(const kdsl_rt *rt)
{
	return rt ? rt->threads : 0;
}

void kdsl_rt_destroy(kdsl_rt *rt)
{
	int i;

	if (!rt)
		return;
	for (i = 0; i < KDSL_NMEM; i++) {
		free(rt->mem[i]);
		free(rt->shadow[i]);
	}
	free(rt->eng_scratch);
	kdsl_pool_destroy(rt->pool);
	free(rt);
}

kdsl_target kdsl_rt_target(const kdsl_rt *rt)
{
	return rt ? rt->head.target : (kdsl_target)0;
}

const char *kdsl_rt_last_error(const kdsl_rt *rt)
{
	return rt && rt->head.has_error ? rt->err : "";
}

size_t kdsl_rt_last_error_locus(const kdsl_rt *rt)
{
	return rt && rt->head.has_error ? rt->err_locus : 0;
}

void kdsl_rt_clear_error(kdsl_rt *rt)
{
	if (rt) {
		rt->err_locus = 0;
		rt->err[0] = '\0';
		rt->head.has_error = 0;
	}
}

unsigned char *kdsl_rt_mem(kdsl_rt *rt, kdsl_mem mem, size_t *bytes)
{
	if (bytes)
		*bytes = 0;
	if (!rt || (int)mem <= 0 || (int)mem >= KDSL_NMEM || !rt->mem[mem])
		return NULL;
	if (bytes)
		*bytes = rt->mem_bytes[mem];
	return rt->mem[mem];
}

size_t kdsl_rt_partition_bytes(const kdsl_rt *rt, kdsl_mem mem)
{
	if (!rt || (int)mem <= 0 || (int)mem >= KDSL_NMEM)
		return 0;
	return rt->part_bytes[mem];
}

size_t kdsl_rt_partition_stride(const kdsl_rt *rt, kdsl_mem mem)
{
	if (!rt || (int)mem <= 0 || (int)mem >= KDSL_NMEM)
		return 0;
	return rt->part_stride[mem];
}

/* Formats "file:line:col: op: message"; vsnprintf truncates safely when
 * the message does not fit the fixed buffer. */
static void set_error(kdsl_rt *rt, const kdsl_site *site, const char *fmt, va_list ap)
{
	size_t n = 0;
	int k;

	rt->head.has_error = 1;
	rt->err_locus = 0;
	if (site) {
		k = snprintf(rt->err, sizeof rt->err, "%s:%d:%d: ",
		             site->file ? site->file : "<unknown>", site->line, site->col);
		if (k > 0)
			n = (size_t)k < sizeof rt->err ? (size_t)k : sizeof rt->err - 1;
		/* the locus without its ": ", when all of it fit */
		if (k > 2 && (size_t)k < sizeof rt->err)
			rt->err_locus = (size_t)k - 2;
		if (site->op && n < sizeof rt->err - 1) {
			k = snprintf(rt->err + n, sizeof rt->err - n, "%s: ", site->op);
			if (k > 0)
				n += (size_t)k < sizeof rt->err - n ? (size_t)k : sizeof rt->err - n - 1;
		}
	}
	if (n < sizeof rt->err - 1)
		vsnprintf(rt->err + n, sizeof rt->err - n, fmt, ap);
}

/* A NULL fmt records a fixed text rather than passing NULL to
 * vsnprintf (undefined): an embedder's error path must not crash. */
int kdsl_rt_fail(kdsl_rt *rt, const kdsl_site *site, int code, const char *fmt, ...)
{
	va_list ap;

	if (!rt)
		return code;
	va_start(ap, fmt);
	set_error(rt, site, fmt ? fmt : "error without a message", ap);
	va_end(ap);
	return code;
}

/* A kernel's run starts with a clean error, so last_error always
 * describes the latest kernel.  Generated kernels do the common case
 * inline (kdsl_rt_try_enter, kdsl_rt.h: only head.has_error cleared, so
 * last_error reads it) and call this only for the error. */
int kdsl_rt_enter(kdsl_rt *rt, kdsl_target target, const char *kernel)
{
	if (!rt)
		return KDSL_ERR_ARG;
	rt->err[0] = '\0';
	rt->err_locus = 0;
	rt->head.has_error = 0;
	if (rt->head.target != target)
		return kdsl_rt_fail(rt, NULL, KDSL_ERR_TARGET,
		                    "kernel '%s' is for target %s but the runtime was created for %s",
		                    kernel ? kernel : "?", kdsl_target_name(target),
		                    kdsl_target_name(rt->head.target));
	return KDSL_OK;
}

int kdsl_rt_null_param(kdsl_rt *rt, const char *kernel, const char *param)
{
	return kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, "kernel '%s': parameter '%s' is NULL",
	                    kernel ? kernel : "?", param ? param : "?");
}
