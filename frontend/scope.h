/* scope.h: sema's names in nested scopes.  A hash table maps each name
 * to the innermost symbol of that name in view, which links to the one
 * it shadows, so a lookup costs O(1) whatever the number of names in
 * scope (a long kernel declares tens of thousands of `let`s in one). */
#ifndef KD_SCOPE_H
#define KD_SCOPE_H

#include "sema.h"

typedef struct KdScopes KdScopes;

KdScopes *kd_scopes_new(KdArena *a);
void kd_scope_push(KdScopes *s);
/* Leaves the innermost scope: its names uncover what they shadowed. */
void kd_scope_pop(KdScopes *s);
/* The innermost symbol called name in view, or NULL. */
KdSym *kd_scope_lookup(const KdScopes *s, const char *name);
/* The first symbol called name declared in the innermost scope, or NULL
 * (for "redefinition of", which points at the first definition). */
KdSym *kd_scope_here(const KdScopes *s, const char *name);
/* Offers every name in view to n ("did you mean"), in table order, which
 * depends only on the names: the suggestion is deterministic. */
void kd_scope_near(const KdScopes *s, KdNear *n);
/* Declares y (its name set) in the innermost scope. */
void kd_scope_add(KdScopes *s, KdSym *y);

#endif
