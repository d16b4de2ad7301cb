/* kdsl_harness.h: the driver behind `kdslc run`.  kdslc emits a table of
 * the kernels in a file and a main() that hands it to kdsl_harness_main,
 * which fills the parameters, runs each kernel and prints the tensors. */
#ifndef KDSL_HARNESS_H
#define KDSL_HARNESS_H

#include "kdsl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most axes an array has here (numpy 2's NPY_MAXDIMS): the .npy
 * reader and the printer refuse more. */
#define KDSL_HARNESS_MAX_RANK 64

typedef struct {
	const char *name;
	kdsl_dtype dtype;
	int is_tensor;
	int is_written;          /* the kernel writes it (not const) */
	int rank;
	const int64_t *dims;     /* rank extents */
} kdsl_param_info;

/* tensors[i] is the buffer of param i when it is a tensor (NULL otherwise);
 * scalars[i] its value when it is a scalar. */
typedef int (*kdsl_kernel_fn)(kdsl_rt *rt, void *const *tensors, const int64_t *scalars);

typedef struct {
	const char *name;
	kdsl_target target;
	int nparam;
	const kdsl_param_info *params;
	kdsl_kernel_fn call;
} kdsl_kernel_info;

/* argv: [--arg NAME=iota|zeros|ones|random[:seed]|FILE.npy|INTEGER]...
 *       [--out DIR] [--kernel NAME] [--quiet] [--repeat N] [--check-uninit]
 * Returns the process exit status: 0 ok, 1 a kernel failed, 2 bad usage
 * or I/O, and 2 with "error: ..." on stderr for a bad call: argc < 0, a
 * NULL argv or argv[i], nkernel < 0, NULL kernels, or a table entry
 * without a name, a call, or params for its nparam (>= 0), a parameter
 * without a name, a tensor of rank outside 0..KDSL_HARNESS_MAX_RANK or
 * without dims.  Checked before anything runs. */
KDSL_API int kdsl_harness_main(int argc, char **argv, const kdsl_kernel_info *kernels, int nkernel);

/* Pieces of the harness, public for tests and embedders. */
/* numpy's str() of an array: "[0. 2. 4.]", wrapped at 75 columns, with
 * "..." summarising arrays of more than 1000 elements. Returns malloc'd text;
 * NULL when out of memory, for a dt outside kdsl_dtype, a rank outside
 * 0..KDSL_HARNESS_MAX_RANK, NULL dims (rank > 0), a negative extent,
 * more bytes than size_t counts, or NULL data (an empty array prints
 * "[]" without it). */
KDSL_API char *kdsl_format_array(kdsl_dtype dt, int rank, const int64_t *dims, const void *data);
/* Writes data as a version 1.0 .npy; 0 ok, -1 with errno set (EINVAL for
 * a NULL path, a dt outside kdsl_dtype, a rank outside 0..32, NULL dims
 * or data where needed, a negative or overflowing shape). */
KDSL_API int kdsl_npy_write(const char *path, kdsl_dtype dt, int rank, const int64_t *dims, const void *data);
/* Reads an .npy whose dtype and shape must match exactly; 0 ok, else -1 with
 * a message in err (errlen bytes; err may be NULL or errlen 0 for none):
 * also for a NULL path, a bad dt, rank or shape, or NULL data for a
 * non-empty array.  data is written only once the header matched. */
KDSL_API int kdsl_npy_read(const char *path, kdsl_dtype dt, int rank, const int64_t *dims, void *data,
                           char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
