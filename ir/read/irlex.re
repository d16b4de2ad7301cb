/* irlex.re: the textual IR's tokenizer (re2c).  Newlines are tokens: the
 * IR is line oriented.  A line whose first non-blank is ';' is a comment
 * (the file header, a buffer's allocation table), skipped here; a ';'
 * after other tokens starts the line's annotation, which the grammar
 * reads.  End of input is the NUL at text[len] (re2c:eof), so an embedded
 * NUL is an invalid character, never a premature end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "irsyn.h"

void kd_irlex_init(KdIrLexer *lx, KdArena *a, KdDiag *d, const KdSource *src)
{
	memset(lx, 0, sizeof *lx);
	lx->a = a;
	lx->d = d;
	lx->base = (const unsigned char *)src->text;
	lx->cur = lx->base;
	lx->lim = lx->base + src->len;
	lx->last = IR_NL;
}

static KdSpan span_of(const KdIrLexer *lx, const unsigned char *s, const unsigned char *e)
{
	return (KdSpan){(uint32_t)(s - lx->base), (uint32_t)(e - s)};
}

static int64_t int_value(KdIrLexer *lx, const unsigned char *s, const unsigned char *e)
{
	int neg = *s == '-';
	uint64_t v = 0, lim = (uint64_t)INT64_MAX + (uint64_t)neg;
	for (const unsigned char *p = s + neg; p < e; p++) {
		unsigned dg = (unsigned)(*p - '0');
		if (v > (lim - dg) / 10) {
			kd_error(lx->d, span_of(lx, s, e), "integer out of range");
			return 0;
		}
		v = v * 10 + dg;
	}
	/* -2^63 has no positive counterpart: negate in unsigned arithmetic */
	return neg ? (int64_t)(0 - v) : (int64_t)v;
}

static const char *string_value(KdIrLexer *lx, const unsigned char *s, const unsigned char *e)
{
	char *out = kd_alloc(lx->a, (size_t)(e - s) + 1), *o = out;
	while (s < e) {
		if (*s != '\\') {
			*o++ = (char)*s++;
			continue;
		}
		static const char hex[] = "0123456789abcdef";
		const char *h1, *h2;
		switch (s[1]) {
		case '"': *o++ = '"'; s += 2; break;
		case '\\': *o++ = '\\'; s += 2; break;
		case 'n': *o++ = '\n'; s += 2; break;
		case 't': *o++ = '\t'; s += 2; break;
		case 'x':
			h1 = s + 2 < e ? strchr(hex, s[2] | 0x20) : NULL;
			h2 = h1 && *h1 && s + 3 < e ? strchr(hex, s[3] | 0x20) : NULL;
			if (h1 && *h1 && h2 && *h2 && (h1 - hex) * 16 + (h2 - hex)) {
				*o++ = (char)((h1 - hex) * 16 + (h2 - hex));
				s += 4;
				break;
			}
			/* fall through */
		default:
			kd_error(lx->d, span_of(lx, s, s + 2), "invalid escape sequence in string");
			s += 2;
			break;
		}
	}
	*o = 0;
	return out;
}

/* At the start of a line: skips the line if it is a comment. */
static void skip_comment_line(KdIrLexer *lx)
{
	const unsigned char *p = lx->cur;
	while (p < lx->lim && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p < lx->lim && *p == ';') {
		const unsigned char *nl = memchr(p, '\n', (size_t)(lx->lim - p));
		lx->cur = nl ? nl : lx->lim;
	}
}

static int next(KdIrLexer *lx, KdIrTok *t)
{
	int tk;
	memset(t, 0, sizeof *t);
	if (lx->cur == lx->base || lx->cur[-1] == '\n')
		skip_comment_line(lx);
loop:
	lx->tok = lx->cur;
	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYCURSOR = "lx->cur";
	re2c:define:YYMARKER = "lx->mrk";
	re2c:define:YYLIMIT = "lx->lim";
	re2c:yyfill:enable = 0;
	re2c:eof = 0;

	digits = [0-9]+;
	exponent = [eE] [+-]? digits;
	float = "-"? (digits "." digits exponent? | digits exponent);
	ident = [A-Za-z_] [A-Za-z0-9_]* ("." [A-Za-z0-9_]+)*;
	/* a kernel, parameter or buffer name: a source identifier, so no '.'
	 * (the emitter writes it into C as it is; ops take dotted names) */
	name = [A-Za-z_] [A-Za-z0-9_]*;
	strchar = [^"\\\n\x00] | "\\" [^\n\x00];

	$ { t->sp = span_of(lx, lx->lim, lx->lim); return 0; }

	[ \t\r]+ { goto loop; }
	"\n" { tk = IR_NL; goto done; }

	"func" { t->str = "func"; tk = IR_FUNC; goto done; }
	"buffer" { t->str = "buffer"; tk = IR_BUFFER; goto done; }
	"bb" digits {
		/* also a word: a source name can look like a block */
		t->str = kd_strndup(lx->a, (const char *)lx->tok, (size_t)(lx->cur - lx->tok));
		t->ival = int_value(lx, lx->tok + 2, lx->cur);
		tk = IR_BLOCK;
		goto done;
	}
	"-"? ("inf" | "nan") {
		t->fval = lx->tok[0] == '-' ? -strtod((const char *)lx->tok + 1, NULL)
		                              : strtod((const char *)lx->tok, NULL);
		tk = IR_FLOAT;
		goto done;
	}
	ident { t->str = kd_strndup(lx->a, (const char *)lx->tok, (size_t)(lx->cur - lx->tok)); tk = IR_IDENT; goto done; }
	"%" digits { t->ival = int_value(lx, lx->tok + 1, lx->cur); tk = IR_LVAL; goto done; }
	"%" name {
		t->str = kd_strndup(lx->a, (const char *)lx->tok + 1, (size_t)(lx->cur - lx->tok - 1));
		tk = IR_PVAL;
		goto done;
	}
	"@" name {
		t->str = kd_strndup(lx->a, (const char *)lx->tok + 1, (size_t)(lx->cur - lx->tok - 1));
		tk = IR_GVAL;
		goto done;
	}
	"-"? digits { t->ival = int_value(lx, lx->tok, lx->cur); tk = IR_INT; goto done; }
	float {
		char *s = kd_strndup(lx->a, (const char *)lx->tok, (size_t)(lx->cur - lx->tok));
		t->fval = strtod(s, NULL);
		tk = IR_FLOAT;
		goto done;
	}
	["] strchar* ["] { t->str = string_value(lx, lx->tok + 1, lx->cur - 1); tk = IR_STRING; goto done; }
	["] strchar* "\\"? {
		kd_error(lx->d, span_of(lx, lx->tok, lx->tok + 1), "unterminated string");
		tk = IR_ILLEGAL;
		goto done;
	}

	"," { tk = IR_COMMA; goto done; }
	":" { tk = IR_COLON; goto done; }
	".." { tk = IR_DOTDOT; goto done; }
	"=" { tk = IR_EQ; goto done; }
	";" { tk = IR_SEMI; goto done; }
	"(" { tk = IR_LP; goto done; }
	")" { tk = IR_RP; goto done; }
	"[" { tk = IR_LB; goto done; }
	"]" { tk = IR_RB; goto done; }
	"{" { tk = IR_LBRACE; goto done; }
	"}" { tk = IR_RBRACE; goto done; }

	* {
		unsigned c = lx->tok[0];
		if (lx->tok < lx->quiet) {
			tk = IR_ILLEGAL;
			goto done;
		}
		/* one report per line: a run of junk adds nothing */
		const unsigned char *nl = memchr(lx->tok, '\n', (size_t)(lx->lim - lx->tok));
		lx->quiet = nl ? nl : lx->lim;
		if (c >= 0x20 && c < 0x7f)
			kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "invalid character '%c'", (int)c);
		else
			kd_error(lx->d, span_of(lx, lx->tok, lx->cur), "invalid byte 0x%02x", c);
		tk = IR_ILLEGAL;
		goto done;
	}
	*/
done:
	t->sp = span_of(lx, lx->tok, lx->cur);
	return tk;
}

int kd_irlex_next(KdIrLexer *lx, KdIrTok *t)
{
	int tk = next(lx, t);
	/* A last line without its newline still ends: hand over one NL. */
	if (tk == 0 && lx->last != IR_NL)
		tk = IR_NL;
	lx->last = tk;
	return tk;
}
