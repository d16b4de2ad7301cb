/* verify.c: the IR verifier.  It runs after building and after every
 * pass; a failure is a compiler bug, reported as such.  It checks the
 * structure itself (SSA dominance, terminators, branch targets, the
 * effect ops' operand kinds against the op table) and every instruction's
 * typing rules, pure ones included, through its op's hook (verify.h). */
#include <string.h>

#include "dom.h"
#include "ir_target.h"
#include "irsyntax.h"
#include "verify.h"

typedef struct {
	KdDiag *d;
	const KdFunc *f;
	KdArena *a;
	KdDom dom;
	int *pos;          /* instruction -> position in its block */
	int nerr;
	int input;         /* checking IR read from text: the user's error */
} Ver;

static void fail(Ver *v, const KdIns *in, const char *what)
{
	KdSpan at = in ? in->span : v->f->span;
	kd_error(v->d, at, "%sinvalid IR in '%s': %s", v->input ? "" : "internal compiler error: ",
	         v->f->name, what);
	v->nerr++;
}

static int dominates(Ver *v, int a, int b)
{
	return kd_dom_dominates(&v->dom, a, b);
}

/* Is value x available at instruction `in` (at position p of block b)? */
static void use(Ver *v, const KdIns *in, int b, int p, int x)
{
	const KdFunc *f = v->f;
	if (x < 0 || x >= f->nval) {
		fail(v, in, "operand is not a value");
		return;
	}
	const KdVal *val = &f->val[x];
	if (val->kind == VK_INS) {
		const KdIns *def = &f->ins[val->def];
		if (def->blk == b ? v->pos[val->def] >= p : !dominates(v, def->blk, b))
			fail(v, in, "operand does not dominate its use");
	} else if (val->kind == VK_BARG) {
		if (!dominates(v, val->def, b))
			fail(v, in, "block parameter used outside the blocks its block dominates");
	}
}

static void report(KdVerify *v, KdSpan at, const char *fmt, va_list ap)
{
	KdBuf b = {0};
	kd_buf_vprintf(&b, fmt, ap);
	if (v->reader)
		kd_error(v->d, at, "%s", b.s);
	else
		kd_error(v->d, at, "%sinvalid IR in '%s': %s", v->input ? "" : "internal compiler error: ",
		         v->f->name, b.s);
	kd_buf_free(&b);
	v->nerr++;
}

void kd_verify_fail(KdVerify *v, const KdIns *in, int k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(v, k >= 0 && k < in->nargs && in->argspan ? in->argspan[k] : in->span, fmt, ap);
	va_end(ap);
}

void kd_verify_fail_at(KdVerify *v, KdSpan at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(v, at, fmt, ap);
	va_end(ap);
}

const char *kd_verify_type_str(KdVerify *v, const KdVal *x)
{
	if (x->type == VT_REF)
		return "tensor";
	KdBuf b = {0};
	kd_ir_put_type(&b, x);
	const char *s = kd_strdup(v->a, b.s ? b.s : "");
	kd_buf_free(&b);
	return s;
}

int kd_verify_skipped(const KdVerify *v, const KdIns *in)
{
	for (int k = 0; v->skip >= 0 && k < in->nargs; k++)
		if (in->args[k] == v->skip)
			return 1;
	return 0;
}

void kd_verify_ins(KdVerify *v, const KdIns *in)
{
	const KdOpDesc *d = &kd_ops[in->op];
	if (d->verify && !kd_verify_skipped(v, in))
		d->verify(v, in);
}

int kd_operand_kind_ok(const KdOpParam *p, KdValType t)
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
	case PK_INT_OR_LIST: return t == VT_INT || t == VT_LIST;
	default: return t == (p->enums ? VT_INT : VT_STR);
	}
}

/* A vector or mask value: its type is one aipu has. */
static void value(KdVerify *ty, const KdVal *x, KdSpan at)
{
	if (x->type == VT_VEC || x->type == VT_MASK)
		kd_verify_vec_value(ty, x, at);
}

static void func(Ver *v)
{
	const KdFunc *f = v->f;
	KdVerify ty = {.d = v->d, .f = f, .a = v->a, .input = v->input, .skip = -1};
	v->pos = kd_alloc(v->a, sizeof *v->pos * ((size_t)f->nins + 1));
	for (int b = 0; b < f->nblk; b++)
		for (int k = 0; k < f->blk[b]->nins; k++)
			v->pos[f->blk[b]->insv[k]] = k;
	kd_dom_build(v->a, f, &v->dom);
	for (int b = 0; b < f->nblk; b++) {
		const KdBlock *bl = f->blk[b];
		if (!bl->nins) {
			fail(v, NULL, "empty block");
			continue;
		}
		for (int i = 0; i < bl->nparam; i++)
			value(&ty, &f->val[bl->params[i]], f->ins[bl->insv[0]].span);
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			const KdOpDesc *d = &kd_ops[in->op];
			int nerr = v->nerr;
			if ((d->kind == OK_TERM) != (k == bl->nins - 1))
				fail(v, in, "a block must end in exactly one terminator");
			if (in->blk != b)
				fail(v, in, "instruction's block is wrong");
			for (int i = 0; i < in->nargs; i++)
				use(v, in, b, k, in->args[i]);
			for (int s = 0; s < in->nsucc; s++) {
				const KdSucc *sc = &in->succ[s];
				if (sc->blk <= 0 || sc->blk >= f->nblk) {
					fail(v, in, "branch to a bad block");
					continue;
				}
				for (int i = 0; i < sc->nargs; i++)
					use(v, in, b, k, sc->args[i]);
			}
			if (in->op == OP_BR && in->nsucc != 2)
				fail(v, in, "br needs two successors");
			if (in->op == OP_JMP && in->nsucc != 1)
				fail(v, in, "jmp needs one successor");
			if (d->kind == OK_EFFECT) {
				/* aipu's vstore may leave out its trailing optional operands */
				int opt = kd_ir_target(d->target)->omit_optional && in->nargs < d->nparam &&
				          in->nargs >= kd_op_required(d);
				if (in->nargs != d->nparam && !opt) {
					fail(v, in, "operand count differs from the op table");
					continue;
				}
				for (int i = 0; i < in->nargs; i++)
					if (in->args[i] >= 0 && in->args[i] < f->nval &&
					    !kd_operand_kind_ok(&d->param[i], f->val[in->args[i]].type))
						fail(v, in, "operand kind differs from the op table");
			}
			if ((in->op == OP_VIEW || in->op == OP_TILE) && (in->res < 0 || f->val[in->res].buf < 0 ||
			                          f->val[in->res].buf >= f->nbuf))
				fail(v, in, "view without a buffer");
			/* the typing rules (the block arguments' among them) read
			 * operands and blocks the checks above proved exist */
			if (v->nerr > nerr)
				continue;
			if (in->res >= 0)
				value(&ty, &f->val[in->res], in->span);
			kd_verify_ins(&ty, in);
		}
	}
	v->nerr += ty.nerr;
}

static int verify(KdDiag *d, const KdModule *m, int input)
{
	KdArena *a = kd_arena_new_like(m->arena);
	int n = 0;
	for (int i = 0; i < m->nfn; i++) {
		Ver v = {.d = d, .f = m->fn[i], .a = a, .input = input};
		func(&v);
		n += v.nerr;
	}
	kd_arena_free(a);
	return n;
}

int kd_ir_verify(KdDiag *d, const KdModule *m)
{
	return verify(d, m, 0);
}

int kd_ir_verify_input(KdDiag *d, const KdModule *m)
{
	return verify(d, m, 1);
}
