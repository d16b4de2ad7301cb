/* rt_half.h (internal): binary16 and bfloat16 conversions as inline bit
 * manipulation, so the element loops of the ops inline them instead of
 * calling out per element.  The f16 <-> f64 pair and the rounding they
 * share, and the two branch-free f16 -> f32 (the runtime's, generated
 * code's), are in kdsl_rt.h, whose inline element access and generated
 * code use them.  All rounding is IEEE round-to-nearest-even; nothing
 * here depends on the compiler's _Float16. */
#ifndef KDSL_HALF_H
#define KDSL_HALF_H

#include <stdint.h>
#include <string.h>

#include "kdsl_rt.h"

static inline uint32_t kdsl_h_bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline float kdsl_h_from_bits32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline kdsl_bf16 kdsl_h_f64_to_bf16(double d)
{
	return kdsl_h_narrow64(d, 7, 127, 8);
}

static inline kdsl_f16 kdsl_h_f32_to_f16(float f)
{
	uint32_t u = kdsl_h_bits32(f);
	uint16_t sign = (uint16_t)((u >> 31) << 15);
	int exp = (int)((u >> 23) & 0xff);
	uint32_t man = u & 0x7fffffu;

	if (exp == 0xff) {
		if (man == 0)
			return sign | 0x7c00;
		return (uint16_t)(sign | 0x7e00 | (man >> 13));
	}
	/* f32 subnormals are below 2^-126, far under half of 2^-24. */
	if (exp == 0)
		return sign;
	return (uint16_t)(sign | kdsl_h_round(man | 0x800000u, 23, exp - 127, 10, 15, 5));
}

static inline float kdsl_h_bf16_to_f32(kdsl_bf16 h)
{
	return kdsl_h_from_bits32((uint32_t)h << 16);
}

static inline kdsl_bf16 kdsl_h_f32_to_bf16(float f)
{
	uint32_t u = kdsl_h_bits32(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (kdsl_bf16)((u >> 16) | 0x40);
	/* Adding just under half an ulp plus the kept lsb rounds to nearest
	 * even; a carry runs into the exponent and up to infinity. */
	return (kdsl_bf16)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

/* Stores the low bits of u into one integer element of dtype dt. */
static inline void kdsl_store_bits(kdsl_dtype dt, void *p, uint64_t u)
{
	uint8_t b;
	uint16_t h;
	uint32_t w;

	switch (kdsl_dtype_size(dt)) {
	case 1:
		b = (uint8_t)u;
		memcpy(p, &b, 1);
		break;
	case 2:
		h = (uint16_t)u;
		memcpy(p, &h, 2);
		break;
	case 4:
		w = (uint32_t)u;
		memcpy(p, &w, 4);
		break;
	case 8:
		memcpy(p, &u, 8);
		break;
	default:
		break;
	}
}

#endif
