/* sema_neuron.h: the neuron part of semantic analysis (the hooks of
 * target_neuron.c), and what sema records about a direct allocation
 * (seed 003) for the lowering. */
#ifndef KD_SEMA_NEURON_H
#define KD_SEMA_NEURON_H

#include "sema.h"

typedef struct KdAllocSpec {
	int modulo;            /* 1: mod_alloc (block i -> tile i mod n); 0: alloc */
	int64_t base;          /* psum: base_bank; sbuf: base_addr in bytes */
	int nmod;              /* entries of num_bank_tiles (psum) / num_free_tiles (sbuf) */
	int64_t mod[KD_MAXDIM];
	KdSpan span;           /* the call */
} KdAllocSpec;

/* A tile view's access pattern (LANGUAGE.md 7 "Views"), in elements of
 * its tensor: view dim 0 (the partitions) steps pstep (hbm; 0 on chip,
 * where it is the tensor's partition dim), the other view dims, with
 * count-1 dims left out and dims that continue each other merged, are nd
 * (stride, count) pairs, outermost first.  nd 0: the contiguous form
 * (one run per partition, as v0), which the tile op writes without one. */
typedef struct KdViewAp {
	int64_t pstep;
	int nd;
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS];
	int drop;              /* a[i] of an hbm tensor of rank >= 3: dim 0 dropped */
} KdViewAp;

/* t[...] on a tensor: a tile view (NULL after reporting); its type's ap
 * is set.  n->b, when set, permutes its dims (v.T, permute). */
KdType *kd_sema_tile_index(KdArena *a, KdDiag *d, KdNode *n, const KdType *base);
/* acc[i][a:b, :] read as acc[i, a:b, :]: rewrites n, returns 1. */
int kd_sema_tile_chain(KdArena *a, KdNode *n);
/* The tile rules of a tensor type; <0 after reporting. */
int kd_sema_tile_type(KdDiag *d, KdNode *ty, const KdType *t);
/* Is init a mod_alloc/alloc call? */
int kd_sema_is_alloc_call(const KdNode *init);
/* Checks the allocation call of `let` and records it on t. */
void kd_sema_alloc(KdArena *a, KdDiag *d, KdNode *let, KdType *t);

#endif
