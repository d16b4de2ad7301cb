/* lower.h: from the checked AST (frontend/sema.h) to the SSA IR. */
#ifndef KD_BUILD_H
#define KD_BUILD_H

#include "ast.h"
#include "ir.h"

/* The IR op of a binary operator and of a unary one (not U_PLUS, which
 * is none). */
KdOp kd_binop_op(KdBinop b);
KdOp kd_unop_op(KdUnop u);

/* Only called on a file that sema accepted. */
KdModule *kd_lower(KdArena *a, KdDiag *d, const KdSource *src, KdNode *file, KdTarget t);

#endif
