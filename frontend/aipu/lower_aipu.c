/* lower_aipu.c: the aipu ops as pure SSA instructions.  Sema has checked
 * every type rule, so lowering only normalises operands: a broadcast
 * scalar becomes a vsplat, a mask string or list a constant mask (vmask),
 * part names and immediates integer constants. */
#include "lower_aipu.h"
#include "sema_aipu.h"

static int ins(KdVecLower *vb, KdOp op, int nargs, const int *args, const KdSpan *spans,
               KdSpan at, KdValType t, KdDtype dt, int lanes)
{
	int i = kd_ins_add(vb->a, vb->f, vb->cur, op, nargs, args, spans, at);
	int r = kd_ins_result(vb->a, vb->f, i, t, dt, -1, NULL);
	vb->f->val[r].lanes = lanes;
	return r;
}

static int is_vecish(const KdType *t)
{
	return t->kind == TY_VEC || t->kind == TY_MASK;
}

/* Operand x as a value of vector type t (a scalar is broadcast). */
static int as_vec(KdVecLower *vb, KdNode *x, const KdType *t)
{
	int v = vb->expr(vb->ctx, x);
	if (is_vecish(x->ty))
		return v;
	return ins(vb, OP_VSPLAT, 1, &v, &x->span, x->span, t->kind == TY_MASK ? VT_MASK : VT_VEC,
	           t->dt, t->lanes);
}

static int mask_lit(KdVecLower *vb, const unsigned char *bits, int lanes, KdSpan at)
{
	int *args = kd_alloc(vb->a, sizeof *args * (size_t)lanes);
	for (int i = 0; i < lanes; i++)
		args[i] = kd_val_bool(vb->a, vb->f, bits[i]);
	return ins(vb, OP_VMASKLIT, lanes, args, NULL, at, VT_MASK, KD_BOOL, lanes);
}

/* A mask operand of `lanes` lanes; NULL (no mask) gives -1. */
static int mask(KdVecLower *vb, KdNode *x, int lanes)
{
	if (!x)
		return -1;
	if (x->ty->kind == TY_MASK)
		return vb->expr(vb->ctx, x);
	unsigned char *bits = kd_alloc(vb->a, (size_t)lanes + 1);
	if (x->ty->kind == TY_STR)
		kd_aipu_mask_parse(x->name, bits, lanes);
	else
		for (int i = 0; i < x->list.n && i < lanes; i++)
			bits[i] = ((KdNode *)x->list.v[i])->cval != 0;
	return mask_lit(vb, bits, lanes, x->span);
}

/* vload/vstore leave out a mask with every lane set. */
static int mem_mask(KdVecLower *vb, KdNode *x, int lanes)
{
	if (!x)
		return -1;
	if (x->ty->kind != TY_MASK) {
		unsigned char *bits = kd_alloc(vb->a, (size_t)lanes + 1);
		int all = 1;
		if (x->ty->kind == TY_STR)
			kd_aipu_mask_parse(x->name, bits, lanes);
		else
			for (int i = 0; i < x->list.n && i < lanes; i++)
				bits[i] = ((KdNode *)x->list.v[i])->cval != 0;
		for (int i = 0; i < lanes; i++)
			all &= bits[i];
		if (all)
			return -1;
	}
	return mask(vb, x, lanes);
}

static int all_true(KdVecLower *vb, int lanes, KdSpan at)
{
	unsigned char *bits = kd_alloc(vb->a, (size_t)lanes + 1);
	for (int i = 0; i < lanes; i++)
		bits[i] = 1;
	return mask_lit(vb, bits, lanes, at);
}

static int view(KdVecLower *vb, KdNode *x)
{
	int buf = x->a->sym->slot - 1;
	int off = vb->expr(vb->ctx, x->list.v[0]);
	int i = kd_ins_add(vb->a, vb->f, vb->cur, OP_VIEW, 1, &off, &x->span, x->span);
	return kd_ins_result(vb->a, vb->f, i, VT_REF, vb->f->buf[buf].dt, buf, NULL);
}

static int iconst(KdVecLower *vb, int64_t c)
{
	return kd_val_const(vb->a, vb->f, c);
}

static KdValType vt(const KdType *t)
{
	return t->kind == TY_MASK ? VT_MASK : VT_VEC;
}

int kd_lower_aipu_tuple(KdVecLower *vb, KdNode *n, int *out, int max)
{
	KdNode *x = n->bound[0];
	const KdType *t = x->ty;
	int v = vb->expr(vb->ctx, x), nat = kd_aipu_native(t->dt), k = t->lanes / nat;
	for (int i = 0; i < k && i < max; i++) {
		int args[2] = {v, iconst(vb, i)};
		KdSpan spans[2] = {x->span, n->span};
		out[i] = ins(vb, OP_VSPLIT, 2, args, spans, n->span, VT_VEC, t->dt, nat);
	}
	return k;
}

int kd_lower_aipu_call(KdVecLower *vb, KdNode *n)
{
	const KdOpDesc *d = n->opdesc;
	KdOp op = (KdOp)(d - kd_ops);
	KdNode **b = n->bound;
	const KdType *rt = n->ty;
	int args[8], na = 0;
	KdSpan spans[8];
	for (int i = 0; i < 8; i++)
		spans[i] = n->span;
	switch (op) {
	case OP_VLOAD: {
		args[na++] = view(vb, b[0]);
		int m = mem_mask(vb, b[2], rt->lanes);
		spans[0] = b[0]->span;
		if (m >= 0) {
			spans[na] = b[2]->span;
			args[na++] = m;
		}
		break;
	}
	case OP_VSTORE: {
		int lanes = b[1]->ty->lanes;
		args[0] = view(vb, b[0]);
		args[1] = vb->expr(vb->ctx, b[1]);
		args[2] = mem_mask(vb, b[2], lanes);
		for (int i = 0; i < 3; i++)
			spans[i] = b[i] ? b[i]->span : n->span;
		vb->f->buf[vb->f->val[args[0]].buf].written = 1;
		kd_ins_add(vb->a, vb->f, vb->cur, op, args[2] < 0 ? 2 : 3, args, spans, n->span);
		return -1;
	}
	case OP_VCONCAT:
	case OP_VZIP:
	case OP_VCOMPC:
	case OP_VSEL:
	case OP_VSLDL:
	case OP_VMIN:
	case OP_VMAX: {
		const KdType *t = is_vecish(b[0]->ty) ? b[0]->ty : b[1]->ty;
		KdNode *third = d->nparam > 2 ? b[2] : NULL;
		if (op == OP_VSEL && !third && is_vecish(b[0]->ty))
			return vb->expr(vb->ctx, b[0]);   /* no mask: every lane is x's */
		args[na++] = as_vec(vb, b[0], t);
		args[na++] = as_vec(vb, b[1], t);
		spans[0] = b[0]->span;
		spans[1] = b[1]->span;
		if (op == OP_VCONCAT || op == OP_VZIP)
			args[na++] = iconst(vb, third ? kd_aipu_part(third->name) : 0);
		else if (op == OP_VCOMPC || op == OP_VSEL)
			args[na++] = third ? mask(vb, third, t->lanes) : all_true(vb, t->lanes, n->span);
		else if (op == OP_VSLDL)
			args[na++] = iconst(vb, third->cval);
		if (third)
			spans[2] = third->span;
		break;
	}
	case OP_VCOMPT:
		args[na++] = vb->expr(vb->ctx, b[0]);
		args[na++] = mask(vb, b[1], rt->lanes);
		spans[0] = b[0]->span;
		spans[1] = b[1]->span;
		break;
	case OP_VREVS:
		args[na++] = vb->expr(vb->ctx, b[0]);
		break;
	case OP_VSHFL:
	case OP_VREPLIC:
		args[na++] = vb->expr(vb->ctx, b[0]);
		args[na++] = b[1] ? vb->expr(vb->ctx, b[1]) : iconst(vb, 0);
		spans[0] = b[0]->span;
		if (b[1])
			spans[1] = b[1]->span;
		break;
	case OP_VBCAST:
		args[na++] = vb->expr(vb->ctx, b[0]);
		spans[0] = b[0]->span;
		if (b[1]) {
			spans[na] = b[1]->span;
			args[na++] = mask(vb, b[1], rt->lanes);
		}
		break;
	case OP_VTBL: {
		KdNode *tb = b[0];
		args[na++] = vb->expr(vb->ctx, b[1]);
		spans[0] = b[1]->span;
		for (int i = 0; i < tb->list.n; i++) {
			spans[na] = ((KdNode *)tb->list.v[i])->span;
			args[na++] = vb->expr(vb->ctx, tb->list.v[i]);
		}
		break;
	}
	case OP_TAIL_MASK:
		args[na++] = vb->expr(vb->ctx, b[0]);
		spans[0] = b[0]->span;
		break;
	default:
		return iconst(vb, 0);
	}
	return ins(vb, op, na, args, spans, n->span, vt(rt), rt->kind == TY_MASK ? KD_BOOL : rt->dt,
	           rt->lanes);
}

int kd_lower_vec_binary(KdVecLower *vb, KdNode *n)
{
	const KdType *t = is_vecish(n->a->ty) ? n->a->ty : n->b->ty;
	int args[2] = {as_vec(vb, n->a, t), as_vec(vb, n->b, t)};
	KdSpan spans[2] = {n->a->span, n->b->span};
	return ins(vb, (KdOp)(OP_ADD + n->op), 2, args, spans, n->span, vt(n->ty),
	           n->ty->kind == TY_MASK ? KD_BOOL : n->ty->dt, n->ty->lanes);
}
