/* frontend_target.c: the frontend's target registry, the one place in
 * frontend/ that maps a KdTarget to its hooks; the instances live in each
 * target's folder. */
#include "frontend_target.h"

extern const KdFrontendTarget kd_frontend_target_neuron, kd_frontend_target_ascend,
                              kd_frontend_target_aipu;

/* A new target adds its instance here (and to ir_target.c and emit_target.c). */
_Static_assert(KD_NTARGET == 4, "every target needs a KdFrontendTarget in this table");

static const KdFrontendTarget *const targets[KD_NTARGET] = {
	[KD_TARGET_NEURON] = &kd_frontend_target_neuron,
	[KD_TARGET_ASCEND] = &kd_frontend_target_ascend,
	[KD_TARGET_AIPU] = &kd_frontend_target_aipu,
};

const KdFrontendTarget *kd_frontend_target(KdTarget t)
{
	return targets[t];
}
