/* f16_lane.h (internal): one lane of the branch-free f32 -> f16
 * conversion the vectorised loops share (neuron_engine_kern.h's
 * store_f16, ascend_vec's kernels), the same bits as kdsl_h_f32_to_f16.
 * Round to nearest even: NaN keeps its payload's top bits and is quiet,
 * overflow is infinity; a result below 2^-14 (f16 subnormal) is the
 * magnitude added to 0.5f, whose ulp is 2^-24, so the FPU's rounding is
 * f16's (the runtime never changes the rounding mode; an f32 subnormal
 * gives 0 with or without DAZ); a normal result rebiases the exponent and
 * adds just under half an ulp plus the kept lsb (ties to even), a carry
 * running into the exponent.  Masks, not branches, so loops of it
 * vectorise. */
#ifndef KDSL_F16_LANE_H
#define KDSL_F16_LANE_H

#include <stdint.h>
#include <string.h>

static inline uint16_t kdsl_lane_f2h(float x)
{
	uint32_t u, a, big, sub, nrm, bigm, subm, nanm;
	float f;

	memcpy(&u, &x, 4);
	a = u & 0x7fffffffu;
	/* a < 2^31: signed compares (SSE2 has no unsigned ones) */
	bigm = 0u - (uint32_t)((int32_t)a >= 0x47800000);
	subm = 0u - (uint32_t)((int32_t)a < 0x38800000);
	nanm = 0u - (uint32_t)((int32_t)a > 0x7f800000);
	big = 0x7c00u | (nanm & (0x200u | ((a >> 13) & 0x3ffu)));
	memcpy(&f, &a, 4);
	f += 0.5f;
	memcpy(&sub, &f, 4);
	sub -= 0x3f000000u;
	nrm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
	return (uint16_t)((big & bigm) | (sub & subm) | (nrm & ~(bigm | subm)) | ((u >> 16) & 0x8000u));
}

#endif
