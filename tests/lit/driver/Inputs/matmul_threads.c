/* matmul_threads.c: nc_matmul's column split (kdsl_rt_set_threads) gives
 * the bytes of one thread.  Runs the psum double-buffer example (four
 * 128x128x512 matmuls, each split, then exp) on one runtime with 1
 * thread, then with 2, 3 and 64, on inputs with values whose sums depend
 * on their order, and compares every output byte;
 * tsan_matmul_threads.test builds it under ThreadSanitizer with the
 * runtime's own sources, which reports any data the threads of one
 * matmul share unsynchronised. */
#include <stdio.h>
#include <string.h>

#include "psum.h"

static float xT[128 * 128], w[128 * 2048], want[128 * 2048], got[128 * 2048];

int main(void)
{
	static const int counts[] = {2, 3, 64};
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	unsigned s = 12345;
	int bad = 0;

	if (!rt || kdsl_rt_threads(rt) != 1)
		return 1;
	/* in [-0.5, 0.5) with 23 random bits: exp of the sums stays finite */
	for (int i = 0; i < 128 * 128; i++)
		xT[i] = (float)((s = s * 1103515245u + 12345u) >> 9) * 0x1p-23f - 0.5f;
	for (int i = 0; i < 128 * 2048; i++)
		w[i] = (float)((s = s * 1103515245u + 12345u) >> 9) * 0x1p-23f - 0.5f;
	if (matmul_exp(rt, xT, w, want))
		return 1;
	for (int c = 0; c < 3; c++) {
		memset(got, 0xff, sizeof got);
		if (kdsl_rt_set_threads(rt, counts[c]) || kdsl_rt_threads(rt) != counts[c] ||
		    matmul_exp(rt, xT, w, got))
			return 1;
		if (memcmp(want, got, sizeof got)) {
			printf("%d threads: the bytes differ from 1 thread's\n", counts[c]);
			bad = 1;
		} else {
			printf("%d threads: the same bytes as 1 thread\n", counts[c]);
		}
	}
	kdsl_rt_destroy(rt);
	return bad;
}
