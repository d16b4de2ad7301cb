/* ascend.c: the TIK ops of seed 001 (data_move) and the vector ops its
 * examples use (vec_dup, vec_add).  Each op checks every rule before it
 * touches memory, so an op that fails writes nothing.  Arguments are
 * int64 and may be anything, so the checks run in an order that keeps all
 * later arithmetic inside 64 bits: ranges first (which bound the counts
 * and strides), then offsets against sizes using unsigned differences. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ascend_vec.h"
#include "rt_internal.h"

#define BLOCK KDSL_ASCEND_BLOCK   /* bytes: the unit of bursts and strides */

/* The first k in 0..n-1 whose access [off + k*step, +len) leaves a
 * tensor of `bytes`, or -1 when all are inside.  off >= 0, step >= 0,
 * len > 0, and n*step stays far below 2^63 after the range checks. */
static int64_t first_outside(size_t bytes, int64_t off, int64_t n, int64_t step, int64_t len)
{
	uint64_t size = bytes, room, k;

	if (n <= 0)
		return -1;
	if ((uint64_t)off > size || size - (uint64_t)off < (uint64_t)len)
		return 0;
	room = size - (uint64_t)off - (uint64_t)len;
	/* The common case without a division: a 64-bit divide costs more
	 * than a short burst's copy. */
	if (step == 0 || (uint64_t)(n - 1) * (uint64_t)step <= room)
		return -1;
	k = room / (uint64_t)step + 1;
	return k < (uint64_t)n ? (int64_t)k : -1;
}

static int check_bounds(kdsl_rt *rt, const kdsl_site *site, const char *what,
                        const char *unit, const char *verb, size_t bytes,
                        int64_t off, int64_t n, int64_t step, int64_t len)
{
	int64_t k = first_outside(bytes, off, n, step, len);
	uint64_t lo;

	if (k < 0)
		return KDSL_OK;
	lo = (uint64_t)off + (uint64_t)k * (uint64_t)step;
	return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
	                    "%s %s %" PRId64 " %s bytes %" PRIu64 "..%" PRIu64
	                    " outside the tensor of %zu bytes",
	                    what, unit, k, verb, lo, lo + (uint64_t)len - 1, bytes);
}

static int check_range(kdsl_rt *rt, const kdsl_site *site, const char *what,
                       int64_t v, int64_t lo, int64_t hi)
{
	if (v >= lo && v <= hi)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s must be in %" PRId64 "..%" PRId64
	                    ", got %" PRId64, what, lo, hi, v);
}

/* A NULL base, a negative offset, an on-chip tensor that is not inside
 * this runtime's memory (whose bytes the op could not trust), and the
 * 32-byte rule of ub and l1: a rule about the address in the on-chip
 * memory, so the operand's position there counts too. */
static int check_operand(kdsl_rt *rt, const kdsl_site *site, const char *what,
                         const unsigned char *base, size_t bytes, kdsl_mem mem, int64_t off)
{
	uint64_t at;

	if (!base)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor is NULL", what);
	if (off < 0)
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s offset must be >= 0, got byte offset %" PRId64, what, off);
	if (mem != KDSL_MEM_UB && mem != KDSL_MEM_L1)
		return KDSL_OK;
	if (!kdsl_rt_holds_(rt, mem, base, bytes))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor of %zu bytes is not in this runtime's %s",
		                    what, bytes, kdsl_mem_name(mem));
	at = (uint64_t)((uintptr_t)base - (uintptr_t)rt->mem[mem]);
	if ((at + (uint64_t)off) % KDSL_ASCEND_ALIGN == 0)
		return KDSL_OK;
	if (at % KDSL_ASCEND_ALIGN == 0)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ALIGN,
		                    "%s address in %s must be %d-byte aligned, got byte offset %" PRId64,
		                    what, kdsl_mem_name(mem), KDSL_ASCEND_ALIGN, off);
	return kdsl_rt_fail(rt, site, KDSL_ERR_ALIGN,
	                    "%s address in %s must be %d-byte aligned, got %s address %" PRIu64
	                    " (tensor at %" PRIu64 ", byte offset %" PRId64 ")",
	                    what, kdsl_mem_name(mem), KDSL_ASCEND_ALIGN, kdsl_mem_name(mem), at + (uint64_t)off,
	                    at, off);
}

/* The byte spans of nburst bursts of len bytes at d and s share a byte
 * (addresses compared as integers: the operands are separate objects). */
static int spans_overlap(const unsigned char *d, int64_t nburst, int64_t dstep,
                         const unsigned char *s, int64_t sstep, int64_t len)
{
	uintptr_t ds = (uintptr_t)d, ss = (uintptr_t)s;
	uintptr_t de = ds + (uintptr_t)((nburst - 1) * dstep + len);
	uintptr_t se = ss + (uintptr_t)((nburst - 1) * sstep + len);
	return ds < se && ss < de;
}

/* len (a multiple of 32, at most 256) bytes as fixed-size copies that the
 * compiler inlines as vector moves. */
static void copy_blocks(unsigned char *d, const unsigned char *s, int64_t len)
{
	int64_t o;
	for (o = 0; o < len; o += BLOCK)
		memcpy(d + o, s + o, BLOCK);
}

/* ---- the uninit check (KDSL_CHECK_UNINIT, check.c) ----
 * Called at an op's entry when rt->head.check is set, after every rule
 * and before any work: step by step (burst or repeat, in the device's
 * order, so an overlapping ub->ub move may read what its earlier bursts
 * wrote), the bytes read must have been written, then the bytes written
 * are marked.  gm has no shadow: the caller's tensors read as written. */

/* A data_move's bursts. */
static int uninit_move(kdsl_rt *rt, const kdsl_site *site, const kdsl_ref *dst, int64_t dst_off,
                       const kdsl_cref *src, int64_t src_off, int64_t nburst, int64_t len, int64_t dstep,
                       int64_t sstep)
{
	int64_t k;
	int rc;

	for (k = 0; k < nburst; k++) {
		if ((rc = kdsl_uninit_rows(rt, site, "src", src->base, src->mem, src->base + src_off + k * sstep, 0, 1,
		                           (size_t)len)))
			return rc;
		kdsl_uninit_mark(rt, dst->mem, dst->base + dst_off + k * dstep, (size_t)len);
	}
	return KDSL_OK;
}

int kdsl_ascend_data_move(kdsl_rt *rt, const kdsl_site *site,
                          kdsl_ref dst, int64_t dst_off,
                          kdsl_cref src, int64_t src_off,
                          int64_t sid, int64_t nburst, int64_t burst,
                          int64_t src_stride, int64_t dst_stride)
{
	int64_t len, sstep, dstep, k;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_range(rt, site, "sid", sid, 0, KDSL_ASCEND_SID_MAX)) ||
	    (rc = check_range(rt, site, "nburst", nburst, 1, KDSL_ASCEND_NBURST_MAX)) ||
	    (rc = check_range(rt, site, "burst", burst, 1, KDSL_ASCEND_BURST_MAX)) ||
	    (rc = check_range(rt, site, "src_stride", src_stride, 0, KDSL_ASCEND_STRIDE_MAX)) ||
	    (rc = check_range(rt, site, "dst_stride", dst_stride, 0, KDSL_ASCEND_STRIDE_MAX)))
		return rc;
	if (!kdsl_ascend_move_allowed(src.mem, dst.mem))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG,
		                    "cannot move from %s to %s (allowed: " KDSL_ASCEND_MOVE_PAIRS_TEXT ")",
		                    kdsl_mem_name(src.mem), kdsl_mem_name(dst.mem));
	if ((rc = check_operand(rt, site, "dst", dst.base, dst.bytes, dst.mem, dst_off)) ||
	    (rc = check_operand(rt, site, "src", src.base, src.bytes, src.mem, src_off)))
		return rc;
	len = burst * BLOCK;
	sstep = (burst + src_stride) * BLOCK;
	dstep = (burst + dst_stride) * BLOCK;
	if ((rc = check_bounds(rt, site, "src", "burst", "reads", src.bytes, src_off, nburst, sstep, len)) ||
	    (rc = check_bounds(rt, site, "dst", "burst", "writes", dst.bytes, dst_off, nburst, dstep, len)))
		return rc;
	if (rt->head.check && (rc = uninit_move(rt, site, &dst, dst_off, &src, src_off, nburst, len, dstep, sstep)))
		return rc;
	/* Contiguous on both sides: one copy.  When ub->ub spans overlap,
	 * one memmove equals the bursts in order only if dst does not lie
	 * after src (no burst then overwrites a byte a later burst reads);
	 * dst after src goes burst by burst below. */
	if (src_stride == 0 && dst_stride == 0 &&
	    (dst.base + dst_off <= src.base + src_off ||
	     !spans_overlap(dst.base + dst_off, 1, 0, src.base + src_off, 0, nburst * len))) {
		memmove(dst.base + dst_off, src.base + src_off, (size_t)(nburst * len));
		return KDSL_OK;
	}
	/* Burst by burst in order, as the device issues them.  Only ub->ub
	 * can overlap; otherwise short bursts go as inline 32-byte copies
	 * (a library call per 32-byte burst would cost more than the copy). */
	if (!spans_overlap(dst.base + dst_off, nburst, dstep, src.base + src_off, sstep, len)) {
		unsigned char *d = dst.base + dst_off;
		const unsigned char *s = src.base + src_off;
		if (len == BLOCK) {
			for (k = 0; k < nburst; k++, d += dstep, s += sstep)
				memcpy(d, s, BLOCK);
		} else if (len <= 8 * BLOCK) {
			for (k = 0; k < nburst; k++, d += dstep, s += sstep)
				copy_blocks(d, s, len);
		} else {
			for (k = 0; k < nburst; k++, d += dstep, s += sstep)
				memcpy(d, s, (size_t)len);
		}
		return KDSL_OK;
	}
	/* Overlapping ub->ub: the bursts in order, each one atomic (it reads
	 * all its bytes before it writes, so memmove), later bursts reading
	 * what earlier ones wrote; see docs/language.md "data_move". */
	for (k = 0; k < nburst; k++)
		memmove(dst.base + dst_off + k * dstep, src.base + src_off + k * sstep, (size_t)len);
	return KDSL_OK;
}

/* ---- vector ops ---- */

/* One repeat's operand, copied out so a repeat reads all its inputs before
 * it writes (in-place and overlapping operands then behave as on the
 * device, repeat by repeat). */
typedef union {
	unsigned char b[KDSL_ASCEND_REPEAT_BYTES];
	uint16_t u16[KDSL_ASCEND_REPEAT_BYTES / 2];
	uint32_t u32[KDSL_ASCEND_REPEAT_BYTES / 4];
	float f32[KDSL_ASCEND_REPEAT_BYTES / 4];
} vreg;

/* The element dtypes of each op's TIK page, on the seed's products: a
 * bit per kdsl_dtype and the list as the error names it. */
typedef struct {
	unsigned bits;
	const char *text;
} vec_dtypes;

#define VDT(d) (1u << (d))
static const vec_dtypes DUP_DTYPES = {VDT(KDSL_I16) | VDT(KDSL_U16) | VDT(KDSL_I32) | VDT(KDSL_U32) |
                                      VDT(KDSL_F16) | VDT(KDSL_F32), "i16, u16, i32, u32, f16, f32"};
/* vec_add, vec_sub, vec_mul, vec_max, vec_min: float16, float32, int32 */
static const vec_dtypes BINARY_DTYPES = {VDT(KDSL_I32) | VDT(KDSL_F16) | VDT(KDSL_F32), "i32, f16, f32"};
/* vec_adds, vec_muls, vec_abs, vec_exp, vec_ln, vec_rec: float16, float32 */
static const vec_dtypes FLOAT_DTYPES = {VDT(KDSL_F16) | VDT(KDSL_F32), "f16, f32"};
/* vec_relu: float16 */
static const vec_dtypes F16_DTYPES = {VDT(KDSL_F16), "f16"};

/* The checks vec_dup and vec_add share for one operand: in ub, not NULL,
 * offset >= 0 and aligned.  Bounds follow once all ranges are known. */
static int check_vec_operand(kdsl_rt *rt, const kdsl_site *site, const char *what,
                             const unsigned char *base, size_t bytes, kdsl_mem mem, int64_t off)
{
	if (mem != KDSL_MEM_UB)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be in ub, got %s",
		                    what, kdsl_mem_name(mem));
	return check_operand(rt, site, what, base, bytes, mem, off);
}

/* One operand of a vector op: dst first, then its sources. */
typedef struct {
	const char *name, *stride_name;   /* "src0", "src0_rep_stride" */
	const unsigned char *base;
	size_t bytes;
	kdsl_mem mem;
	int64_t off, rep_stride, size;    /* size: its element bytes */
	int64_t step;                     /* out: bytes between repeats */
} vec_opnd;

/* The per-operand checks every vector op makes, in one order for all
 * (each rep stride, then each operand's place, then each operand's
 * repeats inside its tensor, dst first), so the first error a call
 * reports does not depend on the op: n elements a repeat, repeat_times
 * repeats.  Sets each operand's step. */
static int check_vec_opnds(kdsl_rt *rt, const kdsl_site *site, vec_opnd *o, int nop, int64_t repeat_times,
                           int64_t n)
{
	int i, rc;

	for (i = 0; i < nop; i++)
		if ((rc = check_range(rt, site, o[i].stride_name, o[i].rep_stride, 0, KDSL_ASCEND_REP_STRIDE_MAX)))
			return rc;
	for (i = 0; i < nop; i++)
		if ((rc = check_vec_operand(rt, site, o[i].name, o[i].base, o[i].bytes, o[i].mem, o[i].off)))
			return rc;
	for (i = 0; i < nop; i++) {
		o[i].step = o[i].rep_stride * BLOCK;
		if ((rc = check_bounds(rt, site, o[i].name, "repeat", i ? "reads" : "writes", o[i].bytes, o[i].off,
		                       repeat_times, o[i].step, n * o[i].size)))
			return rc;
	}
	return KDSL_OK;
}

/* The mask (as the element bits of a repeat) and repeat_times, for
 * repeats of elements of dtype dt (vec_conv's wider operand).
 * Continuous: 1..256/size elements.  Bitwise: not [0, 0], and mask_h 0
 * where a repeat has 64 elements or fewer (4-byte dtypes). */
static int check_vec_mask(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask mask,
                          int64_t repeat_times, kdsl_ascend_bits *bits)
{
	int64_t max = KDSL_ASCEND_REPEAT_BYTES / (int64_t)kdsl_dtype_size(dt);

	if (!mask.bits) {
		if (mask.count < 1 || mask.count > max)
			return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
			                    "mask must be in 1..%" PRId64 " for %s, got %" PRId64,
			                    max, kdsl_dtype_name(dt), mask.count);
		*bits = kdsl_ascend_bits_count(mask.count);
	} else {
		if (max <= 64 && mask.h)
			return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
			                    "mask_h must be 0 for %s (%" PRId64 " elements a repeat), got 0x%" PRIx64,
			                    kdsl_dtype_name(dt), max, mask.h);
		if (!mask.h && !mask.l)
			return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
			                    "a bitwise mask must enable at least one element, got [0, 0]");
		bits->h = mask.h;
		bits->l = mask.l;
	}
	return check_range(rt, site, "repeat_times", repeat_times, 0, KDSL_ASCEND_REPEAT_MAX);
}

/* The dtype (one of the op's list), then the mask and repeat_times. */
static int check_vec_common(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, const vec_dtypes *ok,
                            kdsl_ascend_mask mask, int64_t repeat_times, kdsl_ascend_bits *bits)
{
	if ((unsigned)dt >= 32 || !(ok->bits & VDT(dt)))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dtype must be one of %s, got %s",
		                    ok->text, kdsl_dtype_name(dt));
	return check_vec_mask(rt, site, dt, mask, repeat_times, bits);
}

/* Does the mask enable every element up to its span (the continuous
 * form, or a bitwise one that equals it)? */
static int bits_dense(kdsl_ascend_bits m)
{
	kdsl_ascend_bits c = kdsl_ascend_bits_count(kdsl_ascend_bits_span(m));
	return c.h == m.h && c.l == m.l;
}

static int bit_set(kdsl_ascend_bits m, int64_t i)
{
	return (int)((i < 64 ? m.l >> i : m.h >> (i - 64)) & 1);
}

/* The uninit check of a vector op (see uninit_move). */
/* The next run of enabled elements of a repeat at or after *i (of n):
 * [*i, return value), empty at the end.  dense: all n are enabled. */
static int64_t next_run(kdsl_ascend_bits bits, int dense, int64_t n, int64_t *i)
{
	int64_t j;

	if (dense)
		return n;
	for (; *i < n && !bit_set(bits, *i); ++*i)
		;
	for (j = *i; j < n && bit_set(bits, j); j++)
		;
	return j;
}

/* A vector op's repeats: the mask's elements of each source (nsrc of
 * them, src[k] at its offset and repeat step, elements of ssize bytes),
 * then dst's (of dsize: vec_conv's differ). */
static int uninit_vec(kdsl_rt *rt, const kdsl_site *site, kdsl_ascend_bits bits, int64_t n, int64_t dsize,
                      int64_t ssize, int64_t repeat_times, const kdsl_ref *dst, int64_t dst_off, int64_t dstep,
                      int nsrc, const char *const *names, const kdsl_cref *src, const int64_t *soff,
                      const int64_t *sstep)
{
	int64_t r, i, j;
	int k, rc, dense = bits_dense(bits);

	for (r = 0; r < repeat_times; r++) {
		for (k = 0; k < nsrc; k++)
			for (i = 0; (j = next_run(bits, dense, n, &i)) > i; i = j)
				if ((rc = kdsl_uninit_rows(rt, site, names[k], src[k].base, src[k].mem,
				                           src[k].base + soff[k] + r * sstep[k] + i * ssize, 0, 1,
				                           (size_t)((j - i) * ssize))))
					return rc;
		for (i = 0; (j = next_run(bits, dense, n, &i)) > i; i = j)
			kdsl_uninit_mark(rt, dst->mem, dst->base + dst_off + r * dstep + i * dsize, (size_t)((j - i) * dsize));
	}
	return KDSL_OK;
}

int kdsl_ascend_vec_dup(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                        kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                        double scalar, int64_t repeat_times, int64_t dst_rep_stride)
{
	unsigned char one[8];
	vreg pat;
	kdsl_ascend_bits bits;
	size_t size;
	int64_t n, len, step, r, i;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_vec_common(rt, site, dt, &DUP_DTYPES, mask, repeat_times, &bits)))
		return rc;
	size = kdsl_dtype_size(dt);
	n = kdsl_ascend_bits_span(bits);
	len = n * (int64_t)size;
	vec_opnd o[1] = {{"dst", "dst_rep_stride", dst.base, dst.bytes, dst.mem, dst_off, dst_rep_stride, (int64_t)size, 0}};
	if ((rc = check_vec_opnds(rt, site, o, 1, repeat_times, n)))
		return rc;
	step = o[0].step;
	if (rt->head.check)
		(void)uninit_vec(rt, site, bits, n, (int64_t)size, (int64_t)size, repeat_times, &dst, dst_off, step,
		                 0, NULL, NULL, NULL, NULL);
	kdsl_store_value(dt, one, scalar);
	if (!bits_dense(bits)) {
		/* bitwise: the enabled elements only */
		for (r = 0; r < repeat_times; r++)
			for (i = 0; i < n; i++)
				if (bit_set(bits, i))
					memcpy(dst.base + dst_off + r * step + i * (int64_t)size, one, size);
		return KDSL_OK;
	}
	/* One byte repeated (0.0 in any dtype, the usual fill) over adjacent
	 * repeats: a memset. */
	if (step == len && memcmp(one, one + 1, size - 1) == 0) {
		memset(dst.base + dst_off, one[0], (size_t)(len * repeat_times));
		return KDSL_OK;
	}
	kdsl_splat(pat.b, one, size, (size_t)n);
	if (step != len) {
		for (r = 0; r < repeat_times; r++)
			memcpy(dst.base + dst_off + r * step, pat.b, (size_t)len);
		return KDSL_OK;
	}
	if (!repeat_times)
		return KDSL_OK;
	/* Repeats that follow each other are one run: the repeat splatted,
	 * doubling in place with libc's widest moves (a copy per repeat was
	 * most of the op's time). */
	kdsl_splat(dst.base + dst_off, pat.b, (size_t)len, (size_t)repeat_times);
	return KDSL_OK;
}

/* kdsl_hw.h's overlap rules between dst at d and a source at s. */
static int check_overlap(kdsl_rt *rt, const kdsl_site *site, const char *what,
                         const unsigned char *d, int64_t dstep, const unsigned char *s, int64_t sstep,
                         int64_t repeat_times, kdsl_ascend_bits bits, int64_t dsize, int64_t ssize)
{
	int64_t delta = (int64_t)((uintptr_t)s - (uintptr_t)d), r = 0, r2 = 0;

	switch (kdsl_ascend_vec_overlap(delta, dstep, sstep, repeat_times, bits, dsize, ssize, &r, &r2)) {
	case 1:
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG,
		                    "within a repeat dst and %s must coincide exactly or not overlap: "
		                    "repeat %" PRId64 "'s %s starts %" PRId64 " bytes from its dst",
		                    what, r, what, delta + r * (sstep - dstep));
	case 2:
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG,
		                    "no repeat may read what an earlier repeat wrote: repeat %" PRId64
		                    " reads %s bytes that repeat %" PRId64 " wrote to dst", r2, what, r);
	default:
		return KDSL_OK;
	}
}

/* vec_add's shape: every rule of the op, then the repeats in order. */
static int vec_binary(kdsl_vb_op op, kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                      kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                      kdsl_cref src0, int64_t src0_off,
                      kdsl_cref src1, int64_t src1_off,
                      int64_t repeat_times, int64_t dst_rep_stride,
                      int64_t src0_rep_stride, int64_t src1_rep_stride)
{
	vreg out;
	kdsl_ascend_bits bits;
	int64_t n, size, len, dstep, s0step, s1step, r, i;
	unsigned char *d;
	const unsigned char *s0, *s1;
	int rc, dense;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_vec_common(rt, site, dt, &BINARY_DTYPES, mask, repeat_times, &bits)))
		return rc;
	size = (int64_t)kdsl_dtype_size(dt);
	n = kdsl_ascend_bits_span(bits);
	len = n * size;
	vec_opnd o[3] = {
		{"dst", "dst_rep_stride", dst.base, dst.bytes, dst.mem, dst_off, dst_rep_stride, size, 0},
		{"src0", "src0_rep_stride", src0.base, src0.bytes, src0.mem, src0_off, src0_rep_stride, size, 0},
		{"src1", "src1_rep_stride", src1.base, src1.bytes, src1.mem, src1_off, src1_rep_stride, size, 0}};
	if ((rc = check_vec_opnds(rt, site, o, 3, repeat_times, n)))
		return rc;
	dstep = o[0].step;
	s0step = o[1].step;
	s1step = o[2].step;
	d = dst.base + dst_off;
	s0 = src0.base + src0_off;
	s1 = src1.base + src1_off;
	/* dst == src1 with both rep strides 0 is the pages' accumulation,
	 * which repeat after repeat reads what the last one wrote; src0's own
	 * check then keeps it apart from src1 (which is dst). */
	if ((rc = check_overlap(rt, site, "src0", d, dstep, s0, s0step, repeat_times, bits, size, size)) ||
	    (!(d == s1 && dstep == 0 && s1step == 0) &&
	     (rc = check_overlap(rt, site, "src1", d, dstep, s1, s1step, repeat_times, bits, size, size))))
		return rc;
	if (rt->head.check) {
		static const char *const names[2] = {"src0", "src1"};
		const kdsl_cref srcs[2] = {src0, src1};
		const int64_t offs[2] = {src0_off, src1_off}, steps[2] = {s0step, s1step};
		if ((rc = uninit_vec(rt, site, bits, n, size, size, repeat_times, &dst, dst_off, dstep, 2, names, srcs, offs,
		                     steps)))
			return rc;
	}
	/* Each repeat reads its sources where they lie and computes into out,
	 * which then goes to dst: a repeat reads all its inputs before it
	 * writes (in place and the accumulation as on the device). */
	dense = bits_dense(bits);
	for (r = 0; r < repeat_times; r++) {
		kdsl_ascend_vbin(rt->isa, op, dt, n, out.b, s0 + r * s0step, s1 + r * s1step);
		if (dense) {
			memcpy(d + r * dstep, out.b, (size_t)len);
			continue;
		}
		for (i = 0; i < n; i++)
			if (bit_set(bits, i))
				memcpy(d + r * dstep + i * size, out.b + i * size, (size_t)size);
	}
	return KDSL_OK;
}

#define KDSL_VEC_BINARY(name, op)                                                                  \
	int kdsl_ascend_##name(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,                  \
	                       kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,             \
	                       kdsl_cref src0, int64_t src0_off, kdsl_cref src1, int64_t src1_off, \
	                       int64_t repeat_times, int64_t dst_rep_stride,                     \
	                       int64_t src0_rep_stride, int64_t src1_rep_stride)                 \
	{                                                                                          \
		return vec_binary(op, rt, site, dt, mask, dst, dst_off, src0, src0_off, src1,      \
		                  src1_off, repeat_times, dst_rep_stride, src0_rep_stride,         \
		                  src1_rep_stride);                                                \
	}
KDSL_VEC_BINARY(vec_add, KDSL_VB_ADD)
KDSL_VEC_BINARY(vec_sub, KDSL_VB_SUB)
KDSL_VEC_BINARY(vec_mul, KDSL_VB_MUL)
KDSL_VEC_BINARY(vec_max, KDSL_VB_MAX)
KDSL_VEC_BINARY(vec_min, KDSL_VB_MIN)

/* ---- the one-source ops: vec_adds, vec_muls and the unary ones ---- */

/* One repeat of src (n elements where it lies) into out: the typed
 * kernels (ascend_vec.c), except exp and ln, which are the exact value
 * rounded once (kdsl's reading, docs/language.md): libm's double exp and
 * log, one call per element, rounded once to the dtype. */
static void unary_repeat(kdsl_rt *rt, kdsl_vu_op op, kdsl_dtype dt, int64_t n, vreg *out, const unsigned char *src,
                         float k)
{
	vreg copy, *a = &copy;
	int64_t i;

	if (kdsl_ascend_vone(rt->isa, op, dt, n, out->b, src, k))
		return;
	memcpy(copy.b, src, (size_t)n * kdsl_dtype_size(dt));
	if (dt == KDSL_F16)
		for (i = 0; i < n; i++) {
			double x = kdsl_h_f16_to_f64(a->u16[i]);
			out->u16[i] = kdsl_h_f64_to_f16(op == KDSL_VU_EXP ? exp(x) : log(x));
		}
	else
		for (i = 0; i < n; i++)
			out->f32[i] = (float)(op == KDSL_VU_EXP ? exp((double)a->f32[i]) : log((double)a->f32[i]));
}

/* Every rule of the op (vec_add's, with one source), then the repeats. */
static int vec_one(kdsl_vu_op op, const vec_dtypes *ok, kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                   kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off, kdsl_cref src, int64_t src_off,
                   double scalar, int64_t repeat_times, int64_t dst_rep_stride, int64_t src_rep_stride)
{
	vreg out;
	kdsl_ascend_bits bits;
	int64_t n, size, len, dstep, sstep, r, i;
	unsigned char *d;
	const unsigned char *s;
	unsigned char one[4];
	float k = 0;
	int rc, dense;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_vec_common(rt, site, dt, ok, mask, repeat_times, &bits)))
		return rc;
	size = (int64_t)kdsl_dtype_size(dt);
	n = kdsl_ascend_bits_span(bits);
	len = n * size;
	vec_opnd o[2] = {
		{"dst", "dst_rep_stride", dst.base, dst.bytes, dst.mem, dst_off, dst_rep_stride, size, 0},
		{"src", "src_rep_stride", src.base, src.bytes, src.mem, src_off, src_rep_stride, size, 0}};
	if ((rc = check_vec_opnds(rt, site, o, 2, repeat_times, n)))
		return rc;
	dstep = o[0].step;
	sstep = o[1].step;
	d = dst.base + dst_off;
	s = src.base + src_off;
	if ((rc = check_overlap(rt, site, "src", d, dstep, s, sstep, repeat_times, bits, size, size)))
		return rc;
	if (rt->head.check) {
		static const char *const names[1] = {"src"};
		const int64_t offs[1] = {src_off}, steps[1] = {sstep};
		if ((rc = uninit_vec(rt, site, bits, n, size, size, repeat_times, &dst, dst_off, dstep, 1, names, &src, offs,
		                     steps)))
			return rc;
	}
	/* the scalar in the element's dtype first, as the scalar register holds it */
	if (op == KDSL_VU_ADDS || op == KDSL_VU_MULS) {
		kdsl_store_value(dt, one, scalar);
		if (dt == KDSL_F16) {
			kdsl_f16 h;
			memcpy(&h, one, 2);
			k = kdsl_h_f16_to_f32(h);
		} else {
			float f;
			memcpy(&f, one, 4);
			k = f;
		}
	}
	dense = bits_dense(bits);
	for (r = 0; r < repeat_times; r++) {
		unary_repeat(rt, op, dt, n, &out, s + r * sstep, k);
		if (dense) {
			memcpy(d + r * dstep, out.b, (size_t)len);
			continue;
		}
		for (i = 0; i < n; i++)
			if (bit_set(bits, i))
				memcpy(d + r * dstep + i * size, out.b + i * size, (size_t)size);
	}
	return KDSL_OK;
}

int kdsl_ascend_vec_adds(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask mask,
                         kdsl_ref dst, int64_t dst_off, kdsl_cref src, int64_t src_off, double scalar,
                         int64_t repeat_times, int64_t dst_rep_stride, int64_t src_rep_stride)
{
	return vec_one(KDSL_VU_ADDS, &FLOAT_DTYPES, rt, site, dt, mask, dst, dst_off, src, src_off, scalar,
	               repeat_times, dst_rep_stride, src_rep_stride);
}

int kdsl_ascend_vec_muls(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask mask,
                         kdsl_ref dst, int64_t dst_off, kdsl_cref src, int64_t src_off, double scalar,
                         int64_t repeat_times, int64_t dst_rep_stride, int64_t src_rep_stride)
{
	return vec_one(KDSL_VU_MULS, &FLOAT_DTYPES, rt, site, dt, mask, dst, dst_off, src, src_off, scalar,
	               repeat_times, dst_rep_stride, src_rep_stride);
}

#define KDSL_VEC_UNARY(name, op, dts)                                                              \
	int kdsl_ascend_##name(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,                  \
	                       kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,             \
	                       kdsl_cref src, int64_t src_off, int64_t repeat_times,             \
	                       int64_t dst_rep_stride, int64_t src_rep_stride)                   \
	{                                                                                          \
		return vec_one(op, dts, rt, site, dt, mask, dst, dst_off, src, src_off, 0,         \
		               repeat_times, dst_rep_stride, src_rep_stride);                      \
	}
KDSL_VEC_UNARY(vec_abs, KDSL_VU_ABS, &FLOAT_DTYPES)
KDSL_VEC_UNARY(vec_exp, KDSL_VU_EXP, &FLOAT_DTYPES)
KDSL_VEC_UNARY(vec_ln, KDSL_VU_LN, &FLOAT_DTYPES)
KDSL_VEC_UNARY(vec_rec, KDSL_VU_REC, &FLOAT_DTYPES)
KDSL_VEC_UNARY(vec_relu, KDSL_VU_RELU, &F16_DTYPES)

/* ---- vec_conv: one dtype to another (TIK's vec_conv page) ---- */

#define ROUND_NAME_(code, str) [code] = str,
static const char *const round_names[KDSL_NROUND] = {KDSL_ROUND_LIST(ROUND_NAME_)};
#undef ROUND_NAME_

/* x rounded to an integral value as round_mode says: 'round' to nearest,
 * ties to even (the page's C rint), 'floor', 'ceil'/'ceiling'; '' and
 * 'none' (an integer dtype's default) also to nearest even.  x finite. */
static double round_int(int64_t mode, double x)
{
	double f = floor(x), d = x - f;

	switch (mode) {
	case KDSL_ROUND_FLOOR: return f;
	case KDSL_ROUND_CEIL:
	case KDSL_ROUND_CEILING: return ceil(x);
	default: return d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0) ? f + 1.0 : f;
	}
}

/* x rounded by mode and saturated to lo..hi (an infinity to its end, NaN
 * to 0: the page's "overflow saturates"). */
static int64_t sat_int(int64_t mode, double x, int64_t lo, int64_t hi)
{
	if (x != x)
		return 0;
	if (x <= (double)lo)
		return lo;
	if (x >= (double)hi)
		return hi;
	x = round_int(mode, x);
	return x < (double)lo ? lo : x > (double)hi ? hi : (int64_t)x;
}

/* One element from src (its dtype sdt, at s) to dst (dt, at d). */
static void conv_elem(kdsl_dtype dt, kdsl_dtype sdt, int64_t mode, unsigned char *d, const unsigned char *s)
{
	double x;
	kdsl_f16 h;
	float f;
	int32_t i32;

	if (sdt == KDSL_F16) {
		memcpy(&h, s, 2);
		x = kdsl_h_f16_to_f64(h);
	} else if (sdt == KDSL_F32) {
		memcpy(&f, s, 4);
		x = f;
	} else {
		x = sdt == KDSL_I8 ? (double)(int8_t)s[0] : (double)s[0];
	}
	switch (dt) {
	case KDSL_F32:
		f = (float)x;   /* f16 -> f32 is exact */
		memcpy(d, &f, 4);
		break;
	case KDSL_F16:
		h = kdsl_h_f64_to_f16(x);   /* to nearest even; u8/i8 are exact */
		/* a finite value past f16's range saturates to +-65504 */
		if ((h & 0x7fff) == 0x7c00 && isfinite(x))
			h = (kdsl_f16)((h & 0x8000) | 0x7bff);
		memcpy(d, &h, 2);
		break;
	case KDSL_I32:
		i32 = (int32_t)sat_int(mode, x, INT32_MIN, INT32_MAX);
		memcpy(d, &i32, 4);
		break;
	case KDSL_I8:
		d[0] = (unsigned char)(int8_t)sat_int(mode, x, INT8_MIN, INT8_MAX);
		break;
	default:   /* u8 */
		d[0] = (unsigned char)sat_int(mode, x, 0, UINT8_MAX);
		break;
	}
}

/* The pair and round_mode against the page's table (kdsl_hw.h). */
static int check_conv_pair(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_dtype sdt, int64_t mode)
{
	unsigned modes = kdsl_ascend_conv_modes(sdt, dt);
	char list[128];
	size_t at = 0;
	int k;

	if (!modes)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
		                    "cannot convert %s to %s (conversions: " KDSL_ASCEND_CONV_PAIRS_TEXT ")",
		                    kdsl_dtype_name(sdt), kdsl_dtype_name(dt));
	if (mode >= 0 && mode < KDSL_NROUND && (modes >> mode & 1))
		return KDSL_OK;
	list[0] = 0;
	for (k = 0; k < KDSL_NROUND; k++)
		if (modes >> k & 1)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s\"%s\"", at ? ", " : "", round_names[k]);
	if (mode < 0 || mode >= KDSL_NROUND)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "round_mode must be one of %s for %s->%s, got code %" PRId64,
		                    list, kdsl_dtype_name(sdt), kdsl_dtype_name(dt), mode);
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "round_mode must be one of %s for %s->%s, got \"%s\"", list,
	                    kdsl_dtype_name(sdt), kdsl_dtype_name(dt), round_names[mode]);
}

int kdsl_ascend_vec_conv(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_dtype src_dt,
                         kdsl_ascend_mask mask, int64_t round_mode, kdsl_ref dst, int64_t dst_off,
                         kdsl_cref src, int64_t src_off, int64_t repeat_times, int64_t dst_rep_stride,
                         int64_t src_rep_stride)
{
	vreg a, out;
	kdsl_ascend_bits bits;
	int64_t n, dsize, ssize, dstep, sstep, r, i;
	unsigned char *d;
	const unsigned char *s;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_conv_pair(rt, site, dt, src_dt, round_mode)))
		return rc;
	dsize = (int64_t)kdsl_dtype_size(dt);
	ssize = (int64_t)kdsl_dtype_size(src_dt);
	/* a repeat is 256 bytes of the wider operand */
	if ((rc = check_vec_mask(rt, site, dsize >= ssize ? dt : src_dt, mask, repeat_times, &bits)))
		return rc;
	n = kdsl_ascend_bits_span(bits);
	vec_opnd o[2] = {
		{"dst", "dst_rep_stride", dst.base, dst.bytes, dst.mem, dst_off, dst_rep_stride, dsize, 0},
		{"src", "src_rep_stride", src.base, src.bytes, src.mem, src_off, src_rep_stride, ssize, 0}};
	if ((rc = check_vec_opnds(rt, site, o, 2, repeat_times, n)))
		return rc;
	dstep = o[0].step;
	sstep = o[1].step;
	d = dst.base + dst_off;
	s = src.base + src_off;
	if ((rc = check_overlap(rt, site, "src", d, dstep, s, sstep, repeat_times, bits, dsize, ssize)))
		return rc;
	if (rt->head.check) {
		static const char *const names[1] = {"src"};
		const int64_t offs[1] = {src_off}, steps[1] = {sstep};
		if ((rc = uninit_vec(rt, site, bits, n, dsize, ssize, repeat_times, &dst, dst_off, dstep, 1, names,
		                     &src, offs, steps)))
			return rc;
	}
	for (r = 0; r < repeat_times; r++) {
		/* the whole source repeat first: dst may be src (same address) */
		memcpy(a.b, s + r * sstep, (size_t)(n * ssize));
		for (i = 0; i < n; i++)
			if (bit_set(bits, i))
				conv_elem(dt, src_dt, round_mode, out.b + i * dsize, a.b + i * ssize);
		for (i = 0; i < n; i++)
			if (bit_set(bits, i))
				memcpy(d + r * dstep + i * dsize, out.b + i * dsize, (size_t)dsize);
	}
	return KDSL_OK;
}

/* ---- element access (u[i], u[i] = v) ---- */

/* TIK Scalar's dtypes: the integers and f16/f32 (no bf16, no bool). */
static int elem_dtype_ok(kdsl_dtype dt)
{
	return dt != KDSL_BF16 && dt != KDSL_BOOL && kdsl_dtype_size(dt) > 0;
}

/* The checks a read and a write share: ub, the dtype, the element inside
 * the tensor (off a multiple of the size comes from the compiler's
 * element index; checked anyway, as any argument may be anything). */
static int check_elem(kdsl_rt *rt, const kdsl_site *site, const char *what, kdsl_dtype dt,
                      const unsigned char *base, kdsl_mem mem, size_t bytes, int64_t off)
{
	int64_t size;

	if (!rt)
		return KDSL_ERR_ARG;
	if (!elem_dtype_ok(dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "an element of %s is not a scalar value",
		                    kdsl_dtype_name(dt));
	if (mem != KDSL_MEM_UB)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be in ub (only ub elements are values), got %s",
		                    what, kdsl_mem_name(mem));
	if (!base)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor is NULL", what);
	if (!kdsl_rt_holds_(rt, mem, base, bytes))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor of %zu bytes is not in this runtime's %s",
		                    what, bytes, kdsl_mem_name(mem));
	size = (int64_t)kdsl_dtype_size(dt);
	if (off < 0 || off % size || (uint64_t)off >= bytes || bytes - (uint64_t)off < (uint64_t)size)
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "the element must be inside its tensor: index %" PRId64
		                    " of a tensor of %zu elements (0..%zu)",
		                    off / size - (off < 0 && off % size), bytes / (size_t)size,
		                    bytes / (size_t)size - 1);
	return KDSL_OK;
}

int kdsl_ascend_elem_read(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                          kdsl_cref src, int64_t off, kdsl_scalar *out)
{
	int rc;

	if ((rc = check_elem(rt, site, "src", dt, src.base, src.mem, src.bytes, off)))
		return rc;
	if (!out)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "no place for the element read");
	if (rt->head.check && (rc = kdsl_uninit_rows(rt, site, "src", src.base, src.mem, src.base + off, 0, 1,
	                                             kdsl_dtype_size(dt))))
		return rc;
	kdsl_ascend_elem_load_(dt, src.base + off, out);
	return KDSL_OK;
}

int kdsl_ascend_elem_write(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                           kdsl_ref dst, int64_t off, kdsl_scalar v)
{
	int rc;
	uint64_t u;

	if ((rc = check_elem(rt, site, "dst", dt, dst.base, dst.mem, dst.bytes, off)))
		return rc;
	if (rt->head.check)
		kdsl_uninit_mark(rt, dst.mem, dst.base + off, kdsl_dtype_size(dt));
	if (dt == KDSL_F16 || dt == KDSL_F32) {
		kdsl_store_value(dt, dst.base + off, v.f);
		return KDSL_OK;
	}
	/* the low bytes of the two's complement value: the compiler's cast
	 * already wrapped it to the dtype */
	u = (uint64_t)v.i;
	switch (kdsl_dtype_size(dt)) {
	case 1: { uint8_t b = (uint8_t)u; memcpy(dst.base + off, &b, 1); break; }
	case 2: { uint16_t b = (uint16_t)u; memcpy(dst.base + off, &b, 2); break; }
	case 4: { uint32_t b = (uint32_t)u; memcpy(dst.base + off, &b, 4); break; }
	default: memcpy(dst.base + off, &u, 8); break;
	}
	return KDSL_OK;
}
