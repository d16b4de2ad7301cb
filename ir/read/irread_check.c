/* irread_check.c: the textual IR reader's checks once a function is
 * built and every value has its type: operand kinds against the op table,
 * index operands, view and tile operands, block arguments.  Sema
 * guarantees all of these on source; later stages rely on them. */
#include <string.h>

#include "irsyn.h"
#include "irsyntax.h"
#include "tile.h"

static const char *type_str(KdIrRead *r, const KdVal *x)
{
	if (x->type == VT_REF)
		return "tensor";
	KdBuf b = {0};
	kd_ir_put_type(&b, x);
	const char *s = kd_strdup(r->a, b.s);
	kd_buf_free(&b);
	return s;
}

/* aipu's pure ops: their lowering drops parameters sema folded (vload's
 * lanes are its result type), so later operands shift; what holds at any
 * position is that tensors, masks and vectors stand where the table says. */
static int aipu_kind_ok(const KdOpParam *p, KdValType t)
{
	switch (p->kind) {
	case PK_TENSOR: return t == VT_REF;
	case PK_MASK: return t == VT_MASK;
	case PK_VEC: return t == VT_VEC || t == VT_MASK;
	case PK_NUM: return t == VT_INT || t == VT_FLOAT || t == VT_BOOL;
	case PK_INT: case PK_STR: case PK_BOOL: return t == VT_INT || t == VT_BOOL || t == VT_MASK;
	default: return t != VT_REF && t != VT_STR && t != VT_LIST;
	}
}

static const char *const kind_names[] = {"tensor", "integer", "number", "string", "vector",
                                         "mask", "tuple", "bool", "dtype", "list",
                                         "tensor or number"};


/* Operands sema lowers to an index (a dtype, one of a string parameter's
 * enums): later stages index tables with them. */
static void check_index(KdIrRead *r, const KdIns *in, int k, const KdOpParam *p)
{
	int64_t n = p->kind == PK_DTYPE ? KD_NDTYPE : 0;
	if (p->kind == PK_STR && p->enums)
		while (p->enums[n])
			n++;
	const KdVal *v = &r->f->val[in->args[k]];
	if (n && (v->kind != VK_CONST || v->type != VT_INT || v->c < 0 || v->c >= n))
		kd_error(r->d, in->argspan[k], "%s: operand %d ('%s') must be a constant index 0..%lld",
		         kd_ops[in->op].name, k + 1, p->name, (long long)n - 1);
}

/* Values passed to a block's parameters have their types. */
static void check_succ(KdIrRead *r, const KdIns *in)
{
	KdFunc *f = r->f;
	for (int s = 0; s < in->nsucc; s++) {
		const KdSucc *sc = &in->succ[s];
		const KdBlock *to = f->blk[sc->blk];
		if (sc->nargs != to->nparam) {
			kd_error(r->d, in->span, "bb%d takes %d argument%s, got %d", sc->blk, to->nparam,
			         to->nparam == 1 ? "" : "s", sc->nargs);
			continue;
		}
		for (int i = 0; i < sc->nargs; i++) {
			const KdVal *a = &f->val[sc->args[i]], *p = &f->val[to->params[i]];
			if (a->type != p->type || a->lanes != p->lanes)
				kd_error(r->d, in->span, "argument %d of bb%d must be %s, got %s", i + 1, sc->blk,
				         type_str(r, p), type_str(r, a));
		}
	}
}

/* Operand kinds of the memory ops, once every value has its type. */
void kd_irr_check_kinds(KdIrRead *r)
{
	KdFunc *f = r->f;
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdOpDesc *d = &kd_ops[in->op];
		check_succ(r, in);
		for (int k = 0; d->target && k < in->nargs && k < d->nparam; k++)
			check_index(r, in, k, &d->param[k]);
		if (in->op == OP_CAST || in->op == OP_LIST) {
			for (int k = 0; k < in->nargs; k++) {
				KdValType t = f->val[in->args[k]].type;
				if (t != VT_INT && (in->op == OP_LIST || (t != VT_FLOAT && t != VT_BOOL)))
					kd_error(r->d, in->argspan[k], "%s: operand %d must be %s, got %s", d->name,
					         k + 1, in->op == OP_LIST ? "an integer" : "a number",
					         type_str(r, &f->val[in->args[k]]));
			}
		}
		if (d->target) {
			for (int k = 0; k < in->nargs && k < d->nparam; k++)
				if (in->args[k] != r->poison &&
				    !(d->kind == OK_PURE ? aipu_kind_ok : kd_operand_kind_ok)(&d->param[k],
				                                                  f->val[in->args[k]].type))
					kd_error(r->d, in->argspan[k], "%s: operand %d ('%s') must be a %s, got %s",
					         d->name, k + 1, d->param[k].name, kind_names[d->param[k].kind],
					         type_str(r, &f->val[in->args[k]]));
		} else if (d->flags & KD_OPF_ARITH) {
			for (int k = 0; k < in->nargs; k++) {
				KdValType t = f->val[in->args[k]].type;
				if (t != VT_INT && t != VT_FLOAT && t != VT_BOOL && t != VT_VEC && t != VT_MASK)
					kd_error(r->d, in->argspan[k], "%s: operand %d must be a number, got %s",
					         d->name, k + 1, type_str(r, &f->val[in->args[k]]));
			}
		} else if (in->op == OP_BR && in->nargs == 1) {
			KdValType t = f->val[in->args[0]].type;
			if (t != VT_BOOL && t != VT_INT)
				kd_error(r->d, in->argspan[0], "br: the condition must be a bool, got %s",
				         type_str(r, &f->val[in->args[0]]));
		} else if (in->op == OP_VIEW || in->op == OP_TILE) {
			for (int k = 0; k < in->nargs; k++) {
				const KdVal *v = &f->val[in->args[k]];
				/* what sema's index checks bound on source: the rule
				 * checker computes byte addresses from these */
				int64_t lim = (int64_t)1 << 40;
				int count = in->op == OP_TILE && (k == TA_NPART || k == TA_NFREE);
				if (v->type != VT_INT)
					kd_error(r->d, in->argspan[k], "%s: operand %d must be an integer, got %s",
					         d->name, k + 2, type_str(r, v));
				else if (count && (v->kind != VK_CONST || v->c < 1 || v->c > lim))
					kd_error(r->d, in->argspan[k], "tile: operand %d must be a constant count 1..%lld",
					         k + 2, (long long)lim);
				else if (v->kind == VK_CONST && (v->c < -lim || v->c > lim))
					kd_error(r->d, in->argspan[k], "%s: operand %d out of range (|x| <= %lld)",
					         d->name, k + 2, (long long)lim);
			}
		}
	}
}

/* Which buffers some op writes (the emitter keeps read-only parameters const). */
void kd_irr_mark_written(KdFunc *f)
{
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdOpDesc *d = &kd_ops[in->op];
		for (int k = 0; d->target && k < in->nargs && k < d->nparam; k++) {
			const KdVal *v = &f->val[in->args[k]];
			if (kd_param_writes(d, k) && v->type == VT_REF && v->buf >= 0)
				f->buf[v->buf].written = 1;
		}
	}
}

/* ---- aipu: what sema_aipu.c checks on source and the vector emitter
 * relies on (fixed-size lane arrays, in-range shuffle indices) ---- */

enum { MAX_LANES = 128 };

static void check_lanes(KdIrRead *r, const KdVal *x, KdSpan at)
{
	if (x->type != VT_VEC && x->type != VT_MASK)
		return;
	const KdDtypeInfo *d = &kd_dtypes[x->dt];
	if (x->lanes < 1 || x->lanes > MAX_LANES)
		kd_error(r->d, at, "vectors and masks have 1..%d lanes, got %d", MAX_LANES, x->lanes);
	else if (x->type == VT_VEC && (!x->dt || x->dt == KD_BOOL || x->dt == KD_BF16 || d->size > 4))
		kd_error(r->d, at, "no aipu vector of %s", x->dt ? d->name : "no dtype");
}

static int64_t const_of(const KdFunc *f, int v, int64_t none)
{
	const KdVal *x = &f->val[v];
	return x->kind == VK_CONST && x->type == VT_INT ? x->c : none;
}

/* The permutations whose vector operands have the result's lanes. */
static int same_lanes_op(int op)
{
	return op == OP_VREVS || op == OP_VSEL || op == OP_VSHFL || op == OP_VSLDL ||
	       op == OP_VCOMPT || op == OP_VCOMPC || op == OP_VMIN || op == OP_VMAX;
}

/* vtbl: an integer index vector, then 2 to 4 table vectors, all of the
 * result's lanes (the emitter indexes the table vector by vector) */
static void check_vtbl(KdIrRead *r, const KdIns *in, const KdVal *res)
{
	const KdFunc *f = r->f;
	if (in->nargs < VTBL_IR_TABLE + 2 || in->nargs > VTBL_IR_TABLE + 4) {
		kd_error(r->d, in->span, "vtbl takes an index vector and 2 to 4 table vectors, got %d operands",
		         in->nargs);
		return;
	}
	for (int k = 0; k < in->nargs; k++) {
		const KdVal *a = &f->val[in->args[k]];
		if (in->args[k] == r->poison)
			continue;
		if (k == VTBL_IR_INDICES && (a->type != VT_VEC || kd_dtypes[a->dt].is_float || a->lanes != res->lanes))
			kd_error(r->d, in->argspan[k], "vtbl: indices must be an integer vector of %d lanes, got %s",
			         res->lanes, type_str(r, a));
		else if (k >= VTBL_IR_TABLE && (a->type != VT_VEC || a->dt != res->dt || a->lanes != res->lanes))
			kd_error(r->d, in->argspan[k], "vtbl: table operand %d must be a %sx%d vector like the "
			         "result, got %s", k, kd_dtypes[res->dt].name, res->lanes, type_str(r, a));
	}
}

/* vbcast and vsplat: a scalar, then (vbcast) an optional mask of the
 * result's lanes.  vbcast's operand kinds are checked with every op's;
 * vsplat, which only lowering makes, has no table entry to check by. */
_Static_assert(VBCAST_X == 0, "vbcast takes its scalar first, as vsplat does");

static void check_splat(KdIrRead *r, const KdIns *in, const KdVal *res)
{
	const KdFunc *f = r->f;
	int most = in->op == OP_VBCAST ? VBCAST_MASK + 1 : 1;
	if (in->nargs < 1 || in->nargs > most) {
		kd_error(r->d, in->span, "%s takes %s, got %d operands", kd_ops[in->op].name,
		         most == 2 ? "a scalar and an optional mask" : "one scalar", in->nargs);
		return;
	}
	const KdVal *x = &f->val[in->args[VBCAST_X]];
	if (in->op == OP_VSPLAT && in->args[VBCAST_X] != r->poison && x->type != VT_INT &&
	    x->type != VT_FLOAT && x->type != VT_BOOL)
		kd_error(r->d, in->argspan[VBCAST_X], "vsplat: x must be a scalar, got %s", type_str(r, x));
	if (in->nargs > VBCAST_MASK) {
		const KdVal *m = &f->val[in->args[VBCAST_MASK]];
		if (m->type == VT_MASK && m->lanes != res->lanes)
			kd_error(r->d, in->argspan[VBCAST_MASK], "vbcast: mask has %d lanes, the result %d",
			         m->lanes, res->lanes);
	}
}

void kd_irr_check_aipu(KdIrRead *r)
{
	KdFunc *f = r->f;
	for (int b = 0; b < f->nblk; b++)
		for (int i = 0; i < f->blk[b]->nparam; i++)
			check_lanes(r, &f->val[f->blk[b]->params[i]], f->blk[b]->nins
			            ? f->ins[f->blk[b]->insv[0]].span : f->span);
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdVal *res = in->res >= 0 ? &f->val[in->res] : NULL;
		if (!res)
			continue;
		check_lanes(r, res, in->span);
		int vres = res->type == VT_VEC || res->type == VT_MASK;
		const KdOpDesc *d = &kd_ops[in->op];
		if (d->target == KD_TARGET_AIPU && in->op != OP_TAIL_MASK) {
			/* tail_mask's lanes are its result type */
			int need = 0;
			for (int k = 0; k < d->nparam; k++)
				need += !(d->param[k].flags & PF_OPT);
			if (in->nargs < need)
				kd_error(r->d, in->span, "%s takes at least %d operands, got %d", d->name, need,
				         in->nargs);
		}
		/* a vector result's element type is its vector operands' */
		int elementwise = (d->flags & KD_OPF_ARITH) != 0;
		int same_dt = res->type == VT_VEC && (elementwise || same_lanes_op(in->op) ||
		              in->op == OP_VREPLIC || in->op == OP_VCONCAT || in->op == OP_VZIP);
		for (int k = 0; same_dt && k < in->nargs; k++) {
			const KdVal *a = &f->val[in->args[k]];
			if (a->type == VT_VEC && a->dt != res->dt)
				kd_error(r->d, in->argspan[k], "%s: operand %d is a %s vector, the result %s",
				         d->name, k + 1, kd_dtypes[a->dt].name, kd_dtypes[res->dt].name);
		}
		int lanes_too = elementwise || same_lanes_op(in->op);
		for (int k = 0; lanes_too && k < in->nargs; k++) {
			const KdVal *a = &f->val[in->args[k]];
			int va = a->type == VT_VEC || a->type == VT_MASK;
			if (elementwise && va != vres)
				kd_error(r->d, in->argspan[k], "%s: operand %d must be a %s like the result",
				         kd_ops[in->op].name, k + 1, vres ? "vector" : "scalar");
			else if (!elementwise && va && k < d->nparam && d->param[k].kind == PK_VEC &&
			         a->type != res->type)
				kd_error(r->d, in->argspan[k], "%s: operand %d must be a %s like the result",
				         d->name, k + 1, res->type == VT_VEC ? "vector" : "mask");
			else if (va && vres && a->lanes != res->lanes)
				kd_error(r->d, in->argspan[k], "%s: operand %d has %d lanes, the result %d",
				         kd_ops[in->op].name, k + 1, a->lanes, res->lanes);
		}
		if (in->op == OP_VTBL)
			check_vtbl(r, in, res);
		if (in->op == OP_VBCAST || in->op == OP_VSPLAT)
			check_splat(r, in, res);
		if (in->op == OP_VSLDL && in->nargs == VSLDL_NPARAM) {
			int64_t sh = const_of(f, in->args[VSLDL_SHIFT], 0);
			if (sh < 0 || sh > res->lanes)
				kd_error(r->d, in->argspan[VSLDL_SHIFT], "vsldl: shift must be in 0..%d, got %lld", res->lanes,
				         (long long)sh);
		}
		/* a constant index becomes a shuffle mask: it must name a lane (a
		 * run-time one is checked by the generated code) */
		if (in->op == OP_VREPLIC && in->nargs == VREPLIC_NPARAM &&
		    f->val[in->args[VREPLIC_INDEX]].kind == VK_CONST) {
			int64_t ix = f->val[in->args[VREPLIC_INDEX]].c;
			if (ix < 0 || ix >= res->lanes)
				kd_error(r->d, in->argspan[VREPLIC_INDEX], "vreplic: index must be in 0..%d, got %lld",
				         res->lanes - 1, (long long)ix);
		}
		if (in->op == OP_VSPLIT && in->nargs == VSPLIT_IR_N) {
			int n = f->val[in->args[VSPLIT_IR_X]].lanes;
			int64_t p = const_of(f, in->args[VSPLIT_IR_PART], -1);
			if (p < 0 || p >= MAX_LANES || !res->lanes || (p + 1) * res->lanes > n)
				kd_error(r->d, in->argspan[VSPLIT_IR_PART], "vsplit: part must be a constant 0..%d",
				         res->lanes ? n / res->lanes - 1 : 0);
		}
		if ((in->op == OP_VCONCAT || in->op == OP_VZIP) && in->nargs == VCONCAT_NPARAM) {
			_Static_assert(KD_SAME_POS(VCONCAT_X, VZIP_X) && KD_SAME_POS(VCONCAT_Y, VZIP_Y) &&
			               KD_SAME_POS(VCONCAT_PART, VZIP_PART) &&
			               KD_SAME_POS(VCONCAT_NPARAM, VZIP_NPARAM), "vconcat and vzip share positions");
			const KdVal *x = &f->val[in->args[VCONCAT_X]], *y = &f->val[in->args[VCONCAT_Y]];
			int64_t p = const_of(f, in->args[VCONCAT_PART], -1);
			int want = p == 0 ? 2 * x->lanes : x->lanes;
			if (p < 0 || p > 4)
				kd_error(r->d, in->argspan[VCONCAT_PART], "%s: part must be a constant 0..4 (all, low, high, "
				         "even, odd)", kd_ops[in->op].name);
			else if (x->lanes != y->lanes || (p && x->lanes % 2) || res->lanes != want)
				kd_error(r->d, in->span, "%s: operands of %d and %d lanes give %d lanes, not %d",
				         kd_ops[in->op].name, x->lanes, y->lanes, want, res->lanes);
		}
	}
}
