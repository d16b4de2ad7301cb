/* harness_internal.h: what harness.c shares with repeat.c. */
#ifndef KDSL_HARNESS_INTERNAL_H
#define KDSL_HARNESS_INTERNAL_H

#include "kdsl_harness.h"
#include "rt_internal.h"

/* Runs k n times, restoring each tensor i from initial[i] (bytes[i] long,
 * NULL for scalars) before each run, and prints the median time.  Returns
 * the first nonzero kernel status, -1 when out of memory, else 0. */
KDSL_INTERNAL int kdsl_harness_repeat(const kdsl_kernel_info *k, kdsl_rt *rt, void *const *tensors,
                                      void *const *initial, const size_t *bytes, const int64_t *scalars,
                                      long n);

#endif
