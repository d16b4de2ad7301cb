/* lower.h: from the checked AST (frontend/sema.h) to the SSA IR. */
#ifndef KD_BUILD_H
#define KD_BUILD_H

#include "ast.h"
#include "ir.h"

/* Only called on a file that sema accepted. */
KdModule *kd_lower(KdArena *a, KdDiag *d, const KdSource *src, KdNode *file, KdTarget t);

#endif
