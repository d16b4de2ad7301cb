/* irsyntax.c: the spellings the IR printer and reader share (irsyntax.h). */
#include <stdlib.h>
#include <string.h>

#include "irsyntax.h"

static const char *const kinds[] = {"int", "float", "bool", "str", "ref", "vec", "mask", "list"};

/* The short spelling of the combinations the builders make; NULL if none. */
static const char *short_name(const KdVal *x)
{
	/* lanes belong to vectors and masks: "i8x1" must not be an int */
	if (!x->lanes != (x->type != VT_VEC && x->type != VT_MASK))
		return NULL;
	switch (x->type) {
	case VT_INT:
		return x->dt && (KD_DT_INTS & KD_DTBIT(x->dt)) ? kd_dtypes[x->dt].name : NULL;
	case VT_FLOAT: return x->dt ? NULL : "f64";
	case VT_BOOL: return x->dt == KD_BOOL ? "bool" : NULL;
	case VT_STR: return x->dt ? NULL : "str";
	case VT_LIST: return x->dt == KD_I64 ? "list" : NULL;
	case VT_VEC: return x->dt && x->dt != KD_BOOL && x->lanes ? kd_dtypes[x->dt].name : NULL;
	case VT_MASK: return x->dt == KD_BOOL && x->lanes ? "bool" : NULL;
	default: return NULL;
	}
}

void kd_ir_put_type(KdBuf *o, const KdVal *x)
{
	const char *s = short_name(x);
	if (s)
		kd_buf_puts(o, s);
	else
		kd_buf_printf(o, "%s.%s", kinds[x->type], x->dt ? kd_dtypes[x->dt].name : "none");
	if (x->lanes)
		kd_buf_printf(o, "x%d", x->lanes);
}

int kd_ir_parse_type(const char *s, KdVal *x)
{
	size_t n = strlen(s);
	x->lanes = 0;
	/* a lane count: the digits after the last 'x' */
	const char *xp = strrchr(s, 'x');
	if (xp && xp[1] && strspn(xp + 1, "0123456789") == strlen(xp + 1)) {
		if (strlen(xp + 1) > 6 || xp[1] == '0')
			return -1;
		x->lanes = atoi(xp + 1);
		n = (size_t)(xp - s);
	}
	const char *dot = memchr(s, '.', n);
	if (dot) {
		int k = -1;
		for (int i = 0; i < (int)(sizeof kinds / sizeof kinds[0]); i++)
			if (strlen(kinds[i]) == (size_t)(dot - s) && !strncmp(s, kinds[i], (size_t)(dot - s)))
				k = i;
		size_t dl = n - (size_t)(dot + 1 - s);
		KdDtype dt = dl == 4 && !strncmp(dot + 1, "none", 4) ? KD_DT_NONE
		                                                    : kd_dtype_lookup(dot + 1, dl);
		if (k < 0 || (!dt && strncmp(dot + 1, "none", dl)))
			return -1;
		x->type = (KdValType)k;
		x->dt = dt;
	} else {
		KdDtype dt = kd_dtype_lookup(s, n);
		if (n == 3 && !strncmp(s, "f64", 3) && !x->lanes) {
			x->type = VT_FLOAT, x->dt = KD_DT_NONE;
		} else if (n == 3 && !strncmp(s, "str", 3) && !x->lanes) {
			x->type = VT_STR, x->dt = KD_DT_NONE;
		} else if (n == 4 && !strncmp(s, "list", 4) && !x->lanes) {
			x->type = VT_LIST, x->dt = KD_I64;
		} else if (dt == KD_BOOL) {
			x->type = x->lanes ? VT_MASK : VT_BOOL, x->dt = KD_BOOL;
		} else if (dt && x->lanes) {
			x->type = VT_VEC, x->dt = dt;
		} else if (dt && (KD_DT_INTS & KD_DTBIT(dt))) {
			x->type = VT_INT, x->dt = dt;
		} else {
			return -1;
		}
	}
	/* the spelling must be the one kd_ir_put_type gives, so text that
	 * reads also prints back unchanged */
	KdBuf b = {0};
	kd_ir_put_type(&b, x);
	int ok = b.s && !strcmp(b.s, s);
	kd_buf_free(&b);
	return ok ? 0 : -1;
}

void kd_ir_default_type(const KdFunc *f, const KdIns *in, int buf, KdVal *x)
{
	x->lanes = 0;
	x->buf = -1;
	if (in->op == OP_VIEW || in->op == OP_TILE) {
		x->type = VT_REF;
		x->buf = buf;
		x->dt = buf >= 0 && buf < f->nbuf ? f->buf[buf].dt : KD_DT_NONE;
	} else if (in->op == OP_LIST) {
		x->type = VT_LIST, x->dt = KD_I64;
	} else if (kd_ops[in->op].flags & (KD_OPF_COMPARE | KD_OPF_LOGIC)) {
		x->type = VT_BOOL, x->dt = KD_BOOL;
	} else {
		x->type = VT_INT, x->dt = KD_I64;
	}
}

int kd_ir_same_type(const KdVal *x, const KdVal *y)
{
	return x->type == y->type && x->dt == y->dt && x->lanes == y->lanes &&
	       (x->type != VT_REF || x->buf == y->buf);
}

void kd_ir_loc_add(KdArena *a, KdIrLocs *l, uint32_t off, int line, int col)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		uint32_t *no = kd_alloc(a, sizeof *no * (size_t)cap);
		int *nl = kd_alloc(a, sizeof *nl * (size_t)cap), *nc = kd_alloc(a, sizeof *nc * (size_t)cap);
		if (l->n) {
			memcpy(no, l->off, sizeof *no * (size_t)l->n);
			memcpy(nl, l->line, sizeof *nl * (size_t)l->n);
			memcpy(nc, l->col, sizeof *nc * (size_t)l->n);
		}
		l->off = no, l->line = nl, l->col = nc, l->cap = cap;
	}
	l->off[l->n] = off;
	l->line[l->n] = line;
	l->col[l->n] = col;
	l->n++;
}

void kd_ir_loc(const KdModule *m, uint32_t off, int *line, int *col)
{
	const KdIrLocs *l = m->locs;
	if (l) {
		int lo = 0, hi = l->n - 1;
		while (lo <= hi) {
			int mid = lo + (hi - lo) / 2;
			if (l->off[mid] == off) {
				*line = l->line[mid];
				*col = l->col[mid];
				return;
			}
			if (l->off[mid] < off)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
	kd_source_linecol(m->src, off, line, col);
}
