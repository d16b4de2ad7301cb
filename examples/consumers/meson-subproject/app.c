/* app.c: calls the kernel twice (twice.k), which kdslc compiled at build
 * time, and prints its output: 0 2 4 ... 62. */
#include <stdio.h>

#include "twice.h"

int main(void)
{
	kdsl_f16 src[32], dst[32];
	for (int i = 0; i < 32; i++)
		src[i] = kdsl_f32_to_f16((float)i);

	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	if (!rt) {
		fputs("out of memory\n", stderr);
		return 1;
	}
	if (twice(rt, src, dst) != KDSL_OK) {
		fprintf(stderr, "twice: %s\n", kdsl_rt_last_error(rt));
		kdsl_rt_destroy(rt);
		return 1;
	}
	for (int i = 0; i < 32; i++)
		printf("%g%c", kdsl_f16_to_f32(dst[i]), i == 31 ? '\n' : ' ');
	kdsl_rt_destroy(rt);
	return 0;
}
