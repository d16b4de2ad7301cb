/* rt_internal.h: what the runtime's files share and the library does not
 * export (it is built hidden: only kdsl_rt.h's KDSL_API functions leave
 * it): the kdsl_rt struct, the vector kernels' selection, and the copy
 * and value-store helpers the ops inline in their element loops. */
#ifndef KDSL_RT_INTERNAL_H
#define KDSL_RT_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kdsl_rt.h"
#include "neuron_shuffle.h"
#include "rt_half.h"


/* The vector kernels a runtime uses, chosen once by kdsl_rt_create. */
typedef enum { KDSL_ISA_BASE, KDSL_ISA_AVX2, KDSL_ISA_AVX512 } kdsl_isa;

/* tensor_copy_predicated's kernel (neuron_blend.c): d = pr selects ? s : f,
 * `rows` rows of n elements, row r of each operand its stride (bytes)
 * times r after row 0 (a stride of 0 reuses one row); flip is all ones to
 * copy where the predicate is zero (reverse_pred).  f is d itself for the
 * predicated copy (dst keeps its element), else rows that do not meet d
 * (predicated_merge's on_false, read in the same pass).  The row loop is
 * inside so that a tile of short rows does not pay an indirect call per
 * row. */
typedef void (*kdsl_blend_fn)(void *d, size_t dps, const void *s, size_t sps, const void *pr, size_t pps,
                              const void *f, size_t fps, int64_t rows, int64_t n, uint64_t flip);

/* The arrays below are indexed by kdsl_mem; index 0 is unused so the enum
 * values index directly. */
struct kdsl_rt {
	kdsl_rt_head head;    /* first: kdsl_rt_ready reads it through a cast */
	kdsl_isa isa;
	unsigned char *mem[KDSL_NMEM];
	size_t mem_bytes[KDSL_NMEM];
	size_t part_bytes[KDSL_NMEM];
	size_t part_stride[KDSL_NMEM];   /* host bytes from one partition to the next */
	size_t nparts[KDSL_NMEM];        /* partitions (1 when not partitioned) */
	int threads;                     /* nc_matmul's (kdsl_rt_set_threads) */
	struct kdsl_pool *pool;          /* its threads - 1 workers, started by the
	                                    first matmul that splits (pool.h) */
	float *eng_scratch;              /* nc_matmul's converted inputs and edge blocks
	                                    (kdsl_engine_matmul_scratch(threads) floats),
	                                    allocated by the first matmul so no call mallocs */
	char err[1024];
	size_t err_locus;                /* length of err's "file:line:col" (0: no site) */
	kdsl_shuf_cache shuf;            /* nc_stream_shuffle's plans (neuron_shuffle.c) */
	/* KDSL_CHECK_UNINIT (check.c): one shadow byte per byte of each
	 * on-chip memory, equal to epoch where the byte was written since the
	 * current kernel started; a kernel's start bumps epoch instead of
	 * clearing megabytes of shadow (cleared when epoch wraps). */
	unsigned char *shadow[KDSL_NMEM];
	unsigned char epoch;
	const kdsl_buffer *bufs;         /* the running kernel's (kdsl_rt_check_buffers) */
	size_t nbufs;
};

/* ---- the uninit checker (check.c) ----
 * Only called when rt->head.check has KDSL_CHECK_UNINIT, on operands
 * whose rules were checked.  A memory without a shadow (gm, hbm: the
 * caller's tensors), and bytes outside the runtime's memory, read as
 * written. */

/* Bytes p..p+len-1 of memory mem: the offset of the first not written, or
 * len when all were (or are not in the runtime's memory). */
size_t kdsl_uninit_first(const kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t len);
/* Marks bytes p..p+len-1 of memory mem written. */
void kdsl_uninit_mark(kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t len);
/* rows rows of len bytes, row r at p + r*stride: KDSL_OK when every byte
 * was written, else the error for the first that was not
 * (kdsl_uninit_fail). */
int kdsl_uninit_rows(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                     kdsl_mem mem, const unsigned char *p, size_t stride, int64_t rows, size_t len);
void kdsl_uninit_mark_rows(kdsl_rt *rt, kdsl_mem mem, const unsigned char *p, size_t stride, int64_t rows,
                           size_t len);
/* Reports that operand `what` (its buffer's storage at base, partition 0
 * byte 0 for a tile) read the unwritten byte at of memory mem:
 * its place in the memory and in the operand's buffer.  Returns
 * KDSL_ERR_UNINIT. */
int kdsl_uninit_fail(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                     kdsl_mem mem, const unsigned char *at);
/* Turns on the checks the environment's KDSL_CHECK names (kdsl_rt_create). */
void kdsl_check_from_env(kdsl_rt *rt);

const char *kdsl_mem_name(kdsl_mem mem);
kdsl_isa kdsl_isa_detect(void);
/* The blend for element and predicate widths in bytes. */
kdsl_blend_fn kdsl_blend_select(kdsl_isa isa, size_t wbytes, size_t pbytes);

/* The bytes of one element of dt, 0 for a value that is no dtype: the
 * table of kdsl_hw.h inline, for the checks every op runs (the exported
 * kdsl_dtype_size is a call through the PLT from inside the library). */
static inline size_t kdsl_dt_bytes(kdsl_dtype dt)
{
	static const unsigned char bytes[KDSL_NDTYPE] = {
#define KDSL_DT_BYTES_(d, name, vendor, ctype, b, ...) [d] = b,
		KDSL_DTYPE_LIST(KDSL_DT_BYTES_)
#undef KDSL_DT_BYTES_
	};
	return (unsigned)dt < KDSL_NDTYPE ? bytes[dt] : 0;
}

/* a / b, with a % b in *rem.  A 64-bit divide costs 40-90 cycles on
 * common x86 cores, a 32-bit one far less, and the runtime's offsets and
 * strides fit in 32 bits: the checks of a neuron op did a dozen 64-bit
 * divides, as long as copying a 16 KiB tile. */
static inline uint64_t kdsl_divmod(uint64_t a, uint64_t b, uint64_t *rem)
{
	if (a < b) {   /* the usual place: a tile's first partition, rows next to each other */
		*rem = a;
		return 0;
	}
	if (((a | b) >> 32) == 0) {
		uint32_t q = (uint32_t)a / (uint32_t)b;
		*rem = (uint32_t)a - q * (uint32_t)b;
		return q;
	}
	*rem = a % b;
	return a / b;
}

/* A row copy for rows that do not overlap.  Below 64 bytes a library
 * memcpy's call costs more than the copy, so the copy is fixed-size pieces
 * the compiler inlines; from 64 bytes up memcpy wins (measured: inline
 * 16-byte moves made a shuffle of 128-byte rows 2.5x slower than libc's
 * wider ones). */
static inline void kdsl_copy_row(unsigned char *d, const unsigned char *s, size_t len)
{
	size_t o = 0;

	if (len >= 64) {
		memcpy(d, s, len);
		return;
	}
	for (; o + 32 <= len; o += 32)
		memcpy(d + o, s + o, 32);
	for (; o + 4 <= len; o += 4)
		memcpy(d + o, s + o, 4);
	for (; o < len; o++)
		d[o] = s[o];
}

/* n copies of the size-byte value at one, by doubling: a memcpy per
 * element (of variable size, so a library call each) costs more than the
 * whole fill. */
static inline void kdsl_splat(unsigned char *d, const unsigned char *one, size_t size, size_t n)
{
	size_t len = size * n, done;

	if (!n)
		return;
	memcpy(d, one, size);
	for (done = size; done < len; done *= 2)
		memcpy(d + done, d, done < len - done ? done : len - done);
}

/* A double wrapped to an n-bit integer the way the ops define it:
 * truncation toward zero, then modulo 2^64 (NaN and infinities give 0),
 * so every conversion is defined behaviour. */
static inline uint64_t kdsl_wrap_u64(double x)
{
	const double two64 = 18446744073709551616.0;
	double m;

	if (x != x || x == INFINITY || x == -INFINITY)
		return 0;
	m = fmod(trunc(x), two64);   /* exact, |m| < 2^64 */
	if (m < 0)
		return (uint64_t)0 - (uint64_t)(-m);
	return (uint64_t)m;
}

/* Stores x into one element of dtype dt at p: integers wrap, floats round
 * to nearest even, bool is x != 0. */
static inline void kdsl_store_value(kdsl_dtype dt, void *p, double x)
{
	uint64_t u;
	kdsl_f16 h;
	float f;
	unsigned char b;

	switch (dt) {
	case KDSL_F16:
		h = kdsl_h_f64_to_f16(x);
		memcpy(p, &h, 2);
		return;
	case KDSL_BF16:
		h = kdsl_h_f64_to_bf16(x);
		memcpy(p, &h, 2);
		return;
	case KDSL_F32:
		f = (float)x;
		memcpy(p, &f, 4);
		return;
	case KDSL_BOOL:
		b = x != 0;
		memcpy(p, &b, 1);
		return;
	default:
		break;
	}
	u = kdsl_wrap_u64(x);
	kdsl_store_bits(dt, p, u);
}

/* ---- NKI engine arithmetic: everything through f32 ----
 * The Vector, Scalar and GpSimd engines read every input as an f32,
 * compute in f32 and convert the f32 result to dst's dtype (NKI's "Type
 * Casting"; LANGUAGE.md, neuron).  These two are that conversion's only
 * path, for the arithmetic ops and the converting copies alike. */

/* One element of dtype dt at p as the engines read it: integers round to
 * the nearest f32, ties to even (an i32 of 16777217 reads 16777216), f16
 * and bf16 exactly, bool as 0 or 1 (any nonzero byte is 1). */
static inline float kdsl_load_f32(kdsl_dtype dt, const void *p)
{
	union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16;
		uint32_t u32; uint64_t u64; float f; } u;

	memcpy(&u, p, kdsl_dt_bytes(dt));
	switch (dt) {
	case KDSL_I8: return u.i8;
	case KDSL_I16: return u.i16;
	case KDSL_I32: return (float)u.i32;
	case KDSL_I64: return (float)u.i64;
	case KDSL_U8: return u.u8;
	case KDSL_BOOL: return u.u8 != 0;
	case KDSL_U16: return u.u16;
	case KDSL_U32: return (float)u.u32;
	case KDSL_U64: return (float)u.u64;
	case KDSL_F16: return kdsl_h_f16_to_f32(u.u16);
	case KDSL_BF16: return kdsl_h_bf16_to_f32(u.u16);
	case KDSL_F32: return u.f;
	}
	return 0;
}

/* Stores the f32 x into one element of dtype dt at p: f16 and bf16 round
 * to nearest even, integers truncate toward zero and wrap modulo 2^bits
 * (numpy's astype of an in-range f32; NaN and infinities give 0, so the
 * conversion is defined for every x), bool is x != 0. */
static inline void kdsl_store_f32(kdsl_dtype dt, void *p, float x)
{
	kdsl_f16 h;

	switch (dt) {
	case KDSL_F16:
		h = kdsl_h_f32_to_f16(x);
		memcpy(p, &h, 2);
		return;
	case KDSL_BF16:
		h = kdsl_h_f32_to_bf16(x);
		memcpy(p, &h, 2);
		return;
	case KDSL_F32:
		memcpy(p, &x, 4);
		return;
	default:   /* bool and the integers: as the exact double x */
		kdsl_store_value(dt, p, x);
		return;
	}
}

/* The even lanes of two n-lane vectors taken as one: the index lists of
 * __builtin_shufflevector that keep every other element (the blend's
 * mask narrowing, step-2 views' packing). */
#define KDSL_EVEN2 0, 2
#define KDSL_EVEN4 KDSL_EVEN2, 4, 6
#define KDSL_EVEN8 KDSL_EVEN4, 8, 10, 12, 14
#define KDSL_EVEN16 KDSL_EVEN8, 16, 18, 20, 22, 24, 26, 28, 30
#define KDSL_EVEN32 KDSL_EVEN16, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62
#define KDSL_EVEN64 KDSL_EVEN32, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 90, 92, 94, \
	96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 120, 122, 124, 126

#endif
