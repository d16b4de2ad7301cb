/* irread.c: the textual IR reader.  The grammar (irparse.y) hands over one
 * line at a time; this file gives the lines meaning.  A function is
 * collected until its '}' and then built: values keep the numbers the
 * text gives them (so the module prints back byte for byte), the holes
 * between them are filled with unused constants (the printer's gaps are
 * inline constants too), and operands resolve only once every definition
 * of the function is known, since a loop's back edge uses values defined
 * below the header. */
#include <stdlib.h>
#include <string.h>

#include "irread.h"
#include "irsyn.h"
#include "irsyntax.h"
#include "ir_target.h"
#include "tile.h"

/* Value numbers beyond this are refused: they would only allocate holes. */
enum { MAX_VALNUM = 1 << 20 };

/* ---- syntax nodes (the grammar's helpers) ---- */

KdIrNode *kd_irn(KdArena *a, int kind, KdSpan sp)
{
	KdIrNode *n = kd_alloc(a, sizeof *n);
	n->kind = kind;
	n->sp = sp;
	return n;
}

KdIrNode *kd_irn_tok(KdArena *a, KdIrTok t, int kind)
{
	KdIrNode *n = kd_irn(a, kind, t.sp);
	n->ival = t.ival;
	n->fval = t.fval;
	n->str = t.str;
	return n;
}

KdIrNode *kd_irn_push(KdArena *a, KdIrNode *list, KdIrNode *x)
{
	if (!list)
		list = kd_irn(a, IRN_LIST, x->sp);
	kd_vec_push(a, &list->l, x);
	return list;
}


/* ---- lines ---- */

void kd_irr_func(KdIrRead *r, KdIrTok kw, KdIrTok name, KdIrNode *params)
{
	if (r->f) {
		kd_error(r->d, kw.sp, "'func' inside function '%s' (missing '}')", r->f->name);
		return;
	}
	KdFunc *f = kd_func_new(r->a, name.str, r->m->target, kd_span_join(kw.sp, name.sp));
	for (int i = 0; i < r->m->nfn; i++)
		if (!strcmp(r->m->fn[i]->name, name.str))
			kd_error(r->d, name.sp, "function '@%s' defined twice", name.str);
	r->f = f;
	r->poison = -1;
	r->fbad = 0;
	r->fparams = params;
	r->blocks = (KdVec){0};
	r->ins = (KdVec){0};
	f->nparam = params->l.n;
	f->params = kd_alloc(r->a, sizeof *f->params * ((size_t)params->l.n + 1));
	/* tensor parameters are the first buffers, as the builder makes them */
	for (int i = 0; i < params->l.n; i++) {
		KdIrNode *p = kd_irn_item(params, i);
		struct KdParam *fp = &f->params[i];
		fp->name = p->str;
		fp->buf = fp->val = -1;
		for (int j = 0; j < i; j++)
			if (!strcmp(f->params[j].name, p->str))
				kd_error(r->d, p->sp, "parameter '%%%s' defined twice", p->str);
		if (p->a->kind == IR_IDENT) {
			fp->dt = kd_dtype_lookup(p->a->str, strlen(p->a->str));
			if (!fp->dt || fp->dt == KD_BOOL)
				kd_error(r->d, p->a->sp, "unknown scalar type '%s'", p->a->str);
			continue;
		}
		fp->is_tensor = 1;
		fp->buf = -2;        /* made by declare() below */
	}
}


void kd_irr_block(KdIrRead *r, KdIrTok bb, KdIrNode *params, KdIrNode *trail)
{
	if (!r->f) {
		kd_error(r->d, bb.sp, "block outside a function");
		return;
	}
	if (bb.ival != r->blocks.n) {
		kd_error(r->d, bb.sp, "block bb%lld out of order (expected bb%d)", (long long)bb.ival,
		         r->blocks.n);
		r->fbad = 1;
	}
	KdIrRawBlock *b = kd_alloc(r->a, sizeof *b);
	b->sp = bb.sp;
	b->params = params;
	b->trail = trail;
	kd_vec_push(r->a, &r->blocks, b);
}

void kd_irr_ins(KdIrRead *r, KdIrNode *res, KdIrTok op, KdIrNode *args, KdIrNode *ty,
                KdIrNode *trail)
{
	KdSpan at = res ? res->sp : op.sp;
	if (!r->f) {
		kd_error(r->d, at, "instruction outside a function");
		return;
	}
	if (!r->blocks.n) {
		kd_error(r->d, at, "instruction before the first block");
		r->fbad = 1;
		return;
	}
	KdIrRawIns *in = kd_alloc(r->a, sizeof *in);
	in->res = res;
	in->op = op;
	in->args = args;
	in->ty = ty;
	in->trail = trail;
	in->blk = r->blocks.n - 1;
	KdSpan end = args->l.n ? kd_irn_item(args, args->l.n - 1)->sp : op.sp;
	in->sp = kd_span_join(at, ty ? kd_span_join(end, ty->sp) : end);
	kd_vec_push(r->a, &r->ins, in);
}

/* ---- building a function at its '}' ---- */

static void define(KdIrRead *r, int64_t n, KdSpan at)
{
	if (r->defd[n]) {
		int l, c;
		kd_source_linecol(r->src, r->defsp[n].off, &l, &c);
		kd_error(r->d, at, "value %%%lld defined twice (first at line %d)", (long long)n, l);
		(void)c;
		return;
	}
	r->defd[n] = 1;
	r->defsp[n] = at;
}

/* One placeholder per function for operands already reported: the
 * checks after building say nothing more of them. */
static int poison(KdIrRead *r)
{
	if (r->poison < 0)
		r->poison = kd_val_const(r->a, r->f, 0);
	return r->poison;
}

/* The value an operand names; a new constant for a literal.  Reports and
 * returns the placeholder for anything it cannot resolve. */
static int value(KdIrRead *r, const KdIrNode *x)
{
	KdFunc *f = r->f;
	switch (x->kind) {
	case IR_LVAL:
		if (x->ival < r->nvnum && r->defd[x->ival])
			return (int)x->ival;
		kd_error(r->d, x->sp, "use of undefined value %%%lld", (long long)x->ival);
		break;
	case IR_PVAL:
		for (int i = 0; i < f->nparam; i++)
			if (!strcmp(f->params[i].name, x->str)) {
				if (f->params[i].val >= 0)
					return f->params[i].val;
				kd_error(r->d, x->sp, "'%%%s' is a tensor: name it '@%s'", x->str, x->str);
				return poison(r);
			}
		kd_error(r->d, x->sp, "use of undefined parameter '%%%s'", x->str);
		break;
	case IR_INT: return kd_val_const(r->a, f, x->ival);
	case IR_FLOAT: return kd_val_fconst(r->a, f, x->fval);
	case IR_STRING: return kd_val_str(r->a, f, x->str);
	case IR_IDENT:
		if (!strcmp(x->str, "true") || !strcmp(x->str, "false"))
			return kd_val_bool(r->a, f, x->str[0] == 't');
		kd_error(r->d, x->sp, "expected a value, got '%s'", x->str);
		break;
	case IR_GVAL:
		kd_error(r->d, x->sp, "buffer '@%s' where a value is expected (only view and tile name a buffer)",
		         x->str);
		break;
	default:
		kd_error(r->d, x->sp, "block where a value is expected (only jmp and br name blocks)");
		break;
	}
	return poison(r);
}

static const KdOpDesc *op_lookup(KdTarget t, const char *name, int typed, int *op)
{
	int vectors = kd_ir_target(t)->vectors;
	for (int i = 0; i < KD_NOP; i++) {
		const KdOpDesc *d = &kd_ops[i];
		/* `cast.T` is the generic cast, a bare `cast` the target's own
		 * (ops_check.c's cast_pair) */
		if (i == OP_CAST && !typed && kd_op_lookup(t, name))
			continue;
		/* vsplat and vmask make vectors, on a target that has them */
		if ((d->target == t || (d->target == KD_TARGET_NONE &&
		                        (!(d->flags & KD_OPF_VECTOR_ONLY) || vectors))) &&
		    !strcmp(d->name, name)) {
			*op = i;
			return d;
		}
	}
	return NULL;
}

/* Vector and mask values exist only on the targets that have them, so
 * the later stages can leave them to those targets' hooks. */
static int foreign_vector(KdIrRead *r, const KdVal *v, KdSpan at, const char *s)
{
	if ((v->type != VT_VEC && v->type != VT_MASK) || kd_ir_target(r->m->target)->vectors)
		return 0;
	kd_error(r->d, at, "type '%s': target %s has no vector or mask values", s,
	         kd_target_names[r->m->target]);
	return 1;
}

/* Operand count of the generic ops (-1: any); the target ops follow the table. */
static int generic_arity(const KdOpDesc *d, int op, int *nbuf, int *nsucc, int *res)
{
	*nbuf = op == OP_VIEW || op == OP_TILE;
	*nsucc = d->nsucc;
	*res = d->kind != OK_TERM;
	return d->arity;
}

typedef struct {
	int op;
	int buf;                 /* view/tile: the buffer */
	KdVal ty;                /* the result type */
} Decoded;

/* Checks one instruction's shape; 0 when it can be built. */
static int decode(KdIrRead *r, KdIrRawIns *ri, Decoded *dc)
{
	KdFunc *f = r->f;
	char *name = kd_strdup(r->a, ri->op.str), *dot = strchr(name, '.');
	if (dot)
		*dot = 0;
	const KdOpDesc *d = op_lookup(r->m->target, name, dot != NULL, &dc->op);
	if (!d || (dot && dc->op != OP_CAST)) {
		kd_error(r->d, ri->op.sp, "unknown op '%s' for target %s", ri->op.str,
		         kd_target_names[r->m->target]);
		return -1;
	}
	int nbuf = 0, nsucc = 0, wantres = 0, nval = 0, gsucc = 0, bad = 0;
	int arity = d->target ? -2 : generic_arity(d, dc->op, &nbuf, &nsucc, &wantres);
	for (int i = 0; i < ri->args->l.n; i++) {
		KdIrNode *x = kd_irn_item(ri->args, i);
		if (x->kind == IR_GVAL && i == 0 && nbuf)
			continue;
		if (x->kind == IRN_SUCC) {
			gsucc++;
			if (!nsucc)
				kd_error(r->d, x->sp, "%s takes no blocks", d->name);
			else if (x->ival >= r->blocks.n)
				kd_error(r->d, x->sp, "undefined block bb%lld", (long long)x->ival);
			else if (i < ri->args->l.n - nsucc)
				kd_error(r->d, x->sp, "block operands come last");
			else
				continue;
			bad = 1;
			continue;
		}
		nval++;
	}
	if (bad)
		return -1;
	if (nbuf) {
		KdIrNode *x = ri->args->l.n ? kd_irn_item(ri->args, 0) : NULL;
		dc->buf = -1;
		if (!x || x->kind != IR_GVAL) {
			kd_error(r->d, x ? x->sp : ri->op.sp, "%s needs a buffer '@name' first", d->name);
			return -1;
		}
		for (int i = 0; i < f->nbuf; i++)
			if (!strcmp(f->buf[i].name, x->str))
				dc->buf = i;
		if (dc->buf < 0) {
			kd_error(r->d, x->sp, "undefined buffer '@%s'", x->str);
			return -1;
		}
	}
	if (nsucc && gsucc != nsucc) {
		kd_error(r->d, ri->op.sp, "%s needs %d successor block%s, got %d", d->name, nsucc,
		         nsucc > 1 ? "s" : "", gsucc);
		return -1;
	}
	if (d->target && d->kind == OK_EFFECT) {
		int opt = kd_ir_target(d->target)->omit_optional && nval >= kd_op_required(d);
		if (nval != d->nparam && !(opt && nval < d->nparam)) {
			kd_error(r->d, ri->op.sp, "%s takes %d operands, got %d", d->name, d->nparam, nval);
			return -1;
		}
	} else if (d->target) {
		/* aipu's pure ops: their lowering varies (vmask lists its lanes) */
		if (nval < 1 || nval > 64) {
			kd_error(r->d, ri->op.sp, "%s takes 1 to 64 operands, got %d", d->name, nval);
			return -1;
		}
	} else if (arity >= 0 && nval != arity) {
		kd_error(r->d, ri->op.sp, "%s takes %d operand%s, got %d", d->name, arity,
		         arity == 1 ? "" : "s", nval);
		return -1;
	}
	if (d->target && d->kind == OK_EFFECT && !d->result_of && ri->res) {
		kd_error(r->d, ri->res->sp, "%s has no result", d->name);
		return -1;
	}
	if (!d->target && !wantres && ri->res) {
		kd_error(r->d, ri->res->sp, "%s has no result", d->name);
		return -1;
	}
	if (((!d->target && wantres) || (d->target && (d->kind == OK_PURE || d->result_of))) && !ri->res) {
		kd_error(r->d, ri->op.sp, "%s needs a result '%%N = %s ...'", d->name, d->name);
		return -1;
	}
	/* the result type: the text's, else the op's default */
	KdIns probe = {.op = (KdOp)dc->op};
	kd_ir_default_type(f, &probe, nbuf ? dc->buf : -1, &dc->ty);
	if (dot || ri->ty) {
		const KdIrNode *t = dot ? NULL : ri->ty;
		const char *s = dot ? dot + 1 : t->str;
		if (dot && ri->ty) {
			kd_error(r->d, ri->ty->sp, "cast states its type after the dot only");
			return -1;
		}
		if (kd_ir_parse_type(s, &dc->ty) < 0 || dc->ty.type == VT_REF) {
			kd_error(r->d, t ? t->sp : ri->op.sp, "unknown type '%s'", s);
			return -1;
		}
		if (foreign_vector(r, &dc->ty, t ? t->sp : ri->op.sp, s))
			return -1;
		dc->ty.buf = -1;
	}
	return 0;
}

/* Applies `; L:C, name X` to instruction k. */
static void ins_trail(KdIrRead *r, KdIrRawIns *ri, KdIns *in)
{
	KdIrNode *t = ri->trail;
	if (!t)
		return;
	if (t->a && t->a->kind == IRN_LOC) {
		int64_t l = t->a->ival, c = t->a->c->ival;
		if (l < 1 || c < 1 || l > 1 << 30 || c > 1 << 30)
			kd_error(r->d, t->a->sp, "source location %lld:%lld out of range", (long long)l,
			         (long long)c);
		else {
			/* A pass that makes an instruction for one operand (a view
			 * hoisted out of a loop) takes that operand's span: it prints
			 * with the instruction's source position. */
			kd_ir_loc_add(r->a, r->locs, in->span.off, (int)l, (int)c);
			for (int k = 0; k < in->nargs; k++)
				if (in->argspan[k].off > r->locs->off[r->locs->n - 1])
					kd_ir_loc_add(r->a, r->locs, in->argspan[k].off, (int)l, (int)c);
		}
	} else if (t->a) {
		kd_error(r->d, t->a->sp, "expected a source location 'LINE:COL' after ';'");
	}
	for (int i = 0; i < t->l.n; i++) {
		KdIrNode *x = kd_irn_item(t, i);
		if (x->kind == IRN_TNAME && !strcmp(x->str, "name") && in->res >= 0)
			r->f->val[in->res].name = x->a->str;
		else
			kd_error(r->d, x->sp, "unknown annotation (an instruction takes 'name X' for its result)");
	}
}

static void block_trail(KdIrRead *r, int bi, KdIrRawBlock *rb)
{
	KdFunc *f = r->f;
	KdBlock *bl = f->blk[bi];
	KdIrNode *t = rb->trail;
	if (!t)
		return;
	if (t->a && t->a->kind != IR_IDENT)
		kd_error(r->d, t->a->sp, "expected a block label after ';'");
	else if (t->a)
		bl->label = t->a->str;
	for (int i = 0; i < t->l.n; i++) {
		KdIrNode *x = kd_irn_item(t, i);
		int p = -1;
		if (x->kind != IRN_TNAME)
			for (int k = 0; k < bl->nparam; k++)
				if (bl->params[k] == x->ival)
					p = k;
		if (x->kind == IRN_TPNAME && !strcmp(x->str, "name") && p >= 0) {
			f->val[x->ival].name = x->a->str;
		} else if (x->kind == IRN_TLOOP && !strcmp(x->str, "loop") && p >= 0 && !bl->loop &&
		           !strcmp(kd_irn_item(x, 0)->str, "in") && !strcmp(kd_irn_item(x, 1)->str, "step")) {
			KdLoop *lp = kd_alloc(r->a, sizeof *lp);
			lp->iv = (int)x->ival;
			lp->lo = value(r, x->a);
			lp->hi = value(r, x->b);
			lp->step = x->c->ival;
			lp->span = rb->sp;
			if (lp->step < 1) {
				kd_error(r->d, x->c->sp, "loop step must be positive");
				lp->step = 1;
			}
			if (f->val[lp->lo].type != VT_INT || f->val[lp->hi].type != VT_INT)
				kd_error(r->d, x->sp, "loop bounds must be integers");
			/* The text prints constants inline, but a built loop's bound is
			 * the very value its header compares with, and fuse-bursts
			 * recognises the loop by that identity: share it again. */
			for (int k = 0; k < bl->nins && f->val[lp->hi].kind == VK_CONST; k++) {
				const KdIns *in = &f->ins[bl->insv[k]];
				const KdVal *c = in->nargs == 2 ? &f->val[in->args[1]] : NULL;
				if (in->op == OP_LT && in->args[0] == lp->iv && c->kind == VK_CONST &&
				    c->type == VT_INT && c->c == f->val[lp->hi].c)
					lp->hi = in->args[1];
			}
			bl->loop = lp;
		} else if (x->kind != IRN_TNAME && p < 0 && x->ival < r->nvnum) {
			kd_error(r->d, x->sp, "%%%lld is not a parameter of bb%d", (long long)x->ival, bi);
		} else {
			kd_error(r->d, x->sp, "unknown annotation (a block takes 'loop %%N in LO..HI step S' "
			         "and 'name %%N X')");
		}
	}
}

static void build_ins(KdIrRead *r, KdIrRawIns *ri)
{
	KdFunc *f = r->f;
	Decoded dc = {0};
	if (decode(r, ri, &dc) < 0) {
		/* keep the result defined with some type, so later uses do not cascade */
		if (ri->res && ri->res->ival < r->nvnum)
			f->val[ri->res->ival].type = VT_INT;
		return;
	}
	int n = ri->args->l.n, nargs = 0, ns = 0;
	int *args = kd_alloc(r->a, sizeof *args * ((size_t)n + 1));
	KdSpan *sp = kd_alloc(r->a, sizeof *sp * ((size_t)n + 1));
	KdIrNode *succ[2] = {NULL, NULL};
	for (int i = 0; i < n; i++) {
		KdIrNode *x = kd_irn_item(ri->args, i);
		if (x->kind == IRN_SUCC) {
			succ[ns++] = x;
			continue;
		}
		if (x->kind == IR_GVAL && i == 0 && (dc.op == OP_VIEW || dc.op == OP_TILE))
			continue;
		sp[nargs] = x->sp;
		args[nargs++] = value(r, x);
	}
	int k = kd_ins_add(r->a, f, ri->blk, (KdOp)dc.op, nargs, args, sp, ri->sp);
	for (int s = 0; s < ns; s++) {
		int m = succ[s]->l.n, *sa = kd_alloc(r->a, sizeof *sa * ((size_t)m + 1));
		for (int i = 0; i < m; i++)
			sa[i] = value(r, kd_irn_item(succ[s], i));
		kd_ins_succ(r->a, f, k, s, (int)succ[s]->ival, m, sa);
	}
	if (ri->res) {
		KdVal *v = &f->val[ri->res->ival];
		*v = (KdVal){.kind = VK_INS, .type = dc.ty.type, .dt = dc.ty.dt, .lanes = dc.ty.lanes,
		             .buf = dc.ty.buf, .def = k};
		f->ins[k].res = (int)ri->res->ival;
	}
	ins_trail(r, ri, &f->ins[k]);
}


static void build(KdIrRead *r, KdSpan close)
{
	KdFunc *f = r->f;
	int nerr = r->d->nerror;
	if (!r->blocks.n) {
		kd_error(r->d, close, "function '@%s' has no blocks", f->name);
		return;
	}
	/* value numbers */
	int64_t max = -1;
	for (int b = 0; b < r->blocks.n; b++) {
		KdIrRawBlock *rb = r->blocks.v[b];
		for (int i = 0; i < rb->params->l.n; i++)
			if (kd_irn_item(rb->params, i)->ival > max)
				max = kd_irn_item(rb->params, i)->ival;
	}
	for (int i = 0; i < r->ins.n; i++) {
		KdIrRawIns *ri = r->ins.v[i];
		if (ri->res && ri->res->ival > max)
			max = ri->res->ival;
	}
	if (max >= MAX_VALNUM) {
		kd_error(r->d, close, "value numbers up to %%%d only", MAX_VALNUM - 1);
		return;
	}
	r->nvnum = (int)max + 1;
	r->defd = kd_alloc(r->a, (size_t)r->nvnum + 1);
	r->defsp = kd_alloc(r->a, sizeof *r->defsp * ((size_t)r->nvnum + 1));
	for (int i = 0; i < r->nvnum; i++)
		kd_val_const(r->a, f, 0);
	for (int i = 0; i < f->nparam; i++)
		if (!f->params[i].is_tensor)
			f->params[i].val = kd_val_new(r->a, f, (KdVal){.kind = VK_PARAM, .type = VT_INT,
			                               .dt = f->params[i].dt, .index = i,
			                               .name = f->params[i].name, .buf = -1});
	/* blocks and their parameters */
	for (int b = 0; b < r->blocks.n; b++) {
		KdIrRawBlock *rb = r->blocks.v[b];
		int bi = kd_block_new(r->a, f, NULL);
		KdBlock *bl = f->blk[bi];
		bl->params = kd_alloc(r->a, sizeof *bl->params * ((size_t)rb->params->l.n + 1));
		for (int i = 0; i < rb->params->l.n; i++) {
			KdIrNode *p = kd_irn_item(rb->params, i);
			KdVal v = {.kind = VK_BARG, .def = bi, .index = i, .buf = -1};
			if (kd_ir_parse_type(p->a->str, &v) < 0 || v.type == VT_REF) {
				kd_error(r->d, p->a->sp, "unknown type '%s'", p->a->str);
				v.type = VT_INT, v.dt = KD_I64;
			} else if (foreign_vector(r, &v, p->a->sp, p->a->str)) {
				v.type = VT_INT, v.dt = KD_I64, v.lanes = 0;
			}
			define(r, p->ival, p->sp);
			f->val[p->ival] = v;
			bl->params[bl->nparam++] = (int)p->ival;
		}
	}
	for (int i = 0; i < r->ins.n; i++) {
		KdIrRawIns *ri = r->ins.v[i];
		if (ri->res)
			define(r, ri->res->ival, ri->res->sp);
	}
	if (r->d->nerror > nerr)
		return;
	for (int i = 0; i < r->ins.n; i++)
		build_ins(r, r->ins.v[i]);
	for (int b = 0; b < r->blocks.n; b++)
		block_trail(r, b, r->blocks.v[b]);
	char *has = kd_alloc(r->a, (size_t)r->blocks.n);
	for (int i = 0; i < r->ins.n; i++)
		has[((KdIrRawIns *)r->ins.v[i])->blk] = 1;
	for (int b = 0; b < r->blocks.n; b++)
		if (!has[b])
			kd_error(r->d, ((KdIrRawBlock *)r->blocks.v[b])->sp, "block bb%d has no instructions", b);
	/* a terminator ends each block, and only there (the verifier would
	 * call this an internal error, as it is one for a built module) */
	for (int b = 0; b < f->nblk; b++) {
		const KdBlock *bl = f->blk[b];
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			int term = kd_ops[in->op].kind == OK_TERM;
			if (term && k < bl->nins - 1)
				kd_error(r->d, in->span, "%s must be the last instruction of bb%d", kd_ops[in->op].name, b);
			else if (!term && k == bl->nins - 1 && r->d->nerror == nerr)
				kd_error(r->d, in->span, "bb%d does not end in a terminator (jmp, br or ret)", b);
		}
	}
	/* the instructions that did build are still checked: independent errors */
	kd_irr_check_types(r);
	kd_irr_mark_written(f);
	if (r->d->nerror == nerr)
		kd_module_add(r->a, r->m, f);
}

void kd_irr_end(KdIrRead *r, KdIrTok brace)
{
	if (!r->f) {
		kd_error(r->d, brace.sp, "'}' outside a function");
		return;
	}
	kd_irr_param_buffers(r);
	if (!r->fbad)
		build(r, brace.sp);
	r->f = NULL;
}

/* ---- the entry point ---- */

static const char header[] = "; kdsl ir, target ";

KdModule *kd_ir_read(KdArena *a, KdDiag *d, const KdSource *src)
{
	KdModule *m = kd_alloc(a, sizeof *m);
	KdIrLocs *locs = kd_alloc(a, sizeof *locs);
	m->src = src;
	m->arena = a;
	m->locs = locs;
	/* The header names the target, which decides what the op names mean. */
	size_t hl = sizeof header - 1, tl = 0;
	if (src->len >= hl && !memcmp(src->text, header, hl)) {
		while (hl + tl < src->len && src->text[hl + tl] != '\n' && src->text[hl + tl] != '\r')
			tl++;
		m->target = kd_target_lookup(src->text + hl, tl);
	}
	if (!m->target) {
		kd_error(d, (KdSpan){0, 0}, "expected '%sascend|neuron|aipu' on the first line", header);
		return NULL;
	}
	KdIrRead r = {.a = a, .d = d, .src = src, .m = m, .locs = locs};
	KdIrParseCtx ctx = {.r = &r, .a = a, .d = d};
	KdIrLexer lx;
	kd_irlex_init(&lx, a, d, src);
	void *p = kd_irparserAlloc(malloc, &ctx);
	if (!p) {
		kd_error_nopos(d, "out of memory");
		return NULL;
	}
	KdIrTok t;
	int tk;
	do {
		tk = kd_irlex_next(&lx, &t);
		kd_irparser(p, tk, t);
	} while (tk != 0 && !d->muted);
	kd_irparserFree(p, free);
	if (r.f)
		kd_error(d, (KdSpan){(uint32_t)src->len, 0}, "function '@%s' is missing its '}'", r.f->name);
	if (!m->nfn && !d->nerror)
		kd_error(d, (KdSpan){0, 0}, "no function in the IR");
	return d->nerror ? NULL : m;
}
