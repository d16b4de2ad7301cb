/* emit_neuron.h: the neuron operands of the C backend: tiles (kdsl_tile),
 * lists and tile-or-number arguments, behind the neuron KdEmitTarget
 * (target_neuron.c); val() writes a scalar value as C. */
#ifndef KD_EMIT_TILE_H
#define KD_EMIT_TILE_H

#include "ir.h"

typedef void (*KdEmitVal)(void *ctx, int v);

/* Statements before an op call: run-time checks of its block indices. */
void kd_emit_tile_checks(KdBuf *o, const KdFunc *f, const KdIns *in, int site, KdEmitVal val, void *ctx);
/* Writes operand v for parameter p when it is a neuron kind; returns 0
 * when the generic code should write it. */
int kd_emit_neuron_arg(KdBuf *o, const KdFunc *f, const KdOpParam *p, int v, KdEmitVal val, void *ctx);
/* Writes op in's call of its rt_k entry (kd_site[site]), its operands one
 * static const struct, and returns 1 when the op has one and every
 * operand is a constant of the kernel: each tile in sbuf or psum, not a
 * parameter, contiguous, its block, start partition and first element
 * constants, each list rt_k_list constants.  0: nothing written. */
int kd_emit_neuron_call(KdBuf *o, const KdFunc *f, const KdIns *in, int site);

#endif
