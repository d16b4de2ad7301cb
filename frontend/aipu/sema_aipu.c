/* sema_aipu.c: types and rules of the aipu target (seed 004).  Vector
 * operands are known here with their dtype and lane count, so every rule
 * of the page that is about types (dtype lists, lane agreement, widths,
 * part names, mask lanes, immediates) is reported here, at the argument
 * that breaks it.  Address rules are the rule checker's (rules_aipu.c). */
#include <stdio.h>
#include <string.h>

#include "sema_aipu.h"
#include "op.h"

/* The dtypes, native widths, allowed widths, lane limit and part names
 * are types_aipu.h's, shared with the IR verifier (ir/aipu/verify_aipu.c). */
enum { W_NATIVE = KD_AIPU_W_NATIVE, W_MULTI = KD_AIPU_W_MULTI, W_FLEX = KD_AIPU_W_FLEX };
/* the native vector's bits (256) */
enum { VBITS = KDSL_AIPU_VECTOR_BITS };

static int mask_native(const KdType *t)
{
	return t->maskbits ? VBITS / t->maskbits : t->lanes;
}

/* Lanes a mask string may spell before the count stops growing: far more
 * than any vector has (a longer string is an error anyway), and small
 * enough that no sum or product of counts overflows. */
enum { MASK_CAP = 1 << 30 };

static int mask_bad(char *why, const char *msg)
{
	if (why)
		snprintf(why, KD_AIPU_MASK_WHY, "%s", msg);
	return -1;
}

/* The '_' rules of the Compass parser: never first or last, never
 * doubled, never right after a count. */
static int mask_underscores(const char *s, size_t len, char *why)
{
	if (s[0] == '_' || s[len - 1] == '_')
		return mask_bad(why, "'_' cannot begin or end a mask string");
	for (size_t i = 1; i < len; i++) {
		if (s[i] != '_')
			continue;
		if (s[i - 1] == '_')
			return mask_bad(why, "'_' cannot follow '_'");
		if (s[i - 1] >= '0' && s[i - 1] <= '9')
			return mask_bad(why, "a count cannot stand before '_'");
	}
	return 0;
}

/* Writes count copies of the letters g[0..len) to out from lane *n on
 * (up to max lanes) and adds their lanes to *n, which stops at MASK_CAP. */
static void mask_group(const char *g, size_t len, int64_t count, unsigned char *out, int max,
                       int64_t *n)
{
	int64_t at = *n;
	for (int64_t r = 0; r < count && at < max; r++)
		for (size_t k = 0; k < len; k++, at++)
			if (at < max)
				out[at] = g[k] == 'T';
	int64_t total = *n + count * (int64_t)len;
	*n = total < MASK_CAP ? total : MASK_CAP;
}

int kd_aipu_mask_parse(const char *s, unsigned char *out, int max, char *why)
{
	size_t len = strlen(s);
	if (len < 2)
		return mask_bad(why, "a mask string has at least 2 characters");
	if (mask_underscores(s, len, why) < 0)
		return -1;
	if (s[len - 1] >= '0' && s[len - 1] <= '9')
		return mask_bad(why, "it ends with a count (the last character must be T or F)");
	int64_t n = 0, count = 1;
	for (size_t i = 0; i < len;) {
		if (s[i] == '_') {
			/* a separator; before letters it starts a group of count 1 */
			i++;
			if (s[i] == 'T' || s[i] == 'F')
				count = 1;
			continue;
		}
		if (s[i] >= '0' && s[i] <= '9') {
			for (count = 0; s[i] >= '0' && s[i] <= '9'; i++)
				count = count < MASK_CAP ? count * 10 + (s[i] - '0') : count;
			if (count == 0)
				return mask_bad(why, "a count must be at least 1");
			continue;
		}
		size_t g = i;
		while (s[i] == 'T' || s[i] == 'F')
			i++;
		if (i == g) {
			if (why)
				snprintf(why, KD_AIPU_MASK_WHY, "'%c' is not T, F, a count or '_'", s[i]);
			return -1;
		}
		mask_group(s + g, i - g, count, out, max, &n);
	}
	return (int)n;
}

static KdType *vty(KdArena *a, KdDtype dt, int lanes)
{
	KdType *t = kd_alloc(a, sizeof *t);
	t->kind = TY_VEC;
	t->dt = dt;
	t->lanes = lanes;
	return t;
}

static KdType *mty(KdArena *a, int bits, int lanes)
{
	KdType *t = kd_alloc(a, sizeof *t);
	t->kind = TY_MASK;
	t->dt = KD_BOOL;
	t->maskbits = bits;
	t->lanes = lanes;
	return t;
}

int kd_vec_type_same(const KdType *x, const KdType *y)
{
	if (x->kind != y->kind || x->lanes != y->lanes)
		return 0;
	return x->kind == TY_MASK || x->dt == y->dt;
}

const char *kd_vec_type_str(KdArena *a, const KdType *t)
{
	if (t->kind == TY_MASK)
		return t->maskbits ? kd_fmt(a, "bool%dx%d", t->maskbits, t->lanes)
		                   : kd_fmt(a, "mask of %d lanes", t->lanes);
	return kd_fmt(a, "%sx%d", kd_dtypes[t->dt].name, t->lanes);
}

KdType *kd_sema_vec_type(KdArena *a, KdDiag *d, KdNode *ty, KdType *err)
{
	if (ty->maskbits) {
		int b = ty->maskbits;
		if (b != 8 && b != 16 && b != 32) {
			kd_error(d, ty->span, "mask types govern 8, 16 or 32-bit elements, got bool%d", b);
			return err;
		}
		if (!kd_aipu_width_ok(ty->lanes, KDSL_AIPU_VECTOR_BITS / b, W_MULTI | W_FLEX)) {
			kd_error(d, ty->span, "bool%dx%d: lanes must be %s (%d)", b, ty->lanes,
			         kd_aipu_width_words(W_MULTI | W_FLEX), KDSL_AIPU_VECTOR_BITS / b);
			return err;
		}
		return mty(a, b, ty->lanes);
	}
	if (!(KD_AIPU_DTYPES & KD_DTBIT(ty->dtype))) {
		kd_error(d, ty->span, "vector elements must be one of %s, got %s",
		         kd_dtype_list(a, KD_AIPU_DTYPES), kd_dtypes[ty->dtype].name);
		return err;
	}
	int n = kd_aipu_native(ty->dtype);
	if (!kd_aipu_width_ok(ty->lanes, n, W_MULTI | W_FLEX)) {
		kd_error(d, ty->span, "%sx%d: lanes must be %s (%d for %s)", kd_dtypes[ty->dtype].name,
		         ty->lanes, kd_aipu_width_words(W_MULTI | W_FLEX), n, kd_dtypes[ty->dtype].name);
		return err;
	}
	return vty(a, ty->dtype, ty->lanes);
}

/* ---- op calls ---- */

typedef struct {
	KdArena *a;
	KdDiag *d;
	KdNode *n;
	const KdOpDesc *op;
	KdType *err;
	int bad;
} Ctx;

static KdNode *arg(Ctx *c, int p)
{
	return c->n->bound[p];
}

KD_PRINTF(3, 4) static void fail(Ctx *c, KdNode *at, const char *fmt, ...)
{
	KdBuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	kd_buf_printf(&b, "%s: ", c->op->name);
	kd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kd_error(c->d, at ? at->span : c->n->span, "%s", b.s);
	kd_buf_free(&b);
	c->bad = 1;
}

static const char *tstr(Ctx *c, const KdType *t)
{
	return kd_type_str(c->a, t);
}

static int is_vecish(const KdType *t)
{
	return t->kind == TY_VEC || t->kind == TY_MASK;
}

/* A scalar that broadcasts to vector type t: a bool to a mask, an
 * integer to any vector, a float to a float vector. */
static int scalar_fits(const KdType *s, const KdType *t)
{
	if (t->kind == TY_MASK)
		return s->kind == TY_BOOL;
	if (kd_dtypes[t->dt].is_float)
		return s->kind == TY_INT || s->kind == TY_FLOAT;
	return s->kind == TY_INT;
}

/* The range of dtype dt (types_aipu.h's). */
static void dt_range(KdDtype dt, double *lo, double *hi)
{
	kd_aipu_dt_range(dt, lo, hi);
}

/* The Compass API's broadcast of a scalar o to vector type t (its kind
 * already fits): a constant must lie in the lane dtype's range; a
 * variable's dtype must be no wider than the lanes (an integer of at most
 * the lane's bytes, either sign; otherwise its range inside the lane
 * dtype's: u8 or i16 to f16, not i32).  The language's own integer (no
 * dtype written: i64) is taken in the lane dtype like a literal.  0 after
 * writing why (n bytes). */
static int bcast_fits(const KdNode *o, const KdType *t, char *why, size_t n)
{
	KdDtype lt = t->dt, ot = o->ty->dt;
	double lo, hi, olo, ohi;
	if (t->kind == TY_MASK)
		return 1;
	dt_range(lt, &lo, &hi);
	if (o->is_const) {
		double v = o->ty->kind == TY_FLOAT ? o->fcval : (double)o->cval;
		if (v >= lo && v <= hi)
			return 1;
		if (o->ty->kind == TY_FLOAT)
			snprintf(why, n, "constant %g does not fit %s lanes (%g..%g)", v, kd_dtypes[lt].name, lo, hi);
		else
			snprintf(why, n, "constant %lld does not fit %s lanes (%.0f..%.0f)", (long long)o->cval,
			         kd_dtypes[lt].name, lo, hi);
		return 0;
	}
	if (!ot || ot == KD_I64)
		return 1;
	dt_range(ot, &olo, &ohi);
	if (!kd_dtypes[ot].is_float && !kd_dtypes[lt].is_float ? kd_dtypes[ot].size <= kd_dtypes[lt].size
	                                                        : olo >= lo && ohi <= hi)
		return 1;
	snprintf(why, n, "a scalar of dtype %s is wider than %s lanes (write a cast)", kd_dtypes[ot].name,
	         kd_dtypes[lt].name);
	return 0;
}

/* The common type of two operands, one of which may be a broadcast scalar;
 * NULL after reporting. */
static const KdType *common(Ctx *c, int px, int py, int masks_ok)
{
	KdNode *x = arg(c, px), *y = arg(c, py);
	const KdType *tx = x->ty, *ty = y->ty, *t;
	if (tx->kind == TY_ERROR || ty->kind == TY_ERROR) {
		c->bad = 1;
		return NULL;
	}
	if (is_vecish(tx))
		t = tx;
	else if (is_vecish(ty))
		t = ty;
	else {
		fail(c, x, "x or y must be a vector, got %s and %s", tstr(c, tx), tstr(c, ty));
		return NULL;
	}
	if (t->kind == TY_MASK && !masks_ok) {
		fail(c, t == tx ? x : y, "masks are not supported (dtypes: %s)",
		     kd_dtype_list(c->a, c->op->dtypes));
		return NULL;
	}
	KdNode *o = t == tx ? y : x;
	const KdType *to = o->ty;
	if (is_vecish(to) ? !kd_vec_type_same(to, t) : !scalar_fits(to, t)) {
		fail(c, o, "x and y must have the same type, got %s and %s", tstr(c, tx), tstr(c, ty));
		return NULL;
	}
	char why[128];
	if (!is_vecish(to) && !bcast_fits(o, t, why, sizeof why)) {
		fail(c, o, "%s cannot be broadcast to %s: %s", c->op->param[o == x ? px : py].name,
		     tstr(c, t), why);
		return NULL;
	}
	return t;
}

static int dtype_ok(Ctx *c, KdNode *at, const KdType *t)
{
	if (t->kind == TY_MASK)
		return 1;
	if (c->op->dtypes & KD_DTBIT(t->dt))
		return 1;
	fail(c, at, "dtype %s is not supported (supported: %s)", kd_dtypes[t->dt].name,
	     kd_dtype_list(c->a, c->op->dtypes));
	return 0;
}

/* Tensor parameter p's space is one the op table allows (the pure ops'
 * spaces are checked here; the rule checker checks the effect ops').
 * Every aipu space (gm, lsram) passes today; the table stays the one
 * place that says so. */
static int space_ok(Ctx *c, KdNode *at, const KdType *t, int p)
{
	uint32_t sp = c->op->param[p].spaces;
	if (!sp || (sp & (1u << t->space)))
		return 1;
	KdBuf b = {0};
	for (int s = 1; s < KD_NSPACE; s++)
		if (sp & (1u << s))
			kd_buf_printf(&b, "%s%s", b.n ? " or " : "", kd_spaces[s].name);
	fail(c, at, "%s must be in %s, got a tensor in %s", c->op->param[p].name, b.s,
	     kd_spaces[t->space].name);
	kd_buf_free(&b);
	return 0;
}

static int native_of(const KdType *t)
{
	return t->kind == TY_MASK ? mask_native(t) : kd_aipu_native(t->dt);
}

static int width(Ctx *c, KdNode *at, const KdType *t, int allow)
{
	if (kd_aipu_width_ok(t->lanes, native_of(t), allow))
		return 1;
	fail(c, at, "%s has %d lanes; they must be %s (%d)", tstr(c, t), t->lanes,
	     kd_aipu_width_words(allow), native_of(t));
	return 0;
}

/* A single vector operand. */
static const KdType *vec(Ctx *c, int p, int masks_ok)
{
	KdNode *x = arg(c, p);
	if (x->ty->kind == TY_ERROR) {
		c->bad = 1;
		return NULL;
	}
	if (x->ty->kind == TY_VEC || (masks_ok && x->ty->kind == TY_MASK))
		return x->ty;
	fail(c, x, "%s must be a vector%s, got %s", c->op->param[p].name, masks_ok ? " or a mask" : "",
	     tstr(c, x->ty));
	return NULL;
}

/* A string or list mask of n lanes for a vector of `lanes`: shorter is
 * padded with F as the Compass parser pads it (warned: -Wmask-pad, since
 * a forgotten lane reads as off), longer is an error. */
static void mask_length(Ctx *c, KdNode *x, int n, int lanes)
{
	if (n > lanes)
		fail(c, x, "mask has %d lanes, more than the vector's %d", n, lanes);
	else if (n < lanes)
		kd_warn(c->d, KD_W_MASK_PAD, x->span,
		        "%s: mask has %d lane%s, padded with %d F lane%s to the vector's %d", c->op->name, n,
		        n == 1 ? "" : "s", lanes - n, lanes - n == 1 ? "" : "s", lanes);
}

static void mask(Ctx *c, int p, int lanes)
{
	KdNode *x = arg(c, p);
	if (!x)
		return;
	const KdType *t = x->ty;
	char why[KD_AIPU_MASK_WHY];
	int n = -1;
	switch (t->kind) {
	case TY_ERROR:
		c->bad = 1;
		return;
	case TY_MASK:
		if (t->lanes != lanes)
			fail(c, x, "mask has %d lanes, the vector has %d", t->lanes, lanes);
		return;
	case TY_STR:
		n = kd_aipu_mask_parse(x->name, NULL, 0, why);
		if (n < 0) {
			fail(c, x, "mask \"%s\" is malformed: %s", x->name, why);
			return;
		}
		break;
	case TY_LIST:
		for (int i = 0; i < x->list.n; i++) {
			KdNode *e = x->list.v[i];
			if (e->ty->kind != TY_BOOL || !e->is_const) {
				fail(c, e, "mask list elements must be true or false, got %s", tstr(c, e->ty));
				return;
			}
		}
		n = x->list.n;
		break;
	default:
		fail(c, x, "mask must be a mask, a mask string or a list of bools, got %s", tstr(c, t));
		return;
	}
	mask_length(c, x, n, lanes);
}

static int part(Ctx *c, int p)
{
	KdNode *x = arg(c, p);
	if (!x)
		return 0;
	if (x->ty->kind != TY_STR) {
		fail(c, x, "part must be a string, got %s", tstr(c, x->ty));
		return -1;
	}
	int k = kd_aipu_part(x->name);
	if (k < 0)
		fail(c, x, "part must be one of \"all\", \"low\", \"high\", \"even\", \"odd\", got \"%s\"",
		     x->name);
	return k;
}

static int int_arg(Ctx *c, int p, int need_const, int64_t lo, int64_t hi, int64_t *out)
{
	KdNode *x = arg(c, p);
	if (!x)
		return 0;
	if (x->ty->kind == TY_ERROR) {
		c->bad = 1;
		return -1;
	}
	if (x->ty->kind != TY_INT) {
		fail(c, x, "%s must be an integer scalar, got %s", c->op->param[p].name, tstr(c, x->ty));
		return -1;
	}
	if (!x->is_const) {
		if (need_const) {
			fail(c, x, "%s must be a compile-time immediate", c->op->param[p].name);
			return -1;
		}
		return 0;
	}
	if (x->cval < lo || x->cval > hi) {
		fail(c, x, "%s must be in %lld..%lld, got %lld", c->op->param[p].name, (long long)lo,
		     (long long)hi, (long long)x->cval);
		return -1;
	}
	*out = x->cval;
	return 1;
}

/* A lanes= argument: a compile-time count of 2..hi (a vector has more
 * than one lane).  1 when given and valid, 0 when absent, -1 after
 * reporting. */
static int lanes_arg(Ctx *c, int p, int64_t hi, int64_t *out)
{
	int64_t k = 0;
	int r = int_arg(c, p, 1, INT64_MIN, INT64_MAX, &k);
	if (r <= 0)
		return r;
	if (k < 2 || k > hi) {
		fail(c, arg(c, p), "lanes must be in 2..%lld (a vector has more than one lane), got %lld",
		     (long long)hi, (long long)k);
		return -1;
	}
	*out = k;
	return 1;
}

static KdType *result(Ctx *c, KdType *t)
{
	return c->bad ? c->err : t;
}

static KdType *ret_like(Ctx *c, const KdType *t, int lanes)
{
	return t->kind == TY_MASK ? mty(c->a, t->maskbits, lanes) : vty(c->a, t->dt, lanes);
}

static KdType *load_store(Ctx *c, int store)
{
	KdNode *x = arg(c, VLOAD_SRC);
	const KdType *tt = x->ty;
	if (tt->kind == TY_ERROR)
		return c->err;
	if (tt->kind != TY_TENSOR || !tt->is_view) {
		fail(c, x, "%s must be an element address t[k] of a gm or lsram tensor, got %s", c->op->param[VLOAD_SRC].name,
		     tstr(c, tt));
		return c->err;
	}
	if (!dtype_ok(c, x, tt) || !space_ok(c, x, tt, VLOAD_SRC))
		return c->err;
	int n = kd_aipu_native(tt->dt);
	int64_t lanes = n;
	if (store) {
		const KdType *v = vec(c, VSTORE_V, 0);
		if (!v)
			return c->err;
		if (v->dt != tt->dt)
			fail(c, arg(c, VSTORE_V), "v is %s but the tensor holds %s", tstr(c, v), kd_dtypes[tt->dt].name);
		lanes = v->lanes;
	} else if (lanes_arg(c, VLOAD_LANES, KD_AIPU_MAX_MULT * n, &lanes) > 0) {
		KdType probe = {.kind = TY_VEC, .dt = tt->dt, .lanes = (int)lanes};
		width(c, arg(c, VLOAD_LANES), &probe, W_MULTI | W_FLEX);
	}
	mask(c, VLOAD_MASK, (int)lanes);
	/* Compass asserts stride >= 1; a run-time stride is checked when the
	 * kernel runs */
	int64_t stride = 1;
	if (int_arg(c, VLOAD_STRIDE, 0, INT64_MIN, INT64_MAX, &stride) > 0 && stride < 1)
		fail(c, arg(c, VLOAD_STRIDE), "stride must be at least 1, got %lld", (long long)stride);
	return store ? result(c, NULL) : result(c, vty(c->a, tt->dt, (int)lanes));
}

/* vload_gather (store 0) and vstore_scatter (store 1): an element
 * address, an i16/u16 index vector (Compass requires 16-bit integers),
 * whose lanes are the result's or v's, and the mask of those lanes. */
static KdType *gather_scatter(Ctx *c, int store)
{
	enum { SRC = VLOAD_GATHER_SRC, G_INDEX = VLOAD_GATHER_INDEX, S_INDEX = VSTORE_SCATTER_INDEX };
	_Static_assert(KD_SAME_POS(VLOAD_GATHER_SRC, VSTORE_SCATTER_DST), "the tensor first");
	KdNode *x = arg(c, SRC);
	const KdType *tt = x->ty;
	if (tt->kind == TY_ERROR)
		return c->err;
	if (tt->kind != TY_TENSOR || !tt->is_view) {
		fail(c, x, "%s must be an element address t[k] of a gm or lsram tensor, got %s", c->op->param[SRC].name,
		     tstr(c, tt));
		return c->err;
	}
	if (!dtype_ok(c, x, tt) || !space_ok(c, x, tt, SRC))
		return c->err;
	int ip = store ? S_INDEX : G_INDEX;
	const KdType *ix = vec(c, ip, 0);
	if (!ix)
		return c->err;
	if (ix->dt != KD_I16 && ix->dt != KD_U16) {
		fail(c, arg(c, ip), "index must be an i16 or u16 vector (Compass's 16-bit indices), got %s",
		     tstr(c, ix));
		return c->err;
	}
	KdType probe = {.kind = TY_VEC, .dt = tt->dt, .lanes = ix->lanes};
	if (store) {
		const KdType *v = vec(c, VSTORE_SCATTER_V, 0);
		if (!v)
			return c->err;
		if (v->dt != tt->dt)
			fail(c, arg(c, VSTORE_SCATTER_V), "v is %s but the tensor holds %s", tstr(c, v),
			     kd_dtypes[tt->dt].name);
		else if (v->lanes != ix->lanes)
			fail(c, arg(c, ip), "index has %d lanes, v has %d", ix->lanes, v->lanes);
	} else if (!width(c, arg(c, ip), &probe, W_MULTI | W_FLEX)) {
		return c->err;
	}
	mask(c, store ? VSTORE_SCATTER_MASK : VLOAD_GATHER_MASK, ix->lanes);
	return store ? result(c, NULL) : result(c, vty(c->a, tt->dt, ix->lanes));
}

/* dma_copy(dst, src, count): two tensors or element addresses of one
 * dtype, in a pair of memories Compass's DMA copies between, and an
 * integer count (a constant at least 1; the ranges are the rule
 * checker's, which sees the addresses). */
static KdType *dma_copy(Ctx *c)
{
	const KdType *t[2];
	for (int p = DMA_COPY_DST; p <= DMA_COPY_SRC; p++) {
		KdNode *x = arg(c, p);
		t[p] = x->ty;
		if (t[p]->kind == TY_ERROR)
			return c->err;
		if (t[p]->kind != TY_TENSOR || t[p]->rank != 1) {
			fail(c, x, "%s must be a 1-D tensor or an element address t[k], got %s", c->op->param[p].name,
			     tstr(c, t[p]));
			return c->err;
		}
		if (!dtype_ok(c, x, t[p]) || !space_ok(c, x, t[p], p))
			return c->err;
	}
	if (t[DMA_COPY_DST]->dt != t[DMA_COPY_SRC]->dt) {
		fail(c, arg(c, DMA_COPY_SRC), "src holds %s but dst %s (Compass copies one dtype)",
		     kd_dtypes[t[DMA_COPY_SRC]->dt].name, kd_dtypes[t[DMA_COPY_DST]->dt].name);
		return c->err;
	}
	if (!kdsl_aipu_dma_allowed((kdsl_mem)t[DMA_COPY_SRC]->space, (kdsl_mem)t[DMA_COPY_DST]->space)) {
		fail(c, NULL, "cannot copy from %s to %s (" KDSL_AIPU_DMA_TEXT ")",
		     kd_spaces[t[DMA_COPY_SRC]->space].name, kd_spaces[t[DMA_COPY_DST]->space].name);
		return c->err;
	}
	int64_t n;
	if (int_arg(c, DMA_COPY_COUNT, 0, INT64_MIN, INT64_MAX, &n) > 0 && n < 1)
		fail(c, arg(c, DMA_COPY_COUNT), "count must be at least 1, got %lld", (long long)n);
	return c->bad ? c->err : NULL;
}

/* vtbl's table: 2 to 4 native vectors of one type, where a scalar may
 * stand for one (the Compass API broadcasts it to the others' type, so
 * at least one is a vector).  Their type, or NULL after reporting. */
static const KdType *table_type(Ctx *c, KdNode *tb)
{
	const KdType *t = NULL;
	char why[128];
	for (int i = 0; i < tb->list.n && !t; i++) {
		KdNode *e = tb->list.v[i];
		if (e->ty->kind == TY_ERROR) {
			c->bad = 1;
			return NULL;
		}
		if (e->ty->kind == TY_VEC) {
			t = e->ty;
			if (!dtype_ok(c, e, t) || !width(c, e, t, W_NATIVE))
				return NULL;
		}
	}
	if (!t) {
		fail(c, tb, "table must hold at least one vector (a scalar stands for a vector of its type)");
		return NULL;
	}
	for (int i = 0; i < tb->list.n; i++) {
		KdNode *e = tb->list.v[i];
		if (e->ty->kind == TY_ERROR) {
			c->bad = 1;
			return NULL;
		}
		if (is_vecish(e->ty) ? !kd_vec_type_same(t, e->ty) : !scalar_fits(e->ty, t)) {
			fail(c, e, "table elements must be vectors of one type or scalars, got %s and %s",
			     tstr(c, t), tstr(c, e->ty));
			return NULL;
		}
		if (!is_vecish(e->ty) && !bcast_fits(e, t, why, sizeof why)) {
			fail(c, e, "table element %d cannot be broadcast to %s: %s", i, tstr(c, t), why);
			return NULL;
		}
	}
	return t;
}

/* ---- arithmetic: cast, vrpadd, vrint, clip, abs ---- */

_Static_assert(KD_SAME_POS(VRINT_X, KD_AIPU_X) && KD_SAME_POS(CLIP_X, KD_AIPU_X) &&
               KD_SAME_POS(ABS_X, KD_AIPU_X) && KD_SAME_POS(VCAST_X, KD_AIPU_X) &&
               KD_SAME_POS(VRPADD_X, KD_AIPU_X), "the arithmetic ops take x first");

/* Whether a saturate= argument was given, and its value (-1: absent). */
static int sat_arg(Ctx *c, int p)
{
	KdNode *x = arg(c, p);
	if (!x)
		return -1;
	if ((x->ty->kind != TY_BOOL && x->ty->kind != TY_INT) || !x->is_const) {
		fail(c, x, "saturate must be a constant true or false");
		return -2;
	}
	return x->cval != 0;
}

/* cast(x, dtype, part, saturate): the Compass API's direct conversions,
 * parts and saturation (types_aipu.h's kd_aipu_cast_*). */
static KdType *cast_call(Ctx *c)
{
	const KdType *t = vec(c, VCAST_X, 0);
	KdNode *dn = arg(c, VCAST_DTYPE), *pn = arg(c, VCAST_PART);
	if (!t || !dtype_ok(c, arg(c, VCAST_X), t))
		return c->err;
	if (dn->kind != N_TYPE || dn->space || dn->lanes || dn->maskbits) {
		fail(c, dn, "dtype must be a scalar dtype written bare, such as f32, got %s",
		     dn->kind == N_TYPE ? "a vector or mask type" : tstr(c, dn->ty));
		return c->err;
	}
	if (pn && pn->ty->kind != TY_STR) {
		fail(c, pn, "part must be a string, got %s", tstr(c, pn->ty));
		return c->err;
	}
	KdDtype to = dn->dtype;
	if (!(KD_AIPU_DTYPES & KD_DTBIT(to))) {
		fail(c, dn, "dtype must be one of %s, got %s", kd_dtype_list(c->a, KD_AIPU_DTYPES),
		     kd_dtypes[to].name);
		return c->err;
	}
	const char *why = kd_aipu_cast_unsupported(t->dt, to);
	if (why) {
		fail(c, dn, "no direct cast from %s to %s: %s", kd_dtypes[t->dt].name, kd_dtypes[to].name, why);
		return c->err;
	}
	int p = pn ? kd_aipu_cast_part_of(pn->name) : KD_AIPU_PART_ALL;
	if (p < 0) {
		KdBuf b = {0};
		for (int i = 0; kd_aipu_cast_parts[i]; i++)
			kd_buf_printf(&b, "%s\"%s\"", i ? ", " : "", kd_aipu_cast_parts[i]);
		fail(c, pn, "part must be one of %s, got \"%s\"", b.s, pn->name);
		kd_buf_free(&b);
		return c->err;
	}
	int fb = kd_dtypes[t->dt].size * 8, tb = kd_dtypes[to].size * 8;
	int lanes = kd_aipu_cast_lanes(t->lanes, kd_aipu_native(t->dt), fb, tb, p);
	if (lanes == 0) {
		fail(c, pn, "part \"%s\" takes %s, not %d to %d bits", pn->name,
		     p >= KD_AIPU_PART_LL ? "a quarter of x to four times its bits"
		                          : "half of x to twice its bits", fb, tb);
		return c->err;
	}
	if (lanes < 0) {
		fail(c, arg(c, VCAST_X), "part \"%s\" takes a native x (%d lanes), got %s", pn->name,
		     kd_aipu_native(t->dt), tstr(c, t));
		return c->err;
	}
	int sat = sat_arg(c, VCAST_SATURATE);
	int from_float = kd_dtypes[t->dt].is_float, to_float = kd_dtypes[to].is_float;
	if (sat == -2)
		return c->err;
	if (sat >= 0 && from_float && !to_float && (to != KD_I32 || sat == 0)) {
		fail(c, arg(c, VCAST_SATURATE), to == KD_I32
		     ? "a float converts to i32 with saturation only (saturate=false is not supported)"
		     : "saturate cannot be set from a float to %s (the conversion saturates to i32, then wraps)",
		     kd_dtypes[to].name);
		return c->err;
	}
	if (sat > 0 && to_float) {
		fail(c, arg(c, VCAST_SATURATE), "saturate applies to integer results only, not %s",
		     kd_dtypes[to].name);
		return c->err;
	}
	KdType probe = {.kind = TY_VEC, .dt = to, .lanes = lanes};
	if (!width(c, arg(c, VCAST_X), &probe, W_MULTI | W_FLEX))
		return c->err;
	return result(c, vty(c->a, to, lanes));
}

/* An optional mask of a vector of `lanes` (vrpadd, vrint, clip, abs). */
static KdType *masked_like(Ctx *c, const KdType *t, int pmask)
{
	mask(c, pmask, t->lanes);
	return result(c, vty(c->a, t->dt, t->lanes));
}

static KdType *vrpadd_call(Ctx *c)
{
	const KdType *t = vec(c, VRPADD_X, 0);
	if (!t || !dtype_ok(c, arg(c, VRPADD_X), t) || !width(c, arg(c, VRPADD_X), t, W_MULTI))
		return c->err;
	mask(c, VRPADD_MASK, t->lanes);
	if (t->dt == KD_F16)
		return result(c, vty(c->a, KD_F32, t->lanes / 2));
	return result(c, vty(c->a, t->dt, t->lanes));
}

/* A clip bound: a vector of x's type, or a scalar; a constant outside
 * the lane dtype's range is clamped by lowering (the Compass API's
 * reading), a variable must fit as any broadcast does. */
static int clip_bound(Ctx *c, int p, const KdType *t)
{
	KdNode *b = arg(c, p);
	char why[128];
	if (b->ty->kind == TY_ERROR) {
		c->bad = 1;
		return 0;
	}
	if (is_vecish(b->ty) ? !kd_vec_type_same(b->ty, t) : !scalar_fits(b->ty, t)) {
		fail(c, b, "%s must be a vector of type %s or a scalar, got %s", c->op->param[p].name, tstr(c, t),
		     tstr(c, b->ty));
		return 0;
	}
	if (!is_vecish(b->ty) && !b->is_const && !bcast_fits(b, t, why, sizeof why)) {
		fail(c, b, "%s cannot be broadcast to %s: %s", c->op->param[p].name, tstr(c, t), why);
		return 0;
	}
	return 1;
}

static KdType *arith_call(Ctx *c, KdOp op)
{
	const KdType *t = vec(c, KD_AIPU_X, 0);
	if (!t || !dtype_ok(c, arg(c, KD_AIPU_X), t))
		return c->err;
	switch (op) {
	case OP_VRINT:
		return masked_like(c, t, VRINT_MASK);
	case OP_CLIP:
		if (!clip_bound(c, CLIP_MIN_VAL, t) || !clip_bound(c, CLIP_MAX_VAL, t))
			return c->err;
		return masked_like(c, t, CLIP_MASK);
	default: {   /* abs */
		int sat = sat_arg(c, ABS_SATURATE);
		if (sat > 0 && kd_dtypes[t->dt].is_float) {
			fail(c, arg(c, ABS_SATURATE), "saturate is meaningless for %s (a float's absolute value "
			     "always fits)", tstr(c, t));
			return c->err;
		}
		return masked_like(c, t, ABS_MASK);
	}
	}
}

KdType *kd_sema_aipu_call(KdArena *a, KdDiag *d, KdNode *n, KdType *err)
{
	Ctx c = {.a = a, .d = d, .n = n, .op = n->opdesc, .err = err};
	const KdType *t;
	int64_t k = 0;
	switch ((KdOp)(c.op - kd_ops)) {
	case OP_VLOAD:
		return load_store(&c, 0);
	case OP_VSTORE: {
		KdType *r = load_store(&c, 1);
		return r == err ? err : NULL;
	}
	case OP_DMA_COPY:
		return dma_copy(&c);
	case OP_VLOAD_GATHER:
		return gather_scatter(&c, 0);
	case OP_VSTORE_SCATTER: {
		KdType *r = gather_scatter(&c, 1);
		return r == err ? err : NULL;
	}
	case OP_VCONCAT:
	case OP_VZIP: {
		int zip = c.op == &kd_ops[OP_VZIP];
		if (!(t = common(&c, KD_AIPU_X, KD_AIPU_Y, zip)) || !dtype_ok(&c, arg(&c, KD_AIPU_X), t))
			return err;
		int p = part(&c, KD_AIPU_THIRD);
		if (p < 0)
			return err;
		KdNode *at = t == arg(&c, KD_AIPU_X)->ty ? arg(&c, KD_AIPU_X) : arg(&c, KD_AIPU_Y);
		if (!width(&c, at, t, zip && p == 0 ? W_MULTI | W_FLEX : W_MULTI))
			return err;
		if (p == 0 && 2 * t->lanes > KD_AIPU_MAX_MULT * native_of(t)) {
			fail(&c, at, "the \"all\" result of %s would have %d lanes, more than %d times native (%d)",
			     tstr(&c, t), 2 * t->lanes, KD_AIPU_MAX_MULT, KD_AIPU_MAX_MULT * native_of(t));
			return err;
		}
		return result(&c, ret_like(&c, t, kd_aipu_part_lanes(t->lanes, p)));
	}
	case OP_VSPLIT: {
		if (!(t = vec(&c, VSPLIT_X, 0)) || !dtype_ok(&c, arg(&c, VSPLIT_X), t))
			return err;
		int nat = kd_aipu_native(t->dt);
		if (t->lanes % nat || t->lanes / nat < 2 || t->lanes / nat > 4) {
			fail(&c, arg(&c, VSPLIT_X), "x must be 2, 3 or 4 times the native width (%d lanes), got %s",
			     nat, tstr(&c, t));
			return err;
		}
		KdType *r = kd_alloc(a, sizeof *r);
		r->kind = TY_TUPLE;
		r->nelem = t->lanes / nat;
		r->elem = kd_alloc(a, sizeof *r->elem * (size_t)r->nelem);
		for (int i = 0; i < r->nelem; i++)
			r->elem[i] = vty(a, t->dt, nat);
		return r;
	}
	case OP_VCOMPT:
	case OP_VREVS:
	case OP_VSHFL:
	case OP_VREPLIC: {
		int is_revs = c.op == &kd_ops[OP_VREVS];
		if (!(t = vec(&c, KD_AIPU_X, is_revs)) || !dtype_ok(&c, arg(&c, KD_AIPU_X), t) ||
		    !width(&c, arg(&c, KD_AIPU_X), t, W_NATIVE))
			return err;
		if (c.op == &kd_ops[OP_VCOMPT])
			mask(&c, VCOMPT_MASK, t->lanes);
		else if (c.op == &kd_ops[OP_VSHFL])
			int_arg(&c, VSHFL_SHIFT, 0, INT64_MIN, INT64_MAX, &k);
		else if (c.op == &kd_ops[OP_VREPLIC])
			int_arg(&c, VREPLIC_INDEX, 0, 0, t->lanes - 1, &k);
		return result(&c, ret_like(&c, t, t->lanes));
	}
	case OP_VCOMPC:
	case OP_VSLDL:
		if (!(t = common(&c, KD_AIPU_X, KD_AIPU_Y, 0)) || !dtype_ok(&c, arg(&c, KD_AIPU_X), t))
			return err;
		if (!width(&c, t == arg(&c, KD_AIPU_X)->ty ? arg(&c, KD_AIPU_X) : arg(&c, KD_AIPU_Y), t, W_NATIVE))
			return err;
		if (c.op == &kd_ops[OP_VCOMPC])
			mask(&c, VCOMPC_MASK, t->lanes);
		else
			int_arg(&c, VSLDL_SHIFT, 1, 0, t->lanes - 1, &k);
		return result(&c, ret_like(&c, t, t->lanes));
	case OP_VSEL:
	case OP_VMIN:
	case OP_VMAX: {
		int sel = c.op == &kd_ops[OP_VSEL];
		if (!(t = common(&c, KD_AIPU_X, KD_AIPU_Y, sel)) || !dtype_ok(&c, arg(&c, KD_AIPU_X), t))
			return err;
		if (!width(&c, t == arg(&c, KD_AIPU_X)->ty ? arg(&c, KD_AIPU_X) : arg(&c, KD_AIPU_Y), t,
		           W_MULTI | W_FLEX))
			return err;
		if (sel)
			mask(&c, VSEL_MASK, t->lanes);
		return result(&c, ret_like(&c, t, t->lanes));
	}
	case OP_VBCAST: {
		KdNode *x = arg(&c, VBCAST_X);
		KdDtype dt = x->ty->dt;
		if (x->ty->kind == TY_BOOL) {
			/* vbcast(x > 0, lanes=16): a bool broadcast to every lane of
			 * a mask; the Compass API takes no mask with it */
			int64_t lanes = 0;
			if (arg(&c, VBCAST_MASK)) {
				fail(&c, arg(&c, VBCAST_MASK), "a bool x takes no mask (it sets every lane of the mask "
				     "it makes)");
				return err;
			}
			if (lanes_arg(&c, VBCAST_LANES, KD_AIPU_MAX_LANES, &lanes) <= 0) {
				if (!c.bad)
					fail(&c, x, "a bool x needs lanes (the mask's lane count)");
				return err;
			}
			int bits = VBITS % lanes == 0 && (VBITS / lanes == 8 || VBITS / lanes == 16 ||
			                                  VBITS / lanes == 32) ? (int)(VBITS / lanes) : 0;
			return result(&c, mty(a, bits, (int)lanes));
		}
		if (x->ty->kind == TY_FLOAT && !dt)
			dt = KD_F32;
		if ((x->ty->kind != TY_INT && x->ty->kind != TY_FLOAT) || !(c.op->dtypes & KD_DTBIT(dt))) {
			fail(&c, x, "x must be a scalar of dtype %s (write i32(3), f16(1.5), ...), got %s",
			     kd_dtype_list(a, c.op->dtypes), tstr(&c, x->ty));
			return err;
		}
		/* lanes: given, else a mask value's, else native */
		int64_t lanes = kd_aipu_native(dt);
		if (!arg(&c, VBCAST_LANES) && arg(&c, VBCAST_MASK) && arg(&c, VBCAST_MASK)->ty->kind == TY_MASK)
			lanes = arg(&c, VBCAST_MASK)->ty->lanes;
		KdType probe0 = {.kind = TY_VEC, .dt = dt, .lanes = (int)lanes};
		if (!arg(&c, VBCAST_LANES) && !width(&c, arg(&c, VBCAST_MASK), &probe0, W_MULTI | W_FLEX))
			return err;
		if (lanes_arg(&c, VBCAST_LANES, KD_AIPU_MAX_MULT * kd_aipu_native(dt), &lanes) > 0) {
			KdType probe = {.kind = TY_VEC, .dt = dt, .lanes = (int)lanes};
			width(&c, arg(&c, VBCAST_LANES), &probe, W_MULTI | W_FLEX);
		}
		mask(&c, VBCAST_MASK, (int)lanes);
		return result(&c, vty(a, dt, (int)lanes));
	}
	case OP_VTBL: {
		KdNode *tb = arg(&c, VTBL_TABLE);
		if (tb->ty->kind == TY_ERROR)
			return err;
		if (tb->kind != N_TUPLE && tb->kind != N_LIST) {
			fail(&c, tb, "table must be a tuple of 2 to 4 vectors, got %s", tstr(&c, tb->ty));
			return err;
		}
		if (tb->list.n < 2 || tb->list.n > 4) {
			fail(&c, tb, "table must hold 2 to 4 vectors, got %d", tb->list.n);
			return err;
		}
		if (!(t = table_type(&c, tb)))
			return err;
		const KdType *ix = vec(&c, VTBL_INDICES, 0);
		if (!ix)
			return err;
		if (kd_dtypes[ix->dt].is_float || ix->lanes != t->lanes ||
		    kd_dtypes[ix->dt].size != kd_dtypes[t->dt].size) {
			fail(&c, arg(&c, VTBL_INDICES), "indices must be an integer vector of %d %d-bit lanes (the "
			     "table's), got %s", t->lanes, kd_dtypes[t->dt].size * 8, tstr(&c, ix));
			return err;
		}
		return result(&c, vty(a, t->dt, t->lanes));
	}
	case OP_MASK_AND:
	case OP_MASK_OR:
	case OP_MASK_XOR:
	case OP_MASK_NOT: {
		/* the operators' call form: mask values only (a string has no
		 * lane count of its own to agree on) */
		int n2 = c.op != &kd_ops[OP_MASK_NOT];
		const KdType *tx = arg(&c, KD_AIPU_X)->ty;
		for (int p = 0; p <= n2; p++) {
			const KdType *tp = arg(&c, p)->ty;
			if (tp->kind == TY_ERROR)
				return err;
			if (tp->kind != TY_MASK || !kd_vec_type_same(tp, tx)) {
				fail(&c, arg(&c, p), "%s must be a mask%s, got %s", c.op->param[p].name,
				     p ? " of x's type" : "", tstr(&c, tp));
				return err;
			}
		}
		return result(&c, mty(a, tx->maskbits, tx->lanes));
	}
	case OP_TAIL_MASK: {
		int64_t lanes = 0;
		int_arg(&c, TAIL_MASK_N, 0, INT64_MIN, INT64_MAX, &k);
		if (lanes_arg(&c, TAIL_MASK_LANES, KD_AIPU_MAX_LANES, &lanes) <= 0)
			return err;
		int bits = VBITS % lanes == 0 && (VBITS / lanes == 8 || VBITS / lanes == 16 || VBITS / lanes == 32)
		           ? (int)(VBITS / lanes) : 0;
		return result(&c, mty(a, bits, (int)lanes));
	}
	case OP_VCAST:
		return cast_call(&c);
	case OP_VRPADD:
		return vrpadd_call(&c);
	case OP_VRINT:
	case OP_CLIP:
	case OP_ABS:
		return arith_call(&c, (KdOp)(c.op - kd_ops));
	default:
		kd_op_unhandled(d, n->span, "sema", (KdOp)(c.op - kd_ops));
		return err;
	}
}

/* Mask & | ^ mask: the Compass API combines two masks of one type lane
 * by lane. */
static int mask_logic(const KdNode *n)
{
	return n->op == B_AND || n->op == B_OR || n->op == B_XOR;
}

KdType *kd_sema_vec_binary(KdArena *a, KdDiag *d, KdNode *n, KdType *l, KdType *r, KdType *err)
{
	const KdType *t = is_vecish(l) ? l : r, *o = t == l ? r : l;
	const char *op = kd_binop_spelling[n->op];
	int arith = n->op == B_ADD || n->op == B_SUB || n->op == B_MUL;
	int cmp = n->op >= B_EQ && n->op <= B_GE;
	if (t->kind == TY_MASK && mask_logic(n) && o->kind == TY_MASK && kd_vec_type_same(o, t))
		return mty(a, t->maskbits, t->lanes);
	/* `/` is the Compass API's vdiv (integers and f32), & | ^ its vand,
	 * vor, vxor (integers) */
	if (t->kind == TY_VEC && (n->op == B_DIV || mask_logic(n))) {
		int isf = kd_dtypes[t->dt].is_float;
		if (n->op == B_DIV ? t->dt == KD_F16 : isf) {
			kd_error(d, n->span, "'%s' is not defined on %s vectors (%s)", op, kd_dtypes[t->dt].name,
			         n->op == B_DIV ? "the Compass API divides integer and f32 vectors: cast to f32"
			                        : "bitwise operators take integer vectors");
			return err;
		}
		arith = 1;
	}
	if (t->kind == TY_MASK || (!arith && !cmp) ||
	    (is_vecish(o) ? !kd_vec_type_same(o, t) : !scalar_fits(o, t))) {
		kd_error(d, n->span, "invalid operands to '%s': %s and %s", op, kd_type_str(a, l),
		         kd_type_str(a, r));
		return err;
	}
	char why[128];
	KdNode *on = t == l ? n->b : n->a;
	if (!is_vecish(o) && !bcast_fits(on, t, why, sizeof why)) {
		kd_error(d, on->span, "'%s': the scalar cannot be broadcast to %s: %s", op, kd_type_str(a, t),
		         why);
		return err;
	}
	if (arith)
		return vty(a, t->dt, t->lanes);
	return mty(a, kd_dtypes[t->dt].size * 8, t->lanes);
}

KdType *kd_sema_vec_unary(KdArena *a, KdDiag *d, KdNode *n, KdType *t, KdType *err)
{
	if (n->op == U_BITNOT && t->kind == TY_VEC) {
		/* the Compass API's vinv: integer vectors */
		if (!kd_dtypes[t->dt].is_float)
			return vty(a, t->dt, t->lanes);
		kd_error(d, n->span, "'~' is not defined on %s vectors (bitwise operators take integer "
		         "vectors)", kd_dtypes[t->dt].name);
		return err;
	}
	if (n->op != U_NOT || t->kind != TY_MASK) {
		kd_error(d, n->span, "invalid operand to unary '%s': %s", kd_unop_spelling[n->op],
		         kd_type_str(a, t));
		return err;
	}
	return mty(a, t->maskbits, t->lanes);
}
