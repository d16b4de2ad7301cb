/* irread.h: reading the textual IR (the --emit=ir format) back into a
 * module, so that `kdslc -x ir` can run single passes on handwritten IR.
 * The format and its rules: docs/passes.md, "Textual IR". */
#ifndef KD_IRREAD_H
#define KD_IRREAD_H

#include "ir.h"

/* Parses src as IR.  Errors (syntax, unknown op, undefined or twice
 * defined value, block or buffer, wrong operand count or kind) go to d,
 * pointing into src; the module is returned only when there are none.
 * The caller runs the verifier and the rule checker as for source. */
KdModule *kd_ir_read(KdArena *a, KdDiag *d, const KdSource *src);

#endif
