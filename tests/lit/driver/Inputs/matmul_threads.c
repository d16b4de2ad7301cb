/* matmul_threads.c: nc_matmul's column split (kdsl_rt_set_threads) gives
 * the bytes of one thread.  Runs the tiled matmul example on one runtime
 * with 1 thread, then with 2, 3 and 64, on inputs with values whose sums
 * depend on their order, and compares every output byte;
 * tsan_matmul_threads.test builds it under ThreadSanitizer with the
 * runtime's own sources, which reports any data the threads of one
 * matmul share unsynchronised. */
#include <stdio.h>
#include <string.h>

#include "tiled.h"

static float lhsT[256 * 512], rhs[256 * 1024], want[512 * 1024], got[512 * 1024];

int main(void)
{
	static const int counts[] = {2, 3, 64};
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_NEURON);
	unsigned s = 12345;
	int bad = 0;

	if (!rt || kdsl_rt_threads(rt) != 1)
		return 1;
	for (int i = 0; i < 256 * 512; i++)
		lhsT[i] = (float)((s = s * 1103515245u + 12345u) >> 9) * 0x1p-22f - 1.0f;
	for (int i = 0; i < 256 * 1024; i++)
		rhs[i] = (float)((s = s * 1103515245u + 12345u) >> 9) * 0x1p-22f - 1.0f;
	if (nki_matmul_tiled(rt, lhsT, rhs, want))
		return 1;
	for (int c = 0; c < 3; c++) {
		memset(got, 0xff, sizeof got);
		if (kdsl_rt_set_threads(rt, counts[c]) || kdsl_rt_threads(rt) != counts[c] ||
		    nki_matmul_tiled(rt, lhsT, rhs, got))
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
