/* sema_neuron.h: what sema records about a neuron direct allocation
 * (seed 003) for the IR builder. */
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

#endif
