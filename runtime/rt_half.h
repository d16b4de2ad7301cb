/* rt_half.h (internal): binary16 and bfloat16 conversions as inline bit
 * manipulation, so the element loops of the ops inline them instead of
 * calling out per element.  All rounding is IEEE round-to-nearest-even;
 * nothing here depends on the compiler's _Float16. */
#ifndef KDSL_HALF_H
#define KDSL_HALF_H

#include <stdint.h>
#include <string.h>

#include "kdsl_rt.h"

static inline uint64_t kdsl_h_bits64(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

static inline uint32_t kdsl_h_bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline double kdsl_h_from_bits64(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static inline float kdsl_h_from_bits32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* Rounds a finite, nonzero, normal source value to a narrower format.
 * The value is sig * 2^(e - p): sig holds the source significand with its
 * implicit bit at position p; the target keeps t fraction bits, has the
 * given exponent bias, and ebits exponent bits.  Returns the magnitude bits.
 * Rounding once from the wide significand is what makes f64 -> f16 exact:
 * no intermediate float, so no double rounding. */
static inline uint32_t kdsl_h_round(uint64_t sig, int p, int e, int t, int bias, int ebits)
{
	uint32_t inf = ((1u << ebits) - 1u) << t;
	uint32_t base, r;
	uint64_t q, rem, half;
	int shift;

	if (e > bias)
		return inf;
	if (e >= 1 - bias) {
		shift = p - t;
		base = (uint32_t)(e + bias) << t;
		sig &= ((uint64_t)1 << p) - 1;
	} else {
		/* Subnormal result: the implicit bit stays and shifts down too. */
		shift = p - t + (1 - bias - e);
		base = 0;
		/* Below half the smallest subnormal: rounds to zero. */
		if (shift > p + 1)
			return 0;
	}
	q = sig >> shift;
	rem = sig & (((uint64_t)1 << shift) - 1);
	half = (uint64_t)1 << (shift - 1);
	r = base + (uint32_t)q;
	/* A carry out of the fraction bumps the exponent, up to infinity. */
	if (rem > half || (rem == half && (q & 1)))
		r++;
	return r;
}

/* Narrows a double to a format with t fraction bits (f16: 10, bf16: 7). */
static inline uint16_t kdsl_h_narrow64(double d, int t, int bias, int ebits)
{
	uint64_t u = kdsl_h_bits64(d);
	uint16_t sign = (uint16_t)((u >> 63) << 15);
	int exp = (int)((u >> 52) & 0x7ff);
	uint64_t man = u & (((uint64_t)1 << 52) - 1);
	uint16_t inf = (uint16_t)(((1u << ebits) - 1u) << t);

	if (exp == 0x7ff) {
		if (man == 0)
			return sign | inf;
		/* Quiet NaN that keeps the sign and the payload's top bits. */
		return (uint16_t)(sign | inf | (1u << (t - 1)) | (uint16_t)(man >> (52 - t)));
	}
	/* Zero and double subnormals are far below either format's range. */
	if (exp == 0)
		return sign;
	return (uint16_t)(sign | kdsl_h_round(man | ((uint64_t)1 << 52), 52, exp - 1023, t, bias, ebits));
}

static inline kdsl_f16 kdsl_h_f64_to_f16(double d)
{
	return kdsl_h_narrow64(d, 10, 15, 5);
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

static inline float kdsl_h_f16_to_f32(kdsl_f16 h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t exp = (h >> 10) & 0x1f;
	uint32_t man = h & 0x3ffu;

	if (exp == 0x1f)
		return kdsl_h_from_bits32(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		/* Subnormal: man * 2^-24, exact in float. */
		float v = (float)man * 0x1p-24f;
		return sign ? -v : v;
	}
	return kdsl_h_from_bits32(sign | ((exp + 112) << 23) | (man << 13));
}

static inline double kdsl_h_f16_to_f64(kdsl_f16 h)
{
	uint64_t sign = (uint64_t)(h >> 15) << 63;
	uint64_t exp = (h >> 10) & 0x1f;
	uint64_t man = h & 0x3ffu;

	if (exp == 0x1f)
		return kdsl_h_from_bits64(sign | ((uint64_t)0x7ff << 52) | (man << 42));
	if (exp == 0) {
		double v = (double)man * 0x1p-24;
		return sign ? -v : v;
	}
	return kdsl_h_from_bits64(sign | ((exp + 1008) << 52) | (man << 42));
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
