/* irparse.y: the grammar of the textual IR (--emit=ir, read back with
 * `kdslc -x ir`).  The IR is line oriented: a function header, buffer
 * declarations, block headers and instructions, each on one line and each
 * handed to the reader (irread.c) as it reduces.  Which op, which value
 * and which type a name means is the reader's business.
 *
 * Error recovery is per line: after a syntax error the parser skips to the
 * end of the line and carries on, so independent errors on later lines
 * are reported in the same run. */

%name kd_irparser
%token_prefix IR_
%token_type {KdIrTok}
%default_type {KdIrNode *}
%extra_context {KdIrParseCtx *ctx}
%start_symbol file

%token FUNC BUFFER IDENT LVAL PVAL GVAL BLOCK INT FLOAT STRING.
%token NL COMMA COLON DOTDOT EQ SEMI LP RP LB RB LBRACE RBRACE.
/* Malformed input the lexer already reported: no rule accepts it. */
%token ILLEGAL.

%include {
#include <stdlib.h>
#include <string.h>

#include "irsyn.h"

/* Bison's yyerrok: once a line has been skipped, the next error is new. */
#define KD_IRERROK (yypParser->yyerrcnt = -1)

static const char *ir_tok_spelling(int tk)
{
	switch (tk) {
	case 0: return "end of file";
	case IR_NL: return "end of line";
	case IR_IDENT: return "identifier";
	case IR_LVAL: return "value";
	case IR_PVAL: return "parameter";
	case IR_GVAL: return "'@' name";
	case IR_BLOCK: return "block";
	case IR_INT: return "integer";
	case IR_FLOAT: return "number";
	case IR_STRING: return "string";
	case IR_FUNC: return "'func'";
	case IR_BUFFER: return "'buffer'";
	case IR_COMMA: return "','";
	case IR_COLON: return "':'";
	case IR_DOTDOT: return "'..'";
	case IR_EQ: return "'='";
	case IR_SEMI: return "';'";
	case IR_LP: return "'('";
	case IR_RP: return "')'";
	case IR_LB: return "'['";
	case IR_RB: return "']'";
	case IR_LBRACE: return "'{'";
	case IR_RBRACE: return "'}'";
	default: return "token";
	}
}
}

%syntax_error {
	(void)yymajor;
	if (yymajor != IR_ILLEGAL)
		kd_error(ctx->d, yyminor.sp, "syntax error: unexpected %s", ir_tok_spelling(yymajor));
	ctx->nerr_syntax++;
}
%stack_overflow { kd_error(ctx->d, (KdSpan){0, 0}, "IR nested too deeply"); }
%token_destructor { (void)yypminor; (void)ctx; }

file ::= lines.
lines ::= .
lines ::= lines line.

line ::= NL.
line ::= error NL.                                   { KD_IRERROK; }
line ::= FUNC(K) GVAL(N) LP fparams(P) RP LBRACE NL. { kd_irr_func(ctx->r, K, N, P); }
line ::= RBRACE(B) NL.                               { kd_irr_end(ctx->r, B); }
line ::= BUFFER(K) GVAL(N) COLON btype(T) battrs(A) NL.
                                                     { kd_irr_buffer(ctx->r, K, N, T, A); }
line ::= BLOCK(B) bparams(P) COLON trail(T) NL.      { kd_irr_block(ctx->r, B, P, T); }
line ::= LVAL(R) EQ IDENT(O) operands(A) rtype(T) trail(L) NL.
                                                     { kd_irr_ins(ctx->r, kd_irn_tok(ctx->a, R, IR_LVAL), O, A, T, L); }
line ::= IDENT(O) operands(A) rtype(T) trail(L) NL.  { kd_irr_ins(ctx->r, NULL, O, A, T, L); }

/* ---- function parameters and buffer types ---- */
fparams(L) ::= .                                     { L = kd_irn(ctx->a, IRN_LIST, (KdSpan){0, 0}); }
fparams(L) ::= fplist(X).                            { L = X; }
fplist(L) ::= fparam(X).                             { L = kd_irn_push(ctx->a, NULL, X); }
fplist(L) ::= fplist(Y) COMMA fparam(X).             { L = kd_irn_push(ctx->a, Y, X); }
fparam(P) ::= PVAL(N) COLON IDENT(T).
	{ P = kd_irn_tok(ctx->a, N, IRN_FPARAM); P->a = kd_irn_tok(ctx->a, T, IR_IDENT); }
fparam(P) ::= PVAL(N) COLON btype(T).                { P = kd_irn_tok(ctx->a, N, IRN_FPARAM); P->a = T; }

btype(T) ::= IDENT(S) IDENT(D) LB ints(L) RB(E).
	{
		T = kd_irn(ctx->a, IRN_BTYPE, kd_span_join(S.sp, E.sp));
		T->a = kd_irn_tok(ctx->a, S, IR_IDENT);
		T->b = kd_irn_tok(ctx->a, D, IR_IDENT);
		T->l = L->l;
	}
ints(L) ::= INT(X).                                  { L = kd_irn_push(ctx->a, NULL, kd_irn_tok(ctx->a, X, IR_INT)); }
ints(L) ::= ints(Y) COMMA INT(X).                    { L = kd_irn_push(ctx->a, Y, kd_irn_tok(ctx->a, X, IR_INT)); }

battrs(L) ::= .                                      { L = kd_irn(ctx->a, IRN_LIST, (KdSpan){0, 0}); }
battrs(L) ::= battrs(Y) battr(X).                    { L = kd_irn_push(ctx->a, Y, X); }
battr(A) ::= IDENT(K) INT(V).
	{ A = kd_irn_tok(ctx->a, K, IRN_BATTR); A->a = kd_irn_tok(ctx->a, V, IR_INT); }
battr(A) ::= IDENT(K) EQ INT(V).
	{ A = kd_irn_tok(ctx->a, K, IRN_BATTR); A->a = kd_irn_tok(ctx->a, V, IR_INT); }
battr(A) ::= IDENT(K) EQ IDENT(V).
	{ A = kd_irn_tok(ctx->a, K, IRN_BATTR); A->a = kd_irn_tok(ctx->a, V, IR_IDENT); }
battr(A) ::= IDENT(K) EQ LB ints(L) RB.              { A = kd_irn_tok(ctx->a, K, IRN_BATTR); A->a = L; }

/* ---- blocks ---- */
bparams(L) ::= .                                     { L = kd_irn(ctx->a, IRN_LIST, (KdSpan){0, 0}); }
bparams(L) ::= LP bplist(X) RP.                      { L = X; }
bplist(L) ::= bparam(X).                             { L = kd_irn_push(ctx->a, NULL, X); }
bplist(L) ::= bplist(Y) COMMA bparam(X).             { L = kd_irn_push(ctx->a, Y, X); }
bparam(P) ::= LVAL(V) COLON IDENT(T).
	{ P = kd_irn_tok(ctx->a, V, IRN_BPARAM); P->a = kd_irn_tok(ctx->a, T, IR_IDENT); }

/* ---- instructions ---- */
operands(L) ::= .                                    { L = kd_irn(ctx->a, IRN_LIST, (KdSpan){0, 0}); }
operands(L) ::= oplist(X).                           { L = X; }
oplist(L) ::= operand(X).                            { L = kd_irn_push(ctx->a, NULL, X); }
oplist(L) ::= oplist(Y) COMMA operand(X).            { L = kd_irn_push(ctx->a, Y, X); }
operand(X) ::= value(V).                             { X = V; }
operand(X) ::= GVAL(B).                              { X = kd_irn_tok(ctx->a, B, IR_GVAL); }
operand(X) ::= BLOCK(B).                             { X = kd_irn_tok(ctx->a, B, IRN_SUCC); }
operand(X) ::= BLOCK(B) LP vlist(L) RP.              { X = kd_irn_tok(ctx->a, B, IRN_SUCC); X->l = L->l; }
vlist(L) ::= value(X).                               { L = kd_irn_push(ctx->a, NULL, X); }
vlist(L) ::= vlist(Y) COMMA value(X).                { L = kd_irn_push(ctx->a, Y, X); }

value(X) ::= LVAL(T).                                { X = kd_irn_tok(ctx->a, T, IR_LVAL); }
value(X) ::= PVAL(T).                                { X = kd_irn_tok(ctx->a, T, IR_PVAL); }
value(X) ::= INT(T).                                 { X = kd_irn_tok(ctx->a, T, IR_INT); }
value(X) ::= FLOAT(T).                               { X = kd_irn_tok(ctx->a, T, IR_FLOAT); }
value(X) ::= STRING(T).                              { X = kd_irn_tok(ctx->a, T, IR_STRING); }
value(X) ::= IDENT(T).                               { X = kd_irn_tok(ctx->a, T, IR_IDENT); }

rtype(T) ::= .                                       { T = NULL; }
rtype(T) ::= COLON IDENT(X).                         { T = kd_irn_tok(ctx->a, X, IR_IDENT); }

/* ---- the `; ...` annotation that ends a block header or instruction:
 * a head (a label, or the L:C source location), then `, item`s ---- */
trail(T) ::= .                                       { T = NULL; }
trail(T) ::= SEMI(S) thead(H) titems(L).             { T = L; T->sp = S.sp; T->a = H; }
thead(H) ::= .                                       { H = NULL; }
thead(H) ::= IDENT(X).                               { H = kd_irn_tok(ctx->a, X, IR_IDENT); }
thead(H) ::= INT(L) COLON INT(C).
	{ H = kd_irn_tok(ctx->a, L, IRN_LOC); H->c = kd_irn_tok(ctx->a, C, IR_INT); }
titems(L) ::= .                                      { L = kd_irn(ctx->a, IRN_LIST, (KdSpan){0, 0}); }
titems(L) ::= titems(Y) COMMA titem(X).              { L = kd_irn_push(ctx->a, Y, X); }
titem(X) ::= word(K) word(V).                        { X = kd_irn(ctx->a, IRN_TNAME, K->sp); X->str = K->str; X->a = V; }
titem(X) ::= word(K) LVAL(N) word(V).
	{ X = kd_irn(ctx->a, IRN_TPNAME, K->sp); X->str = K->str; X->ival = N.ival; X->a = V; }
titem(X) ::= word(K) LVAL(N) word(I) bound(LO) DOTDOT bound(HI) word(S) INT(ST).
	{
		X = kd_irn(ctx->a, IRN_TLOOP, K->sp);
		X->str = K->str;
		X->ival = N.ival;
		X->a = LO;
		X->b = HI;
		X->c = kd_irn_tok(ctx->a, ST, IR_INT);
		/* the fixed words, checked by the reader: in, step */
		X->l.v = NULL;
		kd_irn_push(ctx->a, X, I);
		kd_irn_push(ctx->a, X, S);
	}
bound(X) ::= LVAL(T).                                { X = kd_irn_tok(ctx->a, T, IR_LVAL); }
bound(X) ::= PVAL(T).                                { X = kd_irn_tok(ctx->a, T, IR_PVAL); }
bound(X) ::= INT(T).                                 { X = kd_irn_tok(ctx->a, T, IR_INT); }
word(X) ::= IDENT(T).                                { X = kd_irn_tok(ctx->a, T, IR_IDENT); }
word(X) ::= FUNC(T).                                 { X = kd_irn_tok(ctx->a, T, IR_IDENT); }
word(X) ::= BUFFER(T).                               { X = kd_irn_tok(ctx->a, T, IR_IDENT); }
word(X) ::= BLOCK(T).                                { X = kd_irn_tok(ctx->a, T, IR_IDENT); }
