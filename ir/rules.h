/* rules.h: what the hardware-rule hooks of the op table see.  Internal to
 * ir/.  Integer operands are known as ranges: exactly (a constant), over
 * the trips of a loop nest with constant bounds that the op's guards keep
 * (affine in the induction variables), or not at all (they depend on a
 * runtime value, or the op is under a guard the checker cannot read or
 * that never holds; the runtime checks). */
#ifndef KD_RULES_H
#define KD_RULES_H

#include "affine.h"
#include "ir.h"

typedef struct {
	int known;         /* 0: depends on a runtime value */
	int64_t lo, hi;    /* every value the operand takes over the loop nest */
	int64_t mod, rem;  /* every value is rem mod `mod` (mod 0: lo == hi) */
} KdRange;

struct KdCheck {
	KdDiag *d;
	KdModule *m;
	KdFunc *f;
	KdArena *a;
	int dead;          /* the instruction never runs (a guard false at every trip) */
	/* the guards of the instruction being checked (guards.h): kd_range_of
	 * bounds operands over the trips they keep */
	const struct KdGuardSet *guard;
	/* under a guard that never holds or that the checker cannot read:
	 * kd_range_of knows no value, so only the rules on types (dtypes,
	 * spaces, shapes) are compile-time errors; the runtime checks the
	 * values of what runs */
	int blind;
	/* kd_rules_hold's run: violations are counted, not reported */
	int muted, nviolation;
};

KdRange kd_range_of(KdCheck *c, int val);
/* Scales and shifts a range: the byte range of an element offset. */
KdRange kd_range_scale(KdRange r, int64_t k, int64_t add);
/* "s..s+n-1" for n >= 1 values from s, where a range from the affine
 * analysis starts (anywhere): exact where the end passes INT64_MAX. */
void kd_span_str(char out[48], int64_t s, int64_t n);
/* The tensor operand i of ins: its buffer, and its element offset range. */
const KdBuffer *kd_check_ref(KdCheck *c, const KdIns *ins, int i, KdRange *elem_off);
/* Reports "OP: msg" at operand i (or the whole op when i < 0). */
KD_PRINTF(4, 5) void kd_check_error(KdCheck *c, const KdIns *ins, int i, const char *fmt, ...);
/* The same at any span (an operand of the view an operand comes from). */
KD_PRINTF(4, 5) void kd_check_error_at(KdCheck *c, const KdIns *ins, KdSpan sp, const char *fmt, ...);
/* Value of an integer argument when it is one constant. */
int kd_arg_const(const KdFunc *f, const KdIns *ins, int i, int64_t *out);
/* The same, and within the table's range: hooks build on legal values only,
 * so a range error is not reported twice in other words. */
int kd_arg_legal(const KdFunc *f, const KdIns *ins, int i, int64_t *out);

/* Do the rules of instruction `in` of f hold at every trip its guards g
 * may keep, values included?  (A muted check: nothing is reported; a is
 * scratch.)  The passes ask under guards the checker cannot read, where
 * kd_ir_check_rules left the values to the runtime. */
int kd_rules_hold(KdArena *a, KdModule *m, KdFunc *f, const KdIns *in, const struct KdGuardSet *g);

/* dim_index (rules.c): its index inside its dim at every trip that runs. */
void kd_check_dim_index(KdCheck *c, const KdIns *ins);

/* ascend hooks (rules_ascend.c) */
void kd_check_data_move(KdCheck *c, const KdIns *ins);
void kd_check_vec(KdCheck *c, const KdIns *ins);
/* Is op one of ascend's two-source vector ops (vec_add's shape)? */
int kd_ascend_vec_binary(KdOp op);
/* The position of repeat_times when op is one of ascend's TIK vector ops
 * (mask first, repeats, rep strides: vec_dup, the two-source,
 * tensor-scalar and unary ones), else -1. */
int kd_ascend_vec_repeat(KdOp op);
/* ascend's element read and write: the element inside its tensor. */
void kd_check_elem(KdCheck *c, const KdIns *ins);
int64_t kd_cost_data_move(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_vec(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_elem(const KdFunc *f, const KdIns *ins);
/* Is src -> dst one of seed 001 Table 2's data_move scope pairs?  (The
 * passes ask before they create a move.) */
int kd_ascend_move_pair_ok(KdSpace src, KdSpace dst);

/* aipu hooks (rules_aipu.c) */
void kd_check_vload(KdCheck *c, const KdIns *ins);
int64_t kd_cost_aipu(const KdFunc *f, const KdIns *ins);
/* dma_copy: the pair of memories and both ranges; kdsl's cost model */
void kd_check_dma_copy(KdCheck *c, const KdIns *ins);
int64_t kd_cost_dma_copy(const KdFunc *f, const KdIns *ins);
/* neuron hooks (rules_neuron.c) */
extern const char *const kd_neuron_alu_ops[];
/* vec_conv's round_mode strings (kdsl_hw.h's KDSL_ROUND_LIST), NULL-terminated. */
extern const char *const kd_ascend_round_modes[];
extern const char *const kd_neuron_act_funcs[];
extern const char *const kd_neuron_cmp_ops[];
extern const char *const kd_neuron_alu_ops_opt[];
void kd_check_neuron_shape(KdCheck *c, const KdIns *ins);
void kd_check_neuron_one(KdCheck *c, const KdIns *ins);
void kd_check_neuron_tensor_tensor(KdCheck *c, const KdIns *ins);
void kd_check_neuron_matmul(KdCheck *c, const KdIns *ins);
void kd_check_neuron_transpose(KdCheck *c, const KdIns *ins);
void kd_check_neuron_shuffle(KdCheck *c, const KdIns *ins);
void kd_check_neuron_predicated(KdCheck *c, const KdIns *ins);
void kd_check_neuron_merge(KdCheck *c, const KdIns *ins);
void kd_check_neuron_gather(KdCheck *c, const KdIns *ins);
void kd_check_neuron_iota(KdCheck *c, const KdIns *ins);
void kd_check_neuron_identity(KdCheck *c, const KdIns *ins);
void kd_check_neuron_tensor_scalar(KdCheck *c, const KdIns *ins);
void kd_check_neuron_activation(KdCheck *c, const KdIns *ins);
void kd_check_neuron_reduce(KdCheck *c, const KdIns *ins);
int64_t kd_cost_neuron_reduce(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_dma(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_store(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_indirect(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_vec(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_act(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_matmul(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_iota(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_memset(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_tensor_tensor(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_transpose(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_predicated(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_merge(const KdFunc *f, const KdIns *ins);
int64_t kd_cost_neuron_gpsimd(const KdFunc *f, const KdIns *ins);

#endif

/* The passes' view of the affine analysis: 1 when value v equals
 * c + k*t for the trip index t (0, 1, ...) of the loop headed by block
 * loop_blk (k is 0 for a constant; loop_blk < 0 accepts constants only).
 * Any other loop term, or a runtime value, gives 0. */
int kd_affine_in(const KdFunc *f, int v, int loop_blk, int64_t *c, int64_t *k);
/* Every term: v == c + sum k[i] * (trip index of the loop headed by
 * blk[i]), at most 8 terms; 0 when v is not affine in constant-bound loops. */
int kd_affine_terms(const KdFunc *f, int v, int64_t *c, int *nterm, int blk[8], int64_t k[8]);
/* v as an affine form over the trip indices of constant-bound loops,
 * keyed by their header blocks (not ok: no such form). */
KdAff kd_aff_of(const KdFunc *f, int v);
/* Trips of a loop with constant bounds; -1 when they do not fit int64. */
int64_t kd_loop_trips(const KdFunc *f, const KdLoop *l);
