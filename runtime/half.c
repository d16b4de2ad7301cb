/* half.c: the exported half-precision conversions and dtype helpers.
 * The conversions themselves live inline in rt_half.h and rt_internal.h
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

void kdsl_dtype_store(kdsl_dtype dt, void *p, double x)
{
	kdsl_store_value(dt, p, x);
}

void kdsl_dtype_store_bits(kdsl_dtype dt, void *p, uint64_t bits)
{
	kdsl_store_bits(dt, p, bits);
}

size_t kdsl_dtype_size(kdsl_dtype dt)
{
	switch (dt) {
	case KDSL_I8: case KDSL_U8: case KDSL_BOOL:
		return 1;
	case KDSL_I16: case KDSL_U16: case KDSL_F16: case KDSL_BF16:
		return 2;
	case KDSL_I32: case KDSL_U32: case KDSL_F32:
		return 4;
	case KDSL_I64: case KDSL_U64:
		return 8;
	}
	return 0;
}

const char *kdsl_dtype_name(kdsl_dtype dt)
{
	switch (dt) {
	case KDSL_I8: return "i8";
	case KDSL_I16: return "i16";
	case KDSL_I32: return "i32";
	case KDSL_I64: return "i64";
	case KDSL_U8: return "u8";
	case KDSL_U16: return "u16";
	case KDSL_U32: return "u32";
	case KDSL_U64: return "u64";
	case KDSL_F16: return "f16";
	case KDSL_BF16: return "bf16";
	case KDSL_F32: return "f32";
	case KDSL_BOOL: return "bool";
	}
	return "?";
}
