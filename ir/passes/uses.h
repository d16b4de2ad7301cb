/* uses.h: a def-use index for passes that replace values.  Replacing a
 * value by scanning the whole function costs O(size) per replacement, so
 * a pass doing one per instruction is quadratic; with the index a
 * replacement costs O(uses of the value).
 *
 * A value's users are instruction ids (operands and jump arguments) and
 * loop headers (-1 - block id, for a loop's bounds).  The lists may hold
 * stale entries (a user that no longer names the value) and duplicates:
 * every reader re-checks the user, so the index only has to be a
 * superset, and rewrites need not remove anything. */
#ifndef KD_USES_H
#define KD_USES_H

#include "ir.h"

typedef struct KdUses KdUses;

/* The index of f's current instructions and loops, in arena tmp. */
KdUses *kd_uses_build(KdArena *tmp, const KdFunc *f);
/* Records that user (an instruction id, or -1 - blk) names value v. */
void kd_uses_add(KdUses *u, int v, int user);
/* Records the operands and jump arguments of instruction ins (one that a
 * pass added after the index was built, or whose operands it changed). */
void kd_uses_add_ins(KdUses *u, const KdFunc *f, int ins);
/* Does anything still name v (an operand, a jump argument, a bound)? */
int kd_uses_live(const KdUses *u, const KdFunc *f, int v);
/* Every use of from becomes to.  Each instruction that changed is passed
 * to touched (ctx its first argument), once per list entry. */
void kd_uses_replace(KdUses *u, KdFunc *f, int from, int to, void (*touched)(void *ctx, int ins),
                     void *ctx);

#endif
