/* fuzz_rt.c: the runtime's public entry points (kdsl_rt.h: the ops, and
 * the queries, errors, checking mode, conversions and kdsl_hw.h's inline
 * rules) as an embedder calls them, with hostile arguments.  The input bytes decode
 * into a sequence of calls: an op code, then the runtime (its target's,
 * the other target's, or NULL), the site (or NULL) and each argument.
 * Operands point into two host buffers sized by the input, into the
 * runtime's on-chip memories at any offset, at NULL, or at the previous
 * operand (aliasing); tile geometry, offsets, strides and counts come from
 * a table of edge values (0, -1, extremes, powers of two) or raw bytes.
 *
 * The contract the runtime cannot check is kept honest: an operand that
 * claims host memory (gm, hbm) or a memory its runtime lacks describes
 * bytes the fuzzer owns, since the runtime has to trust a host tensor's
 * size.  Everything about on-chip memory, views, ranges and pointers
 * is fair game: a crash or sanitizer report there is a runtime bug. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kdsl_rt.h"
#include "fuzz.h"

typedef struct {
	const uint8_t *p;
	size_t n;
} Input;

/* The next k bytes (k <= 8) little-endian; zeros past the end. */
static uint64_t take(Input *in, int k)
{
	uint64_t v = 0;
	for (int i = 0; i < k && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

static uint8_t byte(Input *in)
{
	return (uint8_t)take(in, 1);
}

/* An integer argument: mostly small, often an edge of some range. */
static int64_t num(Input *in)
{
	static const int64_t edge[] = {
		0, 1, -1, 2, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 4095, 4096, 65535, 65536,
		INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MAX / 32 + 1,
		(int64_t)1 << 40, -32, 196608, 16384, 2048, 512,
	};
	uint8_t k = byte(in);
	if (k < 0x80)
		return (int64_t)k - 16;
	if (k < 0xf0)
		return edge[k % (sizeof edge / sizeof edge[0])];
	return (int64_t)take(in, 8);
}

static double real(Input *in)
{
	static const double edge[] = {0.0, -0.0, 1.0, -1.5, 65504.0, 65520.0, 1e300, -1e-310, 3.4e38, 16777217.0};
	uint8_t k = byte(in);
	if (k < 0xe0)
		return edge[k % (sizeof edge / sizeof edge[0])];
	uint64_t bits = take(in, 8);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;   /* NaNs and infinities included */
}

typedef struct {
	kdsl_rt *rt[3];               /* [0] NULL, neuron, ascend */
	unsigned char *host[2];
	size_t host_bytes[2];
	const unsigned char *last;    /* the previous operand's base: aliasing */
	size_t last_bytes;
} World;

/* Where an operand's bytes are: base and, for honesty, how many bytes
 * from base the object really has (0 for NULL or outside every object). */
static const unsigned char *place(Input *in, World *w, kdsl_rt *rt, size_t *room)
{
	uint8_t k = byte(in) % 6;
	*room = 0;
	if (k == 0)
		return NULL;
	if (k == 5 && w->last) {
		*room = w->last_bytes;
		return w->last;
	}
	if (k <= 2) {
		int h = k - 1;
		size_t off = w->host_bytes[h] ? (size_t)take(in, 2) % (w->host_bytes[h] + 1) : 0;
		*room = w->host_bytes[h] - off;
		return w->host[h] + off;
	}
	/* on chip: one of the runtime's memories at any offset, even past its end */
	static const kdsl_mem chip[] = {KDSL_MEM_UB, KDSL_MEM_L1, KDSL_MEM_SBUF, KDSL_MEM_PSUM};
	size_t bytes = 0;
	unsigned char *m = rt ? kdsl_rt_mem(rt, chip[byte(in) % 4], &bytes) : NULL;
	if (!m)
		return w->host[0];
	uint64_t off = take(in, 4);
	if (off <= bytes)
		*room = bytes - off;
	return (const unsigned char *)((uintptr_t)m + (uintptr_t)off);
}

static kdsl_mem mem_of(Input *in)
{
	return (kdsl_mem)(byte(in) % (KDSL_NMEM + 1));
}

/* A claimed memory the runtime checks against its own: the on-chip ones
 * of the op's target (ascend: ub, l1; neuron: sbuf, psum). */
static int checked_mem(kdsl_rt *rt, kdsl_mem mem, int neuron)
{
	int chip = neuron ? mem == KDSL_MEM_SBUF || mem == KDSL_MEM_PSUM : mem == KDSL_MEM_UB || mem == KDSL_MEM_L1;
	return rt && chip && kdsl_rt_mem(rt, mem, NULL);
}

static void remember(World *w, const unsigned char *base, size_t room)
{
	w->last = base;
	w->last_bytes = room;
}

/* KDSL_FUZZ_TRACE set: each operand printed, to read a finding. */
static int tracing(void)
{
	static int on = -1;
	if (on < 0)
		on = getenv("KDSL_FUZZ_TRACE") != NULL;
	return on;
}

static void trace_tile(const kdsl_ctile *t, int honest)
{
	if (tracing())
		fprintf(stderr, "tile base=%p pstride=%zu pbytes=%zu nparts=%" PRId64 " p0=%" PRId64 " np=%" PRId64
		        " off=%" PRId64 " n=%" PRId64 " mem=%d dt=%d nd=%" PRId64 " pstep=%" PRId64 "%s\n",
		        (const void *)t->base, t->pstride, t->pbytes, t->nparts, t->p0, t->np, t->off, t->n, (int)t->mem,
		        (int)t->dt, t->nd, t->pstep, honest ? "" : " (skipped)");
}

static void trace_ref(const kdsl_cref *r, int honest)
{
	if (tracing())
		fprintf(stderr, "ref base=%p bytes=%zu mem=%d%s\n", (const void *)r->base, r->bytes, (int)r->mem,
		        honest ? "" : " (skipped)");
}

/* An ascend operand; 0 when it would lie about host memory. */
static int ref(Input *in, World *w, kdsl_rt *rt, kdsl_cref *r)
{
	size_t room;
	r->base = place(in, w, rt, &room);
	r->mem = mem_of(in);
	r->bytes = (size_t)num(in);
	remember(w, r->base, room);
	int honest = checked_mem(rt, r->mem, 0) || r->bytes <= room;
	trace_ref(r, honest);
	return honest;
}

/* A neuron tile; 0 when it would lie about host memory.  Its rows must
 * then lie in the object: (nparts-1)*pstride + pbytes <= room. */
static int tile(Input *in, World *w, kdsl_rt *rt, kdsl_ctile *t)
{
	size_t room;
	t->base = place(in, w, rt, &room);
	t->pstride = (size_t)num(in);
	t->pbytes = (size_t)num(in);
	t->nparts = num(in);
	t->p0 = num(in);
	t->np = num(in);
	t->off = num(in);
	t->n = num(in);
	t->mem = mem_of(in);
	uint8_t dt = byte(in);
	t->dt = (kdsl_dtype)(dt % (KDSL_NDTYPE + 1));
	/* A dtype byte of 0xf0 or more is followed by an access pattern (nd
	 * 1..3, or a hostile count); any other gives the contiguous form and
	 * reads nothing more, so the inputs written before patterns existed
	 * decode as they did. */
	t->nd = 0;
	if (dt >= 0xf0) {
		t->nd = byte(in) % 4 + 1;
		if (t->nd == 4)
			t->nd = num(in);
	}
	t->pstep = t->nd ? num(in) : 0;
	for (int k = 0; k < KDSL_NEURON_AP_DIMS; k++) {
		t->st[k] = t->nd ? num(in) : 0;
		t->ct[k] = t->nd ? num(in) : 0;
	}
	remember(w, t->base, room);
	int honest;
	if (checked_mem(rt, t->mem, 1))
		honest = 1;
	else if (t->nparts < 1 || t->pbytes > room)
		honest = t->nparts < 1 || !t->base;   /* the runtime must refuse it unread */
	else
		honest = t->pstride == 0 || (uint64_t)t->nparts - 1 <= (room - t->pbytes) / t->pstride;
	trace_tile(t, honest);
	return honest;
}

static kdsl_tile wtile(kdsl_ctile c)
{
	return kdsl_tile_ap(kdsl_tile_of((void *)(uintptr_t)c.base, c.pstride, c.pbytes, c.nparts, c.p0, c.np, c.off,
	                                 c.n, c.mem, c.dt),
	                    c.pstep, c.nd, c.st[0], c.ct[0], c.st[1], c.ct[1], c.st[2], c.ct[2]);
}

static kdsl_ref wref(kdsl_cref c)
{
	return kdsl_ref_of((void *)(uintptr_t)c.base, c.bytes, c.mem);
}

static kdsl_ascend_mask mask_of(Input *in)
{
	if (byte(in) & 1)
		return kdsl_ascend_mask_bits(take(in, 8), take(in, 8));
	return kdsl_ascend_mask_count(num(in));
}

/* One ascend call; op picks which. */
static void ascend_call(Input *in, World *w, kdsl_rt *rt, const kdsl_site *site, int op)
{
	kdsl_cref d, s, s1;
	kdsl_dtype dt = (kdsl_dtype)(byte(in) % (KDSL_NDTYPE + 1));
	kdsl_ascend_mask m = mask_of(in);
	int ok = ref(in, w, rt, &d) & ref(in, w, rt, &s) & ref(in, w, rt, &s1);
	int64_t a[7];
	for (int i = 0; i < 7; i++)
		a[i] = num(in);
	double x = real(in);
	if (!ok)
		return;
	switch (op) {
	case 0:
		kdsl_ascend_data_move(rt, site, wref(d), a[0], s, a[1], a[2], a[3], a[4], a[5], a[6]);
		break;
	case 1:
		kdsl_ascend_data_move_fast(rt, site, wref(d), a[0], s, a[1], a[2], a[3], a[4], a[5], a[6]);
		break;
	case 2:
		kdsl_ascend_vec_dup(rt, site, dt, m, wref(d), a[0], x, a[1], a[2]);
		break;
	case 3:
		kdsl_ascend_vec_dup_fast(rt, site, dt, m, wref(d), a[0], x, a[1], a[2]);
		break;
	case 4:
		kdsl_ascend_vec_add(rt, site, dt, m, wref(d), a[0], s, a[1], s1, a[2], a[3], a[4], a[5], a[6]);
		break;
	case 5:
		kdsl_ascend_vec_sub(rt, site, dt, m, wref(d), a[0], s, a[1], s1, a[2], a[3], a[4], a[5], a[6]);
		break;
	case 6:
		kdsl_ascend_vec_mul(rt, site, dt, m, wref(d), a[0], s, a[1], s1, a[2], a[3], a[4], a[5], a[6]);
		break;
	case 7:
		kdsl_ascend_vec_max(rt, site, dt, m, wref(d), a[0], s, a[1], s1, a[2], a[3], a[4], a[5], a[6]);
		break;
	case 8:
		kdsl_ascend_vec_min(rt, site, dt, m, wref(d), a[0], s, a[1], s1, a[2], a[3], a[4], a[5], a[6]);
		break;
	case 9:
		kdsl_ascend_vec_adds(rt, site, dt, m, wref(d), a[0], s, a[1], x, a[2], a[3], a[4]);
		break;
	case 10:
		kdsl_ascend_vec_muls(rt, site, dt, m, wref(d), a[0], s, a[1], x, a[2], a[3], a[4]);
		break;
	case 11: kdsl_ascend_vec_abs(rt, site, dt, m, wref(d), a[0], s, a[1], a[2], a[3], a[4]); break;
	case 12: kdsl_ascend_vec_exp(rt, site, dt, m, wref(d), a[0], s, a[1], a[2], a[3], a[4]); break;
	case 13: kdsl_ascend_vec_ln(rt, site, dt, m, wref(d), a[0], s, a[1], a[2], a[3], a[4]); break;
	case 14: kdsl_ascend_vec_rec(rt, site, dt, m, wref(d), a[0], s, a[1], a[2], a[3], a[4]); break;
	case 15: kdsl_ascend_vec_relu(rt, site, dt, m, wref(d), a[0], s, a[1], a[2], a[3], a[4]); break;
	case 17:
		/* vec_conv: src's dtype from the third number, round_mode the fourth's code */
		kdsl_ascend_vec_conv(rt, site, dt, (kdsl_dtype)((uint64_t)a[5] % (KDSL_NDTYPE + 1)), m, a[6] % 12,
		                     wref(d), a[0], s, a[1], a[2], a[3], a[4]);
		break;
	case 16: {
		kdsl_scalar v;
		kdsl_ascend_elem_read(rt, site, dt, s, a[0], (a[1] & 1) ? NULL : &v);
		break;
	}
	default:
		kdsl_ascend_elem_write(rt, site, dt, wref(d), a[0], (a[1] & 1) ? kdsl_scalar_f(x) : kdsl_scalar_i(a[2]));
		break;
	}
}

/* An rtile for tile t: its storage as an offset into its memory (any
 * value when it lies elsewhere). */
static kdsl_rtile rtile_of(kdsl_rt *rt, kdsl_ctile t)
{
	unsigned char *m = kdsl_rt_mem(rt, t.mem, NULL);
	kdsl_rtile r = {(size_t)((uintptr_t)t.base - (uintptr_t)m), t.pbytes, t.nparts, t.p0, t.np, t.off, t.n, t.mem,
	                t.dt};
	return r;
}

/* nc_stream_shuffle through kdsl_neuron_nc_stream_shuffle_k: dst d, src
 * a, the first 32 of nmask entries (the rest 0); ops NULL: no operands. */
static void shuffle_k(kdsl_rt *rt, const kdsl_site *site, kdsl_ctile d, kdsl_ctile a, const int64_t *mask,
                      int64_t nmask, const kdsl_rt *ops)
{
	kdsl_shuf_args k;

	memset(&k, 0, sizeof k);
	k.dst = rtile_of(rt, d);
	k.src = rtile_of(rt, a);
	for (int64_t i = 0; i < nmask && i < KDSL_NEURON_QUADRANT; i++)
		k.mask[i] = mask[i];
	kdsl_neuron_nc_stream_shuffle_k(rt, site, ops ? &k : NULL);
}

/* One neuron call; op picks which. */
static void neuron_call(Input *in, World *w, kdsl_rt *rt, const kdsl_site *site, int op)
{
	kdsl_ctile d, a, b;
	int ok = tile(in, w, rt, &d) & tile(in, w, rt, &a) & tile(in, w, rt, &b);
	int64_t i0 = num(in), i1 = num(in), i2 = num(in);
	double x = real(in), y = real(in);
	int64_t mask[KDSL_NEURON_QUADRANT + 2];
	int64_t nmask = byte(in) % (KDSL_NEURON_QUADRANT + 3);
	for (int64_t i = 0; i < nmask; i++)
		mask[i] = num(in);
	if (!ok)
		return;
	switch (op) {
	case 0: kdsl_neuron_load(rt, site, wtile(d), a); break;
	case 1: kdsl_neuron_store(rt, site, wtile(d), a); break;
	case 2: kdsl_neuron_tensor_copy(rt, site, wtile(d), a); break;
	case 3: kdsl_neuron_memset(rt, site, wtile(d), x); break;
	case 4: kdsl_neuron_iota(rt, site, wtile(d), x, y, i1 & 1 ? KDSL_NEURON_IOTA_PSTEP_DEFAULT : i2); break;
	case 5: kdsl_neuron_tensor_tensor(rt, site, wtile(d), a, b, i0); break;
	case 6:   /* tensor_scalar, its operands tiles or numbers by i1's bits; or tensor_reduce */
		if (i1 & 16)
			kdsl_neuron_tensor_reduce(rt, site, wtile(d), a, i0, i2);
		else
			kdsl_neuron_tensor_scalar(rt, site, wtile(d), a, i0, i1 & 1 ? b : kdsl_ctile_none(), x, i1 & 2, i2,
			                          i1 & 4 ? b : kdsl_ctile_none(), y, i1 & 8);
		break;
	case 7:
		kdsl_neuron_activation(rt, site, wtile(d), a, i0, i1 & 1 ? b : kdsl_ctile_none(), x,
		                       i1 & 2 ? b : kdsl_ctile_none(), y);
		break;
	case 8: kdsl_neuron_nc_matmul(rt, site, wtile(d), a, b, i0); break;
	case 9: kdsl_neuron_nc_transpose(rt, site, wtile(d), a); break;
	case 10:
		if (i1 & 4)   /* the constant-operand entry, twice (its kslot) */
			for (int k = 0; k < 2; k++)
				shuffle_k(rt, site, d, a, mask, nmask, i1 & 8 ? NULL : rt);
		else
			kdsl_neuron_nc_stream_shuffle(rt, site, wtile(d), a, i1 & 1 ? NULL : mask, i1 & 2 ? i2 : nmask);
		break;
	case 11: kdsl_neuron_load_gather(rt, site, wtile(d), a, b); break;
	case 12: kdsl_neuron_store_scatter(rt, site, wtile(d), a, b); break;
	case 13: kdsl_neuron_identity(rt, site, wtile(d)); break;
	case 14: kdsl_neuron_affine_select(rt, site, wtile(d), a, x, i0, i1, i2, nmask % 8 - 1); break;
	case 15: {   /* predicated_merge: on_false a fourth tile, dst often hbm */
		kdsl_ctile f;
		if (tile(in, w, rt, &f))
			kdsl_neuron_predicated_merge(rt, site, wtile(d), a, f, b, i2);
		break;
	}
	default:
		kdsl_neuron_tensor_copy_predicated(rt, site, a, x, wtile(d), b, i0, i1, i2);
		break;
	}
}

/* The uninit check's entries on a runtime of its own: aipu's (32 KiB of
 * lsram), so turning the check on costs little and no check state
 * outlives the input.  Hostile bits, mark ranges, buffer tables (NULL
 * names, any memory and extents, any length up to the table's), then a
 * read of lsram that may find an unwritten byte and name its buffer. */
static void check_call(Input *in, const kdsl_site *site, kdsl_mem mem)
{
	kdsl_rt *a = kdsl_rt_create(KDSL_TARGET_AIPU);
	kdsl_buffer bufs[2] = {{NULL, mem, 0, 0, 0}, {"b", KDSL_MEM_LSRAM, 0, 64, 1}};
	unsigned char gm[64] = {0}, *lsram;
	size_t bytes = 0;
	if (!a)
		abort();
	lsram = kdsl_rt_mem(a, KDSL_MEM_LSRAM, &bytes);
	if (byte(in) & 1)
		bufs[0].name = "a";
	bufs[0].off = (size_t)num(in);
	bufs[0].bytes = (size_t)num(in);
	bufs[0].parts = (size_t)num(in);
	kdsl_rt_set_check(a, byte(in) & 1 ? KDSL_CHECK_UNINIT : (unsigned)num(in));
	kdsl_rt_check_mark(a, mem, (size_t)num(in), (size_t)num(in));
	kdsl_rt_check_mark(a, KDSL_MEM_LSRAM, (size_t)num(in), (size_t)num(in));
	kdsl_rt_check_buffers(a, byte(in) & 1 ? NULL : bufs, byte(in) % 3);
	uint64_t off = take(in, 2);
	kdsl_aipu_dma_copy(a, site, KDSL_U8, kdsl_ref_of(gm, sizeof gm, KDSL_MEM_GM), 0,
	                   kdsl_cref_of((const unsigned char *)((uintptr_t)lsram + (uintptr_t)off), 64,
	                                KDSL_MEM_LSRAM), 0, 64);
	if (byte(in) & 1)
		kdsl_rt_check_start(a);
	kdsl_rt_check(a);
	kdsl_rt_destroy(a);
}

/* kdsl_hw.h's inline rules with any numbers: the ascend masks and
 * overlap rules, the conversion table, the memory pairs, shuffle's
 * partition rules. */
static void rules_call(Input *in, kdsl_mem mem, kdsl_dtype dt)
{
	int64_t a[7], r = 0, r2 = 0;
	for (int i = 0; i < 7; i++)
		a[i] = num(in);
	kdsl_ascend_bits m = byte(in) & 1 ? kdsl_ascend_bits_count(a[6]) : (kdsl_ascend_bits){take(in, 8), take(in, 8)};
	(void)kdsl_ascend_bits_span(kdsl_ascend_bits_shift(m, a[0]));
	(void)kdsl_ascend_elems_meet(m, a[0], a[1]);
	(void)kdsl_ascend_elems_meet2(m, a[0], a[1], a[2]);
	(void)kdsl_ascend_vec_overlap(a[0], a[1], a[2], a[3], m, a[4], a[5], &r, &r2);
	(void)kdsl_ascend_conv_modes(dt, (kdsl_dtype)(byte(in) % (KDSL_NDTYPE + 2)));
	(void)kdsl_ascend_move_allowed(mem, (kdsl_mem)a[6]);
	(void)kdsl_aipu_dma_allowed((kdsl_mem)a[6], mem);
	(void)kdsl_neuron_shuffle_start_ok(kdsl_neuron_shuffle_active(a[0]), a[1]);
	(void)kdsl_neuron_shuffle_starts(a[2]);
	(void)kdsl_neuron_index_ok(a[3]);
	(void)kdsl_neuron_reduce_op_ok(a[4]);
	(void)kdsl_neuron_predicate_dtype_ok(dt);
	(void)kdsl_ascend_aligned_(&r, mem, a[5]);
}

/* The runtime's other entry points: queries, errors, conversions, the
 * checking mode, the shared rules. */
static void misc_call(Input *in, kdsl_rt *rt, const kdsl_site *site, int op)
{
	kdsl_mem mem = mem_of(in);
	kdsl_dtype dt = (kdsl_dtype)(byte(in) % (KDSL_NDTYPE + 2));
	kdsl_target t = (kdsl_target)(byte(in) % (KDSL_NTARGET + 1));
	double x = real(in);
	unsigned char el[8];
	size_t bytes;
	switch (op) {
	case 0:
		kdsl_rt_mem(rt, mem, byte(in) & 1 ? &bytes : NULL);
		kdsl_rt_partition_bytes(rt, mem);
		kdsl_rt_partition_stride(rt, mem);
		break;
	case 1:
		kdsl_rt_last_error(rt);
		kdsl_rt_last_error_locus(rt);
		kdsl_rt_clear_error(rt);
		kdsl_rt_target(rt);
		kdsl_rt_check(rt);
		kdsl_rt_checking(rt);
		kdsl_rt_holds_(rt, mem, (const void *)(uintptr_t)take(in, 8), (size_t)num(in));
		/* the shared runtimes' check stays off: only the range is checked */
		kdsl_rt_check_mark(rt, mem, (size_t)num(in), (size_t)num(in));
		break;
	case 2:
		kdsl_rt_enter(rt, t, byte(in) & 1 ? NULL : "k");
		kdsl_rt_try_enter(rt, t);
		kdsl_rt_null_param(rt, byte(in) & 1 ? NULL : "k", byte(in) & 1 ? NULL : "p");
		break;
	case 3:
		kdsl_rt_fail(rt, site, (int)num(in), "%s %g", "fuzz", x);
		kdsl_rt_fail(rt, site, (int)num(in), NULL);
		break;
	case 4:
		kdsl_target_name(t);
		kdsl_dtype_name(dt);
		if (kdsl_dtype_size(dt) <= sizeof el) {
			kdsl_dtype_store(dt, el, x);
			kdsl_dtype_store_bits(dt, el, (uint64_t)num(in));
		}
		kdsl_dtype_store(dt, NULL, x);
		kdsl_dtype_store_bits(dt, NULL, 0);
		break;
	case 5:
		kdsl_f16_to_f32((kdsl_f16)num(in));
		kdsl_f16_to_f64((kdsl_f16)num(in));
		kdsl_bf16_to_f32((kdsl_bf16)num(in));
		kdsl_f32_to_f16((float)x);
		kdsl_f64_to_f16(x);
		kdsl_f32_to_bf16((float)x);
		kdsl_f64_to_bf16(x);
		break;
	case 7:
		check_call(in, site, mem);
		break;
	case 8:
		rules_call(in, mem, dt);
		break;
	default:
		/* a runtime of any target value but the costly ones already made */
		if (t != KDSL_TARGET_NEURON && t != KDSL_TARGET_ASCEND)
			kdsl_rt_destroy(kdsl_rt_create(t));
		kdsl_rt_destroy(NULL);
		break;
	}
}

/* The on-chip runtimes are made once: neuron's memories are 24 MiB, and
 * filling them per input would be the whole cost of a run. */
static kdsl_rt **runtimes(void)
{
	static kdsl_rt *rt[3];
	if (!rt[1] && !(rt[1] = kdsl_rt_create(KDSL_TARGET_NEURON)))
		abort();
	if (!rt[2] && !(rt[2] = kdsl_rt_create(KDSL_TARGET_ASCEND)))
		abort();
	return rt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in = {data, size};
	World w = {{NULL}, {NULL}, {0}, NULL, 0};
	kdsl_rt **rts = runtimes();
	static const kdsl_site sites[2] = {{"fuzz.k", 1, 1, "op"}, {"a:b*/?\?=.k", 0, -1, NULL}};
	for (int h = 0; h < 2; h++) {
		w.host_bytes[h] = (size_t)take(&in, 2) % 8193;
		if (!(w.host[h] = malloc(w.host_bytes[h] ? w.host_bytes[h] : 1)))
			abort();
		memset(w.host[h], 0x5a, w.host_bytes[h]);
	}
	for (int calls = 0; in.n > 0 && calls < 64; calls++) {
		uint8_t op = byte(&in), who = byte(&in);
		kdsl_rt *rt = rts[who % 3];
		const kdsl_site *site = who & 4 ? NULL : &sites[(who >> 3) & 1];
		if (tracing())
			fprintf(stderr, "call %d: op %d on runtime %d, site %s\n", calls, op, who % 3, site ? "set" : "NULL");
		if (op % 3 == 0)
			ascend_call(&in, &w, rt, site, op / 3 % 19);
		else if (op % 3 == 1)
			neuron_call(&in, &w, rt, site, op / 3 % 17);
		else
			misc_call(&in, rt, site, op / 3 % 9);
		kdsl_fuzz_accepted++;
	}
	free(w.host[0]);
	free(w.host[1]);
	return 0;
}
