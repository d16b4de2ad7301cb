/* format.c: kdsl_format_array, numpy's str() of an array (numpy 1.24
 * defaults: linewidth 75, precision 8, floatmode 'maxprec', threshold
 * 1000, edgeitems 3, separator ' ').  The layout follows
 * numpy.core.arrayprint: one formatter is fitted to every element shown
 * (so columns align), then _formatArray wraps rows and nests brackets.
 * Float digits come from kdsl_dragon4, numpy's own algorithm, so float16
 * prints as numpy prints float16.  bf16, which numpy lacks, prints as a
 * float of its own precision. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"

#define LINEWIDTH 75
#define THRESHOLD 1000
#define EDGE 3
#define PRECISION 8

/* ---- growable string ---- */

typedef struct {
	char *s;
	size_t n, cap;
	int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (b->n + n + 1 > cap)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_spaces(sbuf *b, int n)
{
	for (; n > 0; n--)
		sb_put(b, " ", 1);
}

/* ---- one float element, decoded ---- */

enum { FINITE, INF, NAN_ };

typedef struct {
	int cls, neg;
	uint64_t m;       /* value = m * 2^e */
	int e, unequal;   /* unequal: gap below is half the gap above */
	double v;
} fval;

static fval decode_float(kdsl_dtype dt, const unsigned char *p)
{
	fval f;
	uint32_t bits, E, M;
	int tbits, bias, ebits;
	uint16_t h;

	if (dt == KDSL_F32) {
		memcpy(&bits, p, 4);
		tbits = 23, bias = 127, ebits = 8;
	} else {
		memcpy(&h, p, 2);
		bits = h;
		if (dt == KDSL_F16)
			tbits = 10, bias = 15, ebits = 5;
		else
			tbits = 7, bias = 127, ebits = 8;
	}
	f.neg = (int)(bits >> (tbits + ebits)) & 1;
	E = (bits >> tbits) & ((1u << ebits) - 1);
	M = bits & ((1u << tbits) - 1);
	f.cls = FINITE;
	if (E == (1u << ebits) - 1)
		f.cls = M ? NAN_ : INF;
	if (E == 0) {
		f.m = M;
		f.e = 1 - bias - tbits;
		f.unequal = 0;
	} else {
		f.m = M | (1u << tbits);
		f.e = (int)E - bias - tbits;
		f.unequal = M == 0 && E > 1;
	}
	f.v = f.cls == FINITE ? ldexp((double)f.m, f.e) : 0;
	if (f.neg)
		f.v = -f.v;
	return f;
}

/* The parts numpy's dragon4_positional / dragon4_scientific produce. */
typedef struct {
	char ip[48];     /* sign and integer part */
	char fp[64];     /* fraction digits */
	int nfp;
	int x;           /* scientific exponent */
} fparts;

/* trim_zeros: numpy's trim='.' (drop trailing fraction zeros);
 * otherwise trim='k' with zeros padded up to min_digits. */

/* Ends the fraction digits of o at k: numpy's unique mode trims trailing
 * zeros, its padded mode fills up to min_digits. */
static void end_fraction(fparts *o, int k, int trim_zeros, int min_digits)
{
	if (trim_zeros)
		while (k > 0 && o->fp[k - 1] == '0')
			k--;
	else
		while (k < min_digits && k < (int)sizeof o->fp - 1)
			o->fp[k++] = '0';
	o->fp[k] = '\0';
	o->nfp = k;
}
static void positional(const fval *f, int min_digits, int trim_zeros, fparts *o)
{
	char d[64];
	int n, x, i, k = 0, nip;

	n = kdsl_dragon4(f->m, f->e, f->unequal, PRECISION, -1, min_digits, -1,
	                 d, (int)sizeof d, &x);
	nip = 0;
	if (f->neg)
		o->ip[nip++] = '-';
	if (x >= 0) {
		for (i = 0; i <= x; i++)
			o->ip[nip++] = i < n ? d[i] : '0';
		for (i = x + 1; i < n; i++)
			o->fp[k++] = d[i];
	} else {
		o->ip[nip++] = '0';
		for (i = 0; i < -x - 1; i++)
			o->fp[k++] = '0';
		for (i = 0; i < n; i++)
			o->fp[k++] = d[i];
	}
	o->ip[nip] = '\0';
	end_fraction(o, k, trim_zeros, min_digits);
	o->x = 0;
}

static void scientific(const fval *f, int precision, int min_digits, int trim_zeros, fparts *o)
{
	char d[64];
	int n, x, i, k = 0, nip = 0;

	n = kdsl_dragon4(f->m, f->e, f->unequal, -1, precision + 1, -1,
	                 min_digits >= 0 ? min_digits + 1 : -1, d, (int)sizeof d, &x);
	if (f->neg)
		o->ip[nip++] = '-';
	o->ip[nip++] = d[0];
	o->ip[nip] = '\0';
	for (i = 1; i < n; i++)
		o->fp[k++] = d[i];
	end_fraction(o, k, trim_zeros, min_digits);
	o->x = x;
}

static int exp_len(int x)
{
	int n = 0;

	if (x < 0)
		x = -x;
	do {
		n++;
		x /= 10;
	} while (x);
	return n < 2 ? 2 : n;
}

/* "e+05": sign always, at least `digits` digits (numpy's exp_digits). */
static void put_exponent(sbuf *out, int x, int digits)
{
	char t[16];
	int n = exp_len(x), i, a = x < 0 ? -x : x;

	if (digits > n)
		n = digits;
	if (n > 12)
		n = 12;
	t[0] = 'e';
	t[1] = x < 0 ? '-' : '+';
	for (i = n - 1; i >= 0; i--, a /= 10)
		t[2 + i] = (char)('0' + a % 10);
	t[2 + n] = '\0';
	sb_puts(out, t);
}

/* ---- the formatter fitted to the shown elements ---- */

typedef struct {
	kdsl_dtype dt;
	size_t size;
	const unsigned char *data;
	int rank;
	const int64_t *dims;
	int summarize;
	/* floats (numpy's FloatingFormat) */
	int exp_format, pad_left, pad_right, precision, min_digits, exp_size;
	/* integers (IntegerFormat) */
	int width;
} fmt;

static int is_float(kdsl_dtype dt)
{
	return dt == KDSL_F16 || dt == KDSL_BF16 || dt == KDSL_F32;
}

static int is_signed(kdsl_dtype dt)
{
	return dt == KDSL_I8 || dt == KDSL_I16 || dt == KDSL_I32 || dt == KDSL_I64;
}

/* An integer element, both as signed and as unsigned. */
static void int_value(const fmt *F, const unsigned char *p, int64_t *s, uint64_t *u)
{
	switch (F->size) {
	case 1: { uint8_t v; memcpy(&v, p, 1); *u = v; *s = (int8_t)v; break; }
	case 2: { uint16_t v; memcpy(&v, p, 2); *u = v; *s = (int16_t)v; break; }
	case 4: { uint32_t v; memcpy(&v, p, 4); *u = v; *s = (int32_t)v; break; }
	default: memcpy(u, p, 8); *s = (int64_t)*u; break;
	}
}

static void int_text(const fmt *F, const unsigned char *p, char *out, size_t n)
{
	int64_t s;
	uint64_t u;

	int_value(F, p, &s, &u);
	if (is_signed(F->dt))
		snprintf(out, n, "%" PRId64, s);
	else
		snprintf(out, n, "%" PRIu64, u);
}

/* Calls fn on every element shown (all of them unless summarised). */
typedef void (*visit_fn)(fmt *F, const unsigned char *p, void *ctx);

static void visit(fmt *F, int axis, size_t flat, visit_fn fn, void *ctx)
{
	int64_t i, len;

	if (axis == F->rank) {
		fn(F, F->data + flat * F->size, ctx);
		return;
	}
	len = F->dims[axis];
	for (i = 0; i < len; i++) {
		if (F->summarize && len > 2 * EDGE && i == EDGE)
			i = len - EDGE;
		visit(F, axis + 1, flat * (size_t)len + (size_t)i, fn, ctx);
	}
}

typedef struct {
	int pass;          /* floats: 1 magnitudes, 2 digit widths */
	int any_finite, any_nonfinite, any_neginf, any_nonzero;
	double maxv, minv; /* of the nonzero finite magnitudes */
	int pad_left, pad_right, max_frac, max_exp;
	int any_int;
	int64_t smin, smax;
	uint64_t umin, umax;
} scan;

static void scan_float(fmt *F, const unsigned char *p, void *ctx)
{
	scan *S = ctx;
	fval f = decode_float(F->dt, p);
	fparts o;
	int l;

	if (f.cls != FINITE) {
		S->any_nonfinite = 1;
		if (f.cls == INF && f.neg)
			S->any_neginf = 1;
		return;
	}
	if (S->pass == 1) {
		double a = fabs(f.v);

		S->any_finite = 1;
		if (a == 0)
			return;
		if (!S->any_nonzero || a > S->maxv)
			S->maxv = a;
		if (!S->any_nonzero || a < S->minv)
			S->minv = a;
		S->any_nonzero = 1;
		return;
	}
	if (F->exp_format) {
		scientific(&f, PRECISION, -1, 1, &o);
		l = exp_len(o.x);
		if (l > S->max_exp)
			S->max_exp = l;
		if (o.nfp > S->max_frac)
			S->max_frac = o.nfp;
	} else {
		positional(&f, -1, 1, &o);
		if (o.nfp > S->pad_right)
			S->pad_right = o.nfp;
	}
	l = (int)strlen(o.ip);
	if (l > S->pad_left)
		S->pad_left = l;
}

/* max/min computed in the array's own dtype, as numpy divides them. */
static double ratio_in_dtype(kdsl_dtype dt, double a, double b)
{
	if (dt == KDSL_F32)
		return (double)((float)a / (float)b);
	if (dt == KDSL_F16)
		return kdsl_f16_to_f64(kdsl_f64_to_f16(a / b));
	return kdsl_bf16_to_f32(kdsl_f64_to_bf16(a / b));
}

static void fit_float(fmt *F)
{
	scan S;

	memset(&S, 0, sizeof S);
	S.pass = 1;
	visit(F, 0, 0, scan_float, &S);
	F->exp_format = 0;
	if (S.any_nonzero) {
		double mx = S.maxv, mn = S.minv;

		/* numpy 1.24 compares with Python floats, i.e. in double. */
		if (mx >= 1e8 || mn < 0.0001 || ratio_in_dtype(F->dt, mx, mn) > 1000.)
			F->exp_format = 1;
	}
	F->precision = PRECISION;
	F->min_digits = -1;
	F->exp_size = -1;
	F->pad_left = F->pad_right = 0;
	if (S.any_finite) {
		S.pass = 2;
		visit(F, 0, 0, scan_float, &S);
		F->pad_left = S.pad_left;
		if (F->exp_format) {
			F->exp_size = S.max_exp;
			F->precision = F->min_digits = S.max_frac;
			F->pad_right = F->exp_size + 2 + F->precision;
		} else {
			F->pad_right = S.pad_right;
			F->min_digits = 0;
		}
	}
	if (S.any_nonfinite) {
		int off = F->pad_right + 1;

		if (3 - off > F->pad_left)
			F->pad_left = 3 - off;
		if (3 + S.any_neginf - off > F->pad_left)
			F->pad_left = 3 + S.any_neginf - off;
	}
}

static void scan_int(fmt *F, const unsigned char *p, void *ctx)
{
	scan *S = ctx;
	int64_t s;
	uint64_t u;

	int_value(F, p, &s, &u);
	if (!S->any_int || s < S->smin)
		S->smin = s;
	if (!S->any_int || s > S->smax)
		S->smax = s;
	if (!S->any_int || u < S->umin)
		S->umin = u;
	if (!S->any_int || u > S->umax)
		S->umax = u;
	S->any_int = 1;
}

static void fit_int(fmt *F)
{
	scan S;
	char a[32], b[32];

	memset(&S, 0, sizeof S);
	visit(F, 0, 0, scan_int, &S);
	if (is_signed(F->dt)) {
		snprintf(a, sizeof a, "%" PRId64, S.smin);
		snprintf(b, sizeof b, "%" PRId64, S.smax);
	} else {
		snprintf(a, sizeof a, "%" PRIu64, S.umin);
		snprintf(b, sizeof b, "%" PRIu64, S.umax);
	}
	F->width = (int)(strlen(a) > strlen(b) ? strlen(a) : strlen(b));
}

/* One element, padded to the common width (numpy's format_function). */
static void element(const fmt *F, const unsigned char *p, sbuf *out)
{
	char t[32];
	fparts o;
	fval f;

	if (F->dt == KDSL_BOOL) {
		sb_puts(out, *p ? " True" : "False");
		return;
	}
	if (!is_float(F->dt)) {
		int_text(F, p, t, sizeof t);
		sb_spaces(out, F->width - (int)strlen(t));
		sb_puts(out, t);
		return;
	}
	f = decode_float(F->dt, p);
	if (f.cls != FINITE) {
		const char *r = f.cls == NAN_ ? "nan" : f.neg ? "-inf" : "inf";

		sb_spaces(out, F->pad_left + F->pad_right + 1 - (int)strlen(r));
		sb_puts(out, r);
		return;
	}
	if (F->exp_format) {
		scientific(&f, F->precision, F->min_digits, 0, &o);
		sb_spaces(out, F->pad_left - (int)strlen(o.ip));
		sb_puts(out, o.ip);
		sb_puts(out, ".");
		sb_puts(out, o.fp);
		put_exponent(out, o.x, F->exp_size);
		return;
	}
	positional(&f, F->min_digits, 1, &o);
	sb_spaces(out, F->pad_left - (int)strlen(o.ip));
	sb_puts(out, o.ip);
	sb_puts(out, ".");
	sb_puts(out, o.fp);
	sb_spaces(out, F->pad_right - o.nfp);
}

/* ---- layout: numpy's _formatArray with legacy=False ---- */

static void element_at(const fmt *F, size_t flat, sbuf *out)
{
	element(F, F->data + flat * F->size, out);
}

/* numpy's _extendLine: start a new line when the word would pass width,
 * unless the line holds nothing but the indent. */
static void extend_line(sbuf *s, sbuf *line, const char *word, int width, int indent)
{
	size_t wl = strlen(word);

	if (line->n + wl > (size_t)width && line->n > (size_t)indent) {
		size_t n = line->n;

		while (n > 0 && line->s[n - 1] == ' ')
			n--;
		sb_put(s, line->s, n);
		sb_puts(s, "\n");
		line->n = 0;
		sb_spaces(line, indent);
	}
	sb_puts(line, word);
}

static void recurse(const fmt *F, int axis, size_t flat, int indent, int width, sbuf *out);

static void row_word(const fmt *F, int axis, size_t flat, int64_t i, int indent, int width,
                     sbuf *word)
{
	word->n = 0;
	if (word->s)
		word->s[0] = '\0';
	recurse(F, axis + 1, flat * (size_t)F->dims[axis] + (size_t)i, indent, width, word);
	if (!word->s)
		sb_put(word, "", 0);
}

static void recurse(const fmt *F, int axis, size_t flat, int indent, int width, sbuf *out)
{
	int64_t len, i, lead, trail;
	sbuf s = {0}, line = {0}, word = {0};
	int show, left = F->rank - axis, k;

	if (left == 0) {
		element_at(F, flat, out);
		return;
	}
	len = F->dims[axis];
	show = F->summarize && len > 2 * EDGE;
	lead = show ? EDGE : 0;
	trail = show ? EDGE : len;
	if (left == 1) {
		/* The last axis: elements flow along a line and wrap; the width
		 * keeps one column for the separator or the closing bracket. */
		int ew = width - 1;

		sb_spaces(&line, indent);
		for (i = 0; i < lead; i++) {
			row_word(F, axis, flat, i, indent + 1, width - 1, &word);
			extend_line(&s, &line, word.s, ew, indent);
			sb_puts(&line, " ");
		}
		if (show) {
			extend_line(&s, &line, "...", ew, indent);
			sb_puts(&line, " ");
		}
		for (i = trail; i > 1; i--) {
			row_word(F, axis, flat, len - i, indent + 1, width - 1, &word);
			extend_line(&s, &line, word.s, ew, indent);
			sb_puts(&line, " ");
		}
		row_word(F, axis, flat, len - 1, indent + 1, width - 1, &word);
		extend_line(&s, &line, word.s, ew, indent);
		sb_put(&s, line.s, line.n);
	} else {
		/* Outer axes: one sub-array per line, separated by as many
		 * newlines as axes remain below. */
		for (i = 0; i < lead + show + trail; i++) {
			int64_t j = i < lead ? i : len - (lead + show + trail - i);

			sb_spaces(&s, indent);
			if (show && i == lead) {
				sb_puts(&s, "...");
			} else {
				row_word(F, axis, flat, j, indent + 1, width - 1, &word);
				sb_puts(&s, word.s);
			}
			if (i + 1 < lead + show + trail)
				for (k = 1; k < left; k++)
					sb_puts(&s, "\n");
		}
	}
	/* The first hanging indent gives way to the opening bracket. */
	sb_puts(out, "[");
	if (s.n > (size_t)indent)
		sb_put(out, s.s + indent, s.n - (size_t)indent);
	sb_puts(out, "]");
	if (s.oom || line.oom || word.oom)
		out->oom = 1;
	free(s.s);
	free(line.s);
	free(word.s);
}

char *kdsl_format_array(kdsl_dtype dt, int rank, const int64_t *dims, const void *data)
{
	fmt F;
	sbuf out = {0};
	size_t total = 1, limit;
	int i, empty = 0;

	memset(&F, 0, sizeof F);
	F.dt = dt;
	F.size = kdsl_dtype_size(dt);
	F.data = data;
	F.rank = rank;
	F.dims = dims;
	/* the recursion is one level per axis: a rank from nowhere must not
	 * run the stack out */
	if (F.size == 0 || rank < 0 || rank > KDSL_HARNESS_MAX_RANK || (rank > 0 && !dims))
		return NULL;
	/* an array of more bytes than the address space cannot be in memory,
	 * and the flat indices below would wrap (empty arrays have any
	 * extents: numpy prints [] for shape (0, 2**62)) */
	limit = SIZE_MAX / F.size;
	for (i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return NULL;
		empty |= dims[i] == 0;
	}
	for (i = 0; i < rank && !empty; i++) {
		if ((uint64_t)dims[i] > limit / total)
			return NULL;
		total *= (size_t)dims[i];
	}
	if (empty) {
		sb_puts(&out, "[]");
		return out.s;
	}
	if (!data)
		return NULL;
	F.summarize = total > THRESHOLD;
	if (is_float(dt))
		fit_float(&F);
	else if (dt != KDSL_BOOL)
		fit_int(&F);
	/* Rank 0 prints the bare element, as numpy prints a 0-d array. */
	recurse(&F, 0, 0, 1, LINEWIDTH, &out);
	if (out.oom) {
		free(out.s);
		return NULL;
	}
	return out.s;
}
