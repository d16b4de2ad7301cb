/* lower_neuron.h: lowering of neuron tensors to tile views
 * (lower_neuron.c), the lowering hooks of the neuron KdFrontendTarget. */
#ifndef KD_LOWER_NEURON_H
#define KD_LOWER_NEURON_H

#include "ast.h"
#include "tile.h"

/* Fills b->tile for a neuron buffer of type ty. */
void kd_lower_tile_info(KdArena *a, KdBuffer *b, const KdType *ty);
/* Lowers a neuron tensor operand (a name or an index/slice of one) to a
 * tile view; lower() lowers a scalar expression. */
int kd_lower_tile_view(KdArena *a, KdFunc *f, int blk, int buf, KdNode *n,
                       int (*lower)(void *ctx, KdNode *x), void *ctx);

#endif
