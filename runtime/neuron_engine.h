/* neuron_engine.h (internal): the arithmetic of the neuron engine ops
 * (neuron_engine.c), apart from their checks (neuron.c).  Each function
 * walks `rows` rows of n elements, row r of an operand `ps` bytes after
 * row r - 1, with typed loops that gcc vectorises; the loops are compiled
 * once per kdsl_isa and picked by the runtime's isa.  Results are the
 * engines' f32 arithmetic (docs/language.md, "Engine arithmetic") to the
 * bit on every isa: each element read as an f32 (kdsl_load_f32), computed
 * in f32 with one rounding per operation, stored with kdsl_store_f32.
 * The caller has checked the operands and snapshotted any source that
 * overlaps dst: operands here never share a byte with dst, but for a
 * source of kdsl_engine_map, _tensor_scalar or _activation that is dst
 * itself (the same rows, dtype and elements: an op in place), whose
 * elements are each read before they are written (in-place kernels, or a
 * chunk read into a buffer first). */
#ifndef KDSL_NEURON_ENGINE_H
#define KDSL_NEURON_ENGINE_H

#include "rt_internal.h"

/* Rows of one operand. */
typedef struct {
	const unsigned char *p;
	size_t ps;
	kdsl_dtype dt;
} kdsl_eng_rows;

/* What a row op computes from its f32 inputs. */
typedef enum {
	KDSL_ENG_COPY,     /* dst = a: a converting copy */
	KDSL_ENG_ALU       /* dst = a op b (tensor_tensor) */
} kdsl_eng_kind;

/* dst = f(a[, b]) over the rows; code is the kdsl_alu code (checked). */
void kdsl_engine_map(kdsl_isa isa, kdsl_eng_kind kind, int64_t code, kdsl_eng_rows dst, kdsl_eng_rows a,
                     kdsl_eng_rows b, int64_t rows, int64_t n);

/* A per-partition operand (LANGUAGE.md 7): the f32 number v, or (tile)
 * element r of the [rows, 1] tile t for row r. */
typedef struct {
	int tile;
	kdsl_eng_rows t;
	float v;
} kdsl_eng_scalar;

/* tensor_scalar: dst = (a op0 y0) op1 y1 per row, each operation in f32
 * (rev: the operand on the left); op1 KDSL_ALU_BYPASS skips the second. */
void kdsl_engine_tensor_scalar(kdsl_isa isa, kdsl_eng_rows dst, kdsl_eng_rows a, int64_t op0, kdsl_eng_scalar y0,
                               int rev0, int64_t op1, kdsl_eng_scalar y1, int rev1, int64_t rows, int64_t n);

/* activation: dst = func(src * scale + bias), the product and the sum
 * each rounded to f32; a number scale 1 or bias 0 is skipped.  exp, log,
 * tanh and sigmoid over at least 2^14 elements share their rows among up
 * to `threads` threads of pool (NULL: none); the bytes are the same. */
struct kdsl_pool;
void kdsl_engine_activation(kdsl_isa isa, int64_t func, kdsl_eng_rows dst, kdsl_eng_rows src,
                            kdsl_eng_scalar scale, kdsl_eng_scalar bias, int64_t rows, int64_t n,
                            struct kdsl_pool *pool, int threads);

/* tensor_reduce: element r of dst ([rows, 1]) = op over row r of src,
 * folded in f32 from element 0 to n - 1 (negate: times -1 at the end). */
void kdsl_engine_reduce(kdsl_isa isa, int64_t op, int negate, kdsl_eng_rows dst, kdsl_eng_rows src,
                        int64_t rows, int64_t n);

/* iota: element (r, j) = base + step * (r * n + j) (v0, the default
 * pstep) or (base + pstep * r) + step * j, computed in double and rounded
 * once to dst's dtype (kdsl_store_value). */
void kdsl_engine_iota(kdsl_isa isa, kdsl_eng_rows dst, double base, double step, int64_t pstep, int64_t rows,
                      int64_t n);

/* affine_select and identity: element (r, j) of dst is src's where
 * a*r + b*j + c cmp 0 (cmp a KDSL_CMP_* code; a, b, c int32, so the sum
 * is exact in int64), else fill.  A selected element is copied bit for
 * bit when src and dst share a dtype, else through f32; src.p NULL
 * selects the value 1.  fill is stored as an f32 converted to dst's
 * dtype. */
void kdsl_engine_select(kdsl_eng_rows dst, kdsl_eng_rows src, float fill, int64_t a, int64_t b, int64_t c,
                        int64_t cmp, int64_t rows, int64_t n);

/* nc_transpose's move: element (j, p) of dst (rows of rows elements) is
 * element (p, j) of src (rows of n elements), bit for bit; both of dtype
 * src.dt, which is all that is read of dst.dt. */
void kdsl_engine_transpose(kdsl_eng_rows dst, kdsl_eng_rows src, int64_t rows, int64_t n);

/* The floats nc_matmul needs as scratch: its inputs converted once when
 * they are not f32, then for each thread that shares the columns an
 * area for the zero-padded copy of an edge block of stationary (at most
 * MAX_MR rows) and the packed copy of each panel of moving (at most
 * MAX_W columns);
 * neuron_engine_kern.h checks its blocks fit), and 16 floats to align
 * those areas to 64 bytes (kdsl_rt holds one such scratch). */
enum { KDSL_ENG_MM_MAX_MR = 8, KDSL_ENG_MM_MAX_W = 64 };
enum { KDSL_ENG_MM_CONV = KDSL_NEURON_MATMUL_MAX_K * (KDSL_NEURON_MATMUL_MAX_M + KDSL_NEURON_MATMUL_MAX_N),
       KDSL_ENG_MM_EDGE = KDSL_NEURON_MATMUL_MAX_K * (KDSL_ENG_MM_MAX_MR + KDSL_ENG_MM_MAX_W) };
/* The scratch's floats for `threads` threads (1 or more). */
static inline size_t kdsl_engine_matmul_scratch(int threads)
{
	return (size_t)KDSL_ENG_MM_CONV + 16 + (size_t)threads * KDSL_ENG_MM_EDGE;
}

/* nc_matmul: dst (f32 rows, M of them, N elements) = (or +=, accumulate)
 * sum over k in order of st[k][m] * mv[k][n], in f32 without fused
 * multiply-add; K rows of st (M elements) and of mv (N elements).
 * scratch holds kdsl_engine_matmul_scratch(threads) floats.  With
 * threads > 1 a large enough product is split by columns of dst over
 * that many threads (the caller's and pool's workers, pool.h; with pool
 * NULL the parts run here in turn), each column computed as by one
 * thread, so the bytes do not depend on threads. */
void kdsl_engine_matmul(kdsl_isa isa, kdsl_eng_rows dst, kdsl_eng_rows st, kdsl_eng_rows mv, int64_t K,
                        int64_t M, int64_t N, int accumulate, float *scratch, int threads,
                        struct kdsl_pool *pool);

#endif
