/* lower.c: lowers the checked AST to SSA.  Control flow is structured, so
 * SSA form comes directly: an environment maps each scalar symbol to its
 * current value, loop headers and if-joins take block parameters for the
 * vars assigned inside them, and nothing needs a later renaming pass. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "frontend_target.h"

typedef struct {
	KdArena *a;
	KdDiag *d;
	KdModule *m;
	const KdFrontendTarget *tg;
	KdFunc *f;
	int cur;           /* current block, -1 after a return */
	int *env;          /* symbol slot -> current value */
	int nslot, capslot;
	KdSym **slotsym;
	unsigned char *mark;   /* per slot, all zero between uses (collect) */
	int *found, nfound, capfound;
	int nscope, scope;   /* scopes opened so far in the kernel, the current one (0: the kernel's) */
	struct ConstSlot *cs;   /* the kernel's literal constants (interned()) */
	int ncs, capcs;
	KdArena *tree;     /* the syntax tree's, given back as it is passed (NULL: kept) */
} Build;

static int slot_of(Build *b, KdSym *y)
{
	if (y->slot > 0)
		return y->slot - 1;
	if (b->nslot == b->capslot) {
		int cap = b->capslot ? b->capslot * 2 : 32;
		int *e = kd_alloc(b->a, sizeof *e * (size_t)cap);
		KdSym **s = kd_alloc(b->a, sizeof *s * (size_t)cap);
		if (b->nslot) {
			memcpy(e, b->env, sizeof *e * (size_t)b->nslot);
			memcpy(s, b->slotsym, sizeof *s * (size_t)b->nslot);
		}
		unsigned char *mk = kd_alloc(b->a, (size_t)cap);
		memset(mk, 0, (size_t)cap);
		b->env = e;
		b->slotsym = s;
		b->mark = mk;
		b->capslot = cap;
	}
	b->slotsym[b->nslot] = y;
	b->env[b->nslot] = -1;
	y->slot = ++b->nslot;
	return y->slot - 1;
}

/* The switches have no default, so an operator added to ast.h without
 * its op fails to compile (-Wswitch); the end is unreachable. */
KdOp kd_binop_op(KdBinop b)
{
	switch (b) {
	case B_ADD: return OP_ADD;
	case B_SUB: return OP_SUB;
	case B_MUL: return OP_MUL;
	case B_DIV: return OP_DIV;
	case B_REM: return OP_REM;
	case B_SHL: return OP_SHL;
	case B_SHR: return OP_SHR;
	case B_AND: return OP_AND;
	case B_OR: return OP_OR;
	case B_XOR: return OP_XOR;
	case B_EQ: return OP_EQ;
	case B_NE: return OP_NE;
	case B_LT: return OP_LT;
	case B_LE: return OP_LE;
	case B_GT: return OP_GT;
	case B_GE: return OP_GE;
	case B_LAND: return OP_LAND;
	case B_LOR: return OP_LOR;
	case B_NBINOP: break;
	}
	fprintf(stderr, "kdslc: internal error: lower: binary operator %d has no op\n", (int)b);
	abort();
}

KdOp kd_unop_op(KdUnop u)
{
	switch (u) {
	case U_NEG: return OP_NEG;
	case U_NOT: return OP_NOT;
	case U_PLUS: case U_BITNOT: case U_NUNOP: break;
	}
	fprintf(stderr, "kdslc: internal error: lower: unary operator %d has no op\n", (int)u);
	abort();
}

static KdValType vtype(const KdType *t)
{
	switch (t->kind) {
	case TY_FLOAT: return VT_FLOAT;
	case TY_BOOL: return VT_BOOL;
	case TY_STR: return VT_STR;
	case TY_TENSOR: return VT_REF;
	case TY_VEC: return VT_VEC;
	case TY_MASK: return VT_MASK;
	default: return VT_INT;
	}
}

static int emit(Build *b, KdOp op, int nargs, const int *args, const KdSpan *spans, KdSpan at,
                KdValType rty, KdDtype dt, const char *name)
{
	int i = kd_ins_add(b->a, b->f, b->cur, op, nargs, args, spans, at);
	return kd_ins_result(b->a, b->f, i, rty, dt, -1, name);
}

static int expr(Build *b, KdNode *n);

/* Converts an integer or bool value to a float one where arithmetic mixes them. */
static int to_float(Build *b, int v, KdSpan at)
{
	if (b->f->val[v].type == VT_FLOAT)
		return v;
	if (b->f->val[v].kind == VK_CONST)
		return kd_val_fconst(b->a, b->f, (double)b->f->val[v].c);
	return emit(b, OP_CAST, 1, &v, NULL, at, VT_FLOAT, KD_DT_NONE, NULL);
}

/* One IR value per distinct literal constant of a kernel: a long kernel
 * writes the same few numbers millions of times, and a value for each
 * was a sixth of its IR.  Nothing changes a constant once it is made, so
 * its uses may share it.  Open addressing over (what, bits); val is the
 * value id plus one (0: free), so the arena's zeroed memory is empty. */
struct ConstSlot {
	uint64_t bits;   /* c, or f's bits (-0.0 and each NaN their own) */
	int what;        /* the value's type and dtype */
	int val;
};

static uint32_t const_hash(uint64_t bits, int what)
{
	uint64_t h = (bits ^ (uint64_t)what * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu;
	return (uint32_t)(h >> 32);
}

/* The slot of (bits, what): its value's, or the free one it would take. */
static struct ConstSlot *const_slot(struct ConstSlot *t, int cap, uint64_t bits, int what)
{
	uint32_t i = const_hash(bits, what) & (uint32_t)(cap - 1);
	while (t[i].val && (t[i].bits != bits || t[i].what != what))
		i = (i + 1) & (uint32_t)(cap - 1);
	return &t[i];
}

/* The id of the kernel's value for constant (type, dt, bits), or -1 when
 * it has none yet: then the table gives the constant the id of the next
 * value made, which the caller must make at once. */
static int interned(Build *b, KdValType type, KdDtype dt, uint64_t bits)
{
	int what = (int)type * 256 + (int)dt;
	if (2 * (b->ncs + 1) > b->capcs) {   /* at most half full */
		int cap = b->capcs ? 2 * b->capcs : 256;
		struct ConstSlot *t = kd_alloc(b->a, sizeof *t * (size_t)cap);
		for (int i = 0; i < b->capcs; i++)
			if (b->cs[i].val)
				*const_slot(t, cap, b->cs[i].bits, b->cs[i].what) = b->cs[i];
		b->cs = t;
		b->capcs = cap;
	}
	struct ConstSlot *sl = const_slot(b->cs, b->capcs, bits, what);
	if (sl->val)
		return sl->val - 1;
	*sl = (struct ConstSlot){bits, what, b->f->nval + 1};
	b->ncs++;
	return -1;
}

static int constant(Build *b, KdNode *n)
{
	KdFunc *f = b->f;
	int v;
	switch (n->ty->kind) {
	case TY_FLOAT: {
		uint64_t bits;
		memcpy(&bits, &n->fcval, sizeof bits);
		if ((v = interned(b, VT_FLOAT, KD_DT_NONE, bits)) < 0)
			v = kd_val_fconst(b->a, f, n->fcval);
		return v;
	}
	case TY_BOOL:
		if ((v = interned(b, VT_BOOL, KD_BOOL, (uint64_t)!!n->cval)) < 0)
			v = kd_val_bool(b->a, f, (int)n->cval);
		return v;
	case TY_STR: return kd_val_str(b->a, f, n->name);
	default: {
		KdDtype dt = n->ty->dt ? n->ty->dt : KD_I64;
		if ((v = interned(b, VT_INT, dt, (uint64_t)n->cval)) < 0) {
			v = kd_val_const(b->a, f, n->cval);
			f->val[v].dt = dt;
		}
		return v;
	}
	}
}

static int expr_cb(void *b, KdNode *n)
{
	return expr(b, n);
}

/* What the target's lowering hooks see: they emit into the current block. */
static KdLowerCtx lower_ctx(Build *b)
{
	KdLowerCtx lc = {b->a, b->d, b->f, b->cur, expr_cb, b};
	return lc;
}

/* Index k of a tuple index on t: a constant as it is (sema checked it
 * against its dim), any other value through a dim_index, whose rule the
 * checker applies over the trips that run and the runtime otherwise, so
 * a column past its row never lands in the next row. */
static int dim_index(Build *b, const KdBuffer *t, KdNode *n, int k)
{
	KdNode *x = n->list.v[k];
	int v = expr(b, x);
	if (n->list.n == 1 || x->is_const)
		return v;
	int args[DIM_INDEX_N] = {
		[DIM_INDEX_IDX] = v,
		[DIM_INDEX_EXTENT] = kd_val_const(b->a, b->f, t->dims[k]),
		[DIM_INDEX_DIM] = kd_val_const(b->a, b->f, k),
		[DIM_INDEX_NAME] = kd_val_str(b->a, b->f, t->name),
	};
	KdSpan sp[DIM_INDEX_N] = {x->span, x->span, x->span, x->span};
	return emit(b, OP_DIM_INDEX, DIM_INDEX_N, args, sp, x->span, VT_INT, KD_I64, NULL);
}

/* The element offset of t[i0, ..., ik] (sema allowed one flat index or
 * one per dim): row-major, ((i0 * d1 + i1) * d2 + i2)...; one index is
 * already flat. */
static int flat_offset(Build *b, int buf, KdNode *n)
{
	const KdBuffer *t = &b->f->buf[buf];
	int off = dim_index(b, t, n, 0);
	for (int k = 1; k < n->list.n; k++) {
		KdNode *x = n->list.v[k];
		int mul[2] = {off, kd_val_const(b->a, b->f, t->dims[k])};
		int add[2] = {emit(b, OP_MUL, 2, mul, NULL, x->span, VT_INT, KD_I64, NULL), dim_index(b, t, n, k)};
		off = emit(b, OP_ADD, 2, add, NULL, x->span, VT_INT, KD_I64, NULL);
	}
	return off;
}

/* A tensor operand: a view of a buffer at an element offset. */
static int view(Build *b, KdNode *n)
{
	KdNode *base = n->kind == N_INDEX ? n->a : n;
	KdSym *y = base->sym;
	int buf = y->slot - 1, off;
	if (b->tg->lower_view) {
		KdLowerCtx lc = lower_ctx(b);
		return b->tg->lower_view(&lc, buf, n);
	}
	if (n->kind == N_INDEX)
		off = flat_offset(b, buf, n);
	else
		off = kd_val_const(b->a, b->f, 0);
	int i = kd_ins_add(b->a, b->f, b->cur, OP_VIEW, 1, &off, &n->span, n->span);
	return kd_ins_result(b->a, b->f, i, VT_REF, b->f->buf[buf].dt, buf, NULL);
}

/* An element's value (u[i] outside a tensor operand): elem_read of the
 * view, a scalar of the tensor's dtype.  An effect op, so the passes see
 * it read the buffer and keep it after the writes before it. */
static int elem_read(Build *b, KdNode *n)
{
	int ref = view(b, n);
	KdDtype dt = b->f->val[ref].dt;
	int i = kd_ins_add(b->a, b->f, b->cur, OP_ELEM_READ, 1, &ref, &n->span, n->span);
	return kd_ins_result(b->a, b->f, i, kd_dtypes[dt].is_float ? VT_FLOAT : VT_INT, dt, -1, NULL);
}

/* `u[i] = v;`: v cast to the element's dtype (as `dtype(v)` would), then
 * elem_write of the view. */
static void elem_write(Build *b, KdNode *n)
{
	int v = expr(b, n->b), ref = view(b, n->a);
	KdDtype dt = b->f->val[ref].dt;
	KdValType t = kd_dtypes[dt].is_float ? VT_FLOAT : VT_INT;
	if (b->f->val[v].type != t || b->f->val[v].dt != dt)
		v = emit(b, OP_CAST, 1, &v, &n->b->span, n->b->span, t, dt, NULL);
	int args[ELEM_WRITE_NPARAM] = {[ELEM_WRITE_DST] = ref, [ELEM_WRITE_VALUE] = v};
	KdSpan sp[ELEM_WRITE_NPARAM] = {n->a->span, n->b->span};
	kd_ins_add(b->a, b->f, b->cur, OP_ELEM_WRITE, ELEM_WRITE_NPARAM, args, sp, n->span);
	b->f->buf[b->f->val[ref].buf].written = 1;
}

static int call(Build *b, KdNode *n)
{
	const KdOpDesc *d = n->opdesc;
	int args[KD_MAXPARAM];
	KdSpan spans[KD_MAXPARAM];
	for (int p = 0; p < d->nparam; p++) {
		KdNode *x = n->bound[p];
		spans[p] = x ? x->span : n->span;
		if (!x)
			args[p] = kd_val_const(b->a, b->f, d->param[p].def);
		else if (d->param[p].kind == PK_TENSOR ||
		         (d->param[p].kind == PK_TILE_OR_NUM && x->ty->kind == TY_TENSOR))
			args[p] = view(b, x);
		else if (d->param[p].kind == PK_DTYPE)
			args[p] = kd_val_const(b->a, b->f, x->dtype);
		else if (d->param[p].kind == PK_STR && d->param[p].enums) {
			int k = 0;
			while (strcmp(d->param[p].enums[k], x->name))
				k++;
			args[p] = kd_val_const(b->a, b->f, k);
		} else if (d->param[p].kind == PK_LIST ||
		           (d->param[p].kind == PK_INT_OR_LIST && x->ty->kind == TY_LIST)) {
			int *el = kd_alloc(b->a, sizeof *el * ((size_t)x->list.n + 1));
			KdSpan *sp = kd_alloc(b->a, sizeof *sp * ((size_t)x->list.n + 1));
			for (int e = 0; e < x->list.n; e++) {
				el[e] = expr(b, x->list.v[e]);
				sp[e] = ((KdNode *)x->list.v[e])->span;
			}
			args[p] = emit(b, OP_LIST, x->list.n, el, sp, x->span, VT_LIST, KD_I64, NULL);
		} else
			args[p] = expr(b, x);
	}
	kd_ins_add(b->a, b->f, b->cur, (KdOp)(d - kd_ops), d->nparam, args, spans, n->span);
	for (int p = 0; p < d->nparam; p++)
		if (kd_param_writes(d, p) && b->f->val[args[p]].type == VT_REF)
			b->f->buf[b->f->val[args[p]].buf].written = 1;
	return -1;
}

static int expr(Build *b, KdNode *n)
{
	if (n->is_const && n->ty->kind != TY_TENSOR)
		return constant(b, n);
	switch (n->kind) {
	case N_IDENT: {
		KdSym *y = n->sym;
		int sl = slot_of(b, y);
		return b->env[sl];
	}
	case N_BINARY: {
		if (n->ty->kind == TY_VEC || n->ty->kind == TY_MASK) {
			KdLowerCtx lc = lower_ctx(b);
			return b->tg->lower_vec_binary(&lc, n);
		}
		int l = expr(b, n->a), r = expr(b, n->b);
		KdValType t = vtype(n->ty);
		if (t == VT_FLOAT || (t == VT_BOOL && (b->f->val[l].type == VT_FLOAT ||
		                                       b->f->val[r].type == VT_FLOAT))) {
			l = to_float(b, l, n->a->span);
			r = to_float(b, r, n->b->span);
		}
		int args[2] = {l, r};
		KdSpan spans[2] = {n->a->span, n->b->span};
		return emit(b, kd_binop_op((KdBinop)n->op), 2, args, spans, n->span, t,
		            t == VT_FLOAT ? KD_DT_NONE : t == VT_BOOL ? KD_BOOL : KD_I64, NULL);
	}
	case N_UNARY: {
		if (n->ty->kind == TY_VEC || n->ty->kind == TY_MASK) {
			KdLowerCtx lc = lower_ctx(b);
			return b->tg->lower_vec_unary(&lc, n);
		}
		int v = expr(b, n->a);
		if (n->op == U_PLUS)
			return v;
		if (n->op == U_BITNOT) {
			/* ~x is x ^ -1: no op of its own */
			int args[2] = {v, kd_val_const(b->a, b->f, -1)};
			KdSpan spans[2] = {n->a->span, n->span};
			return emit(b, OP_XOR, 2, args, spans, n->span, vtype(n->ty), b->f->val[v].dt, NULL);
		}
		return emit(b, kd_unop_op((KdUnop)n->op), 1, &v, &n->a->span, n->span,
		            vtype(n->ty), n->op == U_NOT ? KD_BOOL : b->f->val[v].dt, NULL);
	}
	case N_CAST: {
		int v = expr(b, n->list.v[0]);
		return emit(b, OP_CAST, 1, &v, &n->span, n->span, vtype(n->ty), n->ty->dt, NULL);
	}
	case N_INDEX:
		/* an element's value; sema made every other index a tensor operand */
		if (n->flags & KD_INDEX_ELEM)
			return elem_read(b, n);
		return kd_val_const(b->a, b->f, 0);
	case N_CALL:
		if (b->tg->lower_call) {
			KdLowerCtx lc = lower_ctx(b);
			return b->tg->lower_call(&lc, n);
		}
		return call(b, n);
	default:
		/* sema rejected everything else before lowering */
		return kd_val_const(b->a, b->f, 0);
	}
}

/* ---- statements ---- */

static void stmt(Build *b, KdNode *n);

static void body(Build *b, KdNode *n)
{
	if (n->kind != N_BLOCK) {
		stmt(b, n);
		return;
	}
	for (int i = 0; i < n->list.n && b->cur >= 0; i++)
		stmt(b, n->list.v[i]);
}

/* A block that opens a scope (a loop body, an if arm, { }): with the
 * target's scoped buffers, the buffers it declares live from scope s to
 * the last scope opened inside it (KdBuffer.live_lo/live_hi). */
static void scoped_body(Build *b, KdNode *n)
{
	if (!b->tg->scoped_buffers || !n) {
		if (n)
			body(b, n);
		return;
	}
	int outer = b->scope, first = b->f->nbuf;
	b->scope = ++b->nscope;
	body(b, n);
	for (int i = first; i < b->f->nbuf; i++)
		if (b->f->buf[i].live_lo == b->scope)
			b->f->buf[i].live_hi = b->nscope;
	b->scope = outer;
}

/* The vars declared before `n` that `n` assigns: they become block params. */
/* The slots below limit that n assigns, each once, in b->found. */
static void assigned(Build *b, KdNode *n, int limit)
{
	/* skipped: assigns nothing; a leaf has no operands */
	if (!n || (n->flags & KD_STMT_BAD) || kd_node_is_leaf(n->kind))
		return;
	if (n->kind == N_ASSIGN && n->sym && n->sym->slot > 0 && n->sym->slot - 1 < limit &&
	    !b->mark[n->sym->slot - 1]) {
		b->mark[n->sym->slot - 1] = 1;
		if (b->nfound == b->capfound) {
			int cap = b->capfound ? b->capfound * 2 : 16;
			int *f = kd_alloc(b->a, sizeof *f * (size_t)cap);
			if (b->nfound)
				memcpy(f, b->found, sizeof *f * (size_t)b->nfound);
			b->found = f;
			b->capfound = cap;
		}
		b->found[b->nfound++] = n->sym->slot - 1;
	}
	assigned(b, n->a, limit);
	assigned(b, n->b, limit);
	if (kd_node_shape(n->kind) == KD_SHAPE_PAIR)
		return;
	assigned(b, n->c, limit);
	assigned(b, n->d, limit);
	for (int i = 0; i < n->list.n; i++)
		assigned(b, n->list.v[i], limit);
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, c = *(const int *)y;
	return (a > c) - (a < c);
}

/* The slots a loop or if assigns, ascending.  Memory and time follow the
 * slots found, not the kernel's slot count: a long kernel has a slot per
 * loop variable, and an array of them per loop was quadratic. */
static int *collect(Build *b, KdNode *n, int *count)
{
	b->nfound = 0;
	assigned(b, n, b->nslot);
	int k = b->nfound;
	int *slots = kd_alloc(b->a, sizeof *slots * ((size_t)k + 1));
	if (k)
		memcpy(slots, b->found, sizeof *slots * (size_t)k);
	qsort(slots, (size_t)k, sizeof *slots, cmp_int);
	for (int i = 0; i < k; i++)
		b->mark[slots[i]] = 0;
	*count = k;
	return slots;
}

static int *env_args(Build *b, const int *slots, int k)
{
	int *args = kd_alloc(b->a, sizeof *args * ((size_t)k + 1));
	for (int i = 0; i < k; i++)
		args[i] = b->env[slots[i]];
	return args;
}

static void for_stmt(Build *b, KdNode *n)
{
	KdFunc *f = b->f;
	int lo = expr(b, n->a), hi = expr(b, n->b);
	int64_t step = n->c ? n->c->cval : 1;
	/* A loop that never runs is dropped, and with it any rule it breaks. */
	if (n->a->is_const && n->b->is_const && n->a->cval >= n->b->cval)
		return;
	int k;
	int *slots = collect(b, n->d, &k);
	int head = kd_block_new(b->a, f, kd_fmt(b->a, "for_%s", n->name));
	int bodyb = kd_block_new(b->a, f, kd_fmt(b->a, "for_%s_body", n->name));
	int ivslot = slot_of(b, n->sym);
	int *init = kd_alloc(b->a, sizeof *init * ((size_t)k + 2));
	init[0] = lo;
	for (int i = 0; i < k; i++)
		init[i + 1] = b->env[slots[i]];
	int j = kd_ins_add(b->a, f, b->cur, OP_JMP, 0, NULL, NULL, n->span);
	kd_ins_succ(b->a, f, j, 0, head, k + 1, init);

	int iv = kd_block_param(b->a, f, head, VT_INT, KD_I64, n->name);
	for (int i = 0; i < k; i++) {
		KdSym *y = b->slotsym[slots[i]];
		int was = b->env[slots[i]];
		b->env[slots[i]] = kd_block_param(b->a, f, head, b->f->val[b->env[slots[i]]].type,
		                                  b->f->val[b->env[slots[i]]].dt, y->name);
		f->val[b->env[slots[i]]].lanes = f->val[was].lanes;
	}
	KdLoop *lp = kd_alloc(b->a, sizeof *lp);
	*lp = (KdLoop){iv, lo, hi, step, n->span};
	f->blk[head]->loop = lp;
	b->cur = head;
	int cargs[2] = {iv, hi};
	KdSpan cspans[2] = {n->name_span, n->b->span};
	int cond = emit(b, OP_LT, 2, cargs, cspans, n->span, VT_BOOL, KD_BOOL, NULL);
	int br = kd_ins_add(b->a, f, head, OP_BR, 1, &cond, NULL, n->span);
	kd_ins_succ(b->a, f, br, 0, bodyb, 0, NULL);
	int *at_head = env_args(b, slots, k);

	b->cur = bodyb;
	b->env[ivslot] = iv;
	scoped_body(b, n->d);
	if (b->cur >= 0) {
		int sv = kd_val_const(b->a, f, step);
		int nargs[2] = {iv, sv};
		int next = emit(b, OP_ADD, 2, nargs, NULL, n->span, VT_INT, KD_I64, n->name);
		int *back = kd_alloc(b->a, sizeof *back * ((size_t)k + 2));
		back[0] = next;
		for (int i = 0; i < k; i++)
			back[i + 1] = b->env[slots[i]];
		j = kd_ins_add(b->a, f, b->cur, OP_JMP, 0, NULL, NULL, n->span);
		kd_ins_succ(b->a, f, j, 0, head, k + 1, back);
	}
	/* The exit block comes after the body, so blocks print in source order. */
	int exit = kd_block_new(b->a, f, kd_fmt(b->a, "for_%s_end", n->name));
	kd_ins_succ(b->a, f, br, 1, exit, 0, NULL);
	/* After the loop the vars hold what the header last saw. */
	for (int i = 0; i < k; i++)
		b->env[slots[i]] = at_head[i];
	b->cur = exit;
}

static void if_stmt(Build *b, KdNode *n)
{
	KdFunc *f = b->f;
	if (n->a->is_const) {
		KdNode *taken = n->a->cval ? n->b : n->c;
		if (taken)
			scoped_body(b, taken);
		return;
	}
	int cond = expr(b, n->a);
	int k;
	int *slots = collect(b, n, &k);
	int *before = env_args(b, slots, k);
	int thenb = kd_block_new(b->a, f, "if_then");
	int br = kd_ins_add(b->a, f, b->cur, OP_BR, 1, &cond, &n->a->span, n->span);
	kd_ins_succ(b->a, f, br, 0, thenb, 0, NULL);
	/* Jumps to the join are patched once it exists, after both arms. */
	int pending[2], npending = 0;
	int *penv[2];
	b->cur = thenb;
	scoped_body(b, n->b);
	if (b->cur >= 0) {
		penv[npending] = env_args(b, slots, k);
		pending[npending++] = kd_ins_add(b->a, f, b->cur, OP_JMP, 0, NULL, NULL, n->span);
	}
	int elseb = -1;
	if (n->c) {
		for (int i = 0; i < k; i++)
			b->env[slots[i]] = before[i];
		elseb = kd_block_new(b->a, f, "if_else");
		kd_ins_succ(b->a, f, br, 1, elseb, 0, NULL);
		b->cur = elseb;
		scoped_body(b, n->c);
		if (b->cur >= 0) {
			penv[npending] = env_args(b, slots, k);
			pending[npending++] = kd_ins_add(b->a, f, b->cur, OP_JMP, 0, NULL, NULL, n->span);
		}
	}
	int join = kd_block_new(b->a, f, "if_end");
	if (elseb < 0)
		kd_ins_succ(b->a, f, br, 1, join, k, before);
	for (int i = 0; i < npending; i++)
		kd_ins_succ(b->a, f, pending[i], 0, join, k, penv[i]);
	int reached = elseb < 0 || npending > 0;
	for (int i = 0; i < k; i++) {
		KdSym *y = b->slotsym[slots[i]];
		b->env[slots[i]] = kd_block_param(b->a, f, join, f->val[before[i]].type,
		                                  f->val[before[i]].dt, y->name);
		f->val[b->env[slots[i]]].lanes = f->val[before[i]].lanes;
	}
	b->cur = join;
	if (!reached) {
		/* Both arms return: the join is unreachable; close it. */
		kd_ins_add(b->a, f, join, OP_RET, 0, NULL, NULL, n->span);
		b->cur = -1;
	}
}

/* Lowers a statement; one sema rejected (KD_STMT_BAD) is skipped, so the
 * rule checker sees only what sema accepted. */
static void stmt(Build *b, KdNode *n)
{
	if (n->flags & KD_STMT_BAD)
		return;
	switch (n->kind) {
	case N_BLOCK:
		scoped_body(b, n);
		break;
	case N_LET: {
		KdSym *y = n->sym;
		if (y->kind == SYM_BUF) {
			KdType *t = y->ty;
			KdBuffer buf = {.name = y->name, .space = t->space, .dt = t->dt, .rank = t->rank,
			                .addr = -1, .param = -1, .span = n->name_span, .live_lo = b->scope};
			memcpy(buf.dims, t->dims, sizeof buf.dims[0] * (size_t)t->rank);
			if (b->tg->lower_buffer)
				b->tg->lower_buffer(b->a, &buf, t);
			y->slot = kd_buf_new(b->a, b->f, buf) + 1;
			break;
		}
		int v = expr(b, n->a);
		if (y->ty->kind == TY_FLOAT && b->f->val[v].type != VT_FLOAT)
			v = to_float(b, v, n->a->span);
		int sl = slot_of(b, y);
		b->env[sl] = v;
		if (!b->f->val[v].name)
			b->f->val[v].name = y->name;
		break;
	}
	case N_ASSIGN: {
		int v = expr(b, n->a);
		if (n->sym->ty->kind == TY_FLOAT && b->f->val[v].type != VT_FLOAT)
			v = to_float(b, v, n->a->span);
		int sl = slot_of(b, n->sym);
		b->env[sl] = v;
		break;
	}
	case N_STORE:
		elem_write(b, n);
		break;
	case N_FOR:
		for_stmt(b, n);
		break;
	case N_IF:
		if_stmt(b, n);
		break;
	case N_RETURN:
		kd_ins_add(b->a, b->f, b->cur, OP_RET, 0, NULL, NULL, n->span);
		b->cur = -1;
		break;
	case N_EXPRSTMT:
		expr(b, n->a);
		break;
	case N_LETTUPLE: {
		KdLowerCtx lc = lower_ctx(b);
		int parts[4];
		int k = b->tg->lower_tuple(&lc, n->a, parts, 4);
		for (int i = 0; i < k && i < n->list.n; i++) {
			KdNode *x = n->list.v[i];
			int sl = slot_of(b, x->sym);
			b->env[sl] = parts[i];
			b->f->val[parts[i]].name = x->name;
		}
		break;
	}
	default:
		break;
	}
}

/* Copies list l out of the tree into a, so that giving back the tree's
 * chunks behind a statement leaves the list readable: a list's array is
 * made again each time it doubles, the last time anywhere in the tree. */
static KdNode **list_copy(KdArena *a, const KdNodeList *l)
{
	KdNode **v = kd_alloc(a, sizeof *v * ((size_t)l->n + 1));
	if (l->n)
		memcpy(v, l->v, sizeof *v * (size_t)l->n);
	return v;
}

/* A kernel's body.  Once a statement of it is lowered, nothing reads the
 * nodes made before it (a later statement reaches earlier declarations
 * through their symbols, which live in b->a; a node is made after its
 * children, the parser reducing a statement before it makes any node of
 * the next), so the tree's chunks behind it go back: in a long kernel
 * the tree then shrinks as the IR grows, instead of both being alive
 * at the end of lowering (a million lines: 0.8 GB of tree, 0.45 GB of
 * IR). */
static void kernel_body(Build *b, KdNode *n)
{
	if (!b->tree || n->kind != N_BLOCK) {
		body(b, n);
		return;
	}
	int count = n->list.n;
	KdNode **v = list_copy(b->a, &n->list);
	for (int i = 0; i < count && b->cur >= 0; i++) {
		stmt(b, v[i]);
		kd_arena_release_before(b->tree, v[i]);
	}
}

static KdFunc *kernel(Build *b, KdNode *k, KdTarget t)
{
	KdFunc *f = kd_func_new(b->a, k->name, t, k->span);
	b->f = f;
	b->cs = NULL;   /* constants are per kernel */
	b->ncs = b->capcs = 0;
	b->nslot = 0;
	b->nscope = b->scope = 0;
	f->nparam = k->list.n;
	f->params = kd_alloc(b->a, sizeof *f->params * ((size_t)k->list.n + 1));
	b->cur = kd_block_new(b->a, f, "entry");
	for (int i = 0; i < k->list.n; i++) {
		KdNode *p = k->list.v[i];
		KdType *ty = p->ty;
		struct KdParam *fp = &f->params[i];
		fp->name = p->name;
		fp->dt = ty->dt;
		fp->buf = fp->val = -1;
		if (ty->kind == TY_TENSOR) {
			KdBuffer buf = {.name = p->name, .space = ty->space, .dt = ty->dt, .rank = ty->rank,
			                .addr = 0, .param = i, .span = p->name_span};
			memcpy(buf.dims, ty->dims, sizeof buf.dims[0] * (size_t)ty->rank);
			if (b->tg->lower_buffer)
				b->tg->lower_buffer(b->a, &buf, ty);
			fp->is_tensor = 1;
			fp->buf = kd_buf_new(b->a, f, buf);
			p->sym->slot = fp->buf + 1;
		} else {
			/* a parameter sema rejected stays an integer nothing uses */
			if (ty->kind != TY_INT)
				fp->dt = KD_I64;
			fp->val = kd_val_new(b->a, f, (KdVal){.kind = VK_PARAM, .type = VT_INT, .dt = fp->dt,
			                                      .index = i, .name = p->name, .buf = -1});
			int sl = slot_of(b, p->sym);
			b->env[sl] = fp->val;
		}
	}
	/* k and its body block were made after every statement of it */
	if (k->a)
		kernel_body(b, k->a);
	if (b->cur >= 0)
		kd_ins_add(b->a, f, b->cur, OP_RET, 0, NULL, NULL, k->span);
	return f;
}

KdModule *kd_lower(KdArena *a, KdDiag *d, const KdSource *src, KdNode *file, KdTarget t, KdArena *tree)
{
	KdModule *m = kd_alloc(a, sizeof *m);
	m->target = t;
	m->src = src;
	m->arena = a;
	Build b = {.a = a, .d = d, .m = m, .tg = kd_frontend_target(t), .tree = tree};
	/* the file node is the tree's first: the kernels are read from a copy */
	int count = file->list.n;
	KdNode **v = list_copy(a, &file->list);
	for (int i = 0; i < count; i++) {
		KdNode *k = v[i];
		if (k->kind == N_KERNEL && !(k->flags & KD_KERNEL_BAD))
			kd_module_add(a, m, kernel(&b, k, t));
	}
	return m;
}
