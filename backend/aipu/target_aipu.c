/* target_aipu.c: the backend's aipu hooks (emit_target.h): vector and
 * mask values as structs of lanes, and the ops that make or store them
 * as straight-line C (emit_aipu.c). */
#include "emit_target.h"
#include "emit_aipu.h"

static int ctype(KdBuf *o, const KdVal *x)
{
	if (x->type != VT_VEC && x->type != VT_MASK)
		return 0;
	kd_emit_vec_ctype(o, x);
	return 1;
}

const KdEmitTarget kd_emit_target_aipu = {
	.types = kd_emit_vec_types,
	.ctype = ctype,
	.handles = kd_emit_vec_handles,
	.ins = kd_emit_vec_ins,
	.needs_site = kd_emit_vec_needs_site,
};
