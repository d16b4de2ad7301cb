/* irsyntax.h: what the IR printer (print.c) and reader (irread.c) must
 * agree on for the text to round-trip: how a value type is spelled, which
 * result type goes without saying, and where an instruction came from. */
#ifndef KD_IRSYNTAX_H
#define KD_IRSYNTAX_H

#include "ir.h"

/* Spells the type of x: "i32", "f64", "bool", "i32x8", "boolx8", "list",
 * or for a combination the builders do not make, "KIND.DTYPE[xLANES]".
 * Every (type, dtype, lanes) has exactly one spelling. */
void kd_ir_put_type(KdBuf *o, const KdVal *x);
/* The inverse: fills type, dt and lanes of *x.  0 ok, -1 not a type. */
int kd_ir_parse_type(const char *s, KdVal *x);
/* The result type an instruction has when the text does not say: a ref of
 * the viewed buffer (view, tile), a list (list), bool (comparisons and
 * logic) and i64 otherwise.  The printer writes ` : TYPE` for any other. */
void kd_ir_default_type(const KdFunc *f, const KdIns *in, int buf, KdVal *x);
int kd_ir_same_type(const KdVal *x, const KdVal *y);

/* Source positions of instructions read from IR text: the `; L:C` of the
 * instruction that starts at byte `off` of the .kir file. */
typedef struct KdIrLocs {
	int n, cap;
	uint32_t *off;           /* increasing */
	int *line, *col;
} KdIrLocs;

void kd_ir_loc_add(KdArena *a, KdIrLocs *l, uint32_t off, int line, int col);
/* The position to print for an instruction whose span starts at off: the
 * recorded one for IR read from text, else its place in m->src. */
void kd_ir_loc(const KdModule *m, uint32_t off, int *line, int *col);

#endif
