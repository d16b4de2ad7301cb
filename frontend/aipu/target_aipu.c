/* target_aipu.c: the frontend's aipu hooks (frontend_target.h): vector
 * and mask types and operators, the ops' type rules (sema_aipu.c) and
 * their lowering to pure SSA instructions (lower_aipu.c). */
#include "frontend_target.h"
#include "lower_aipu.h"
#include "sema_aipu.h"

static KdType *index_view(KdArena *a, KdDiag *d, KdNode *n, const KdType *base, KdType *err)
{
	/* LANGUAGE.md 3: a[k] on a 1-D gm tensor is the address for vload/vstore. */
	if (base->rank != 1 || n->list.n != 1 || ((KdNode *)n->list.v[0])->kind == N_SLICE) {
		kd_error(d, n->span, "on target aipu a 1-D tensor takes one element index (t[k])");
		return err;
	}
	return kd_type_view(a, base);
}

/* Optional parameters stay unbound (lowering drops them), so only the
 * others must be there before the op's own rules run. */
static KdType *call(KdArena *a, KdDiag *d, KdNode *n, int bad, KdType *err)
{
	const KdOpDesc *od = n->opdesc;
	for (int p = 0; p < od->nparam && !bad; p++)
		if (!n->bound[p] && !(od->param[p].flags & PF_OPT)) {
			kd_error(d, n->span, "%s: missing argument '%s'", od->name, od->param[p].name);
			bad = 1;
		}
	return bad ? err : kd_sema_aipu_call(a, d, n, err);
}

const KdFrontendTarget kd_frontend_target_aipu = {
	.index = index_view,
	.vec_type = kd_sema_vec_type,
	.vec_binary = kd_sema_vec_binary,
	.vec_unary = kd_sema_vec_unary,
	.call = call,
	.lower_call = kd_lower_aipu_call,
	.lower_vec_binary = kd_lower_vec_binary,
	.lower_vec_unary = kd_lower_vec_unary,
	.lower_tuple = kd_lower_aipu_tuple,
};
