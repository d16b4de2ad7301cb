/* emit_target.c: the backend's target registry, the one place in
 * backend/ that maps a KdTarget to its hooks; the instances live in each
 * target's folder. */
#include "emit_target.h"

extern const KdEmitTarget kd_emit_target_neuron, kd_emit_target_ascend, kd_emit_target_aipu;

/* A new target adds its instance here (and to frontend_target.c and ir_target.c). */
_Static_assert(KD_NTARGET == 4, "every target needs a KdEmitTarget in this table");

static const KdEmitTarget *const targets[KD_NTARGET] = {
	[KD_TARGET_NEURON] = &kd_emit_target_neuron,
	[KD_TARGET_ASCEND] = &kd_emit_target_ascend,
	[KD_TARGET_AIPU] = &kd_emit_target_aipu,
};

const KdEmitTarget *kd_emit_target(KdTarget t)
{
	return targets[t];
}
