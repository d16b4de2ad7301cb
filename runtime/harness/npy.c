/* npy.c: numpy's .npy format (version 1.0 written; 1.0, 2.0 and 3.0
 * read).  The writer produces the bytes numpy 1.24's np.save does,
 * including the spare header room numpy leaves for growing the first
 * axis.  Data is written little-endian; a big-endian host swaps.  The
 * reader takes either byte order and Fortran (column-major) order, as
 * np.load does.  bf16, which numpy lacks, is stored as raw 2-byte
 * records: written '|V2' as numpy writes a 2-byte void, read from '|V2'
 * or '<V2' (ml_dtypes' bfloat16), little-endian either way. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"

#define NPY_ALIGN 64
#define GROWTH_DIGITS 21   /* numpy's GROWTH_AXIS_MAX_DIGITS */

static const char *descr_of(kdsl_dtype dt)
{
	switch (dt) {
	case KDSL_I8: return "|i1";
	case KDSL_I16: return "<i2";
	case KDSL_I32: return "<i4";
	case KDSL_I64: return "<i8";
	case KDSL_U8: return "|u1";
	case KDSL_U16: return "<u2";
	case KDSL_U32: return "<u4";
	case KDSL_U64: return "<u8";
	case KDSL_F16: return "<f2";
	case KDSL_BF16: return "|V2";   /* numpy's own descr of a 2-byte void */
	case KDSL_F32: return "<f4";
	case KDSL_BOOL: return "|b1";
	}
	return NULL;
}

static int host_is_big_endian(void)
{
	const uint16_t one = 1;
	unsigned char b;

	memcpy(&b, &one, 1);
	return b == 0;
}

/* Swaps each element's bytes in place (data of the other byte order). */
static void swap_elems(unsigned char *p, size_t n, size_t size)
{
	size_t i, j;

	if (size < 2)
		return;
	for (i = 0; i < n; i++, p += size)
		for (j = 0; j < size / 2; j++) {
			unsigned char t = p[j];
			p[j] = p[size - 1 - j];
			p[size - 1 - j] = t;
		}
}

/* Python's repr of a shape tuple: "()", "(23,)", "(126976, 2)". */
static void shape_repr(char *out, size_t n, int rank, const int64_t *dims)
{
	size_t k = 0;
	int i;

	k += (size_t)snprintf(out + k, n - k, "(");
	for (i = 0; i < rank && k < n; i++)
		k += (size_t)snprintf(out + k, n - k, i ? ", %lld" : "%lld", (long long)dims[i]);
	if (rank == 1 && k < n)
		k += (size_t)snprintf(out + k, n - k, ",");
	if (k < n)
		snprintf(out + k, n - k, ")");
}

static int elem_count(int rank, const int64_t *dims, size_t size, size_t *count)
{
	size_t c = 1;
	int i;

	for (i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return -1;
		if (dims[i] != 0 && c > SIZE_MAX / size / (size_t)dims[i])
			return -1;
		c *= (size_t)dims[i];
	}
	*count = c;
	return 0;
}

int kdsl_npy_write(const char *path, kdsl_dtype dt, int rank, const int64_t *dims, const void *data)
{
	const char *descr = descr_of(dt);
	size_t size = kdsl_dtype_size(dt), count, hlen, pad, ok;
	char shape[1024], first[32], *hdr;
	unsigned char pre[10];
	FILE *f;
	int n;

	/* errno says why to a caller that prints strerror, as fopen's does */
	if (!path || !descr || rank < 0 || rank > 32 || (rank && !dims) ||
	    elem_count(rank, dims, size, &count) || (count && !data)) {
		errno = EINVAL;
		return -1;
	}
	shape_repr(shape, sizeof shape, rank, dims);
	hdr = malloc(sizeof shape + 256);
	if (!hdr)
		return -1;
	n = snprintf(hdr, sizeof shape + 128,
	             "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
	hlen = (size_t)n;
	if (rank > 0) {
		size_t fl = (size_t)snprintf(first, sizeof first, "%lld", (long long)dims[0]);

		for (; fl < GROWTH_DIGITS; fl++)
			hdr[hlen++] = ' ';
	}
	/* Magic, version and length plus header and '\n' fill whole 64-byte
	 * blocks; numpy pads a full block when already aligned. */
	pad = NPY_ALIGN - ((10 + hlen + 1) % NPY_ALIGN);
	memset(hdr + hlen, ' ', pad);
	hlen += pad;
	hdr[hlen++] = '\n';
	memcpy(pre, "\x93NUMPY\x01\x00", 8);
	pre[8] = (unsigned char)(hlen & 0xff);
	pre[9] = (unsigned char)(hlen >> 8);
	f = fopen(path, "wb");
	if (!f) {
		free(hdr);
		return -1;
	}
	ok = fwrite(pre, 1, 10, f) == 10 && fwrite(hdr, 1, hlen, f) == hlen;
	free(hdr);
	if (ok && count) {
		if (host_is_big_endian() && size > 1) {
			unsigned char *tmp = malloc(count * size);

			ok = tmp != NULL;
			if (ok) {
				memcpy(tmp, data, count * size);
				swap_elems(tmp, count, size);
				ok = fwrite(tmp, size, count, f) == count;
				free(tmp);
			}
		} else {
			ok = fwrite(data, size, count, f) == count;
		}
	}
	if (fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* ---- reading ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The header text [p, end): every read checks end first, so a header cut
 * short anywhere (or holding a NUL) cannot lead a read past its buffer. */
typedef struct {
	const char *p, *end;
} cursor;

static void cur_ws(cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

/* Skips blanks, then consumes ch if it comes next. */
static int cur_eat(cursor *c, char ch)
{
	cur_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

/* A Python string literal quoted with ' or " (no escapes: numpy's keys and
 * descrs have none) into out (n bytes); -1 when unterminated or too long. */
static int cur_string(cursor *c, char *out, size_t n)
{
	size_t k = 0;
	char q;

	cur_ws(c);
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return -1;
	q = *c->p++;
	while (c->p < c->end && *c->p != q) {
		if (k + 1 >= n)
			return -1;
		out[k++] = *c->p++;
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	out[k] = '\0';
	return 0;
}

/* True or False into *b. */
static int cur_bool(cursor *c, int *b)
{
	size_t left;

	cur_ws(c);
	left = (size_t)(c->end - c->p);
	if (left >= 4 && !memcmp(c->p, "True", 4)) {
		c->p += 4;
		*b = 1;
		return 0;
	}
	if (left >= 5 && !memcmp(c->p, "False", 5)) {
		c->p += 5;
		*b = 0;
		return 0;
	}
	return -1;
}

/* A shape tuple "(2, 3)", "(23,)" or "()" of at most maxrank extents. */
static int cur_shape(cursor *c, int *rank, int64_t *dims, int maxrank)
{
	*rank = 0;
	if (!cur_eat(c, '('))
		return -1;
	while (!cur_eat(c, ')')) {
		int64_t v = 0;
		int digits = 0;

		while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
			if (v > (INT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (*c->p++ - '0');
			digits++;
		}
		if (!digits || *rank >= maxrank)
			return -1;
		dims[(*rank)++] = v;
		if (c->p < c->end && *c->p == 'L')   /* Python 2's long */
			c->p++;
		if (!cur_eat(c, ',')) {
			if (!cur_eat(c, ')'))
				return -1;
			break;
		}
	}
	return 0;
}

/* The header dict {'descr': S, 'fortran_order': B, 'shape': T}: each key
 * exactly once, in any order, no other keys (as numpy's reader wants). */
static int parse_header(const char *h, size_t hlen, char *descr, size_t dlen, int *fortran,
                        int *rank, int64_t *dims, int maxrank)
{
	cursor c = {h, h + hlen};
	int seen = 0;
	char key[32];

	if (!cur_eat(&c, '{'))
		return -1;
	while (!cur_eat(&c, '}')) {
		int bit, bad;

		if (cur_string(&c, key, sizeof key) || !cur_eat(&c, ':'))
			return -1;
		if (!strcmp(key, "descr")) {
			bit = 1;
			bad = cur_string(&c, descr, dlen);
		} else if (!strcmp(key, "fortran_order")) {
			bit = 2;
			bad = cur_bool(&c, fortran);
		} else if (!strcmp(key, "shape")) {
			bit = 4;
			bad = cur_shape(&c, rank, dims, maxrank);
		} else {
			return -1;
		}
		if (bad || (seen & bit))
			return -1;
		seen |= bit;
		if (!cur_eat(&c, ',')) {
			if (!cur_eat(&c, '}'))
				return -1;
			break;
		}
	}
	return seen == 7 ? 0 : -1;
}

/* Whether a file's descr holds dtype dt, and in which byte order: *swap
 * is set when the file's order differs from the host's.  The order is
 * '<', '>', '=' (native) or '|' (none: one-byte types, and bf16 as the
 * 2-byte void '|V2' numpy writes, whose bytes kdsl reads little-endian). */
static int descr_matches(const char *d, kdsl_dtype dt, int *swap)
{
	const char *want = descr_of(dt);
	size_t size = kdsl_dtype_size(dt);
	int big;

	*swap = 0;
	if (!want)
		return 0;
	if (dt == KDSL_BOOL && !strcmp(d, "?"))
		return 1;
	if (!d[0] || strcmp(d + 1, want + 1) != 0)
		return 0;
	if (size == 1)
		return strchr("<>|=", d[0]) != NULL;
	if (d[0] == '|')
		big = dt == KDSL_BF16 ? 0 : -1;
	else
		big = d[0] == '>' ? 1 : d[0] == '<' ? 0 : d[0] == '=' ? host_is_big_endian() : -1;
	if (big < 0 || (big && dt == KDSL_BF16))
		return 0;
	*swap = big != host_is_big_endian();
	return 1;
}

/* Column-major data (src) into row-major order (dst): the element at
 * index (i0, ..., ir-1) sits at sum(ik * dims[0] * ... * dims[k-1]). */
static void from_fortran(unsigned char *dst, const unsigned char *src, int rank,
                         const int64_t *dims, size_t count, size_t size)
{
	int64_t idx[KDSL_HARNESS_MAX_RANK] = {0};
	size_t n;
	int k;

	for (n = 0; n < count; n++) {
		size_t off = 0, stride = 1;

		for (k = 0; k < rank; k++) {
			off += (size_t)idx[k] * stride;
			stride *= (size_t)dims[k];
		}
		memcpy(dst + n * size, src + off * size, size);
		for (k = rank - 1; k >= 0 && ++idx[k] == dims[k]; k--)
			idx[k] = 0;
	}
}

int kdsl_npy_read(const char *path, kdsl_dtype dt, int rank, const int64_t *dims, void *data,
                  char *err, size_t errlen)
{
	if (!path)
		return fail(err, errlen, "kdsl_npy_read: no file name (NULL path)");
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	int rc = kdsl_npy_read_stream(f, path, dt, rank, dims, data, err, errlen);
	fclose(f);
	return rc;
}

int kdsl_npy_read_stream(FILE *f, const char *path, kdsl_dtype dt, int rank, const int64_t *dims, void *data,
                         char *err, size_t errlen)
{
	unsigned char pre[12], *col = NULL;
	size_t hlen, count, got, size = kdsl_dtype_size(dt);
	char *h = NULL, descr[64], want[256], have[256];
	int64_t fdims[KDSL_HARNESS_MAX_RANK];
	int frank, fortran, swap, i, differ, nonunit = 0, rc = -1;

	if (!path)
		path = "<stream>";
	if (!f)
		return fail(err, errlen, "%s: no stream", path);
	if (!descr_of(dt) || rank < 0 || rank > KDSL_HARNESS_MAX_RANK || (rank && !dims) ||
	    elem_count(rank, dims, size, &count))
		return fail(err, errlen, "%s: bad dtype or shape requested", path);
	if (count && !data)
		return fail(err, errlen, "%s: no buffer (NULL data) for %zu elements", path, count);
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
		fail(err, errlen, "%s: not a .npy file (bad magic)", path);
		goto out;
	}
	if (pre[6] == 1) {
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(pre + 10, 1, 2, f) != 2) {
			fail(err, errlen, "%s: truncated header", path);
			goto out;
		}
		hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
		       (size_t)pre[11] << 24;
	} else {
		fail(err, errlen, "%s: unsupported .npy version %d.%d", path, pre[6], pre[7]);
		goto out;
	}
	if (hlen > (1u << 24) || !(h = malloc(hlen ? hlen : 1))) {
		fail(err, errlen, "%s: header too large", path);
		goto out;
	}
	if (fread(h, 1, hlen, f) != hlen) {
		fail(err, errlen, "%s: truncated header", path);
		goto out;
	}
	if (parse_header(h, hlen, descr, sizeof descr, &fortran, &frank, fdims, KDSL_HARNESS_MAX_RANK)) {
		fail(err, errlen, "%s: malformed .npy header", path);
		goto out;
	}
	if (!descr_matches(descr, dt, &swap)) {
		fail(err, errlen, "%s: dtype '%s' does not match %s (expected '%s')",
		     path, descr, kdsl_dtype_name(dt), descr_of(dt));
		goto out;
	}
	/* the extents compared, not their text: a long shape's text is cut
	 * to the buffer, and two shapes must not match by their first 255
	 * characters */
	for (i = 0, differ = frank != rank; !differ && i < rank; i++)
		differ = fdims[i] != dims[i];
	if (differ) {
		shape_repr(want, sizeof want, rank, dims);
		shape_repr(have, sizeof have, frank, fdims);
		fail(err, errlen, "%s: shape %s does not match %s (expected %s)",
		     path, have, kdsl_dtype_name(dt), want);
		goto out;
	}
	for (i = 0; i < frank; i++)
		nonunit += fdims[i] > 1;
	/* Column-major order only matters when two axes have extent. */
	fortran = fortran && nonunit > 1;
	if (fortran && !(col = malloc(count * size))) {
		fail(err, errlen, "%s: out of memory", path);
		goto out;
	}
	got = count ? fread(fortran ? col : data, size, count, f) : 0;
	if (got != count) {
		fail(err, errlen, "%s: file ends after %zu of %zu elements", path, got, count);
		goto out;
	}
	if (fortran)
		from_fortran(data, col, rank, dims, count, size);
	if (swap)
		swap_elems(data, count, size);
	rc = 0;
	if (err && errlen)
		err[0] = '\0';
out:
	free(col);
	free(h);
	return rc;
}
