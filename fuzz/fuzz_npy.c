/* fuzz_npy.c: the .npy reader (runtime/harness/npy.c) on hostile files.
 * An input is a request and a file: byte 0 picks the dtype asked for,
 * byte 1 the rank (0..3), then one byte per axis its extent (0..32), and
 * the rest is the .npy file, read from memory (fmemopen) into a buffer of
 * exactly the size requested, so ASan sees any write or read past it. */
#include <stdlib.h>
#include <string.h>

#include "harness_internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	kdsl_dtype dt = (kdsl_dtype)(data[0] % (KDSL_NDTYPE + 1));
	int rank = data[1] % 4;
	if (size <= 2 + (size_t)rank)
		return 0;   /* no file: fmemopen needs a byte */
	int64_t dims[3];
	size_t count = 1;
	for (int i = 0; i < rank; i++)
		count *= (size_t)(dims[i] = data[2 + i] % 33);
	size_t el = kdsl_dtype_size(dt), skip = 2 + (size_t)rank;
	size_t bytes = count * el;
	unsigned char *buf = malloc(bytes ? bytes : 1);
	FILE *f = fmemopen((void *)(uintptr_t)(data + skip), size - skip, "rb");
	if (!buf || !f)
		abort();
	char err[256];
	if (kdsl_npy_read_stream(f, "fuzz.npy", dt, rank, rank ? dims : NULL, buf, err, sizeof err) == 0)
		kdsl_fuzz_accepted++;
	else if (!err[0])
		abort();   /* a failure must say why */
	fclose(f);
	free(buf);
	return 0;
}
