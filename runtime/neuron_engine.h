/* neuron_engine.h (internal): the arithmetic of the neuron engine ops
 * (neuron_engine.c), apart from their checks (neuron.c).  Each function
 * walks `rows` rows of n elements, row r of an operand `ps` bytes after
 * row r - 1, with typed loops that gcc vectorises; the loops are compiled
 * once per kdsl_isa and picked by the runtime's isa.  Results are the
 * engines' f32 arithmetic (docs/language.md, "Engine arithmetic") to the
 * bit on every isa: each element read as an f32 (kdsl_load_f32), computed
 * in f32 with one rounding per operation, stored with kdsl_store_f32.
 * The caller has checked the operands and snapshotted any source that
 * overlaps dst: operands here never share a byte with dst. */
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
	KDSL_ENG_ALU,      /* dst = a op b (tensor_tensor) */
	KDSL_ENG_ALU_S,    /* dst = a op y (tensor_scalar) */
	KDSL_ENG_ACT       /* dst = func(a) (activation) */
} kdsl_eng_kind;

/* dst = f(a[, b]) over the rows; code is the kdsl_alu or kdsl_act code
 * (checked), y the f32 scalar operand. */
void kdsl_engine_map(kdsl_isa isa, kdsl_eng_kind kind, int64_t code, kdsl_eng_rows dst, kdsl_eng_rows a,
                     kdsl_eng_rows b, float y, int64_t rows, int64_t n);

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

/* The floats nc_matmul needs as scratch: its inputs converted once and a
 * block of accumulator rows (kdsl_rt holds one such area). */
enum { KDSL_ENG_MM_SCRATCH = KDSL_NEURON_MATMUL_MAX_K * (KDSL_NEURON_MATMUL_MAX_M + KDSL_NEURON_MATMUL_MAX_N) +
                             4 * KDSL_NEURON_MATMUL_MAX_N };

/* nc_matmul: dst (f32 rows, M of them, N elements) = (or +=, accumulate)
 * sum over k in order of st[k][m] * mv[k][n], in f32 without fused
 * multiply-add; K rows of st (M elements) and of mv (N elements).
 * scratch holds KDSL_ENG_MM_SCRATCH floats. */
void kdsl_engine_matmul(kdsl_isa isa, kdsl_eng_rows dst, kdsl_eng_rows st, kdsl_eng_rows mv, int64_t K,
                        int64_t M, int64_t N, int accumulate, float *scratch);

#endif
