/* harness_internal.h: what the harness's files share and the library
 * does not export (it is built hidden: only kdsl_harness.h's KDSL_API
 * functions leave it).  The harness reaches the runtime through
 * kdsl_rt.h alone. */
#ifndef KDSL_HARNESS_INTERNAL_H
#define KDSL_HARNESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kdsl_harness.h"

/* Runs k n times, restoring each tensor i from initial[i] (bytes[i] long,
 * NULL for scalars) before each run, and prints the median time.  Returns
 * the first nonzero kernel status, -1 when out of memory, else 0. */
int kdsl_harness_repeat(const kdsl_kernel_info *k, kdsl_rt *rt, void *const *tensors,
                        void *const *initial, const size_t *bytes, const int64_t *scalars, long n);

/* Shortest digits that identify m*2^e among the values of its format,
 * numpy's Dragon4 (unique mode).  frac_cutoff >= 0 stops after that many
 * digits past the decimal point (positional printing); total_cutoff >= 0
 * stops after that many significant digits; min_* >= 0 forces at least
 * that many fraction / significant digits.  Writes the digits (no point)
 * to buf and returns their count; *exp10 is the power of ten of the first
 * digit. unequal: the gap below the value is half the gap above it. */
int kdsl_dragon4(uint64_t m, int e, int unequal,
                 int frac_cutoff, int total_cutoff,
                 int frac_min, int total_min,
                 char *buf, int bufsize, int *exp10);

/* kdsl_npy_read on an open stream (the .npy fuzz target reads memory
 * through fmemopen); path only names it in the messages. */
int kdsl_npy_read_stream(FILE *f, const char *path, kdsl_dtype dt, int rank, const int64_t *dims, void *data,
                         char *err, size_t errlen);

/* ---- parameter fills (fill.c) ---- */

typedef enum {
	KDSL_FILL_IOTA = 1, KDSL_FILL_ZEROS, KDSL_FILL_ONES, KDSL_FILL_RANDOM,
	KDSL_FILL_FILE, KDSL_FILL_NUMBER
} kdsl_fill_kind;

typedef struct {
	kdsl_fill_kind kind;
	uint64_t seed;          /* RANDOM */
	const char *path;       /* FILE */
	double number;          /* NUMBER */
	int is_int;             /* NUMBER written as an integer */
	int64_t ival;           /* NUMBER when is_int (its bits when is_big) */
	int is_big;             /* NUMBER an integer above INT64_MAX (a u64's) */
} kdsl_fill;

/* Parses iota|zeros|ones|random[:seed]|FILE.npy|NUMBER; 0 ok, -1 bad. */
int kdsl_fill_parse(const char *spec, kdsl_fill *out);
/* Fills count elements (every kind but FILE). */
void kdsl_fill_tensor(const kdsl_fill *f, kdsl_dtype dt, size_t count, void *data);
/* A scalar parameter's value; -1 when the kind makes no sense for one. */
int kdsl_fill_scalar(const kdsl_fill *f, int64_t *out);

#endif
