/* dom.h: dominators of a function's blocks (Cooper, Harvey and Kennedy's
 * iterative algorithm), shared by the verifier (SSA dominance) and the
 * rule checker's guards (guards.c: which branch edges an instruction is
 * under).  Internal to ir/. */
#ifndef KD_DOM_H
#define KD_DOM_H

#include "ir.h"

typedef struct {
	int n;             /* blocks */
	int *idom;         /* immediate dominator per block (entry: itself); -1 unreachable */
	int *rpo;          /* reverse postorder number per reachable block */
	int *order;        /* the reachable blocks in reverse postorder */
	int nreach;
	int *npred;        /* predecessor edges per block (a br to one block twice counts twice) */
	int *pstart, *plist;   /* block b's predecessors (one per edge, every block's, reachable
	                        * or not): plist[pstart[b] .. pstart[b + 1]) */
	int *pre, *post;   /* dominator-tree interval per block: O(1) dominance */
} KdDom;

/* Builds d for f's current blocks, allocating from a. */
void kd_dom_build(KdArena *a, const KdFunc *f, KdDom *d);
/* Does block x dominate block y?  Unreachable y: 1 (nothing to prove). */
int kd_dom_dominates(const KdDom *d, int x, int y);
/* Successor k (0, 1) of block b's terminator, or -1. */
int kd_dom_succ(const KdFunc *f, int b, int k);

#endif
