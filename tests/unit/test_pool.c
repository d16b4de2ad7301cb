/* test_pool.c: the runtime's worker pool (runtime/pool.c), which
 * nc_matmul's column split runs on: every part of every run computed
 * exactly once, whoever takes it; runs after the workers went to sleep;
 * parts that really run at the same time; creation bounds and destroying
 * a pool in each state. */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "../check_run.h"

enum { MAXP = 64 };

typedef struct {
	atomic_int count[MAXP];
	atomic_int arrived;
	atomic_int order_bad;
	int last;
} tally;

static void count_part(void *arg, int i)
{
	tally *t = arg;
	atomic_fetch_add(&t->count[i], 1);
}

static void ordered_part(void *arg, int i)
{
	tally *t = arg;
	if (i != t->last + 1)
		atomic_store(&t->order_bad, 1);
	t->last = i;
}

static void reset(tally *t)
{
	for (int i = 0; i < MAXP; i++)
		atomic_store(&t->count[i], 0);
	atomic_store(&t->arrived, 0);
	atomic_store(&t->order_bad, 0);
	t->last = -1;
}

static void nap_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&d, NULL);
}

/* Runs `parts` counting parts and checks each ran once. */
static void run_once_each(kdsl_pool *p, tally *t, int parts)
{
	reset(t);
	kdsl_pool_run(p, parts, count_part, t);
	for (int i = 0; i < MAXP; i++)
		ck_assert_int_eq(atomic_load(&t->count[i]), i < parts ? 1 : 0);
}

START_TEST(every_part_once)
{
	static tally t;
	kdsl_pool *p = kdsl_pool_create(3);

	ck_assert_ptr_nonnull(p);
	/* back to back, so late workers meet the next run's word */
	for (int r = 0; r < 3000; r++)
		run_once_each(p, &t, 1 + r % MAXP);
	kdsl_pool_destroy(p);
}
END_TEST

START_TEST(runs_after_sleep)
{
	static tally t;
	kdsl_pool *p = kdsl_pool_create(2);

	ck_assert_ptr_nonnull(p);
	for (int r = 0; r < 5; r++) {
		run_once_each(p, &t, 8);
		nap_ms(3);   /* past the spin (pool.c's POOL_SPIN_NS): the workers sleep */
	}
	kdsl_pool_destroy(p);   /* joins sleeping workers */
}
END_TEST

START_TEST(no_pool_in_order)
{
	static tally t;

	reset(&t);
	kdsl_pool_run(NULL, 17, ordered_part, &t);
	ck_assert_int_eq(t.last, 16);
	ck_assert_int_eq(atomic_load(&t.order_bad), 0);
	/* one part runs on the caller even with a pool */
	kdsl_pool *p = kdsl_pool_create(1);
	ck_assert_ptr_nonnull(p);
	reset(&t);
	kdsl_pool_run(p, 1, ordered_part, &t);
	ck_assert_int_eq(t.last, 0);
	kdsl_pool_run(p, 0, ordered_part, &t);   /* nothing */
	ck_assert_int_eq(t.last, 0);
	kdsl_pool_destroy(p);
}
END_TEST

/* Each of two parts waits (up to 20 s) for the other to start: run in
 * turn on one thread, the first would time out. */
static void meet_part(void *arg, int i)
{
	tally *t = arg;
	struct timespec t0, now;

	(void)i;
	atomic_fetch_add(&t->arrived, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&t->arrived) < 2) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 20) {
			atomic_store(&t->order_bad, 1);
			return;
		}
		nap_ms(0);
	}
}

START_TEST(parts_run_together)
{
	static tally t;
	kdsl_pool *p;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;   /* one cpu: the pool starts no worker (pool.h) */
	p = kdsl_pool_create(1);
	ck_assert_ptr_nonnull(p);
	for (int r = 0; r < 3; r++) {
		reset(&t);
		kdsl_pool_run(p, 2, meet_part, &t);
		ck_assert_int_eq(atomic_load(&t.arrived), 2);
		ck_assert_int_eq(atomic_load(&t.order_bad), 0);
		nap_ms(r);   /* the worker spinning, then asleep */
	}
	kdsl_pool_destroy(p);
}
END_TEST

START_TEST(create_and_destroy)
{
	static tally t;

	ck_assert_ptr_null(kdsl_pool_create(0));
	ck_assert_ptr_null(kdsl_pool_create(64));
	kdsl_pool_destroy(NULL);
	kdsl_pool_destroy(kdsl_pool_create(63));   /* no worker started */
	kdsl_pool *p = kdsl_pool_create(63);
	ck_assert_ptr_nonnull(p);
	run_once_each(p, &t, 64);
	kdsl_pool_destroy(p);   /* the workers still spinning */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_part_once);
	tcase_add_test(tc, runs_after_sleep);
	tcase_add_test(tc, no_pool_in_order);
	tcase_add_test(tc, parts_run_together);
	tcase_add_test(tc, create_and_destroy);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
