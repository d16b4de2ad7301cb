/* npy.c: numpy's .npy format (version 1.0 written; 1.0, 2.0 and 3.0
 * read).  The writer produces the bytes numpy 1.24's np.save does,
 * including the spare header room numpy leaves for growing the first
 * axis.  Data is little-endian on disk; a big-endian host swaps.
 * bf16, which numpy lacks, is stored as raw 2-byte records ('<V2'). */
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
	case KDSL_BF16: return "<V2";
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

/* Swaps each element's bytes in place (only on big-endian hosts). */
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

	if (!descr || rank < 0 || rank > 32 || (rank && !dims) ||
	    elem_count(rank, dims, size, &count) || (count && !data))
		return -1;
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

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Finds the value of key in the header dict (quoted with ' or "). */
static const char *find_key(const char *h, const char *key)
{
	size_t kl = strlen(key);
	const char *p = h;

	while ((p = strstr(p, key)) != NULL) {
		if (p > h && (p[-1] == '\'' || p[-1] == '"') && p[kl] == p[-1]) {
			p = skip_ws(p + kl + 1);
			if (*p == ':')
				return skip_ws(p + 1);
		}
		p += kl;
	}
	return NULL;
}

static int parse_header(const char *h, char *descr, size_t dlen, int *fortran,
                        int *rank, int64_t *dims, int maxrank)
{
	const char *p;
	char q;
	size_t k = 0;

	if (!(p = find_key(h, "descr")) || (*p != '\'' && *p != '"'))
		return -1;
	q = *p++;
	while (*p && *p != q && k + 1 < dlen)
		descr[k++] = *p++;
	descr[k] = '\0';
	if (*p != q)
		return -1;
	if (!(p = find_key(h, "fortran_order")))
		return -1;
	if (!strncmp(p, "True", 4))
		*fortran = 1;
	else if (!strncmp(p, "False", 5))
		*fortran = 0;
	else
		return -1;
	if (!(p = find_key(h, "shape")) || *p != '(')
		return -1;
	p = skip_ws(p + 1);
	*rank = 0;
	while (*p != ')') {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || *rank >= maxrank)
			return -1;
		dims[(*rank)++] = v;
		p = end;
		if (*p == 'L')
			p++;
		p = skip_ws(p);
		if (*p == ',')
			p = skip_ws(p + 1);
		else if (*p != ')')
			return -1;
	}
	return 0;
}

/* Whether a file's descr holds dtype dt: byte order '<' (or '|', or '='
 * on a little-endian host) and numpy's type code. */
static int descr_matches(const char *d, kdsl_dtype dt)
{
	const char *want = descr_of(dt);
	size_t size = kdsl_dtype_size(dt);

	if (!want)
		return 0;
	if (dt == KDSL_BOOL && !strcmp(d, "?"))
		return 1;
	if (strcmp(d + (d[0] ? 1 : 0), want + 1) != 0)
		return 0;
	if (d[0] == '<')
		return 1;
	if (d[0] == '|' || d[0] == '>')
		return size == 1;
	if (d[0] == '=')
		return size == 1 || !host_is_big_endian();
	return 0;
}

int kdsl_npy_read(const char *path, kdsl_dtype dt, int rank, const int64_t *dims, void *data,
                  char *err, size_t errlen)
{
	unsigned char pre[12];
	size_t hlen, count, got, size = kdsl_dtype_size(dt);
	char *h = NULL, descr[64], want[256], have[256];
	int64_t fdims[64];
	int frank, fortran, i, nonunit = 0, rc = -1;
	FILE *f;

	if (!descr_of(dt) || rank < 0 || (rank && !dims) || elem_count(rank, dims, size, &count))
		return fail(err, errlen, "%s: bad dtype or shape requested", path);
	f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
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
	if (hlen > (1u << 24) || !(h = malloc(hlen + 1))) {
		fail(err, errlen, "%s: header too large", path);
		goto out;
	}
	if (fread(h, 1, hlen, f) != hlen) {
		fail(err, errlen, "%s: truncated header", path);
		goto out;
	}
	h[hlen] = '\0';
	if (parse_header(h, descr, sizeof descr, &fortran, &frank, fdims, 64)) {
		fail(err, errlen, "%s: malformed .npy header", path);
		goto out;
	}
	if (!descr_matches(descr, dt)) {
		fail(err, errlen, "%s: dtype '%s' does not match %s (expected '%s')",
		     path, descr, kdsl_dtype_name(dt), descr_of(dt));
		goto out;
	}
	shape_repr(want, sizeof want, rank, dims);
	shape_repr(have, sizeof have, frank, fdims);
	if (strcmp(want, have) != 0) {
		fail(err, errlen, "%s: shape %s does not match %s (expected %s)",
		     path, have, kdsl_dtype_name(dt), want);
		goto out;
	}
	for (i = 0; i < frank; i++)
		nonunit += fdims[i] > 1;
	/* Column-major order only matters when two axes have extent. */
	if (fortran && nonunit > 1) {
		fail(err, errlen, "%s: fortran_order arrays are not supported", path);
		goto out;
	}
	got = count ? fread(data, size, count, f) : 0;
	if (got != count) {
		fail(err, errlen, "%s: file ends after %zu of %zu elements", path, got, count);
		goto out;
	}
	if (host_is_big_endian() && descr[0] != '=')
		swap_elems(data, count, size);
	rc = 0;
	if (err && errlen)
		err[0] = '\0';
out:
	free(h);
	fclose(f);
	return rc;
}
