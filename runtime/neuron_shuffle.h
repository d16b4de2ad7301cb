/* neuron_shuffle.h: nc_stream_shuffle's plans and the per-runtime cache
 * that keeps them (neuron_shuffle.c).  rt_internal.h includes it for the
 * cache member of struct kdsl_rt; nothing here is exported. */
#ifndef KDSL_NEURON_SHUFFLE_H
#define KDSL_NEURON_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

#include "kdsl_rt.h"   /* kdsl_site */

/* What a shuffle does to one group of `rows` partitions (32, or the
 * partial last group): dst row to[k] reads src row from[k], k < n; need
 * marks the rows read.  off[k] is to[k] * dps | from[k] * sps << 32, the
 * rows' byte offsets in a group for the strides the last call had (in
 * place, for pairs, cycle k's two rows); worked out again when they
 * change.  A group spans less than 32 partition strides of a memory far
 * below 4 GiB, so each offset fits 32 bits.  In place, when the written rows are a
 * permutation of themselves (perm), the same moves as ncyc cycles of
 * clen[c] rows each, one after another in cyc (row cyc[k] takes row
 * cyc[k + 1], the last the first's old bytes); pairs when every cycle is
 * two rows long (the usual shuffle of partitions swapped pairwise). */
typedef struct {
	uint64_t off[KDSL_NEURON_QUADRANT];   /* copying: rows' byte offsets, below */
	size_t dps, sps;                       /* the strides of off (0: none yet) */
	int n;
	signed char to[KDSL_NEURON_QUADRANT], from[KDSL_NEURON_QUADRANT];
	char need[KDSL_NEURON_QUADRANT];
	int perm, ncyc, pairs;
	signed char cyc[KDSL_NEURON_QUADRANT], clen[KDSL_NEURON_QUADRANT];
} kdsl_shuf_plan;

/* A plan and its key: the mask's 32 entries (as passed: comparing them
 * costs less than checking them again), the group's rows (0: an empty
 * slot) and whether the shuffle is in place.  A mask is cached only once
 * its entries are known to be 0..31 or 255.  pmax[i] and smax[i] are
 * the largest entry other than 255 among entries 0..i and i..31 (-32
 * when none), for the rule that no entry reads beyond src. */
typedef struct {
	int64_t mask[KDSL_NEURON_QUADRANT];
	int rows, inplace;
	uint64_t gen;   /* bumped each time the slot is filled (kdsl_shuf_kslot); 64 bits never wrap */
	signed char pmax[KDSL_NEURON_QUADRANT], smax[KDSL_NEURON_QUADRANT + 1];
	kdsl_shuf_plan plan;
} kdsl_shuf_entry;

/* An operand struct of kdsl_neuron_nc_stream_shuffle_k that passed every
 * check and moved rows without a snapshot, and what that call worked out:
 * the first rows and strides, the rows, in place, and its plans' cache
 * entries (KDSL_SHUF_CACHE: none) with their gen then.  The same bytes
 * on the same runtime pass the same checks and move the same rows, so a
 * call with them skips straight to the moves while both entries still
 * hold the plans (gen unchanged).  used 0: an empty slot. */
typedef struct {
	kdsl_shuf_args a;
	unsigned char *d;
	const unsigned char *s;
	size_t dps, sps, rb;
	int64_t np;
	int inplace, used;
	unsigned full, last;
	uint64_t fgen, lgen;
} kdsl_shuf_kslot;

/* The plans of the last distinct masks a runtime shuffled with: a kernel
 * uses a few masks, each many times.  Slots are refilled round robin;
 * likewise the kslots (a kernel's constant shuffles, one per call site).
 * Per runtime (no global state), so as thread-safe as the runtime. */
enum { KDSL_SHUF_CACHE = 8, KDSL_SHUF_KSLOTS = 4 };
typedef struct {
	kdsl_shuf_entry e[KDSL_SHUF_CACHE];
	unsigned next;   /* the slot the next miss fills */
	unsigned hit;    /* the slot found last: looked at first */
	kdsl_shuf_kslot k[KDSL_SHUF_KSLOTS];
	unsigned knext, khit;
} kdsl_shuf_cache;

/* A call's plans: of a group of 32 rows and of a partial last group
 * (NULL when there is none); they live in the cache until its next
 * lookup. */
typedef struct {
	kdsl_shuf_plan *full, *last;
	int inplace;
} kdsl_shuf_plans;

struct kdsl_rt;
/* The op's mask rules for dst and src tiles of dnp and snp partitions:
 * nmask entries, each 0..31 or 255, and no entry reading a partition
 * beyond src's (the first broken rule reported through kdsl_rt_fail and
 * its code returned); then the plans of the shuffle into *pl, from the
 * runtime's cache.  inplace: dst and src are the same rows. */
int kdsl_shuffle_plan(struct kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t nmask,
                      int64_t dnp, int64_t snp, int inplace, kdsl_shuf_plans *pl);
/* Moves the rows of a planned shuffle: np (the dnp planned) rows of rb
 * bytes, dst row 0 at d and row r dps bytes after row r - 1, src
 * likewise; in place when planned so (then d == s and dps == sps), any
 * other overlap snapshotted before. */
void kdsl_shuffle_rows(struct kdsl_rt *rt, unsigned char *d, size_t dps, const unsigned char *s, size_t sps,
                       int64_t np, const kdsl_shuf_plans *pl, size_t rb);

/* kdsl_shuffle_plan, then kdsl_shuffle_rows, in one call: for a shuffle
 * with no uninit check whose tiles are the same rows or share no byte
 * (so no snapshot comes between the two).  Returns the plan's code.  k:
 * the operand struct of a kdsl_neuron_nc_stream_shuffle_k call whose
 * every other check passed, kept in a kslot when this one passes too
 * (NULL: none). */
int kdsl_shuffle(struct kdsl_rt *rt, const kdsl_site *site, const int64_t *mask, int64_t nmask, unsigned char *d,
                 size_t dps, const unsigned char *s, size_t sps, int64_t dnp, int64_t snp, size_t rb, int inplace,
                 const kdsl_shuf_args *k);
/* The moves of a kdsl_neuron_nc_stream_shuffle_k call whose operand
 * struct a kslot holds, and 1; 0 when none does (or its plans have left
 * the cache): the caller checks and plans. */
int kdsl_shuffle_k_again(struct kdsl_rt *rt, const kdsl_shuf_args *a);

#endif
