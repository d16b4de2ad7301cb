/* two_runtimes.c: runtimes used from two threads at once (docs/language.md,
 * "Threads").  Each thread owns its runtimes
 * and its arrays and runs seed 001's ascend kernel and the neuron
 * shuffles (whose plans each runtime caches) many times, with the
 * uninitialised-read check on in one of them; tsan_two_runtimes.test
 * builds this and the runtime's sources under ThreadSanitizer, which
 * reports any state the two runtimes share unsynchronised.  Each thread
 * checks every result against the same computation done alone first. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ascend.h"
#include "neuron.h"

enum { ROUNDS = 200 };

/* The neuron kernels' inputs, filled before the threads start (which
 * orders the writes before their reads) and only read by them. */
static float in_a[128 * 64], in_a2[32 * 16];

typedef struct {
	int check;       /* the uninit check on in this thread's runtimes */
	int failures;
	float want_swap[128 * 64], want_rot[32 * 16];
	kdsl_f16 want_move[23];
} job;

/* One round on ra (ascend) and rn (neuron): 0 when the results are the
 * expected ones (with store, it records them as the expected ones). */
static int round_once(kdsl_rt *ra, kdsl_rt *rn, job *j, int store)
{
	kdsl_f16 src[23], dst[23];
	float b[128 * 64], b2[32 * 16];

	for (int i = 0; i < 23; i++)
		src[i] = kdsl_f32_to_f16((float)i);
	if (data_move_unaligned(ra, src, dst) || swap_pairs(rn, in_a, b) || rotate_quadrant(rn, in_a2, b2))
		return 1;
	if (store) {
		memcpy(j->want_move, dst, sizeof dst);
		memcpy(j->want_swap, b, sizeof b);
		memcpy(j->want_rot, b2, sizeof b2);
		return 0;
	}
	return memcmp(j->want_move, dst, sizeof dst) || memcmp(j->want_swap, b, sizeof b) ||
	       memcmp(j->want_rot, b2, sizeof b2);
}

static void *worker(void *arg)
{
	job *j = arg;
	kdsl_rt *ra = kdsl_rt_create(KDSL_TARGET_ASCEND), *rn = kdsl_rt_create(KDSL_TARGET_NEURON);

	if (!ra || !rn) {
		j->failures = -1;
	} else {
		if (j->check && (kdsl_rt_set_check(ra, KDSL_CHECK_UNINIT) || kdsl_rt_set_check(rn, KDSL_CHECK_UNINIT)))
			j->failures = -1;
		for (int r = 0; r < ROUNDS; r++)
			j->failures += round_once(ra, rn, j, 0);
	}
	kdsl_rt_destroy(ra);
	kdsl_rt_destroy(rn);
	return NULL;
}

int main(void)
{
	static job jobs[2];
	pthread_t t[2];
	kdsl_rt *ra = kdsl_rt_create(KDSL_TARGET_ASCEND), *rn = kdsl_rt_create(KDSL_TARGET_NEURON);

	for (int i = 0; i < 128 * 64; i++)
		in_a[i] = (float)i;
	for (int i = 0; i < 32 * 16; i++)
		in_a2[i] = (float)(i * 3);
	if (!ra || !rn || round_once(ra, rn, &jobs[0], 1))
		return 1;
	kdsl_rt_destroy(ra);
	kdsl_rt_destroy(rn);
	jobs[1] = jobs[0];
	jobs[1].check = 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &jobs[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("thread 0: %d failures, thread 1: %d failures, %d rounds each\n", jobs[0].failures, jobs[1].failures,
	       ROUNDS);
	return jobs[0].failures || jobs[1].failures;
}
