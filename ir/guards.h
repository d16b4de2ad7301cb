/* guards.h: the conditions an instruction runs under.  A conditional
 * branch guards the blocks its taken edge dominates; a guard that compares
 * an affine form of one loop's trip index with a constant (==, !=, <, <=,
 * >, >=, their ! and &&, and || under !) narrows the trips of that loop
 * the rule checker considers for the guarded instructions.  Any other
 * guard (a runtime value, two loop variables, a non-affine form) leaves
 * the instruction `undecided`: whether a violating trip runs is unknown
 * at compile time, so its value rules go to the runtime.  A guard false
 * at every trip makes the instruction `dead`.  The loops' own header
 * branches are not guards: the loop's bounds already say which trips run.
 * Internal to ir/. */
#ifndef KD_GUARDS_H
#define KD_GUARDS_H

#include "dom.h"

enum { KD_GUARD_LOOPS = 8, KD_GUARD_HOLES = 4 };

/* The trips (indices 0, 1, ... of loop `blk`) the guards keep. */
typedef struct {
	int blk;           /* the loop's header block */
	int64_t lo, hi;    /* first and last kept trip (lo > hi: none) */
	int nhole;         /* trips strictly between lo and hi a `!=` drops */
	int64_t hole[KD_GUARD_HOLES];
} KdTrips;

typedef struct KdGuardSet {
	int dead;          /* some guard is false at every trip: never runs */
	int undecided;     /* some guard the checker cannot read */
	int nguard;        /* guards read so far (0: the instruction is unguarded) */
	KdSpan at;         /* the innermost guard's condition */
	int n;
	KdTrips t[KD_GUARD_LOOPS];
} KdGuardSet;

typedef struct {
	KdDom dom;
	const KdGuardSet **at;   /* per block (never NULL for a reachable block) */
} KdGuards;

/* The guards of every block of f as it is now (passes rebuild after
 * changing the CFG). */
void kd_guards_build(KdArena *a, const KdFunc *f, KdGuards *g);
/* The guards of block b: an empty set when none (or b is unreachable). */
const KdGuardSet *kd_guards_of(const KdGuards *g, int b);
/* The trips of loop `loop_blk` kept by s, NULL when s does not narrow it. */
const KdTrips *kd_guard_trips(const KdGuardSet *s, int loop_blk);
/* The spacing of s's kept trips: 0 for one trip, else the gcd of the gaps
 * between consecutive kept trips (1 unless `!=` holes make it more). */
int64_t kd_trips_step(const KdTrips *t);
/* Has the checker proved the value rules of an instruction in block b for
 * every trip that runs (1), or are they left to the runtime (0)?  Passes
 * that rest on the checker's proof (dead-moves, forward, fuse-tiles) ask. */
int kd_guards_proven(const KdGuards *g, int b);

#endif
