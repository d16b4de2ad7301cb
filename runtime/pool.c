/* pool.c: the worker threads of pool.h.
 *
 * One 64-bit atomic word says what is to be done: the run's number
 * (gen), its part count and the next part to take.  The caller of a run
 * writes fn and arg, then stores the word with a new gen; every taker
 * (worker or caller) does one fetch-add on the word and computes the
 * part the old value names, if it is below the count.  That fetch-add is
 * an acquire of the caller's store, so fn and arg are seen as written;
 * and it reads gen and count from the same word, so a worker late for
 * one run takes a part of the next one correctly, or none, and never
 * reads fn or arg of a run whose parts are all taken (the caller may be
 * writing the next run's).  A part's end is counted in `done`; the caller
 * returns once done reaches the count, so fn and arg stay until every
 * part that read them has returned. */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include "kdsl_rt.h"
#include "pool.h"

/* gen (24 bits) | parts (8) | next (32); parts <= 64, and next passes the
 * count by at most one per taker, so the fields never spill. */
#define POOL_WORD(gen, parts) (((uint64_t)(gen) << 40) | ((uint64_t)(parts) << 32))
#define POOL_GEN(w) ((uint32_t)((w) >> 40))
#define POOL_PARTS(w) ((int)(((w) >> 32) & 0xff))
#define POOL_NEXT(w) ((uint32_t)(w))

/* a worker per thread but the caller's (kdsl_rt_set_threads' range) */
enum { POOL_MAX = KDSL_RT_MAX_THREADS - 1 };
_Static_assert(KDSL_RT_MAX_THREADS <= 0xff, "a run's part count must fit the word's 8 bits");

/* How long a worker spins for the next run before it sleeps: longer than
 * the ops between two split ops of the tutorial kernels, short enough to
 * cost little when the kernel has ended.  Waking a sleeping worker takes
 * tens of microseconds on a virtual machine, which is what the spin
 * saves.  It was 0.25 ms until 2026-12-07: nki_causal_mask.k goes
 * 250-300 us from one call's last split matmul to the next call's first
 * (its loads and two unsplit transposes between), and on the 2-vCPU VM
 * the worker was asleep at 9-184 of a process's 602 splits, the caller
 * then waiting up to 30 us a split on average; at 1 ms, at 0 or 1 of
 * them.  The whole process moved less than that VM's noise (11
 * alternating pairs of 1000 calls: 1.015x). */
#define POOL_SPIN_NS 1000000

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define POOL_PAUSE() __builtin_ia32_pause()
#elif defined(__GNUC__) && defined(__aarch64__)
#define POOL_PAUSE() __asm__ __volatile__("yield")
#else
#define POOL_PAUSE() ((void)0)
#endif

struct kdsl_pool {
	_Atomic uint64_t word;   /* see above */
	atomic_int done;         /* parts of the current run that returned */
	atomic_int sleeping;     /* workers in (or entering) the condition wait */
	atomic_int stop;         /* set by kdsl_pool_destroy */
	kdsl_pool_fn fn;         /* the current run's, written before word */
	void *arg;
	uint32_t gen;            /* the caller's: the last run's number */
	int max, started, failed;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid[POOL_MAX];
};

static int64_t pool_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Takes and computes parts of whichever run the word names until none
 * is left; returns the gen it ended on. */
static uint32_t pool_take(kdsl_pool *p)
{
	for (;;) {
		uint64_t w = atomic_fetch_add_explicit(&p->word, 1, memory_order_acq_rel);
		if ((int64_t)POOL_NEXT(w) >= POOL_PARTS(w))
			return POOL_GEN(w);
		p->fn(p->arg, (int)POOL_NEXT(w));
		atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
	}
}

/* Waits until the word's gen is not `seen` or the pool stops: spinning
 * first, then on the condition variable.  The sleeping count and the
 * word are both seq_cst on each side, so either the worker sees the new
 * gen or kdsl_pool_run sees the sleeper and broadcasts under the mutex
 * the worker holds until it waits. */
static void pool_wait(kdsl_pool *p, uint32_t seen)
{
	int64_t t0 = pool_ns();

	for (unsigned i = 1;; i++) {
		if (POOL_GEN(atomic_load_explicit(&p->word, memory_order_relaxed)) != seen ||
		    atomic_load_explicit(&p->stop, memory_order_relaxed))
			return;
		POOL_PAUSE();
		if (i % 256 == 0) {
			int64_t el = pool_ns() - t0;
			if (el < 0 || el > POOL_SPIN_NS)
				break;
			sched_yield();   /* a thread this one keeps off its cpu */
		}
	}
	pthread_mutex_lock(&p->mu);
	atomic_fetch_add(&p->sleeping, 1);
	while (POOL_GEN(atomic_load(&p->word)) == seen && !atomic_load(&p->stop))
		pthread_cond_wait(&p->cv, &p->mu);
	atomic_fetch_sub(&p->sleeping, 1);
	pthread_mutex_unlock(&p->mu);
}

static void *pool_worker(void *v)
{
	kdsl_pool *p = v;
	uint32_t seen = 0;   /* gen 0 is never a run: a new worker looks at once */

	while (!atomic_load(&p->stop)) {
		pool_wait(p, seen);
		if (atomic_load(&p->stop))
			break;
		seen = pool_take(p);
	}
	return NULL;
}

kdsl_pool *kdsl_pool_create(int workers)
{
	kdsl_pool *p;

	if (workers < 1 || workers > POOL_MAX || !(p = calloc(1, sizeof *p)))
		return NULL;
	if (pthread_mutex_init(&p->mu, NULL)) {
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->cv, NULL)) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	atomic_init(&p->word, POOL_WORD(0, 0));
	atomic_init(&p->done, 0);
	atomic_init(&p->sleeping, 0);
	atomic_init(&p->stop, 0);
	p->max = workers;
#ifdef _SC_NPROCESSORS_ONLN
	{
		/* more threads than cpus only take turns: one per cpu, the caller's included */
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		if (cpus >= 1 && cpus - 1 < p->max)
			p->max = (int)(cpus - 1);
	}
#endif
	return p;
}

void kdsl_pool_destroy(kdsl_pool *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, 1);
	pthread_mutex_lock(&p->mu);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->tid[i], NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* Starts workers up to `want` (at most max); a thread that cannot start
 * is not tried again (its parts run on the threads there are).  Workers
 * block every signal, so the embedding program's handlers run on its own
 * threads. */
static void pool_grow(kdsl_pool *p, int want)
{
	sigset_t all, old;

	if (want > p->max)
		want = p->max;
	if (p->failed || p->started >= want)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (p->started < want) {
		if (pthread_create(&p->tid[p->started], NULL, pool_worker, p)) {
			p->failed = 1;
			break;
		}
		p->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void kdsl_pool_run(kdsl_pool *p, int parts, kdsl_pool_fn fn, void *arg)
{
	if (!p || parts <= 1) {
		for (int i = 0; i < parts; i++)
			fn(arg, i);
		return;
	}
	p->fn = fn;
	p->arg = arg;
	atomic_store_explicit(&p->done, 0, memory_order_relaxed);
	p->gen = (p->gen + 1) & 0xffffff;
	if (!p->gen)
		p->gen = 1;   /* 0 is a new worker's "seen" */
	atomic_store(&p->word, POOL_WORD(p->gen, parts));
	if (atomic_load(&p->sleeping)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	pool_grow(p, parts - 1);
	pool_take(p);
	/* the parts others took: as long as a part takes, so spin, yielding
	 * now and then to a worker that shares this cpu */
	for (unsigned i = 1; atomic_load_explicit(&p->done, memory_order_acquire) < parts; i++)
		if (i % 256 == 0)
			sched_yield();
		else
			POOL_PAUSE();
}
