/* app.c: a C application that embeds a kdsl kernel, seed 001's example 2
 * (examples/ascend_data_move_unaligned.k): given 0, 1, ..., 22 it prints
 * 0 2 4 ... 44.
 *
 * README.md's "Embedding" gives the commands that build it, installed and
 * from the build tree (tests/lit/driver/embed.test runs them). */
#include <stdio.h>

#include "kernel.h"

int main(void)
{
	kdsl_f16 src[23], dst[23];
	for (int i = 0; i < 23; i++)
		src[i] = kdsl_f32_to_f16((float)i);

	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	if (!rt) {
		fputs("out of memory\n", stderr);
		return 1;
	}
	int err = data_move_unaligned(rt, src, dst);
	if (err != KDSL_OK) {
		fprintf(stderr, "kernel failed: %s\n", kdsl_rt_last_error(rt));
		kdsl_rt_destroy(rt);
		return 1;
	}
	for (int i = 0; i < 23; i++)
		printf("%g%c", kdsl_f16_to_f32(dst[i]), i == 22 ? '\n' : ' ');
	kdsl_rt_destroy(rt);
	return 0;
}
