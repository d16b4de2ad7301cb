/* dragon4.c: shortest round-trip decimal digits of a binary float, the
 * algorithm numpy prints with (Steele & White's Dragon4 in "unique" mode,
 * with numpy's cutoffs).  Printing must match numpy digit for digit, and
 * printf's %g cannot: it knows nothing of float16's precision.  The
 * formats here are at most 32 bits wide, so small fixed-size big integers
 * suffice. */
#include <math.h>
#include <string.h>

#include "harness_internal.h"

/* 640 bits: the largest product is about 10^46 * 2^152 times a 27-bit
 * significand, times 10 while generating digits. */
#define BN_WORDS 20

typedef struct {
	uint32_t w[BN_WORDS];
	int n;   /* words in use; w[n-1] != 0 unless n == 0 */
} bn;

static void bn_trim(bn *a)
{
	while (a->n > 0 && a->w[a->n - 1] == 0)
		a->n--;
}

static void bn_set(bn *a, uint64_t v)
{
	memset(a, 0, sizeof *a);
	a->w[0] = (uint32_t)v;
	a->w[1] = (uint32_t)(v >> 32);
	a->n = 2;
	bn_trim(a);
}

static void bn_mul_small(bn *a, uint32_t m)
{
	uint64_t carry = 0;
	int i;

	for (i = 0; i < a->n; i++) {
		uint64_t t = (uint64_t)a->w[i] * m + carry;
		a->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry && a->n < BN_WORDS)
		a->w[a->n++] = (uint32_t)carry;
}

static void bn_shl(bn *a, int bits)
{
	int words = bits / 32, sh = bits % 32, i;

	if (a->n == 0 || bits <= 0)
		return;
	if (a->n + words + 1 > BN_WORDS)
		words = BN_WORDS - a->n - 1;   /* cannot happen for <= 32-bit formats */
	for (i = a->n + words; i >= 0; i--) {
		uint32_t hi = i - words >= 0 && i - words < a->n ? a->w[i - words] : 0;
		uint32_t lo = i - words - 1 >= 0 && i - words - 1 < a->n ? a->w[i - words - 1] : 0;
		a->w[i] = sh ? (hi << sh) | (lo >> (32 - sh)) : hi;
	}
	a->n += words + 1;
	bn_trim(a);
}

static void bn_pow10(bn *a, int k)
{
	for (; k >= 9; k -= 9)
		bn_mul_small(a, 1000000000u);
	for (; k > 0; k--)
		bn_mul_small(a, 10);
}

static int bn_cmp(const bn *a, const bn *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static void bn_add(bn *r, const bn *a, const bn *b)
{
	uint64_t carry = 0;
	int n = a->n > b->n ? a->n : b->n, i;

	for (i = 0; i < n; i++) {
		uint64_t t = carry + (i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0);
		r->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	r->n = n;
	if (carry && n < BN_WORDS)
		r->w[r->n++] = (uint32_t)carry;
	for (i = r->n; i < BN_WORDS; i++)
		r->w[i] = 0;
}

/* a -= b, with a >= b. */
static void bn_sub(bn *a, const bn *b)
{
	int64_t borrow = 0;
	int i;

	for (i = 0; i < a->n; i++) {
		int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
		borrow = t < 0;
		a->w[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
	}
	bn_trim(a);
}

/* The digit value/scale (< 10 by construction); value keeps the rest. */
static int bn_digit(bn *value, const bn *scale)
{
	int d = 0;

	while (d < 9 && bn_cmp(value, scale) >= 0) {
		bn_sub(value, scale);
		d++;
	}
	return d;
}

static int high_bit(uint64_t m)
{
	int b = -1;

	while (m) {
		m >>= 1;
		b++;
	}
	return b;
}

int kdsl_dragon4(uint64_t m, int e, int unequal,
                 int frac_cutoff, int total_cutoff,
                 int frac_min, int total_min,
                 char *buf, int bufsize, int *exp10)
{
	bn value, scale, mlow, mhigh, vhigh;
	int dexp, cut_max, cut_min, digit = 0, low = 0, high = 0, round_down, n = 0;
	int even = (m & 1) == 0;

	if (m == 0 || bufsize < 2) {
		buf[0] = '0';
		*exp10 = 0;
		return 1;
	}
	/* value/scale is the number and mlow/scale, mhigh/scale are the
	 * distances to the midpoints with its neighbours; everything is
	 * doubled (quadrupled when unequal) to stay integral. */
	bn_set(&value, m);
	if (e > 0) {
		bn_shl(&value, e + (unequal ? 2 : 1));
		bn_set(&scale, unequal ? 4 : 2);
		bn_set(&mlow, 1);
		bn_shl(&mlow, e);
	} else {
		bn_shl(&value, unequal ? 2 : 1);
		bn_set(&scale, 1);
		bn_shl(&scale, -e + (unequal ? 2 : 1));
		bn_set(&mlow, 1);
	}
	/* Estimate of the first digit's position: exact or one too low. */
	dexp = (int)ceil((double)(high_bit(m) + e) * 0.30102999566398119521 - 0.69);
	if (frac_cutoff >= 0 && dexp <= -frac_cutoff)
		dexp = -frac_cutoff + 1;
	if (dexp > 0) {
		bn_pow10(&scale, dexp);
	} else if (dexp < 0) {
		bn_pow10(&value, -dexp);
		bn_pow10(&mlow, -dexp);
	}
	mhigh = mlow;
	if (unequal)
		bn_shl(&mhigh, 1);
	if (bn_cmp(&value, &scale) >= 0) {
		dexp++;
	} else {
		bn_mul_small(&value, 10);
		bn_mul_small(&mlow, 10);
		mhigh = mlow;
		if (unequal)
			bn_shl(&mhigh, 1);
	}
	/* Positions (powers of ten) of the last digit allowed and of the
	 * last digit required. */
	cut_max = dexp - bufsize;
	if (total_cutoff >= 0 && dexp - total_cutoff > cut_max)
		cut_max = dexp - total_cutoff;
	if (frac_cutoff >= 0 && -frac_cutoff > cut_max)
		cut_max = -frac_cutoff;
	cut_min = dexp;
	if (total_min >= 0 && dexp - total_min < cut_min)
		cut_min = dexp - total_min;
	if (frac_min >= 0 && -frac_min < cut_min)
		cut_min = -frac_min;
	*exp10 = dexp - 1;

	for (;;) {
		dexp--;
		digit = bn_digit(&value, &scale);
		bn_add(&vhigh, &value, &mhigh);
		/* A decimal exactly on a midpoint reads back as this value only
		 * when ties go its way, i.e. when its significand is even. */
		low = bn_cmp(&value, &mlow) < even;
		high = bn_cmp(&vhigh, &scale) > -even;
		if (((low || high) && dexp <= cut_min) || dexp == cut_max)
			break;
		buf[n++] = (char)('0' + digit);
		bn_mul_small(&value, 10);
		bn_mul_small(&mlow, 10);
		mhigh = mlow;
		if (unequal)
			bn_shl(&mhigh, 1);
	}
	/* The last digit: toward whichever neighbour stays inside, else the
	 * nearer one, ties to even. */
	round_down = low;
	if (low == high) {
		int c;

		bn_mul_small(&value, 2);
		c = bn_cmp(&value, &scale);
		round_down = c < 0 || (c == 0 && (digit & 1) == 0);
	}
	if (round_down) {
		buf[n++] = (char)('0' + digit);
	} else if (digit < 9) {
		buf[n++] = (char)('0' + digit + 1);
	} else {
		/* Carry through trailing nines, maybe to a new leading 1. */
		for (;;) {
			if (n == 0) {
				buf[n++] = '1';
				++*exp10;
				break;
			}
			if (buf[--n] != '9') {
				buf[n++]++;
				break;
			}
		}
	}
	return n;
}
