/* bench_mem.c: aipu's strided and gathered loads as kdslc emits them (the
 * kernels of bench/mem.k, generated at build time with the project's
 * flags) against the same loops written by hand in C, built here with the
 * same flags, and memcpy of the bytes each moves.  Times are per call;
 * both sides read and write the same buffers.  The kernels check every
 * lane's range (the stride once per vector, the gather's indices in one
 * pass over each index vector); the hand-written loops check nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mem.h"

#define NOINLINE __attribute__((noinline))
enum { PAIRS = 65536, TABLE = 4096 };

typedef struct {
	kdsl_rt *rt;
	float *x, *even, *odd, *table, *y;
	uint16_t *index;
} mem_ctx;

NOINLINE static void hand_deinterleave(const float *x, float *even, float *odd)
{
	for (int i = 0; i < PAIRS; i++) {
		even[i] = x[2 * i];
		odd[i] = x[2 * i + 1];
	}
}

NOINLINE static void hand_gather(const float *table, const uint16_t *index, float *y)
{
	for (int i = 0; i < PAIRS; i++)
		y[i] = table[index[i]];
}

static void k_deint(void *v)
{
	mem_ctx *c = v;
	m_deinterleave(c->rt, c->x, c->even, c->odd);
	bench_sink(c->even);
}

static void h_deint(void *v)
{
	mem_ctx *c = v;
	hand_deinterleave(c->x, c->even, c->odd);
	bench_sink(c->even);
}

static void c_deint(void *v)
{
	mem_ctx *c = v;
	memcpy(c->even, c->x, (size_t)PAIRS * 4);
	memcpy(c->odd, c->x + PAIRS, (size_t)PAIRS * 4);
	bench_sink(c->even);
}

static void k_gather(void *v)
{
	mem_ctx *c = v;
	m_gather(c->rt, c->table, c->index, c->y);
	bench_sink(c->y);
}

static void h_gather(void *v)
{
	mem_ctx *c = v;
	hand_gather(c->table, c->index, c->y);
	bench_sink(c->y);
}

static void c_gather(void *v)
{
	mem_ctx *c = v;
	memcpy(c->y, c->x, (size_t)PAIRS * 4);
	bench_sink(c->y);
}

/* The kernel and the hand-written loop must give the same bytes. */
static int same(bench_fn k, bench_fn h, mem_ctx *c, float *out, size_t bytes)
{
	float *want = malloc(bytes);
	int ok;
	k(c);
	memcpy(want, out, bytes);
	memset(out, 0, bytes);
	h(c);
	ok = !memcmp(want, out, bytes);
	free(want);
	return ok;
}

static void row(const char *op, const char *variant, size_t bytes, const bench_time *t)
{
	bench_row r;
	memset(&r, 0, sizeof r);
	r.op = op;
	r.variant = variant;
	r.bytes = bytes;
	r.kdsl = t[0];
	r.hand = t[1];
	r.memcpy_ = t[2];
	bench_print_row(&r);
}

void bench_mem(int quick)
{
	mem_ctx c;
	bench_time t[3];
	(void)quick;
	c.rt = kdsl_rt_create(KDSL_TARGET_AIPU);
	c.x = bench_buf((size_t)PAIRS * 8, 21);
	c.even = bench_buf((size_t)PAIRS * 4, 22);
	c.odd = bench_buf((size_t)PAIRS * 4, 23);
	c.table = bench_buf((size_t)TABLE * 4, 24);
	c.y = bench_buf((size_t)PAIRS * 4, 25);
	c.index = bench_buf((size_t)PAIRS * 2, 26);
	for (int i = 0; i < PAIRS; i++)
		c.index[i] &= TABLE - 1;
	if (!c.rt || !same(k_deint, h_deint, &c, c.even, (size_t)PAIRS * 4) ||
	    !same(k_gather, h_gather, &c, c.y, (size_t)PAIRS * 4)) {
		fprintf(stderr, "kdsl-bench: a hand-written memory loop differs from its kernel\n");
	} else {
		bench_runs((const bench_fn[]){k_deint, h_deint, c_deint}, 3, &c, t);
		row("aipu strided vload", "64K f32 pairs de-interleaved (stride=2)", (size_t)PAIRS * 8, t);
		bench_runs((const bench_fn[]){k_gather, h_gather, c_gather}, 3, &c, t);
		row("aipu vload_gather", "64K f32 from a 4096-entry table (u16 index)", (size_t)PAIRS * 4, t);
	}
	free(c.x);
	free(c.even);
	free(c.odd);
	free(c.table);
	free(c.y);
	free(c.index);
	kdsl_rt_destroy(c.rt);
}
