/* verify_aipu.c: the typing rules of the aipu ops on IR (the op table's
 * verify hook, see verify.h).  Sema checks the same rules on source with
 * source words (frontend/aipu/sema_aipu.c); lowering then folds some
 * parameters away (vload's lanes become its result type, part names and
 * immediates integer constants, a broadcast scalar a vsplat, a mask
 * string a vmask), so these rules are about the operands as lowering
 * leaves them.  They are what the passes must keep (canon rewrites
 * permutations) and what the vector emitter relies on: lane arrays of the
 * result's size, shuffle indices in range.  Each hook stops at the first
 * broken rule, so one mistake is one message. */
#include "types_aipu.h"
#include "verify.h"

/* ---- operands ---- */

static const KdVal *arg(const KdVerify *v, const KdIns *in, int k)
{
	return &v->f->val[in->args[k]];
}

static const char *name(const KdIns *in)
{
	return kd_ops[in->op].name;
}

static const char *tstr(KdVerify *v, const KdVal *x)
{
	return kd_verify_type_str(v, x);
}

/* in has lo..hi operands. */
static int nargs(KdVerify *v, const KdIns *in, int lo, int hi)
{
	if (in->nargs >= lo && in->nargs <= hi)
		return 1;
	if (lo == hi)
		kd_verify_fail(v, in, -1, "%s takes %d operand%s, got %d", name(in), lo, lo == 1 ? "" : "s",
		               in->nargs);
	else
		kd_verify_fail(v, in, -1, "%s takes %d to %d operands, got %d", name(in), lo, hi, in->nargs);
	return 0;
}

/* The result: a vector, or where `masks` says so a mask; NULL after
 * reporting. */
static const KdVal *result(KdVerify *v, const KdIns *in, int masks)
{
	if (in->res < 0) {
		kd_verify_fail(v, in, -1, "%s needs a result", name(in));
		return NULL;
	}
	const KdVal *r = &v->f->val[in->res];
	if (r->type == VT_VEC || (masks && r->type == VT_MASK))
		return r;
	kd_verify_fail(v, in, -1, "%s: the result must be a vector%s, got %s", name(in),
	               masks ? " or a mask" : "", tstr(v, r));
	return NULL;
}

/* Operand k (parameter `pn`): a vector, or where `masks` says so a mask. */
static const KdVal *vec(KdVerify *v, const KdIns *in, int k, const char *pn, int masks)
{
	const KdVal *x = arg(v, in, k);
	if (x->type == VT_VEC || (masks && x->type == VT_MASK))
		return x;
	kd_verify_fail(v, in, k, "%s: operand %d ('%s') must be a vector%s, got %s", name(in), k + 1, pn,
	               masks ? " or a mask" : "", tstr(v, x));
	return NULL;
}

/* Operand k has the type of t (the result, or the operand `what` says):
 * the same kind, dtype and lanes. */
static int like(KdVerify *v, const KdIns *in, int k, const KdVal *t, const char *what)
{
	const KdVal *x = arg(v, in, k);
	if (x->type == VT_VEC && t->type == VT_VEC && x->dt != t->dt)
		kd_verify_fail(v, in, k, "%s: operand %d is a %s vector, %s %s", name(in), k + 1,
		               kd_dtypes[x->dt].name, what, kd_dtypes[t->dt].name);
	else if (x->type != t->type)
		kd_verify_fail(v, in, k, "%s: operand %d must be a %s like %s", name(in), k + 1,
		               t->type == VT_VEC ? "vector" : "mask", what);
	else if (x->lanes != t->lanes)
		kd_verify_fail(v, in, k, "%s: operand %d has %d lanes, %s %d", name(in), k + 1, x->lanes, what,
		               t->lanes);
	else
		return 1;
	return 0;
}

/* The result r holds what operand k holds (a vector of its dtype, or a
 * mask), whatever its lanes. */
static int same_elem(KdVerify *v, const KdIns *in, const KdVal *r, int k)
{
	const KdVal *x = arg(v, in, k);
	if (r->type != x->type)
		kd_verify_fail(v, in, -1, "%s: the result must be a %s like operand %d", name(in),
		               x->type == VT_VEC ? "vector" : "mask", k + 1);
	else if (r->type == VT_VEC && r->dt != x->dt)
		kd_verify_fail(v, in, k, "%s: operand %d is a %s vector, the result %s", name(in), k + 1,
		               kd_dtypes[x->dt].name, kd_dtypes[r->dt].name);
	else
		return 1;
	return 0;
}

/* Operand k: a mask of `lanes` lanes, those of the `of` it governs. */
static int mask(KdVerify *v, const KdIns *in, int k, int lanes, const char *of)
{
	const KdVal *m = arg(v, in, k);
	if (m->type != VT_MASK)
		kd_verify_fail(v, in, k, "%s: operand %d ('mask') must be a mask, got %s", name(in), k + 1,
		               tstr(v, m));
	else if (m->lanes != lanes)
		kd_verify_fail(v, in, k, "%s: mask has %d lanes, the %s %d", name(in), m->lanes, of, lanes);
	else
		return 1;
	return 0;
}

/* Operand k (parameter `pn`): an integer scalar. */
static int integer(KdVerify *v, const KdIns *in, int k, const char *pn)
{
	const KdVal *x = arg(v, in, k);
	if (x->type == VT_INT)
		return 1;
	kd_verify_fail(v, in, k, "%s: operand %d ('%s') must be an integer, got %s", name(in), k + 1, pn,
	               tstr(v, x));
	return 0;
}

/* Operand k as an integer constant, if it is one. */
static int constant(const KdVerify *v, const KdIns *in, int k, int64_t *c)
{
	const KdVal *x = arg(v, in, k);
	if (x->kind != VK_CONST || x->type != VT_INT)
		return 0;
	*c = x->c;
	return 1;
}

/* ---- the ops ---- */

/* vload src [, mask [, stride]]: a vector of the tensor's dtype (its
 * lanes are the source's `lanes`); the mask, when not all set or when a
 * stride follows, governs its lanes; the stride is an integer. */
static void vload(KdVerify *v, const KdIns *in)
{
	const KdVal *r, *t;
	if (!nargs(v, in, 1, 3) || !(r = result(v, in, 0)))
		return;
	t = arg(v, in, 0);
	if (t->type != VT_REF)
		kd_verify_fail(v, in, 0, "vload: operand 1 ('src') must be a tensor, got %s", tstr(v, t));
	else if (r->dt != t->dt)
		kd_verify_fail(v, in, -1, "vload: the result is %s but the tensor holds %s", tstr(v, r),
		               kd_dtypes[t->dt].name);
	else if (in->nargs >= 2 && mask(v, in, 1, r->lanes, "result") && in->nargs == 3)
		integer(v, in, 2, "stride");
}

/* vstore dst, v [, mask [, stride]]: v of the tensor's dtype; the mask
 * governs v's lanes.  The operand kinds are the op table's, which the
 * verifier and the reader check for every effect op before this. */
static void vstore(KdVerify *v, const KdIns *in)
{
	if (!nargs(v, in, 2, 4))
		return;
	const KdVal *t = arg(v, in, 0), *x = arg(v, in, 1);
	if (t->type != VT_REF || x->type != VT_VEC)
		return;
	if (x->dt != t->dt)
		kd_verify_fail(v, in, 1, "vstore: v is %s but the tensor holds %s", tstr(v, x),
		               kd_dtypes[t->dt].name);
	else if (in->nargs >= 3)
		mask(v, in, 2, x->lanes, "vector");
}

/* vload_gather src, index [, mask] and vstore_scatter dst, v, index
 * [, mask]: an i16/u16 index vector of the result's (v's) lanes, the
 * tensor's dtype, the mask of those lanes. */
static void gather_scatter(KdVerify *v, const KdIns *in)
{
	int store = in->op == OP_VSTORE_SCATTER;
	int ik = store ? (int)VSTORE_SCATTER_INDEX : (int)VLOAD_GATHER_INDEX;
	const KdVal *t, *x, *ix;
	if (!nargs(v, in, ik + 1, ik + 2))
		return;
	if (!(x = store ? vec(v, in, VSTORE_SCATTER_V, "v", 0) : result(v, in, 0)) ||
	    !(ix = vec(v, in, ik, "index", 0)))
		return;
	t = arg(v, in, 0);
	if (t->type != VT_REF)
		kd_verify_fail(v, in, 0, "%s: operand 1 must be a tensor, got %s", name(in), tstr(v, t));
	else if (x->dt != t->dt)
		kd_verify_fail(v, in, -1, "%s: the vector is %s but the tensor holds %s", name(in), tstr(v, x),
		               kd_dtypes[t->dt].name);
	else if (ix->dt != KD_I16 && ix->dt != KD_U16)
		kd_verify_fail(v, in, ik, "%s: the index must be an i16 or u16 vector, got %s", name(in),
		               tstr(v, ix));
	else if (ix->lanes != x->lanes)
		kd_verify_fail(v, in, ik, "%s: the index has %d lanes, the vector %d", name(in), ix->lanes,
		               x->lanes);
	else if (in->nargs == ik + 2)
		mask(v, in, ik + 1, x->lanes, "vector");
}

/* dma_copy dst, src, count: the table's operand kinds (checked before
 * this) and one dtype on both sides, which the runtime call is typed by
 * (dst's); the memories and ranges are the rule checker's. */
static void dma_copy(KdVerify *v, const KdIns *in)
{
	const KdVal *d = arg(v, in, DMA_COPY_DST), *s = arg(v, in, DMA_COPY_SRC);
	if (d->type == VT_REF && s->type == VT_REF && d->dt != s->dt)
		kd_verify_fail(v, in, DMA_COPY_SRC, "dma_copy: src holds %s, dst %s", kd_dtypes[s->dt].name,
		               kd_dtypes[d->dt].name);
}

/* vconcat / vzip x, y, part: x and y of one type (vzip: masks too), the
 * part a constant (all, low, high, even, odd); the result of their kind
 * and dtype with kd_aipu_part_lanes lanes. */
static void concat_zip(KdVerify *v, const KdIns *in)
{
	int zip = in->op == OP_VZIP;
	const KdVal *x, *r;
	int64_t p;
	if (!nargs(v, in, 3, 3))
		return;
	if (!constant(v, in, 2, &p) || p < 0 || p >= KD_AIPU_NPART) {
		kd_verify_fail(v, in, 2, "%s: part must be a constant 0..%d (all, low, high, even, odd)",
		               name(in), KD_AIPU_NPART - 1);
		return;
	}
	if (!(x = vec(v, in, 0, "x", zip)) || !vec(v, in, 1, "y", zip) || !(r = result(v, in, zip)) ||
	    !same_elem(v, in, r, 0))
		return;
	const KdVal *y = arg(v, in, 1);
	int want = kd_aipu_part_lanes(x->lanes, (int)p);
	if (x->lanes != y->lanes || want < 0 || r->lanes != want)
		kd_verify_fail(v, in, -1, "%s: operands of %d and %d lanes give %d lanes, not %d", name(in),
		               x->lanes, y->lanes, p == KD_AIPU_PART_ALL ? 2 * x->lanes : x->lanes, r->lanes);
	else
		like(v, in, 1, x, "operand 1");
}

/* vsplit x, i: part i of x, whose lanes are a multiple of the result's
 * (lowering makes one per name of `let (lo, hi) = vsplit(x)`). */
static void vsplit(KdVerify *v, const KdIns *in)
{
	const KdVal *x, *r;
	int64_t p;
	if (!nargs(v, in, 2, 2) || !(x = vec(v, in, 0, "x", 0)) || !(r = result(v, in, 0)))
		return;
	int n = x->lanes, l = r->lanes;
	if (!constant(v, in, 1, &p) || p < 0 || p >= KD_AIPU_MAX_LANES || l < 1 || (p + 1) * l > n)
		kd_verify_fail(v, in, 1, "vsplit: part must be a constant 0..%d", l > 0 ? n / l - 1 : 0);
	else if (n % l)
		kd_verify_fail(v, in, 0, "vsplit: operand 1 has %d lanes, not a multiple of the result's %d",
		               n, l);
	else
		same_elem(v, in, r, 0);
}

/* vcompt x, mask and vcompc x, y, mask: x (and y) of the result's type,
 * the mask of its lanes. */
static void compress(KdVerify *v, const KdIns *in)
{
	int fill = in->op == OP_VCOMPC;
	const KdVal *r;
	if (!nargs(v, in, 2 + fill, 2 + fill) || !vec(v, in, 0, "x", 0) || !(r = result(v, in, 0)) ||
	    !like(v, in, 0, r, "the result") || (fill && !like(v, in, 1, r, "the result")))
		return;
	mask(v, in, 1 + fill, r->lanes, "vector");
}

/* vrevs x (vector or mask), vmin/vmax x, y, vshfl x, shift, vreplic x,
 * index and vsldl x, y, shift: the vector operands of the result's type;
 * vshfl's shift an integer, vreplic's index one that names a lane when
 * constant (a run-time one is checked by the generated code), vsldl's a
 * constant 0..lanes. */
static void same_type(KdVerify *v, const KdIns *in)
{
	int masks = in->op == OP_VREVS;
	int nvec = in->op == OP_VMIN || in->op == OP_VMAX || in->op == OP_VSLDL ? 2 : 1;
	int n = nvec + (in->op == OP_VSHFL || in->op == OP_VREPLIC || in->op == OP_VSLDL);
	const KdVal *r;
	int64_t c;
	if (!nargs(v, in, n, n) || !vec(v, in, 0, "x", masks) || !(r = result(v, in, masks)))
		return;
	for (int k = 0; k < nvec; k++)
		if (!like(v, in, k, r, "the result"))
			return;
	switch (in->op) {
	case OP_VSHFL:
		integer(v, in, 1, "shift");
		break;
	case OP_VREPLIC:
		if (integer(v, in, 1, "index") && constant(v, in, 1, &c) && (c < 0 || c >= r->lanes))
			kd_verify_fail(v, in, 1, "vreplic: index must be in 0..%d, got %lld", r->lanes - 1,
			               (long long)c);
		break;
	case OP_VSLDL:
		if (!constant(v, in, 2, &c))
			kd_verify_fail(v, in, 2, "vsldl: shift must be a constant 0..%d", r->lanes - 1);
		else if (c < 0 || c >= r->lanes)
			kd_verify_fail(v, in, 2, "vsldl: shift must be in 0..%d, got %lld", r->lanes - 1,
			               (long long)c);
		break;
	default:
		break;
	}
}

/* vsel x, y, mask: x and y of the result's type (vectors or masks), the
 * mask of its lanes (lowering makes an all-true one for no mask). */
static void vsel(KdVerify *v, const KdIns *in)
{
	const KdVal *r;
	if (!nargs(v, in, 3, 3) || !vec(v, in, 0, "x", 1) || !(r = result(v, in, 1)) ||
	    !like(v, in, 0, r, "the result") || !like(v, in, 1, r, "the result"))
		return;
	mask(v, in, 2, r->lanes, "result");
}

static int scalar(const KdVal *x)
{
	return x->type == VT_INT || x->type == VT_FLOAT || x->type == VT_BOOL;
}

/* vbcast x [, mask] and vsplat x: a scalar broadcast to the result (a
 * vector, or a mask from a bool); vbcast's mask governs the result's
 * lanes.  vsplat is lowering's broadcast of a scalar operand. */
static void splat(KdVerify *v, const KdIns *in)
{
	int bcast = in->op == OP_VBCAST;
	const KdVal *r;
	if (in->nargs < 1 || in->nargs > 1 + bcast) {
		kd_verify_fail(v, in, -1, "%s takes %s, got %d operands", name(in),
		               bcast ? "a scalar and an optional mask" : "one scalar", in->nargs);
		return;
	}
	const KdVal *x = arg(v, in, 0);
	if (!scalar(x)) {
		if (bcast)
			kd_verify_fail(v, in, 0, "vbcast: operand 1 ('x') must be a number, got %s", tstr(v, x));
		else
			kd_verify_fail(v, in, 0, "vsplat: x must be a scalar, got %s", tstr(v, x));
		return;
	}
	if ((r = result(v, in, 1)) && in->nargs == 2)
		mask(v, in, 1, r->lanes, "result");
}

/* vtbl indices, t1, ..., tk: 2 to 4 table vectors of the result's type
 * and an integer index vector of its lanes (the emitter indexes the
 * table vector by vector). */
static void vtbl(KdVerify *v, const KdIns *in)
{
	const KdVal *r;
	if (in->nargs < 3 || in->nargs > 5) {
		kd_verify_fail(v, in, -1, "vtbl takes an index vector and 2 to 4 table vectors, got %d operands",
		               in->nargs);
		return;
	}
	if (!(r = result(v, in, 0)))
		return;
	for (int k = 0; k < in->nargs; k++) {
		const KdVal *a = arg(v, in, k);
		if (k == 0 && (a->type != VT_VEC || kd_dtypes[a->dt].is_float || a->lanes != r->lanes)) {
			kd_verify_fail(v, in, k, "vtbl: indices must be an integer vector of %d lanes, got %s",
			               r->lanes, tstr(v, a));
			return;
		}
		if (k > 0 && (a->type != VT_VEC || a->dt != r->dt || a->lanes != r->lanes)) {
			kd_verify_fail(v, in, k, "vtbl: table operand %d must be a %sx%d vector like the result, got %s",
			               k, kd_dtypes[r->dt].name, r->lanes, tstr(v, a));
			return;
		}
	}
}

/* mask_and / mask_or / mask_xor x, y and mask_not x: masks of the
 * result's lanes. */
static void mask_logic(KdVerify *v, const KdIns *in)
{
	int n = in->op == OP_MASK_NOT ? 1 : 2;
	const KdVal *r;
	if (!nargs(v, in, n, n) || !(r = result(v, in, 1)))
		return;
	if (r->type != VT_MASK) {
		kd_verify_fail(v, in, -1, "%s: the result must be a mask, got %s", name(in), tstr(v, r));
		return;
	}
	for (int k = 0; k < n; k++)
		if (!like(v, in, k, r, "the result"))
			return;
}

/* tail_mask n: a mask (its lanes are the source's `lanes`) from an
 * integer count. */
static void tail_mask(KdVerify *v, const KdIns *in)
{
	const KdVal *r;
	if (!nargs(v, in, 1, 1) || !integer(v, in, 0, "n") || !(r = result(v, in, 1)))
		return;
	if (r->type != VT_MASK)
		kd_verify_fail(v, in, -1, "tail_mask: the result must be a mask, got %s", tstr(v, r));
}

/* vmask b0, b1, ...: a constant mask, one constant bool per lane (the
 * emitter writes lane i from operand i). */
static void vmask(KdVerify *v, const KdIns *in)
{
	const KdVal *r;
	if (!(r = result(v, in, 1)))
		return;
	if (r->type != VT_MASK || in->nargs != r->lanes) {
		kd_verify_fail(v, in, -1, "vmask: %d operands for a result of type %s (one per lane of a mask)",
		               in->nargs, tstr(v, r));
		return;
	}
	for (int k = 0; k < in->nargs; k++) {
		const KdVal *b = arg(v, in, k);
		if (b->kind != VK_CONST || (b->type != VT_BOOL && b->type != VT_INT)) {
			kd_verify_fail(v, in, k, "vmask: operand %d must be a constant bool, got %s", k + 1,
			               tstr(v, b));
			return;
		}
	}
}

/* cast x, part, saturate: part and saturate constants (0..8, 0/1), the
 * result's lanes those kd_aipu_cast_lanes gives (the emitter indexes x
 * by kd_aipu_cast_src), between dtypes with a direct cast. */
static void cast(KdVerify *v, const KdIns *in)
{
	const KdVal *x, *r;
	int64_t p, s;
	if (!nargs(v, in, 3, 3) || !(x = vec(v, in, 0, "x", 0)) || !(r = result(v, in, 0)))
		return;
	if (!constant(v, in, 1, &p) || p < 0 || p >= KD_AIPU_NCAST_PART) {
		kd_verify_fail(v, in, 1, "cast: part must be a constant 0..%d", KD_AIPU_NCAST_PART - 1);
		return;
	}
	if (!constant(v, in, 2, &s) || (s != 0 && s != 1)) {
		kd_verify_fail(v, in, 2, "cast: saturate must be a constant 0 or 1");
		return;
	}
	const char *why = kd_aipu_cast_unsupported(x->dt, r->dt);
	int want = kd_aipu_cast_lanes(x->lanes, kd_aipu_native(x->dt), kd_dtypes[x->dt].size * 8,
	                              kd_dtypes[r->dt].size * 8, (int)p);
	if (why)
		kd_verify_fail(v, in, -1, "cast: no direct cast from %s to %s", kd_dtypes[x->dt].name,
		               kd_dtypes[r->dt].name);
	else if (want <= 0 || r->lanes != want)
		kd_verify_fail(v, in, -1, "cast: %s with part %s gives %d lanes, not %d", tstr(v, x),
		               kd_aipu_cast_parts[p], want > 0 ? want : 0, r->lanes);
}

/* vrpadd x, mask: a multiple of native lanes; the result x's type, or
 * from f16 an f32 vector of half the lanes. */
static void vrpadd(KdVerify *v, const KdIns *in)
{
	const KdVal *x, *r;
	if (!nargs(v, in, 1, 2) || !(x = vec(v, in, 0, "x", 0)) || !(r = result(v, in, 0)))
		return;
	int f16 = x->dt == KD_F16;
	if (x->lanes % kd_aipu_native(x->dt))
		kd_verify_fail(v, in, 0, "vrpadd: x has %d lanes, not a multiple of native (%d)", x->lanes,
		               kd_aipu_native(x->dt));
	else if (r->dt != (f16 ? KD_F32 : x->dt) || r->lanes != (f16 ? x->lanes / 2 : x->lanes))
		kd_verify_fail(v, in, -1, "vrpadd: the result of %s must be %sx%d", tstr(v, x),
		               kd_dtypes[f16 ? KD_F32 : x->dt].name, f16 ? x->lanes / 2 : x->lanes);
	else if (in->nargs == 2)
		mask(v, in, 1, x->lanes, "vector");
}

/* vrint x [, mask]; clip x, min_val, max_val [, mask]; abs x, saturate
 * [, mask]: the vectors of the result's type (vrint: a float), the mask
 * of its lanes, abs's saturate a constant 0 or 1. */
static void unary_masked(KdVerify *v, const KdIns *in)
{
	int nv = in->op == OP_CLIP ? 3 : 1, n = nv + (in->op == OP_ABS);
	const KdVal *r;
	int64_t s;
	if (!nargs(v, in, n, n + 1) || !vec(v, in, 0, "x", 0) || !(r = result(v, in, 0)))
		return;
	for (int k = 0; k < nv; k++)
		if (!like(v, in, k, r, "the result"))
			return;
	if (in->op == OP_VRINT && !kd_dtypes[r->dt].is_float)
		kd_verify_fail(v, in, 0, "vrint: x must be a float vector, got %s", tstr(v, r));
	else if (in->op == OP_ABS && (!constant(v, in, 1, &s) || (s != 0 && s != 1)))
		kd_verify_fail(v, in, 1, "abs: saturate must be a constant 0 or 1");
	else if (in->nargs > n)
		mask(v, in, n, r->lanes, "vector");
}

void kd_verify_aipu(KdVerify *v, const KdIns *in)
{
	switch (in->op) {
	case OP_VLOAD: vload(v, in); return;
	case OP_VSTORE: vstore(v, in); return;
	case OP_VLOAD_GATHER: case OP_VSTORE_SCATTER: gather_scatter(v, in); return;
	case OP_DMA_COPY: dma_copy(v, in); return;
	case OP_VCONCAT: case OP_VZIP: concat_zip(v, in); return;
	case OP_VSPLIT: vsplit(v, in); return;
	case OP_VCOMPT: case OP_VCOMPC: compress(v, in); return;
	case OP_VREVS: case OP_VSHFL: case OP_VREPLIC: case OP_VSLDL: case OP_VMIN: case OP_VMAX:
		same_type(v, in);
		return;
	case OP_VSEL: vsel(v, in); return;
	case OP_VBCAST: case OP_VSPLAT: splat(v, in); return;
	case OP_VTBL: vtbl(v, in); return;
	case OP_TAIL_MASK: tail_mask(v, in); return;
	case OP_MASK_AND: case OP_MASK_OR: case OP_MASK_XOR: case OP_MASK_NOT: mask_logic(v, in); return;
	case OP_VMASKLIT: vmask(v, in); return;
	case OP_VCAST: cast(v, in); return;
	case OP_VRPADD: vrpadd(v, in); return;
	case OP_VRINT: case OP_CLIP: case OP_ABS: unary_masked(v, in); return;
	default:
		/* an op given this hook in the table but no rules here */
		kd_error(v->d, in->span, "internal compiler error: op '%s' has no typing rule in verify_aipu.c",
		         name(in));
		v->nerr++;
		return;
	}
}

/* ---- values ---- */

/* Every vector or mask value, wherever defined (a result, a block
 * parameter): 2..KD_AIPU_MAX_LANES lanes (a vector has more than one;
 * the emitter's lane arrays hold the most), a vector of an aipu dtype at
 * a width the Compass API allows, a mask of bools. */
void kd_verify_vec_value(KdVerify *v, const KdVal *x, KdSpan at)
{
	int allow = KD_AIPU_W_MULTI | KD_AIPU_W_FLEX, native = kd_aipu_native(x->dt);
	if (x->lanes < 2 || x->lanes > KD_AIPU_MAX_LANES)
		kd_verify_fail_at(v, at, "vectors and masks have 2..%d lanes, got %d", KD_AIPU_MAX_LANES,
		                  x->lanes);
	else if (x->type == VT_VEC && !(KD_AIPU_DTYPES & KD_DTBIT(x->dt)))
		kd_verify_fail_at(v, at, "no aipu vector of %s", x->dt ? kd_dtypes[x->dt].name : "no dtype");
	else if (x->type == VT_VEC && !kd_aipu_width_ok(x->lanes, native, allow))
		kd_verify_fail_at(v, at, "%sx%d: lanes must be %s (%d for %s)", kd_dtypes[x->dt].name,
		                  x->lanes, kd_aipu_width_words(allow), native, kd_dtypes[x->dt].name);
	else if (x->type == VT_MASK && x->dt != KD_BOOL)
		kd_verify_fail_at(v, at, "a mask's lanes are bool, got %s", kd_dtypes[x->dt].name);
}
