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

/* t[...] on a tensor: a tile view (NULL after reporting). */
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
