/* lower_aipu.c: the aipu ops as pure SSA instructions.  Sema has checked
 * every type rule, so lowering only normalises operands: a broadcast
 * scalar becomes a vsplat, a mask string or list a constant mask (vmask),
 * part names and immediates integer constants. */
#include "lower.h"
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
		kd_aipu_mask_parse(x->name, bits, lanes, NULL);
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
			kd_aipu_mask_parse(x->name, bits, lanes, NULL);
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

/* A stride= argument other than the constant 1 (which is no stride): the
 * IR's vload/vstore then carry it after a mask (all_true if none). */
static int strided(const KdNode *x)
{
	return x && !(x->is_const && x->cval == 1);
}

static int view(KdVecLower *vb, KdNode *x)
{
	int buf = x->a->sym->slot - 1;
	int off = vb->expr(vb->ctx, x->list.v[0]);
	int i = kd_ins_add(vb->a, vb->f, vb->cur, OP_VIEW, 1, &off, &x->span, x->span);
	return kd_ins_result(vb->a, vb->f, i, VT_REF, vb->f->buf[buf].dt, buf, NULL);
}

/* A tensor operand written t[k] (a view at k) or t (a view at 0). */
static int tensor_view(KdVecLower *vb, KdNode *x)
{
	if (x->kind == N_INDEX)
		return view(vb, x);
	int buf = x->sym->slot - 1;
	int off = kd_val_const(vb->a, vb->f, 0);
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
	KdNode *x = n->bound[VSPLIT_X];
	const KdType *t = x->ty;
	int v = vb->expr(vb->ctx, x), nat = kd_aipu_native(t->dt), k = t->lanes / nat;
	for (int i = 0; i < k && i < max; i++) {
		int args[VSPLIT_IR_N] = {[VSPLIT_IR_X] = v, [VSPLIT_IR_PART] = iconst(vb, i)};
		KdSpan spans[VSPLIT_IR_N] = {[VSPLIT_IR_X] = x->span, [VSPLIT_IR_PART] = n->span};
		out[i] = ins(vb, OP_VSPLIT, VSPLIT_IR_N, args, spans, n->span, VT_VEC, t->dt, nat);
	}
	return k;
}

/* A clip bound as a vector of x's type t: a constant outside the lane
 * dtype's range is clamped to it first (the Compass API's reading). */
static int clip_bound(KdVecLower *vb, KdNode *x, const KdType *t)
{
	if (is_vecish(x->ty) || !x->is_const)
		return as_vec(vb, x, t);
	double lo, hi, v = x->ty->kind == TY_FLOAT ? x->fcval : (double)x->cval;
	kd_aipu_dt_range(t->dt, &lo, &hi);
	v = v < lo ? lo : v > hi ? hi : v;
	int c = kd_dtypes[t->dt].is_float ? kd_val_fconst(vb->a, vb->f, v)
	                                  : kd_val_const(vb->a, vb->f, x->cval < lo ? (int64_t)lo
	                                                 : x->cval > hi ? (int64_t)hi : x->cval);
	return ins(vb, OP_VSPLAT, 1, &c, &x->span, x->span, VT_VEC, t->dt, t->lanes);
}

/* Appends an optional mask of `lanes` as operand *na (none when absent
 * or a literal with every lane set); the operand count. */
static int opt_mask(KdVecLower *vb, KdNode *x, int lanes, int *args, KdSpan *spans, int na)
{
	int m = mem_mask(vb, x, lanes);
	if (m < 0)
		return na;
	spans[na] = x->span;
	args[na] = m;
	return na + 1;
}

/* cast, vrpadd, vrint, clip, abs: x first, the mask last if any, part and
 * saturate as integer constants (cast's saturate as it applies: always
 * from a float to an integer, which converts through a saturating i32). */
static int arith(KdVecLower *vb, KdNode *n, KdOp op, int *args, KdSpan *spans)
{
	KdNode **b = n->bound;
	const KdType *xt = b[KD_AIPU_X]->ty;
	args[0] = vb->expr(vb->ctx, b[KD_AIPU_X]);
	spans[0] = b[KD_AIPU_X]->span;
	switch (op) {
	case OP_VCAST: {
		int p = b[VCAST_PART] ? kd_aipu_cast_part_of(b[VCAST_PART]->name) : KD_AIPU_PART_ALL;
		int sat = b[VCAST_SATURATE] && b[VCAST_SATURATE]->cval != 0;
		if (kd_dtypes[xt->dt].is_float && !kd_dtypes[n->ty->dt].is_float)
			sat = 1;
		args[VCAST_IR_PART] = iconst(vb, p);
		args[VCAST_IR_SATURATE] = iconst(vb, sat);
		return VCAST_IR_N;
	}
	case OP_VRPADD:
		return opt_mask(vb, b[VRPADD_MASK], xt->lanes, args, spans, VRPADD_IR_MASK);
	case OP_VRINT:
		return opt_mask(vb, b[VRINT_MASK], xt->lanes, args, spans, VRINT_IR_MASK);
	case OP_CLIP:
		args[CLIP_IR_MIN_VAL] = clip_bound(vb, b[CLIP_MIN_VAL], xt);
		args[CLIP_IR_MAX_VAL] = clip_bound(vb, b[CLIP_MAX_VAL], xt);
		spans[CLIP_IR_MIN_VAL] = b[CLIP_MIN_VAL]->span;
		spans[CLIP_IR_MAX_VAL] = b[CLIP_MAX_VAL]->span;
		return opt_mask(vb, b[CLIP_MASK], xt->lanes, args, spans, CLIP_IR_MASK);
	default:   /* abs */
		args[ABS_IR_SATURATE] = iconst(vb, b[ABS_SATURATE] && b[ABS_SATURATE]->cval != 0);
		return opt_mask(vb, b[ABS_MASK], xt->lanes, args, spans, ABS_IR_MASK);
	}
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
		args[VLOAD_IR_SRC] = view(vb, b[VLOAD_SRC]);
		spans[VLOAD_IR_SRC] = b[VLOAD_SRC]->span;
		na = VLOAD_IR_MASK;
		int m = mem_mask(vb, b[VLOAD_MASK], rt->lanes);
		int s = strided(b[VLOAD_STRIDE]);
		if (m < 0 && s)
			m = all_true(vb, rt->lanes, n->span);
		if (m >= 0) {
			spans[VLOAD_IR_MASK] = b[VLOAD_MASK] ? b[VLOAD_MASK]->span : n->span;
			args[na++] = m;
		}
		if (s) {
			spans[VLOAD_IR_STRIDE] = b[VLOAD_STRIDE]->span;
			args[na++] = vb->expr(vb->ctx, b[VLOAD_STRIDE]);
		}
		break;
	}
	case OP_VSTORE: {
		int lanes = b[VSTORE_V]->ty->lanes;
		args[VSTORE_DST] = view(vb, b[VSTORE_DST]);
		args[VSTORE_V] = vb->expr(vb->ctx, b[VSTORE_V]);
		args[VSTORE_MASK] = mem_mask(vb, b[VSTORE_MASK], lanes);
		int s = strided(b[VSTORE_STRIDE]);
		if (args[VSTORE_MASK] < 0 && s)
			args[VSTORE_MASK] = all_true(vb, lanes, n->span);
		if (s)
			args[VSTORE_STRIDE] = vb->expr(vb->ctx, b[VSTORE_STRIDE]);
		for (int i = 0; i < VSTORE_NPARAM; i++)
			spans[i] = b[i] ? b[i]->span : n->span;
		vb->f->buf[vb->f->val[args[VSTORE_DST]].buf].written = 1;
		kd_ins_add(vb->a, vb->f, vb->cur, op,
		           s ? VSTORE_NPARAM : args[VSTORE_MASK] < 0 ? VSTORE_MASK : VSTORE_STRIDE, args, spans,
		           n->span);
		return -1;
	}
	case OP_DMA_COPY:
		for (int i = 0; i < DMA_COPY_NPARAM; i++)
			spans[i] = b[i]->span;
		args[DMA_COPY_DST] = tensor_view(vb, b[DMA_COPY_DST]);
		args[DMA_COPY_SRC] = tensor_view(vb, b[DMA_COPY_SRC]);
		args[DMA_COPY_COUNT] = vb->expr(vb->ctx, b[DMA_COPY_COUNT]);
		vb->f->buf[vb->f->val[args[DMA_COPY_DST]].buf].written = 1;
		kd_ins_add(vb->a, vb->f, vb->cur, op, DMA_COPY_NPARAM, args, spans, n->span);
		return -1;
	case OP_VLOAD_GATHER: {
		/* the view, the index, the mask unless every lane is set */
		args[VLOAD_GATHER_SRC] = view(vb, b[VLOAD_GATHER_SRC]);
		args[VLOAD_GATHER_INDEX] = vb->expr(vb->ctx, b[VLOAD_GATHER_INDEX]);
		spans[VLOAD_GATHER_SRC] = b[VLOAD_GATHER_SRC]->span;
		spans[VLOAD_GATHER_INDEX] = b[VLOAD_GATHER_INDEX]->span;
		na = VLOAD_GATHER_MASK;
		int m = mem_mask(vb, b[VLOAD_GATHER_MASK], rt->lanes);
		if (m >= 0) {
			spans[na] = b[VLOAD_GATHER_MASK]->span;
			args[na++] = m;
		}
		break;
	}
	case OP_VSTORE_SCATTER: {
		int lanes = b[VSTORE_SCATTER_V]->ty->lanes;
		args[VSTORE_SCATTER_DST] = view(vb, b[VSTORE_SCATTER_DST]);
		args[VSTORE_SCATTER_V] = vb->expr(vb->ctx, b[VSTORE_SCATTER_V]);
		args[VSTORE_SCATTER_INDEX] = vb->expr(vb->ctx, b[VSTORE_SCATTER_INDEX]);
		args[VSTORE_SCATTER_MASK] = mem_mask(vb, b[VSTORE_SCATTER_MASK], lanes);
		for (int i = 0; i < VSTORE_SCATTER_NPARAM; i++)
			spans[i] = b[i] ? b[i]->span : n->span;
		vb->f->buf[vb->f->val[args[VSTORE_SCATTER_DST]].buf].written = 1;
		kd_ins_add(vb->a, vb->f, vb->cur, op,
		           args[VSTORE_SCATTER_MASK] < 0 ? VSTORE_SCATTER_MASK : VSTORE_SCATTER_NPARAM, args,
		           spans, n->span);
		return -1;
	}
	case OP_VCONCAT:
	case OP_VZIP:
	case OP_VCOMPC:
	case OP_VSEL:
	case OP_VSLDL:
	case OP_VMIN:
	case OP_VMAX: {
		const KdType *t = is_vecish(b[KD_AIPU_X]->ty) ? b[KD_AIPU_X]->ty : b[KD_AIPU_Y]->ty;
		KdNode *third = d->nparam > KD_AIPU_THIRD ? b[KD_AIPU_THIRD] : NULL;
		if (op == OP_VSEL && !third && is_vecish(b[KD_AIPU_X]->ty))
			return vb->expr(vb->ctx, b[KD_AIPU_X]);   /* no mask: every lane is x's */
		args[KD_AIPU_X] = as_vec(vb, b[KD_AIPU_X], t);
		args[KD_AIPU_Y] = as_vec(vb, b[KD_AIPU_Y], t);
		spans[KD_AIPU_X] = b[KD_AIPU_X]->span;
		spans[KD_AIPU_Y] = b[KD_AIPU_Y]->span;
		na = KD_AIPU_THIRD;
		if (op == OP_VCONCAT || op == OP_VZIP)
			args[na++] = iconst(vb, third ? kd_aipu_part(third->name) : 0);
		else if (op == OP_VCOMPC || op == OP_VSEL)
			args[na++] = third ? mask(vb, third, t->lanes) : all_true(vb, t->lanes, n->span);
		else if (op == OP_VSLDL)
			args[na++] = iconst(vb, third->cval);
		if (third)
			spans[KD_AIPU_THIRD] = third->span;
		break;
	}
	case OP_VCOMPT:
		args[VCOMPT_X] = vb->expr(vb->ctx, b[VCOMPT_X]);
		args[VCOMPT_MASK] = mask(vb, b[VCOMPT_MASK], rt->lanes);
		spans[VCOMPT_X] = b[VCOMPT_X]->span;
		spans[VCOMPT_MASK] = b[VCOMPT_MASK]->span;
		na = VCOMPT_NPARAM;
		break;
	case OP_VREVS:
		args[VREVS_X] = vb->expr(vb->ctx, b[VREVS_X]);
		na = VREVS_NPARAM;
		break;
	case OP_VSHFL:
	case OP_VREPLIC: {
		/* x and an integer: vshfl's shift, vreplic's index */
		enum { NUM = VSHFL_SHIFT };
		_Static_assert(KD_SAME_POS(VREPLIC_INDEX, NUM), "vshfl and vreplic share positions");
		args[KD_AIPU_X] = vb->expr(vb->ctx, b[KD_AIPU_X]);
		args[NUM] = b[NUM] ? vb->expr(vb->ctx, b[NUM]) : iconst(vb, 0);
		spans[KD_AIPU_X] = b[KD_AIPU_X]->span;
		if (b[NUM])
			spans[NUM] = b[NUM]->span;
		na = NUM + 1;
		break;
	}
	case OP_VBCAST:
		args[VBCAST_X] = vb->expr(vb->ctx, b[VBCAST_X]);
		spans[VBCAST_X] = b[VBCAST_X]->span;
		na = VBCAST_MASK;
		if (b[VBCAST_MASK]) {
			spans[na] = b[VBCAST_MASK]->span;
			args[na++] = mask(vb, b[VBCAST_MASK], rt->lanes);
		}
		break;
	case OP_VTBL: {
		KdNode *tb = b[VTBL_TABLE];
		args[VTBL_IR_INDICES] = vb->expr(vb->ctx, b[VTBL_INDICES]);
		spans[VTBL_IR_INDICES] = b[VTBL_INDICES]->span;
		na = VTBL_IR_TABLE;
		/* a scalar in the table stands for a vector of the result's type */
		for (int i = 0; i < tb->list.n; i++) {
			spans[na] = ((KdNode *)tb->list.v[i])->span;
			args[na++] = as_vec(vb, tb->list.v[i], rt);
		}
		break;
	}
	case OP_MASK_AND:
	case OP_MASK_OR:
	case OP_MASK_XOR:
	case OP_MASK_NOT:
		for (na = 0; na < d->nparam; na++) {
			args[na] = vb->expr(vb->ctx, b[na]);
			spans[na] = b[na]->span;
		}
		break;
	case OP_TAIL_MASK:
		/* lanes is the result's type */
		args[TAIL_MASK_N] = vb->expr(vb->ctx, b[TAIL_MASK_N]);
		spans[TAIL_MASK_N] = b[TAIL_MASK_N]->span;
		na = TAIL_MASK_LANES;
		break;
	case OP_VCAST:
	case OP_VRPADD:
	case OP_VRINT:
	case OP_CLIP:
	case OP_ABS:
		na = arith(vb, n, op, args, spans);
		break;
	default:
		kd_op_unhandled(vb->d, n->span, "lower", op);
		return iconst(vb, 0);
	}
	return ins(vb, op, na, args, spans, n->span, vt(rt), rt->kind == TY_MASK ? KD_BOOL : rt->dt,
	           rt->lanes);
}

/* The mask op of `&`, `|`, `^` on two masks; KD_NOP for another operator. */
static KdOp mask_op(int binop)
{
	switch (binop) {
	case B_AND: return OP_MASK_AND;
	case B_OR: return OP_MASK_OR;
	case B_XOR: return OP_MASK_XOR;
	default: return KD_NOP;
	}
}

int kd_lower_vec_binary(KdVecLower *vb, KdNode *n)
{
	const KdType *t = is_vecish(n->a->ty) ? n->a->ty : n->b->ty;
	int args[2] = {as_vec(vb, n->a, t), as_vec(vb, n->b, t)};
	KdSpan spans[2] = {n->a->span, n->b->span};
	KdOp op = n->ty->kind == TY_MASK ? mask_op(n->op) : KD_NOP;
	return ins(vb, op != KD_NOP ? op : kd_binop_op((KdBinop)n->op), 2, args, spans, n->span, vt(n->ty),
	           n->ty->kind == TY_MASK ? KD_BOOL : n->ty->dt, n->ty->lanes);
}

int kd_lower_vec_unary(KdVecLower *vb, KdNode *n)
{
	int x = vb->expr(vb->ctx, n->a);
	if (n->op == U_BITNOT) {
		/* ~x is x ^ -1 (every bit of the lane set) */
		int m1 = kd_val_const(vb->a, vb->f, -1);
		int args[2] = {x, ins(vb, OP_VSPLAT, 1, &m1, &n->span, n->span, VT_VEC, n->ty->dt, n->ty->lanes)};
		KdSpan spans[2] = {n->a->span, n->span};
		return ins(vb, OP_XOR, 2, args, spans, n->span, VT_VEC, n->ty->dt, n->ty->lanes);
	}
	return ins(vb, OP_MASK_NOT, 1, &x, &n->a->span, n->span, VT_MASK, KD_BOOL, n->ty->lanes);
}
