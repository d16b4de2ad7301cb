/* fill.c: the values `kdslc run` gives parameters: iota, zeros, ones, a
 * constant, or a seeded pseudo-random pattern.  random[:seed] draws from
 * splitmix64 started at the seed (0 by default), one draw per element in
 * flat order, so a seed always yields the same tensor: floats uniform in
 * [-10, 10) rounded to the dtype, integers uniform in 0..99 (small enough
 * for every integer dtype and easy to read), bool 0 or 1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int is_float(kdsl_dtype dt)
{
	return dt == KDSL_F16 || dt == KDSL_BF16 || dt == KDSL_F32;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

int kdsl_fill_parse(const char *spec, kdsl_fill *out)
{
	char *end;

	memset(out, 0, sizeof *out);
	if (!strcmp(spec, "iota")) {
		out->kind = KDSL_FILL_IOTA;
	} else if (!strcmp(spec, "zeros")) {
		out->kind = KDSL_FILL_ZEROS;
	} else if (!strcmp(spec, "ones")) {
		out->kind = KDSL_FILL_ONES;
	} else if (!strncmp(spec, "random", 6) && (spec[6] == '\0' || spec[6] == ':')) {
		out->kind = KDSL_FILL_RANDOM;
		if (spec[6] == ':') {
			errno = 0;
			out->seed = strtoull(spec + 7, &end, 10);
			if (end == spec + 7 || *end || errno || spec[7] == '-')
				return -1;
		}
	} else if (ends_with(spec, ".npy")) {
		out->kind = KDSL_FILL_FILE;
		out->path = spec;
	} else {
		out->kind = KDSL_FILL_NUMBER;
		errno = 0;
		out->ival = strtoll(spec, &end, 0);
		out->is_int = end != spec && *end == '\0' && errno == 0;
		out->is_big = 0;
		/* above INT64_MAX: a u64's upper half, kept as its bits */
		if (end != spec && *end == '\0' && errno == ERANGE && spec[0] != '-') {
			errno = 0;
			uint64_t u = strtoull(spec, &end, 0);
			if (*end == '\0' && errno == 0) {
				out->ival = (int64_t)u;
				out->is_int = out->is_big = 1;
			}
		}
		out->number = strtod(spec, &end);
		if (end == spec || *end)
			return -1;
		if (out->is_int)
			out->number = out->is_big ? (double)(uint64_t)out->ival : (double)out->ival;
	}
	return 0;
}

void kdsl_fill_tensor(const kdsl_fill *f, kdsl_dtype dt, size_t count, void *data)
{
	size_t size = kdsl_dtype_size(dt), i;
	unsigned char *p = data;
	uint64_t s = f->seed;

	switch (f->kind) {
	case KDSL_FILL_ZEROS:
		/* All-zero bits are zero in every dtype, +0.0 for floats. */
		memset(data, 0, count * size);
		break;
	case KDSL_FILL_IOTA:
		for (i = 0; i < count; i++, p += size)
			if (is_float(dt) || dt == KDSL_BOOL)
				kdsl_dtype_store(dt, p, (double)i);
			else
				kdsl_dtype_store_bits(dt, p, (uint64_t)i);
		break;
	case KDSL_FILL_ONES:
	case KDSL_FILL_NUMBER:
		for (i = 0; i < count; i++, p += size)
			if (f->kind == KDSL_FILL_NUMBER && f->is_int && !is_float(dt) && dt != KDSL_BOOL)
				kdsl_dtype_store_bits(dt, p, (uint64_t)f->ival);
			else
				kdsl_dtype_store(dt, p, f->kind == KDSL_FILL_ONES ? 1.0 : f->number);
		break;
	case KDSL_FILL_RANDOM:
		for (i = 0; i < count; i++, p += size) {
			uint64_t r = splitmix64(&s);

			if (is_float(dt))
				kdsl_dtype_store(dt, p, -10.0 + 20.0 * ((double)(r >> 11) * 0x1p-53));
			else if (dt == KDSL_BOOL)
				kdsl_dtype_store(dt, p, (double)(r & 1));
			else
				kdsl_dtype_store_bits(dt, p, r % 100);
		}
		break;
	case KDSL_FILL_FILE:
		break;
	}
}

int kdsl_fill_scalar(const kdsl_fill *f, int64_t *out)
{
	uint64_t s = f->seed;

	switch (f->kind) {
	case KDSL_FILL_ZEROS:
		*out = 0;
		return 0;
	case KDSL_FILL_ONES:
		*out = 1;
		return 0;
	case KDSL_FILL_RANDOM:
		*out = (int64_t)(splitmix64(&s) % 100);
		return 0;
	case KDSL_FILL_NUMBER:
		if (!f->is_int)
			return -1;
		*out = f->ival;
		return 0;
	default:
		return -1;
	}
}
