/* affine.c: overflow-checked affine forms (affine.h). */
#include "affine.h"

static KdAff overflowed(void)
{
	return (KdAff){.overflow = 1};
}

KdAff kd_aff_const(int64_t c)
{
	return (KdAff){.ok = 1, .c = c};
}

KdAff kd_aff_sym(intptr_t key, int64_t k)
{
	KdAff r = {.ok = 1, .n = 1};
	r.t[0].key = key;
	r.t[0].k = k;
	return r;
}

KdAff kd_aff_add(KdAff x, KdAff y, int64_t sy)
{
	if (!x.ok || !y.ok)
		return (KdAff){.overflow = x.overflow || y.overflow};
	KdAff r = x;
	int64_t yc;
	if (__builtin_mul_overflow(y.c, sy, &yc) || __builtin_add_overflow(r.c, yc, &r.c))
		return overflowed();
	for (int i = 0; i < y.n; i++) {
		int64_t k;
		if (__builtin_mul_overflow(y.t[i].k, sy, &k))
			return overflowed();
		int j = 0;
		while (j < r.n && r.t[j].key != y.t[i].key)
			j++;
		if (j == r.n) {
			if (r.n == KD_AFF_MAXTERM)
				return (KdAff){0};
			r.t[r.n].key = y.t[i].key;
			r.t[r.n++].k = 0;
		}
		if (__builtin_add_overflow(r.t[j].k, k, &r.t[j].k))
			return overflowed();
	}
	return r;
}

KdAff kd_aff_scale(KdAff x, int64_t k)
{
	return kd_aff_add(kd_aff_const(0), x, k);
}

KdAff kd_aff_mul(KdAff x, KdAff y)
{
	if (x.ok && !x.n)
		return kd_aff_scale(y, x.c);
	if (y.ok && !y.n)
		return kd_aff_scale(x, y.c);
	return (KdAff){.overflow = x.overflow || y.overflow};
}

int kd_aff_is_const(KdAff x, int64_t *c)
{
	if (!x.ok)
		return 0;
	for (int i = 0; i < x.n; i++)
		if (x.t[i].k)
			return 0;
	*c = x.c;
	return 1;
}
