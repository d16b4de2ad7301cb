/* tokens.c: token kind names and spellings, string escaping, and the
 * --emit=tokens dump. */
#include "lex.h"
#include "parse.h"

typedef struct {
	const char *name;            /* the kind, as --emit=tokens prints it */
	const char *spelling;        /* what the user types, for "expected ..." */
} TokInfo;

/* Indexed by TK_* code, so the table does not depend on lemon's order. */
static const TokInfo tokinfo[] = {
	[0] = {"EOF", "end of file"},
	[TK_TARGET] = {"TARGET", "'target'"},
	[TK_CONST] = {"CONST", "'const'"},
	[TK_KERNEL] = {"KERNEL", "'kernel'"},
	[TK_LET] = {"LET", "'let'"},
	[TK_VAR] = {"VAR", "'var'"},
	[TK_FOR] = {"FOR", "'for'"},
	[TK_IN] = {"IN", "'in'"},
	[TK_STEP] = {"STEP", "'step'"},
	[TK_IF] = {"IF", "'if'"},
	[TK_ELSE] = {"ELSE", "'else'"},
	[TK_RETURN] = {"RETURN", "'return'"},
	[TK_TRUE] = {"TRUE", "'true'"},
	[TK_FALSE] = {"FALSE", "'false'"},
	[TK_IDENT] = {"IDENT", "an identifier"},
	[TK_INT] = {"INT", "an integer"},
	[TK_FLOAT] = {"FLOAT", "a number"},
	[TK_STRING] = {"STRING", "a string"},
	[TK_DTYPE] = {"DTYPE", "a dtype"},
	[TK_VTYPE] = {"VTYPE", "a vector type"},
	[TK_MTYPE] = {"MTYPE", "a mask type"},
	[TK_SEMI] = {"SEMI", "';'"},
	[TK_COMMA] = {"COMMA", "','"},
	[TK_COLON] = {"COLON", "':'"},
	[TK_DOTDOT] = {"DOTDOT", "'..'"},
	[TK_ASSIGN] = {"ASSIGN", "'='"},
	[TK_LPAREN] = {"LPAREN", "'('"},
	[TK_RPAREN] = {"RPAREN", "')'"},
	[TK_LBRACKET] = {"LBRACKET", "'['"},
	[TK_RBRACKET] = {"RBRACKET", "']'"},
	[TK_LBRACE] = {"LBRACE", "'{'"},
	[TK_RBRACE] = {"RBRACE", "'}'"},
	[TK_OROR] = {"OROR", "'||'"},
	[TK_ANDAND] = {"ANDAND", "'&&'"},
	[TK_EQ] = {"EQ", "'=='"},
	[TK_NE] = {"NE", "'!='"},
	[TK_LT] = {"LT", "'<'"},
	[TK_LE] = {"LE", "'<='"},
	[TK_GT] = {"GT", "'>'"},
	[TK_GE] = {"GE", "'>='"},
	[TK_PIPE] = {"PIPE", "'|'"},
	[TK_CARET] = {"CARET", "'^'"},
	[TK_AMP] = {"AMP", "'&'"},
	[TK_SHL] = {"SHL", "'<<'"},
	[TK_SHR] = {"SHR", "'>>'"},
	[TK_PLUS] = {"PLUS", "'+'"},
	[TK_MINUS] = {"MINUS", "'-'"},
	[TK_STAR] = {"STAR", "'*'"},
	[TK_SLASH] = {"SLASH", "'/'"},
	[TK_PERCENT] = {"PERCENT", "'%'"},
	[TK_NOT] = {"NOT", "'!'"},
	[TK_DOT] = {"DOT", "'.'"},
	[TK_TILDE] = {"TILDE", "'~'"},
	[TK_ILLEGAL] = {"ILLEGAL", "an invalid token"},
};

static const TokInfo *info(int tk)
{
	static const TokInfo unknown = {"?", "?"};
	if (tk < 0 || tk >= (int)(sizeof tokinfo / sizeof tokinfo[0]) || !tokinfo[tk].name)
		return &unknown;
	return &tokinfo[tk];
}

const char *kd_tok_name(int tk)
{
	return info(tk)->name;
}

const char *kd_tok_spelling(int tk)
{
	return info(tk)->spelling;
}

void kd_escape(KdBuf *b, const char *text, size_t n, int quote)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)text[i];
		if (quote && (ch == '\\' || ch == quote)) {
			char esc[2] = {'\\', (char)ch};
			kd_buf_put(b, esc, 2);
		} else if (quote && ch == '\n') {
			kd_buf_puts(b, "\\n");
		} else if (quote && ch == '\t') {
			kd_buf_puts(b, "\\t");
		} else if (ch < 0x20 || ch >= 0x7f) {
			kd_buf_printf(b, "\\x%02x", ch);
		} else {
			kd_buf_put(b, (const char *)&ch, 1);
		}
	}
	if (!b->s)
		kd_buf_put(b, "", 0);
}

void kd_dump_tokens(KdBuf *out, KdDiag *d, const KdSource *src)
{
	KdArena *a = kd_arena_new();
	KdLexer lx;
	KdTok t;
	int tk, line, col;
	kd_lex_init(&lx, a, d, src);
	do {
		tk = kd_lex_next(&lx, &t);
		kd_source_linecol(src, t.sp.off, &line, &col);
		kd_buf_printf(out, "%d:%d %s", line, col, kd_tok_name(tk));
		if (tk != 0) {
			kd_buf_puts(out, " '");
			kd_escape(out, src->text + t.sp.off, t.sp.len, 0);
			kd_buf_puts(out, "'");
		}
		kd_buf_puts(out, "\n");
	} while (tk != 0);
	kd_arena_free(a);
}
