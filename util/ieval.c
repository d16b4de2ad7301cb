/* ieval.c: the integer evaluator (ieval.h).  The helpers are compiled
 * here from the same text the emitter writes into generated C. */
#include "ieval.h"

#define FN(N, n, p, b) static int64_t kd_##n p { return b; }
#define FN2(N, n, p, b1, b2) static int64_t kd_##n p { return b1 b2; }
KD_IEVAL_HELPERS(FN, FN2)
#undef FN
#undef FN2

#define NAME(N, n, p, b) [KD_IH_##N] = "kd_" #n,
#define NAME2(N, n, p, b1, b2) [KD_IH_##N] = "kd_" #n,
const char *const kd_ieval_helper_name[KD_IH_N] = {KD_IEVAL_HELPERS(NAME, NAME2)};
#undef NAME
#undef NAME2

#define DEF(N, n, p, b) [KD_IH_##N] = "static inline int64_t kd_" #n #p " { return " #b "; }\n",
#define DEF2(N, n, p, b1, b2) \
	[KD_IH_##N] = "static inline int64_t kd_" #n #p "\n{\n\treturn " #b1 "\n\t       " #b2 ";\n}\n",
const char *const kd_ieval_helper_c[KD_IH_N] = {KD_IEVAL_HELPERS(DEF, DEF2)};
#undef DEF
#undef DEF2

KdIevalStatus kd_ieval(KdIop op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case KD_I_ADD: *r = kd_add(a, b); break;
	case KD_I_SUB: *r = kd_sub(a, b); break;
	case KD_I_MUL: *r = kd_mul(a, b); break;
	case KD_I_DIV:
	case KD_I_REM:
		if (!b)
			return KD_IEVAL_DIV_ZERO;
		*r = op == KD_I_DIV ? kd_div(a, b) : kd_rem(a, b);
		break;
	case KD_I_SHL:
	case KD_I_SHR:
		if (b < 0 || b > 63)
			return KD_IEVAL_SHIFT;
		/* generated C writes `a >> b`: arithmetic in gcc and clang */
		*r = op == KD_I_SHL ? kd_shl(a, b) : a >> b;
		break;
	case KD_I_AND: *r = a & b; break;
	case KD_I_OR: *r = a | b; break;
	case KD_I_XOR: *r = a ^ b; break;
	case KD_I_EQ: *r = a == b; break;
	case KD_I_NE: *r = a != b; break;
	case KD_I_LT: *r = a < b; break;
	case KD_I_LE: *r = a <= b; break;
	case KD_I_GT: *r = a > b; break;
	case KD_I_GE: *r = a >= b; break;
	case KD_I_LAND: *r = a && b; break;
	case KD_I_LOR: *r = a || b; break;
	case KD_I_NEG: *r = kd_neg(a); break;
	case KD_I_NOT: *r = !a; break;
	case KD_I_PLUS: *r = a; break;
	}
	return KD_IEVAL_OK;
}

int64_t kd_ieval_f2i(double x)
{
	return kd_f2i(x);
}

int64_t kd_ieval_narrow(int64_t v, int bits, int is_signed)
{
	if (bits >= 64)
		return v;
	uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
	if (is_signed && (u >> (bits - 1)))
		u |= ~m;
	return (int64_t)u;
}
