/* print.c: the textual IR (--emit=ir).  Stable: values and blocks are
 * numbered in creation order, constants print inline. */
#include "ir.h"
#include "tile.h"

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
	case VK_FCONST: kd_buf_printf(o, "%.17g", x->f); break;
	case VK_STR: kd_buf_printf(o, "\"%s\"", x->s); break;
	case VK_PARAM: kd_buf_printf(o, "%%%s", x->name); break;
	default: kd_buf_printf(o, "%%%d", v); break;
	}
}

static const char *vtname(const KdVal *x)
{
	switch (x->type) {
	case VT_FLOAT: return "f64";
	case VT_BOOL: return "bool";
	case VT_STR: return "str";
	case VT_REF: return "ref";
	case VT_LIST: return "list";
	default: return kd_dtypes[x->dt ? x->dt : KD_I64].name;
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
		kd_buf_puts(o, "\n");
		if (b->tile)
			kd_tile_print(o, b);
	}
	for (int bi = 0; bi < f->nblk; bi++) {
		const KdBlock *bl = f->blk[bi];
		kd_buf_printf(o, "bb%d", bi);
		if (bl->nparam) {
			kd_buf_puts(o, "(");
			for (int i = 0; i < bl->nparam; i++) {
				const KdVal *x = &f->val[bl->params[i]];
				kd_buf_printf(o, "%s%%%d: %s", i ? ", " : "", bl->params[i], vtname(x));
				/* aipu vectors and masks: i32x8, boolx8 */
				if (x->type == VT_VEC || x->type == VT_MASK)
					kd_buf_printf(o, "x%d", x->lanes);
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
		kd_buf_puts(o, "\n");
		for (int k = 0; k < bl->nins; k++) {
			const KdIns *in = &f->ins[bl->insv[k]];
			int line, col;
			kd_buf_puts(o, "  ");
			if (in->res >= 0)
				kd_buf_printf(o, "%%%d = ", in->res);
			kd_buf_puts(o, kd_ops[in->op].name);
			if (in->op == OP_CAST && in->res >= 0)
				kd_buf_printf(o, ".%s", vtname(&f->val[in->res]));
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
			kd_source_linecol(m->src, in->span.off, &line, &col);
			kd_buf_printf(o, "  ; %d:%d\n", line, col);
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
