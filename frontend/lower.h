/* lower.h: from the checked AST (frontend/sema.h) to the SSA IR. */
#ifndef KD_BUILD_H
#define KD_BUILD_H

#include "ast.h"
#include "ir.h"

/* The IR op of a binary operator and of a unary one (not U_PLUS, which
 * is none). */
KdOp kd_binop_op(KdBinop b);
KdOp kd_unop_op(KdUnop u);

/* Called on a file sema checked: lowers every kernel but a redefined
 * one, skipping the statements sema rejected (KD_STMT_BAD).  tree, if
 * not NULL, is the arena the tree is in, nothing allocated in it any
 * more: as each statement of a kernel's body is lowered, its chunks
 * behind the statement go back (kd_arena_release_before), so the tree
 * must not be read after. */
KdModule *kd_lower(KdArena *a, KdDiag *d, const KdSource *src, KdNode *file, KdTarget t, KdArena *tree);

#endif
