/* verify.h: the typing rules of single instructions, as the op table's
 * `verify` hooks see them.  The IR verifier (verify.c) runs the hook of
 * every instruction, pure ones included, after building and after every
 * pass; the textual IR reader (read/irread_check.c) runs the same hooks,
 * so a rule on IR has one definition.  Internal to ir/. */
#ifndef KD_VERIFY_H
#define KD_VERIFY_H

#include "ir.h"

struct KdVerify {
	KdDiag *d;
	const KdFunc *f;
	KdArena *a;        /* scratch for messages */
	int reader;        /* the textual IR reader: the input's error, said plainly */
	int input;         /* the verifier on IR read from text: not "internal" */
	int skip;          /* a value standing for operands reported already, or -1 */
	int nerr;
};

/* Reports a broken rule of `in` at operand k (k < 0: the instruction).
 * The reader says "MSG"; the verifier "internal compiler error: invalid
 * IR in 'F': MSG" (without "internal" on IR read from text). */
KD_PRINTF(4, 5) void kd_verify_fail(KdVerify *v, const KdIns *in, int k, const char *fmt, ...);
/* The same about a value (a block parameter, a result) at span `at`. */
KD_PRINTF(3, 4) void kd_verify_fail_at(KdVerify *v, KdSpan at, const char *fmt, ...);
/* The type of x as the IR spells it ("i32x8", "bool", "tensor"). */
const char *kd_verify_type_str(KdVerify *v, const KdVal *x);
/* Does some operand of `in` stand for one reported already (the reader's
 * undefined names)?  Its rules are then not checked, to not cascade. */
int kd_verify_skipped(const KdVerify *v, const KdIns *in);

/* Runs the hook of `in`, if its op has one. */
void kd_verify_ins(KdVerify *v, const KdIns *in);

/* The hooks.  The generic ops' (verify_ops.c): element-wise operators
 * (scalars, and aipu vectors), cast, list, view, tile and the branches'
 * block arguments. */
void kd_verify_core(KdVerify *v, const KdIns *in);
/* The aipu ops' (aipu/verify_aipu.c), and the rule every vector or mask
 * value keeps wherever it is defined. */
void kd_verify_aipu(KdVerify *v, const KdIns *in);
void kd_verify_vec_value(KdVerify *v, const KdVal *x, KdSpan at);
/* ascend's element read and write (ascend/verify_ascend.c): the element
 * is a scalar of its tensor's dtype. */
void kd_verify_elem(KdVerify *v, const KdIns *in);

#endif
