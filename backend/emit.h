/* emit.h: the C backend.  Output is C11 that includes kdsl_rt.h, one
 * function per kernel (LANGUAGE.md section 6), deterministic byte for byte. */
#ifndef KD_EMIT_H
#define KD_EMIT_H

#include "ir.h"

/* The kernels' C source, with #line directives back to the .k file.  An
 * op it cannot emit is an internal error reported through d; returns the
 * number of those (0: out is complete). */
int kd_emit_c(KdBuf *out, KdDiag *d, const KdModule *m);
/* The prototypes, for embedding (--header FILE). */
void kd_emit_header(KdBuf *out, const KdModule *m);
/* A kernel table and main() for `kdslc run` (appended to kd_emit_c's output). */
void kd_emit_harness(KdBuf *out, const KdModule *m);

#endif
