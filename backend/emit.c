/* emit.c: SSA IR to C11.  Every SSA value that needs storage becomes a
 * local declared at the top of the function (so gotos never jump over a
 * declaration), blocks become labels, block parameters are assigned
 * before each jump, and ops call their runtime entry from the op table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_target.h"
#include "ieval.h"

/* The helpers the generated C may call: the integer evaluator's, whose
 * text util/ieval.h holds once for the compiler's folding and for the C,
 * then kd_i64.  Only the used ones are written out, since clang warns
 * about unused static functions. */
enum {
	H_ADD = KD_IH_ADD, H_SUB = KD_IH_SUB, H_MUL = KD_IH_MUL, H_NEG = KD_IH_NEG, H_DIV = KD_IH_DIV,
	H_REM = KD_IH_REM, H_SHL = KD_IH_SHL, H_F2I = KD_IH_F2I, H_I64 = KD_IH_N, H_N
};
/* a narrow scalar param as int64: through a call, gcc's -Wtype-limits
 * no longer judges `n > 3000000000` by n's C type */
static const char i64_def[] = "static inline int64_t kd_i64(int64_t a) { return a; }\n";

static const char *rt_target(KdTarget t)
{
	return kd_target_rt_enums[t];
}

static const char *rt_dtype(KdDtype dt)
{
	return kd_dtypes[dt].rt_enum;
}

typedef struct {
	KdBuf *o;
	KdDiag *d;
	int nerr;          /* ops it could not emit (internal errors) */
	unsigned used;     /* helpers called, bit per H_* */
	const KdModule *m;
	const KdEmitTarget *tg;
	const KdFunc *f;
	int *site;         /* instruction -> index in the kd_site table, or -1 */
	char *live;        /* instruction is in a reachable block (passes may drop some) */
	char *proven;      /* a dim_index needing no run-time check (kd_ir_dim_index_proven) */
	KdBuf *body;       /* the module's C; o is a scratch buffer while an op is written */
	size_t mark_off;   /* where the C after the last #line starts in body */
	int mark_line;     /* the .k line that #line gave it, or -1: unknown (and
	                    * the file name too: the next #line gives it) */
	char *reach, *target;
} Emit;

static void local(Emit *e, int v)
{
	const KdVal *x = &e->f->val[v];
	if (x->name)
		kd_buf_printf(e->o, "kd_%s_%d", x->name, v);
	else
		kd_buf_printf(e->o, "kd_t%d", v);
}

static void val(Emit *e, int v)
{
	const KdVal *x = &e->f->val[v];
	switch (x->kind) {
	case VK_CONST:
		if (x->type == VT_BOOL)
			kd_buf_printf(e->o, "%d", (int)x->c);
		else if (x->c == INT64_MIN)
			kd_buf_puts(e->o, "INT64_MIN");
		else if (x->c > INT32_MAX || x->c < -INT32_MAX)
			kd_buf_printf(e->o, "INT64_C(%lld)", (long long)x->c);
		else
			kd_buf_printf(e->o, "%lld", (long long)x->c);
		break;
	case VK_FCONST:
		if (isnan(x->f))
			kd_buf_puts(e->o, "(HUGE_VAL - HUGE_VAL)");
		else if (isinf(x->f))
			kd_buf_puts(e->o, x->f > 0 ? "HUGE_VAL" : "(-HUGE_VAL)");
		else {
			char tmp[64];
			snprintf(tmp, sizeof tmp, "%.17g", x->f);
			kd_buf_puts(e->o, tmp);
			if (!strpbrk(tmp, ".e"))
				kd_buf_puts(e->o, ".0");
		}
		break;
	case VK_STR: kd_c_string(e->o, x->s); break;
	case VK_PARAM:
		if (kd_dtypes[x->dt].size < 8) {
			e->used |= 1u << H_I64;
			kd_buf_puts(e->o, "kd_i64(");
			kd_c_name(e->o, e->f->params[x->index].name, 'p');
			kd_buf_puts(e->o, ")");
		} else {
			kd_buf_puts(e->o, "(int64_t)");
			kd_c_name(e->o, e->f->params[x->index].name, 'p');
		}
		break;
	default: local(e, v); break;
	}
}

/* The .k line of span at. */
static int kline(const Emit *e, KdSpan at)
{
	int l, c;
	kd_source_linecol(e->m->src, at.off, &l, &c);
	return l;
}

/* The .k line the next line of body will be reported at: each C line
 * after a #line counts one more (-1: unknown, or the generated file's).
 * The mark moves on to the end of body, so each byte is counted once. */
static int cur_line(Emit *e)
{
	if (e->mark_line < 0)
		return -1;
	for (size_t i = e->mark_off; i < e->body->n; i++)
		e->mark_line += e->body->s[i] == '\n';
	e->mark_off = e->body->n;
	return e->mark_line;
}

/* Moves the C in the scratch buffer e->o to the body, every line of it
 * under .k line l: a debugger then finds all of a statement's code, its
 * error return included, at its own line, and nothing of the next
 * statement before the next statement's #line.  A #line goes wherever the
 * running count would give another line. */
static void flush_at(Emit *e, int l)
{
	KdBuf *o = e->o;
	for (size_t i = 0; i < o->n;) {
		const char *nl = memchr(o->s + i, '\n', o->n - i);
		size_t end = nl ? (size_t)(nl - o->s) + 1 : o->n;
		int at = cur_line(e);
		if (at != l) {
			/* The file name holds from the #line that gave it, so only
			 * a #line after an unknown count names it: every other one
			 * is a third as long (a million-line kernel's C has two
			 * million of them). */
			kd_buf_printf(e->body, "#line %d", l);
			if (at < 0) {
				kd_buf_puts(e->body, " ");
				kd_c_string(e->body, e->m->src->path);
			}
			kd_buf_puts(e->body, "\n");
			e->mark_off = e->body->n;
			e->mark_line = l;
		}
		kd_buf_put(e->body, o->s + i, end - i);
		/* After a directive (an aipu op's #if/#else/#endif) the count and
		 * the name are unknown: a group the preprocessor skips skips its
		 * #lines too. */
		if (o->s[i + strspn(o->s + i, " \t")] == '#')
			e->mark_line = -1;
		i = end;
	}
	o->n = 0;
}

static const char *ctype(KdValType t)
{
	return t == VT_FLOAT ? "double" : t == VT_BOOL ? "int" : "int64_t";
}

/* The C type of value v's local (aipu vectors: their struct). */
static void decl_type(Emit *e, int v)
{
	const KdVal *x = &e->f->val[v];
	if (!e->tg->ctype || !e->tg->ctype(e->o, x))
		kd_buf_puts(e->o, ctype(x->type));
}

/* val() for the target's hooks. */
static void val_cb(void *e, int v)
{
	val(e, v);
}

/* What the target's hooks see while instruction in is written. */
static KdEmitCtx hook_ctx(Emit *e, const KdIns *in)
{
	KdEmitCtx c = {e->o, e->d, e->f, e->site[in - e->f->ins], val_cb, e};
	return c;
}

/* Does the target write instruction in whole? */
static int target_ins(const Emit *e, const KdIns *in)
{
	return e->tg->handles && e->tg->handles(e->f, in);
}

static void param_decl(KdBuf *o, const KdFunc *f, const struct KdParam *p, const char *sep)
{
	if (p->is_tensor) {
		const KdBuffer *b = &f->buf[p->buf];
		kd_buf_printf(o, "%s%s%s *", sep, b->written ? "" : "const ", kd_dtypes[b->dt].ctype);
	} else {
		kd_buf_printf(o, "%s%s ", sep, kd_dtypes[p->dt].ctype);
	}
	kd_c_name(o, p->name, 'p');
}

static void prototype(KdBuf *o, const KdFunc *f, const char *rt)
{
	kd_buf_puts(o, "int ");
	kd_c_name(o, f->name, 'k');
	kd_buf_printf(o, "(kdsl_rt *%s", rt);
	for (int i = 0; i < f->nparam; i++)
		param_decl(o, f, &f->params[i], ", ");
	kd_buf_puts(o, ")");
}

/* ---- operands ---- */

/* A tensor operand: the whole buffer, then the byte offset of the view. */
static void ref(Emit *e, int v, int writes)
{
	const KdFunc *f = e->f;
	const KdIns *vi = &f->ins[f->val[v].def];
	const KdBuffer *b = &f->buf[f->val[v].buf];
	kd_buf_printf(e->o, "%s(", writes ? "kdsl_ref_of" : "kdsl_cref_of");
	if (b->param >= 0)
		kd_c_name(e->o, b->name, 'p');
	else
		kd_buf_printf(e->o, "kd_mem_%s + %lld", kd_spaces[b->space].name, (long long)b->addr);
	kd_buf_printf(e->o, ", %lld, %s), ", (long long)b->bytes, kd_spaces[b->space].rt_enum);
	const KdVal *off = &f->val[vi->args[0]];
	int64_t bytes;
	if (off->kind == VK_CONST && off->c < INT32_MAX / 8 && off->c > -INT32_MAX / 8 &&
	    kd_ieval(KD_I_MUL, off->c, kd_dtypes[b->dt].size, &bytes) == KD_IEVAL_OK)
		kd_buf_printf(e->o, "%lld", (long long)bytes);
	else {
		kd_buf_puts(e->o, "kd_mul(");
		e->used |= 1u << H_MUL;
		val(e, vi->args[0]);
		kd_buf_printf(e->o, ", %d)", kd_dtypes[b->dt].size);
	}
}

/* An op this emitter has no C for: a compiler bug, reported. */
static void unhandled(Emit *e, const KdIns *in)
{
	kd_op_unhandled(e->d, in->span, "emit", in->op);
	e->nerr++;
}

static void effect(Emit *e, const KdIns *in)
{
	const KdOpDesc *d = &kd_ops[in->op];
	const KdFunc *f = e->f;
	if (!d->rt) {
		unhandled(e, in);
		return;
	}
	KdEmitCtx hc = hook_ctx(e, in);
	if (e->tg->checks)
		e->tg->checks(&hc, in);
	if (!d->result_of && e->tg->call && e->tg->call(&hc, in))
		return;
	kd_buf_printf(e->o, "\tif ((kd_err = %s(kd_rt, &kd_site[%d]", d->rt, e->site[in - f->ins]);
	/* Typed ops (TIK's vector ops) take their element dtype first
	 * (vec_conv: dst's, then src's). */
	if (d->rt_dtype_of)
		kd_buf_printf(e->o, ", %s", rt_dtype(f->buf[f->val[in->args[d->rt_dtype_of - 1]].buf].dt));
	if (d->rt_dtype2_of)
		kd_buf_printf(e->o, ", %s", rt_dtype(f->buf[f->val[in->args[d->rt_dtype2_of - 1]].buf].dt));
	for (int i = 0; i < in->nargs; i++) {
		const KdOpParam *p = &d->param[i];
		kd_buf_puts(e->o, ", ");
		if (e->tg->arg && e->tg->arg(&hc, p, in->args[i]))
			continue;
		if (p->kind == PK_TENSOR)
			ref(e, in->args[i], kd_mem_writes(p));
		else if (p->kind == PK_NUM && f->val[in->args[i]].type != VT_FLOAT) {
			kd_buf_puts(e->o, "(double)");
			val(e, in->args[i]);
		} else
			val(e, in->args[i]);
	}
	/* an op giving a value fills a kdsl_scalar: its member by the type */
	if (d->result_of)
		kd_buf_puts(e->o, ", &kd_s");
	kd_buf_puts(e->o, ")) != KDSL_OK)\n\t\treturn kd_err;\n");
	if (d->result_of && in->res >= 0) {
		kd_buf_puts(e->o, "\t");
		local(e, in->res);
		kd_buf_printf(e->o, " = kd_s.%c;\n", f->val[in->res].type == VT_FLOAT ? 'f' : 'i');
		/* the op stays for its checks even when nothing reads its value
		 * (-Wunused-but-set-variable otherwise) */
		kd_buf_puts(e->o, "\t(void)");
		local(e, in->res);
		kd_buf_puts(e->o, ";\n");
	}
}

static void cast(Emit *e, const KdIns *in)
{
	const KdVal *r = &e->f->val[in->res], *x = &e->f->val[in->args[0]];
	const KdDtypeInfo *di = &kd_dtypes[r->dt];
	kd_buf_puts(e->o, " = ");
	if (r->type == VT_FLOAT) {
		if (r->dt == KD_F16)
			kd_buf_puts(e->o, "kdsl_h_f16_to_f64(kdsl_h_f64_to_f16(");
		else if (r->dt == KD_BF16)
			kd_buf_puts(e->o, "(double)kdsl_bf16_to_f32(kdsl_f32_to_bf16((float)");
		else if (r->dt == KD_F32)
			kd_buf_puts(e->o, "(double)((float)(");
		else
			kd_buf_puts(e->o, "(double)((");
		val(e, in->args[0]);
		kd_buf_puts(e->o, "))");
	} else if (r->type == VT_BOOL) {
		kd_buf_puts(e->o, "(");
		val(e, in->args[0]);
		kd_buf_puts(e->o, " != 0)");
	} else {
		const char *src = x->type == VT_FLOAT ? "kd_f2i" : "(int64_t)";
		if (x->type == VT_FLOAT)
			e->used |= 1u << H_F2I;
		if (di->size == 8 || r->dt == KD_DT_NONE)
			kd_buf_printf(e->o, "%s(", src);
		else
			kd_buf_printf(e->o, "(int64_t)(%s)(u%s)(uint64_t)%s(", di->ctype,
			              di->is_signed ? di->ctype : di->ctype + 1, src);
		val(e, in->args[0]);
		kd_buf_puts(e->o, ")");
	}
	kd_buf_puts(e->o, ";\n");
}

/* A dim_index: the index, checked against its dim unless the analysis
 * proved it inside at every trip that runs. */
static void dim_index(Emit *e, const KdIns *in)
{
	const KdFunc *f = e->f;
	int x = in->args[DIM_INDEX_IDX];
	int64_t n = f->val[in->args[DIM_INDEX_EXTENT]].c;
	if (!e->proven[in - f->ins]) {
		kd_buf_puts(e->o, "\tif (");
		val(e, x);
		kd_buf_puts(e->o, " < 0 || ");
		val(e, x);
		kd_buf_printf(e->o, " > INT64_C(%lld))\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_RANGE, "
		              "\"index %lld of '%%s' must be in 0..%lld, got %%lld\", ", (long long)(n - 1),
		              e->site[in - f->ins], (long long)f->val[in->args[DIM_INDEX_DIM]].c, (long long)(n - 1));
		kd_c_string(e->o, f->val[in->args[DIM_INDEX_NAME]].s);
		kd_buf_puts(e->o, ", (long long)");
		val(e, x);
		kd_buf_puts(e->o, ");\n");
	}
	kd_buf_puts(e->o, "\t");
	local(e, in->res);
	kd_buf_puts(e->o, " = ");
	val(e, x);
	kd_buf_puts(e->o, ";\n");
}

static void pure(Emit *e, const KdIns *in)
{
	const KdFunc *f = e->f;
	const KdOpDesc *d = &kd_ops[in->op];
	int fl = in->nargs && f->val[in->args[0]].type == VT_FLOAT;
	if (in->op == OP_VIEW || in->op == OP_TILE || in->op == OP_LIST)
		return;
	if (in->op == OP_DIM_INDEX) {
		dim_index(e, in);
		return;
	}
	/* the scalar operators and casts; an aipu op giving a scalar, say,
	 * has no C here */
	if (in->op != OP_CAST && !d->c_op) {
		unhandled(e, in);
		return;
	}
	if ((in->op == OP_DIV || in->op == OP_REM) && !fl) {
		kd_buf_puts(e->o, "\tif (");
		val(e, in->args[1]);
		kd_buf_printf(e->o, " == 0)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_RANGE, "
		              "\"division by zero\");\n", e->site[in - f->ins]);
	}
	if (in->op == OP_SHL || in->op == OP_SHR) {
		kd_buf_puts(e->o, "\tif (");
		val(e, in->args[1]);
		kd_buf_puts(e->o, " < 0 || ");
		val(e, in->args[1]);
		kd_buf_printf(e->o, " > 63)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_RANGE, "
		              "\"shift count must be in 0..63, got %%lld\", (long long)", e->site[in - f->ins]);
		val(e, in->args[1]);
		kd_buf_puts(e->o, ");\n");
	}
	kd_buf_puts(e->o, "\t");
	local(e, in->res);
	if (in->op == OP_CAST) {
		cast(e, in);
		return;
	}
	static const signed char wrap[KD_NOP] = {
		[OP_ADD] = H_ADD + 1, [OP_SUB] = H_SUB + 1, [OP_MUL] = H_MUL + 1, [OP_DIV] = H_DIV + 1,
		[OP_REM] = H_REM + 1, [OP_SHL] = H_SHL + 1, [OP_NEG] = H_NEG + 1};
	kd_buf_puts(e->o, " = ");
	if (!fl && wrap[in->op]) {
		int h = wrap[in->op] - 1;
		e->used |= 1u << h;
		if (h == H_DIV)
			e->used |= 1u << H_NEG;
		kd_buf_printf(e->o, "%s(", kd_ieval_helper_name[h]);
		for (int i = 0; i < in->nargs; i++) {
			if (i)
				kd_buf_puts(e->o, ", ");
			val(e, in->args[i]);
		}
		kd_buf_puts(e->o, ");\n");
		return;
	}
	if (in->nargs == 1) {
		kd_buf_printf(e->o, "%s", d->c_op);
		val(e, in->args[0]);
	} else {
		kd_buf_puts(e->o, "(");
		val(e, in->args[0]);
		kd_buf_printf(e->o, " %s ", d->c_op);
		val(e, in->args[1]);
		kd_buf_puts(e->o, ")");
	}
	kd_buf_puts(e->o, ";\n");
}

/* Assigns a successor's block parameters as one parallel copy: through
 * temporaries when an argument is another parameter of the same block. */
static void pass_args(Emit *e, const KdSucc *s, const char *indent)
{
	const KdBlock *to = e->f->blk[s->blk];
	int clash = 0;
	for (int i = 0; i < s->nargs; i++)
		for (int j = 0; j < to->nparam; j++)
			clash |= j != i && s->args[i] == to->params[j];
	if (clash)
		kd_buf_printf(e->o, "%s{\n", indent);
	for (int i = 0; i < s->nargs; i++) {
		if (s->args[i] == to->params[i])
			continue;
		kd_buf_printf(e->o, "%s", indent);
		if (clash) {
			kd_buf_puts(e->o, "\t");
			decl_type(e, to->params[i]);
			kd_buf_printf(e->o, " kd_pc%d = ", i);
		} else {
			local(e, to->params[i]);
			kd_buf_puts(e->o, " = ");
		}
		val(e, s->args[i]);
		kd_buf_puts(e->o, ";\n");
	}
	for (int i = 0; clash && i < s->nargs; i++) {
		if (s->args[i] == to->params[i])
			continue;
		kd_buf_printf(e->o, "%s\t", indent);
		local(e, to->params[i]);
		kd_buf_printf(e->o, " = kd_pc%d;\n", i);
	}
	if (clash)
		kd_buf_printf(e->o, "%s}\n", indent);
	kd_buf_printf(e->o, "%sgoto kd_bb%d;\n", indent, s->blk);
}

static void term(Emit *e, const KdIns *in, int next)
{
	switch (in->op) {
	case OP_RET:
		kd_buf_puts(e->o, "\treturn KDSL_OK;\n");
		break;
	case OP_JMP:
		/* Fall through into the next block when it needs no arguments. */
		if (in->succ[0].blk == next && !in->succ[0].nargs)
			break;
		pass_args(e, &in->succ[0], "\t");
		break;
	case OP_BR:
		kd_buf_puts(e->o, "\tif (");
		val(e, in->args[0]);
		kd_buf_puts(e->o, ") {\n");
		pass_args(e, &in->succ[0], "\t\t");
		kd_buf_puts(e->o, "\t} else {\n");
		pass_args(e, &in->succ[1], "\t\t");
		kd_buf_puts(e->o, "\t}\n");
		break;
	default:
		unhandled(e, in);
		break;
	}
}

static void reach(Emit *e)
{
	const KdFunc *f = e->f;
	int *stack = calloc((size_t)f->nblk + 1, sizeof *stack), sp = 0;
	e->reach = calloc((size_t)f->nblk + 1, 1);
	e->target = calloc((size_t)f->nblk + 1, 1);
	stack[sp++] = 0;
	e->reach[0] = 1;
	while (sp) {
		const KdBlock *b = f->blk[stack[--sp]];
		const KdIns *t = &f->ins[b->insv[b->nins - 1]];
		for (int s = 0; s < t->nsucc; s++) {
			int to = t->succ[s].blk;
			if (!e->reach[to]) {
				e->reach[to] = 1;
				stack[sp++] = to;
			}
		}
	}
	free(stack);
	/* A label only where a goto lands: a jmp into the next block that is
	 * emitted falls through (term), and an unused label fails -Wall.  The
	 * next emitted block is known only now, after a pass left some dead. */
	for (int b = 0; b < f->nblk; b++) {
		if (!e->reach[b])
			continue;
		const KdBlock *bl = f->blk[b];
		const KdIns *t = &f->ins[bl->insv[bl->nins - 1]];
		int next = b + 1;
		while (next < f->nblk && !e->reach[next])
			next++;
		for (int s = 0; s < t->nsucc; s++)
			if (t->op != OP_JMP || t->succ[s].blk != next || t->succ[s].nargs)
				e->target[t->succ[s].blk] = 1;
	}
}

/* The C local that names on-chip buffer i after its .k name, for a
 * debugger: kd_<name>_buf<i>.  It ends in buf<i>, never in _<digits> as
 * value locals do (kd_<name>_<id>), so no two locals meet. */
void kd_emit_buf_local(KdBuf *o, const KdFunc *f, int i)
{
	kd_buf_puts(o, "kd_");
	for (const char *c = f->buf[i].name ? f->buf[i].name : ""; *c; c++)
		kd_buf_printf(o, "%c", (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		              (*c >= '0' && *c <= '9') ? *c : '_');
	kd_buf_printf(o, "_buf%d", i);
}

/* The kernel's on-chip buffers that its ops use (bused) as a static
 * kdsl_buffer table kd_buffer, for the runtime checks' messages; returns
 * their number (0: no table). */
static int buffer_table(Emit *e, const KdFunc *f, const char *bused)
{
	int n = 0;
	for (int i = 0; i < f->nbuf; i++) {
		const KdBuffer *b = &f->buf[i];
		int64_t bytes = b->bytes, parts = 1;
		if (!bused[i])
			continue;
		if (e->tg->footprint)
			e->tg->footprint(b, &bytes, &parts);
		kd_buf_puts(e->o, n ? ",\n\t\t{" : "\tstatic const kdsl_buffer kd_buffer[] = {\n\t\t{");
		kd_c_string(e->o, b->name ? b->name : "");
		kd_buf_printf(e->o, ", %s, %lld, %lld, %lld}", kd_spaces[b->space].rt_enum, (long long)b->addr,
		              (long long)bytes, (long long)parts);
		n++;
	}
	if (n)
		kd_buf_puts(e->o, ",\n\t};\n");
	return n;
}

static void func(Emit *e, const KdFunc *f)
{
	KdBuf *o = e->o;
	e->f = f;
	reach(e);
	e->live = calloc((size_t)f->nins + 1, 1);
	for (int b = 0; b < f->nblk; b++)
		for (int k = 0; e->reach[b] && k < f->blk[b]->nins; k++)
			e->live[f->blk[b]->insv[k]] = 1;
	e->site = calloc((size_t)f->nins + 1, sizeof *e->site);
	e->proven = calloc((size_t)f->nins + 1, 1);
	kd_ir_dim_index_proven(f, e->proven);
	int nsite = 0, calls = 0;
	/* The function's own lines go under the kernel's line (its entry code
	 * is the declarator's); the declarations that follow have no code and
	 * go straight to the body, under no #line of their own. */
	prototype(o, f, "kd_rt");
	kd_buf_puts(o, "\n{\n");
	e->mark_line = -1;   /* each function names its file, whatever came before it */
	flush_at(e, kline(e, f->span));
	KdBuf *scratch = e->o;
	o = e->o = e->body;
	/* Sites: every op call and every scalar op that can fail at run time. */
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		int fl = in->nargs && f->val[in->args[0]].type == VT_FLOAT;
		e->site[i] = -1;
		if (!e->live[i])
			continue;
		calls |= kd_ops[in->op].kind == OK_EFFECT && !target_ins(e, in);
		/* ops the target writes need a site only where they check at run time */
		if ((kd_ops[in->op].kind == OK_EFFECT && !target_ins(e, in)) ||
		    (!target_ins(e, in) && (((in->op == OP_DIV || in->op == OP_REM) && !fl) ||
		                            in->op == OP_SHL || in->op == OP_SHR)) ||
		    (in->op == OP_DIM_INDEX && !e->proven[i]) ||
		    (e->tg->needs_site && e->tg->needs_site(f, in))) {
			int l, c;
			kd_source_linecol(e->m->src, in->span.off, &l, &c);
			kd_buf_puts(o, nsite ? ",\n\t\t" : "\tstatic const kdsl_site kd_site[] = {\n\t\t");
			kd_buf_puts(o, "{");
			kd_c_string(o, e->m->src->path);
			kd_buf_printf(o, ", %d, %d, \"%s\"}", l, c,
			              kd_ops[in->op].target ? kd_ops[in->op].name : "kdsl");
			e->site[i] = nsite++;
		}
	}
	if (nsite)
		kd_buf_puts(o, ",\n\t};\n");
	if (calls)   /* the result of each op call (effect()) */
		kd_buf_puts(o, "\tint kd_err;\n");
	for (int i = 0; i < f->nins; i++)
		if (e->live[i] && kd_ops[f->ins[i].op].result_of && !target_ins(e, &f->ins[i])) {
			kd_buf_puts(o, "\tkdsl_scalar kd_s;   /* what an element read gives */\n");
			break;
		}
	int used[KD_NSPACE] = {0};
	char *bused = calloc((size_t)f->nbuf + 1, 1);
	for (int i = 0; i < f->nins; i++)
		if ((f->ins[i].op == OP_VIEW || f->ins[i].op == OP_TILE) && e->live[i]) {
			const KdBuffer *b = &f->buf[f->val[f->ins[i].res].buf];
			used[b->space] |= b->param < 0;
			bused[f->val[f->ins[i].res].buf] = b->param < 0;
		}
	int nbuf = buffer_table(e, f, bused);
	for (int s = 1; s < KD_NSPACE; s++)
		if (used[s]) {
			kd_buf_printf(o, "\tunsigned char *kd_mem_%s;\n", kd_spaces[s].name);
			if (kd_spaces[s].partitions)
				kd_buf_printf(o, "\tsize_t kd_ps_%s;\n", kd_spaces[s].name);
		}
	/* each on-chip buffer's start, typed, under its .k name (docs/debugging.md) */
	for (int i = 0; i < f->nbuf; i++)
		if (bused[i]) {
			kd_buf_printf(o, "\t%s *", kd_dtypes[f->buf[i].dt].ctype);
			kd_emit_buf_local(o, f, i);
			kd_buf_puts(o, ";\n");
		}
	/* Locals: block parameters, then instruction results, in id order;
	 * not the results of instructions dce dropped (e->live), which would be
	 * unused variables. */
	for (int v = 0; v < f->nval; v++) {
		const KdVal *x = &f->val[v];
		/* dce drops a dead block parameter from its block only */
		int need = x->kind == VK_BARG ? e->reach[x->def] && x->index < f->blk[x->def]->nparam &&
		                                f->blk[x->def]->params[x->index] == v
		           : x->kind == VK_INS ? x->type != VT_REF && x->type != VT_LIST && e->live[x->def] : 0;
		if (!need)
			continue;
		kd_buf_puts(o, "\t");
		decl_type(e, v);
		kd_buf_puts(o, " ");
		local(e, v);
		/* Vector block parameters start zeroed, so the compiler sees every
		 * lane set on every path; a vector an instruction gives is set in
		 * full by that instruction, and zeroing it too would leave dead
		 * stores (gcc keeps them when the value lives in memory). */
		kd_buf_puts(o, (x->type == VT_VEC || x->type == VT_MASK) && x->kind == VK_BARG ? " = {0};\n" : ";\n");
	}
	kd_buf_puts(o, "\n");
	o = e->o = scratch;
	/* The check is inline (a call into the library would cost short kernels
	 * more than their work); kdsl_rt_enter only reports the error. */
	kd_buf_printf(o, "\tif (!kdsl_rt_try_enter(kd_rt, %s))\n\t\treturn kdsl_rt_enter(kd_rt, %s, \"%s\");\n",
	              rt_target(f->target), rt_target(f->target), f->name);
	for (int i = 0; i < f->nparam; i++)
		if (f->params[i].is_tensor) {
			kd_buf_puts(o, "\tif (!");
			kd_c_name(o, f->params[i].name, 'p');
			kd_buf_printf(o, ")\n\t\treturn kdsl_rt_null_param(kd_rt, \"%s\", \"%s\");\n", f->name,
			              f->params[i].name);
		}
	/* A scalar parameter only dropped code used is still a C parameter. */
	char *read = calloc((size_t)f->nval + 1, 1);
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		if (!e->live[i])
			continue;
		for (int a = 0; a < in->nargs; a++)
			read[in->args[a]] = 1;
		for (int s = 0; s < in->nsucc; s++)
			for (int a = 0; a < in->succ[s].nargs; a++)
				read[in->succ[s].args[a]] = 1;
	}
	for (int i = 0; i < f->nparam; i++)
		if (!f->params[i].is_tensor && !read[f->params[i].val]) {
			kd_buf_puts(o, "\t(void)");
			kd_c_name(o, f->params[i].name, 'p');
			kd_buf_puts(o, ";\n");
		}
	free(read);
	for (int s = 1; s < KD_NSPACE; s++)
		if (used[s]) {
			kd_buf_printf(o, "\tkd_mem_%s = kdsl_rt_mem(kd_rt, %s, NULL);\n", kd_spaces[s].name,
			              kd_spaces[s].rt_enum);
			/* the host stride of partitions is the runtime's (padded);
			 * marked used, since the calls of an op's rt_k entry take
			 * the runtime's own (a kernel may have no other call) */
			if (kd_spaces[s].partitions)
				kd_buf_printf(o, "\tkd_ps_%s = kdsl_rt_partition_stride(kd_rt, %s);\n\t(void)kd_ps_%s;\n",
				              kd_spaces[s].name, kd_spaces[s].rt_enum, kd_spaces[s].name);
		}
	/* set and marked used: the C itself addresses buffers by kd_mem_* */
	for (int i = 0; i < f->nbuf; i++)
		if (bused[i]) {
			kd_buf_puts(o, "\t");
			kd_emit_buf_local(o, f, i);
			kd_buf_printf(o, " = (%s *)(void *)(kd_mem_%s + %lld);\n\t(void)", kd_dtypes[f->buf[i].dt].ctype,
			              kd_spaces[f->buf[i].space].name, (long long)f->buf[i].addr);
			kd_emit_buf_local(o, f, i);
			kd_buf_puts(o, ";\n");
		}
	/* the runtime's checks name buffers in their messages (kdsl_rt.h) */
	if (nbuf)
		kd_buf_printf(o, "\tif (kdsl_rt_checking(kd_rt))\n\t\tkdsl_rt_check_buffers(kd_rt, kd_buffer, %d);\n",
		              nbuf);
	free(bused);
	/* The prologue goes under the kernel's line: a breakpoint there stops
	 * on entry, as on a C function's line. */
	flush_at(e, kline(e, f->span));
	KdSpan end = {f->span.off + (f->span.len ? f->span.len - 1 : 0), 0};
	while (end.off > f->span.off && end.off < e->m->src->len &&
	       strchr(" \t\r\n", e->m->src->text[end.off]))   /* to the } itself */
		end.off--;
	for (int b = 0; b < f->nblk; b++) {
		const KdBlock *bl = f->blk[b];
		if (!e->reach[b])
			continue;
		/* a label has no code: it goes under whatever line is current */
		if (e->target[b])
			kd_buf_printf(e->body, "kd_bb%d: /* %s */\n", b, bl->label ? bl->label : "");
		int next = b + 1;
		while (next < f->nblk && !e->reach[next])
			next++;
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			const KdOpDesc *d = &kd_ops[in->op];
			if (in->op == OP_VIEW || in->op == OP_TILE || in->op == OP_LIST)
				continue;
			if (target_ins(e, in)) {
				KdEmitCtx hc = hook_ctx(e, in);
				e->nerr += e->tg->ins(&hc, in) < 0;
			} else if (d->kind == OK_EFFECT)
				effect(e, in);
			else if (d->kind == OK_TERM)
				term(e, in, next);
			else
				pure(e, in);
			/* the implicit return at the end is the kernel's } */
			int whole = in->span.off == f->span.off && in->span.len == f->span.len;
			flush_at(e, kline(e, in->op == OP_RET && whole ? end : in->span));
		}
	}
	/* the closing brace (the frame's teardown at -O0) on the kernel's } too */
	kd_buf_puts(o, "}\n");
	flush_at(e, kline(e, end));
	free(e->site);
	free(e->proven);
	free(e->live);
	free(e->reach);
	free(e->target);
}

/* Puts head into b at byte at, moving what follows it up. */
static void buf_insert(KdBuf *b, size_t at, const KdBuf *head)
{
	size_t tail = b->n - at;
	kd_buf_put(b, head->s ? head->s : "", head->n);   /* the room (and the NUL) */
	memmove(b->s + at + head->n, b->s + at, tail);
	memcpy(b->s + at, head->s ? head->s : "", head->n);
}

int kd_emit_c(KdBuf *out, KdDiag *d, const KdModule *m)
{
	/* The kernels go straight into out, and the preamble (which needs to
	 * know the helpers they used) in front of them at the end: a second
	 * buffer of the whole C would double the output's memory. */
	KdBuf scratch = {0}, head = {0};
	size_t at = out->n;
	Emit e = {.o = &scratch, .body = out, .mark_line = -1, .d = d, .m = m, .tg = kd_emit_target(m->target)};
	for (int i = 0; i < m->nfn; i++) {
		kd_buf_puts(out, "\n");
		func(&e, m->fn[i]);
	}
	kd_buf_free(&scratch);
	kd_buf_printf(&head, "/* Generated by kdslc %s from ", KDSLC_VERSION);
	kd_c_comment(&head, m->src->path);
	kd_buf_printf(&head, " (target %s). Do not edit. */\n", kd_target_names[m->target]);
	kd_buf_puts(&head, "#include <math.h>\n#include <stdint.h>\n#include \"kdsl_rt.h\"\n");
	if (e.used) {
		kd_buf_puts(&head, "\n/* Integer arithmetic wraps in 64 bits, as kdsl defines it. */\n");
		for (int h = 0; h < H_N; h++)
			if (e.used & (1u << h))
				kd_buf_puts(&head, h < KD_IH_N ? kd_ieval_helper_c[h] : i64_def);
	}
	if (e.tg->types)
		e.tg->types(&head, m);
	/* The kernels' declarations, as the header gives them: the C compiles
	 * under -Wmissing-prototypes without the header, whatever its name. */
	kd_buf_puts(&head, "\n");
	for (int i = 0; i < m->nfn; i++) {
		prototype(&head, m->fn[i], "kd_rt");
		kd_buf_puts(&head, ";\n");
	}
	buf_insert(out, at, &head);
	kd_buf_free(&head);
	return e.nerr;
}

/* The header's note of f's kdsl names that have another C name, one a
 * line; nothing when none has. */
static void renames(KdBuf *out, const KdFunc *f)
{
	int any = kd_c_reserved(f->name);
	for (int i = 0; i < f->nparam; i++)
		any |= kd_c_reserved(f->params[i].name);
	if (!any)
		return;
	kd_buf_puts(out, "\n * Renamed in C (the kdsl name would clash with C, its library or kdsl's own names):");
	if (kd_c_reserved(f->name)) {
		kd_buf_printf(out, "\n *   kernel %s is ", f->name);
		kd_c_name(out, f->name, 'k');
	}
	for (int i = 0; i < f->nparam; i++)
		if (kd_c_reserved(f->params[i].name)) {
			kd_buf_printf(out, "\n *   parameter %s is ", f->params[i].name);
			kd_c_name(out, f->params[i].name, 'p');
		}
}

void kd_emit_header(KdBuf *out, const KdModule *m)
{
	/* The guard comes from the kernel file's name, so it does not depend
	 * on where the header is written. */
	KdBuf g = {0};
	const char *base = strrchr(m->src->path, '/');
	kd_buf_puts(&g, "KDSL_");
	for (const char *s = base ? base + 1 : m->src->path; *s; s++) {
		char c = *s;
		kd_buf_printf(&g, "%c", (c >= 'a' && c <= 'z') ? c - 32
		              : ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_');
	}
	kd_buf_puts(&g, "_H");
	kd_buf_printf(out, "/* Generated by kdslc %s from ", KDSLC_VERSION);
	kd_c_comment(out, m->src->path);
	kd_buf_puts(out, ". Do not edit. */\n");
	kd_buf_printf(out, "#ifndef %s\n#define %s\n\n#include \"kdsl_rt.h\"\n\n", g.s, g.s);
	kd_buf_puts(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	for (int i = 0; i < m->nfn; i++) {
		kd_buf_printf(out, "/* kernel %s, target %s: returns KDSL_OK or an error code.",
		              m->fn[i]->name, kd_target_names[m->target]);
		renames(out, m->fn[i]);
		kd_buf_puts(out, " */\n");
		prototype(out, m->fn[i], "rt");
		kd_buf_puts(out, ";\n");
	}
	kd_buf_printf(out, "\n#ifdef __cplusplus\n}\n#endif\n#endif /* %s */\n", g.s);
	kd_buf_free(&g);
}

void kd_emit_harness(KdBuf *out, const KdModule *m)
{
	kd_buf_puts(out, "\n/* ---- kdslc run: the kernel table for kdsl_harness_main ---- */\n");
	kd_buf_printf(out, "#line %d \"kdslc-run.c\"\n", 1);
	kd_buf_puts(out, "#include \"kdsl_harness.h\"\n");
	for (int i = 0; i < m->nfn; i++) {
		const KdFunc *f = m->fn[i];
		kd_buf_printf(out, "\nstatic int kd_call_%d(kdsl_rt *kd_rt, void *const *kd_t, const int64_t *kd_s)\n{\n",
		              i);
		kd_buf_puts(out, "\t(void)kd_t;\n\t(void)kd_s;\n\treturn ");
		kd_c_name(out, f->name, 'k');
		kd_buf_puts(out, "(kd_rt");
		for (int p = 0; p < f->nparam; p++) {
			const struct KdParam *pp = &f->params[p];
			if (pp->is_tensor)
				kd_buf_printf(out, ", (%s%s *)kd_t[%d]", f->buf[pp->buf].written ? "" : "const ",
				              kd_dtypes[pp->dt].ctype, p);
			else
				kd_buf_printf(out, ", (%s)kd_s[%d]", kd_dtypes[pp->dt].ctype, p);
		}
		kd_buf_puts(out, ");\n}\n");
		for (int p = 0; p < f->nparam; p++) {
			const struct KdParam *pp = &f->params[p];
			if (!pp->is_tensor)
				continue;
			const KdBuffer *b = &f->buf[pp->buf];
			kd_buf_printf(out, "static const int64_t kd_dims_%d_%d[] = {", i, p);
			for (int d = 0; d < b->rank; d++)
				kd_buf_printf(out, "%s%lld", d ? ", " : "", (long long)b->dims[d]);
			kd_buf_puts(out, "};\n");
		}
		if (f->nparam) {
			kd_buf_printf(out, "static const kdsl_param_info kd_params_%d[] = {\n", i);
			for (int p = 0; p < f->nparam; p++) {
				const struct KdParam *pp = &f->params[p];
				if (pp->is_tensor)
					kd_buf_printf(out, "\t{\"%s\", %s, 1, %d, %d, kd_dims_%d_%d},\n", pp->name,
					              rt_dtype(pp->dt), f->buf[pp->buf].written, f->buf[pp->buf].rank, i, p);
				else
					kd_buf_printf(out, "\t{\"%s\", %s, 0, 0, 0, NULL},\n", pp->name, rt_dtype(pp->dt));
			}
			kd_buf_puts(out, "};\n");
		}
	}
	kd_buf_puts(out, "\nstatic const kdsl_kernel_info kd_kernels[] = {\n");
	for (int i = 0; i < m->nfn; i++) {
		const KdFunc *f = m->fn[i];
		kd_buf_printf(out, "\t{\"%s\", %s, %d, ", f->name, rt_target(f->target), f->nparam);
		if (f->nparam)
			kd_buf_printf(out, "kd_params_%d", i);
		else
			kd_buf_puts(out, "NULL");
		kd_buf_printf(out, ", kd_call_%d},\n", i);
	}
	kd_buf_puts(out, "};\n\nint main(int argc, char **argv)\n{\n");
	kd_buf_printf(out, "\treturn kdsl_harness_main(argc, argv, kd_kernels, %d);\n}\n", m->nfn);
}
