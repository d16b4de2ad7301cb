/* kdsl_hw.h: the hardware facts kdslc and the runtime share, each stated
 * once: the targets, memory spaces and dtypes with their numbering, the
 * capacities and alignments of the memories, and the ops' limits and rules
 * that both the compiler's checks and the runtime's re-checks apply.  The
 * authority is the vendor pages in shared/seeds/ (cited by number) and,
 * where they are silent or ambiguous, shared/spec/LANGUAGE.md.
 *
 * Plain C with no dependency beyond <stdint.h>: the runtime includes it
 * from kdsl_rt.h (so it is installed with it) and the compiler includes it
 * from util/kd.h; it includes nothing of either.  The *_LIST macros hold
 * the per-value facts as one row each; a table or switch built from a
 * list cannot disagree with it, and a switch over the enum built from its
 * list fails -Wswitch when the two differ. */
#ifndef KDSL_HW_H
#define KDSL_HW_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- targets ---- */

typedef enum {
	KDSL_TARGET_NEURON = 1,   /* AWS NKI (seeds 000, 002, 003) */
	KDSL_TARGET_ASCEND = 2,   /* Huawei TIK (seed 001) */
	KDSL_TARGET_AIPU = 3      /* Arm China Zhouyi (seed 004) */
} kdsl_target;
enum { KDSL_NTARGET = KDSL_TARGET_AIPU + 1 };   /* one past the last; 0 is none */

/* X(target, name) */
#define KDSL_TARGET_LIST(X)             \
	X(KDSL_TARGET_NEURON, "neuron") \
	X(KDSL_TARGET_ASCEND, "ascend") \
	X(KDSL_TARGET_AIPU, "aipu")
#define KDSL_TARGET_BIT(t) (1u << (t))

/* ---- memory spaces (LANGUAGE.md section 2) ---- */

typedef enum {
	KDSL_MEM_GM = 1, KDSL_MEM_UB, KDSL_MEM_L1,
	KDSL_MEM_HBM, KDSL_MEM_SBUF, KDSL_MEM_PSUM,
	KDSL_MEM_LSRAM
} kdsl_mem;
enum { KDSL_NMEM = KDSL_MEM_LSRAM + 1 };   /* one past the last; 0 is none */

enum {
	/* ascend: ub 256 KiB and l1 1 MiB (LANGUAGE.md 2; seed 001's example
	 * 3 assumes 248 KB of ub are free for its data) */
	KDSL_ASCEND_UB_BYTES = 256 * 1024,
	KDSL_ASCEND_L1_BYTES = 1024 * 1024,
	/* "If the scope of dst/src is the L1 Buffer or Unified Buffer, the
	 * address offset must be 32-byte aligned" (seed 001, Table 1). */
	KDSL_ASCEND_ALIGN = 32,

	/* neuron: dim 0 of an sbuf/psum tile is the partition dim, at most
	 * 128; sbuf is 128 partitions x 192 KiB, psum 128 x 16 KiB = 8 banks
	 * x 2 KiB per partition (LANGUAGE.md 2; seed 003: a psum tile lives in
	 * one bank, "partial bank allocation is not allowed"). */
	KDSL_NEURON_PARTITIONS = 128,
	KDSL_NEURON_SBUF_BYTES = 192 * 1024,          /* per partition */
	KDSL_NEURON_PSUM_BANKS = 8,
	KDSL_NEURON_PSUM_BANK_BYTES = 2048,           /* per partition */
	KDSL_NEURON_PSUM_BYTES = KDSL_NEURON_PSUM_BANKS * KDSL_NEURON_PSUM_BANK_BYTES,

	/* aipu: a TEC's local SRAM (Compass's scope "lsram"), 32 KiB: the
	 * Compass DSL tutorials size their lsram buffers by it ("the target is
	 * X2_1204, the total LSRAM size is 32 KB") */
	KDSL_AIPU_LSRAM_BYTES = 32 * 1024
};

/* One row per space: X(mem, name, vendor spelling (seed 001's Table 2 says
 * OUT for gm), targets (KDSL_TARGET_BIT mask), external (kernel parameters
 * live there), address alignment in bytes (0: no rule), partitions (0:
 * flat), capacity in bytes (per partition when partitioned; 0 for the
 * external spaces, whose tensors the caller owns)). */
#define KDSL_MEM_LIST(X)                                                                    \
	X(KDSL_MEM_GM, "gm", "OUT",                                                         \
	  KDSL_TARGET_BIT(KDSL_TARGET_ASCEND) | KDSL_TARGET_BIT(KDSL_TARGET_AIPU), 1, 0, 0, 0) \
	X(KDSL_MEM_UB, "ub", "UB", KDSL_TARGET_BIT(KDSL_TARGET_ASCEND), 0, KDSL_ASCEND_ALIGN,  \
	  0, KDSL_ASCEND_UB_BYTES)                                                          \
	X(KDSL_MEM_L1, "l1", "L1", KDSL_TARGET_BIT(KDSL_TARGET_ASCEND), 0, KDSL_ASCEND_ALIGN,  \
	  0, KDSL_ASCEND_L1_BYTES)                                                          \
	X(KDSL_MEM_HBM, "hbm", "HBM", KDSL_TARGET_BIT(KDSL_TARGET_NEURON), 1, 0, 0, 0)        \
	X(KDSL_MEM_SBUF, "sbuf", "SBUF", KDSL_TARGET_BIT(KDSL_TARGET_NEURON), 0, 0,           \
	  KDSL_NEURON_PARTITIONS, KDSL_NEURON_SBUF_BYTES)                                   \
	X(KDSL_MEM_PSUM, "psum", "PSUM", KDSL_TARGET_BIT(KDSL_TARGET_NEURON), 0, 0,           \
	  KDSL_NEURON_PARTITIONS, KDSL_NEURON_PSUM_BYTES)                                   \
	X(KDSL_MEM_LSRAM, "lsram", "lsram", KDSL_TARGET_BIT(KDSL_TARGET_AIPU), 0, 0, 0,       \
	  KDSL_AIPU_LSRAM_BYTES)

/* Not a device fact but one the compiler and the runtime agree on: the
 * runtime starts every emulated memory this aligned on the host, and
 * automatic placement aligns buffers to it where the space has no rule of
 * its own, so a placed buffer starts on a host cache line. */
enum { KDSL_HOST_MEM_ALIGN = 64 };

/* ---- dtypes (LANGUAGE.md section 2) ---- */

typedef enum {
	KDSL_I8 = 1, KDSL_I16, KDSL_I32, KDSL_I64,
	KDSL_U8, KDSL_U16, KDSL_U32, KDSL_U64,
	KDSL_F16, KDSL_BF16, KDSL_F32, KDSL_BOOL
} kdsl_dtype;
enum { KDSL_NDTYPE = KDSL_BOOL + 1 };   /* one past the last; 0 is none */

/* X(dtype, kdsl name, vendor spelling (the seed pages'), C storage type in
 * generated code, bytes, is_float, is_signed) */
#define KDSL_DTYPE_LIST(X)                                   \
	X(KDSL_I8, "i8", "int8", "int8_t", 1, 0, 1)          \
	X(KDSL_I16, "i16", "int16", "int16_t", 2, 0, 1)      \
	X(KDSL_I32, "i32", "int32", "int32_t", 4, 0, 1)      \
	X(KDSL_I64, "i64", "int64", "int64_t", 8, 0, 1)      \
	X(KDSL_U8, "u8", "uint8", "uint8_t", 1, 0, 0)        \
	X(KDSL_U16, "u16", "uint16", "uint16_t", 2, 0, 0)    \
	X(KDSL_U32, "u32", "uint32", "uint32_t", 4, 0, 0)    \
	X(KDSL_U64, "u64", "uint64", "uint64_t", 8, 0, 0)    \
	X(KDSL_F16, "f16", "float16", "kdsl_f16", 2, 1, 1)   \
	X(KDSL_BF16, "bf16", "bfloat16", "kdsl_bf16", 2, 1, 1) \
	X(KDSL_F32, "f32", "float32", "float", 4, 1, 1)      \
	X(KDSL_BOOL, "bool", "bool", "uint8_t", 1, 0, 0)

/* ---- ascend: data_move (seed 001) ---- */

enum {
	/* burst, src_stride and dst_stride count 32-byte blocks (Table 2's
	 * "Unit" columns); so do the vector ops' repeat strides */
	KDSL_ASCEND_BLOCK = 32,
	/* Table 1's ranges; each minimum is 0 but nburst's and burst's, 1 */
	KDSL_ASCEND_SID_MAX = 15,
	KDSL_ASCEND_NBURST_MAX = 4095,
	KDSL_ASCEND_BURST_MAX = 65535,
	KDSL_ASCEND_STRIDE_MAX = 65535
};

/* Table 2: the scope pairs data_move supports, as bit src * 8 + dst. */
#define KDSL_ASCEND_MOVE_PAIRS                                                     \
	((uint64_t)1 << (KDSL_MEM_GM * 8 + KDSL_MEM_L1) | (uint64_t)1 << (KDSL_MEM_L1 * 8 + KDSL_MEM_GM) | \
	 (uint64_t)1 << (KDSL_MEM_GM * 8 + KDSL_MEM_UB) | (uint64_t)1 << (KDSL_MEM_UB * 8 + KDSL_MEM_GM) | \
	 (uint64_t)1 << (KDSL_MEM_UB * 8 + KDSL_MEM_UB))
/* The same pairs as diagnostics list them. */
#define KDSL_ASCEND_MOVE_PAIRS_TEXT "gm->l1, l1->gm, gm->ub, ub->gm, ub->ub"

static inline int kdsl_ascend_move_allowed(kdsl_mem src, kdsl_mem dst)
{
	return (unsigned)src < 8 && (unsigned)dst < 8 && (KDSL_ASCEND_MOVE_PAIRS >> (src * 8 + dst) & 1);
}

/* ---- ascend: vector ops (vec_dup, vec_add; seed 001's examples 2, 3) ---- */

enum {
	/* one repeat covers at most 256 bytes: mask 1..256/sizeof(dtype) */
	KDSL_ASCEND_REPEAT_BYTES = 256,
	/* the largest mask of any vector dtype (the narrowest is 2 bytes) */
	KDSL_ASCEND_MASK_MAX = KDSL_ASCEND_REPEAT_BYTES / 2,
	/* "The maximum value of repeat_times is 255" (example 3); rep strides
	 * 0..255 blocks */
	KDSL_ASCEND_REPEAT_MAX = 255,
	KDSL_ASCEND_REP_STRIDE_MAX = 255
};

/* TIK's bitwise mask form [mask_h, mask_l]: bit i of the 128-bit value
 * (h << 64 | l) enables element i of every repeat.  With 4-byte elements
 * a repeat has 64, so only mask_l counts and mask_h must be 0; [0, 0]
 * enables nothing and is refused (the vector mask pages: the halves
 * "cannot be 0 at the same time").  The continuous form `mask = n` is the
 * low n bits.  kdsl_hw.h holds the overlap rules on these sets so that the
 * compiler (rules_ascend.c) and the runtime (ascend.c) judge alike. */
typedef struct {
	uint64_t h, l;
} kdsl_ascend_bits;

/* The low n bits (0 <= n <= 128): the continuous form's elements. */
static inline kdsl_ascend_bits kdsl_ascend_bits_count(int64_t n)
{
	kdsl_ascend_bits m = {0, 0};
	if (n >= 128)
		m.h = m.l = ~(uint64_t)0;
	else if (n > 64)
		m.h = ~(uint64_t)0 >> (128 - n), m.l = ~(uint64_t)0;
	else if (n == 64)
		m.l = ~(uint64_t)0;
	else if (n > 0)
		m.l = ~(uint64_t)0 >> (64 - n);
	return m;
}

/* Elements a repeat spans: the highest enabled element + 1 (0: none). */
static inline int64_t kdsl_ascend_bits_span(kdsl_ascend_bits m)
{
	uint64_t x = m.h ? m.h : m.l;
	int64_t n = m.h ? 64 : 0;
	for (; x; x >>= 1)
		n++;
	return n;
}

/* {i + k : i in m} cut to 0..127 (k may be negative). */
static inline kdsl_ascend_bits kdsl_ascend_bits_shift(kdsl_ascend_bits m, int64_t k)
{
	kdsl_ascend_bits r = {0, 0};
	if (k >= 128 || k <= -128)
		return r;
	if (k >= 64)
		r.h = m.l << (k - 64);
	else if (k > 0)
		r.h = m.h << k | m.l >> (64 - k), r.l = m.l << k;
	else if (k == 0)
		r = m;
	else if (k > -64)
		r.l = m.l >> -k | m.h << (64 + k), r.h = m.h >> -k;
	else
		r.l = m.h >> (-k - 64);
	return r;
}

/* Do the elements m of a repeat at byte 0 and those at byte `delta` share
 * a byte (elements of sz bytes)?  Element j at delta meets element i at 0
 * when i - j is q or, if delta is not a multiple of sz, q + 1, with q =
 * floor(delta / sz).  Elements of sz < 1 bytes hold no byte: 0. */
static inline int kdsl_ascend_elems_meet(kdsl_ascend_bits m, int64_t delta, int64_t sz)
{
	int64_t q;
	if (sz < 1)
		return 0;
	q = delta / sz - (delta % sz < 0);
	kdsl_ascend_bits a = kdsl_ascend_bits_shift(m, q);
	if ((a.h & m.h) | (a.l & m.l))
		return 1;
	if (delta % sz == 0)
		return 0;
	a = kdsl_ascend_bits_shift(m, q + 1);
	return ((a.h & m.h) | (a.l & m.l)) != 0;
}

/* Do the elements m of a repeat of dst (dsz-byte elements, at byte 0)
 * and those of a source (ssz-byte elements, at byte `delta`) share a
 * byte?  vec_conv's operands differ in size; the others' do not, and take
 * kdsl_ascend_elems_meet's shifts.  Sizes outside 1..KDSL_ASCEND_REPEAT_BYTES
 * (no element has them) and a delta past both repeats give 0. */
static inline int kdsl_ascend_elems_meet2(kdsl_ascend_bits m, int64_t delta, int64_t dsz, int64_t ssz)
{
	int64_t j, i, lo, hi, span = kdsl_ascend_bits_span(m);

	if (dsz < 1 || ssz < 1 || dsz > KDSL_ASCEND_REPEAT_BYTES || ssz > KDSL_ASCEND_REPEAT_BYTES)
		return 0;
	/* the repeats' bytes apart (span <= 128, sizes <= 256: no overflow),
	 * so delta + j*ssz below cannot overflow either */
	if (delta >= span * dsz || delta <= -span * ssz)
		return 0;
	if (dsz == ssz)
		return kdsl_ascend_elems_meet(m, delta, dsz);
	for (j = 0; j < span; j++) {
		if (!((j < 64 ? m.l >> j : m.h >> (j - 64)) & 1))
			continue;
		/* source element j covers [a, a + ssz): dst elements lo..hi */
		int64_t a = delta + j * ssz;
		lo = a / dsz - (a % dsz < 0);
		hi = (a + ssz - 1) / dsz - ((a + ssz - 1) % dsz < 0);
		lo = lo < 0 ? 0 : lo;
		hi = hi >= span ? span - 1 : hi;
		for (i = lo; i <= hi; i++)
			if ((i < 64 ? m.l >> i : m.h >> (i - 64)) & 1)
				return 1;
	}
	return 0;
}

/* The overlap rules of a TIK vector op (the vector pages' "address
 * overlap" notes) between dst and one source over n repeats, mask m, dst
 * elements of dsz bytes and the source's of ssz (the same but for
 * vec_conv): dst's repeat r at byte r*dstep, the source's at delta +
 * r*sstep.  Within a repeat the two coincide exactly (same address: a
 * repeat reads all of its source before it writes) or share no byte; and
 * no repeat r2 reads a byte an earlier repeat r wrote.  Returns 0 when
 * both hold, else 1 (within repeat *r) or 2 (repeat *r2 reads what repeat
 * *r wrote), for the first such r.  n <= 255, the steps 0..255*32 and the
 * sizes 1..256 (the ranges, checked first: outside them, 0, no verdict);
 * delta is anything. */
static inline int kdsl_ascend_vec_overlap(int64_t delta, int64_t dstep, int64_t sstep, int64_t n,
                                          kdsl_ascend_bits m, int64_t dsz, int64_t ssz, int64_t *r,
                                          int64_t *r2)
{
	const int64_t smax = (int64_t)KDSL_ASCEND_REP_STRIDE_MAX * KDSL_ASCEND_BLOCK;
	int64_t span = kdsl_ascend_bits_span(m), wd, ws, i, j, lo, hi, base, ni;
	if (n <= 0 || span <= 0 || n > KDSL_ASCEND_REPEAT_MAX || dstep < 0 || dstep > smax || sstep < 0 ||
	    sstep > smax || dsz < 1 || ssz < 1 || dsz > KDSL_ASCEND_REPEAT_BYTES || ssz > KDSL_ASCEND_REPEAT_BYTES)
		return 0;
	wd = span * dsz, ws = span * ssz;
	/* all of dst's bytes, then all of the source's, apart: nothing meets */
	if (delta >= (n - 1) * dstep + wd || delta <= -((n - 1) * sstep + ws))
		return 0;
	/* With one step every repeat sits to the others as repeat 0 does (a
	 * pair depends on j - i only, and i = 0 has the most j), so repeat 0
	 * decides both rules, and first: an in-place op over 255 repeats
	 * checked all 255 twice per call. */
	ni = dstep == sstep ? 1 : n;
	for (i = 0; i < ni; i++) {
		int64_t dd = delta + i * (sstep - dstep);
		if (dd && kdsl_ascend_elems_meet2(m, dd, dsz, ssz)) {
			*r = i;
			return 1;
		}
	}
	for (i = 0; i + 1 < n && i < ni; i++) {
		/* repeat j > i reads at base + j*sstep from what i wrote at 0;
		 * only -ws < base + j*sstep < wd can meet */
		base = delta - i * dstep;
		lo = i + 1, hi = n - 1;
		if (sstep) {
			int64_t a = -ws - base, b = wd - base;   /* j*sstep in (a, b) */
			int64_t l2 = (a >= 0 ? a / sstep : -((-a) / sstep) - ((-a) % sstep != 0)) + 1;
			int64_t h2 = (b > 0 ? (b - 1) / sstep : -((-b) / sstep) - 1);
			lo = l2 > lo ? l2 : lo;
			hi = h2 < hi ? h2 : hi;
		} else {
			hi = lo;   /* the same bytes for every j */
		}
		for (j = lo; j <= hi; j++)
			if (kdsl_ascend_elems_meet2(m, base + j * sstep, dsz, ssz)) {
				*r = i, *r2 = j;
				return 2;
			}
	}
	return 0;
}

/* ---- ascend: vec_conv (LANGUAGE.md 7; TIK's vec_conv page) ----
 * round_mode is a string; the compiler lowers it to its row's code
 * (X(code, string)), the runtime switches on the code.  '' and 'none'
 * (no integer rounding: the float result rounds to nearest even) are one
 * mode, as are 'ceil' and 'ceiling'. */
#define KDSL_ROUND_LIST(X)                     \
	X(KDSL_ROUND_EMPTY, "")                \
	X(KDSL_ROUND_NONE, "none")             \
	X(KDSL_ROUND_ROUND, "round")           \
	X(KDSL_ROUND_FLOOR, "floor")           \
	X(KDSL_ROUND_CEIL, "ceil")             \
	X(KDSL_ROUND_CEILING, "ceiling")       \
	X(KDSL_ROUND_AWAY_ZERO, "away-zero")   \
	X(KDSL_ROUND_TO_ZERO, "to-zero")       \
	X(KDSL_ROUND_ODD, "odd")

#define KDSL_CODE_ENUM_(code, str) code,
enum { KDSL_ROUND_LIST(KDSL_CODE_ENUM_) KDSL_NROUND };
#undef KDSL_CODE_ENUM_

#define KDSL_ROUND_BIT(code) (1u << (code))
#define KDSL_ROUND_NONE_BITS (KDSL_ROUND_BIT(KDSL_ROUND_EMPTY) | KDSL_ROUND_BIT(KDSL_ROUND_NONE))

/* The page's table of conversions for the seed's products (the Atlas
 * 200/300/500 inference table; the training products take these and
 * more): X(src dtype, dst dtype, round modes).  int32 -> float16 needs
 * the page's deqscale, which kdsl's vec_conv does not take, so it is not
 * a row. */
#define KDSL_ASCEND_CONV_LIST(X)                                                             \
	X(KDSL_F16, KDSL_F32, KDSL_ROUND_NONE_BITS)                                          \
	X(KDSL_F32, KDSL_F16, KDSL_ROUND_NONE_BITS)                                          \
	X(KDSL_F16, KDSL_I32, KDSL_ROUND_BIT(KDSL_ROUND_ROUND) | KDSL_ROUND_BIT(KDSL_ROUND_FLOOR) | \
	                      KDSL_ROUND_BIT(KDSL_ROUND_CEIL) | KDSL_ROUND_BIT(KDSL_ROUND_CEILING)) \
	X(KDSL_F16, KDSL_I8, KDSL_ROUND_NONE_BITS)                                           \
	X(KDSL_F16, KDSL_U8, KDSL_ROUND_NONE_BITS)                                           \
	X(KDSL_U8, KDSL_F16, KDSL_ROUND_NONE_BITS)                                           \
	X(KDSL_I8, KDSL_F16, KDSL_ROUND_NONE_BITS)
#define KDSL_ASCEND_CONV_PAIRS_TEXT "f16->f32, f32->f16, f16->i32, f16->i8, f16->u8, u8->f16, i8->f16"

/* The round modes (KDSL_ROUND_BIT set) vec_conv takes from src to dst; 0:
 * the pair is not a conversion of the page. */
static inline unsigned kdsl_ascend_conv_modes(kdsl_dtype src, kdsl_dtype dst)
{
#define KDSL_CONV_ROW_(s, d, modes) if (src == (s) && dst == (d)) return (modes);
	KDSL_ASCEND_CONV_LIST(KDSL_CONV_ROW_)
#undef KDSL_CONV_ROW_
	return 0;
}

/* ---- neuron: nc_stream_shuffle (seed 000) ---- */

enum {
	/* "cross-partition data movement within a quadrant of 32 partitions";
	 * the mask has one entry per partition of a quadrant, each a source
	 * partition 0..31 or 255 ("the output tensor in partition [i] will be
	 * unmodified") */
	KDSL_NEURON_QUADRANT = 32,
	KDSL_NEURON_SHUFFLE_KEEP = 255
};

/* num_active_partitions = ceil(max(src_num_partitions,
 * dst_num_partitions) / 32) * 32, for the larger of the two views (a
 * count too near INT64_MAX to round up gives the multiple below it). */
static inline int64_t kdsl_neuron_shuffle_active(int64_t nparts)
{
	if (nparts > INT64_MAX - (KDSL_NEURON_QUADRANT - 1))
		return INT64_MAX / KDSL_NEURON_QUADRANT * KDSL_NEURON_QUADRANT;
	return (nparts + KDSL_NEURON_QUADRANT - 1) / KDSL_NEURON_QUADRANT * KDSL_NEURON_QUADRANT;
}

/* The page's start-partition rule: with 96/128 active partitions src and
 * dst start at 0, with 64 at 0/64, with 32 at 0/32/64/96. */
static inline int kdsl_neuron_shuffle_start_ok(int64_t active, int64_t start)
{
	return active >= 96 ? start == 0
	     : active == 64 ? (start == 0 || start == 64)
	     : (start >= 0 && start <= 96 && start % 32 == 0);
}

/* The starts the rule allows, as diagnostics list them. */
static inline const char *kdsl_neuron_shuffle_starts(int64_t active)
{
	return active >= 96 ? "0" : active == 64 ? "0 or 64" : "0, 32, 64 or 96";
}

/* ---- neuron: tensor_copy_predicated (seed 002) ---- */

/* "predicate must be of type uint8, uint16, or uint32" */
static inline int kdsl_neuron_predicate_dtype_ok(kdsl_dtype dt)
{
	return dt == KDSL_U8 || dt == KDSL_U16 || dt == KDSL_U32;
}

/* ---- neuron: nc_matmul (LANGUAGE.md section 4) ---- */

enum {
	/* stationary [K, M], moving [K, N], dst [M, N]: K, M <= 128, N <= 512 */
	KDSL_NEURON_MATMUL_MAX_K = 128,
	KDSL_NEURON_MATMUL_MAX_M = 128,
	KDSL_NEURON_MATMUL_MAX_N = 512
};

/* ---- neuron: nc_transpose on the Tensor Engine (NKI's nc_transpose page,
 * LANGUAGE.md section 7) ----  src [P, F] in sbuf becomes dst [F, P] in
 * psum: P and F at most 128, as the engine's stationary operand. */
enum { KDSL_NEURON_TRANSPOSE_MAX = 128 };

/* ---- neuron: access patterns (LANGUAGE.md 7 "Views") ----  A strided
 * view is a partition step and up to 3 free dims of (stride, count): NKI's
 * access-pattern page says the engines read up to 4-D arrays in a
 * partition but most instructions take 1 to 3 free dims (instruction
 * length), so 3 is what every op can be given. */
enum { KDSL_NEURON_AP_DIMS = 3 };

/* ---- neuron: the string operands of the engine ops (LANGUAGE.md 4) ----
 * The compiler lowers a string operand to its row's code, the runtime
 * switches on the code. */

/* tensor_tensor and tensor_scalar's op: X(code, string) */
#define KDSL_ALU_LIST(X)                   \
	X(KDSL_ALU_ADD, "add")             \
	X(KDSL_ALU_SUBTRACT, "subtract")   \
	X(KDSL_ALU_MULTIPLY, "multiply")   \
	X(KDSL_ALU_MAX, "max")             \
	X(KDSL_ALU_MIN, "min")             \
	X(KDSL_ALU_DIVIDE, "divide")
/* activation's func: X(code, string) */
#define KDSL_ACT_LIST(X)           \
	X(KDSL_ACT_COPY, "copy")   \
	X(KDSL_ACT_EXP, "exp")     \
	X(KDSL_ACT_RELU, "relu")   \
	X(KDSL_ACT_SQUARE, "square") \
	X(KDSL_ACT_SQRT, "sqrt")   \
	X(KDSL_ACT_RSQRT, "rsqrt") \
	X(KDSL_ACT_RECIPROCAL, "reciprocal") \
	X(KDSL_ACT_LOG, "log")     \
	X(KDSL_ACT_TANH, "tanh")   \
	X(KDSL_ACT_SIGMOID, "sigmoid")

/* affine_select's cmp: the predicate `A*p + B*j + C cmp 0` (NKI's
 * affine_select cmp_op, a comparison operator of nki.language). */
#define KDSL_CMP_LIST(X)        \
	X(KDSL_CMP_EQ, "==")    \
	X(KDSL_CMP_NE, "!=")    \
	X(KDSL_CMP_LT, "<")     \
	X(KDSL_CMP_LE, "<=")    \
	X(KDSL_CMP_GT, ">")     \
	X(KDSL_CMP_GE, ">=")

#define KDSL_CODE_ENUM_(code, str) code,
enum { KDSL_ALU_LIST(KDSL_CODE_ENUM_) KDSL_NALU };
enum { KDSL_ACT_LIST(KDSL_CODE_ENUM_) KDSL_NACT };
enum { KDSL_CMP_LIST(KDSL_CODE_ENUM_) KDSL_NCMP };
#undef KDSL_CODE_ENUM_

/* ---- neuron: load_gather and store_scatter, indirect DMA (LANGUAGE.md
 * section 7; NKI nl.load/nl.store with an index tile, nki.isa.dma_copy)
 * ----  Row index[p] of an hbm view to/from partition p: the index tile
 * is an sbuf [P, 1] tile of i32 (NKI's indirect examples make it with
 * iota(dtype=np.int32)). */
#define KDSL_NEURON_INDEX_DTYPE KDSL_I32
/* ---- neuron: the index-generated tiles (NKI iota, affine_select;
 * LANGUAGE.md section 7) ----  The GpSimd Engine takes its integer
 * operands as int32: iota's pstep (channel_multiplier) and affine_select's
 * p, f and c (channel_multiplier, pattern step, offset). */
enum { KDSL_NEURON_INDEX_MIN = -2147483647 - 1, KDSL_NEURON_INDEX_MAX = 2147483647 };

/* iota's pstep when the call leaves it out: outside the int32 range a
 * written pstep must lie in, so no written value is taken for it; the
 * runtime then computes base + step*(p*F + j), the v0 form, where F*step
 * is the default pstep. */
#define KDSL_NEURON_IOTA_PSTEP_DEFAULT INT64_MIN

static inline int kdsl_neuron_index_ok(int64_t v)
{
	return v >= KDSL_NEURON_INDEX_MIN && v <= KDSL_NEURON_INDEX_MAX;
}

/* tensor_scalar's op1 when it is omitted (NKI's op1=None): the code after
 * the ALU list, which only op1 accepts (LANGUAGE.md 7). */
enum { KDSL_ALU_BYPASS = KDSL_NALU };
/* tensor_reduce's ops: the ALU codes a free-axis reduction takes (NKI
 * tensor_reduce's arithmetic operators that are associative in exact
 * arithmetic; LANGUAGE.md 7). */
static inline int kdsl_neuron_reduce_op_ok(int64_t op)
{
	return op == KDSL_ALU_ADD || op == KDSL_ALU_MAX || op == KDSL_ALU_MIN || op == KDSL_ALU_MULTIPLY;
}

/* ---- aipu (seed 004; LANGUAGE.md section 2) ---- */

enum {
	/* a native vector is 256 bits: i8x32, i16x16, i32x8, f16x16, f32x8 */
	KDSL_AIPU_VECTOR_BYTES = 32,
	KDSL_AIPU_VECTOR_BITS = KDSL_AIPU_VECTOR_BYTES * 8
};

/* dma_copy's pairs of memories: Compass's S.dma_copy copies between
 * global memory (gm) and lsram either way and from gm to gm, never from
 * lsram to lsram ("Does not support copy data from scope lsram to scope
 * lsram"). */
static inline int kdsl_aipu_dma_allowed(kdsl_mem src, kdsl_mem dst)
{
	return (src == KDSL_MEM_GM || src == KDSL_MEM_LSRAM) && (dst == KDSL_MEM_GM || dst == KDSL_MEM_LSRAM) &&
	       !(src == KDSL_MEM_LSRAM && dst == KDSL_MEM_LSRAM);
}
/* The same pairs as diagnostics list them. */
#define KDSL_AIPU_DMA_TEXT "allowed: gm->lsram, lsram->gm, gm->gm"

#ifdef __cplusplus
}
#endif
#endif
