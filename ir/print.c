/* print.c: the textual IR (--emit=ir).  Stable: values and blocks are
 * numbered in creation order, constants print inline.  Everything the
 * passes and the emitter need is printed, so the text reads back
 * (irread.c) into the same module: docs/passes.md, "Textual IR". */
#include <string.h>

#include "irsyntax.h"
#include "ir_target.h"

/* A string constant, escaped so that it reads back. */
static void str(KdBuf *o, const char *s)
{
	kd_buf_puts(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			kd_buf_printf(o, "\\%c", c);
		else if (c == '\n')
			kd_buf_puts(o, "\\n");
		else if (c == '\t')
			kd_buf_puts(o, "\\t");
		else if (c < 32 || c >= 127)
			kd_buf_printf(o, "\\x%02x", c);
		else
			kd_buf_put(o, (const char *)&c, 1);
	}
	kd_buf_puts(o, "\"");
}

/* A float keeps a '.' (or exponent, inf, nan) so it never reads as an integer. */
static void fnum(KdBuf *o, double x)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.17g", x);
	kd_buf_puts(o, tmp);
	if (!strpbrk(tmp, ".eni"))
		kd_buf_puts(o, ".0");
}

static void val(KdBuf *o, const KdFunc *f, int v)
{
	const KdVal *x = &f->val[v];
	switch (x->kind) {
	case VK_CONST:
		if (x->type == VT_BOOL)
			kd_buf_puts(o, x->c ? "true" : "false");
		else
			kd_buf_printf(o, "%lld", (long long)x->c);
		break;
	case VK_FCONST: fnum(o, x->f); break;
	case VK_STR: str(o, x->s); break;
	case VK_PARAM: kd_buf_printf(o, "%%%s", x->name); break;
	default: kd_buf_printf(o, "%%%d", v); break;
	}
}

static void succ(KdBuf *o, const KdFunc *f, const KdSucc *s)
{
	kd_buf_printf(o, "bb%d", s->blk);
	if (!s->nargs)
		return;
	kd_buf_puts(o, "(");
	for (int i = 0; i < s->nargs; i++) {
		if (i)
			kd_buf_puts(o, ", ");
		val(o, f, s->args[i]);
	}
	kd_buf_puts(o, ")");
}

static void buffer(KdBuf *o, const KdBuffer *b)
{
	kd_buf_printf(o, "%s %s[", kd_spaces[b->space].name, kd_dtypes[b->dt].name);
	for (int i = 0; i < b->rank; i++)
		kd_buf_printf(o, "%s%lld", i ? ", " : "", (long long)b->dims[i]);
	kd_buf_puts(o, "]");
}

static void func(KdBuf *o, const KdModule *m, const KdFunc *f)
{
	const KdIrTarget *tg = kd_ir_target(m->target);
	kd_buf_printf(o, "func @%s(", f->name);
	for (int i = 0; i < f->nparam; i++) {
		const struct KdParam *p = &f->params[i];
		kd_buf_printf(o, "%s%%%s: ", i ? ", " : "", p->name);
		if (p->is_tensor)
			buffer(o, &f->buf[p->buf]);
		else
			kd_buf_puts(o, kd_dtypes[p->dt].name);
	}
	kd_buf_puts(o, ") {\n");
	for (int i = 0; i < f->nbuf; i++) {
		const KdBuffer *b = &f->buf[i];
		if (b->param >= 0)
			continue;
		kd_buf_printf(o, "  buffer @%s: ", b->name);
		buffer(o, b);
		if (b->addr >= 0)
			kd_buf_printf(o, " at %lld", (long long)b->addr);
		if (b->live_lo)   /* block-scoped: the scopes it lives over */
			kd_buf_printf(o, " live=[%d, %d]", b->live_lo, b->live_hi);
		if (tg->print_buffer_attrs)
			tg->print_buffer_attrs(o, b);
		kd_buf_puts(o, "\n");
		if (tg->print_buffer_notes)
			tg->print_buffer_notes(o, b);
	}
	for (int bi = 0; bi < f->nblk; bi++) {
		const KdBlock *bl = f->blk[bi];
		kd_buf_printf(o, "bb%d", bi);
		if (bl->nparam) {
			kd_buf_puts(o, "(");
			for (int i = 0; i < bl->nparam; i++) {
				const KdVal *x = &f->val[bl->params[i]];
				kd_buf_printf(o, "%s%%%d: ", i ? ", " : "", bl->params[i]);
				/* aipu vectors and masks: i32x8, boolx8 */
				kd_ir_put_type(o, x);
			}
			kd_buf_puts(o, ")");
		}
		kd_buf_printf(o, ":  ; %s", bl->label ? bl->label : "");
		if (bl->loop) {
			kd_buf_printf(o, ", loop %%%d in ", bl->loop->iv);
			val(o, f, bl->loop->lo);
			kd_buf_puts(o, "..");
			val(o, f, bl->loop->hi);
			kd_buf_printf(o, " step %lld", (long long)bl->loop->step);
		}
		/* source names: the emitter names C locals after them */
		for (int i = 0; i < bl->nparam; i++)
			if (f->val[bl->params[i]].name)
				kd_buf_printf(o, ", name %%%d %s", bl->params[i], f->val[bl->params[i]].name);
		kd_buf_puts(o, "\n");
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			int line, col;
			kd_buf_puts(o, "  ");
			if (in->res >= 0)
				kd_buf_printf(o, "%%%d = ", in->res);
			kd_buf_puts(o, kd_ops[in->op].name);
			if (in->op == OP_CAST && in->res >= 0) {
				kd_buf_puts(o, ".");
				kd_ir_put_type(o, &f->val[in->res]);
			}
			if (in->op == OP_VIEW || in->op == OP_TILE)
				kd_buf_printf(o, " @%s,", f->buf[f->val[in->res].buf].name);
			for (int i = 0; i < in->nargs; i++) {
				kd_buf_puts(o, i ? ", " : " ");
				val(o, f, in->args[i]);
			}
			for (int i = 0; i < in->nsucc; i++) {
				kd_buf_puts(o, i || in->nargs ? ", " : " ");
				succ(o, f, &in->succ[i]);
			}
			if (in->res >= 0 && in->op != OP_CAST) {
				KdVal def;
				kd_ir_default_type(f, in, f->val[in->res].buf, &def);
				if (!kd_ir_same_type(&def, &f->val[in->res])) {
					kd_buf_puts(o, " : ");
					kd_ir_put_type(o, &f->val[in->res]);
				}
			}
			kd_ir_loc(m, in->span.off, &line, &col);
			kd_buf_printf(o, "  ; %d:%d", line, col);
			if (in->res >= 0 && f->val[in->res].name)
				kd_buf_printf(o, ", name %s", f->val[in->res].name);
			kd_buf_puts(o, "\n");
		}
	}
	kd_buf_puts(o, "}\n");
}

void kd_ir_print(KdBuf *out, const KdModule *m)
{
	kd_buf_printf(out, "; kdsl ir, target %s\n", kd_target_names[m->target]);
	for (int i = 0; i < m->nfn; i++) {
		if (i)
			kd_buf_puts(out, "\n");
		func(out, m, m->fn[i]);
	}
}
