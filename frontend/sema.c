/* sema.c: names, types, shapes and constants of a parsed file.  Errors
 * are reported and analysis goes on with TY_ERROR, which every check
 * accepts silently, so one mistake gives one message. */
#include <math.h>
#include <string.h>

#include "ieval.h"
#include "sema.h"
#include "scope.h"
#include "sema_aipu.h"
#include "frontend_target.h"
#include "lower.h"
#include "op.h"

typedef struct {
	KdArena *a;
	KdDiag *d;
	KdTarget target;
	const KdFrontendTarget *tg;
	KdScopes *scope;
	KdType *t_err, *t_void, *t_int, *t_float, *t_bool, *t_str;
	int loop_depth;
	int taint;   /* the statement being checked used a poisoned name (KdSym.bad) */
} Sema;

static KdType *mkty(Sema *s, KdTyKind k)
{
	KdType *t = kd_alloc(s->a, sizeof *t);
	t->kind = k;
	return t;
}

int64_t kd_type_nelem(const KdType *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->dims[i];
	return n;
}

KdType *kd_type_view(KdArena *a, const KdType *base)
{
	if (base->view)
		return base->view;
	KdType *t = kd_alloc(a, sizeof *t);
	*t = *base;
	t->is_view = 1;
	t->view = NULL;
	/* the memo is the one field a tensor type gains after sema made it */
	((KdType *)(uintptr_t)base)->view = t;
	return t;
}

const char *kd_type_str(KdArena *a, const KdType *t)
{
	switch (t->kind) {
	case TY_ERROR: return "<error>";
	case TY_VOID: return "nothing";
	case TY_INT: return t->dt == KD_I64 ? "integer" : kd_fmt(a, "integer (%s)", kd_dtypes[t->dt].name);
	case TY_FLOAT: return t->dt ? kd_fmt(a, "number (%s)", kd_dtypes[t->dt].name) : "number";
	case TY_BOOL: return "bool";
	case TY_STR: return "string";
	case TY_LIST: return "list";
	case TY_TUPLE: return "tuple";
	case TY_VEC:
	case TY_MASK: return kd_vec_type_str(a, t);
	case TY_TENSOR: {
		KdBuf b = {0};
		kd_buf_printf(&b, "%s%s %s[", t->is_view ? "view of " : "", kd_spaces[t->space].name,
		              kd_dtypes[t->dt].name);
		for (int i = 0; i < t->rank; i++)
			kd_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
		kd_buf_puts(&b, "]");
		char *r = kd_strdup(a, b.s);
		kd_buf_free(&b);
		return r;
	}
	}
	return "?";
}

/* ---- scopes ---- */

static void push_scope(Sema *s)
{
	kd_scope_push(s->scope);
}

static void pop_scope(Sema *s)
{
	kd_scope_pop(s->scope);
}

static KdSym *lookup(Sema *s, const char *name)
{
	return kd_scope_lookup(s->scope, name);
}

/* "use of undeclared identifier", with a note naming the nearest name
 * in view when one is close (a misspelt tensor or variable). */
static void undeclared(Sema *s, KdSpan at, const char *name)
{
	kd_error(s->d, at, "use of undeclared identifier '%s'", name);
	KdNear near;
	kd_near_init(&near, name);
	kd_scope_near(s->scope, &near);
	kd_near_note(s->d, &near, at);
}

static KdSym *declare(Sema *s, KdSymKind k, const char *name, KdSpan at, KdNode *decl, KdType *ty)
{
	KdSym *prev = kd_scope_here(s->scope, name);
	if (prev) {
		kd_error(s->d, at, "redefinition of '%s'", name);
		kd_note(s->d, prev->decl->name_span.len ? prev->decl->name_span : prev->decl->span,
		        "previous definition of '%s' is here", name);
	}
	if (kd_space_lookup(s->target, name, strlen(name)))
		kd_error(s->d, at, "'%s' is a memory-space keyword of target %s and cannot name a value",
		         name, kd_target_names[s->target]);
	KdSym *y = kd_alloc(s->a, sizeof *y);
	y->kind = k;
	y->name = name;
	y->decl = decl;
	y->ty = ty;
	kd_scope_add(s->scope, y);
	return y;
}

/* ---- expressions ---- */

static KdType *expr(Sema *s, KdNode *n);

static int is_num(const KdType *t)
{
	return t->kind == TY_INT || t->kind == TY_FLOAT || t->kind == TY_ERROR;
}

static int is_intlike(const KdType *t)
{
	return t->kind == TY_INT || t->kind == TY_BOOL || t->kind == TY_ERROR;
}

/* The evaluator's operator of a binary operator is its IR op's (the op
 * table's `iop`), so sema folds as canon and the walk do. */
static void fold_binary(Sema *s, KdNode *n, KdType *t)
{
	KdNode *l = n->a, *r = n->b;
	if (!l->is_const || !r->is_const)
		return;
	if (t->kind == TY_FLOAT || (t->kind == TY_BOOL && (l->ty->kind == TY_FLOAT || r->ty->kind == TY_FLOAT))) {
		double x = l->ty->kind == TY_FLOAT ? l->fcval : (double)l->cval;
		double y = r->ty->kind == TY_FLOAT ? r->fcval : (double)r->cval;
		double v = 0;
		int64_t b = 0;
		switch (n->op) {
		case B_ADD: v = x + y; break;
		case B_SUB: v = x - y; break;
		case B_MUL: v = x * y; break;
		case B_DIV: v = x / y; break;
		case B_EQ: b = x == y; break;
		case B_NE: b = x != y; break;
		case B_LT: b = x < y; break;
		case B_LE: b = x <= y; break;
		case B_GT: b = x > y; break;
		case B_GE: b = x >= y; break;
		default: return;
		}
		n->is_const = 1;
		n->fcval = v;
		n->cval = b;
		return;
	}
	int64_t y = r->cval, v = 0;
	switch (kd_ieval((KdIop)kd_ops[kd_binop_op((KdBinop)n->op)].iop, l->cval, y, &v)) {
	case KD_IEVAL_OK: break;
	case KD_IEVAL_DIV_ZERO:
		kd_error(s->d, r->span, "division by zero in a constant expression");
		return;
	case KD_IEVAL_SHIFT:
		kd_error(s->d, r->span, "shift count must be in 0..63, got %lld", (long long)y);
		return;
	}
	n->is_const = 1;
	n->cval = v;
}

static KdType *binary(Sema *s, KdNode *n)
{
	KdType *l = expr(s, n->a), *r = expr(s, n->b);
	if (l->kind == TY_ERROR || r->kind == TY_ERROR)
		return s->t_err;
	if (l->kind == TY_VEC || l->kind == TY_MASK || r->kind == TY_VEC || r->kind == TY_MASK)
		return s->tg->vec_binary(s->a, s->d, n, l, r, s->t_err);   /* only a vector target makes them */
	const char *op = kd_binop_spelling[n->op];
	KdType *t = s->t_err;
	switch (n->op) {
	case B_ADD: case B_SUB: case B_MUL: case B_DIV:
		if (!is_num(l) || !is_num(r))
			break;
		t = l->kind == TY_FLOAT || r->kind == TY_FLOAT ? s->t_float : s->t_int;
		break;
	case B_REM: case B_SHL: case B_SHR: case B_AND: case B_OR: case B_XOR:
		if (l->kind == TY_INT && r->kind == TY_INT)
			t = s->t_int;
		break;
	case B_EQ: case B_NE: case B_LT: case B_LE: case B_GT: case B_GE:
		if ((is_num(l) && is_num(r)) || (l->kind == TY_BOOL && r->kind == TY_BOOL))
			t = s->t_bool;
		break;
	case B_LAND: case B_LOR:
		if (is_intlike(l) && is_intlike(r))
			t = s->t_bool;
		break;
	default:
		kd_error(s->d, n->span, "internal error: sema: operator '%s' not handled", op);
		return s->t_err;
	}
	if (t == s->t_err) {
		kd_error(s->d, n->span, "invalid operands to '%s': %s and %s", op,
		         kd_type_str(s->a, l), kd_type_str(s->a, r));
		return t;
	}
	fold_binary(s, n, t);
	return t;
}

static KdType *unary(Sema *s, KdNode *n)
{
	KdType *t = expr(s, n->a);
	if (t->kind == TY_ERROR)
		return t;
	if (t->kind == TY_VEC || t->kind == TY_MASK)
		return s->tg->vec_unary(s->a, s->d, n, t, s->t_err);   /* only a vector target makes them */
	if (n->op == U_NOT) {
		if (!is_intlike(t)) {
			kd_error(s->d, n->span, "invalid operand to '!': %s", kd_type_str(s->a, t));
			return s->t_err;
		}
		n->is_const = n->a->is_const;
		n->cval = !n->a->cval;
		return s->t_bool;
	}
	if (n->op == U_BITNOT) {
		/* every bit inverted: x ^ -1 in the 64-bit arithmetic */
		if (t->kind != TY_INT) {
			kd_error(s->d, n->span, "invalid operand to '~': %s (an integer is needed)",
			         kd_type_str(s->a, t));
			return s->t_err;
		}
		n->is_const = n->a->is_const;
		kd_ieval(KD_I_XOR, n->a->cval, -1, &n->cval);
		return t;
	}
	if (!is_num(t)) {
		kd_error(s->d, n->span, "invalid operand to unary '%s': %s", kd_unop_spelling[n->op],
		         kd_type_str(s->a, t));
		return s->t_err;
	}
	n->is_const = n->a->is_const;
	kd_ieval(n->op == U_NEG ? KD_I_NEG : KD_I_PLUS, n->a->cval, 0, &n->cval);
	n->fcval = n->op == U_NEG ? -n->a->fcval : n->a->fcval;
	return t;
}

static KdType *ident(Sema *s, KdNode *n)
{
	KdSym *y = lookup(s, n->name);
	if (!y) {
		if (kd_space_lookup(s->target, n->name, strlen(n->name)))
			kd_error(s->d, n->span, "'%s' is a memory space, not a value", n->name);
		else
			undeclared(s, n->span, n->name);
		return s->t_err;
	}
	n->sym = y;
	y->used = 1;
	if (y->bad || y->ty->kind == TY_ERROR)
		s->taint = 1;
	if (y->is_const && y->kind != SYM_VAR) {
		n->is_const = 1;
		n->cval = y->cval;
		n->fcval = y->fcval;
	}
	return y->ty;
}

static KdType *index_expr(Sema *s, KdNode *n)
{
	KdType *b = expr(s, n->a);
	int views = 0;   /* steps and permutations, for targets that take them */
	if (n->b && n->b->kind == N_LIST) {
		views = 1;
		for (int i = 0; i < n->b->list.n; i++)
			expr(s, n->b->list.v[i]);
	}
	views |= n->b != NULL;
	for (int i = 0; i < n->list.n; i++) {
		KdNode *x = n->list.v[i];
		if (x->kind == N_SLICE) {
			if (x->a)
				expr(s, x->a);
			if (x->b)
				expr(s, x->b);
			if (x->c)
				expr(s, x->c), views = 1;
			continue;
		}
		KdType *t = expr(s, x);
		if (t->kind != TY_ERROR && t->kind != TY_INT)
			kd_error(s->d, x->span, "tensor index must be an integer, got %s", kd_type_str(s->a, t));
	}
	if (b->kind == TY_ERROR)
		return b;
	if (b->kind != TY_TENSOR) {
		kd_error(s->d, n->a->span, "only tensors can be indexed, got %s", kd_type_str(s->a, b));
		return s->t_err;
	}
	if (b->is_view && s->tg->index_chain && s->tg->index_chain(s->a, n))
		b = n->a->ty;   /* acc[i][a:b, :] is acc[i, a:b, :] */
	if (b->is_view) {
		kd_error(s->d, n->span, "a tensor view cannot be indexed again%s",
		         n->b ? " (.T and permute take a name or one index of it)" : "");
		return s->t_err;
	}
	if (views && !s->tg->views) {
		kd_error(s->d, n->span, "slice steps, .T and permute are views of target neuron only, not of %s",
		         kd_target_names[s->target]);
		return s->t_err;
	}
	if (s->tg->index)
		return s->tg->index(s->a, s->d, n, b, s->t_err);
	kd_error(s->d, n->span, "tensor indexing on target %s arrives with its target's ops",
	         kd_target_names[s->target]);
	return s->t_err;
}

static KdType *cast(Sema *s, KdNode *n)
{
	KdNode *ty = n->type;
	if (n->list.n != 1 || ((KdNode *)n->list.v[0])->kind == N_KWARG) {
		kd_error(s->d, n->span, "cast to %s takes one value, got %d arguments",
		         kd_dtypes[ty->dtype].name, n->list.n);
		return s->t_err;
	}
	KdNode *x = n->list.v[0];
	KdType *t = expr(s, x);
	if (t->kind == TY_ERROR)
		return t;
	if ((ty->lanes || ty->maskbits) && s->tg->vec_type) {
		kd_error(s->d, n->span, "a vector is not cast from a value; broadcast a scalar with vbcast");
		return s->t_err;
	}
	if (ty->lanes || ty->maskbits) {
		kd_error(s->d, n->span, "vector casts arrive with the aipu target");
		return s->t_err;
	}
	if (!is_num(t) && t->kind != TY_BOOL) {
		kd_error(s->d, x->span, "cannot cast %s to %s", kd_type_str(s->a, t), kd_dtypes[ty->dtype].name);
		return s->t_err;
	}
	const KdDtypeInfo *di = &kd_dtypes[ty->dtype];
	KdType *r = mkty(s, di->is_float ? TY_FLOAT : ty->dtype == KD_BOOL ? TY_BOOL : TY_INT);
	r->dt = ty->dtype;
	if (x->is_const) {
		n->is_const = 1;
		double f = t->kind == TY_FLOAT ? x->fcval : (double)x->cval;
		if (di->is_float) {
			n->fcval = f;   /* rounded to the dtype by the IR builder's cast */
			n->is_const = 0;
		} else if (ty->dtype == KD_BOOL) {
			n->cval = f != 0;
		} else {
			if (t->kind == TY_FLOAT && !(f > -9.3e18 && f < 9.3e18)) {
				kd_error(s->d, x->span, "value %g does not fit %s", f, di->name);
				return s->t_err;
			}
			int64_t v = t->kind == TY_FLOAT ? kd_ieval_f2i(f) : x->cval;
			n->cval = kd_ieval_narrow(v, di->size * 8, di->is_signed);
		}
	}
	return r;
}

/* A view t[i] used as a value: the element's scalar (KD_INDEX_ELEM) where
 * the target reads elements of its space (ascend's ub), an error naming
 * the space where it does not; any other type as it is. */
static KdType *elem_value(Sema *s, KdNode *n, KdType *t)
{
	if (t->kind != TY_TENSOR || !t->is_view || !s->tg->elem_spaces || n->kind != N_INDEX)
		return t;
	if (!(s->tg->elem_spaces & (1u << t->space))) {
		kd_error(s->d, n->span, "only ub elements are values (as in TIK); '%s' is in %s: move it to "
		         "ub with data_move first", n->a->name ? n->a->name : "tensor", kd_spaces[t->space].name);
		return s->t_err;
	}
	const KdDtypeInfo *di = &kd_dtypes[t->dt];
	if (t->dt == KD_BF16 || t->dt == KD_BOOL) {
		kd_error(s->d, n->span, "a %s element is not a value (TIK's Scalar has no %s)", di->name, di->name);
		return s->t_err;
	}
	KdType *r = mkty(s, di->is_float ? TY_FLOAT : TY_INT);
	r->dt = t->dt;
	n->flags |= KD_INDEX_ELEM;
	n->ty = r;
	return r;
}

/* "unknown op", with a note naming the target's nearest op. */
static void unknown_op(Sema *s, const KdNode *n)
{
	kd_error(s->d, n->name_span, "unknown op '%s' for target %s", n->name,
	         kd_target_names[s->target]);
	KdNear near;
	kd_near_init(&near, n->name);
	for (int o = 0; o < KD_NOP; o++)
		if (kd_ops[o].target == s->target && !(kd_ops[o].flags & KD_OPF_INTERNAL))
			kd_near_try(&near, kd_ops[o].name);
	kd_near_note(s->d, &near, n->name_span);
}

/* "no parameter named", with a note naming the op's nearest parameter. */
static void unknown_kwarg(Sema *s, const KdOpDesc *d, const KdNode *x)
{
	kd_error(s->d, x->name_span, "%s: no parameter named '%s'", d->name, x->name);
	KdNear near;
	kd_near_init(&near, x->name);
	for (int p = 0; p < d->nparam; p++)
		kd_near_try(&near, d->param[p].name);
	kd_near_note(s->d, &near, x->name_span);
}

/* Binds a call's arguments to the op's parameters: positional first, then
 * keywords by the vendor's names, then defaults. */
/* permute(v, [d0, d1, ...]): v (a tensor or one index of one) as an
 * N_INDEX permuted by the list (LANGUAGE.md 7), typed by index_expr. */
static KdType *permute(Sema *s, KdNode *n)
{
	KdNode *v = n->list.n == 2 ? n->list.v[0] : NULL, *p = n->list.n == 2 ? n->list.v[1] : NULL;
	if (!v || v->kind == N_KWARG || p->kind == N_KWARG || p->kind != N_LIST ||
	    (v->kind != N_IDENT && (v->kind != N_INDEX || v->b))) {
		kd_error(s->d, n->span, "permute takes a tensor (or one index of it) and a list of its dims, "
		         "e.g. permute(t, [0, 2, 1])");
		return s->t_err;
	}
	n->kind = N_INDEX;
	n->a = v->kind == N_INDEX ? v->a : v;
	n->list = v->kind == N_INDEX ? v->list : (KdNodeList){0};
	n->b = p;
	n->flags |= KD_INDEX_T;
	return index_expr(s, n);
}

static KdType *call(Sema *s, KdNode *n)
{
	if (s->tg->views && !strcmp(n->name, "permute") && !kd_op_lookup(s->target, n->name))
		return permute(s, n);
	const KdOpDesc *d = kd_op_lookup(s->target, n->name);
	int takes_dtype = 0, takes_u64 = 0;
	for (int p = 0; d && p < d->nparam; p++) {
		takes_dtype |= d->param[p].kind == PK_DTYPE;
		takes_u64 |= d->param[p].kind == PK_INT_OR_LIST;
	}
	for (int i = 0; i < n->list.n; i++) {
		KdNode *x = n->list.v[i];
		KdNode *v = x->kind == N_KWARG ? x->a : x;
		/* the literals of a list an op's unsigned mask halves may be */
		for (int e = 0; takes_u64 && v->kind == N_LIST && e < v->list.n; e++)
			if (v->list.v[e]->kind == N_INT)
				v->list.v[e]->flags |= KD_INT_U64_OK;
		/* A bare dtype (dtype=f32) is an argument of ops that take one. */
		if (v->kind == N_TYPE && takes_dtype)
			v->ty = s->t_void;
		else if (v->kind == N_INDEX)
			v->ty = index_expr(s, v);   /* a view until its parameter says (below) */
		else
			expr(s, v);
	}
	if (!d) {
		for (int t = 1; t < KD_NTARGET; t++)
			if (kd_op_lookup((KdTarget)t, n->name)) {
				kd_error(s->d, n->name_span, "'%s' is an op of target %s, not of target %s",
				         n->name, kd_target_names[t], kd_target_names[s->target]);
				return s->t_err;
			}
		if (lookup(s, n->name))
			kd_error(s->d, n->name_span, "'%s' is not an op and cannot be called", n->name);
		else
			unknown_op(s, n);
		return s->t_err;
	}
	if (d->syntax) {
		kd_error(s->d, n->name_span, "'%s' is not called: write it as `%s`", d->name, d->syntax);
		return s->t_err;
	}
	if (d->flags & KD_OPF_INTERNAL) {
		/* its rules assume the chain the pass proved; a call has no such proof */
		kd_error(s->d, n->name_span, "'%s' is made by the compiler's passes and cannot be called", d->name);
		return s->t_err;
	}
	n->opdesc = d;
	n->bound = kd_alloc(s->a, sizeof *n->bound * (size_t)(d->nparam ? d->nparam : 1));
	int bad = 0, pos = 0, seen_kw = 0, unknown_kw = 0;
	for (int i = 0; i < n->list.n; i++) {
		KdNode *x = n->list.v[i];
		int p;
		if (x->kind == N_KWARG) {
			seen_kw = 1;
			p = kd_op_param_index(d, x->name);
			if (p < 0) {
				/* The argument meant for a parameter is not bound to
				 * it: no "missing argument" for it or any other. */
				unknown_kwarg(s, d, x);
				unknown_kw = bad = 1;
				continue;
			}
			if (n->bound[p]) {
				kd_error(s->d, x->name_span, "%s: parameter '%s' given twice", d->name, x->name);
				bad = 1;
				continue;
			}
			n->bound[p] = x->a;
		} else {
			if (seen_kw) {
				kd_error(s->d, x->span, "%s: positional argument after a keyword argument", d->name);
				bad = 1;
				continue;
			}
			p = pos++;
			if (p >= d->nparam) {
				kd_error(s->d, x->span, "%s: too many arguments: takes %d, got %d", d->name,
				         d->nparam, n->list.n);
				bad = 2;
				break;
			}
			n->bound[p] = x;
		}
	}
	if (s->tg->call) {
		KdType *r = s->tg->call(s->a, s->d, n, bad, s->t_err);
		if (r == s->t_err)
			n->opdesc = NULL;
		return r ? r : s->t_void;
	}
	KdBuf missing = {0};
	int nmissing = 0;
	for (int p = 0; p < d->nparam && bad != 2 && !unknown_kw; p++) {
		const KdOpParam *pp = &d->param[p];
		KdNode *x = n->bound[p];
		if (!x) {
			if (!(pp->flags & PF_OPT)) {
				kd_buf_printf(&missing, "%s'%s'", nmissing++ ? ", " : "", pp->name);
				bad = 1;
			}
			continue;
		}
		KdType *t = x->ty;
		/* t[i] for a scalar parameter is the element's value (vec_dup's scalar) */
		if (pp->kind != PK_TENSOR && pp->kind != PK_TILE_OR_NUM)
			t = elem_value(s, x, t);
		if (t->kind == TY_ERROR) {
			bad = 1;
			continue;
		}
		const char *want = NULL;
		if (x->kind == N_TYPE && pp->kind != PK_DTYPE) {
			kd_error(s->d, x->span, "%s: argument '%s' cannot be a type", d->name, pp->name);
			bad = 1;
			continue;
		}
		switch (pp->kind) {
		case PK_TENSOR: if (t->kind != TY_TENSOR) want = "a tensor"; break;
		case PK_INT: if (t->kind != TY_INT) want = "an integer"; break;
		case PK_NUM: if (t->kind != TY_INT && t->kind != TY_FLOAT) want = "a number"; break;
		case PK_STR: if (t->kind != TY_STR) want = "a string"; break;
		case PK_BOOL: if (t->kind != TY_BOOL && t->kind != TY_INT) want = "a bool"; break;
		case PK_DTYPE:
			if (x->kind != N_TYPE || x->space || x->lanes || x->maskbits)
				want = "a scalar dtype such as f32";
			break;
		case PK_LIST:
			if (t->kind != TY_LIST)
				want = "a list of integers";
			for (int e = 0; !want && e < t->nelem; e++)
				if (t->elem[e]->kind != TY_INT && t->elem[e]->kind != TY_ERROR)
					want = "a list of integers";
			break;
		case PK_TILE_OR_NUM:
			if (t->kind != TY_TENSOR && t->kind != TY_INT && t->kind != TY_FLOAT)
				want = "a tensor or a number";
			break;
		case PK_INT_OR_LIST:
			if (t->kind != TY_INT && t->kind != TY_LIST)
				want = "an integer or a list of integers";
			for (int e = 0; !want && t->kind == TY_LIST && e < t->nelem; e++)
				if (t->elem[e]->kind != TY_INT && t->elem[e]->kind != TY_ERROR)
					want = "an integer or a list of integers";
			break;
		default: break;
		}
		if (!want && t->kind == TY_TENSOR && t->nbdim) {
			kd_error(s->d, x->span, "%s: blocked tensor '%s' needs a block index (%s[i])", d->name,
			         x->name ? x->name : "?", x->name ? x->name : "t");
			bad = 1;
			continue;
		}
		if (!want && pp->kind == PK_STR && pp->enums) {
			int k = 0;
			while (pp->enums[k] && strcmp(pp->enums[k], x->name))
				k++;
			if (!pp->enums[k]) {
				KdBuf b = {0};
				for (int e = 0; pp->enums[e]; e++)
					kd_buf_printf(&b, "%s\"%s\"", e ? ", " : "", pp->enums[e]);
				kd_error(s->d, x->span, "%s: %s must be one of %s, got \"%s\"", d->name, pp->name,
				         b.s, x->name);
				kd_buf_free(&b);
				bad = 1;
				continue;
			}
		}
		if (want) {
			kd_error(s->d, x->span, "%s: argument '%s' must be %s, got %s", d->name, pp->name,
			         want, kd_type_str(s->a, t));
			bad = 1;
		}
	}
	if (nmissing)
		kd_error(s->d, n->span, "%s: missing argument%s %s", d->name, nmissing > 1 ? "s" : "", missing.s);
	kd_buf_free(&missing);
	if (bad)
		n->opdesc = NULL;
	return s->t_void;
}

static KdType *expr(Sema *s, KdNode *n)
{
	KdType *t = s->t_err;
	switch (n->kind) {
	case N_INT:
		n->is_const = 1;
		n->cval = n->ival;
		t = s->t_int;
		/* past INT64_MAX only where the operand is unsigned (call()) */
		if ((n->flags & KD_INT_U64) && !(n->flags & KD_INT_U64_OK)) {
			kd_error(s->d, n->span, "integer literal %llu does not fit i64 here (an unsigned 64-bit "
			         "literal is allowed only as a half of a bitwise mask [mask_h, mask_l])",
			         (unsigned long long)n->ival);
			t = s->t_err;
		}
		break;
	case N_FLOAT: n->is_const = 1; n->fcval = n->fval; t = s->t_float; break;
	case N_BOOL: n->is_const = 1; n->cval = n->ival; t = s->t_bool; break;
	case N_STR: n->is_const = 1; t = s->t_str; break;
	case N_IDENT: t = ident(s, n); break;
	case N_BINARY: t = binary(s, n); break;
	case N_UNARY: t = unary(s, n); break;
	case N_INDEX: t = elem_value(s, n, index_expr(s, n)); break;
	case N_CAST: t = cast(s, n); break;
	case N_CALL: t = call(s, n); break;
	case N_LIST:
	case N_TUPLE:
		t = mkty(s, n->kind == N_LIST ? TY_LIST : TY_TUPLE);
		t->nelem = n->list.n;
		t->elem = kd_alloc(s->a, sizeof *t->elem * (size_t)(n->list.n + 1));
		for (int i = 0; i < n->list.n; i++)
			t->elem[i] = expr(s, n->list.v[i]);
		break;
	case N_KWARG:
		kd_error(s->d, n->span, "keyword argument outside a call");
		break;
	case N_SLICE:
		kd_error(s->d, n->span, "a slice is only valid inside a tensor index");
		break;
	case N_TYPE:
		kd_error(s->d, n->span, "a type is not a value here");
		break;
	default:
		kd_error(s->d, n->span, "expected an expression");
		break;
	}
	n->ty = t;
	return t;
}

/* ---- types and declarations ---- */

/* A dimension list: positive compile-time integers. */
static int dims(Sema *s, KdNodeList *l, int64_t *out, const char *what)
{
	if (l->n > KD_MAXDIM) {
		kd_error(s->d, ((KdNode *)l->v[KD_MAXDIM])->span, "at most %d %s, got %d", KD_MAXDIM,
		         what, l->n);
		return -1;
	}
	int ok = 0;
	for (int i = 0; i < l->n; i++) {
		KdNode *x = l->v[i];
		KdType *t = expr(s, x);
		if (t->kind == TY_ERROR) {
			ok = -1;
		} else if (t->kind != TY_INT || !x->is_const) {
			kd_error(s->d, x->span, "%s must be compile-time integers", what);
			ok = -1;
		} else if (x->cval <= 0 || x->cval > KD_MAX_TENSOR_BYTES) {
			kd_error(s->d, x->span, "%s must be in 1..2^40, got %lld", what, (long long)x->cval);
			ok = -1;
		} else {
			out[i] = x->cval;
		}
	}
	return ok;
}

/* Resolves a written type; `want` is 'p' for a parameter, 'b' for an
 * on-chip buffer, 'v' for a value. */
static KdType *type_of(Sema *s, KdNode *ty, int want)
{
	if (!ty->space) {
		if ((ty->lanes || ty->maskbits) && s->tg->vec_type && want == 'v')
			return s->tg->vec_type(s->a, s->d, ty, s->t_err);
		if ((ty->lanes || ty->maskbits) && s->tg->vec_type) {
			kd_error(s->d, ty->span, "%s cannot have a vector type",
			         want == 'p' ? "a kernel parameter" : "a declaration without a value");
			return s->t_err;
		}
		if (ty->lanes || ty->maskbits) {
			kd_error(s->d, ty->span, "vector and mask types arrive with the aipu target");
			return s->t_err;
		}
		KdType *t = mkty(s, kd_dtypes[ty->dtype].is_float ? TY_FLOAT
		                    : ty->dtype == KD_BOOL ? TY_BOOL : TY_INT);
		t->dt = ty->dtype;
		if (want == 'p' && t->kind != TY_INT) {
			kd_error(s->d, ty->span, "scalar parameters must have an integer dtype, got %s",
			         kd_dtypes[ty->dtype].name);
			return s->t_err;
		}
		if (want == 'b') {
			kd_error(s->d, ty->span, "a declaration without a value needs a tensor type");
			return s->t_err;
		}
		return t;
	}
	KdSpace sp = kd_space_lookup(s->target, ty->space, strlen(ty->space));
	if (!sp) {
		KdBuf b = {0};
		for (int i = 1; i < KD_NSPACE; i++)
			if (kd_spaces[i].targets & (1u << s->target))
				kd_buf_printf(&b, "%s%s", b.n ? ", " : "", kd_spaces[i].name);
		kd_error(s->d, ty->space_span, "unknown memory space '%s' for target %s (expected %s)",
		         ty->space, kd_target_names[s->target], b.s ? b.s : "none");
		kd_buf_free(&b);
		return s->t_err;
	}
	KdType *t = mkty(s, TY_TENSOR);
	t->space = sp;
	t->dt = ty->dtype;
	if (ty->lanes || ty->maskbits) {
		kd_error(s->d, ty->span, "tensor elements must be scalar dtypes");
		return s->t_err;
	}
	if (ty->list2.n && !s->tg->blocks) {
		kd_error(s->d, ty->span, "blocked tensors arrive with the neuron target (mod_alloc)");
		return s->t_err;
	}
	if (ty->list2.n) {
		if (dims(s, &ty->list2, t->bdims, "block dimensions") < 0)
			return s->t_err;
		t->nbdim = ty->list2.n;
	}
	if (dims(s, &ty->list, t->dims, "tensor dimensions") < 0)
		return s->t_err;
	t->rank = ty->list.n;
	if (t->rank == 0) {
		kd_error(s->d, ty->span, "a tensor type needs at least one dimension");
		return s->t_err;
	}
	/* The product is checked before it is formed: every later stage
	 * multiplies extents freely, trusting this bound. */
	int64_t bytes = kd_dtypes[t->dt].size;
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] > KD_MAX_TENSOR_BYTES / bytes) {
			kd_error(s->d, ty->span, "tensor is too large: more than %lld bytes",
			         (long long)KD_MAX_TENSOR_BYTES);
			return s->t_err;
		}
		bytes *= t->dims[i];
	}
	if (want == 'p' && !kd_spaces[sp].external) {
		kd_error(s->d, ty->space_span, "kernel parameters live in external memory; '%s' is on-chip",
		         ty->space);
		return s->t_err;
	}
	if (want == 'b' && kd_spaces[sp].external) {
		kd_error(s->d, ty->space_span,
		         "'%s' is external memory: only kernel parameters live there; declare on-chip buffers in %s",
		         ty->space, s->tg->onchip ? s->tg->onchip : "on-chip memory");
		return s->t_err;
	}
	if (want == 'v') {
		kd_error(s->d, ty->span, "a value cannot have a tensor type");
		return s->t_err;
	}
	if (s->tg->tensor_type && s->tg->tensor_type(s->d, ty, t) < 0)
		return s->t_err;
	return t;
}

/* Makes `init` fit a declared scalar type. */
static void check_assign(Sema *s, KdType *want, KdNode *init, const char *what)
{
	KdType *t = init->ty;
	if (t->kind == TY_ERROR || want->kind == TY_ERROR)
		return;
	int ok = t->kind == want->kind || (want->kind == TY_FLOAT && t->kind == TY_INT) ||
	         (want->kind == TY_INT && t->kind == TY_BOOL);
	if (ok && (want->kind == TY_VEC || want->kind == TY_MASK))
		ok = kd_vec_type_same(t, want);
	if (!ok)
		kd_error(s->d, init->span, "%s: cannot use %s as %s", what, kd_type_str(s->a, t),
		         kd_type_str(s->a, want));
}

static void block(Sema *s, KdNode *n);
static void stmt(Sema *s, KdNode *n);

/* Whether the code checked since the error count was `before` is
 * rejected: it had an error, used a poisoned name, or came past the error
 * limit (where errors are no longer counted). */
static int rejected(const Sema *s, int before)
{
	return s->d->nerror != before || s->taint || s->d->muted;
}

/* Poisons the vars that a skipped for or if assigns: lowering drops the
 * assignments, so after it their value is not the program's. */
static void poison_assigned(KdNode *n)
{
	if (!n || kd_node_is_leaf(n->kind))   /* a leaf has no operands */
		return;
	if (n->kind == N_ASSIGN && n->sym)
		n->sym->bad = 1;
	poison_assigned(n->a);
	poison_assigned(n->b);
	if (kd_node_shape(n->kind) == KD_SHAPE_PAIR)
		return;
	poison_assigned(n->c);
	poison_assigned(n->d);
	for (int i = 0; i < n->list.n; i++)
		poison_assigned(n->list.v[i]);
}

/* Marks a rejected simple statement and poisons what it declares or
 * assigns, so later statements that use those names are skipped too
 * instead of reporting errors that only follow from this one. */
static void reject_stmt(KdNode *n)
{
	n->flags |= KD_STMT_BAD;
	if ((n->kind == N_LET || n->kind == N_ASSIGN) && n->sym)
		n->sym->bad = 1;
	for (int i = 0; n->kind == N_LETTUPLE && i < n->list.n; i++) {
		KdNode *x = n->list.v[i];
		if (x->sym)
			x->sym->bad = 1;
	}
}

/* A for's header (bounds, step, loop variable), then its body.  A
 * rejected header rejects the whole loop; its body is still checked. */
static void for_stmt(Sema *s, KdNode *n)
{
	int before = s->d->nerror;
	KdType *lo = expr(s, n->a), *hi = expr(s, n->b);
	if (lo->kind != TY_INT && lo->kind != TY_ERROR)
		kd_error(s->d, n->a->span, "loop bounds must be integers, got %s", kd_type_str(s->a, lo));
	if (hi->kind != TY_INT && hi->kind != TY_ERROR)
		kd_error(s->d, n->b->span, "loop bounds must be integers, got %s", kd_type_str(s->a, hi));
	if (n->c) {
		KdType *st = expr(s, n->c);
		if (st->kind != TY_ERROR && (st->kind != TY_INT || !n->c->is_const))
			kd_error(s->d, n->c->span, "loop step must be a compile-time integer");
		else if (st->kind == TY_INT && n->c->cval <= 0)
			kd_error(s->d, n->c->span, "loop step must be positive, got %lld", (long long)n->c->cval);
	}
	push_scope(s);
	n->sym = declare(s, SYM_IV, n->name, n->name_span, n, s->t_int);
	int bad = rejected(s, before);
	if (bad) {
		n->flags |= KD_STMT_BAD;
		n->sym->bad = 1;
	}
	s->loop_depth++;
	stmt(s, n->d);
	s->loop_depth--;
	pop_scope(s);
	if (bad)
		poison_assigned(n->d);
}

/* An if's condition, then its arms; a rejected condition rejects both. */
static void if_stmt(Sema *s, KdNode *n)
{
	int before = s->d->nerror;
	KdType *c = expr(s, n->a);
	if (!is_intlike(c))
		kd_error(s->d, n->a->span, "condition must be a scalar, got %s", kd_type_str(s->a, c));
	int bad = rejected(s, before);
	if (bad)
		n->flags |= KD_STMT_BAD;
	stmt(s, n->b);
	if (n->c)
		stmt(s, n->c);
	if (bad) {
		poison_assigned(n->b);
		poison_assigned(n->c);
	}
}

/* An element write `u[i] = v;`: u[i] an element whose space the target
 * reads as values, v a scalar the element's dtype takes (an integer for
 * an integer dtype, any number for a float one); lowering casts it. */
static void store(Sema *s, KdNode *n)
{
	KdType *t = index_expr(s, n->a), *v = expr(s, n->b);
	if (t->kind == TY_ERROR)
		return;
	if (!s->tg->elem_spaces) {
		kd_error(s->d, n->a->span, "on target %s a tensor element is not assigned; write it with the "
		         "target's ops", kd_target_names[s->target]);
		return;
	}
	t = elem_value(s, n->a, t);
	if (t->kind == TY_ERROR || v->kind == TY_ERROR)
		return;
	if (v->kind == TY_FLOAT && t->kind == TY_INT)
		kd_error(s->d, n->b->span, "a float is not stored into an element of %s '%s' implicitly: write "
		         "the cast, %s(...)", kd_dtypes[t->dt].name, n->a->a->name ? n->a->a->name : "tensor",
		         kd_dtypes[t->dt].name);
	else if (v->kind != TY_INT && v->kind != TY_FLOAT && v->kind != TY_BOOL)
		kd_error(s->d, n->b->span, "an element of %s takes a scalar, got %s", kd_dtypes[t->dt].name,
		         kd_type_str(s->a, v));
}

static void stmt_check(Sema *s, KdNode *n)
{
	switch (n->kind) {
	case N_BLOCK:
		push_scope(s);
		block(s, n);
		pop_scope(s);
		break;
	case N_LET: {
		KdType *t = s->t_err;
		KdSymKind k = n->flags & KD_LET_VAR ? SYM_VAR : SYM_LET;
		if (n->a && s->tg->is_alloc && s->tg->is_alloc(n->a)) {
			/* Direct allocation (seed 003): a buffer, placed where the call says. */
			for (int i = 0; i < n->a->list.n; i++) {
				KdNode *x = n->a->list.v[i];
				expr(s, x->kind == N_KWARG ? x->a : x);
			}
			if (n->type)
				t = type_of(s, n->type, 'b');
			else
				kd_error(s->d, n->span, "'%s' needs a tensor type for %s", n->name, n->a->name);
			if (t->kind == TY_TENSOR) {
				if (n->flags & KD_LET_VAR)
					kd_error(s->d, n->span, "on-chip buffers are declared with let, not var");
				k = SYM_BUF;
				s->tg->alloc(s->a, s->d, n, t);
			}
		} else if (!n->a) {
			/* An on-chip buffer: the compiler places it. */
			if (n->type)
				t = type_of(s, n->type, 'b');
			else
				kd_error(s->d, n->span, "'%s' needs a type or a value", n->name);
			if (t->kind == TY_TENSOR) {
				if (n->flags & KD_LET_VAR)
					kd_error(s->d, n->span, "on-chip buffers are declared with let, not var");
				k = SYM_BUF;
			}
		} else {
			t = expr(s, n->a);
			if (n->type) {
				KdType *want = type_of(s, n->type, 'v');
				check_assign(s, want, n->a, n->name);
				t = want;
			}
			if (t->kind == TY_VOID) {
				kd_error(s->d, n->a->span, "'%s' is initialised with a call that returns nothing", n->name);
				t = s->t_err;
			} else if (t->kind == TY_TENSOR || t->kind == TY_STR || t->kind == TY_LIST ||
			           t->kind == TY_TUPLE) {
				kd_error(s->d, n->a->span, "'%s' cannot hold %s; only scalar values can be named",
				         n->name, kd_type_str(s->a, t));
				t = s->t_err;
			}
		}
		KdSym *y = declare(s, k, n->name, n->name_span, n, t);
		if (k == SYM_LET && n->a && n->a->is_const && t->kind != TY_ERROR) {
			y->is_const = 1;
			y->cval = n->a->cval;
			y->fcval = n->a->ty->kind == TY_FLOAT ? n->a->fcval : (double)n->a->cval;
		}
		n->sym = y;
		n->ty = t;
		break;
	}
	case N_LETTUPLE: {
		KdType *t = expr(s, n->a);
		/* only a target's call hook makes tuples (aipu's vsplit) */
		if (t->kind != TY_ERROR && (t->kind != TY_TUPLE || n->a->kind != N_CALL)) {
			kd_error(s->d, n->span, "tuple declarations take the tuples of aipu ops (vsplit)");
			t = s->t_err;
		} else if (t->kind == TY_TUPLE && t->nelem != n->list.n) {
			kd_error(s->d, n->span, "vsplit gives %d vectors here, but %d names are declared",
			         t->nelem, n->list.n);
			t = s->t_err;
		}
		for (int i = 0; i < n->list.n; i++) {
			KdNode *x = n->list.v[i];
			x->sym = declare(s, SYM_LET, x->name, x->span, x, t->kind == TY_TUPLE ? t->elem[i] : t);
		}
		n->ty = t;
		break;
	}
	case N_ASSIGN: {
		KdType *t = expr(s, n->a);
		KdSym *y = lookup(s, n->name);
		if (!y) {
			undeclared(s, n->name_span, n->name);
			break;
		}
		if (y->kind != SYM_VAR) {
			kd_error(s->d, n->name_span, "cannot assign to '%s': it is not declared with var", n->name);
			kd_note(s->d, y->decl->name_span.len ? y->decl->name_span : y->decl->span,
			        "'%s' is declared here", n->name);
			break;
		}
		if (y->bad)
			s->taint = 1;   /* its declaration was skipped: so is this */
		if (t->kind != TY_ERROR)
			check_assign(s, y->ty, n->a, n->name);
		y->assigned = 1;
		n->sym = y;
		break;
	}
	case N_STORE:
		store(s, n);
		break;
	case N_FOR:
		for_stmt(s, n);
		break;
	case N_IF:
		if_stmt(s, n);
		break;
	case N_RETURN:
		break;
	case N_EXPRSTMT: {
		KdType *t = expr(s, n->a);
		if (t->kind != TY_VOID && t->kind != TY_ERROR)
			kd_warn(s->d, KD_W_UNUSED, n->a->span, "expression result unused");
		break;
	}
	default:
		kd_error(s->d, n->span, "expected a statement");
		break;
	}
}

/* Checks a statement; one that sema rejects is marked for lowering to
 * skip (reject_stmt).  A block, for or if is never rejected for what
 * its body holds: each statement inside is judged on its own. */
static void stmt(Sema *s, KdNode *n)
{
	int before = s->d->nerror;
	s->taint = 0;
	stmt_check(s, n);
	if (n->kind != N_BLOCK && n->kind != N_FOR && n->kind != N_IF && rejected(s, before))
		reject_stmt(n);
}

static void block(Sema *s, KdNode *n)
{
	for (int i = 0; i < n->list.n; i++)
		stmt(s, n->list.v[i]);
}

/* A kernel: a parameter with an error is poisoned, so the statements
 * using it are skipped and the others still get their rules checked. */
static void kernel(Sema *s, KdNode *k)
{
	/* every name is valid: the C backend renames what would clash in C */
	push_scope(s);
	for (int i = 0; i < k->list.n; i++) {
		KdNode *p = k->list.v[i];
		int before = s->d->nerror;
		KdType *t = type_of(s, p->type, 'p');
		KdSym *y = declare(s, SYM_PARAM, p->name, p->name_span, p, t);
		y->bad = s->d->nerror != before || t->kind == TY_ERROR;
		y->index = i;
		p->sym = y;
		p->ty = t;
	}
	if (k->a) {
		push_scope(s);
		block(s, k->a);
		pop_scope(s);
	}
	pop_scope(s);
}

/* The kernels defined so far, by name: an open-addressing table sized
 * for every top-level item, so a redefinition check is O(1) instead of a
 * scan of all the earlier kernels. */
typedef struct {
	KdNode **slot;
	size_t mask;
} KernelSet;

static KernelSet kernel_set(KdArena *a, int items)
{
	KernelSet k;
	size_t n = 16;
	while (n < 2 * (size_t)items)
		n *= 2;
	k.slot = kd_alloc(a, sizeof *k.slot * n);   /* zeroed */
	k.mask = n - 1;
	return k;
}

/* The earlier kernel named like n, or NULL after recording n. */
static KdNode *kernel_seen(KernelSet *k, KdNode *n)
{
	size_t h = 5381;
	for (const char *c = n->name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	for (size_t i = h & k->mask;; i = (i + 1) & k->mask) {
		if (!k->slot[i]) {
			k->slot[i] = n;
			return NULL;
		}
		if (!strcmp(k->slot[i]->name, n->name))
			return k->slot[i];
	}
}

int kd_sema(KdArena *a, KdDiag *d, KdNode *file, KdTarget *target)
{
	Sema s = {.a = a, .d = d, .scope = kd_scopes_new(a)};
	s.t_err = mkty(&s, TY_ERROR);
	s.t_void = mkty(&s, TY_VOID);
	s.t_int = mkty(&s, TY_INT);
	s.t_int->dt = KD_I64;
	s.t_float = mkty(&s, TY_FLOAT);
	s.t_bool = mkty(&s, TY_BOOL);
	s.t_bool->dt = KD_BOOL;
	s.t_str = mkty(&s, TY_STR);
	int before = d->nerror;
	push_scope(&s);

	int nkernel = 0;
	KernelSet seen = kernel_set(a, file->list.n);
	KdNode *tgt = NULL;
	for (int i = 0; i < file->list.n; i++) {
		KdNode *n = file->list.v[i];
		if (n->kind != N_TARGET)
			continue;
		if (tgt) {
			kd_error(d, n->span, "a file declares exactly one target");
			kd_note(d, tgt->span, "the target is declared here");
			continue;
		}
		tgt = n;
		s.target = kd_target_lookup(n->name, strlen(n->name));
		if (!s.target)
			kd_error(d, n->name_span.len ? n->name_span : n->span,
			         "unknown target '%s' (expected neuron, ascend or aipu)", n->name);
	}
	if (!tgt && d->nerror == before)
		kd_error(d, file->span, "missing 'target' declaration (target neuron|ascend|aipu;)");
	*target = s.target;
	if (!s.target)
		return d->nerror - before;
	s.tg = kd_frontend_target(s.target);

	for (int i = 0; i < file->list.n; i++) {
		KdNode *n = file->list.v[i];
		if (n->kind == N_CONST) {
			int cbefore = d->nerror;
			s.taint = 0;
			KdType *t = expr(&s, n->a);
			if (t->kind != TY_ERROR && (!n->a->is_const || (t->kind != TY_INT && t->kind != TY_FLOAT &&
			                                               t->kind != TY_BOOL))) {
				kd_error(d, n->a->span, "const '%s' needs a compile-time scalar value", n->name);
				t = s.t_err;
			}
			KdSym *y = declare(&s, SYM_CONST, n->name, n->name_span, n, t);
			y->is_const = t->kind != TY_ERROR;
			y->bad = rejected(&s, cbefore) || t->kind == TY_ERROR;
			y->cval = n->a->cval;
			y->fcval = n->a->fcval;
			n->sym = y;
		} else if (n->kind == N_KERNEL) {
			nkernel++;
			KdNode *o = kernel_seen(&seen, n);
			if (o) {
				kd_error(d, n->name_span, "redefinition of kernel '%s'", n->name);
				kd_note(d, o->name_span, "previous definition is here");
				n->flags |= KD_KERNEL_BAD;   /* one function per name */
			}
			kernel(&s, n);
		}
	}
	if (!nkernel && d->nerror == before)
		kd_error(d, tgt->span, "the file defines no kernel");
	pop_scope(&s);
	return d->nerror - before;
}
