/* pool.h: the worker threads a runtime keeps for the parts of one op
 * (nc_matmul's columns, activation's rows).
 *
 * Starting a thread per call cost more than it saved (issue 16: on the
 * 2-vCPU VM, a 128x128x512 nc_matmul split over 2 threads created per
 * call took 340 us against 300 on one, while the same halves on a
 * thread that was already running took 180), so the workers start at
 * the first op that needs them and live until kdsl_rt_destroy or a new
 * thread count.  Between ops a worker spins for a short while (the next
 * op of a kernel usually follows within that) and then sleeps on a
 * condition variable.
 *
 * The parts of one run are taken in turn by whoever is free, the calling
 * thread included, so a run finishes even when no worker could start or
 * every worker is asleep: only which thread computes a part varies,
 * never what the part computes. */
#ifndef KDSL_POOL_H
#define KDSL_POOL_H

#include <stdint.h>

typedef struct kdsl_pool kdsl_pool;

/* fn(arg, i) computes part i; parts must not overlap in what they write. */
typedef void (*kdsl_pool_fn)(void *arg, int part);

/* A pool that can start up to `workers` threads (1 to
 * KDSL_RT_MAX_THREADS - 1), and no more
 * than the online cpus less one (more only take turns with each other),
 * none started yet; NULL when out of memory. */
kdsl_pool *kdsl_pool_create(int workers);

/* Stops and joins the workers, then frees the pool (NULL: nothing). */
void kdsl_pool_destroy(kdsl_pool *p);

/* Runs fn(arg, i) for every i in 0..parts-1 and returns when all have
 * returned.  With p NULL, or parts 1, the caller runs them in order.
 * One thread at a time may run a pool (the runtime's own rule). */
void kdsl_pool_run(kdsl_pool *p, int parts, kdsl_pool_fn fn, void *arg);

/* The first of n items (rows) that part i of `parts` even shares takes;
 * part i takes those up to kdsl_pool_share(n, i + 1, parts). */
static inline int64_t kdsl_pool_share(int64_t n, int i, int parts)
{
	return n * i / parts;
}

#endif
