/* ir_target.c: the IR stage's target registry.  The one place in ir/
 * that maps a KdTarget to its hooks; the instances live in each target's
 * folder (ascend/, neuron/, aipu/). */
#include "ir_target.h"

extern const KdIrTarget kd_ir_target_neuron, kd_ir_target_ascend, kd_ir_target_aipu;

/* A new target adds its instance here (and to frontend_target.c and
 * emit_target.c). */
_Static_assert(KD_NTARGET == 4, "every target needs a KdIrTarget in this table");

static const KdIrTarget generic;
static const KdIrTarget *const targets[KD_NTARGET] = {
	[KD_TARGET_NONE] = &generic,
	[KD_TARGET_NEURON] = &kd_ir_target_neuron,
	[KD_TARGET_ASCEND] = &kd_ir_target_ascend,
	[KD_TARGET_AIPU] = &kd_ir_target_aipu,
};

const KdIrTarget *kd_ir_target(KdTarget t)
{
	return targets[t];
}

void kd_ir_check_target(KdDiag *d, const KdModule *m)
{
	const KdIrTarget *tg = kd_ir_target(m->target);
	if (tg->check)
		tg->check(d, m);
}
