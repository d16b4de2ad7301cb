/* lex.re: the kdsl tokenizer.  re2c turns the rules below into a DFA.
 *
 * End of input is the NUL that KdSource puts at text[len], found with
 * re2c's "sentinel with bounds checks" method (re2c:eof): a NUL before
 * lim is an ordinary byte, so an embedded NUL is an invalid character (or
 * comment text), never a premature end.  Lexical errors are reported here;
 * the parser is then handed TK_ILLEGAL, which it rejects silently, or a
 * well-formed token with a placeholder value, which it accepts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

void kd_lex_init(KdLexer *lx, KdArena *a, KdDiag *d, const KdSource *src)
{
	memset(lx, 0, sizeof *lx);
	lx->a = a;
	lx->d = d;
	lx->src = src;
	lx->base = (const unsigned char *)src->text;
	lx->cur = lx->base;
	lx->lim = lx->base + src->len;
	lx->quiet = lx->base;
}

static KdSpan span_of(const KdLexer *lx, const unsigned char *s, const unsigned char *e)
{
	return (KdSpan){(uint32_t)(s - lx->base), (uint32_t)(e - s)};
}

/* Length of the UTF-8 sequence at p (at most `avail` bytes) and its code
 * point, or 0 if the bytes are not well-formed UTF-8. */
static int utf8_len(const unsigned char *p, size_t avail, uint32_t *cp)
{
	int n;
	uint32_t c, min;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2, c = p[0] & 0x1fu, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3, c = p[0] & 0x0fu, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4, c = p[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if ((size_t)n > avail)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Reports the character at p: '$', '\x01', or U+00E9 for well-formed
 * UTF-8 (never echoed raw, so the message is plain ASCII).  `what` says
 * where it was found ("" or " in string literal").  Only the first on a
 * line is reported: the rest ('x' in quotes, binary junk) add nothing.
 * Returns its length. */
static int bad_char(KdLexer *lx, const unsigned char *p, const char *what)
{
	uint32_t cp = 0;
	int n = p[0] >= 0x80 ? utf8_len(p, (size_t)(lx->lim - p), &cp) : 0;
	KdSpan at = span_of(lx, p, p + (n ? n : 1));
	if (p < lx->quiet)
		return n ? n : 1;
	const unsigned char *nl = memchr(p, '\n', (size_t)(lx->lim - p));
	lx->quiet = nl ? nl : lx->lim;
	if (n) {
		kd_error(lx->d, at, "invalid character U+%04X%s", (unsigned)cp, what);
		return n;
	}
	KdBuf b = {0};
	kd_escape(&b, (const char *)p, 1, '\'');
	kd_error(lx->d, at, "invalid character '%s'%s", b.s, what);
	kd_buf_free(&b);
	return 1;
}

/* Integer literal value; `_` separators are skipped.  Values up to
 * 2^64 - 1 lex (TIK's unsigned mask halves); one above INT64_MAX keeps its
 * 64 bits and sets t->u64, and sema refuses it where the operand is not
 * unsigned. */
static int64_t int_value(KdLexer *lx, KdTok *t, const unsigned char *s, const unsigned char *e, int base)
{
	uint64_t v = 0, lim = UINT64_MAX;
	for (const unsigned char *p = s; p < e; p++) {
		unsigned d;
		if (*p == '_')
			continue;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		if (v > (lim - d) / (unsigned)base) {
			kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "integer literal too large "
			         "(the largest is 18446744073709551615, 0xffff_ffff_ffff_ffff)");
			return 0;
		}
		v = v * (unsigned)base + d;
	}
	t->u64 = v > (uint64_t)INT64_MAX;
	return (int64_t)v;
}

static double float_value(KdLexer *lx)
{
	size_t n = (size_t)(lx->cur - lx->tok), k = 0;
	char *buf = kd_alloc(lx->a, n + 1);
	for (size_t i = 0; i < n; i++)
		if (lx->tok[i] != '_')
			buf[k++] = (char)lx->tok[i];
	buf[k] = 0;
	double v = strtod(buf, NULL);
	if (isinf(v)) {
		kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "floating-point literal out of range");
		return 0;
	}
	return v;
}

/* A decimal count inside a type name (lanes, mask bits), saturated so
 * that sema sees an out-of-range value rather than a wrapped one. */
static int small_count(const unsigned char *s, const unsigned char *e)
{
	long v = 0;
	for (; s < e; s++)
		if (v < 1000000000L)
			v = v * 10 + (*s - '0');
	return (int)v;
}

/* VTYPE "i32x8" and MTYPE "bool8x8": split at the last 'x'. */
static void vector_type(KdLexer *lx, KdTok *t, int mask)
{
	const unsigned char *x = lx->cur - 1;
	while (*x != 'x')
		x--;
	t->lanes = small_count(x + 1, lx->cur);
	if (mask) {
		t->dtype = KD_BOOL;
		t->bits = small_count(lx->tok + 4, x);
	} else {
		t->dtype = (int)kd_dtype_lookup((const char *)lx->tok, (size_t)(x - lx->tok));
	}
}

/* Decodes the body of a string literal (between the quotes). */
static const char *string_value(KdLexer *lx, const unsigned char *s, const unsigned char *e)
{
	char *out = kd_alloc(lx->a, (size_t)(e - s) + 1), *o = out;
	while (s < e) {
		if (*s == '\\') {
			const unsigned char *esc = s;
			switch (s[1]) {
			case '"': *o++ = '"'; break;
			case '\\': *o++ = '\\'; break;
			case 'n': *o++ = '\n'; break;
			case 't': *o++ = '\t'; break;
			default: {
				KdBuf b = {0};
				kd_escape(&b, (const char *)s + 1, 1, '\'');
				kd_error(lx->d, span_of(lx, esc, esc + 2),
				         "invalid escape sequence '\\%s' in string literal", b.s);
				kd_buf_free(&b);
				break;
			}
			}
			s += 2;
		} else if (*s < 0x20 && *s != '\t') {
			s += bad_char(lx, s, " in string literal");
		} else if (*s == 0x7f) {
			s += bad_char(lx, s, " in string literal");
		} else {
			*o++ = (char)*s++;
		}
	}
	*o = 0;
	return out;
}

int kd_lex_next(KdLexer *lx, KdTok *t)
{
	int tk;
	memset(t, 0, sizeof *t);
loop:
	lx->tok = lx->cur;
	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYCURSOR = "lx->cur";
	re2c:define:YYMARKER = "lx->mrk";
	re2c:define:YYLIMIT = "lx->lim";
	re2c:yyfill:enable = 0;
	re2c:eof = 0;

	digits = [0-9] ("_"? [0-9])*;
	hexdigits = [0-9a-fA-F] ("_"? [0-9a-fA-F])*;
	exponent = [eE] [+-]? digits;
	float = digits "." digits exponent? | digits exponent | "." digits exponent?;
	ident = [A-Za-z_] [A-Za-z0-9_]*;
	elemtype = "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64"
	         | "f16" | "bf16" | "f32";
	strchar = [^"\\\n] | "\\" [^\n];
	// Bytes that start no token; a run of them is reported once.
	bad = [^ \t\r\n\v\fA-Za-z0-9_"+\-*/%<>=!&|^()[\]{},;:.];

	$ { t->sp = span_of(lx, lx->lim, lx->lim); return 0; }

	[ \t\r\n\v\f]+ { goto loop; }
	"//" [^\n]* { goto loop; }
	"/*" ([^*] | "*"+ [^*/])* "*"+ "/" { goto loop; }
	"/*" {
		kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "unterminated comment");
		lx->cur = lx->lim;
		tk = TK_ILLEGAL;
		goto done;
	}

	"target" { tk = TK_TARGET; goto done; }
	"const" { tk = TK_CONST; goto done; }
	"kernel" { tk = TK_KERNEL; goto done; }
	"let" { tk = TK_LET; goto done; }
	"var" { tk = TK_VAR; goto done; }
	"for" { tk = TK_FOR; goto done; }
	"in" { tk = TK_IN; goto done; }
	"step" { tk = TK_STEP; goto done; }
	"if" { tk = TK_IF; goto done; }
	"else" { tk = TK_ELSE; goto done; }
	"return" { tk = TK_RETURN; goto done; }
	"true" { tk = TK_TRUE; goto done; }
	"false" { tk = TK_FALSE; goto done; }

	elemtype | "bool" {
		t->dtype = (int)kd_dtype_lookup((const char *)lx->tok, (size_t)(lx->cur - lx->tok));
		tk = TK_DTYPE;
		goto done;
	}
	elemtype "x" [0-9]+ { vector_type(lx, t, 0); tk = TK_VTYPE; goto done; }
	"bool" [0-9]+ "x" [0-9]+ { vector_type(lx, t, 1); tk = TK_MTYPE; goto done; }
	ident { tk = TK_IDENT; goto done; }

	digits { t->ival = int_value(lx, t, lx->tok, lx->cur, 10); tk = TK_INT; goto done; }
	"0" [xX] hexdigits { t->ival = int_value(lx, t, lx->tok + 2, lx->cur, 16); tk = TK_INT; goto done; }
	float { t->fval = float_value(lx); tk = TK_FLOAT; goto done; }
	// A number run into letters ("12ab", "0x", "1_", "1.5f"): one error, and
	// an INT so that the parser carries on as if the number were fine.
	[0-9] [0-9A-Za-z_]* | float [0-9A-Za-z_]+ {
		KdBuf b = {0};
		kd_escape(&b, (const char *)lx->tok, (size_t)(lx->cur - lx->tok), '\'');
		kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "invalid numeric literal '%s'", b.s);
		kd_buf_free(&b);
		tk = TK_INT;
		goto done;
	}

	["] strchar* ["] {
		t->str = string_value(lx, lx->tok + 1, lx->cur - 1);
		tk = TK_STRING;
		goto done;
	}
	["] strchar* "\\"? {
		kd_error(lx->d, span_of(lx, lx->tok, lx->tok + 1), "unterminated string");
		tk = TK_ILLEGAL;
		goto done;
	}

	";" { tk = TK_SEMI; goto done; }
	"," { tk = TK_COMMA; goto done; }
	":" { tk = TK_COLON; goto done; }
	".." { tk = TK_DOTDOT; goto done; }
	"." { tk = TK_DOT; goto done; }
	"=" { tk = TK_ASSIGN; goto done; }
	"(" { tk = TK_LPAREN; goto done; }
	")" { tk = TK_RPAREN; goto done; }
	"[" { tk = TK_LBRACKET; goto done; }
	"]" { tk = TK_RBRACKET; goto done; }
	"{" { tk = TK_LBRACE; goto done; }
	"}" { tk = TK_RBRACE; goto done; }
	"||" { tk = TK_OROR; goto done; }
	"&&" { tk = TK_ANDAND; goto done; }
	"==" { tk = TK_EQ; goto done; }
	"!=" { tk = TK_NE; goto done; }
	"<" { tk = TK_LT; goto done; }
	"<=" { tk = TK_LE; goto done; }
	">" { tk = TK_GT; goto done; }
	">=" { tk = TK_GE; goto done; }
	"|" { tk = TK_PIPE; goto done; }
	"^" { tk = TK_CARET; goto done; }
	"&" { tk = TK_AMP; goto done; }
	"<<" { tk = TK_SHL; goto done; }
	">>" { tk = TK_SHR; goto done; }
	"+" { tk = TK_PLUS; goto done; }
	"-" { tk = TK_MINUS; goto done; }
	"*" { tk = TK_STAR; goto done; }
	"/" { tk = TK_SLASH; goto done; }
	"%" { tk = TK_PERCENT; goto done; }
	"!" { tk = TK_NOT; goto done; }
	"~" { tk = TK_TILDE; goto done; }

	bad+ { bad_char(lx, lx->tok, ""); tk = TK_ILLEGAL; goto done; }
	// Anything else, such as a lone '$'.
	* { bad_char(lx, lx->tok, ""); tk = TK_ILLEGAL; goto done; }
	*/
done:
	t->sp = span_of(lx, lx->tok, lx->cur);
	return tk;
}
