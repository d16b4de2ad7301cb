/* affine.h: affine forms c + k1*x1 + ... + kn*xn over symbols the caller
 * names by key (sema: a symbol's address; the rule checker: a loop's
 * header block).  The arithmetic is exact: a form whose constant or a
 * coefficient would leave int64 is no form at all (ok = 0, overflow = 1),
 * since the kernel's wrapping values then differ from the exact ones the
 * callers reason with; they treat it as unknown (a run-time check, or a
 * diagnostic where the value must be known). */
#ifndef KD_AFFINE_H
#define KD_AFFINE_H

#include <stdint.h>

enum { KD_AFF_MAXTERM = 8 };

typedef struct {
	int ok;            /* 0: not affine (or it overflowed) */
	int overflow;      /* why ok is 0: an int64 overflow on the way */
	int64_t c;
	int n;             /* terms, each symbol once; a coefficient may be 0 */
	struct { intptr_t key; int64_t k; } t[KD_AFF_MAXTERM];
} KdAff;

KdAff kd_aff_const(int64_t c);
/* k * x for the symbol `key`. */
KdAff kd_aff_sym(intptr_t key, int64_t k);
/* x + sy * y. */
KdAff kd_aff_add(KdAff x, KdAff y, int64_t sy);
/* k * x. */
KdAff kd_aff_scale(KdAff x, int64_t k);
/* x * y when one of them is a constant; not affine otherwise. */
KdAff kd_aff_mul(KdAff x, KdAff y);
/* In place, for callers that build forms term by term: the results are
 * the functions' above, except that a result's terms past n are left as
 * they were (no reader looks past n), so no call writes a whole form. */
void kd_aff_set_const(KdAff *r, int64_t c);
void kd_aff_add_to(KdAff *r, const KdAff *y, int64_t sy);   /* r += sy * y */
void kd_aff_scale_to(KdAff *r, int64_t k);                  /* r = k * r */
void kd_aff_mul_to(KdAff *r, const KdAff *y);               /* r = r * y */
/* 1 when x is affine and every coefficient is 0: *c gets its value. */
int kd_aff_is_const(KdAff x, int64_t *c);

#endif
