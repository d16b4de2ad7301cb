/* check.c: the runtime's checking modes; today the uninitialised-read
 * checker (KDSL_CHECK_UNINIT, kdsl_rt.h).  The ops call it at their entry,
 * after every rule is checked and before they work: each source operand's
 * read bytes must have been written, then the destination's written bytes
 * are marked (so an in-place op reads before it writes, as the ops do).
 * Nothing here runs while the mode is off: the ops test rt->head.check
 * once, and the shadow does not exist. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* The shadow byte of p, in memory mem (which has one). */
static unsigned char *shadow_of(const kdsl_rt *rt, kdsl_mem mem, const unsigned char *p)
{
	return rt->shadow[mem] + ((uintptr_t)p - (uintptr_t)rt->mem[mem]);
}

/* Whether p..p+len-1 lies in memory mem's shadowed bytes.  The ops
 * refuse an on-chip operand outside the runtime's memory before they get
 * here; this stays a guard, so that a missed case is untracked rather
 * than a wild shadow write (addresses as integers: p may point into
 * another object). */
static int tracked(const kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t len)
{
	uintptr_t m, a = (uintptr_t)p;

	if ((int)mem <= 0 || (int)mem >= KDSL_NMEM || !rt->shadow[mem])
		return 0;
	m = (uintptr_t)rt->mem[mem];
	return a >= m && a - m <= rt->mem_bytes[mem] && len <= rt->mem_bytes[mem] - (a - m);
}

size_t kdsl_uninit_first(const kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t len)
{
	const unsigned char *s;
	uint64_t pat, w;
	size_t i = 0;

	if (!tracked(rt, mem, p, len))
		return len;
	s = shadow_of(rt, mem, p);
	pat = 0x0101010101010101ull * rt->epoch;
	/* 64 shadow bytes a test, in a loop without an early exit that the
	 * compiler vectorises (tiles are kilobytes: a byte loop was most of
	 * the check's cost); the bytes of a failing block are found below */
	for (; i + 64 <= len; i += 64) {
		uint64_t acc = 0;
		int k;
		for (k = 0; k < 8; k++) {
			memcpy(&w, s + i + 8 * k, 8);
			acc |= w ^ pat;
		}
		if (acc)
			break;
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (w != pat)
			break;
	}
	for (; i < len; i++)
		if (s[i] != rt->epoch)
			return i;
	return len;
}

void kdsl_uninit_mark(kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t len)
{
	if (tracked(rt, mem, p, len))
		memset(shadow_of(rt, mem, p), rt->epoch, len);
}

int kdsl_uninit_rows(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                     kdsl_mem mem, const unsigned char *p, size_t stride, int64_t rows, size_t len)
{
	int64_t r;
	size_t k;

	for (r = 0; r < rows; r++, p += stride)
		if ((k = kdsl_uninit_first(rt, mem, p, len)) < len)
			return kdsl_uninit_fail(rt, site, what, base, mem, p + k);
	return KDSL_OK;
}

void kdsl_uninit_mark_rows(kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t stride, int64_t rows,
                           size_t len)
{
	int64_t r;

	for (r = 0; r < rows; r++, p += stride)
		kdsl_uninit_mark(rt, mem, p, len);
}

/* The kernel's buffer (kdsl_rt_check_buffers) holding byte q, b
 * (partition, byte in it; q 0 when not partitioned) of memory mem, that
 * also holds the operand's first byte bq, bb: buffers may share bytes
 * (neuron's direct allocation), the operand's own is meant.  NULL when
 * none does (an op called outside a kernel). */
static const kdsl_buffer *buffer_at(const kdsl_rt *rt, kdsl_mem mem, size_t q, size_t b, size_t bq, size_t bb)
{
	const kdsl_buffer *k, *found = NULL;
	size_t i;

	/* by index: bufs + nbufs is never formed, so a table passed with a
	 * huge n cannot overflow the pointer before its entries run out */
	for (i = 0; rt->bufs && i < rt->nbufs; i++) {
		k = &rt->bufs[i];
		int in = k->mem == mem && q < k->parts && b >= k->off && b - k->off < k->bytes;
		if (in && bq < k->parts && bb >= k->off && bb - k->off < k->bytes)
			return k;
		if (in && !found)
			found = k;
	}
	return found;
}

/* The message names the byte in the memory and in the operand's buffer:
 * by its .k name when the kernel passed its buffers, else the buffer's
 * (a neuron tile's storage, an ascend tensor) place in the memory;
 * partition and byte for a partitioned memory. */
int kdsl_uninit_fail(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                     kdsl_mem mem, const unsigned char *at)
{
	size_t off = (size_t)((uintptr_t)at - (uintptr_t)rt->mem[mem]);
	size_t boff = (size_t)((uintptr_t)base - (uintptr_t)rt->mem[mem]);
	size_t ps = rt->part_stride[mem], q = 0, b = off, bq = 0, bb = boff;
	const char *m = kdsl_mem_name(mem), *name = "";
	const kdsl_buffer *k;
	char part[48] = "", where[64] = "";

	if (rt->nparts[mem] > 1) {
		q = off / ps;
		b = off % ps;
		bq = boff / ps;
		bb = boff % ps;
	}
	k = buffer_at(rt, mem, q, b, bq, bb);
	if (k) {
		name = k->name ? k->name : "?";   /* an embedder's table may lack names */
		bq = 0;
		bb = k->off;
	}
	if (rt->nparts[mem] > 1)
		snprintf(part, sizeof part, " of partition %zu", q - bq);
	if (!k)
		snprintf(where, sizeof where, " of the %s at %s byte %zu", rt->nparts[mem] > 1 ? "tile" : "tensor", m,
		         bb);
	if (rt->nparts[mem] > 1)
		return kdsl_rt_fail(rt, site, KDSL_ERR_UNINIT,
		                    "%s reads unwritten %s: byte %zu%s%s%s%s%s (%s partition %zu, byte %zu) was not "
		                    "written since the kernel started", what, m, b - bb, part, k ? " of '" : "",
		                    name, k ? "'" : "", where, m, q, b);
	return kdsl_rt_fail(rt, site, KDSL_ERR_UNINIT,
	                    "%s reads unwritten %s: byte %zu%s%s%s%s (%s byte %zu) was not written since the kernel "
	                    "started", what, m, off - bb, k ? " of '" : "", name, k ? "'" : "", where, m,
	                    off);
}

/* ---- the public side ---- */

static void free_shadows(kdsl_rt *rt)
{
	int m;

	for (m = 0; m < KDSL_NMEM; m++) {
		free(rt->shadow[m]);
		rt->shadow[m] = NULL;
	}
}

/* A zeroed shadow for every memory the runtime has, epoch 1: nothing
 * written.  -1 (and none kept) when out of memory. */
static int alloc_shadows(kdsl_rt *rt)
{
	int m;

	for (m = 0; m < KDSL_NMEM; m++) {
		if (!rt->mem[m] || rt->shadow[m])
			continue;
		rt->shadow[m] = calloc(1, rt->mem_bytes[m]);
		if (!rt->shadow[m]) {
			free_shadows(rt);
			return -1;
		}
	}
	rt->epoch = 1;
	return 0;
}

int kdsl_rt_set_check(kdsl_rt *rt, unsigned checks)
{
	if (!rt)
		return KDSL_ERR_ARG;
	if (checks & ~(unsigned)KDSL_CHECK_UNINIT)
		return kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, "unknown check bits 0x%x",
		                    checks & ~(unsigned)KDSL_CHECK_UNINIT);
	if (checks & KDSL_CHECK_UNINIT) {
		free_shadows(rt);   /* on again: forget every write */
		if (alloc_shadows(rt) < 0)
			return kdsl_rt_fail(rt, NULL, KDSL_ERR_NOMEM, "out of memory for the uninit check's shadow");
	} else {
		free_shadows(rt);
	}
	rt->head.check = checks;
	return KDSL_OK;
}

unsigned kdsl_rt_check(const kdsl_rt *rt)
{
	return rt ? rt->head.check : 0;
}

void kdsl_rt_check_buffers(kdsl_rt *rt, const kdsl_buffer *bufs, size_t n)
{
	if (!rt)
		return;
	rt->bufs = bufs;
	rt->nbufs = bufs ? n : 0;
}

void kdsl_rt_check_start(kdsl_rt *rt)
{
	int m;

	if (!rt)
		return;
	rt->bufs = NULL;
	rt->nbufs = 0;
	if (!(rt->head.check & KDSL_CHECK_UNINIT))
		return;
	if (++rt->epoch)
		return;
	/* every 255 kernels: no byte may still hold a live epoch */
	for (m = 0; m < KDSL_NMEM; m++)
		if (rt->shadow[m])
			memset(rt->shadow[m], 0, rt->mem_bytes[m]);
	rt->epoch = 1;
}

int kdsl_rt_check_mark(kdsl_rt *rt, kdsl_mem mem, size_t off, size_t len)
{
	if (!rt)
		return KDSL_ERR_ARG;
	if ((int)mem <= 0 || (int)mem >= KDSL_NMEM || !rt->mem[mem] || off > rt->mem_bytes[mem] ||
	    len > rt->mem_bytes[mem] - off)
		return kdsl_rt_fail(rt, NULL, KDSL_ERR_ARG, "bytes %zu..+%zu are not in this runtime's %s", off, len,
		                    (int)mem > 0 && (int)mem < KDSL_NMEM ? kdsl_mem_name(mem) : "memory");
	kdsl_uninit_mark(rt, mem, rt->mem[mem] + off, len);
	return KDSL_OK;
}

/* KDSL_CHECK's words, comma-separated: "uninit" turns the uninit check
 * on; "" and "none" nothing.  Another word is named on stderr and
 * ignored (kdsl_rt_create cannot report an error but by failing, and a
 * typo should not stop the program it was meant to debug). */
void kdsl_check_from_env(kdsl_rt *rt)
{
	const char *e = getenv("KDSL_CHECK"), *w;
	unsigned on = 0;
	size_t n;

	if (!e)
		return;
	for (w = e; *w; w += n + (w[n] == ',')) {
		n = strcspn(w, ",");
		if (n == 6 && !strncmp(w, "uninit", 6))
			on |= KDSL_CHECK_UNINIT;
		else if (n && !(n == 4 && !strncmp(w, "none", 4)))
			fprintf(stderr, "kdsl: warning: KDSL_CHECK: unknown check '%.*s' ignored (known: uninit)\n",
			        (int)n, w);
	}
	if (on && kdsl_rt_set_check(rt, on) != KDSL_OK)
		fprintf(stderr, "kdsl: warning: KDSL_CHECK=%s: %s\n", e, kdsl_rt_last_error(rt));
	kdsl_rt_clear_error(rt);
}
