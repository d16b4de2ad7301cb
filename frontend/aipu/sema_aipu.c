/* sema_aipu.c: types and rules of the aipu target (seed 004).  Vector
 * operands are known here with their dtype and lane count, so every rule
 * of the page that is about types (dtype lists, lane agreement, widths,
 * part names, mask lanes, immediates) is reported here, at the argument
 * that breaks it.  Address rules are the rule checker's (rules_aipu.c). */
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

int kd_aipu_mask_parse(const char *s, unsigned char *out, int max)
{
	int n = 0;
	while (*s) {
		int64_t count = 0, digits = 0;
		while (*s >= '0' && *s <= '9') {
			count = count * 10 + (*s++ - '0');
			digits++;
			if (count > 1 << 20)
				return -1;
		}
		if (!digits)
			count = 1;
		if ((*s != 'T' && *s != 'F') || count == 0)
			return -1;
		for (int64_t i = 0; i < count; i++, n++)
			if (n < max)
				out[n] = *s == 'T';
		s++;
		if (n > 1 << 20)
			return -1;
	}
	return n;
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

/* A scalar that broadcasts to vector type t. */
static int scalar_fits(const KdType *s, const KdType *t)
{
	if (t->kind == TY_MASK)
		return s->kind == TY_BOOL;
	if (kd_dtypes[t->dt].is_float)
		return s->kind == TY_INT || s->kind == TY_FLOAT;
	return s->kind == TY_INT;
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

static void mask(Ctx *c, int p, int lanes)
{
	KdNode *x = arg(c, p);
	if (!x)
		return;
	const KdType *t = x->ty;
	int n = -1;
	switch (t->kind) {
	case TY_ERROR:
		c->bad = 1;
		return;
	case TY_MASK:
		n = t->lanes;
		break;
	case TY_STR:
		n = kd_aipu_mask_parse(x->name, NULL, 0);
		if (n < 0) {
			fail(c, x, "mask \"%s\" is not a run-length mask ([count]T and [count]F items, "
			     "counts at least 1)", x->name);
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
	if (n != lanes)
		fail(c, x, "mask has %d lanes, the vector has %d", n, lanes);
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
		fail(c, x, "%s must be an element address t[k] of a gm tensor, got %s", c->op->param[VLOAD_SRC].name,
		     tstr(c, tt));
		return c->err;
	}
	if (!dtype_ok(c, x, tt))
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
	} else if (int_arg(c, VLOAD_LANES, 1, 1, 4 * n, &lanes) > 0) {
		KdType probe = {.kind = TY_VEC, .dt = tt->dt, .lanes = (int)lanes};
		width(c, arg(c, VLOAD_LANES), &probe, W_MULTI | W_FLEX);
	}
	mask(c, VLOAD_MASK, (int)lanes);
	return store ? result(c, NULL) : result(c, vty(c->a, tt->dt, (int)lanes));
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
		if (p == 0 && 2 * t->lanes > 4 * native_of(t)) {
			fail(&c, at, "the \"all\" result of %s would have %d lanes, more than 4 times native (%d)",
			     tstr(&c, t), 2 * t->lanes, 4 * native_of(t));
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
			int_arg(&c, VSLDL_SHIFT, 1, 0, t->lanes, &k);
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
			/* vbcast(x > 0, lanes=16): a bool broadcast to a mask */
			int64_t lanes = 0;
			if (!arg(&c, VBCAST_LANES) && arg(&c, VBCAST_MASK) && arg(&c, VBCAST_MASK)->ty->kind == TY_MASK)
				lanes = arg(&c, VBCAST_MASK)->ty->lanes;
			else if (int_arg(&c, VBCAST_LANES, 1, 1, KD_AIPU_MAX_LANES, &lanes) <= 0) {
				if (!c.bad)
					fail(&c, x, "a bool x needs lanes (the mask's lane count)");
				return err;
			}
			mask(&c, VBCAST_MASK, (int)lanes);
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
		if (int_arg(&c, VBCAST_LANES, 1, 1, 4 * lanes, &lanes) > 0) {
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
		t = NULL;
		for (int i = 0; i < tb->list.n; i++) {
			KdNode *e = tb->list.v[i];
			if (e->ty->kind == TY_ERROR)
				return err;
			if (e->ty->kind != TY_VEC) {
				fail(&c, e, "table elements must be vectors, got %s", tstr(&c, e->ty));
				return err;
			}
			if (!t) {
				t = e->ty;
				if (!dtype_ok(&c, e, t) || !width(&c, e, t, W_NATIVE))
					return err;
			} else if (!kd_vec_type_same(t, e->ty)) {
				fail(&c, e, "table vectors must have one type, got %s and %s", tstr(&c, t),
				     tstr(&c, e->ty));
				return err;
			}
		}
		const KdType *ix = vec(&c, VTBL_INDICES, 0);
		if (!ix)
			return err;
		if (kd_dtypes[ix->dt].is_float || ix->lanes != t->lanes) {
			fail(&c, arg(&c, VTBL_INDICES), "indices must be an integer vector of %d lanes, got %s", t->lanes,
			     tstr(&c, ix));
			return err;
		}
		return result(&c, vty(a, t->dt, t->lanes));
	}
	case OP_TAIL_MASK: {
		int64_t lanes = 0;
		int_arg(&c, TAIL_MASK_N, 0, INT64_MIN, INT64_MAX, &k);
		if (int_arg(&c, TAIL_MASK_LANES, 1, 1, KD_AIPU_MAX_LANES, &lanes) <= 0)
			return err;
		int bits = VBITS % lanes == 0 && (VBITS / lanes == 8 || VBITS / lanes == 16 || VBITS / lanes == 32)
		           ? (int)(VBITS / lanes) : 0;
		return result(&c, mty(a, bits, (int)lanes));
	}
	default:
		kd_op_unhandled(d, n->span, "sema", (KdOp)(c.op - kd_ops));
		return err;
	}
}

KdType *kd_sema_vec_binary(KdArena *a, KdDiag *d, KdNode *n, KdType *l, KdType *r, KdType *err)
{
	const KdType *t = is_vecish(l) ? l : r, *o = t == l ? r : l;
	const char *op = kd_binop_spelling[n->op];
	int arith = n->op == B_ADD || n->op == B_SUB || n->op == B_MUL;
	int cmp = n->op >= B_EQ && n->op <= B_GE;
	if (t->kind == TY_MASK || (!arith && !cmp) ||
	    (is_vecish(o) ? !kd_vec_type_same(o, t) : !scalar_fits(o, t))) {
		kd_error(d, n->span, "invalid operands to '%s': %s and %s", op, kd_type_str(a, l),
		         kd_type_str(a, r));
		return err;
	}
	if (arith)
		return vty(a, t->dt, t->lanes);
	return mty(a, kd_dtypes[t->dt].size * 8, t->lanes);
}
