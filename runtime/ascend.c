/* ascend.c: the TIK ops of seed 001 (data_move) and the vector ops its
 * examples use (vec_dup, vec_add).  Each op checks every rule before it
 * touches memory, so an op that fails writes nothing.  Arguments are
 * int64 and may be anything, so the checks run in an order that keeps all
 * later arithmetic inside 64 bits: ranges first (which bound the counts
 * and strides), then offsets against sizes using unsigned differences. */
#include <inttypes.h>
#include <string.h>

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

/* The element dtypes of each op's TIK page, on the seed's products
 * (vec_add: float16, float32, int32; vec_dup: the 16- and 32-bit ones). */
static int vec_dtype_ok(kdsl_dtype dt, int dup)
{
	switch (dt) {
	case KDSL_I32: case KDSL_F16: case KDSL_F32:
		return 1;
	case KDSL_I16: case KDSL_U16: case KDSL_U32:
		return dup;
	default:
		return 0;
	}
}

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

/* The dtype, the mask (as the element bits of a repeat) and repeat_times.
 * Continuous: 1..256/size elements.  Bitwise: not [0, 0], and mask_h 0
 * where a repeat has 64 elements or fewer (4-byte dtypes). */
static int check_vec_common(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, int dup,
                            kdsl_ascend_mask mask, int64_t repeat_times, kdsl_ascend_bits *bits)
{
	int64_t size = (int64_t)kdsl_dtype_size(dt), max;

	if (!vec_dtype_ok(dt, dup))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dtype must be one of %s, got %s",
		                    dup ? "i16, u16, i32, u32, f16, f32" : "i32, f16, f32", kdsl_dtype_name(dt));
	max = KDSL_ASCEND_REPEAT_BYTES / size;
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
	if ((rc = check_vec_common(rt, site, dt, 1, mask, repeat_times, &bits)) ||
	    (rc = check_range(rt, site, "dst_rep_stride", dst_rep_stride, 0, KDSL_ASCEND_REP_STRIDE_MAX)) ||
	    (rc = check_vec_operand(rt, site, "dst", dst.base, dst.bytes, dst.mem, dst_off)))
		return rc;
	size = kdsl_dtype_size(dt);
	n = kdsl_ascend_bits_span(bits);
	len = n * (int64_t)size;
	step = dst_rep_stride * BLOCK;
	if ((rc = check_bounds(rt, site, "dst", "repeat", "writes", dst.bytes, dst_off,
	                       repeat_times, step, len)))
		return rc;
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

/* One repeat of vec_add on copied-out operands; the dtype switch sits
 * outside the element loops so each loop is a plain, vectorisable one. */
static void add_repeat(kdsl_dtype dt, int64_t n, vreg *out, const vreg *a, const vreg *b)
{
	int64_t i;

	switch (dt) {
	case KDSL_I32:
		for (i = 0; i < n; i++)
			out->u32[i] = a->u32[i] + b->u32[i];
		break;
	case KDSL_F16:
		/* The double sum of two halves is exact; rounding it once gives
		 * the correctly rounded IEEE half sum. */
		for (i = 0; i < n; i++)
			out->u16[i] = kdsl_h_f64_to_f16(kdsl_h_f16_to_f64(a->u16[i]) +
			                                kdsl_h_f16_to_f64(b->u16[i]));
		break;
	case KDSL_F32:
		for (i = 0; i < n; i++)
			out->f32[i] = a->f32[i] + b->f32[i];
		break;
	default:
		break;
	}
}

/* kdsl_hw.h's overlap rules between dst at d and a source at s. */
static int check_overlap(kdsl_rt *rt, const kdsl_site *site, const char *what,
                         const unsigned char *d, int64_t dstep, const unsigned char *s, int64_t sstep,
                         int64_t repeat_times, kdsl_ascend_bits bits, int64_t size)
{
	int64_t delta = (int64_t)((uintptr_t)s - (uintptr_t)d), r = 0, r2 = 0;

	switch (kdsl_ascend_vec_overlap(delta, dstep, sstep, repeat_times, bits, size, &r, &r2)) {
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

int kdsl_ascend_vec_add(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                        kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                        kdsl_cref src0, int64_t src0_off,
                        kdsl_cref src1, int64_t src1_off,
                        int64_t repeat_times, int64_t dst_rep_stride,
                        int64_t src0_rep_stride, int64_t src1_rep_stride)
{
	vreg a, b, out;
	kdsl_ascend_bits bits;
	int64_t n, size, len, dstep, s0step, s1step, r, i;
	unsigned char *d;
	const unsigned char *s0, *s1;
	int rc, dense;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_vec_common(rt, site, dt, 0, mask, repeat_times, &bits)) ||
	    (rc = check_range(rt, site, "dst_rep_stride", dst_rep_stride, 0, KDSL_ASCEND_REP_STRIDE_MAX)) ||
	    (rc = check_range(rt, site, "src0_rep_stride", src0_rep_stride, 0, KDSL_ASCEND_REP_STRIDE_MAX)) ||
	    (rc = check_range(rt, site, "src1_rep_stride", src1_rep_stride, 0, KDSL_ASCEND_REP_STRIDE_MAX)) ||
	    (rc = check_vec_operand(rt, site, "dst", dst.base, dst.bytes, dst.mem, dst_off)) ||
	    (rc = check_vec_operand(rt, site, "src0", src0.base, src0.bytes, src0.mem, src0_off)) ||
	    (rc = check_vec_operand(rt, site, "src1", src1.base, src1.bytes, src1.mem, src1_off)))
		return rc;
	size = (int64_t)kdsl_dtype_size(dt);
	n = kdsl_ascend_bits_span(bits);
	len = n * size;
	dstep = dst_rep_stride * BLOCK;
	s0step = src0_rep_stride * BLOCK;
	s1step = src1_rep_stride * BLOCK;
	if ((rc = check_bounds(rt, site, "dst", "repeat", "writes", dst.bytes, dst_off,
	                       repeat_times, dstep, len)) ||
	    (rc = check_bounds(rt, site, "src0", "repeat", "reads", src0.bytes, src0_off,
	                       repeat_times, s0step, len)) ||
	    (rc = check_bounds(rt, site, "src1", "repeat", "reads", src1.bytes, src1_off,
	                       repeat_times, s1step, len)))
		return rc;
	d = dst.base + dst_off;
	s0 = src0.base + src0_off;
	s1 = src1.base + src1_off;
	/* dst == src1 with both rep strides 0 is the pages' accumulation,
	 * which repeat after repeat reads what the last one wrote; src0's own
	 * check then keeps it apart from src1 (which is dst). */
	if ((rc = check_overlap(rt, site, "src0", d, dstep, s0, s0step, repeat_times, bits, size)) ||
	    (!(d == s1 && dstep == 0 && s1step == 0) &&
	     (rc = check_overlap(rt, site, "src1", d, dstep, s1, s1step, repeat_times, bits, size))))
		return rc;
	dense = bits_dense(bits);
	for (r = 0; r < repeat_times; r++) {
		memcpy(a.b, s0 + r * s0step, (size_t)len);
		memcpy(b.b, s1 + r * s1step, (size_t)len);
		add_repeat(dt, n, &out, &a, &b);
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
