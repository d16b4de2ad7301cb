/* neuron.c: the neuron ops (AWS NKI; seeds 000, 002, 003) on the emulated
 * sbuf and psum (partitions and sizes as kdsl_hw.h gives them).  Partition
 * p of a memory starts p * partition-bytes into
 * it, so a tile is a base, a partition stride and a run of elements in
 * each partition.  Every op checks every operand and rule before it writes
 * anything.  Data movement works on whole partition rows (memcpy); only
 * the arithmetic ops look at single elements. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* A checked view: the first viewed element of partition p0, and the rest. */
typedef struct {
	const unsigned char *p;
	size_t pstride;
	int64_t np, n;
	size_t size;
	kdsl_mem mem;
	kdsl_dtype dt;
} view;

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

/* The tile's fields against each other and, on chip, against the memory. */
static int check_view(kdsl_rt *rt, const kdsl_site *site, const char *what, const unsigned char *base,
                      size_t pstride, size_t pbytes, int64_t nparts, int64_t p0, int64_t np, int64_t off,
                      int64_t n, kdsl_mem mem, kdsl_dtype dt, view *v)
{
	size_t size, elems;

	if (!base)
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s tensor is NULL", what);
	if (!dtype_ok(dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s has no valid dtype", what);
	/* sizes are powers of two: no divides */
	size = kdsl_dtype_size(dt);
	elems = size == 1 ? pbytes : size == 2 ? pbytes >> 1 : size == 4 ? pbytes >> 2 : pbytes >> 3;
	if (nparts < 1 || (nparts > 1 && pbytes > pstride) || (pbytes & (size - 1)))
		return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "%s is not a valid tile", what);
	if (np < 1 || p0 < 0 || p0 > nparts - np)
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: partitions %" PRId64 "..%" PRId64 " are outside its %" PRId64 " partitions",
		                    what, p0, last_index(p0, np), nparts);
	if (n < 1 || off < 0 || (uint64_t)n > elems || (uint64_t)off > elems - (uint64_t)n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS,
		                    "%s: elements %" PRId64 "..%" PRId64 " of each partition are outside its %zu",
		                    what, off, last_index(off, n), elems);
	/* The rows must not wrap the address space, or the pointers below
	 * would (n >= 1 here, so pbytes >= 1 and, with rows, pstride >= 1).
	 * Products below 2^62 need no divide. */
	uint64_t room = UINTPTR_MAX - (uintptr_t)base, rows = (uint64_t)nparts - 1;
	if (pbytes > room || (rows && ((rows | pstride) >> 31 ? rows > (room - pbytes) / pstride
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
	v->p = base + (size_t)p0 * pstride + (size_t)off * size;
	v->pstride = pstride;
	v->np = np;
	v->n = n;
	v->size = size;
	v->mem = mem;
	v->dt = dt;
	return KDSL_OK;
}

#define CHECK_TILE(rt, site, what, t, v) \
	check_view(rt, site, what, (t).base, (t).pstride, (t).pbytes, (t).nparts, (t).p0, (t).np, (t).off, \
	           (t).n, (t).mem, (t).dt, v)

static unsigned char *wrow(const view *v, int64_t p)
{
	/* dst views come from a kdsl_tile, whose base is writable */
	return (unsigned char *)(uintptr_t)(v->p + (size_t)p * v->pstride);
}

static const unsigned char *row(const view *v, int64_t p)
{
	return v->p + (size_t)p * v->pstride;
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
 * need no snapshot); otherwise the spans are. */
static int overlap(const view *a, const view *b)
{
	size_t alen = (size_t)a->n * a->size, blen = (size_t)b->n * b->size, ps = a->pstride;
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
		kdsl_copy_row(c + (size_t)p * rb, row(v, p), rb);
	v->p = c;
	v->pstride = rb;
	*buf = c;
	return KDSL_OK;
}

/* ---- copies ---- */

/* An integer element of at most 16 bits (or bool), sign- or zero-extended:
 * every such value is exact in an f32. */
static int64_t load_small_int(kdsl_dtype dt, const unsigned char *p)
{
	union { int8_t i8; int16_t i16; uint8_t u8; uint16_t u16; } u;
	memcpy(&u, p, kdsl_dtype_size(dt));
	switch (dt) {
	case KDSL_I8: return u.i8;
	case KDSL_I16: return u.i16;
	case KDSL_U16: return u.u16;
	case KDSL_BOOL: return u.u8 != 0;
	default: return u.u8;   /* u8 */
	}
}

/* Whether every value of integer dtype dt (or bool) is exact in an f32. */
static int int_exact_in_f32(kdsl_dtype dt)
{
	return dt == KDSL_I8 || dt == KDSL_I16 || dt == KDSL_U8 || dt == KDSL_U16 || dt == KDSL_BOOL;
}

/* n elements converted from dtype sd at i to dtype dd (!= sd) at o the
 * engines' way, kdsl_store_f32(dd, kdsl_load_f32(sd)): through an f32, so
 * an i32 of 16777217 becomes 16777216.  The common pairs are plain loops
 * over inline conversions with the same result: f32 <-> f16 and bf16,
 * and integers of at most 16 bits into integers (exact in an f32, and an
 * f32 integer truncated and wrapped is the integer wrapped). */
static void convert_row(kdsl_dtype dd, unsigned char *o, kdsl_dtype sd, const unsigned char *i, int64_t n)
{
	size_t ds = kdsl_dtype_size(dd), ss = kdsl_dtype_size(sd);
	int64_t j;
	float x;
	kdsl_f16 h;

	if (sd == KDSL_F32 && (dd == KDSL_F16 || dd == KDSL_BF16)) {
		for (j = 0; j < n; j++) {
			memcpy(&x, i + 4 * j, 4);
			h = dd == KDSL_F16 ? kdsl_h_f32_to_f16(x) : kdsl_h_f32_to_bf16(x);
			memcpy(o + 2 * j, &h, 2);
		}
	} else if (dd == KDSL_F32 && (sd == KDSL_F16 || sd == KDSL_BF16)) {
		for (j = 0; j < n; j++) {
			memcpy(&h, i + 2 * j, 2);
			x = sd == KDSL_F16 ? kdsl_h_f16_to_f32(h) : kdsl_h_bf16_to_f32(h);
			memcpy(o + 4 * j, &x, 4);
		}
	} else if (int_exact_in_f32(sd) && dd < KDSL_F16) {
		for (j = 0; j < n; j++)
			kdsl_store_bits(dd, o + (size_t)j * ds, (uint64_t)load_small_int(sd, i + (size_t)j * ss));
	} else {
		for (j = 0; j < n; j++)
			kdsl_store_f32(dd, o + (size_t)j * ds, kdsl_load_f32(sd, i + (size_t)j * ss));
	}
}

/* dst = src, row by row: a same-dtype copy is bit-exact (any pattern,
 * NaN payloads included), a converting one goes through f32. */
static int copy_rows(kdsl_rt *rt, const kdsl_site *site, const view *d, view s)
{
	unsigned char *buf = NULL;
	int64_t p;
	int rc;

	if (overlap(d, &s) && (rc = snapshot(rt, site, &s, &buf)))
		return rc;
	for (p = 0; p < d->np; p++) {
		unsigned char *o = wrow(d, p);
		const unsigned char *i = row(&s, p);
		if (d->dt == s.dt)
			kdsl_copy_row(o, i, (size_t)d->n * d->size);
		else
			convert_row(d->dt, o, s.dt, i, d->n);
	}
	free(buf);
	return KDSL_OK;
}

static int move(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, int load)
{
	view d, s;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, load, 0, !load)) || (rc = in_mem(rt, site, "src", &s, !load, 0, load)) ||
	    (rc = same_dtype(rt, site, "src", &s, "dst", &d)) || (rc = same_shape(rt, site, "src", &s, "dst", &d)))
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
	return copy_rows(rt, site, &d, s);
}

/* ---- element-wise ops ---- */

int kdsl_neuron_memset(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double value)
{
	unsigned char one[8];
	view d;
	int64_t p;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)))
		return rc;
	kdsl_store_value(d.dt, one, value);
	for (p = 0; p < d.np; p++)
		kdsl_splat(wrow(&d, p), one, d.size, (size_t)d.n);
	return KDSL_OK;
}

int kdsl_neuron_iota(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, double base, double step)
{
	view d;
	int64_t p, j;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	/* iota runs on the GpSimd engine, which cannot reach psum. */
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = in_mem(rt, site, "dst", &d, 1, 0, 0)))
		return rc;
	for (p = 0; p < d.np; p++) {
		unsigned char *o = wrow(&d, p);
		for (j = 0; j < d.n; j++)
			kdsl_store_value(d.dt, o + (size_t)j * d.size, base + step * (double)(p * d.n + j));
	}
	return KDSL_OK;
}

/* One ALU op in f32 (x86-64 evaluates float expressions in float, so each
 * result is rounded to f32 once, as the engines do). */
static float alu(int64_t op, float x, float y)
{
	switch (op) {
	case KDSL_ALU_ADD: return x + y;
	case KDSL_ALU_SUBTRACT: return x - y;
	case KDSL_ALU_MULTIPLY: return x * y;
	case KDSL_ALU_MAX: return x > y ? x : y;
	default: return x < y ? x : y;
	}
}

/* One activation in f32.  exp is the f32 nearest e^x: libm's double exp
 * rounded once to f32, so it is the same on every libc (expf is not
 * correctly rounded and differs between libcs; numpy's own f32 exp
 * differs from both in the last bit). */
static float act(int64_t func, float x)
{
	switch (func) {
	case KDSL_ACT_EXP: return (float)exp((double)x);
	case KDSL_ACT_RELU: return x > 0 ? x : 0;
	default: return x;
	}
}

static int check_enum(kdsl_rt *rt, const kdsl_site *site, const char *what, int64_t v, int64_t n)
{
	if (v >= 0 && v < n)
		return KDSL_OK;
	return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s code must be in 0..%" PRId64 ", got %" PRId64, what,
	                    n - 1, v);
}

/* dst = f(a, b) element-wise, the engines' way: a, b and the scalar y
 * converted to f32, f computed in f32, the result converted to dst's
 * dtype.  b may be absent (scalar y).  Sources that overlap dst are
 * snapshotted first. */
static int elementwise(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a, const kdsl_ctile *b,
                       int64_t op, double y, int is_act)
{
	view d, s, t;
	unsigned char *ba = NULL, *bb = NULL;
	int64_t p, j;
	float fy = (float)y;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = check_enum(rt, site, is_act ? "func" : "op", op, is_act ? KDSL_NACT : KDSL_NALU)) ||
	    (rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, is_act ? "src" : "a", a, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) || (rc = in_mem(rt, site, is_act ? "src" : "a", &s, 1, 1, 0)) ||
	    (rc = same_shape(rt, site, is_act ? "src" : "a", &s, "dst", &d)))
		return rc;
	if (b && ((rc = CHECK_TILE(rt, site, "b", *b, &t)) || (rc = in_mem(rt, site, "b", &t, 1, 1, 0)) ||
	          (rc = same_shape(rt, site, "b", &t, "dst", &d))))
		return rc;
	if (overlap(&d, &s) && (rc = snapshot(rt, site, &s, &ba)))
		return rc;
	if (b && overlap(&d, &t) && (rc = snapshot(rt, site, &t, &bb))) {
		free(ba);
		return rc;
	}
	for (p = 0; p < d.np; p++) {
		unsigned char *o = wrow(&d, p);
		const unsigned char *x = row(&s, p), *z = b ? row(&t, p) : NULL;
		for (j = 0; j < d.n; j++) {
			float v = kdsl_load_f32(s.dt, x + (size_t)j * s.size), r;
			if (is_act)
				r = act(op, v);
			else
				r = alu(op, v, z ? kdsl_load_f32(t.dt, z + (size_t)j * t.size) : fy);
			kdsl_store_f32(d.dt, o + (size_t)j * d.size, r);
		}
	}
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
	return elementwise(rt, site, dst, a, &b, op, 0, 0);
}

int kdsl_neuron_tensor_scalar(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile a,
                              int64_t op, double scalar)
{
	return elementwise(rt, site, dst, a, NULL, op, scalar, 0);
}

int kdsl_neuron_activation(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src, int64_t func)
{
	return elementwise(rt, site, dst, src, NULL, func, 0, 1);
}

/* ---- nc_matmul ---- */

/* the message below gives K and M one limit */
_Static_assert(KDSL_NEURON_MATMUL_MAX_K == KDSL_NEURON_MATMUL_MAX_M, "nc_matmul's K and M limits differ");

int kdsl_neuron_nc_matmul(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile stationary,
                          kdsl_ctile moving, int64_t accumulate)
{
	view d, st, mv;
	float *a, *b, *acc;
	int64_t k, m, n, K, M, N;
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
	a = malloc(sizeof *a * (size_t)(K * M));
	b = malloc(sizeof *b * (size_t)(K * N));
	acc = malloc(sizeof *acc * (size_t)N);
	if (!a || !b || !acc) {
		free(a);
		free(b);
		free(acc);
		return kdsl_rt_fail(rt, site, KDSL_ERR_NOMEM, "out of memory");
	}
	/* Both inputs are read before dst is written (psum never overlaps sbuf). */
	for (k = 0; k < K; k++) {
		for (m = 0; m < M; m++)
			a[k * M + m] = kdsl_load_f32(st.dt, row(&st, k) + (size_t)m * st.size);
		for (n = 0; n < N; n++)
			b[k * N + n] = kdsl_load_f32(mv.dt, row(&mv, k) + (size_t)n * mv.size);
	}
	for (m = 0; m < M; m++) {
		float *o = (float *)(void *)wrow(&d, m);
		for (n = 0; n < N; n++)
			acc[n] = 0.0f;
		for (k = 0; k < K; k++) {
			float s = a[k * M + m];
			const float *r = b + k * N;
			for (n = 0; n < N; n++)
				acc[n] += s * r[n];
		}
		for (n = 0; n < N; n++) {
			float v;
			memcpy(&v, o + n, 4);
			v = accumulate ? v + acc[n] : acc[n];
			memcpy(o + n, &v, 4);
		}
	}
	free(a);
	free(b);
	free(acc);
	return KDSL_OK;
}

/* ---- nc_transpose ---- */

/* The Tensor Engine multiplies src by an identity, which NeuronCore-v3
 * does bit-exactly: the emulation moves elements and converts nothing.
 * src is in sbuf and dst in psum, so they never overlap. */
int kdsl_neuron_nc_transpose(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src)
{
	view d, s;
	int64_t p, j;
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
	for (j = 0; j < d.np; j++) {
		unsigned char *o = wrow(&d, j);
		for (p = 0; p < s.np; p++)
			memcpy(o + (size_t)p * d.size, row(&s, p) + (size_t)j * s.size, s.size);
	}
	return KDSL_OK;
}

/* ---- nc_stream_shuffle (seed 000) ---- */

enum { QUAD = KDSL_NEURON_QUADRANT, KEEP = KDSL_NEURON_SHUFFLE_KEEP };

/* dst row g + j (g a multiple of 32) reads src row g + mask[j].  The mask
 * is the same for every group of 32 rows, so a call works out once which
 * rows it writes and how (the plan) and then walks the groups; a partial
 * last group gets a plan of its own.  Copying, each written row is one
 * memcpy-class copy.  In place (dst and src the same rows), each group
 * only reads itself and column c only column c, so no snapshot of the
 * tile is taken: when the written rows are a permutation of themselves
 * (the usual shuffle), each cycle is rotated through a one-chunk buffer,
 * pairs swapped through vector registers, so memory sees one read and one
 * write of each moved byte, as a memcpy; otherwise the rows that are read
 * are copied to a small buffer a column chunk at a time. */
#define SHUF_CHUNK 512

typedef struct {
	int n;                     /* rows written: to[k] reads from[k] */
	signed char to[QUAD], from[QUAD];
	char need[QUAD];           /* rows read */
	int perm;                  /* in place: the written rows permute themselves */
	int ncyc;                  /* ... as cycles clen[c] long, one after another in cyc */
	signed char cyc[QUAD], clen[QUAD];
} shuf_plan;

static void shuffle_plan(shuf_plan *pl, const int64_t *mask, int rows, int inplace)
{
	char seen[QUAD] = {0}, done[QUAD] = {0};
	int j, k, c = 0;

	memset(pl, 0, sizeof *pl);
	for (j = 0; j < rows; j++)
		if (mask[j] != KEEP && !(inplace && mask[j] == j)) {
			pl->to[pl->n] = (signed char)j;
			pl->from[pl->n++] = (signed char)mask[j];
			pl->need[mask[j]] = 1;
		}
	if (!inplace)
		return;
	for (k = 0; k < pl->n; k++) {
		int f = pl->from[k];
		if (f >= rows || mask[f] == KEEP || mask[f] == f || seen[f])
			return;
		seen[f] = 1;
	}
	pl->perm = 1;
	for (k = 0; k < pl->n; k++) {
		int len = 0;
		for (j = pl->to[k]; !done[j]; j = (int)mask[j]) {
			done[j] = 1;
			pl->cyc[c + len++] = (signed char)j;
		}
		if (len)
			pl->clen[pl->ncyc++] = (signed char)len;
		c += len;
	}
}

/* Two rows exchanged 32 bytes at a time through vector registers (GNU
 * vectors, as in neuron_blend.c; byte arrays would go through the stack): the
 * usual 2-cycle (pairs of partitions swapped) reads and writes each byte
 * once. */
static void swap_rows(unsigned char *a, unsigned char *b, size_t len)
{
	typedef unsigned char v16 __attribute__((vector_size(16)));
	v16 x0, x1, y0, y1;
	size_t o = 0;

	for (; o + 32 <= len; o += 32) {
		memcpy(&x0, a + o, 16);
		memcpy(&x1, a + o + 16, 16);
		memcpy(&y0, b + o, 16);
		memcpy(&y1, b + o + 16, 16);
		memcpy(a + o, &y0, 16);
		memcpy(a + o + 16, &y1, 16);
		memcpy(b + o, &x0, 16);
		memcpy(b + o + 16, &x1, 16);
	}
	for (; o < len; o++) {
		unsigned char t = a[o];
		a[o] = b[o];
		b[o] = t;
	}
}

/* Row cyc[k] takes row cyc[k + 1], the last row the first's old bytes. */
static void rotate_cycle(unsigned char *g, size_t ps, const signed char *cyc, int len, size_t rb)
{
	unsigned char tmp[SHUF_CHUNK];
	size_t c, n;
	int k;

	if (len == 2) {
		swap_rows(g + (size_t)cyc[0] * ps, g + (size_t)cyc[1] * ps, rb);
		return;
	}
	for (c = 0; c < rb; c += n) {
		n = rb - c < SHUF_CHUNK ? rb - c : SHUF_CHUNK;
		kdsl_copy_row(tmp, g + (size_t)cyc[0] * ps + c, n);
		for (k = 0; k + 1 < len; k++)
			kdsl_copy_row(g + (size_t)cyc[k] * ps + c, g + (size_t)cyc[k + 1] * ps + c, n);
		kdsl_copy_row(g + (size_t)cyc[len - 1] * ps + c, tmp, n);
	}
}

static void shuffle_group_in_place(unsigned char *g, size_t ps, const shuf_plan *pl, size_t rb)
{
	unsigned char tmp[QUAD][SHUF_CHUNK];
	size_t c, n;
	int k;

	if (pl->perm) {
		const signed char *cyc = pl->cyc;
		for (k = 0; k < pl->ncyc; cyc += pl->clen[k++])
			rotate_cycle(g, ps, cyc, pl->clen[k], rb);
		return;
	}
	for (c = 0; c < rb; c += n) {
		n = rb - c < SHUF_CHUNK ? rb - c : SHUF_CHUNK;
		for (k = 0; k < QUAD; k++)
			if (pl->need[k])
				kdsl_copy_row(tmp[k], g + (size_t)k * ps + c, n);
		for (k = 0; k < pl->n; k++)
			kdsl_copy_row(g + (size_t)pl->to[k] * ps + c, tmp[pl->from[k]], n);
	}
}

/* d and s: row 0 of dst and src; in place when d == s. */
static void shuffle_rows(unsigned char *d, size_t dps, const unsigned char *s, size_t sps, int64_t np,
                         const int64_t *mask, size_t rb)
{
	int inplace = d == s && dps == sps, k;
	shuf_plan full, last;
	int64_t g;

	shuffle_plan(&full, mask, QUAD, inplace);
	if (np % QUAD)
		shuffle_plan(&last, mask, (int)(np % QUAD), inplace);
	for (g = 0; g < np; g += QUAD, d += QUAD * dps, s += QUAD * sps) {
		const shuf_plan *pl = np - g < QUAD ? &last : &full;
		if (inplace) {
			shuffle_group_in_place(d, dps, pl, rb);
			continue;
		}
		for (k = 0; k < pl->n; k++)
			kdsl_copy_row(d + (size_t)pl->to[k] * dps, s + (size_t)pl->from[k] * sps, rb);
	}
}

int kdsl_neuron_nc_stream_shuffle(kdsl_rt *rt, const kdsl_site *site, kdsl_tile dst, kdsl_ctile src,
                                  const int64_t *mask, int64_t nmask)
{
	view d, s;
	unsigned char *buf = NULL;
	int64_t i, np, active;
	size_t rb;
	int rc;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "src", src, &s)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) || (rc = in_mem(rt, site, "src", &s, 1, 1, 0)) ||
	    (rc = same_dtype(rt, site, "dst", &d, "src", &s)))
		return rc;
	if (d.n != s.n)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must have the same number of elements per partition "
		                    "as src, got %" PRId64 " and %" PRId64, d.n, s.n);
	np = d.np > s.np ? d.np : s.np;
	active = kdsl_neuron_shuffle_active(np);
	if (!kdsl_neuron_shuffle_start_ok(active, src.p0) || !kdsl_neuron_shuffle_start_ok(active, dst.p0))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "%s start partition must be %s when "
		                    "num_active_partitions is %" PRId64 ", got %" PRId64,
		                    kdsl_neuron_shuffle_start_ok(active, src.p0) ? "dst" : "src",
		                    kdsl_neuron_shuffle_starts(active), active,
		                    kdsl_neuron_shuffle_start_ok(active, src.p0) ? dst.p0 : src.p0);
	if (!mask || nmask != QUAD)
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "shuffle_mask must have %d entries, got %" PRId64, QUAD,
		                    nmask);
	for (i = 0; i < QUAD; i++)
		if ((mask[i] < 0 || mask[i] > QUAD - 1) && mask[i] != KEEP)
			return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "shuffle_mask[%" PRId64 "] must be in 0..%d or %d, "
			                    "got %" PRId64, i, QUAD - 1, KEEP, mask[i]);
	/* Entry i is used by dst rows i, i + 32, ...; the last of them reads
	 * the highest src partition. */
	for (i = 0; i < QUAD && i < d.np; i++) {
		int64_t last = (d.np - 1 - i) / QUAD * QUAD;
		if (mask[i] != KEEP && last + mask[i] >= s.np)
			return kdsl_rt_fail(rt, site, KDSL_ERR_BOUNDS, "shuffle_mask[%" PRId64 "] = %" PRId64 " reads "
			                    "partition %" PRId64 " of src, which has %" PRId64, i, mask[i],
			                    last + mask[i], s.np);
	}
	rb = (size_t)d.n * d.size;
	/* In place, every source partition is read before any is written. */
	if (overlap(&d, &s) && !(d.p == s.p && d.pstride == s.pstride) && (rc = snapshot(rt, site, &s, &buf)))
		return rc;
	shuffle_rows(wrow(&d, 0), d.pstride, s.p, s.pstride, d.np, mask, rb);
	free(buf);
	return KDSL_OK;
}

/* ---- tensor_copy_predicated (seed 002) ----
 * Through the blend kernel of neuron_blend.c that kdsl_rt_create chose for this
 * machine: the whole tile in one call (its row loop inside), except when
 * src is converted (through f32, convert_row), a row at a time.  Equal
 * dtypes blend the bits, so the copy is bit-exact; a scalar src is an f32
 * operand converted to dst's dtype. */

int kdsl_neuron_tensor_copy_predicated(kdsl_rt *rt, const kdsl_site *site, kdsl_ctile src,
                                       double src_scalar, kdsl_tile dst, kdsl_ctile predicate,
                                       int64_t mask, int64_t dtype, int64_t reverse_pred)
{
	view d, s, pv;
	unsigned char *bs = NULL, *bp = NULL, *tmp = NULL;
	int tile = src.base != NULL, rc;
	uint64_t flip = reverse_pred != 0 ? ~(uint64_t)0 : 0;
	kdsl_blend_fn blend;
	int64_t p;

	if (!rt)
		return KDSL_ERR_ARG;
	if ((rc = CHECK_TILE(rt, site, "dst", dst, &d)) || (rc = CHECK_TILE(rt, site, "predicate", predicate, &pv)) ||
	    (rc = in_mem(rt, site, "dst", &d, 1, 1, 0)) || (rc = in_mem(rt, site, "predicate", &pv, 1, 1, 0)) ||
	    (rc = same_shape(rt, site, "predicate", &pv, "dst", &d)))
		return rc;
	if (!kdsl_neuron_predicate_dtype_ok(pv.dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "predicate must be u8, u16 or u32, got %s",
		                    kdsl_dtype_name(pv.dt));
	if (dtype && (dtype < 1 || dtype >= KDSL_NDTYPE || (kdsl_dtype)dtype != d.dt))
		return kdsl_rt_fail(rt, site, KDSL_ERR_RANGE, "dst must have the dtype given by dtype, got %s",
		                    kdsl_dtype_name(d.dt));
	if (tile) {
		if ((rc = CHECK_TILE(rt, site, "src", src, &s)) || (rc = in_mem(rt, site, "src", &s, 1, 1, 0)) ||
		    (rc = same_shape(rt, site, "src", &s, "dst", &d)))
			return rc;
		if (s.mem == KDSL_MEM_PSUM && pv.mem == KDSL_MEM_PSUM)
			return kdsl_rt_fail(rt, site, KDSL_ERR_ARG, "src and predicate must not both be in psum");
		if (!dtype && (rc = same_dtype(rt, site, "src", &s, "dst", &d)))
			return rc;
	}
	if (!mask)
		return KDSL_OK;
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
		blend(wrow(&d, 0), d.pstride, tile ? s.p : tmp, tile ? s.pstride : 0, pv.p, pv.pstride, d.np, d.n,
		      flip);
	} else {
		for (p = 0; p < d.np; p++) {
			convert_row(d.dt, tmp, s.dt, row(&s, p), d.n);
			blend(wrow(&d, p), 0, tmp, 0, row(&pv, p), 0, 1, d.n, flip);
		}
	}
	free(tmp);
	free(bs);
	free(bp);
	return KDSL_OK;
}
