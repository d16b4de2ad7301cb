/* ast.c: syntax tree nodes and the --emit=ast dump. */
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "lex.h"

const char *const kd_binop_spelling[B_NBINOP] = {
	[B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_REM] = "%",
	[B_SHL] = "<<", [B_SHR] = ">>", [B_AND] = "&", [B_OR] = "|", [B_XOR] = "^",
	[B_EQ] = "==", [B_NE] = "!=", [B_LT] = "<", [B_LE] = "<=", [B_GT] = ">", [B_GE] = ">=",
	[B_LAND] = "&&", [B_LOR] = "||",
};

const char *const kd_unop_spelling[U_NUNOP] = {[U_NEG] = "-", [U_NOT] = "!", [U_PLUS] = "+", [U_BITNOT] = "~"};

KdNode *kd_node(KdArena *a, KdNodeKind k, KdSpan span)
{
	static const size_t size[] = {[KD_SHAPE_LEAF] = KD_LEAF_SIZE, [KD_SHAPE_PAIR] = KD_PAIR_SIZE,
	                              [KD_SHAPE_FULL] = sizeof(KdNode)};
	KdNode *n = kd_alloc(a, size[kd_node_shape(k)]);
	n->kind = k;
	n->span = span;
	return n;
}

/* KdNodeList keeps no capacity: it is implied by n (0, then powers of two
 * from 4), so a full list is one whose n is 0 or such a power. */
void kd_list_push(KdArena *a, KdNodeList *l, KdNode *n)
{
	int full = l->n == 0 || (l->n >= 4 && (l->n & (l->n - 1)) == 0);
	if (full) {
		int cap = l->n ? l->n * 2 : 4;
		KdNode **v = kd_alloc(a, sizeof *v * (size_t)cap);
		if (l->n)
			memcpy(v, l->v, sizeof *v * (size_t)l->n);
		l->v = v;
	}
	l->v[l->n++] = n;
}

/* ---- dump ---- */

typedef struct {
	KdBuf *out;
	const KdSource *src;
	int first;
} Dump;

/* Shortest decimal form that reads back as the same double, so the dump
 * is stable and shows what the user wrote (1.23, not 1.2300000000000000). */
static void put_float(KdBuf *o, double v)
{
	char s[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	kd_buf_puts(o, s);
	if (strspn(s, "-0123456789") == strlen(s))
		kd_buf_puts(o, ".0");
}

static void put_str(KdBuf *o, const char *s)
{
	kd_buf_puts(o, "\"");
	kd_escape(o, s ? s : "", s ? strlen(s) : 0, '"');
	kd_buf_puts(o, "\"");
}

static void put_inline(KdBuf *o, const KdNode *e);

static void put_inline_list(KdBuf *o, const KdNodeList *l, const char *sep)
{
	for (int i = 0; i < l->n; i++) {
		if (i)
			kd_buf_puts(o, sep);
		put_inline(o, l->v[i]);
	}
}

static void put_type_body(KdBuf *o, const KdNode *t)
{
	if (t->space) {
		kd_buf_printf(o, "%s ", t->space);
	}
	const char *dt = t->dtype > KD_DT_NONE && t->dtype < KD_NDTYPE ? kd_dtypes[t->dtype].name : "?";
	if (t->maskbits)
		kd_buf_printf(o, "bool%dx%d", t->maskbits, t->lanes);
	else if (t->lanes)
		kd_buf_printf(o, "%sx%d", dt, t->lanes);
	else
		kd_buf_puts(o, dt);
	if (t->space) {
		kd_buf_puts(o, " ");
		if (t->list2.n) {
			kd_buf_puts(o, "[");
			put_inline_list(o, &t->list2, ", ");
			kd_buf_puts(o, "]");
		}
		kd_buf_puts(o, "[");
		put_inline_list(o, &t->list, ", ");
		kd_buf_puts(o, "]");
	}
}

static void put_type(KdBuf *o, const KdNode *t)
{
	kd_buf_puts(o, "(type ");
	if (t)
		put_type_body(o, t);
	else
		kd_buf_puts(o, "?");
	kd_buf_puts(o, ")");
}

/* An expression on one line, for tensor extents inside a type. */
static void put_inline(KdBuf *o, const KdNode *e)
{
	if (!e) {
		kd_buf_puts(o, "_");
		return;
	}
	switch (e->kind) {
	case N_INT:
		if (e->flags & KD_INT_U64)
			kd_buf_printf(o, "%llu", (unsigned long long)e->ival);
		else
			kd_buf_printf(o, "%lld", (long long)e->ival);
		return;
	case N_FLOAT: put_float(o, e->fval); return;
	case N_STR: put_str(o, e->name); return;
	case N_BOOL: kd_buf_puts(o, e->ival ? "true" : "false"); return;
	case N_IDENT: kd_buf_puts(o, e->name); return;
	case N_TYPE: put_type(o, e); return;
	case N_BINARY:
		kd_buf_printf(o, "(%s ", kd_binop_spelling[e->op]);
		put_inline(o, e->a);
		kd_buf_puts(o, " ");
		put_inline(o, e->b);
		kd_buf_puts(o, ")");
		return;
	case N_UNARY:
		kd_buf_printf(o, "(%s ", kd_unop_spelling[e->op]);
		put_inline(o, e->a);
		kd_buf_puts(o, ")");
		return;
	case N_CALL:
	case N_CAST:
		kd_buf_puts(o, "(");
		if (e->kind == N_CALL)
			kd_buf_puts(o, e->name);
		else
			put_type(o, e->type);
		if (e->list.n)
			kd_buf_puts(o, " ");
		put_inline_list(o, &e->list, " ");
		kd_buf_puts(o, ")");
		return;
	case N_KWARG:
		kd_buf_printf(o, "%s=", e->name);
		put_inline(o, e->a);
		return;
	case N_INDEX:
		put_inline(o, e->a);
		kd_buf_puts(o, "[");
		put_inline_list(o, &e->list, ", ");
		kd_buf_puts(o, "]");
		return;
	case N_SLICE:
		if (e->a)
			put_inline(o, e->a);
		kd_buf_puts(o, ":");
		if (e->b)
			put_inline(o, e->b);
		if (e->c) {
			kd_buf_puts(o, ":");
			put_inline(o, e->c);
		}
		return;
	case N_LIST:
	case N_TUPLE:
		kd_buf_puts(o, e->kind == N_LIST ? "[" : "(");
		put_inline_list(o, &e->list, ", ");
		kd_buf_puts(o, e->kind == N_LIST ? "]" : ")");
		return;
	default:
		kd_buf_puts(o, "?");
		return;
	}
}

static void open_node(Dump *d, int depth, const char *head)
{
	if (!d->first)
		kd_buf_puts(d->out, "\n");
	d->first = 0;
	for (int i = 0; i < depth; i++)
		kd_buf_puts(d->out, "  ");
	kd_buf_printf(d->out, "(%s", head);
}

static void put_pos(Dump *d, const KdNode *n)
{
	int line, col;
	kd_source_linecol(d->src, n->span.off, &line, &col);
	kd_buf_printf(d->out, " @%d:%d", line, col);
}

static void dump(Dump *d, const KdNode *n, int depth);

static void dump_list(Dump *d, const KdNodeList *l, int depth)
{
	for (int i = 0; i < l->n; i++)
		dump(d, l->v[i], depth);
}

static void dump(Dump *d, const KdNode *n, int depth)
{
	KdBuf *o = d->out;
	if (!n) {
		open_node(d, depth, "null)");
		return;
	}
	switch (n->kind) {
	case N_FILE: {
		const KdNode *t = n->list.n && n->list.v[0]->kind == N_TARGET ? n->list.v[0] : NULL;
		open_node(d, depth, "file");
		if (t)
			kd_buf_printf(o, " target=%s", t->name);
		put_pos(d, n);
		for (int i = t ? 1 : 0; i < n->list.n; i++)
			dump(d, n->list.v[i], depth + 1);
		break;
	}
	case N_TARGET:
		open_node(d, depth, "target ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		break;
	case N_CONST:
		open_node(d, depth, "const ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_KERNEL:
		open_node(d, depth, "kernel ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		dump_list(d, &n->list, depth + 1);
		dump(d, n->a, depth + 1);
		break;
	case N_PARAM:
		open_node(d, depth, "param ");
		kd_buf_printf(o, "%s ", n->name);
		put_type(o, n->type);
		put_pos(d, n);
		break;
	case N_BLOCK:
		open_node(d, depth, "block");
		put_pos(d, n);
		dump_list(d, &n->list, depth + 1);
		break;
	case N_LET:
		open_node(d, depth, n->flags & KD_LET_VAR ? "var " : "let ");
		kd_buf_puts(o, n->name);
		if (n->type) {
			kd_buf_puts(o, " ");
			put_type(o, n->type);
		}
		put_pos(d, n);
		if (n->a)
			dump(d, n->a, depth + 1);
		break;
	case N_LETTUPLE:
		open_node(d, depth, "let (");
		for (int i = 0; i < n->list.n; i++)
			kd_buf_printf(o, "%s%s", i ? " " : "", n->list.v[i]->name);
		kd_buf_puts(o, ")");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_ASSIGN:
		open_node(d, depth, "assign ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_STORE:
		open_node(d, depth, "store");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		dump(d, n->b, depth + 1);
		break;
	case N_FOR:
		open_node(d, depth, "for ");
		kd_buf_printf(o, "%s%s", n->name, n->c ? " step" : "");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		dump(d, n->b, depth + 1);
		if (n->c)
			dump(d, n->c, depth + 1);
		dump(d, n->d, depth + 1);
		break;
	case N_IF:
		open_node(d, depth, "if");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		dump(d, n->b, depth + 1);
		if (n->c)
			dump(d, n->c, depth + 1);
		break;
	case N_RETURN:
		open_node(d, depth, "return");
		put_pos(d, n);
		break;
	case N_EXPRSTMT:
		open_node(d, depth, "exprstmt");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_INT:
		open_node(d, depth, "int ");
		if (n->flags & KD_INT_U64)
			kd_buf_printf(o, "%llu", (unsigned long long)n->ival);
		else
			kd_buf_printf(o, "%lld", (long long)n->ival);
		put_pos(d, n);
		break;
	case N_FLOAT:
		open_node(d, depth, "float ");
		put_float(o, n->fval);
		put_pos(d, n);
		break;
	case N_STR:
		open_node(d, depth, "str ");
		put_str(o, n->name);
		put_pos(d, n);
		break;
	case N_BOOL:
		open_node(d, depth, n->ival ? "bool true" : "bool false");
		put_pos(d, n);
		break;
	case N_IDENT:
		open_node(d, depth, "ident ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		break;
	case N_BINARY:
		open_node(d, depth, "binary ");
		kd_buf_puts(o, kd_binop_spelling[n->op]);
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		dump(d, n->b, depth + 1);
		break;
	case N_UNARY:
		open_node(d, depth, "unary ");
		kd_buf_puts(o, kd_unop_spelling[n->op]);
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_CALL:
		open_node(d, depth, "call ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		dump_list(d, &n->list, depth + 1);
		break;
	case N_CAST:
		open_node(d, depth, "cast ");
		put_type(o, n->type);
		put_pos(d, n);
		dump_list(d, &n->list, depth + 1);
		break;
	case N_KWARG:
		open_node(d, depth, "kwarg ");
		kd_buf_puts(o, n->name);
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		break;
	case N_INDEX:
		open_node(d, depth, n->b ? "index permuted" : "index");
		put_pos(d, n);
		dump(d, n->a, depth + 1);
		dump_list(d, &n->list, depth + 1);
		if (n->b)
			dump(d, n->b, depth + 1);
		break;
	case N_SLICE:
		open_node(d, depth, "slice ");
		kd_buf_printf(o, "%s:%s%s", n->a ? "lo" : "", n->b ? "hi" : "", n->c ? ":step" : "");
		put_pos(d, n);
		if (n->a)
			dump(d, n->a, depth + 1);
		if (n->b)
			dump(d, n->b, depth + 1);
		if (n->c)
			dump(d, n->c, depth + 1);
		break;
	case N_LIST:
	case N_TUPLE:
		open_node(d, depth, n->kind == N_LIST ? "list" : "tuple");
		put_pos(d, n);
		dump_list(d, &n->list, depth + 1);
		break;
	case N_TYPE:
		open_node(d, depth, "type ");
		put_type_body(o, n);
		put_pos(d, n);
		break;
	case N_NKIND:
		open_node(d, depth, "?");
		break;
	}
	kd_buf_puts(o, ")");
}

void kd_ast_dump(KdBuf *out, const KdSource *src, const KdNode *file)
{
	Dump d = {out, src, 1};
	dump(&d, file, 0);
	kd_buf_puts(out, "\n");
}
