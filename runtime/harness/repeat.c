/* repeat.c: `kdslc run ... --repeat N`, the harness's timing mode (used by
 * bench/run.sh to compare -O0 with -O1).  The kernel runs N more times
 * after the normal run; before each run the tensors get back the values
 * they had before the first one (untimed), so every run does the same
 * work and the printed results stay those of the first run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness_internal.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int kdsl_harness_repeat(const kdsl_kernel_info *k, kdsl_rt *rt, void *const *tensors,
                        void *const *initial, const size_t *bytes, const int64_t *scalars, long n)
{
	double *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1));
	long r;
	int i, rc = 0;

	if (!t)
		return -1;
	for (r = 0; r < n && !rc; r++) {
		double t0;
		for (i = 0; i < k->nparam; i++)
			if (initial[i])
				memcpy(tensors[i], initial[i], bytes[i]);
		t0 = now_ns();
		rc = k->call(rt, (void **)tensors, scalars);
		t[r] = now_ns() - t0;
	}
	if (!rc && n > 0) {
		qsort(t, (size_t)n, sizeof *t, cmp_double);
		printf("time: kernel %s: median %.0f ns, min %.0f, max %.0f over %ld runs\n", k->name,
		       t[n / 2], t[0], t[n - 1], n);
	}
	free(t);
	return rc;
}
