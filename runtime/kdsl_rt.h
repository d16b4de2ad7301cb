/* kdsl_rt.h: the runtime that kdslc's generated C calls.  It owns the
 * emulated on-chip memories of a target and implements the data-movement
 * ops with every hardware rule re-checked at run time, so a kernel whose
 * addresses depend on runtime values returns an error instead of
 * corrupting memory.  Public symbols use kdsl_ / KDSL_.
 *
 * The library exports exactly the functions declared here, each marked
 * KDSL_API (it is built with hidden visibility by default), so what an
 * embedder links against is this header and nothing else; `kdslc run`'s
 * driver is a separate library (kdsl_harness.h).
 *
 * Bad arguments: every function here, exported or inline, takes any
 * value of its arguments without undefined behaviour (a NULL runtime,
 * enum values cast from any int, sizes and offsets near overflow, NULL
 * strings) and returns an error code with a message in the runtime, or,
 * where it has no error return, the safe result its comment states.  What
 * it cannot check is that a pointer holds the bytes its size claims: a
 * host tensor (gm, hbm), an out-pointer, a kdsl_buffer table's length.
 * tests/unit/test_runtime_hostile.c calls each with hostile arguments. */
#ifndef KDSL_RT_H
#define KDSL_RT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kdsl_hw.h"   /* kdsl_target, kdsl_mem, kdsl_dtype and the rules */

#ifdef __cplusplus
extern "C" {
#endif

/* On a function the library exports: everything unmarked stays inside it. */
#if defined(__GNUC__)
#define KDSL_API __attribute__((visibility("default")))
#else
#define KDSL_API
#endif

typedef uint16_t kdsl_f16;   /* IEEE binary16 bit pattern */
typedef uint16_t kdsl_bf16;  /* bfloat16 bit pattern */

enum {
	KDSL_OK = 0,
	KDSL_ERR_RANGE = 1,    /* an argument outside the op's legal range */
	KDSL_ERR_BOUNDS = 2,   /* an access outside its tensor */
	KDSL_ERR_ALIGN = 3,    /* an address not aligned as the memory requires */
	KDSL_ERR_TARGET = 4,   /* a kernel run on a runtime of another target */
	KDSL_ERR_ARG = 5,      /* a NULL tensor or another bad call */
	KDSL_ERR_NOMEM = 6,
	KDSL_ERR_UNINIT = 7    /* a read of on-chip bytes not written (KDSL_CHECK_UNINIT) */
};

typedef struct kdsl_rt kdsl_rt;

/* Where an op sits in the .k source; generated code passes one per call. */
typedef struct {
	const char *file;
	int line, col;
	const char *op;
} kdsl_site;

/* An operand: a whole tensor (base, size in bytes, memory) plus a byte
 * offset passed beside it, so the runtime can check every access. */
typedef struct {
	unsigned char *base;
	size_t bytes;
	kdsl_mem mem;
} kdsl_ref;
typedef struct {
	const unsigned char *base;
	size_t bytes;
	kdsl_mem mem;
} kdsl_cref;

/* Creates a runtime with the target's on-chip memories as KDSL_MEM_LIST
 * (kdsl_hw.h) sizes them: ascend ub and l1, neuron sbuf and psum, aipu none.
 * On-chip memory starts as a deterministic garbage pattern, never zero,
 * and keeps its contents between kernel calls, as on the device.
 * Returns NULL when out of memory or for an unknown target. */
KDSL_API kdsl_rt *kdsl_rt_create(kdsl_target target);
/* Frees rt; NULL does nothing. */
KDSL_API void kdsl_rt_destroy(kdsl_rt *rt);
/* rt's target; 0 (no target) for NULL. */
KDSL_API kdsl_target kdsl_rt_target(const kdsl_rt *rt);
/* "neuron", "ascend", "aipu"; "unknown" for any other value. */
KDSL_API const char *kdsl_target_name(kdsl_target target);
/* The last error as "file.k:LINE:COL: op: message", or "" when none (and
 * for NULL); the text stays rt's until its next error or clear. */
KDSL_API const char *kdsl_rt_last_error(const kdsl_rt *rt);
/* The length of the "file.k:LINE:COL" that starts the last error, 0 when
 * it has none (or rt is NULL): a caller prints "file.k:LINE:COL: error:
 * op: message", the form of compile errors, without parsing a file name
 * that may hold ':'. */
KDSL_API size_t kdsl_rt_last_error_locus(const kdsl_rt *rt);
/* Forgets the last error; NULL does nothing. */
KDSL_API void kdsl_rt_clear_error(kdsl_rt *rt);
/* Base and size in bytes of an on-chip memory; NULL if the target lacks it.
 * Partitioned memories are laid out partition after partition, each
 * kdsl_rt_partition_stride bytes after the previous one (a little more
 * than its size: the pad keeps partitions apart in the host's caches and
 * holds nothing a kernel can address).  NULL, and *bytes 0, for a NULL
 * rt or a mem outside kdsl_mem; bytes may be NULL. */
KDSL_API unsigned char *kdsl_rt_mem(kdsl_rt *rt, kdsl_mem mem, size_t *bytes);
/* Size in bytes of one partition (the whole memory when not partitioned);
 * 0 for a NULL rt or a memory rt lacks. */
KDSL_API size_t kdsl_rt_partition_bytes(const kdsl_rt *rt, kdsl_mem mem);
/* Host bytes from partition p to partition p + 1 (>= its size); 0 as
 * kdsl_rt_partition_bytes. */
KDSL_API size_t kdsl_rt_partition_stride(const kdsl_rt *rt, kdsl_mem mem);

/* Records an error at a site and returns code.  Generated code and the
 * ops call it; the message is formatted like a compiler diagnostic,
 * truncated to the runtime's 1 KiB buffer.  A NULL rt records nothing; a
 * NULL site gives no locus, a NULL site->file "<unknown>", a NULL
 * site->op no op, a NULL fmt the text "error without a message". */
KDSL_API int kdsl_rt_fail(kdsl_rt *rt, const kdsl_site *site, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
/* First call of every generated kernel: the runtime must be of its target
 * and every tensor parameter non-NULL (checked by the caller, reported
 * here).  KDSL_ERR_ARG for a NULL rt (no message: there is nowhere to put
 * it), KDSL_ERR_TARGET for another target (any value); a NULL kernel or
 * param is named "?".  kdsl_rt_null_param always returns KDSL_ERR_ARG. */
KDSL_API int kdsl_rt_enter(kdsl_rt *rt, kdsl_target target, const char *kernel);
KDSL_API int kdsl_rt_null_param(kdsl_rt *rt, const char *kernel, const char *param);

/* ---- threads ----
 * nc_matmul may share a product's columns, and activation's exp, log,
 * tanh and sigmoid a tile's partitions, among up to `threads` threads
 * (the calling thread one of them; an op too small to gain is left on
 * one).  Every element is computed as one thread would, so results do
 * not depend on the count.  1 (the default) starts no thread;
 * kdsl_rt_create takes the count from the environment's KDSL_THREADS
 * when it is 1..KDSL_RT_MAX_THREADS (another value is named on stderr and
 * ignored).  The workers start at the first op that splits and stay
 * until kdsl_rt_destroy or a new count (docs/language.md, "Threads");
 * the runtime is still used by one thread at a time. */
enum { KDSL_RT_MAX_THREADS = 64 };
/* Sets the count: KDSL_ERR_ARG for a NULL runtime or n outside
 * 1..KDSL_RT_MAX_THREADS (the count is then unchanged). */
KDSL_API int kdsl_rt_set_threads(kdsl_rt *rt, int n);
/* The count (0 for a NULL runtime). */
KDSL_API int kdsl_rt_threads(const kdsl_rt *rt);

/* ---- checking modes ----
 * KDSL_CHECK_UNINIT, the uninitialised-read checker: the runtime keeps a
 * shadow of every on-chip memory (ub, l1, sbuf, psum; not the caller's
 * gm/hbm tensors) saying which bytes an op wrote, and an op that reads a
 * byte not written since the current kernel started (or, for ops called
 * outside a kernel, since the check was turned on) fails with
 * KDSL_ERR_UNINIT naming the operand and the first such byte.  Off by
 * default; kdsl_rt_create turns it on when the environment has
 * KDSL_CHECK=uninit.  Bytes written through kdsl_rt_mem's pointer are not
 * seen (kdsl_rt_check_mark says they are). */
enum { KDSL_CHECK_NONE = 0, KDSL_CHECK_UNINIT = 1u << 0 };

/* Sets the checking modes (KDSL_CHECK_* or'ed; 0 turns all off).  Turning
 * the uninit check on forgets every earlier write.  KDSL_ERR_ARG for a
 * NULL runtime or an unknown bit, KDSL_ERR_NOMEM when the shadow cannot
 * be allocated (the modes are then unchanged). */
KDSL_API int kdsl_rt_set_check(kdsl_rt *rt, unsigned checks);
/* The checking modes on (0 for a NULL runtime). */
KDSL_API unsigned kdsl_rt_check(const kdsl_rt *rt);
/* A kernel starts: the uninit check forgets every earlier write (stale
 * data of an earlier call is what it is for).  kdsl_rt_try_enter calls
 * it when the check is on.  NULL does nothing. */
KDSL_API void kdsl_rt_check_start(kdsl_rt *rt);
/* Says the embedder wrote bytes off..off+len-1 of on-chip memory mem (host
 * offsets from kdsl_rt_mem's pointer) itself, so the check does not flag
 * reads of them (nothing to do, KDSL_OK, while the check is off).
 * KDSL_ERR_ARG for a NULL rt, a memory rt lacks or any byte past its end
 * (off + len may exceed SIZE_MAX: it is not computed). */
KDSL_API int kdsl_rt_check_mark(kdsl_rt *rt, kdsl_mem mem, size_t off, size_t len);

/* A kernel's on-chip buffer, as generated code describes it to the
 * checks' messages: its .k name, memory, first byte (in each partition
 * of a partitioned memory, else in the memory), bytes from there (in each
 * partition) and partitions from 0 (1 when not partitioned). */
typedef struct {
	const char *name;
	kdsl_mem mem;
	size_t off, bytes, parts;
} kdsl_buffer;
/* The running kernel's buffers (n of them; bufs must outlive the
 * runtime's use of it, generated code passes a static table): a check's
 * message names the buffer a byte lies in.  Forgotten at the next kernel
 * start; generated kernels call it after kdsl_rt_try_enter when a check
 * is on.  NULL rt: nothing; NULL bufs: no table.  n must be the table's
 * length (the one thing it cannot check); a NULL name prints as "?". */
KDSL_API void kdsl_rt_check_buffers(kdsl_rt *rt, const kdsl_buffer *bufs, size_t n);

/* The first member of every kdsl_rt: what a kernel's entry and the inline
 * ops touch, so a call of a short kernel does not pay a call into the
 * library. */
typedef struct {
	kdsl_target target;
	int has_error;      /* 0: the last error is "" whatever err holds */
	unsigned check;     /* KDSL_CHECK_* on: the inline ops then defer to the library */
	/* Each on-chip memory's first byte and one past its last, by kdsl_mem
	 * (0 for the others): the inline paths check that an on-chip operand
	 * lies inside, as the library does, since its size cannot be trusted. */
	uintptr_t mem_lo[KDSL_NMEM], mem_hi[KDSL_NMEM];
} kdsl_rt_head;

/* 1 when bytes at base lie inside the runtime's memory mem (never for a
 * memory the runtime lacks, nor for a NULL rt). */
static inline int kdsl_rt_holds_(const kdsl_rt *rt, kdsl_mem mem, const void *base, size_t bytes)
{
	const kdsl_rt_head *h = (const kdsl_rt_head *)(const void *)rt;
	uintptr_t b = (uintptr_t)base;
	return rt && (unsigned)mem < KDSL_NMEM && h->mem_hi[mem] && b >= h->mem_lo[mem] && b <= h->mem_hi[mem] &&
	       bytes <= h->mem_hi[mem] - b;
}

/* Whether any checking mode is on: the inline fast paths below take the
 * library's path then, which does the checks, and generated kernels pass
 * their buffers (kdsl_rt_check_buffers).  0 for NULL (the fast paths
 * test rt first, so the compiler folds the second test away). */
static inline int kdsl_rt_checking(const kdsl_rt *rt)
{
	return rt && ((const kdsl_rt_head *)(const void *)rt)->check != 0;
}

/* kdsl_rt_enter's common case inline: for a runtime of the target, clears
 * the last error (and, under the uninit check, starts the kernel's
 * shadow afresh) and returns 1; otherwise returns 0, and kdsl_rt_enter
 * reports why (generated kernels return what it returns). */
static inline int kdsl_rt_try_enter(kdsl_rt *rt, kdsl_target target)
{
	kdsl_rt_head *h = (kdsl_rt_head *)(void *)rt;
	if (!rt || h->target != target)
		return 0;
	h->has_error = 0;
	if (h->check)
		kdsl_rt_check_start(rt);
	return 1;
}

/* ---- half precision: IEEE round-to-nearest-even in both directions ----
 * Defined for every argument: any bit pattern, NaN (stays NaN, quiet,
 * sign kept), infinities, subnormals, values past the range (infinity). */
KDSL_API float kdsl_f16_to_f32(kdsl_f16 h);
KDSL_API double kdsl_f16_to_f64(kdsl_f16 h);
KDSL_API kdsl_f16 kdsl_f32_to_f16(float f);
KDSL_API kdsl_f16 kdsl_f64_to_f16(double d);
KDSL_API float kdsl_bf16_to_f32(kdsl_bf16 h);
KDSL_API kdsl_bf16 kdsl_f32_to_bf16(float f);
KDSL_API kdsl_bf16 kdsl_f64_to_bf16(double d);
/* Bytes of an element of dt; 0 for a value outside kdsl_dtype. */
KDSL_API size_t kdsl_dtype_size(kdsl_dtype dt);
/* "f16"; "?" for a value outside kdsl_dtype. */
KDSL_API const char *kdsl_dtype_name(kdsl_dtype dt);
/* Stores x into the element of dtype dt at p, converted as the ops
 * convert a scalar (memset, iota, vec_dup): integers truncate toward zero
 * and wrap modulo 2^bits (NaN and infinities give 0), f16/bf16 round to
 * nearest even, f32 as C converts, bool is x != 0.  Any x (NaN, huge);
 * nothing is stored for a NULL p or a dt outside kdsl_dtype. */
KDSL_API void kdsl_dtype_store(kdsl_dtype dt, void *p, double x);
/* Stores the low kdsl_dtype_size(dt) bytes of bits at p in host order:
 * an integer element exactly, where a double would round past 2^53.
 * Nothing for a NULL p or a dt outside kdsl_dtype. */
KDSL_API void kdsl_dtype_store_bits(kdsl_dtype dt, void *p, uint64_t bits);

/* ---- ascend (seed 001) ----
 * Offsets are in bytes from the operand's base.  Every rule of the page is
 * re-checked (the ranges, scope pairs and alignment of kdsl_hw.h) and every
 * byte must lie inside its tensor. */
KDSL_API int kdsl_ascend_data_move(kdsl_rt *rt, const kdsl_site *site,
                                   kdsl_ref dst, int64_t dst_off,
                                   kdsl_cref src, int64_t src_off,
                                   int64_t sid, int64_t nburst, int64_t burst,
                                   int64_t src_stride, int64_t dst_stride);

/* 1 when the ub/l1 operand at base + off meets the 32-byte rule, judged
 * the cheap way: base and off both multiples of 32.  The runtime's
 * memories are 64-byte aligned, so this never accepts what
 * kdsl_ascend_data_move would reject (it may refuse what it accepts). */
static inline int kdsl_ascend_aligned_(const void *base, kdsl_mem mem, int64_t off)
{
	return (mem != KDSL_MEM_UB && mem != KDSL_MEM_L1) ||
	       ((uintptr_t)base % KDSL_ASCEND_ALIGN == 0 && off % KDSL_ASCEND_ALIGN == 0);
}

/* 1 when an operand of memory mem may be used as it is: a host (gm)
 * operand always, a ub or l1 one when it lies inside rt's memory. */
static inline int kdsl_ascend_inside_(const kdsl_rt *rt, kdsl_mem mem, const void *base, size_t bytes)
{
	return (mem != KDSL_MEM_UB && mem != KDSL_MEM_L1) || kdsl_rt_holds_(rt, mem, base, bytes);
}

/* With constant offsets gcc can warn (-Wrestrict) about a memcpy below
 * on the path that the overlap test closes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#if defined(__GNUC__) && defined(__OPTIMIZE__)
/* inlined at every call even when large: its checks fold away only
 * against the call's constant arguments (an unoptimised build folds
 * nothing and would only grow, so there it is left to the compiler) */
#define KDSL_INLINE_ALWAYS __attribute__((always_inline))
#else
#define KDSL_INLINE_ALWAYS
#endif

/* What generated code calls for data_move: the common case inline, so a
 * kernel's move costs its copies and a few compares (with constant burst
 * arguments most of them fold away, and a burst's memcpy has a constant
 * size) instead of a library call whose eleven arguments go through the
 * stack.  The common case is a move that passes every rule and whose
 * source and destination spans do not overlap: one memcpy when both
 * strides are 0, else a copy per burst.  Anything else, every error,
 * and every move while a check is on (kdsl_rt_checking), goes to
 * kdsl_ascend_data_move, which behaves exactly as if called directly. */
static inline KDSL_INLINE_ALWAYS int
kdsl_ascend_data_move_fast(kdsl_rt *rt, const kdsl_site *site, kdsl_ref dst, int64_t dst_off,
                           kdsl_cref src, int64_t src_off, int64_t sid, int64_t nburst, int64_t burst,
                           int64_t src_stride, int64_t dst_stride)
{
	/* unsigned: arguments outside their ranges wrap harmlessly before
	 * the checks below turn them away */
	uint64_t len = (uint64_t)burst * KDSL_ASCEND_BLOCK;
	uint64_t sstep = len + (uint64_t)src_stride * KDSL_ASCEND_BLOCK;
	uint64_t dstep = len + (uint64_t)dst_stride * KDSL_ASCEND_BLOCK;
	uint64_t sspan = ((uint64_t)nburst - 1) * sstep + len, dspan = ((uint64_t)nburst - 1) * dstep + len;
	unsigned char *d;
	const unsigned char *s;
	uint64_t o;
	int64_t k;

	if (rt && !kdsl_rt_checking(rt) && sid >= 0 && sid <= KDSL_ASCEND_SID_MAX && nburst >= 1 &&
	    nburst <= KDSL_ASCEND_NBURST_MAX &&
	    burst >= 1 && burst <= KDSL_ASCEND_BURST_MAX && src_stride >= 0 &&
	    src_stride <= KDSL_ASCEND_STRIDE_MAX && dst_stride >= 0 && dst_stride <= KDSL_ASCEND_STRIDE_MAX &&
	    kdsl_ascend_move_allowed(src.mem, dst.mem) &&
	    dst.base && src.base && dst_off >= 0 && src_off >= 0 &&
	    (uint64_t)dst_off <= dst.bytes && dst.bytes - (uint64_t)dst_off >= dspan &&
	    (uint64_t)src_off <= src.bytes && src.bytes - (uint64_t)src_off >= sspan &&
	    kdsl_ascend_aligned_(dst.base, dst.mem, dst_off) && kdsl_ascend_aligned_(src.base, src.mem, src_off) &&
	    kdsl_ascend_inside_(rt, dst.mem, dst.base, dst.bytes) && kdsl_ascend_inside_(rt, src.mem, src.base, src.bytes)) {
		d = dst.base + dst_off;
		s = src.base + src_off;
		if ((uintptr_t)d + dspan <= (uintptr_t)s || (uintptr_t)s + sspan <= (uintptr_t)d) {
			if (sspan == (uint64_t)nburst * len && dspan == sspan) {
				memcpy(d, s, (size_t)sspan);
			} else if (len <= 256) {
				/* 32-byte pieces: a constant-size copy of a whole burst
				 * becomes `rep movs`, whose start-up costs more than a
				 * short burst */
				for (k = 0; k < nburst; k++, d += dstep, s += sstep)
					for (o = 0; o < len; o += 32)
						memcpy(d + o, s + o, 32);
			} else {
				for (k = 0; k < nburst; k++, d += dstep, s += sstep)
					memcpy(d, s, (size_t)len);
			}
			return KDSL_OK;
		}
	}
	return kdsl_ascend_data_move(rt, site, dst, dst_off, src, src_off, sid, nburst, burst, src_stride,
	                             dst_stride);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* A TIK vector op's mask: the continuous form (bits 0: the first `count`
 * elements of each repeat, 1..256/size(dt)) or the bitwise form (bits 1:
 * element i iff bit i of h << 64 | l; kdsl_hw.h's kdsl_ascend_bits). */
typedef struct {
	int64_t count;
	uint64_t h, l;
	int bits;
} kdsl_ascend_mask;

static inline kdsl_ascend_mask kdsl_ascend_mask_count(int64_t n)
{
	kdsl_ascend_mask m = {n, 0, 0, 0};
	return m;
}

static inline kdsl_ascend_mask kdsl_ascend_mask_bits(uint64_t h, uint64_t l)
{
	kdsl_ascend_mask m = {0, h, l, 1};
	return m;
}

/* Repeat r writes the mask's elements of the 256 bytes starting
 * r*dst_rep_stride*32 bytes after dst_off; the others keep their value.
 * repeat_times 0..255 (0 does nothing), strides 0..255
 * (KDSL_ASCEND_REPEAT_BYTES and the limits after it). */
KDSL_API int kdsl_ascend_vec_dup(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 double scalar, int64_t repeat_times, int64_t dst_rep_stride);
/* What generated code calls for vec_dup: the usual zero fill inline.
 * Repeats that follow each other (dst_rep_stride * 32 == mask * size),
 * +0.0 (every byte 0 in every dtype), every rule met and no check on:
 * one memset.  Anything else, and every error, goes to kdsl_ascend_vec_dup. */
static inline KDSL_INLINE_ALWAYS int
kdsl_ascend_vec_dup_fast(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask m,
                         kdsl_ref dst, int64_t dst_off, double scalar, int64_t repeat_times,
                         int64_t dst_rep_stride)
{
	int64_t size = dt == KDSL_I16 || dt == KDSL_U16 || dt == KDSL_F16 ? 2
	             : dt == KDSL_I32 || dt == KDSL_U32 || dt == KDSL_F32 ? 4 : 0;
	int64_t mask = m.count;
	uint64_t bits, len = (uint64_t)mask * (uint64_t)size * (uint64_t)repeat_times;

	memcpy(&bits, &scalar, sizeof bits);
	if (rt && !kdsl_rt_checking(rt) && size && bits == 0 && !m.bits && mask >= 1 &&
	    mask <= KDSL_ASCEND_REPEAT_BYTES / size &&
	    repeat_times >= 1 && repeat_times <= KDSL_ASCEND_REPEAT_MAX && dst_rep_stride >= 0 &&
	    dst_rep_stride <= KDSL_ASCEND_REP_STRIDE_MAX && dst_rep_stride * KDSL_ASCEND_BLOCK == mask * size &&
	    dst.mem == KDSL_MEM_UB && dst.base && kdsl_rt_holds_(rt, KDSL_MEM_UB, dst.base, dst.bytes) &&
	    dst_off >= 0 && kdsl_ascend_aligned_(dst.base, dst.mem, dst_off) &&
	    (uint64_t)dst_off <= dst.bytes && dst.bytes - (uint64_t)dst_off >= len) {
		memset(dst.base + dst_off, 0, (size_t)len);
		return KDSL_OK;
	}
	return kdsl_ascend_vec_dup(rt, site, dt, m, dst, dst_off, scalar, repeat_times, dst_rep_stride);
}
/* Repeat r adds the mask's elements of src0's and src1's repeats into
 * dst's (each repeat r*rep_stride*32 bytes after its operand); the other
 * elements keep their value.  The overlap rules are kdsl_hw.h's
 * kdsl_ascend_vec_overlap, except that dst may coincide with src1 when
 * both rep strides are 0 (the pages' accumulation: repeat after repeat
 * adds src0's into dst). */
KDSL_API int kdsl_ascend_vec_add(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 kdsl_cref src0, int64_t src0_off,
                                 kdsl_cref src1, int64_t src1_off,
                                 int64_t repeat_times, int64_t dst_rep_stride,
                                 int64_t src0_rep_stride, int64_t src1_rep_stride);
/* vec_add's shape and rules, dst = src0 - src1, src0 * src1, max or min
 * of the two (f16: the exact result rounded once to nearest even; f32:
 * IEEE binary32; i32: sub and mul wrap; max/min: a NaN operand wins). */
KDSL_API int kdsl_ascend_vec_sub(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 kdsl_cref src0, int64_t src0_off,
                                 kdsl_cref src1, int64_t src1_off,
                                 int64_t repeat_times, int64_t dst_rep_stride,
                                 int64_t src0_rep_stride, int64_t src1_rep_stride);
KDSL_API int kdsl_ascend_vec_mul(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 kdsl_cref src0, int64_t src0_off,
                                 kdsl_cref src1, int64_t src1_off,
                                 int64_t repeat_times, int64_t dst_rep_stride,
                                 int64_t src0_rep_stride, int64_t src1_rep_stride);
KDSL_API int kdsl_ascend_vec_max(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 kdsl_cref src0, int64_t src0_off,
                                 kdsl_cref src1, int64_t src1_off,
                                 int64_t repeat_times, int64_t dst_rep_stride,
                                 int64_t src0_rep_stride, int64_t src1_rep_stride);
KDSL_API int kdsl_ascend_vec_min(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                 kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,
                                 kdsl_cref src0, int64_t src0_off,
                                 kdsl_cref src1, int64_t src1_off,
                                 int64_t repeat_times, int64_t dst_rep_stride,
                                 int64_t src0_rep_stride, int64_t src1_rep_stride);

/* The one-source ops (vec_add's rules with one source): dst = src +
 * scalar or src * scalar (the scalar first converted to dt), |src|, e^src,
 * ln(src), 1/src (the exact value rounded once to dt), max(src, 0).
 * f16 and f32 (vec_relu: f16). */
KDSL_API int kdsl_ascend_vec_adds(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask mask,
                                  kdsl_ref dst, int64_t dst_off, kdsl_cref src, int64_t src_off,
                                  double scalar, int64_t repeat_times, int64_t dst_rep_stride,
                                  int64_t src_rep_stride);
KDSL_API int kdsl_ascend_vec_muls(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ascend_mask mask,
                                  kdsl_ref dst, int64_t dst_off, kdsl_cref src, int64_t src_off,
                                  double scalar, int64_t repeat_times, int64_t dst_rep_stride,
                                  int64_t src_rep_stride);
#define KDSL_VEC_UNARY_DECL(name)                                                                  \
	KDSL_API int kdsl_ascend_##name(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,         \
	                                kdsl_ascend_mask mask, kdsl_ref dst, int64_t dst_off,    \
	                                kdsl_cref src, int64_t src_off, int64_t repeat_times,    \
	                                int64_t dst_rep_stride, int64_t src_rep_stride);
KDSL_VEC_UNARY_DECL(vec_abs)
KDSL_VEC_UNARY_DECL(vec_exp)
KDSL_VEC_UNARY_DECL(vec_ln)
KDSL_VEC_UNARY_DECL(vec_rec)
KDSL_VEC_UNARY_DECL(vec_relu)

/* vec_conv: each element `mask` enables of src's repeat, converted to
 * dst's dtype (dt; src's is src_dt) by round_mode (a KDSL_ROUND_* code,
 * kdsl_hw.h) into the same element of dst's repeat.  A repeat spans 256
 * bytes of the wider operand; the pairs and modes are
 * KDSL_ASCEND_CONV_LIST's.  vec_add's other rules with one source. */
KDSL_API int kdsl_ascend_vec_conv(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_dtype src_dt,
                                  kdsl_ascend_mask mask, int64_t round_mode, kdsl_ref dst, int64_t dst_off,
                                  kdsl_cref src, int64_t src_off, int64_t repeat_times,
                                  int64_t dst_rep_stride, int64_t src_rep_stride);

/* A scalar of any dtype, as an element read gives it and an element
 * write takes it: `f` for f16/f32 (the element's exact value), `i`
 * otherwise (the element's bits, sign- or zero-extended by its dtype). */
typedef union {
	int64_t i;
	double f;
} kdsl_scalar;

static inline kdsl_scalar kdsl_scalar_i(int64_t v)
{
	kdsl_scalar s;
	s.i = v;
	return s;
}

static inline kdsl_scalar kdsl_scalar_f(double v)
{
	kdsl_scalar s;
	s.f = v;
	return s;
}

/* Element access on ub (TIK's Scalar.set_as; LANGUAGE.md 7): the element
 * of dtype dt at byte offset off of a ub tensor, read into *out or
 * written from v (already of dt: the compiler casts).  Checked: ub, the
 * dtype one TIK's Scalar has, the element inside the tensor. */
KDSL_API int kdsl_ascend_elem_read(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                   kdsl_cref src, int64_t off, kdsl_scalar *out);
KDSL_API int kdsl_ascend_elem_write(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                    kdsl_ref dst, int64_t off, kdsl_scalar v);

/* ---- f16 <-> f64 and f16 -> f32, inline: the element access below,
 * generated code and the runtime's own ops (rt_half.h holds the other
 * conversions) ---- */

static inline uint64_t kdsl_h_bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline double kdsl_h_from_bits64(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* Rounds a finite, nonzero, normal source value to a narrower format.
 * The value is sig * 2^(e - p): sig holds the source significand with its
 * implicit bit at position p; the target keeps t fraction bits, has the
 * given exponent bias, and ebits exponent bits.  Returns the magnitude bits.
 * Rounding once from the wide significand is what makes f64 -> f16 exact:
 * no intermediate float, so no double rounding. */
static inline uint32_t kdsl_h_round(uint64_t sig, int p, int e, int t, int bias, int ebits)
{
	uint32_t inf = ((1u << ebits) - 1u) << t;
	uint32_t base, r;
	uint64_t q, rem, half;
	int shift;

	if (e > bias)
		return inf;
	if (e >= 1 - bias) {
		shift = p - t;
		base = (uint32_t)(e + bias) << t;
		sig &= ((uint64_t)1 << p) - 1;
	} else {
		/* Subnormal result: the implicit bit stays and shifts down too. */
		shift = p - t + (1 - bias - e);
		base = 0;
		/* Below half the smallest subnormal: rounds to zero. */
		if (shift > p + 1)
			return 0;
	}
	q = sig >> shift;
	rem = sig & (((uint64_t)1 << shift) - 1);
	half = (uint64_t)1 << (shift - 1);
	r = base + (uint32_t)q;
	/* A carry out of the fraction bumps the exponent, up to infinity. */
	if (rem > half || (rem == half && (q & 1)))
		r++;
	return r;
}

/* Narrows a double to a format with t fraction bits (f16: 10, bf16: 7). */
static inline uint16_t kdsl_h_narrow64(double d, int t, int bias, int ebits)
{
	uint64_t u = kdsl_h_bits64(d);
	uint16_t sign = (uint16_t)((u >> 63) << 15);
	int exp = (int)((u >> 52) & 0x7ff);
	uint64_t man = u & (((uint64_t)1 << 52) - 1);
	uint16_t inf = (uint16_t)(((1u << ebits) - 1u) << t);

	if (exp == 0x7ff) {
		if (man == 0)
			return sign | inf;
		/* Quiet NaN that keeps the sign and the payload's top bits. */
		return (uint16_t)(sign | inf | (1u << (t - 1)) | (uint16_t)(man >> (52 - t)));
	}
	/* Zero and double subnormals are far below either format's range. */
	if (exp == 0)
		return sign;
	return (uint16_t)(sign | kdsl_h_round(man | ((uint64_t)1 << 52), 52, exp - 1023, t, bias, ebits));
}

static inline kdsl_f16 kdsl_h_f64_to_f16(double d)
{
	return kdsl_h_narrow64(d, 10, 15, 5);
}

static inline double kdsl_h_f16_to_f64(kdsl_f16 h)
{
	uint64_t sign = (uint64_t)(h >> 15) << 63;
	uint64_t exp = (h >> 10) & 0x1f;
	uint64_t man = h & 0x3ffu;

	if (exp == 0x1f)
		return kdsl_h_from_bits64(sign | ((uint64_t)0x7ff << 52) | (man << 42));
	if (exp == 0) {
		double v = (double)man / 16777216.0;   /* man * 2^-24, exact */
		return sign ? -v : v;
	}
	return kdsl_h_from_bits64(sign | ((exp + 1008) << 52) | (man << 42));
}

/* f16 -> f32 twice, each the form its callers measured fastest; the
 * unit tests hold both to the definition on every pattern.
 *
 * kdsl_h_f16_to_f32, the runtime's: exact, a signalling NaN stays
 * signalling, written as masks and-ed and or-ed so that the runtime's
 * conversion loops vectorise even on SSE2 (the exponent rebiased by 112,
 * by 224 for inf and NaN, so 31 becomes 255; a subnormal as its integer
 * significand times 2^-24, exact in f32).  With the selects of the form
 * below, nki tensor_add under KDSL_ISA=sse2 took 610 us instead of 364. */
static inline float kdsl_h_f16_to_f32(kdsl_f16 h)
{
	uint32_t em = (uint32_t)h & 0x7fffu, e = (uint32_t)h & 0x7c00u, bits, subb;
	uint32_t infm = 0u - (uint32_t)(e == 0x7c00u), subm = 0u - (uint32_t)(e == 0);
	float sub = (float)(int32_t)em * (1.0f / 16777216.0f), f;   /* em * 2^-24 */

	bits = (em << 13) + (0x38000000u + (infm & 0x38000000u));
	memcpy(&subb, &sub, 4);
	bits = (subb & subm) | (bits & ~subm) | (((uint32_t)h & 0x8000u) << 16);
	memcpy(&f, &bits, 4);
	return f;
}

/* kdsl_h_f16_to_f32_quiet, generated code's f16 -> f32 cast, which is
 * (float)kdsl_h_f16_to_f64(h): the same value with a NaN made quiet, as
 * the conversion of a double NaN to float makes it.  Generated lanes are
 * converted one at a time, where these selects (cmov) beat the masks
 * above: Compass reduce_mean took 5.6 us against 8.5 us with them. */
static inline float kdsl_h_f16_to_f32_quiet(kdsl_f16 h)
{
	uint32_t em = (uint32_t)h & 0x7fffu, sign = ((uint32_t)h & 0x8000u) << 16, sb, r;
	float sub = (float)(int32_t)em * (1.0f / 16777216.0f), f;   /* em * 2^-24 */

	memcpy(&sb, &sub, 4);
	r = em < 0x400u ? sb
	    : em >= 0x7c00u ? 0x7f800000u | (em << 13) | ((em & 0x3ffu) ? 0x400000u : 0u)
	    : (em << 13) + 0x38000000u;
	r |= sign;
	memcpy(&f, &r, 4);
	return f;
}

/* The bytes of an element TIK's Scalar can hold (the integers, f16 and
 * f32), 0 for any other dtype (bf16, bool: kdsl_ascend_elem_read names
 * the error). */
static inline int64_t kdsl_ascend_elem_size_(kdsl_dtype dt)
{
	switch (dt) {
	case KDSL_I8: case KDSL_U8: return 1;
	case KDSL_I16: case KDSL_U16: case KDSL_F16: return 2;
	case KDSL_I32: case KDSL_U32: case KDSL_F32: return 4;
	case KDSL_I64: case KDSL_U64: return 8;
	default: return 0;
	}
}

/* 1 when an element access of dt at byte offset off of a ub operand
 * passes every check kdsl_ascend_elem_read/_write make (the cheap way:
 * the same tests, inline), with no checking mode on: the uninit check's
 * shadow is the library's to test and mark. */
static inline KDSL_INLINE_ALWAYS int kdsl_ascend_elem_ok_(const kdsl_rt *rt, kdsl_dtype dt, kdsl_mem mem,
                                                         const void *base, size_t bytes, int64_t off)
{
	int64_t size = kdsl_ascend_elem_size_(dt);
	return rt && !kdsl_rt_checking(rt) && size && mem == KDSL_MEM_UB && base &&
	       kdsl_rt_holds_(rt, KDSL_MEM_UB, base, bytes) && off >= 0 && off % size == 0 &&
	       (uint64_t)off < bytes && bytes - (uint64_t)off >= (uint64_t)size;
}

/* The element of dtype dt at p into *out (a float as a double, an
 * integer sign- or zero-extended; i64/u64 as their 64 bits): the one
 * load both element-read entries use. */
static inline void kdsl_ascend_elem_load_(kdsl_dtype dt, const unsigned char *p, kdsl_scalar *out)
{
	switch (dt) {
	case KDSL_F16: { kdsl_f16 h; memcpy(&h, p, 2); out->f = kdsl_h_f16_to_f64(h); break; }
	case KDSL_F32: { float f; memcpy(&f, p, 4); out->f = f; break; }
	case KDSL_I8: { int8_t v; memcpy(&v, p, 1); out->i = v; break; }
	case KDSL_U8: { uint8_t v; memcpy(&v, p, 1); out->i = v; break; }
	case KDSL_I16: { int16_t v; memcpy(&v, p, 2); out->i = v; break; }
	case KDSL_U16: { uint16_t v; memcpy(&v, p, 2); out->i = v; break; }
	case KDSL_I32: { int32_t v; memcpy(&v, p, 4); out->i = v; break; }
	case KDSL_U32: { uint32_t v; memcpy(&v, p, 4); out->i = v; break; }
	default: { int64_t v; memcpy(&v, p, 8); out->i = v; break; }   /* i64, u64: the 64 bits */
	}
}

/* What generated code calls for u[i]: the element loaded inline (a few
 * compares and one typed load; with the constant dtype the switch folds)
 * when every check passes and no check mode is on; anything else, every
 * error and every read under KDSL_CHECK goes to kdsl_ascend_elem_read,
 * which behaves exactly as if called directly. */
static inline KDSL_INLINE_ALWAYS int kdsl_ascend_elem_read_fast(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                                               kdsl_cref src, int64_t off, kdsl_scalar *out)
{
	if (!out || !kdsl_ascend_elem_ok_(rt, dt, src.mem, src.base, src.bytes, off))
		return kdsl_ascend_elem_read(rt, site, dt, src, off, out);
	kdsl_ascend_elem_load_(dt, src.base + off, out);
	return KDSL_OK;
}

/* u[i] = v: as kdsl_ascend_elem_read_fast, the store inline (f16 rounded
 * to nearest even, f32 as C converts, an integer's low bytes: the
 * compiler's cast already wrapped it), else kdsl_ascend_elem_write. */
static inline KDSL_INLINE_ALWAYS int kdsl_ascend_elem_write_fast(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt,
                                                                kdsl_ref dst, int64_t off, kdsl_scalar v)
{
	unsigned char *p;
	uint64_t u = (uint64_t)v.i;

	if (!kdsl_ascend_elem_ok_(rt, dt, dst.mem, dst.base, dst.bytes, off))
		return kdsl_ascend_elem_write(rt, site, dt, dst, off, v);
	p = dst.base + off;
	switch (dt) {
	case KDSL_F16: { kdsl_f16 h = kdsl_h_f64_to_f16(v.f); memcpy(p, &h, 2); break; }
	case KDSL_F32: { float f = (float)v.f; memcpy(p, &f, 4); break; }
	case KDSL_I8: case KDSL_U8: { uint8_t b = (uint8_t)u; memcpy(p, &b, 1); break; }
	case KDSL_I16: case KDSL_U16: { uint16_t b = (uint16_t)u; memcpy(p, &b, 2); break; }
	case KDSL_I32: case KDSL_U32: { uint32_t b = (uint32_t)u; memcpy(p, &b, 4); break; }
	default: memcpy(p, &u, 8); break;
	}
	return KDSL_OK;
}
/* ---- aipu: dma_copy (Compass's S.dma_copy) ----
 * count elements of dtype dt from src (at byte offset src_off) to dst (at
 * dst_off): count at least 1, the pair of memories one
 * kdsl_aipu_dma_allowed accepts, an lsram operand inside rt's lsram, both
 * ranges inside their tensors; all checked before the copy. */
KDSL_API int kdsl_aipu_dma_copy(kdsl_rt *rt, const kdsl_site *site, kdsl_dtype dt, kdsl_ref dst,
                                int64_t dst_off, kdsl_cref src, int64_t src_off, int64_t count);

/* ---- neuron (seeds 000, 002, 003) ----
 * A tile operand: the storage of one physical tile (partition 0, byte 0),
 * the bytes from one partition to the next, the tile's bytes in each
 * partition and its partitions, and the view: partitions p0..p0+np-1 and
 * elements off..off+n-1 of each.  An hbm tensor [R, C...] is a tile of R
 * partitions (rows).  Every op checks the view against the tile, and an
 * sbuf/psum tile against the runtime's memory, before it writes.
 * An access pattern (nd 1..KDSL_NEURON_AP_DIMS, set by kdsl_tile_ap) makes
 * the view strided: element (p, i0, i1, i2) of it is element
 * off + i0*st[0] + i1*st[1] + i2*st[2] of partition p0 + p (sbuf/psum, pstep
 * 0), or, in hbm, element (p0 * row + off) + p*pstep + i0*st[0] + ... of the
 * tensor taken flat (so a view may cross rows: a.T, a[b] of an N-D tensor);
 * ct[k] counts dim k, n is their product, strides are at least 1.  nd 0 is
 * the contiguous form. */
typedef struct {
	unsigned char *base;
	size_t pstride, pbytes;
	int64_t nparts, p0, np, off, n;
	kdsl_mem mem;
	kdsl_dtype dt;
	int64_t pstep, nd, st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS];
} kdsl_tile;
typedef struct {
	const unsigned char *base;
	size_t pstride, pbytes;
	int64_t nparts, p0, np, off, n;
	kdsl_mem mem;
	kdsl_dtype dt;
	int64_t pstep, nd, st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS];
} kdsl_ctile;

/* tensor_tensor / tensor_scalar take an op code KDSL_ALU_*, activation
 * a func code KDSL_ACT_* (kdsl_hw.h). */

/* load: hbm -> sbuf; store: sbuf or psum -> hbm.  Of different dtypes the
 * elements convert as tensor_copy's (through f32). */
KDSL_API int kdsl_neuron_load(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src);
KDSL_API int kdsl_neuron_store(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src);
KDSL_API int kdsl_neuron_tensor_copy(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src);
KDSL_API int kdsl_neuron_memset(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double value);
/* pstep KDSL_NEURON_IOTA_PSTEP_DEFAULT: base + step*(p*F + j), else
 * base + pstep*p + step*j (LANGUAGE.md 7). */
KDSL_API int kdsl_neuron_iota(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double base, double step,
                              int64_t pstep);
/* dst[p, j] = p == j: a square sbuf tile, 1 and 0 in its dtype. */
KDSL_API int kdsl_neuron_identity(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst);
/* dst[q, j] = src[q, j] where p*q + f*j + c cmp 0 (cmp a KDSL_CMP_* code),
 * else fill (as an f32); both in sbuf, j the flat free index. */
KDSL_API int kdsl_neuron_affine_select(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                       double fill, int64_t p, int64_t f, int64_t c, int64_t cmp);
KDSL_API int kdsl_neuron_tensor_tensor(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a,
                                       kdsl_ctile b, int64_t op);
/* dst = (a op0 operand0) op1 operand1 (LANGUAGE.md 7): an operand is the
 * number v (its tile's base NULL) or a [P, 1] tile; reverse puts it on
 * the left; op1 KDSL_ALU_BYPASS: no second operation. */
KDSL_API int kdsl_neuron_tensor_scalar(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a,
                                       int64_t op0, kdsl_ctile operand0, double operand0_v, int64_t reverse0,
                                       int64_t op1, kdsl_ctile operand1, double operand1_v, int64_t reverse1);
/* dst = func(src * scale + bias); bias and scale numbers or [P, 1] tiles
 * as tensor_scalar's operands. */
KDSL_API int kdsl_neuron_activation(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                    int64_t func, kdsl_ctile bias, double bias_v, kdsl_ctile scale,
                                    double scale_v);
/* dst [P, 1] = op (KDSL_ALU_ADD, _MAX, _MIN, _MULTIPLY) over each
 * partition of src, times -1 when negate. */
KDSL_API int kdsl_neuron_tensor_reduce(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                       int64_t op, int64_t negate);
/* dst[M, N] (=|+=) stationary[K, M]^T @ moving[K, N] in f32; dst f32. */
KDSL_API int kdsl_neuron_nc_matmul(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile stationary,
                                   kdsl_ctile moving, int64_t accumulate);
/* dst[j, p] = src[p, j], bit for bit: src [P, F] in sbuf, dst [F, P] in
 * psum of src's dtype, P and F at most KDSL_NEURON_TRANSPOSE_MAX. */
KDSL_API int kdsl_neuron_nc_transpose(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src);
/* Seed 000.  mask: nmask (KDSL_NEURON_QUADRANT) entries, each a partition
 * of the quadrant or KDSL_NEURON_SHUFFLE_KEEP. */
KDSL_API int kdsl_neuron_nc_stream_shuffle(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                           const int64_t *mask, int64_t nmask);
/* A tile of rt's on-chip memory mem given by its place instead of a
 * pointer: the storage starts off bytes into the memory (partition 0),
 * its partition stride is the memory's; the other fields as kdsl_tile's
 * (no access pattern).  What kdslc emits as a static const when every
 * field of a view is a constant of the kernel. */
typedef struct {
	size_t off, pbytes;
	int64_t nparts, p0, np, foff, n;
	kdsl_mem mem;
	kdsl_dtype dt;
} kdsl_rtile;
/* nc_stream_shuffle's operands when all are constants of a call site. */
typedef struct {
	kdsl_rtile dst, src;
	int64_t mask[KDSL_NEURON_QUADRANT];
} kdsl_shuf_args;
/* kdsl_neuron_nc_stream_shuffle on the tiles at a->dst and a->src of rt's
 * memories (base rt's memory plus off, elements foff..foff+n-1) with the
 * mask a->mask: the same checks, errors and bytes, without building and
 * passing two kdsl_tile structs by value.  A tile outside the memory
 * fails with "dst is not in this runtime's sbuf" (or src, psum); a
 * memory other than sbuf or psum with "dst must be in sbuf or psum". */
KDSL_API int kdsl_neuron_nc_stream_shuffle_k(kdsl_rt *rt, const kdsl_site *site, const kdsl_shuf_args *a);
/* Seed 002.  src.base == NULL: the scalar src_scalar is copied.  dtype 0:
 * none (src and dst share a dtype). */
KDSL_API int kdsl_neuron_tensor_copy_predicated(kdsl_rt *rt, const kdsl_site *site, kdsl_ctile src,
                                                double src_scalar, kdsl_tile dst, kdsl_ctile predicate,
                                                int64_t mask, int64_t dtype, int64_t reverse_pred);
/* predicated_merge, made by kdslc's fuse-select pass (never by source):
 * dst = (predicate != 0) != reverse_pred ? on_true : on_false, element by
 * element, every input read before dst is written.  dst and on_false in
 * hbm, on_true and predicate in hbm, sbuf or psum (not both in psum);
 * one shape; dst, on_true, on_false one dtype; predicate u8, u16 or u32. */
KDSL_API int kdsl_neuron_predicated_merge(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile on_true,
                                          kdsl_ctile on_false, kdsl_ctile predicate, int64_t reverse_pred);
/* Indirect DMA (LANGUAGE.md 7): row index[p] of the hbm view src to
 * partition p of the sbuf tile dst (load_gather), or partition p of src to
 * row index[p] of dst (store_scatter; partitions in order, so the highest
 * of duplicate indices wins).  index: an sbuf KDSL_NEURON_INDEX_DTYPE
 * [P, 1] tile; every index is checked before anything is written. */
KDSL_API int kdsl_neuron_load_gather(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                     kdsl_ctile index);
KDSL_API int kdsl_neuron_store_scatter(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                       kdsl_ctile index);

static inline kdsl_tile kdsl_tile_of(void *base, size_t pstride, size_t pbytes, int64_t nparts,
                                     int64_t p0, int64_t np, int64_t off, int64_t n,
                                     kdsl_mem mem, kdsl_dtype dt)
{
	kdsl_tile t;
	t.base = (unsigned char *)base;
	t.pstride = pstride;
	t.pbytes = pbytes;
	t.nparts = nparts;
	t.p0 = p0;
	t.np = np;
	t.off = off;
	t.n = n;
	t.mem = mem;
	t.dt = dt;
	t.pstep = t.nd = 0;
	t.st[0] = t.st[1] = t.st[2] = t.ct[0] = t.ct[1] = t.ct[2] = 0;
	return t;
}
static inline kdsl_ctile kdsl_ctile_of(const void *base, size_t pstride, size_t pbytes, int64_t nparts,
                                       int64_t p0, int64_t np, int64_t off, int64_t n,
                                       kdsl_mem mem, kdsl_dtype dt)
{
	kdsl_ctile t;
	t.base = (const unsigned char *)base;
	t.pstride = pstride;
	t.pbytes = pbytes;
	t.nparts = nparts;
	t.p0 = p0;
	t.np = np;
	t.off = off;
	t.n = n;
	t.mem = mem;
	t.dt = dt;
	t.pstep = t.nd = 0;
	t.st[0] = t.st[1] = t.st[2] = t.ct[0] = t.ct[1] = t.ct[2] = 0;
	return t;
}
static inline kdsl_ctile kdsl_ctile_none(void)
{
	return kdsl_ctile_of(NULL, 0, 0, 0, 0, 0, 0, 0, (kdsl_mem)0, (kdsl_dtype)0);
}

/* A strided view (the access pattern above): t with partition step pstep
 * and nd free dims of (stride, count) in elements, outermost first. */
static inline kdsl_tile kdsl_tile_ap(kdsl_tile t, int64_t pstep, int64_t nd, int64_t s0, int64_t c0, int64_t s1,
                                     int64_t c1, int64_t s2, int64_t c2)
{
	t.pstep = pstep;
	t.nd = nd;
	t.st[0] = s0, t.ct[0] = c0, t.st[1] = s1, t.ct[1] = c1, t.st[2] = s2, t.ct[2] = c2;
	return t;
}
static inline kdsl_ctile kdsl_ctile_ap(kdsl_ctile t, int64_t pstep, int64_t nd, int64_t s0, int64_t c0,
                                       int64_t s1, int64_t c1, int64_t s2, int64_t c2)
{
	t.pstep = pstep;
	t.nd = nd;
	t.st[0] = s0, t.ct[0] = c0, t.st[1] = s1, t.ct[1] = c1, t.st[2] = s2, t.ct[2] = c2;
	return t;
}

/* Helpers for generated code: views of a kernel's tensors. */
static inline kdsl_ref kdsl_ref_of(void *base, size_t bytes, kdsl_mem mem)
{
	kdsl_ref r;
	r.base = (unsigned char *)base;
	r.bytes = bytes;
	r.mem = mem;
	return r;
}
static inline kdsl_cref kdsl_cref_of(const void *base, size_t bytes, kdsl_mem mem)
{
	kdsl_cref r;
	r.base = (const unsigned char *)base;
	r.bytes = bytes;
	r.mem = mem;
	return r;
}

#ifdef __cplusplus
}
#endif
#endif
