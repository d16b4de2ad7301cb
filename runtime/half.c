/* half.c: the exported half-precision conversions and dtype helpers.
 * The conversions themselves live inline in kdsl_rt.h, rt_half.h and rt_internal.h
 * so the ops' element loops can inline them; these are their exported
 * copies, for generated code and the harness. */
#include "rt_internal.h"

float kdsl_f16_to_f32(kdsl_f16 h)
{
	return kdsl_h_f16_to_f32(h);
}

double kdsl_f16_to_f64(kdsl_f16 h)
{
	return kdsl_h_f16_to_f64(h);
}

kdsl_f16 kdsl_f32_to_f16(float f)
{
	return kdsl_h_f32_to_f16(f);
}

kdsl_f16 kdsl_f64_to_f16(double d)
{
	return kdsl_h_f64_to_f16(d);
}

float kdsl_bf16_to_f32(kdsl_bf16 h)
{
	return kdsl_h_bf16_to_f32(h);
}

kdsl_bf16 kdsl_f32_to_bf16(float f)
{
	return kdsl_h_f32_to_bf16(f);
}

kdsl_bf16 kdsl_f64_to_bf16(double d)
{
	return kdsl_h_f64_to_bf16(d);
}

/* The exported stores check p (the inline ones the ops use need not:
 * their pointers were checked with the operand); an unknown dtype has
 * size 0 and stores nothing. */
void kdsl_dtype_store(kdsl_dtype dt, void *p, double x)
{
	if (p)
		kdsl_store_value(dt, p, x);
}

void kdsl_dtype_store_bits(kdsl_dtype dt, void *p, uint64_t bits)
{
	if (p)
		kdsl_store_bits(dt, p, bits);
}

size_t kdsl_dtype_size(kdsl_dtype dt)
{
	return kdsl_dt_bytes(dt);
}

const char *kdsl_dtype_name(kdsl_dtype dt)
{
	switch (dt) {
#define NAME_CASE(d, name, ...) case d: return name;
	KDSL_DTYPE_LIST(NAME_CASE)
#undef NAME_CASE
	}
	return "?";
}
