/* emit_aipu.h: C for the aipu vector values and ops (emit_aipu.c), the
 * hooks of the aipu KdEmitTarget.  Internal to backend/. */
#ifndef KD_EMIT_VEC_H
#define KD_EMIT_VEC_H

#include "emit_target.h"

typedef KdEmitCtx KdVecOut;

/* The struct typedefs of every vector and mask type the module uses. */
void kd_emit_vec_types(KdBuf *o, const KdModule *m);
/* The C type of a VT_VEC / VT_MASK value. */
void kd_emit_vec_ctype(KdBuf *o, const KdVal *x);
/* Instructions emitted here: those giving vectors or masks, and vstore. */
int kd_emit_vec_handles(const KdFunc *f, const KdIns *in);
/* Instructions that may fail at run time and so need a kd_site entry. */
int kd_emit_vec_needs_site(const KdFunc *f, const KdIns *in);
/* 0, or -1 after reporting an op it cannot emit. */
int kd_emit_vec_ins(KdVecOut *v, const KdIns *in);

#endif
