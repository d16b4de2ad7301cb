/* affine.c: overflow-checked affine forms (affine.h). */
#include "affine.h"

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

/* *r = (KdAff){fields}: the header only, as kd_aff_add_to's results are. */
static void set(KdAff *r, int ok, int overflow, int64_t c)
{
	r->ok = ok;
	r->overflow = overflow;
	r->c = c;
	r->n = 0;
}

void kd_aff_set_const(KdAff *r, int64_t c)
{
	set(r, 1, 0, c);
}

void kd_aff_add_to(KdAff *r, const KdAff *y, int64_t sy)
{
	if (!r->ok || !y->ok) {
		set(r, 0, r->overflow || y->overflow, 0);
		return;
	}
	int64_t yc;
	if (__builtin_mul_overflow(y->c, sy, &yc) || __builtin_add_overflow(r->c, yc, &r->c)) {
		set(r, 0, 1, 0);
		return;
	}
	for (int i = 0; i < y->n; i++) {
		int64_t k;
		if (__builtin_mul_overflow(y->t[i].k, sy, &k)) {
			set(r, 0, 1, 0);
			return;
		}
		int j = 0;
		while (j < r->n && r->t[j].key != y->t[i].key)
			j++;
		if (j == r->n) {
			if (r->n == KD_AFF_MAXTERM) {
				set(r, 0, 0, 0);
				return;
			}
			r->t[r->n].key = y->t[i].key;
			r->t[r->n++].k = 0;
		}
		if (__builtin_add_overflow(r->t[j].k, k, &r->t[j].k)) {
			set(r, 0, 1, 0);
			return;
		}
	}
}

KdAff kd_aff_add(KdAff x, KdAff y, int64_t sy)
{
	kd_aff_add_to(&x, &y, sy);
	return x;
}

void kd_aff_scale_to(KdAff *r, int64_t k)
{
	KdAff x = *r;
	kd_aff_set_const(r, 0);
	kd_aff_add_to(r, &x, k);
}

void kd_aff_mul_to(KdAff *r, const KdAff *y)
{
	if (r->ok && !r->n) {
		int64_t k = r->c;
		*r = *y;
		kd_aff_scale_to(r, k);
	} else if (y->ok && !y->n) {
		kd_aff_scale_to(r, y->c);
	} else {
		set(r, 0, r->overflow || y->overflow, 0);
	}
}

KdAff kd_aff_scale(KdAff x, int64_t k)
{
	kd_aff_scale_to(&x, k);
	return x;
}

KdAff kd_aff_mul(KdAff x, KdAff y)
{
	kd_aff_mul_to(&x, &y);
	return x;
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
