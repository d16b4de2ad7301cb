/* neuron.c: the neuron ops (AWS NKI; seeds 000, 002, 003) on the emulated
 * sbuf and psum (partitions and sizes as kdsl_hw.h gives them).  Partition
 * p of a memory starts p * partition-bytes into
 * it, so a tile is a base, a partition stride and a run of elements in
 * each partition.  Every op checks every operand and rule before it writes
 * anything.  Data movement works on whole partition rows (memcpy); the
 * arithmetic ops and converting copies are checked here and computed by
 * the typed row kernels of neuron_engine.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "neuron_engine.h"
#include "pool.h"
#include "rt_internal.h"

/* A checked view: the first viewed element of partition p0, the bytes
 * from one viewed partition to the next, and the rest.  nd > 0: a strided
 * view (kdsl_rt.h's access pattern), whose partition p holds the elements
 * i0*st[0] + i1*st[1] + i2*st[2] from row(v, p), span the largest of those
 * offsets; nd 0: a run of n elements (span n - 1).  Ops reach strided
 * views only through the ap_* helpers below. */
typedef struct {
	const unsigned char *p;
	size_t pstride;
	int64_t np, n;
	size_t size;
	kdsl_mem mem;
	kdsl_dtype dt;
	int nd;
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], span;
} view;

/* A contiguous view's fields (the pointer is set by the caller, once its
 * operands are checked). */
static inline void view_set(view *v, size_t pstride, int64_t np, int64_t n, size_t size, kdsl_mem mem,
                            kdsl_dtype dt)
{
	v->pstride = pstride;
	v->np = np;
	v->n = n;
	v->size = size;
	v->mem = mem;
	v->dt = dt;
	v->nd = 0;
}

/* The runtime's workers (pool.h) when it has more than one thread,
 * started by the first op that splits and kept to kdsl_rt_destroy (or a
 * new count); NULL with one thread, or when they cannot be had: the op
 * then runs its parts on the calling thread, with the same bytes. */
static struct kdsl_pool *rt_pool(kdsl_rt *rt)
{
	if (rt->threads > 1 && !rt->pool)
		rt->pool = kdsl_pool_create(rt->threads - 1);
	return rt->pool;
}

static int dtype_ok(kdsl_dtype dt)
{
	return (int)dt > 0 && (int)dt < KDSL_NDTYPE;
}

/* The last of n indexes from a, a + n - 1, for an error message: clamped
 * to int64's range, since the arguments it reports may be anything. */
static int64_t last_index(int64_t a, int64_t n)
{
	if (n >= 1)
		return a > INT64_MAX - (n - 1) ? INT64_MAX : a + (n - 1);
	return a < INT64_MIN - n + 1 ? INT64_MIN : a + n - 1;
}

/* The largest element offset of an access pattern inside one view
 * partition (sum of (ct - 1) * st), or -1 when the pattern is not one
 * (nd, counts and strides out of range, counts whose product is not n) or
 * that offset exceeds lim.  Overflow-safe for any field values.  Strides
 * are at least 1 (no broadcast), so n <= lim + 1: what an op allocates
 * for a packed copy is bounded by the tensor. */
static int64_t ap_span(int64_t nd, const int64_t *st, const int64_t *ct, int64_t n, uint64_t lim)
{
	uint64_t span = 0, prod = 1, t;
	int64_t k;

	if (nd < 1 || nd > KDSL_NEURON_AP_DIMS)
		return -1;
	for (k = 0; k < nd; k++) {
		if (ct[k] < 1 || st[k] < 1 || __builtin_mul_overflow((uint64_t)(ct[k] - 1), (uint64_t)st[k], &t) ||
		    __builtin_add_overflow(span, t, &span) || span > lim ||
		    __builtin_mul_overflow(prod, (uint64_t)ct[k], &prod))
			return -1;
	}
	return prod == (uint64_t)n ? (int64_t)span : -1;
}

/* A strided view's place (the tile's other fields are checked): on chip,
 * partitions p0.. of the tile and the pattern inside each; in hbm, the
 * elements it reaches of the tensor taken flat.  Fills v's pattern. */
static int check_ap(kdsl_rt *rt, const kdsl_site *site, const char *what, size_t pstride, size_t pbytes,
                    int64_t nparts, int64_t p0, int64_t np, int64_t off, int64_t n, int64_t pstep, int64_t nd,
                    const int64_t *st, const int64_t *ct, uint64_t elems, view *v)
{
	int hbm = !(v->mem == KDSL_MEM_SBUF || v->mem == KDSL_MEM_PSUM);
	/* hbm: nparts * elems fits (check_view bounded nparts * pstride) */
	uint64_t all = hbm ? (uint64_t)nparts * elems : elems, first, last;
	int64_t span = ap_span(nd, st, ct, n, all ? all - 1 : 0), k;

	if (span < 0 || np < 1 || pstep < 0 || (!hbm && pstep) || (hbm && pstride != pbytes))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s has no valid access pattern", what);
	if (p0 < 0 || p0 >= nparts || (!hbm && p0 > nparts - np))
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: partitions %" PRId64 "..%" PRId64 " are outside its %" PRId64 " partitions",
		                    what, p0, last_index(p0, hbm ? 1 : np), nparts);
	if (off < 0 || (uint64_t)off >= elems || (!hbm && (uint64_t)span > elems - 1 - (uint64_t)off))
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: elements %" PRId64 "..%" PRId64 " of each partition are outside its %" PRIu64,
		                    what, off, last_index(off, span + 1), elems);
	first = (uint64_t)p0 * elems + (uint64_t)off;
	if (hbm && (__builtin_mul_overflow((uint64_t)(np - 1), (uint64_t)pstep, &last) ||
	            __builtin_add_overflow(last, first + (uint64_t)span, &last) || last >= all))
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: the access pattern reaches element %" PRIu64 " of a tensor of %" PRIu64, what,
		                    last < first ? UINT64_MAX : last, all);
	v->nd = (int)nd;
	for (k = 0; k < nd; k++)
		v->st[k] = st[k], v->ct[k] = ct[k];
	v->span = span;
	if (hbm)
		v->pstride = (size_t)pstep * v->size;
	return KDSL_OK;
}

/* The tile's fields against each other and, on chip, against the memory. */
static int check_view(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                      size_t pstride, size_t pbytes, int64_t nparts, int64_t p0, int64_t np, int64_t off,
                      int64_t n, kdsl_mem mem, kdsl_dtype dt, int64_t pstep, int64_t nd, const int64_t *st,
                      const int64_t *ct, view *v)
{
	size_t size, elems;
	int rc;

	if (!base)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor is NULL", what);
	if (!dtype_ok(dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s has no valid dtype", what);
	/* sizes are powers of two: no divides */
	size = kdsl_dt_bytes(dt);
	elems = size == 1 ? pbytes : size == 2 ? pbytes >> 1 : size == 4 ? pbytes >> 2 : pbytes >> 3;
	if (nparts < 1 || (nparts > 1 && pbytes > pstride) || (pbytes & (size - 1)))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s is not a valid tile", what);
	if (nd && (nd < 0 || nd > KDSL_NEURON_AP_DIMS))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s has no valid access pattern", what);
	if (!nd && (np < 1 || p0 < 0 || p0 > nparts - np))
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: partitions %" PRId64 "..%" PRId64 " are outside its %" PRId64 " partitions",
		                    what, p0, last_index(p0, np), nparts);
	if (!nd && (n < 1 || off < 0 || (uint64_t)n > elems || (uint64_t)off > elems - (uint64_t)n))
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: elements %" PRId64 "..%" PRId64 " of each partition are outside its %zu",
		                    what, off, last_index(off, n), elems);
	/* The rows must not wrap the address space, or the pointers below
	 * would.  A contiguous tile has n >= 1 here, so pbytes >= 1 and, with
	 * rows, pstride >= 1; a strided one is checked later (check_ap), so
	 * its rows may be 0 bytes at one place (pstride 0), which cannot wrap.
	 * Products below 2^62 need no divide. */
	uint64_t room = UINTPTR_MAX - (uintptr_t)base, rows = (uint64_t)nparts - 1;
	if (pbytes > room || (rows && pstride && ((rows | pstride) >> 31 ? rows > (room - pbytes) / pstride
	                                                                 : rows * pstride > room - pbytes)))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG,
		                    "%s is not a valid tile: %" PRId64 " partitions of %zu bytes overflow the address space",
		                    what, nparts, pstride);
	if (mem == KDSL_MEM_SBUF || mem == KDSL_MEM_PSUM) {
		/* addresses as integers: base may point into another object */
		uintptr_t m = (uintptr_t)rt->mem[mem], b = (uintptr_t)base;
		uint64_t q = 0, r = 0;
		if (!m || b < m || b - m >= rt->mem_bytes[mem])
			return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s is not in this runtime's %s", what,
			                    kdsl_mem_name(mem));
		if (pstride == rt->part_stride[mem])
			q = kdsl_divmod((uint64_t)(b - m), pstride, &r);
		if (pstride != rt->part_stride[mem] || r + pbytes > rt->part_bytes[mem] ||
		    (uint64_t)nparts > rt->nparts[mem] - q)
			return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS, "%s lies outside %s", what, kdsl_mem_name(mem));
	}
	view_set(v, pstride, np, n, size, mem, dt);
	/* a strided view's n is checked, and its span set, by check_ap */
	if (!nd)
		v->span = n - 1;
	else if ((rc = check_ap(rt, site, what, pstride, pbytes, nparts, p0, np, off, n, pstep, nd, st, ct,
	                        (uint64_t)elems, v)))
		return rc;
	/* formed once p0 and off are checked (a strided view's by check_ap):
	 * even an unused pointer out of its object is undefined */
	v->p = base + (size_t)p0 * pstride + (size_t)off * size;
	return KDSL_OK;
}

/* check_view's common case, inline: a contiguous tile (nd 0) in sbuf or
 * psum whose storage starts in the memory's first partition (as kdslc
 * places every tile) and passes every check.  Then it fills *v as
 * check_view would and returns 1; otherwise 0, and check_view runs from
 * the start, so every error reads and comes in the order it did.  The
 * memory's facts (rt's part_* arrays) stand in for the divide that finds
 * the tile's place, and the rows lying in the memory imply check_view's
 * address-space test.  A few dozen instructions instead of a call, a
 * dtype size through the PLT and a divide: a tenth of a 16 KiB shuffle. */
static inline __attribute__((always_inline)) int tile_fast(const kdsl_rt *rt, const unsigned char *base,
                                                           size_t pstride, size_t pbytes, int64_t nparts,
                                                           int64_t p0, int64_t np, int64_t off, int64_t n,
                                                           kdsl_mem mem, kdsl_dtype dt, int64_t nd, view *v)
{
	size_t size = kdsl_dt_bytes(dt), elems;
	uintptr_t m, b = (uintptr_t)base;

	if (nd || !size || (mem != KDSL_MEM_SBUF && mem != KDSL_MEM_PSUM))
		return 0;
	m = (uintptr_t)rt->mem[mem];
	/* pbytes >= size >= 1 below, so b lies in partition 0: q 0, r b - m */
	if (!base || !m || b < m || pbytes > rt->part_bytes[mem] || b - m > rt->part_bytes[mem] - pbytes ||
	    pstride != rt->part_stride[mem] || nparts < 1 || (uint64_t)nparts > rt->nparts[mem] ||
	    (pbytes & (size - 1)))
		return 0;
	elems = pbytes >> __builtin_ctz((unsigned)size);
	if (np < 1 || p0 < 0 || p0 > nparts - np || n < 1 || off < 0 || (uint64_t)n > elems ||
	    (uint64_t)off > elems - (uint64_t)n)
		return 0;
	view_set(v, pstride, np, n, size, mem, dt);
	v->span = n - 1;
	v->p = base + (size_t)p0 * pstride + (size_t)off * size;
	return 1;
}

/* A tile's view into *v after its checks (KDSL_OK), or the first broken
 * rule's error: the fast test, else the full one. */
#define CHECK_TILE(rt, site, what, t, v)                                                                 \
	(tile_fast(rt, (t).base, (t).pstride, (t).pbytes, (t).nparts, (t).p0, (t).np, (t).off, (t).n, (t).mem, \
	           (t).dt, (t).nd, v)                                                                         \
	     ? KDSL_OK                                                                                        \
	     : check_view(rt, site, what, (t).base, (t).pstride, (t).pbytes, (t).nparts, (t).p0, (t).np,      \
	                  (t).off, (t).n, (t).mem, (t).dt, (t).pstep, (t).nd, (t).st, (t).ct, v))

static unsigned char *wrow(const view *v, int64_t p)
{
	/* dst views come from a kdsl_tile, whose base is writable */
	return (unsigned char *)(uintptr_t)(v->p + (size_t)p * v->pstride);
}

static const unsigned char *row(const view *v, int64_t p)
{
	return v->p + (size_t)p * v->pstride;
}

/* ---- access patterns: the one place that walks strided views ----
 * An op accepts strided views by calling, after its checks and its
 * uninit call (uninit_src/uninit_dst/uninit_op walk patterns themselves):
 *   ap_src(rt, site, &s, &buf)             on each source view: a strided
 *                                          one is packed (free(buf) after);
 *   ap_dst(rt, site, &d, &orig, &buf)      on its dst: a strided one is
 *                                          worked on in a packed copy;
 *   ap_done(&orig, &d, buf)                after its work: unpacks the copy
 *                                          into the strided dst and frees it.
 * Between them every view is a run of n elements per partition, which is
 * what row()/wrow() and the engine kernels assume.  The copies (copy_rows)
 * walk patterns directly instead: typed loops, memcpy runs where the
 * innermost stride is 1. */

/* The pattern as three dims (outer ones of count 1 added). */
static void ap_dims(const view *v, int64_t *st, int64_t *ct)
{
	int k, pad = KDSL_NEURON_AP_DIMS - v->nd;

	for (k = 0; k < KDSL_NEURON_AP_DIMS; k++) {
		st[k] = k < pad ? 0 : v->st[k - pad];
		ct[k] = k < pad ? 1 : v->ct[k - pad];
	}
	if (!v->nd)
		st[2] = 1, ct[2] = v->n;
}

/* Element-size-specialised strided runs: fixed-size memcpy compiles to a
 * move, so there is no call per element. */
#define AP_RUN(Z, DST, DS, SRC, SS, C) \
	for (int64_t j_ = 0; j_ < (C); j_++) \
		memcpy((DST) + (size_t)j_ * (size_t)(DS) * (Z), (SRC) + (size_t)j_ * (size_t)(SS) * (Z), (Z))

/* Every other element of s packed into d (a step-2 view: pooling's
 * windows, deinterleaving), 16 bytes of d at a time from two 16-byte
 * loads and one even-lane shuffle; the elements left one by one.
 * Returns the elements done. */
#define AP_EVENS(T, N, ...)                                                                       \
	static int64_t ap_evens_##T(unsigned char *d, const unsigned char *s, int64_t c)             \
	{                                                                                             \
		typedef T v_ __attribute__((vector_size(16)));                                            \
		int64_t j = 0;                                                                            \
		for (; j + (N) <= c; j += (N)) {                                                          \
			v_ a, b, r;                                                                           \
			memcpy(&a, s + (size_t)j * 2 * sizeof(T), 16);                                        \
			memcpy(&b, s + (size_t)j * 2 * sizeof(T) + 16, 16);                                   \
			r = __builtin_shufflevector(a, b, __VA_ARGS__);                                       \
			memcpy(d + (size_t)j * sizeof(T), &r, 16);                                            \
		}                                                                                         \
		return j;                                                                                 \
	}
AP_EVENS(uint8_t, 16, KDSL_EVEN16)
AP_EVENS(uint16_t, 8, KDSL_EVEN8)
AP_EVENS(uint32_t, 4, KDSL_EVEN4)
AP_EVENS(uint64_t, 2, KDSL_EVEN2)

static void ap_run(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss, int64_t c, size_t z)
{
	if (ds == 1 && ss == 1) {
		memcpy(d, s, (size_t)c * z);
		return;
	}
	if (ds == 1 && ss == 2) {
		int64_t j = z == 1 ? ap_evens_uint8_t(d, s, c) : z == 2 ? ap_evens_uint16_t(d, s, c)
		          : z == 4 ? ap_evens_uint32_t(d, s, c) : ap_evens_uint64_t(d, s, c);
		d += (size_t)j * z, s += (size_t)j * 2 * z, c -= j;
	}
	switch (z) {
	case 1: AP_RUN(1, d, ds, s, ss, c); break;
	case 2: AP_RUN(2, d, ds, s, ss, c); break;
	case 4: AP_RUN(4, d, ds, s, ss, c); break;
	default: AP_RUN(8, d, ds, s, ss, c); break;
	}
}

/* Packs view partition r (its first element at q) into out (n elements),
 * or (scatter) unpacks in into it. */
static void ap_gather(unsigned char *out, const view *v, const unsigned char *q)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], i0, i1;

	ap_dims(v, st, ct);
	for (i0 = 0; i0 < ct[0]; i0++)
		for (i1 = 0; i1 < ct[1]; i1++, out += (size_t)ct[2] * v->size)
			ap_run(out, 1, q + (size_t)(i0 * st[0] + i1 * st[1]) * v->size, st[2], ct[2], v->size);
}

static void ap_scatter(const view *v, unsigned char *q, const unsigned char *in)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], i0, i1;

	ap_dims(v, st, ct);
	for (i0 = 0; i0 < ct[0]; i0++)
		for (i1 = 0; i1 < ct[1]; i1++, in += (size_t)ct[2] * v->size)
			ap_run(q + (size_t)(i0 * st[0] + i1 * st[1]) * v->size, st[2], in, 1, ct[2], v->size);
}

static int same_shape(kdsl_rt *rt, const kdsl_site *site, const char *a, const view *x, const char *b,
                      const view *y)
{
	if (x->np != y->np)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
		                    "%s must occupy the same number of partitions as %s, got %" PRId64 " and %" PRId64,
		                    a, b, x->np, y->np);
	if (x->n != y->n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
		                    "%s must have the same number of elements per partition as %s, got %" PRId64
		                    " and %" PRId64, a, b, x->n, y->n);
	return KDSL_OK;
}

static int same_dtype(kdsl_rt *rt, const kdsl_site *site, const char *a, const view *x, const char *b,
                      const view *y)
{
	if (x->dt == y->dt)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s must have the same dtype as %s, got %s and %s", a, b,
	                    kdsl_dtype_name(x->dt), kdsl_dtype_name(y->dt));
}

static int in_mem(kdsl_rt *rt, const kdsl_site *site, const char *what, const view *v, int sbuf, int psum,
                  int hbm)
{
	if ((v->mem == KDSL_MEM_SBUF && sbuf) || (v->mem == KDSL_MEM_PSUM && psum) ||
	    (v->mem == KDSL_MEM_HBM && hbm))
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be in %s, got %s", what,
	                    hbm ? "hbm" : sbuf && psum ? "sbuf or psum" : sbuf ? "sbuf" : "psum",
	                    kdsl_mem_name(v->mem));
}

/* Two views share a byte (in-place or shifted operands).  Tiles of one
 * memory interleave: each owns a column range of the same partitions, so
 * their spans overlap although no byte is shared.  With one partition
 * stride the rows are compared exactly (tiles side by side in sbuf then
 * need no snapshot); otherwise the spans are.  A strided view counts as
 * every byte from its first to its last (conservative). */
static int overlap(const view *a, const view *b)
{
	size_t alen = ((size_t)a->span + 1) * a->size, blen = ((size_t)b->span + 1) * b->size, ps = a->pstride;
	uintptr_t as = (uintptr_t)a->p, bs = (uintptr_t)b->p;
	uintptr_t ae = as + (size_t)(a->np - 1) * a->pstride + alen;
	uintptr_t be = bs + (size_t)(b->np - 1) * b->pstride + blen;
	uintptr_t lo, d;
	int64_t q, r, j0, j1;

	if (!(as < be && bs < ae))
		return 0;
	if (b->pstride != ps || alen > ps || blen > ps || a->np == 1 || b->np == 1)
		return 1;
	/* Row j of b starts r bytes into row q + j of a (0 <= r < ps). */
	lo = as < bs ? as : bs;
	d = (as < bs ? bs - as : as - bs);
	{
		uint64_t rem;
		q = (int64_t)kdsl_divmod(d, ps, &rem);
		r = (int64_t)rem;
	}
	if (lo == bs && r) {   /* b starts first: express a's start from b's */
		q = -q - 1;
		r = (int64_t)ps - r;
	} else if (lo == bs) {
		q = -q;
	}
	/* It meets row q + j of a when r < alen, row q + j + 1 when r + blen > ps. */
	j0 = q < 0 ? -q : 0;
	j1 = a->np - q < b->np ? a->np - q : b->np;
	if ((size_t)r < alen && j0 < j1)
		return 1;
	j0 = q + 1 < 0 ? -(q + 1) : 0;
	j1 = a->np - q - 1 < b->np ? a->np - q - 1 : b->np;
	return (size_t)r + blen > ps && j0 < j1;
}

/* Are v and w the same elements in the same order (same start, strides
 * and counts)? */
static int same_view(const view *v, const view *w)
{
	if (v->p != w->p || v->pstride != w->pstride || v->np != w->np || v->n != w->n || v->nd != w->nd)
		return 0;
	for (int i = 0; v->nd && i < KDSL_NEURON_AP_DIMS; i++)
		if (v->st[i] != w->st[i] || v->ct[i] != w->ct[i])
			return 0;
	return 1;
}

/* Source s is dst d itself (the same rows, dtype and elements, neither
 * strided): an element-wise engine op reads it in place, chunk by chunk
 * (neuron_engine.h), without a snapshot. */
static int same_rows(const view *d, const view *s)
{
	return !d->nd && d->dt == s->dt && same_view(d, s);
}

/* A packed copy of a source view, so later writes cannot change what is
 * read.  *buf receives the allocation (NULL when not needed). */
static int snapshot(kdsl_rt *rt, const kdsl_site *site, view *v, unsigned char **buf)
{
	size_t rb = (size_t)v->n * v->size;
	unsigned char *c = malloc(rb * (size_t)v->np);
	int64_t p;

	if (!c)
		return kdsl_rt_fail(rt, site, KDSL_ERR_NOMEM, "out of memory");
	for (p = 0; p < v->np; p++)
		if (v->nd)
			ap_gather(c + (size_t)p * rb, v, row(v, p));
		else
			kdsl_copy_row(c + (size_t)p * rb, row(v, p), rb);
	v->p = c;
	v->pstride = rb;
	v->nd = 0;
	v->span = v->n - 1;
	*buf = c;
	return KDSL_OK;
}

static int ap_src(kdsl_rt *rt, const kdsl_site *site, view *v, unsigned char **buf)
{
	*buf = NULL;
	return v->nd ? snapshot(rt, site, v, buf) : KDSL_OK;
}

/* The packed copy holds dst's values, so ops that keep some (accumulate,
 * a predicate) keep them. */
static int ap_dst(kdsl_rt *rt, const kdsl_site *site, view *d, view *orig, unsigned char **buf)
{
	*orig = *d;
	*buf = NULL;
	return d->nd ? snapshot(rt, site, d, buf) : KDSL_OK;
}

static void ap_done(const view *orig, const view *d, unsigned char *buf)
{
	int64_t p;

	if (!buf)
		return;
	for (p = 0; p < orig->np; p++)
		ap_scatter(orig, wrow(orig, p), row(d, p));
	free(buf);
}

/* ---- the uninit check (KDSL_CHECK_UNINIT, check.c) ----
 * Each op calls one of these at its entry when rt->head.check is set,
 * after every rule and before any work: the bytes its sources read must
 * have been written, then the bytes it writes are marked.  Reads come
 * first, as every op reads its sources (or a snapshot of them) before
 * it writes. */

/* Every byte of source view v (of the tile whose storage starts at base). */
static int uninit_src(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                      const view *v)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], p, i0, i1, j;
	int rc;

	if (!v->nd)
		return kdsl_uninit_rows(rt, site, what, base, v->mem, v->p, v->pstride, v->np, (size_t)v->n * v->size);
	ap_dims(v, st, ct);   /* a run per innermost row when its stride is 1, else per element */
	for (p = 0; p < v->np; p++)
		for (i0 = 0; i0 < ct[0]; i0++)
			for (i1 = 0; i1 < ct[1]; i1++)
				for (j = 0; j < (st[2] == 1 ? 1 : ct[2]); j++)
					if ((rc = kdsl_uninit_rows(rt, site, what, base, v->mem,
					                           row(v, p) + (size_t)(i0 * st[0] + i1 * st[1] + j * st[2]) * v->size,
					                           0, 1, (size_t)(st[2] == 1 ? ct[2] : 1) * v->size)))
						return rc;
	return KDSL_OK;
}

static void uninit_dst(kdsl_rt *rt, const view *d)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], p, i0, i1, j;

	if (!d->nd) {
		kdsl_uninit_mark_rows(rt, d->mem, d->p, d->pstride, d->np, (size_t)d->n * d->size);
		return;
	}
	ap_dims(d, st, ct);
	for (p = 0; p < d->np; p++)
		for (i0 = 0; i0 < ct[0]; i0++)
			for (i1 = 0; i1 < ct[1]; i1++)
				for (j = 0; j < (st[2] == 1 ? 1 : ct[2]); j++)
					kdsl_uninit_mark(rt, d->mem, row(d, p) + (size_t)(i0 * st[0] + i1 * st[1] + j * st[2]) * d->size,
					                 (size_t)(st[2] == 1 ? ct[2] : 1) * d->size);
}

/* An op that reads all of a (and b, when not NULL) and writes all of d;
 * with rmw it reads d first too (nc_matmul's accumulate). */
static int uninit_op(kdsl_rt *rt, const kdsl_site *site, const char *an, const unsigned char *ab, const view *a,
                     const char *bn, const unsigned char *bb, const view *b, const unsigned char *db,
                     const view *d, int rmw)
{
	int rc;

	if ((a && (rc = uninit_src(rt, site, an, ab, a))) || (b && (rc = uninit_src(rt, site, bn, bb, b))) ||
	    (rmw && (rc = uninit_src(rt, site, "dst", db, d))))
		return rc;
	uninit_dst(rt, d);
	return KDSL_OK;
}

/* ---- copies ---- */

/* Rows of a view, for the engine kernels (neuron_engine.c). */
static kdsl_eng_rows eng_rows(const view *v)
{
	kdsl_eng_rows r;
	r.p = v->p;
	r.ps = v->pstride;
	r.dt = v->dt;
	return r;
}

/* Transposing copies, load(t, a.T) and store(b.T, t): partition p of
 * the strided side starts p elements after partition 0 and holds one
 * dim of stride S.  Partition by partition (ap_gather, ap_scatter) that
 * walks the strided side a column at a time, one element of each line;
 * here TB partitions go together, so each row of the strided side gives
 * (or takes) TB consecutive elements, one line of them, to (from) TB
 * rows of the packed side, which fill in step.  Same bytes: a copy. */
#define TCOPY(T)                                                                                    \
	static void tcopy_##T(const view *rows, const view *t, int64_t S, int scatter)                 \
	{                                                                                               \
		enum { TB = 64 / sizeof(T) };                                                               \
		unsigned char *o[TB];                                                                       \
		for (int64_t p0 = 0; p0 < rows->np; p0 += TB) {                                             \
			int64_t nb = rows->np - p0 < TB ? rows->np - p0 : TB;                                   \
			for (int64_t i = 0; i < nb; i++)                                                        \
				o[i] = wrow(rows, p0 + i);                                                          \
			for (int64_t j = 0; j < rows->n; j++) {                                                 \
				unsigned char *q = wrow(t, 0) + (size_t)(j * S + p0) * sizeof(T);                   \
				if (scatter)                                                                        \
					for (int64_t i = 0; i < nb; i++)                                                \
						memcpy(q + (size_t)i * sizeof(T), o[i] + (size_t)j * sizeof(T), sizeof(T)); \
				else                                                                                \
					for (int64_t i = 0; i < nb; i++)                                                \
						memcpy(o[i] + (size_t)j * sizeof(T), q + (size_t)i * sizeof(T), sizeof(T)); \
			}                                                                                       \
		}                                                                                           \
	}
TCOPY(uint8_t)
TCOPY(uint16_t)
TCOPY(uint32_t)
TCOPY(uint64_t)

/* Whether copying between the packed view rows and the strided view t
 * (into t when scatter) is a transpose (above), done if so.  With
 * scatter the packed side is read only (wrow's cast aside), and a stride
 * below the partition count, where two partitions write one element
 * (the later partition's value stays), keeps the partition order. */
static int transpose_copy(const view *rows, const view *t, int scatter)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS];

	ap_dims(t, st, ct);
	if (rows->nd || t->pstride != t->size || ct[0] != 1 || ct[1] != 1 || st[2] <= 1 || rows->np < 2 ||
	    (scatter && st[2] < rows->np))
		return 0;
	switch (t->size) {
	case 1: tcopy_uint8_t(rows, t, st[2], scatter); break;
	case 2: tcopy_uint16_t(rows, t, st[2], scatter); break;
	case 4: tcopy_uint32_t(rows, t, st[2], scatter); break;
	default: tcopy_uint64_t(rows, t, st[2], scatter); break;
	}
	return 1;
}

/* dst = src, row by row: a same-dtype copy is bit-exact (any pattern,
 * NaN payloads included), a converting one goes through f32. */
/* A plain row copy of at least this many bytes is shared among the
 * runtime's threads, when it has more than one: on the 2-vCPU VM of
 * 2026-12-07, nki_matmul_tiled.k on 2 threads went from 2.92-3.06 to
 * 2.71-2.77 ms (its rhs loads, psum copies and stores are 256 KiB; the
 * 64 KiB lhsT loads stay whole), medians of three alternating processes
 * each. */
enum { ROWS_SPLIT_MIN = 128 << 10 };

/* A plain row copy split into parts (rows_split). */
typedef struct {
	const view *d, *s;
	int parts;
} rows_job;

/* Part i of a rows_job: its even share of the partitions. */
static void rows_part(void *arg, int i)
{
	const rows_job *j = arg;
	int64_t p1 = kdsl_pool_share(j->d->np, i + 1, j->parts);

	for (int64_t p = kdsl_pool_share(j->d->np, i, j->parts); p < p1; p++)
		kdsl_copy_row(wrow(j->d, p), row(j->s, p), (size_t)j->d->n * j->d->size);
}

/* d's rows from s's, no view strided, the same dtype, no overlap: on the
 * runtime's threads when it has several and the copy is large. */
static void rows_split(kdsl_rt *rt, const view *d, const view *s)
{
	rows_job j = {d, s, 1};

	if (rt->threads > 1 && d->np >= 2 && (size_t)d->np * (size_t)d->n * d->size >= ROWS_SPLIT_MIN)
		j.parts = (int)(d->np < rt->threads ? d->np : rt->threads);
	kdsl_pool_run(j.parts > 1 ? rt_pool(rt) : NULL, j.parts, rows_part, &j);
}

static int copy_rows(kdsl_rt *rt, const kdsl_site *site, const view *d, view s)
{
	unsigned char *buf = NULL, *dbuf = NULL;
	view w = *d, orig;
	int64_t p;
	int rc;

	/* strided on both sides, or converting: a packed source */
	if ((overlap(d, &s) || (s.nd && (d->nd || d->dt != s.dt))) && (rc = snapshot(rt, site, &s, &buf)))
		return rc;
	if (d->dt != s.dt) {
		if ((rc = ap_dst(rt, site, &w, &orig, &dbuf))) {
			free(buf);
			return rc;
		}
		kdsl_engine_map(rt->isa, KDSL_ENG_COPY, 0, eng_rows(&w), eng_rows(&s), eng_rows(&s), w.np, w.n);
		ap_done(&orig, &w, dbuf);
	} else if (s.nd) {
		if (!transpose_copy(d, &s, 0))
			for (p = 0; p < d->np; p++)
				ap_gather(wrow(d, p), &s, row(&s, p));
	} else if (d->nd) {
		if (!transpose_copy(&s, d, 1))
			for (p = 0; p < d->np; p++)
				ap_scatter(d, wrow(d, p), row(&s, p));
	} else {
		rows_split(rt, d, &s);
	}
	if (buf)   /* free(NULL) is a call through the PLT too */
		free(buf);
	return KDSL_OK;
}

/* load (hbm -> sbuf) and store (sbuf or psum -> hbm; from psum NKI copies
 * to sbuf first, which changes no value): a same-dtype move is bit-exact,
 * a converting one goes through f32 as tensor_copy (LANGUAGE.md 7). */
static int move(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, int load)
{
	view d, s;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, load, 0, !load)) || (rc = in_mem(rt, site, "src", &s, !load, !load, load)) ||
	    (rc = same_shape(rt, site, "src", &s, "dst", &d)))
		return rc;
	if (rt->head.check && (rc = uninit_op(rt, site, "src", src.base, &s, NULL, NULL, NULL, dst.base, &d, 0)))
		return rc;
	return copy_rows(rt, site, &d, s);
}

int kdsl_neuron_load(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src)
{
	return move(rt, site, dst, src, 1);
}

int kdsl_neuron_store(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src)
{
	return move(rt, site, dst, src, 0);
}

int kdsl_neuron_tensor_copy(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src)
{
	view d, s;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) || (rc = in_mem(rt, site, "src", &s, 1, 1, 0)) ||
	    (rc = same_shape(rt, site, "src", &s, "dst", &d)))
		return rc;
	if (rt->head.check && (rc = uninit_op(rt, site, "src", src.base, &s, NULL, NULL, NULL, dst.base, &d, 0)))
		return rc;
	return copy_rows(rt, site, &d, s);
}

/* ---- element-wise ops ---- */

int kdsl_neuron_memset(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double value)
{
	unsigned char one[8], *dbuf;
	view d, orig;
	int64_t p;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)))
		return rc;
	if (rt->head.check)
		uninit_dst(rt, &d);
	if ((rc = ap_dst(rt, site, &d, &orig, &dbuf)))
		return rc;
	kdsl_store_value(d.dt, one, value);
	for (p = 0; p < d.np; p++)
		kdsl_splat(wrow(&d, p), one, d.size, (size_t)d.n);
	ap_done(&orig, &d, dbuf);
	return KDSL_OK;
}

/* An int32 operand of the GpSimd Engine (iota's pstep, affine_select's
 * p, f and c). */
static int index_ok(kdsl_rt *rt, const kdsl_site *site, const char *what, int64_t v)
{
	if (kdsl_neuron_index_ok(v))
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s must be an int32 (%d..%d), got %" PRId64, what,
	                    KDSL_NEURON_INDEX_MIN, KDSL_NEURON_INDEX_MAX, v);
}

int kdsl_neuron_iota(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double base, double step, int64_t pstep)
{
	view d, orig;
	unsigned char *dbuf;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	/* iota runs on the GpSimd engine, which cannot reach psum. */
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = in_mem(rt, site, "dst", &d, 1, 0, 0)) ||
	    (pstep != KDSL_NEURON_IOTA_PSTEP_DEFAULT && (rc = index_ok(rt, site, "pstep", pstep))))
		return rc;
	if (rt->head.check)
		uninit_dst(rt, &d);
	if ((rc = ap_dst(rt, site, &d, &orig, &dbuf)))
		return rc;
	kdsl_engine_iota(rt->isa, eng_rows(&d), base, step, pstep, d.np, d.n);
	ap_done(&orig, &d, dbuf);
	return KDSL_OK;
}

int kdsl_neuron_identity(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst)
{
	kdsl_eng_rows none = {NULL, 0, KDSL_F32};
	view d, orig;
	unsigned char *dbuf;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	/* built on the GpSimd engine, as iota and affine_select: sbuf only */
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = in_mem(rt, site, "dst", &d, 1, 0, 0)))
		return rc;
	if (d.np != d.n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE,
		                    "dst must be square (NKI's identity is [n, n]), got [%" PRId64 ", %" PRId64 "]",
		                    d.np, d.n);
	if (rt->head.check)
		uninit_dst(rt, &d);
	if ((rc = ap_dst(rt, site, &d, &orig, &dbuf)))
		return rc;
	kdsl_engine_select(eng_rows(&d), none, 0.0f, 1, -1, 0, KDSL_CMP_EQ, d.np, d.n);
	ap_done(&orig, &d, dbuf);
	return KDSL_OK;
}

static int check_enum(kdsl_rt *rt, const kdsl_site *site, const char *what, int64_t v, int64_t n)
{
	if (v >= 0 && v < n)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s code must be in 0..%" PRId64 ", got %" PRId64, what,
	                    n - 1, v);
}

/* dst = a op b element-wise, the engines' way: a and b converted to f32,
 * op computed in f32, the result converted to dst's dtype.  Sources that
 * overlap dst are snapshotted first. */
static int elementwise(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a, kdsl_ctile b, int64_t op)
{
	view d, s, t, orig;
	unsigned char *ba = NULL, *bb = NULL, *pa = NULL, *pb = NULL, *dbuf = NULL;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_enum(rt, site, "op", op, KDSL_NALU)) || (rc = CHECK_TILE(rt, site, "dst", dst, &d)) ||
	    (rc = CHECK_TILE(rt, site, "a", a, &s)) || (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) ||
	    (rc = in_mem(rt, site, "a", &s, 1, 1, 0)) || (rc = same_shape(rt, site, "a", &s, "dst", &d)) ||
	    (rc = CHECK_TILE(rt, site, "b", b, &t)) || (rc = in_mem(rt, site, "b", &t, 1, 1, 0)) ||
	    (rc = same_shape(rt, site, "b", &t, "dst", &d)))
		return rc;
	if (rt->head.check && (rc = uninit_op(rt, site, "a", a.base, &s, "b", b.base, &t, dst.base, &d, 0)))
		return rc;
	if ((rc = ap_src(rt, site, &s, &pa)) || (rc = ap_src(rt, site, &t, &pb)) ||
	    (rc = ap_dst(rt, site, &d, &orig, &dbuf)) ||
	    (overlap(&d, &s) && !same_rows(&d, &s) && (rc = snapshot(rt, site, &s, &ba))) ||
	    (overlap(&d, &t) && !same_rows(&d, &t) && (rc = snapshot(rt, site, &t, &bb)))) {
		free(pa), free(pb), free(dbuf), free(ba);
		return rc;
	}
	kdsl_engine_map(rt->isa, KDSL_ENG_ALU, op, eng_rows(&d), eng_rows(&s), eng_rows(&t), d.np, d.n);
	ap_done(&orig, &d, dbuf);
	free(pa);
	free(pb);
	free(ba);
	free(bb);
	return KDSL_OK;
}

int kdsl_neuron_tensor_tensor(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a,
                              kdsl_ctile b, int64_t op)
{
	/* The engine reads at most one operand from psum per instruction. */
	if (rt && a.mem == KDSL_MEM_PSUM && b.mem == KDSL_MEM_PSUM)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "a and b must not both be in psum");
	return elementwise(rt, site, dst, a, b, op);
}

/* The source operands of tensor_scalar, activation and tensor_reduce:
 * the data view and up to two per-partition operands, with the buffers
 * of their snapshots (freed by unary_done). */
typedef struct {
	view s, o[2];
	kdsl_eng_scalar y[2];
	unsigned char *buf[3];
	view orig;             /* dst as given (ap_dst) */
	unsigned char *dbuf;   /* a strided dst's packed copy */
} unary_ops;

static void unary_done(unary_ops *u)
{
	for (int i = 0; i < 3; i++)
		free(u->buf[i]);
	free(u->dbuf);
}

/* After the engine ran: a strided dst gets its packed copy back. */
static void unary_finish(unary_ops *u, const view *d)
{
	ap_done(&u->orig, d, u->dbuf);
	u->dbuf = NULL;
	unary_done(u);
}

/* A per-partition operand's rules (LANGUAGE.md 7): none for a number
 * (t.base NULL), else a [P, 1] tile in sbuf or psum, P = dst's
 * partitions, whose view goes to *o. */
static int per_part_ok(kdsl_rt *rt, const kdsl_site *site, const char *what, kdsl_ctile t, const view *d, view *o)
{
	int rc;

	if (!t.base)
		return KDSL_OK;
	if ((rc = CHECK_TILE(rt, site, what, t, o)) || (rc = in_mem(rt, site, what, o, 1, 1, 0)))
		return rc;
	if (o->np != d->np || o->n != 1)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s must be [%" PRId64 ", 1] (one value per partition "
		                    "of dst), got [%" PRId64 ", %" PRId64 "]", what, d->np, o->np, o->n);
	return KDSL_OK;
}

/* A checked per-partition operand for the engine: the f32 number v, or
 * the tile o read per row (its uninit check first; snapshotted when it
 * overlaps dst, so every row is read before dst is written). */
static int per_part(kdsl_rt *rt, const kdsl_site *site, const char *what, kdsl_ctile t, double v, const view *d,
                    view *o, kdsl_eng_scalar *y, unsigned char **buf)
{
	int rc;

	y->tile = t.base != NULL;
	y->v = (float)v;
	if (!y->tile)
		return KDSL_OK;
	if (rt->head.check && (rc = uninit_src(rt, site, what, t.base, o)))
		return rc;
	if ((overlap(d, o) || o->nd) && (rc = snapshot(rt, site, o, buf)))
		return rc;
	y->t = eng_rows(o);
	return KDSL_OK;
}

/* dst [P, 1] for src's P partitions (tensor_reduce). */
static int reduced_shape(kdsl_rt *rt, const kdsl_site *site, const view *d, const view *s)
{
	if (d->np == s->np && d->n == 1)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must be [%" PRId64 ", 1] (src's partitions), got [%" PRId64
	                    ", %" PRId64 "]", s->np, d->np, d->n);
}

/* The checks all three ops share: dst and the data view src (named sn)
 * in sbuf or psum, of the same shape (reduce: dst [P, 1]); the two
 * per-partition operands (names on[i], NULL: none); then, every rule
 * checked, the uninit checks and marks and the snapshots. */
static int unary_check(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, view *d, const char *sn, kdsl_ctile src,
                       int reduce, const char *const on[2], const kdsl_ctile ot[2], const double ov[2], unary_ops *u)
{
	int rc, i;

	memset(u, 0, sizeof *u);
	if ((rc = CHECK_TILE(rt, site, "dst", dst, d)) || (rc = CHECK_TILE(rt, site, sn, src, &u->s)) ||
	    (rc = in_mem(rt, site, "dst", d, 1, 1, 0)) || (rc = in_mem(rt, site, sn, &u->s, 1, 1, 0)) ||
	    (rc = reduce ? reduced_shape(rt, site, d, &u->s) : same_shape(rt, site, sn, &u->s, "dst", d)))
		return rc;
	for (i = 0; i < 2; i++)
		if (on[i] && (rc = per_part_ok(rt, site, on[i], ot[i], d, &u->o[i])))
			return rc;
	for (i = 0; i < 2; i++)
		if (on[i] && (rc = per_part(rt, site, on[i], ot[i], ov[i], d, &u->o[i], &u->y[i], &u->buf[i + 1])))
			return rc;
	if (rt->head.check && (rc = uninit_op(rt, site, sn, src.base, &u->s, NULL, NULL, NULL, dst.base, d, 0)))
		return rc;
	/* a strided source is packed like an overlapping one (ap_src); the
	 * element-wise ops read a source that is dst itself in place */
	if (((overlap(d, &u->s) && (reduce || !same_rows(d, &u->s))) || u->s.nd) &&
	    (rc = snapshot(rt, site, &u->s, &u->buf[0])))
		return rc;
	return ap_dst(rt, site, d, &u->orig, &u->dbuf);
}

int kdsl_neuron_tensor_scalar(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a, int64_t op0,
                              kdsl_ctile t0, double v0, int64_t reverse0, int64_t op1, kdsl_ctile t1, double v1,
                              int64_t reverse1)
{
	static const char *const names[2] = {"operand0", "operand1"};
	const char *on[2] = {names[0], op1 == KDSL_ALU_BYPASS ? NULL : names[1]};
	kdsl_ctile ot[2] = {t0, t1};
	double ov[2] = {v0, v1};
	unary_ops u;
	view d;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	memset(&u, 0, sizeof u);
	if ((rc = check_enum(rt, site, "op0", op0, KDSL_NALU)) || (rc = check_enum(rt, site, "op1", op1, KDSL_NALU + 1)) ||
	    (rc = unary_check(rt, site, dst, &d, "a", a, 0, on, ot, ov, &u))) {
		unary_done(&u);
		return rc;
	}
	kdsl_engine_tensor_scalar(rt->isa, eng_rows(&d), eng_rows(&u.s), op0, u.y[0], reverse0 != 0, op1, u.y[1],
	                          reverse1 != 0, d.np, d.n);
	unary_finish(&u, &d);
	return KDSL_OK;
}

int kdsl_neuron_activation(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, int64_t func,
                           kdsl_ctile bias, double bias_v, kdsl_ctile scale, double scale_v)
{
	static const char *const on[2] = {"scale", "bias"};
	kdsl_ctile ot[2] = {scale, bias};
	double ov[2] = {scale_v, bias_v};
	unary_ops u;
	view d;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	memset(&u, 0, sizeof u);
	if ((rc = check_enum(rt, site, "func", func, KDSL_NACT)) ||
	    (rc = unary_check(rt, site, dst, &d, "src", src, 0, on, ot, ov, &u))) {
		unary_done(&u);
		return rc;
	}
	kdsl_engine_activation(rt->isa, func, eng_rows(&d), eng_rows(&u.s), u.y[0], u.y[1], d.np, d.n, rt_pool(rt),
	                       rt->threads);
	unary_finish(&u, &d);
	return KDSL_OK;
}

int kdsl_neuron_tensor_reduce(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, int64_t op,
                              int64_t negate)
{
	static const char *const on[2] = {NULL, NULL};
	kdsl_ctile ot[2] = {kdsl_ctile_none(), kdsl_ctile_none()};
	double ov[2] = {0, 0};
	unary_ops u;
	view d;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	memset(&u, 0, sizeof u);
	if (!kdsl_neuron_reduce_op_ok(op))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "op must be \"add\", \"max\", \"min\" or \"multiply\", "
		                    "got code %" PRId64, op);
	if ((rc = unary_check(rt, site, dst, &d, "src", src, 1, on, ot, ov, &u))) {
		unary_done(&u);
		return rc;
	}
	kdsl_engine_reduce(rt->isa, op, negate != 0, eng_rows(&d), eng_rows(&u.s), d.np, u.s.n);
	unary_finish(&u, &d);
	return KDSL_OK;
}

int kdsl_neuron_affine_select(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, double fill,
                              int64_t p, int64_t f, int64_t c, int64_t cmp)
{
	unsigned char *buf = NULL, *dbuf = NULL;
	view d, s, orig;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	/* GpSimd: both tiles in sbuf (NKI affine_select's memory types) */
	if ((rc = check_enum(rt, site, "cmp", cmp, KDSL_NCMP)) || (rc = index_ok(rt, site, "p", p)) ||
	    (rc = index_ok(rt, site, "f", f)) || (rc = index_ok(rt, site, "c", c)) ||
	    (rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 0, 0)) || (rc = in_mem(rt, site, "src", &s, 1, 0, 0)) ||
	    (rc = same_shape(rt, site, "src", &s, "dst", &d)))
		return rc;
	if (rt->head.check && (rc = uninit_op(rt, site, "src", src.base, &s, NULL, NULL, NULL, dst.base, &d, 0)))
		return rc;
	if (((overlap(&d, &s) || s.nd) && (rc = snapshot(rt, site, &s, &buf))) ||
	    (rc = ap_dst(rt, site, &d, &orig, &dbuf))) {
		free(buf);
		return rc;
	}
	/* on_false_value is an f32 (NKI), so fill is rounded to one first */
	kdsl_engine_select(eng_rows(&d), eng_rows(&s), (float)fill, p, f, c, cmp, d.np, d.n);
	ap_done(&orig, &d, dbuf);
	free(buf);
	return KDSL_OK;
}

/* ---- nc_matmul ---- */

/* the message below gives K and M one limit */
_Static_assert(KDSL_NEURON_MATMUL_MAX_K == KDSL_NEURON_MATMUL_MAX_M, "nc_matmul's K and M limits differ");

int kdsl_neuron_nc_matmul(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile stationary,
                          kdsl_ctile moving, int64_t accumulate)
{
	view d, st, mv, orig;
	unsigned char *ps = NULL, *pm = NULL, *dbuf = NULL;
	int64_t K, M, N;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "stationary", stationary, &st)) ||
	    (rc = CHECK_TILE(rt, site, "moving", moving, &mv)) || (rc = in_mem(rt, site, "dst", &d, 0, 1, 0)) ||
	    (rc = in_mem(rt, site, "stationary", &st, 1, 0, 0)) || (rc = in_mem(rt, site, "moving", &mv, 1, 0, 0)))
		return rc;
	/* The Tensor Engine multiplies f32 only by f32 (NKI nc_matmul). */
	if ((st.dt == KDSL_F32) != (mv.dt == KDSL_F32))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "stationary and moving must both be f32 if either is, "
		                    "got %s and %s", kdsl_dtype_name(st.dt), kdsl_dtype_name(mv.dt));
	K = st.np;
	M = st.n;
	N = mv.n;
	if (d.dt != KDSL_F32)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must be f32, got %s", kdsl_dtype_name(d.dt));
	if (mv.np != K)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "moving must have the same partitions K as stationary, "
		                    "got %" PRId64 " and %" PRId64, mv.np, K);
	if (K > KDSL_NEURON_MATMUL_MAX_K || M > KDSL_NEURON_MATMUL_MAX_M || N > KDSL_NEURON_MATMUL_MAX_N)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "K and M must be at most %d and N at most %d, got "
		                    "K=%" PRId64 " M=%" PRId64 " N=%" PRId64, KDSL_NEURON_MATMUL_MAX_M,
		                    KDSL_NEURON_MATMUL_MAX_N, K, M, N);
	if (d.np != M || d.n != N)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must be [%" PRId64 ", %" PRId64 "], got [%" PRId64
		                    ", %" PRId64 "]", M, N, d.np, d.n);
	if (rt->head.check && (rc = uninit_op(rt, site, "stationary", stationary.base, &st, "moving", moving.base,
	                                      &mv, dst.base, &d, accumulate != 0)))
		return rc;
	/* one scratch area per runtime, allocated at the first matmul */
	if (!rt->eng_scratch && !(rt->eng_scratch = malloc(sizeof(float) * kdsl_engine_matmul_scratch(rt->threads))))
		return kdsl_rt_fail(rt, site, KDSL_ERR_NOMEM, "out of memory");
	if ((rc = ap_src(rt, site, &st, &ps)) || (rc = ap_src(rt, site, &mv, &pm)) ||
	    (rc = ap_dst(rt, site, &d, &orig, &dbuf))) {
		free(ps), free(pm);
		return rc;
	}
	kdsl_engine_matmul(rt->isa, eng_rows(&d), eng_rows(&st), eng_rows(&mv), K, M, N, accumulate != 0,
	                   rt->eng_scratch, rt->threads, rt_pool(rt));
	ap_done(&orig, &d, dbuf);
	free(ps);
	free(pm);
	return KDSL_OK;
}

/* ---- nc_transpose ---- */

/* The Tensor Engine multiplies src by an identity, which NeuronCore-v3
 * does bit-exactly: the emulation moves elements and converts nothing.
 * src is in sbuf and dst in psum, so they never overlap. */
int kdsl_neuron_nc_transpose(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src)
{
	view d, s, orig;
	unsigned char *ps = NULL, *dbuf = NULL;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, 0, 1, 0)) || (rc = in_mem(rt, site, "src", &s, 1, 0, 0)) ||
	    (rc = same_dtype(rt, site, "dst", &d, "src", &s)))
		return rc;
	if (s.np > KDSL_NEURON_TRANSPOSE_MAX || s.n > KDSL_NEURON_TRANSPOSE_MAX)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "src must be at most [%d, %d], got [%" PRId64
		                    ", %" PRId64 "]", KDSL_NEURON_TRANSPOSE_MAX, KDSL_NEURON_TRANSPOSE_MAX,
		                    s.np, s.n);
	if (d.np != s.n || d.n != s.np)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must be [%" PRId64 ", %" PRId64 "], got [%" PRId64
		                    ", %" PRId64 "]", s.n, s.np, d.np, d.n);
	if (rt->head.check && (rc = uninit_op(rt, site, "src", src.base, &s, NULL, NULL, NULL, dst.base, &d, 0)))
		return rc;
	if ((rc = ap_src(rt, site, &s, &ps)) || (rc = ap_dst(rt, site, &d, &orig, &dbuf))) {
		free(ps);
		return rc;
	}
	kdsl_engine_transpose(eng_rows(&d), eng_rows(&s), s.np, s.n);
	ap_done(&orig, &d, dbuf);
	free(ps);
	return KDSL_OK;
}

/* ---- nc_stream_shuffle (seed 000): the operands here, the mask and the
 * row moves in neuron_shuffle.c ---- */

/* The uninit check of a shuffle: dst row r reads src row r/32*32 +
 * mask[r%32] unless the entry is KEEP (the row keeps its bytes and its
 * state); every read comes before any write. */
static int uninit_shuffle(kdsl_rt *rt, const kdsl_site *site, const unsigned char *sbase, const view *s,
                          const view *d, const int64_t *mask)
{
	size_t rb = (size_t)d->n * d->size;
	int64_t r;
	int rc;

	for (r = 0; r < d->np; r++)
		if (mask[r % KDSL_NEURON_QUADRANT] != KDSL_NEURON_SHUFFLE_KEEP &&
		    (rc = kdsl_uninit_rows(rt, site, "src", sbase, s->mem, row(s, r / KDSL_NEURON_QUADRANT * KDSL_NEURON_QUADRANT + mask[r % KDSL_NEURON_QUADRANT]), 0,
		                           1, rb)))
			return rc;
	for (r = 0; r < d->np; r++)
		if (mask[r % KDSL_NEURON_QUADRANT] != KDSL_NEURON_SHUFFLE_KEEP)
			kdsl_uninit_mark(rt, d->mem, row(d, r), rb);
	return KDSL_OK;
}

#define ONCHIP(mem) ((mem) == KDSL_MEM_SBUF || (mem) == KDSL_MEM_PSUM)

/* The op after its tiles' own checks (d and s their views, dp0 and sp0
 * their start partitions, sbase src's storage): the checks between them,
 * the mask's, then the moves.  apart: the caller knows that the views
 * share no byte (0: overlap() finds out).  Inlined into both entries. */
static inline __attribute__((always_inline)) int shuffle_views(kdsl_rt *rt, const kdsl_site *site, view *d,
                                                               view *s, int64_t dp0, int64_t sp0,
                                                               const unsigned char *sbase, const int64_t *mask,
                                                               int64_t nmask, int apart, const kdsl_shuf_args *k)
{
	unsigned char *buf = NULL;
	kdsl_shuf_plans pl;
	int64_t np, active;
	size_t rb;
	int rc, inplace;

	/* in_mem's calls only for a view it may refuse */
	if ((!ONCHIP(d->mem) && (rc = in_mem(rt, site, "dst", d, 1, 1, 0))) ||
	    (!ONCHIP(s->mem) && (rc = in_mem(rt, site, "src", s, 1, 1, 0))) ||
	    (d->dt != s->dt && (rc = same_dtype(rt, site, "dst", d, "src", s))))
		return rc;
	if (d->n != s->n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must have the same number of elements per partition "
		                    "as src, got %" PRId64 " and %" PRId64, d->n, s->n);
	/* The shuffle moves whole partition rows: no access patterns. */
	if (d->nd || s->nd)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be a contiguous view (no access pattern)",
		                    d->nd ? "dst" : "src");
	np = d->np > s->np ? d->np : s->np;
	active = kdsl_neuron_shuffle_active(np);
	/* 0 is a start every count of active partitions allows */
	if ((sp0 | dp0) && (!kdsl_neuron_shuffle_start_ok(active, sp0) || !kdsl_neuron_shuffle_start_ok(active, dp0)))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s start partition must be %s when "
		                    "num_active_partitions is %" PRId64 ", got %" PRId64,
		                    kdsl_neuron_shuffle_start_ok(active, sp0) ? "dst" : "src",
		                    kdsl_neuron_shuffle_starts(active), active,
		                    kdsl_neuron_shuffle_start_ok(active, sp0) ? dp0 : sp0);
	/* In place, every source partition is read before any is written. */
	inplace = d->p == s->p && d->pstride == s->pstride;
	rb = (size_t)d->n * d->size;
	/* The common case in one call: nothing between the plan and the
	 * moves (an overlap test has no error to report before the mask's). */
	if (!rt->head.check && (inplace || apart || !overlap(d, s)))
		return kdsl_shuffle(rt, site, mask, nmask, wrow(d, 0), d->pstride, s->p, s->pstride, d->np, s->np, rb,
		                    inplace, k);
	if ((rc = kdsl_shuffle_plan(rt, site, mask, nmask, d->np, s->np, inplace, &pl)))
		return rc;
	if (rt->head.check && (rc = uninit_shuffle(rt, site, sbase, s, d, mask)))
		return rc;
	/* Any other overlap reads a snapshot. */
	if (!inplace && !apart && overlap(d, s) && (rc = snapshot(rt, site, s, &buf)))
		return rc;
	kdsl_shuffle_rows(rt, wrow(d, 0), d->pstride, s->p, s->pstride, d->np, &pl, rb);
	if (buf)   /* free(NULL) is a call through the PLT too */
		free(buf);
	return KDSL_OK;
}

int kdsl_neuron_nc_stream_shuffle(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                  const int64_t *mask, int64_t nmask)
{
	view d, s;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)))
		return rc;
	return shuffle_views(rt, site, &d, &s, dst.p0, src.p0, src.base, mask, nmask, 0, NULL);
}

/* The storage of rtile t (a kdsl_shuf_args operand) in *base: rt's memory
 * plus t->off when that lies in the memory (KDSL_OK), else the error. */
static int rtile_base(kdsl_rt *rt, const kdsl_site *site, const char *what, const kdsl_rtile *t,
                      unsigned char **base)
{
	if (t->mem != KDSL_MEM_SBUF && t->mem != KDSL_MEM_PSUM)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be in sbuf or psum, got %s", what,
		                    kdsl_mem_name(t->mem));
	if (!rt->mem[t->mem] || t->off >= rt->mem_bytes[t->mem])
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s is not in this runtime's %s", what,
		                    kdsl_mem_name(t->mem));
	*base = rt->mem[t->mem] + t->off;
	return KDSL_OK;
}

/* tile_fast for an rtile: 1 with *v filled when it passes every check. */
static inline __attribute__((always_inline)) int rtile_fast(const kdsl_rt *rt, const kdsl_rtile *t, view *v)
{
	/* tile_fast's storage lies in the memory's first partition (and a
	 * memory rt lacks has 0 bytes there) */
	if ((t->mem != KDSL_MEM_SBUF && t->mem != KDSL_MEM_PSUM) || t->off >= rt->part_bytes[t->mem])
		return 0;
	return tile_fast(rt, rt->mem[t->mem] + t->off, rt->part_stride[t->mem], t->pbytes, t->nparts, t->p0, t->np,
	                 t->foff, t->n, t->mem, t->dt, 0, v);
}

/* Two rtiles that passed rtile_fast share no byte: in different memories,
 * or their columns apart (each tile's rows lie in one partition each, at
 * the same columns).  0 when they may share one: overlap() decides. */
static inline int rtiles_apart(const kdsl_rtile *d, const kdsl_rtile *s, size_t size)
{
	size_t dc = d->off + (size_t)d->foff * size, sc = s->off + (size_t)s->foff * size, rb = (size_t)d->n * size;

	return d->mem != s->mem || dc + rb <= sc || sc + (size_t)s->n * size <= dc;
}

/* The tiles that failed rtile_fast through the by-value entry, whose
 * checks then word every error as they do for a kdsl_tile. */
static int __attribute__((noinline)) shuffle_k_slow(kdsl_rt *rt, const kdsl_site *site, const kdsl_shuf_args *a)
{
	unsigned char *db, *sb;
	int rc;

	if ((rc = rtile_base(rt, site, "dst", &a->dst, &db)) || (rc = rtile_base(rt, site, "src", &a->src, &sb)))
		return rc;
	return kdsl_neuron_nc_stream_shuffle(
	    rt, site,
	    kdsl_tile_of(db, rt->part_stride[a->dst.mem], a->dst.pbytes, a->dst.nparts, a->dst.p0, a->dst.np,
	                 a->dst.foff, a->dst.n, a->dst.mem, a->dst.dt),
	    kdsl_ctile_of(sb, rt->part_stride[a->src.mem], a->src.pbytes, a->src.nparts, a->src.p0, a->src.np,
	                  a->src.foff, a->src.n, a->src.mem, a->src.dt),
	    a->mask, KDSL_NEURON_QUADRANT);
}

int kdsl_neuron_nc_stream_shuffle_k(kdsl_rt *rt, const kdsl_site *site, const kdsl_shuf_args *a)
{
	view d, s;

	if (!rt)
		return KDSL_ERR_ARG;
	if (!a)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "nc_stream_shuffle's operands are NULL");
	/* these bytes passed on this runtime before: the same moves */
	if (!rt->head.check && kdsl_shuffle_k_again(rt, a))
		return KDSL_OK;
	if (!rtile_fast(rt, &a->dst, &d) || !rtile_fast(rt, &a->src, &s))
		return shuffle_k_slow(rt, site, a);
	return shuffle_views(rt, site, &d, &s, a->dst.p0, a->src.p0, rt->mem[a->src.mem] + a->src.off, a->mask,
	                     KDSL_NEURON_QUADRANT, rtiles_apart(&a->dst, &a->src, d.size), a);
}

/* ---- tensor_copy_predicated (seed 002) ----
 * Through the blend kernel of neuron_blend.c that kdsl_rt_create chose for this
 * machine: the whole tile in one call (its row loop inside), except when
 * src is converted (through f32, kdsl_engine_map), a row at a time.  Equal
 * dtypes blend the bits, so the copy is bit-exact; a scalar src is an f32
 * operand converted to dst's dtype. */

/* Whether element j of predicate row pr (elements of size bytes) selects
 * its dst element: nonzero, or zero under reverse_pred (flip). */
static int pred_selects(const unsigned char *pr, size_t size, int64_t j, uint64_t flip)
{
	uint16_t h;
	uint32_t w;
	int on;

	/* fixed-size loads: a memcpy of a variable size is a library call */
	if (size == 1) {
		on = pr[j] != 0;
	} else if (size == 2) {
		memcpy(&h, pr + 2 * (size_t)j, 2);
		on = h != 0;
	} else {
		memcpy(&w, pr + 4 * (size_t)j, 4);
		on = w != 0;
	}
	return on != (flip != 0);
}

/* The uninit check of a predicated copy: all of the predicate is read;
 * src (sbase NULL: a scalar) only where the predicate selects, and dst
 * is written there; elsewhere dst keeps its bytes, and their state.
 * Runs of selected elements are checked and marked a run at a time. */
static int uninit_predicated(kdsl_rt *rt, const kdsl_site *site, const unsigned char *sbase, const view *s,
                             const unsigned char *pbase, const view *pv, const view *d, uint64_t flip)
{
	int64_t p, j, k, pass;
	int rc;

	if ((rc = uninit_src(rt, site, "predicate", pbase, pv)))
		return rc;
	for (pass = 0; pass < 2; pass++)   /* every read before any write */
		for (p = 0; p < d->np; p++)
			for (j = 0; j < d->n; j = k) {
				const unsigned char *pr = row(pv, p);
				size_t at;
				for (; j < d->n && !pred_selects(pr, pv->size, j, flip); j++)
					;
				for (k = j; k < d->n && pred_selects(pr, pv->size, k, flip); k++)
					;
				if (j == k)
					break;
				if (pass)
					kdsl_uninit_mark(rt, d->mem, row(d, p) + (size_t)j * d->size, (size_t)(k - j) * d->size);
				else if (sbase && (at = kdsl_uninit_first(rt, s->mem, row(s, p) + (size_t)j * s->size,
				                                          (size_t)(k - j) * s->size)) <
				                      (size_t)(k - j) * s->size)
					return kdsl_uninit_fail(rt, site, "src", sbase, s->mem, row(s, p) + (size_t)j * s->size + at);
			}
	return KDSL_OK;
}

/* Element j of view partition p (j < n), for the element-wise walks. */
static const unsigned char *elem(const view *v, int64_t p, int64_t j)
{
	int64_t st[KDSL_NEURON_AP_DIMS], ct[KDSL_NEURON_AP_DIMS], i2;

	ap_dims(v, st, ct);
	i2 = j % ct[2];
	j /= ct[2];
	return row(v, p) + (size_t)((j / ct[1]) * st[0] + (j % ct[1]) * st[1] + i2 * st[2]) * v->size;
}

/* uninit_predicated for strided operands, an element at a time. */
static int uninit_predicated_ap(kdsl_rt *rt, const kdsl_site *site, const unsigned char *sbase, const view *s,
                                const unsigned char *pbase, const view *pv, const view *d, uint64_t flip)
{
	int64_t p, j, pass;
	int rc;

	if ((rc = uninit_src(rt, site, "predicate", pbase, pv)))
		return rc;
	for (pass = 0; pass < 2; pass++)   /* every read before any write */
		for (p = 0; p < d->np; p++)
			for (j = 0; j < d->n; j++) {
				if (!pred_selects(elem(pv, p, j), pv->size, 0, flip))
					continue;
				if (pass)
					kdsl_uninit_mark(rt, d->mem, elem(d, p, j), d->size);
				else if (sbase && kdsl_uninit_first(rt, s->mem, elem(s, p, j), s->size) < s->size)
					return kdsl_uninit_fail(rt, site, "src", sbase, s->mem, elem(s, p, j));
			}
	return KDSL_OK;
}

/* The predicated copy of checked, contiguous views. */
static int predicated(kdsl_rt *rt, const kdsl_site *site, double src_scalar, int tile, const view *dp,
                      const view *sp, const view *pvp, uint64_t flip)
{
	view d = *dp, s = *sp, pv = *pvp;
	unsigned char *bs = NULL, *bp = NULL, *tmp = NULL;
	kdsl_blend_fn blend;
	int64_t p;
	int rc;

	if (tile && overlap(&d, &s)) {
		/* src is dst element for element: every element keeps its value. */
		if (s.p == d.p && s.pstride == d.pstride && s.dt == d.dt)
			return KDSL_OK;
		/* Otherwise the source is read first (and the blend's restrict holds). */
		if ((rc = snapshot(rt, site, &s, &bs)))
			return rc;
	}
	if (overlap(&d, &pv) && (rc = snapshot(rt, site, &pv, &bp))) {
		free(bs);
		return rc;
	}
	/* The source row in dst's dtype: the scalar repeated, or a converted row. */
	if (!tile || s.dt != d.dt) {
		tmp = malloc((size_t)d.n * d.size);
		if (!tmp) {
			free(bs);
			free(bp);
			return kdsl_rt_fail(rt, site, KDSL_ERR_NOMEM, "out of memory");
		}
		if (!tile) {   /* a scalar operand is an f32 too */
			unsigned char one[8];
			kdsl_store_f32(d.dt, one, (float)src_scalar);
			kdsl_splat(tmp, one, d.size, (size_t)d.n);
		}
	}
	blend = kdsl_blend_select(rt->isa, d.size, pv.size);
	if (!tile || s.dt == d.dt) {   /* one call: src's rows, or the scalar's row each time */
		blend(wrow(&d, 0), d.pstride, tile ? s.p : tmp, tile ? s.pstride : 0, pv.p, pv.pstride, d.p, d.pstride,
		      d.np, d.n, flip);
	} else {
		for (p = 0; p < d.np; p++) {
			kdsl_eng_rows t = {tmp, 0, d.dt}, r = {row(&s, p), 0, s.dt};
			kdsl_engine_map(rt->isa, KDSL_ENG_COPY, 0, t, r, r, 1, d.n);
			blend(wrow(&d, p), 0, tmp, 0, row(&pv, p), 0, row(&d, p), 0, 1, d.n, flip);
		}
	}
	free(tmp);
	free(bs);
	free(bp);
	return KDSL_OK;
}

/* Seed 002's rules of the predicate, shared by tensor_copy_predicated
 * and the predicated_merge made of it.  The first: an unsigned integer
 * dtype. */
static int predicate_dtype(kdsl_rt *rt, const kdsl_site *site, const view *pv)
{
	if (kdsl_neuron_predicate_dtype_ok(pv->dt))
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "predicate must be u8, u16 or u32, got %s",
	                    kdsl_dtype_name(pv->dt));
}

/* The second: not in psum with the data operand s (named sname). */
static int predicate_apart(kdsl_rt *rt, const kdsl_site *site, const view *pv, const char *sname, const view *s)
{
	if (s->mem != KDSL_MEM_PSUM || pv->mem != KDSL_MEM_PSUM)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s and predicate must not both be in psum", sname);
}

/* ---- predicated_merge: load, tensor_copy_predicated and store in one ----
 * What the chain computes (on_false's rows, on_true blended in where the
 * predicate selects), read where the inputs are, in one pass of the
 * blend kernel that reads on_true, on_false and the predicate and writes
 * dst.  When dst is on_false's very view, or strided, the kernel blends
 * dst in place (on_false's rows copied to it first when they differ);
 * when dst shares bytes with on_true or the predicate, or with on_false
 * other than as the same view, it blends a packed copy of on_false that
 * then goes to dst, so every input is read before dst is written. */

/* The merge of checked views (d hbm, f hbm, t and pv anywhere). */
static int merge_views(kdsl_rt *rt, const kdsl_site *site, const view *d, view t, view f, view pv, uint64_t flip)
{
	unsigned char *bt = NULL, *bp = NULL, *bf = NULL, *wb = NULL;
	view w = *d, orig;
	int same = same_view(d, &f), rc;
	int scratch = overlap(d, &t) || overlap(d, &pv) || (!same && overlap(d, &f));
	int in_place = scratch || same || d->nd;

	if (scratch) {
		w = f;   /* the blend's dst: a packed copy of on_false */
		rc = snapshot(rt, site, &w, &wb);
	} else if (in_place) {
		rc = same ? KDSL_OK : copy_rows(rt, site, d, f);
		if (!rc)
			rc = ap_dst(rt, site, &w, &orig, &wb);
	} else {
		rc = ap_src(rt, site, &f, &bf);   /* one pass: on_false read as dst is written */
	}
	if (rc || (rc = ap_src(rt, site, &t, &bt)) || (rc = ap_src(rt, site, &pv, &bp))) {
		free(wb), free(bt), free(bf);
		return rc;
	}
	if (in_place)
		f = w;
	kdsl_blend_select(rt->isa, w.size, pv.size)(wrow(&w, 0), w.pstride, t.p, t.pstride, pv.p, pv.pstride, f.p,
	                                            f.pstride, w.np, w.n, flip);
	if (scratch) {   /* wb is no view of d: copy_rows copies it without a snapshot */
		rc = copy_rows(rt, site, d, w);
		free(wb);
	} else if (in_place) {
		ap_done(&orig, &w, wb);
	}
	free(bt);
	free(bp);
	free(bf);
	return rc;
}

int kdsl_neuron_predicated_merge(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile on_true,
                                 kdsl_ctile on_false, kdsl_ctile predicate, int64_t reverse_pred)
{
	view d, t, f, pv;
	uint64_t flip = reverse_pred != 0 ? ~(uint64_t)0 : 0;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "on_true", on_true, &t)) ||
	    (rc = CHECK_TILE(rt, site, "on_false", on_false, &f)) ||
	    (rc = CHECK_TILE(rt, site, "predicate", predicate, &pv)) || (rc = in_mem(rt, site, "dst", &d, 0, 0, 1)) ||
	    (rc = in_mem(rt, site, "on_true", &t, 1, 1, 1)) || (rc = in_mem(rt, site, "on_false", &f, 0, 0, 1)) ||
	    (rc = in_mem(rt, site, "predicate", &pv, 1, 1, 1)) ||
	    (rc = same_shape(rt, site, "on_true", &t, "dst", &d)) ||
	    (rc = same_shape(rt, site, "on_false", &f, "dst", &d)) ||
	    (rc = same_shape(rt, site, "predicate", &pv, "dst", &d)) ||
	    (rc = same_dtype(rt, site, "on_true", &t, "dst", &d)) || (rc = same_dtype(rt, site, "on_false", &f, "dst", &d)))
		return rc;
	if ((rc = predicate_dtype(rt, site, &pv)) || (rc = predicate_apart(rt, site, &pv, "on_true", &t)))
		return rc;
	/* the chain's on-chip reads: all of the predicate, on_true where it
	 * selects (hbm bytes and dst are not tracked) */
	if (rt->head.check && (rc = (d.nd || pv.nd || t.nd ? uninit_predicated_ap : uninit_predicated)(
	                                 rt, site, on_true.base, &t, predicate.base, &pv, &d, flip)))
		return rc;
	return merge_views(rt, site, &d, t, f, pv, flip);
}

/* ---- load_gather and store_scatter: indirect DMA (LANGUAGE.md 7) ----
 * Row index[p] of the hbm view to or from partition p of the sbuf tile,
 * one row copy each.  The indices are read (after the uninit check of the
 * index tile) and all bounded by the view's rows before anything is
 * written, so a bad one writes nothing; reading them first also makes an
 * index tile that overlaps dst harmless.  store_scatter writes in
 * partition order: the highest of duplicate indices wins. */
static int indirect(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, kdsl_ctile index,
                    int gather)
{
	view d, s, x;
	int32_t at[KDSL_NEURON_PARTITIONS];
	int64_t p;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = CHECK_TILE(rt, site, "index", index, &x)) || (rc = in_mem(rt, site, "dst", &d, gather, 0, !gather)) ||
	    (rc = in_mem(rt, site, "src", &s, !gather, 0, gather)) || (rc = in_mem(rt, site, "index", &x, 1, 0, 0)) ||
	    (rc = same_dtype(rt, site, "src", &s, "dst", &d)))
		return rc;
	const view *on = gather ? &d : &s, *h = gather ? &s : &d;
	const char *onn = gather ? "dst" : "src", *hn = gather ? "src" : "dst";
	if (h->n != on->n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s must have as many elements per row as %s per partition, "
		                    "got %" PRId64 " and %" PRId64, hn, onn, h->n, on->n);
	if (x.dt != KDSL_NEURON_INDEX_DTYPE)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "index must be %s, got %s",
		                    kdsl_dtype_name(KDSL_NEURON_INDEX_DTYPE), kdsl_dtype_name(x.dt));
	if (x.np != on->np || x.n != 1)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "index must be [%" PRId64 ", 1], one row number per "
		                    "partition of %s, got [%" PRId64 ", %" PRId64 "]", on->np, onn, x.np, x.n);
	/* a row of the hbm view is one run (the sbuf side may be strided) */
	if (h->nd)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s must be a view whose rows are contiguous (no slice steps, "
		                    ".T or permute in its last dim)", hn);
	if (rt->head.check && (rc = uninit_src(rt, site, "index", index.base, &x)))
		return rc;
	for (p = 0; p < on->np; p++) {
		memcpy(&at[p], elem(&x, p, 0), sizeof at[p]);
		if (at[p] < 0 || at[p] >= h->np)
			return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS, "index[%" PRId64 "] = %" PRId32
			                    " is outside %s's %" PRId64 " rows", p, at[p], hn, h->np);
	}
	if (rt->head.check && (rc = uninit_op(rt, site, "src", src.base, &s, NULL, NULL, NULL, dst.base, &d, 0)))
		return rc;
	unsigned char *sbuf = NULL, *dbuf = NULL;
	view orig;
	if ((rc = ap_src(rt, site, &s, &sbuf)) || (rc = ap_dst(rt, site, &d, &orig, &dbuf))) {
		free(sbuf);
		return rc;
	}
	for (p = 0; p < on->np; p++)
		kdsl_copy_row(wrow(&d, gather ? p : at[p]), row(&s, gather ? at[p] : p), (size_t)d.n * d.size);
	ap_done(&orig, &d, dbuf);
	free(sbuf);
	return KDSL_OK;
}

int kdsl_neuron_load_gather(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, kdsl_ctile index)
{
	return indirect(rt, site, dst, src, index, 1);
}

int kdsl_neuron_store_scatter(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                              kdsl_ctile index)
{
	return indirect(rt, site, dst, src, index, 0);
}
int kdsl_neuron_tensor_copy_predicated(kdsl_rt *rt, const kdsl_site *site, kdsl_ctile src,
                                       double src_scalar, kdsl_tile dst, kdsl_ctile predicate,
                                       int64_t mask, int64_t dtype, int64_t reverse_pred)
{
	view d, s = {0}, pv, orig;
	unsigned char *ps = NULL, *pp = NULL, *dbuf = NULL;
	int tile = src.base != NULL, rc;
	uint64_t flip = reverse_pred != 0 ? ~(uint64_t)0 : 0;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "predicate", predicate, &pv)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) || (rc = in_mem(rt, site, "predicate", &pv, 1, 1, 0)) ||
	    (rc = same_shape(rt, site, "predicate", &pv, "dst", &d)))
		return rc;
	if ((rc = predicate_dtype(rt, site, &pv)))
		return rc;
	if (dtype && (dtype < 1 || dtype >= KDSL_NDTYPE || (kdsl_dtype)dtype != d.dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must have the dtype given by dtype, got %s",
		                    kdsl_dtype_name(d.dt));
	if (tile) {
		if ((rc = CHECK_TILE(rt, site, "src", src, &s)) || (rc = in_mem(rt, site, "src", &s, 1, 1, 0)) ||
		    (rc = same_shape(rt, site, "src", &s, "dst", &d)) || (rc = predicate_apart(rt, site, &pv, "src", &s)))
			return rc;
		if (!dtype && (rc = same_dtype(rt, site, "src", &s, "dst", &d)))
			return rc;
	}
	if (!mask)
		return KDSL_OK;
	if (rt->head.check && (rc = (d.nd || pv.nd || (tile && s.nd) ? uninit_predicated_ap : uninit_predicated)(
	                                 rt, site, tile ? src.base : NULL, &s, predicate.base, &pv, &d, flip)))
		return rc;
	if ((tile && (rc = ap_src(rt, site, &s, &ps))) || (rc = ap_src(rt, site, &pv, &pp)) ||
	    (rc = ap_dst(rt, site, &d, &orig, &dbuf))) {
		free(ps), free(pp);
		return rc;
	}
	rc = predicated(rt, site, src_scalar, tile, &d, &s, &pv, flip);
	ap_done(&orig, &d, dbuf);
	free(ps);
	free(pp);
	return rc;
}

