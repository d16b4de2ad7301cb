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
#include "tile.h"

/* Value numbers beyond this are refused: they would only allocate holes. */
enum { MAX_VALNUM = 1 << 20 };

typedef struct {
	KdIrNode *res;           /* LVAL or NULL */
	KdIrTok op;
	KdIrNode *args, *ty, *trail;
	int blk;
	KdSpan sp;
} RawIns;

typedef struct {
	KdSpan sp;
	KdIrNode *params, *trail;
} RawBlock;

struct KdIrRead {
	KdArena *a;
	KdDiag *d;
	const KdSource *src;
	KdModule *m;
	KdIrLocs *locs;
	KdFunc *f;               /* the function being read, NULL between functions */
	int fbad;                /* it had an error that makes building pointless */
	KdIrNode *fparams;
	KdVec blocks, ins;       /* RawBlock *, RawIns * */
	/* building */
	int nvnum;               /* value numbers 0..nvnum-1 are the text's */
	KdSpan *defsp;           /* where each was defined; len 0 = undefined */
	char *defd;
};

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

static KdIrNode *item(const KdIrNode *list, int i)
{
	return list->l.v[i];
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
	r->fbad = 0;
	r->fparams = params;
	r->blocks = (KdVec){0};
	r->ins = (KdVec){0};
	f->nparam = params->l.n;
	f->params = kd_alloc(r->a, sizeof *f->params * ((size_t)params->l.n + 1));
	/* tensor parameters are the first buffers, as the builder makes them */
	for (int i = 0; i < params->l.n; i++) {
		KdIrNode *p = item(params, i);
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

/* Checks a buffer type (space, dtype, dims) and adds the buffer. */
static int declare(KdIrRead *r, const char *name, KdSpan at, KdIrNode *ty, int param)
{
	KdFunc *f = r->f;
	KdBuffer b = {.name = name, .addr = param >= 0 ? 0 : -1, .param = param, .span = at};
	b.space = kd_space_lookup(r->m->target, ty->a->str, strlen(ty->a->str));
	if (!b.space)
		kd_error(r->d, ty->a->sp, "unknown memory space '%s' for target %s", ty->a->str,
		         kd_target_names[r->m->target]);
	else if (kd_spaces[b.space].external != (param >= 0))
		kd_error(r->d, ty->a->sp, "%s buffer in %s memory", param >= 0 ? "parameter" : "local",
		         ty->a->str);
	b.dt = kd_dtype_lookup(ty->b->str, strlen(ty->b->str));
	if (!b.dt || b.dt == KD_BOOL)
		kd_error(r->d, ty->b->sp, "unknown element type '%s'", ty->b->str);
	if (ty->l.n > KD_MAXRANK)
		kd_error(r->d, ty->sp, "buffer of rank %d (at most %d)", ty->l.n, KD_MAXRANK);
	b.rank = ty->l.n < KD_MAXRANK ? ty->l.n : KD_MAXRANK;
	int64_t n = 1;
	for (int i = 0; i < b.rank; i++) {
		KdIrNode *x = item(ty, i);
		b.dims[i] = x->ival;
		if (x->ival < 1 || x->ival > ((int64_t)1 << 40) / n) {
			kd_error(r->d, x->sp, "dimension %lld out of range", (long long)x->ival);
			b.dims[i] = 1;
		}
		n *= b.dims[i];
	}
	if (!b.dt)
		b.dt = KD_U8;
	for (int i = 0; i < f->nbuf; i++)
		if (!strcmp(f->buf[i].name, name)) {
			kd_error(r->d, at, "buffer '@%s' defined twice", name);
			r->fbad = 1;
		}
	return kd_buf_new(r->a, f, b);
}

/* Neuron tile info: what the type and allocation call said is in the
 * attributes (print.c's tile_attrs), the rest follows from the dims as in
 * kd_build_tile_info. */
static void tile_info(KdIrRead *r, KdBuffer *b, KdIrNode *attrs)
{
	KdTileInfo *t = kd_alloc(r->a, sizeof *t);
	KdIrNode *mod = NULL;
	if (kd_spaces[b->space].partitions && b->dims[0] > (int64_t)kd_spaces[b->space].partitions)
		kd_error(r->d, b->span, "dim 0 of a tile in %s is the partition dim: at most %u, got %lld",
		         kd_spaces[b->space].name, kd_spaces[b->space].partitions, (long long)b->dims[0]);
	t->nparts = b->dims[0];
	t->nfree = 1;
	for (int i = 1; i < b->rank; i++)
		t->nfree *= b->dims[i];
	t->pbytes = t->nfree * kd_dtypes[b->dt].size;
	t->nblocks = t->nphys = 1;
	t->alloc_span = b->span;
	for (int i = 0; attrs && i < attrs->l.n; i++) {
		KdIrNode *x = item(attrs, i), *v = x->a;
		if (!strcmp(x->str, "blocks") && v->kind == IRN_LIST) {
			if (v->l.n > KD_MAXRANK) {
				kd_error(r->d, v->sp, "too many block dims");
				continue;
			}
			t->nbdim = v->l.n;
			for (int k = 0; k < v->l.n; k++) {
				t->bdims[k] = item(v, k)->ival;
				if (t->bdims[k] < 1 || t->bdims[k] > 4096) {
					kd_error(r->d, item(v, k)->sp, "block count out of range");
					t->bdims[k] = 1;
				}
			}
		} else if (!strcmp(x->str, "alloc") && v->kind == IR_IDENT &&
		           (!strcmp(v->str, "mod") || !strcmp(v->str, "direct"))) {
			t->alloc = !strcmp(v->str, "mod") ? KD_ALLOC_MOD : KD_ALLOC_DIRECT;
		} else if (!strcmp(x->str, "mod") && v->kind == IRN_LIST) {
			mod = v;
		} else if (!strcmp(x->str, "base") && v->kind == IR_INT) {
			t->base = v->ival;
		} else if (strcmp(x->str, "at")) {
			kd_error(r->d, x->sp, "unknown buffer attribute '%s'", x->str);
		}
	}
	/* sema's limits on mod_alloc's base_bank / base_addr */
	int64_t maxbase = b->space == KD_SP_PSUM ? KD_PSUM_BANKS - 1 : (int64_t)kd_spaces[b->space].capacity;
	if (t->base < 0 || t->base > maxbase) {
		kd_error(r->d, b->span, "base=%lld out of range (0..%lld)", (long long)t->base,
		         (long long)maxbase);
		t->base = 0;
	}
	if (mod && (t->alloc != KD_ALLOC_MOD || mod->l.n != t->nbdim))
		kd_error(r->d, mod->sp, "mod= needs alloc=mod and one entry per block dim");
	for (int i = 0; i < t->nbdim; i++) {
		t->nblocks *= t->bdims[i];
		t->bmod[i] = t->alloc != KD_ALLOC_MOD ? t->bdims[i]
		           : mod && i < mod->l.n ? item(mod, i)->ival : 1;
		if (t->bmod[i] < 1 || t->bmod[i] > 4096) {
			kd_error(r->d, mod ? mod->sp : b->span, "mod entry out of range");
			t->bmod[i] = 1;
		}
		t->nphys *= t->bmod[i];
	}
	t->stride = b->space == KD_SP_PSUM ? KD_PSUM_BANK_BYTES : t->pbytes;
	b->tile = t;
}

static void param_buffers(KdIrRead *r)
{
	KdFunc *f = r->f;
	for (int i = 0; i < f->nparam; i++) {
		if (f->params[i].buf != -2)
			continue;
		KdIrNode *p = item(r->fparams, i);
		f->params[i].buf = declare(r, p->str, p->sp, p->a, i);
		f->params[i].dt = f->buf[f->params[i].buf].dt;
		if (r->m->target == KD_TARGET_NEURON)
			tile_info(r, &f->buf[f->params[i].buf], NULL);
	}
}

void kd_irr_buffer(KdIrRead *r, KdIrTok kw, KdIrTok name, KdIrNode *ty, KdIrNode *attrs)
{
	if (!r->f) {
		kd_error(r->d, kw.sp, "'buffer' outside a function");
		return;
	}
	if (r->blocks.n) {
		kd_error(r->d, kw.sp, "'buffer' after the first block");
		return;
	}
	param_buffers(r);
	int k = declare(r, name.str, name.sp, ty, -1);
	KdBuffer *b = &r->f->buf[k];
	for (int i = 0; i < attrs->l.n; i++) {
		KdIrNode *x = item(attrs, i);
		if (!strcmp(x->str, "at") && x->a->kind == IR_INT)
			b->addr = x->a->ival;   /* placement assigns it again */
		else if (r->m->target != KD_TARGET_NEURON)
			kd_error(r->d, x->sp, "unknown buffer attribute '%s'", x->str);
	}
	if (r->m->target == KD_TARGET_NEURON)
		tile_info(r, b, attrs);
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
	RawBlock *b = kd_alloc(r->a, sizeof *b);
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
	RawIns *in = kd_alloc(r->a, sizeof *in);
	in->res = res;
	in->op = op;
	in->args = args;
	in->ty = ty;
	in->trail = trail;
	in->blk = r->blocks.n - 1;
	KdSpan end = args->l.n ? item(args, args->l.n - 1)->sp : op.sp;
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

/* The value an operand names; a new constant for a literal.  Reports and
 * returns a placeholder constant for anything it cannot resolve. */
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
				return kd_val_const(r->a, f, 0);
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
	return kd_val_const(r->a, f, 0);
}

static const KdOpDesc *op_lookup(KdTarget t, const char *name, int *op)
{
	for (int i = 0; i < KD_NOP; i++)
		/* the generic ops after ret (vsplat, vmask) are aipu's */
		if ((kd_ops[i].target == t || (kd_ops[i].target == KD_TARGET_NONE &&
		                                (i <= OP_RET || t == KD_TARGET_AIPU))) &&
		    !strcmp(kd_ops[i].name, name) && i != OP_PLUS_UNUSED) {
			*op = i;
			return &kd_ops[i];
		}
	return NULL;
}

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

/* The operand kinds of a target op that reads or writes memory, against
 * the op table (the verifier's rule, with a message for people). */
static int kind_ok(const KdOpParam *p, KdValType t)
{
	switch (p->kind) {
	case PK_TENSOR: return t == VT_REF;
	case PK_INT: return t == VT_INT;
	case PK_NUM: return t == VT_INT || t == VT_FLOAT;
	case PK_VEC: return t == VT_VEC;
	case PK_MASK: return t == VT_MASK;
	case PK_BOOL: return t == VT_INT || t == VT_BOOL;
	case PK_DTYPE: return t == VT_INT;
	case PK_LIST: return t == VT_LIST;
	case PK_TILE_OR_NUM: return t == VT_REF || t == VT_INT || t == VT_FLOAT;
	default: return t == (p->enums ? VT_INT : VT_STR);
	}
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
	default: return t != VT_REF && t != VT_STR && t != VT_LIST;
	}
}

static const char *const kind_names[] = {"tensor", "integer", "number", "string", "vector",
                                         "mask", "tuple", "bool", "dtype", "list",
                                         "tensor or number"};

/* Operand count of the generic ops (-1: any); the target ops follow the table. */
static int generic_arity(int op, int *nbuf, int *nsucc, int *res)
{
	*nbuf = op == OP_VIEW || op == OP_TILE;
	*nsucc = op == OP_JMP ? 1 : op == OP_BR ? 2 : 0;
	*res = op < OP_JMP || op > OP_RET;
	if (op == OP_VSPLAT)
		return 1;
	if (op <= OP_LOR)
		return 2;
	switch (op) {
	case OP_NEG: case OP_NOT: case OP_CAST: case OP_VIEW: return 1;
	case OP_TILE: return TA_N;
	case OP_LIST: case OP_VMASKLIT: return -1;
	case OP_BR: return 1;
	default: return 0;
	}
}

typedef struct {
	int op;
	int buf;                 /* view/tile: the buffer */
	KdVal ty;                /* the result type */
} Decoded;

/* Checks one instruction's shape; 0 when it can be built. */
static int decode(KdIrRead *r, RawIns *ri, Decoded *dc)
{
	KdFunc *f = r->f;
	char *name = kd_strdup(r->a, ri->op.str), *dot = strchr(name, '.');
	if (dot)
		*dot = 0;
	const KdOpDesc *d = op_lookup(r->m->target, name, &dc->op);
	if (!d || (dot && dc->op != OP_CAST)) {
		kd_error(r->d, ri->op.sp, "unknown op '%s' for target %s", ri->op.str,
		         kd_target_names[r->m->target]);
		return -1;
	}
	int nbuf = 0, nsucc = 0, wantres = 0, nval = 0, gsucc = 0, bad = 0;
	int arity = d->target ? -2 : generic_arity(dc->op, &nbuf, &nsucc, &wantres);
	for (int i = 0; i < ri->args->l.n; i++) {
		KdIrNode *x = item(ri->args, i);
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
		KdIrNode *x = ri->args->l.n ? item(ri->args, 0) : NULL;
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
		int opt = d->target == KD_TARGET_AIPU && (d->param[d->nparam - 1].flags & PF_OPT);
		if (nval != d->nparam && !(opt && nval == d->nparam - 1)) {
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
	if (d->target && d->kind == OK_EFFECT && ri->res) {
		kd_error(r->d, ri->res->sp, "%s has no result", d->name);
		return -1;
	}
	if (!d->target && !wantres && ri->res) {
		kd_error(r->d, ri->res->sp, "%s has no result", d->name);
		return -1;
	}
	if (((!d->target && wantres) || (d->target && d->kind == OK_PURE)) && !ri->res) {
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
		dc->ty.buf = -1;
	}
	return 0;
}

/* Applies `; L:C, name X` to instruction k. */
static void ins_trail(KdIrRead *r, RawIns *ri, KdIns *in)
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
		KdIrNode *x = item(t, i);
		if (x->kind == IRN_TNAME && !strcmp(x->str, "name") && in->res >= 0)
			r->f->val[in->res].name = x->a->str;
		else
			kd_error(r->d, x->sp, "unknown annotation (an instruction takes 'name X' for its result)");
	}
}

static void block_trail(KdIrRead *r, int bi, RawBlock *rb)
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
		KdIrNode *x = item(t, i);
		int p = -1;
		if (x->kind != IRN_TNAME)
			for (int k = 0; k < bl->nparam; k++)
				if (bl->params[k] == x->ival)
					p = k;
		if (x->kind == IRN_TPNAME && !strcmp(x->str, "name") && p >= 0) {
			f->val[x->ival].name = x->a->str;
		} else if (x->kind == IRN_TLOOP && !strcmp(x->str, "loop") && p >= 0 && !bl->loop &&
		           !strcmp(item(x, 0)->str, "in") && !strcmp(item(x, 1)->str, "step")) {
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

static void build_ins(KdIrRead *r, RawIns *ri)
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
		KdIrNode *x = item(ri->args, i);
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
			sa[i] = value(r, item(succ[s], i));
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
static void check_kinds(KdIrRead *r)
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
				if (!(d->kind == OK_PURE ? aipu_kind_ok : kind_ok)(&d->param[k],
				                                                  f->val[in->args[k]].type))
					kd_error(r->d, in->argspan[k], "%s: operand %d ('%s') must be a %s, got %s",
					         d->name, k + 1, d->param[k].name, kind_names[d->param[k].kind],
					         type_str(r, &f->val[in->args[k]]));
		} else if (in->op <= OP_LOR || in->op == OP_NEG) {
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
static void mark_written(KdFunc *f)
{
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		const KdOpDesc *d = &kd_ops[in->op];
		for (int k = 0; d->target && k < in->nargs && k < d->nparam; k++) {
			const KdVal *v = &f->val[in->args[k]];
			if ((d->param[k].flags & PF_WRITE) && v->type == VT_REF && v->buf >= 0)
				f->buf[v->buf].written = 1;
		}
	}
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
		RawBlock *rb = r->blocks.v[b];
		for (int i = 0; i < rb->params->l.n; i++)
			if (item(rb->params, i)->ival > max)
				max = item(rb->params, i)->ival;
	}
	for (int i = 0; i < r->ins.n; i++) {
		RawIns *ri = r->ins.v[i];
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
		RawBlock *rb = r->blocks.v[b];
		int bi = kd_block_new(r->a, f, NULL);
		KdBlock *bl = f->blk[bi];
		bl->params = kd_alloc(r->a, sizeof *bl->params * ((size_t)rb->params->l.n + 1));
		for (int i = 0; i < rb->params->l.n; i++) {
			KdIrNode *p = item(rb->params, i);
			KdVal v = {.kind = VK_BARG, .def = bi, .index = i, .buf = -1};
			if (kd_ir_parse_type(p->a->str, &v) < 0 || v.type == VT_REF) {
				kd_error(r->d, p->a->sp, "unknown type '%s'", p->a->str);
				v.type = VT_INT, v.dt = KD_I64;
			}
			define(r, p->ival, p->sp);
			f->val[p->ival] = v;
			bl->params[bl->nparam++] = (int)p->ival;
		}
	}
	for (int i = 0; i < r->ins.n; i++) {
		RawIns *ri = r->ins.v[i];
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
		has[((RawIns *)r->ins.v[i])->blk] = 1;
	for (int b = 0; b < r->blocks.n; b++)
		if (!has[b])
			kd_error(r->d, ((RawBlock *)r->blocks.v[b])->sp, "block bb%d has no instructions", b);
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
	check_kinds(r);
	mark_written(f);
	if (r->d->nerror == nerr)
		kd_module_add(r->a, r->m, f);
}

void kd_irr_end(KdIrRead *r, KdIrTok brace)
{
	if (!r->f) {
		kd_error(r->d, brace.sp, "'}' outside a function");
		return;
	}
	param_buffers(r);
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
