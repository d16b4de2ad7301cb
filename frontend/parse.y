/* parse.y: the kdsl grammar (LANGUAGE.md sections 1-3), for lemon.
 *
 * Actions are one-liners calling the builders in the %code section at the
 * end.  Terminals carry a KdTok (span and decoded value); nonterminals a
 * KdNode in the arena.  Lists (parameters, arguments, statements, ...) are
 * gathered in the node that will own them.
 *
 * Error handling: %syntax_error reports what the automaton would have
 * accepted (kd_syntax_error); recovery is at statement and declaration
 * level through the `error` symbol, after which the parser skips to the
 * next ';' or '{...}' block (or the '}' closing the current block) and
 * then reports new errors again at once (KD_ERROK, bison's yyerrok).
 *
 * Deliberately loose, for sema to judge with better messages: 'target' may
 * appear anywhere (kd_parse checks it comes first), any expression may be
 * a statement, a bare type is an expression (dtype=f32), and a block may
 * nest as a statement. */

%name kd_parser
%token_prefix TK_
%token_type {KdTok}
%default_type {KdNode *}
%extra_context {KdParseCtx *ctx}
%start_symbol file

/* Bounds the nesting of blocks and expressions (a stack entry per open
 * construct); %stack_overflow reports it and the feeder stops. */
%stack_size 1000

/* The order of %token fixes the TK_* codes, and so the order in which
 * "expected ..." lists tokens. */
%token TARGET CONST KERNEL LET VAR FOR IN STEP IF ELSE RETURN TRUE FALSE.
%token IDENT INT FLOAT STRING DTYPE VTYPE MTYPE.
%token SEMI COMMA COLON DOTDOT ASSIGN LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE.
%token OROR ANDAND EQ NE LT LE GT GE PIPE CARET AMP SHL SHR.
%token PLUS MINUS STAR SLASH PERCENT NOT.
/* after the others, so their codes (and "expected" lists) stay */
%token DOT.
/* What the lexer hands over for malformed input it has already reported;
 * no rule accepts it, and kd_syntax_error stays silent about it. */
%token ILLEGAL.

/* C precedence, lowest first. */
%left OROR.
%left ANDAND.
%left EQ NE.
%left LT LE GT GE.
%left PIPE.
%left CARET.
%left AMP.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right NOT TILDE.
%left LBRACKET DOT.

%include {
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "parse.h"

/* Bison's yyerrok: once recovery has resynchronised at a statement or
 * declaration boundary, the next error is independent and is reported
 * (lemon would otherwise stay quiet until three more tokens shift). */
#define KD_ERROK (yypParser->yyerrcnt = -1)

struct yyParser;
static void kd_syntax_error(struct yyParser *p, int major, KdTok tok);
static void kd_stack_overflow(KdParseCtx *c);

static void decl_push(KdParseCtx *c, KdNode *n);
static KdNode *mk_target(KdParseCtx *c, KdTok kw, KdTok name, KdTok end);
static KdNode *mk_const(KdParseCtx *c, KdTok kw, KdTok name, KdNode *val, KdTok end);
static KdNode *mk_kernel(KdParseCtx *c, KdTok kw, KdTok name, KdNode *params, KdNode *body);
static KdNode *mk_param(KdParseCtx *c, KdTok name, KdNode *type);
static KdNode *mk_holder(KdParseCtx *c, KdNodeKind k, KdNode *first);
static KdNode *add(KdParseCtx *c, KdNode *parent, KdNode *child);
static KdNode *add_arg(KdParseCtx *c, KdNode *call, KdNode *arg);
static KdNode *mk_type(KdParseCtx *c, int tk, KdTok t);
static KdNode *mk_tensor_type(KdParseCtx *c, KdTok space, KdTok dt, KdNode *blocks,
                              KdNode *dims, KdTok end);
static KdNode *mk_let(KdParseCtx *c, KdTok name, KdNode *type, KdNode *init);
static KdNode *mk_lettuple(KdParseCtx *c, KdNode *names, KdNode *init);
static KdNode *mk_assign(KdParseCtx *c, KdTok name, KdNode *val, KdTok end);
static KdNode *mk_store(KdParseCtx *c, KdNode *target, KdNode *val, KdTok end);
static KdNode *mk_store(KdParseCtx *c, KdNode *target, KdNode *val, KdTok end)
{
	KdNode *n = kd_node(c->ast, N_STORE, kd_span_join(target->span, end.sp));
	n->a = target;
	n->b = val;
	return n;
}

static KdNode *mk_for(KdParseCtx *c, KdTok kw, KdTok var, KdNode *lo, KdNode *hi,
                      KdNode *step, KdNode *body);
static KdNode *mk_if(KdParseCtx *c, KdTok kw, KdNode *cond, KdNode *then, KdNode *els);
static KdNode *mk_stmt(KdParseCtx *c, KdNodeKind k, KdSpan from, KdNode *a, KdTok end);
static KdNode *span_from(KdNode *n, KdSpan from, KdSpan to);
static KdNode *mk_ident(KdParseCtx *c, KdTok t);
static KdNode *mk_lit(KdParseCtx *c, int tk, KdTok t);
static KdNode *mk_binary(KdParseCtx *c, int op, KdNode *l, KdNode *r);
static KdNode *mk_unary(KdParseCtx *c, int op, KdTok optok, KdNode *e);
static KdNode *mk_call(KdParseCtx *c, KdTok name, KdNode *args, KdTok end);
static KdNode *mk_cast(KdParseCtx *c, KdNode *type, KdNode *args, KdTok end);
static KdNode *mk_kwarg(KdParseCtx *c, KdTok name, KdNode *val);
static KdNode *mk_index(KdParseCtx *c, KdNode *base, KdNode *idx, KdTok end);
static KdNode *mk_slice(KdParseCtx *c, KdSpan from, KdNode *lo, KdNode *hi, KdSpan to);
static KdNode *mk_step(KdParseCtx *c, KdNode *slice, KdNode *step);
static KdNode *mk_member(KdParseCtx *c, KdNode *base, KdTok name);
static KdNode *mk_seq(KdParseCtx *c, KdNodeKind k, KdNode *holder, KdTok open, KdTok close);
}

%syntax_error { kd_syntax_error(yypParser, yymajor, yyminor); }
%stack_overflow { kd_stack_overflow(ctx); }
/* Tokens own nothing (nodes live in the arena); this only keeps the
 * generated yy_destructor free of unused-variable warnings. */
%token_destructor { (void)yypminor; (void)ctx; }

/* ---- declarations ---- */

file ::= decls.
decls ::= .
decls ::= decls decl.

decl ::= TARGET(K) IDENT(N) SEMI(E).                 { decl_push(ctx, mk_target(ctx, K, N, E)); }
decl ::= CONST(K) IDENT(N) ASSIGN expr(V) SEMI(E).   { decl_push(ctx, mk_const(ctx, K, N, V, E)); }
decl ::= KERNEL(K) IDENT(N) LPAREN params(P) RPAREN block(B).
                                                     { decl_push(ctx, mk_kernel(ctx, K, N, P, B)); }
decl ::= error SEMI.                                 { KD_ERROK; }
decl ::= error block.                                { KD_ERROK; }

/* Parameters gather in an N_KERNEL that mk_kernel completes. */
params(A) ::= .                                      { A = mk_holder(ctx, N_KERNEL, NULL); }
params(A) ::= paramlist(A).
params(A) ::= paramlist(A) COMMA.
paramlist(A) ::= param(P).                           { A = mk_holder(ctx, N_KERNEL, P); }
paramlist(A) ::= paramlist(L) COMMA param(P).        { A = add(ctx, L, P); }
param(A) ::= IDENT(N) COLON type(T).                 { A = mk_param(ctx, N, T); }

/* ---- types ---- */

type(A) ::= typename(A).
type(A) ::= IDENT(S) DTYPE(T) LBRACKET exprs(D) RBRACKET(E).
                                                     { A = mk_tensor_type(ctx, S, T, NULL, D, E); }
type(A) ::= IDENT(S) DTYPE(T) LBRACKET exprs(B) RBRACKET LBRACKET exprs(D) RBRACKET(E).
                                                     { A = mk_tensor_type(ctx, S, T, B, D, E); }
typename(A) ::= DTYPE(T).                            { A = mk_type(ctx, TK_DTYPE, T); }
typename(A) ::= VTYPE(T).                            { A = mk_type(ctx, TK_VTYPE, T); }
typename(A) ::= MTYPE(T).                            { A = mk_type(ctx, TK_MTYPE, T); }

/* ---- statements ---- */

block(A) ::= LBRACE(L) stmts(S) RBRACE(R).           { A = span_from(S, L.sp, R.sp); }
block(A) ::= LBRACE(L) stmts(S) error RBRACE(R).     { A = span_from(S, L.sp, R.sp); KD_ERROK; }
stmts(A) ::= .                                       { A = mk_holder(ctx, N_BLOCK, NULL); }
stmts(A) ::= stmts(L) stmt(S).                       { A = add(ctx, L, S); }

stmt(A) ::= LET(K) binding(B) SEMI(E).               { A = span_from(B, K.sp, E.sp); }
stmt(A) ::= VAR(K) binding(B) SEMI(E).               { A = span_from(B, K.sp, E.sp); A->flags |= KD_LET_VAR; }
stmt(A) ::= LET(K) LPAREN names(L) RPAREN ASSIGN expr(V) SEMI(E).
                                                     { A = span_from(mk_lettuple(ctx, L, V), K.sp, E.sp); }
stmt(A) ::= IDENT(N) ASSIGN expr(V) SEMI(E).         { A = mk_assign(ctx, N, V, E); }
/* an element write, u[i] = v (ascend: TIK's Scalar.set_as on ub) */
stmt(A) ::= expr(B) LBRACKET indices(I) RBRACKET(R) ASSIGN expr(V) SEMI(E).
                                                     { A = mk_store(ctx, mk_index(ctx, B, I, R), V, E); }
stmt(A) ::= expr(X) SEMI(E).                         { A = mk_stmt(ctx, N_EXPRSTMT, X->span, X, E); }
stmt(A) ::= FOR(K) IDENT(I) IN expr(L) DOTDOT expr(H) block(B).
                                                     { A = mk_for(ctx, K, I, L, H, NULL, B); }
stmt(A) ::= FOR(K) IDENT(I) IN expr(L) DOTDOT expr(H) STEP expr(S) block(B).
                                                     { A = mk_for(ctx, K, I, L, H, S, B); }
stmt(A) ::= ifstmt(A).
stmt(A) ::= RETURN(K) SEMI(E).                       { A = mk_stmt(ctx, N_RETURN, K.sp, NULL, E); }
stmt(A) ::= block(A).
stmt(A) ::= error SEMI.                              { A = NULL; KD_ERROK; }
stmt(A) ::= error block.                             { A = NULL; KD_ERROK; }
/* A bad if condition: skip the else branches too, or 'else' would be
 * reported as the next error. */
stmt(A) ::= error block ELSE block.                  { A = NULL; KD_ERROK; }
stmt(A) ::= error block ELSE ifstmt.                 { A = NULL; KD_ERROK; }

binding(A) ::= IDENT(N) COLON type(T).               { A = mk_let(ctx, N, T, NULL); }
binding(A) ::= IDENT(N) COLON type(T) ASSIGN expr(V).
                                                     { A = mk_let(ctx, N, T, V); }
binding(A) ::= IDENT(N) ASSIGN expr(V).              { A = mk_let(ctx, N, NULL, V); }
names(A) ::= IDENT(N).                               { A = mk_holder(ctx, N_LETTUPLE, mk_ident(ctx, N)); }
names(A) ::= names(L) COMMA IDENT(N).                { A = add(ctx, L, mk_ident(ctx, N)); }

ifstmt(A) ::= IF(K) expr(C) block(T).                { A = mk_if(ctx, K, C, T, NULL); }
ifstmt(A) ::= IF(K) expr(C) block(T) ELSE block(E).  { A = mk_if(ctx, K, C, T, E); }
ifstmt(A) ::= IF(K) expr(C) block(T) ELSE ifstmt(E). { A = mk_if(ctx, K, C, T, E); }

/* ---- expressions ---- */

expr(A) ::= expr(L) OROR expr(R).                    { A = mk_binary(ctx, B_LOR, L, R); }
expr(A) ::= expr(L) ANDAND expr(R).                  { A = mk_binary(ctx, B_LAND, L, R); }
expr(A) ::= expr(L) EQ expr(R).                      { A = mk_binary(ctx, B_EQ, L, R); }
expr(A) ::= expr(L) NE expr(R).                      { A = mk_binary(ctx, B_NE, L, R); }
expr(A) ::= expr(L) LT expr(R).                      { A = mk_binary(ctx, B_LT, L, R); }
expr(A) ::= expr(L) LE expr(R).                      { A = mk_binary(ctx, B_LE, L, R); }
expr(A) ::= expr(L) GT expr(R).                      { A = mk_binary(ctx, B_GT, L, R); }
expr(A) ::= expr(L) GE expr(R).                      { A = mk_binary(ctx, B_GE, L, R); }
expr(A) ::= expr(L) PIPE expr(R).                    { A = mk_binary(ctx, B_OR, L, R); }
expr(A) ::= expr(L) CARET expr(R).                   { A = mk_binary(ctx, B_XOR, L, R); }
expr(A) ::= expr(L) AMP expr(R).                     { A = mk_binary(ctx, B_AND, L, R); }
expr(A) ::= expr(L) SHL expr(R).                     { A = mk_binary(ctx, B_SHL, L, R); }
expr(A) ::= expr(L) SHR expr(R).                     { A = mk_binary(ctx, B_SHR, L, R); }
expr(A) ::= expr(L) PLUS expr(R).                    { A = mk_binary(ctx, B_ADD, L, R); }
expr(A) ::= expr(L) MINUS expr(R).                   { A = mk_binary(ctx, B_SUB, L, R); }
expr(A) ::= expr(L) STAR expr(R).                    { A = mk_binary(ctx, B_MUL, L, R); }
expr(A) ::= expr(L) SLASH expr(R).                   { A = mk_binary(ctx, B_DIV, L, R); }
expr(A) ::= expr(L) PERCENT expr(R).                 { A = mk_binary(ctx, B_REM, L, R); }
expr(A) ::= MINUS(O) expr(E). [NOT]                  { A = mk_unary(ctx, U_NEG, O, E); }
expr(A) ::= PLUS(O) expr(E). [NOT]                   { A = mk_unary(ctx, U_PLUS, O, E); }
expr(A) ::= NOT(O) expr(E).                          { A = mk_unary(ctx, U_NOT, O, E); }
expr(A) ::= TILDE(O) expr(E).                        { A = mk_unary(ctx, U_BITNOT, O, E); }
expr(A) ::= expr(B) LBRACKET indices(I) RBRACKET(E). { A = mk_index(ctx, B, I, E); }
/* v.T: a view's dims swapped (sema: 2-D views only). */
expr(A) ::= expr(B) DOT IDENT(N).                    { A = mk_member(ctx, B, N); }
/* Calls name an op (sema resolves it); a call on a type is a cast. */
expr(A) ::= IDENT(N) LPAREN args(L) RPAREN(E).       { A = mk_call(ctx, N, L, E); }
expr(A) ::= typename(T) LPAREN args(L) RPAREN(E).    { A = mk_cast(ctx, T, L, E); }
/* A bare type is a value too, for arguments such as dtype=f32. */
expr(A) ::= typename(A).
expr(A) ::= LPAREN(L) expr(E) RPAREN(R).             { A = span_from(E, L.sp, R.sp); }
expr(A) ::= LPAREN(L) tuple(T) RPAREN(R).            { A = mk_seq(ctx, N_TUPLE, T, L, R); }
/* (x,) is a tuple of one, as the NKI pages write num_bank_tiles=(2,). */
expr(A) ::= LPAREN(L) expr(X) COMMA RPAREN(R).       { A = mk_seq(ctx, N_TUPLE, mk_holder(ctx, N_TUPLE, X), L, R); }
expr(A) ::= LBRACKET(L) RBRACKET(R).                 { A = mk_seq(ctx, N_LIST, NULL, L, R); }
expr(A) ::= LBRACKET(L) exprs(T) RBRACKET(R).        { A = mk_seq(ctx, N_LIST, T, L, R); }
expr(A) ::= LBRACKET(L) exprs(T) COMMA RBRACKET(R).  { A = mk_seq(ctx, N_LIST, T, L, R); }
expr(A) ::= IDENT(N).                                { A = mk_ident(ctx, N); }
expr(A) ::= INT(T).                                  { A = mk_lit(ctx, TK_INT, T); }
expr(A) ::= FLOAT(T).                                { A = mk_lit(ctx, TK_FLOAT, T); }
expr(A) ::= STRING(T).                               { A = mk_lit(ctx, TK_STRING, T); }
expr(A) ::= TRUE(T).                                 { A = mk_lit(ctx, TK_TRUE, T); }
expr(A) ::= FALSE(T).                                { A = mk_lit(ctx, TK_FALSE, T); }

exprs(A) ::= expr(E).                                { A = mk_holder(ctx, N_LIST, E); }
exprs(A) ::= exprs(L) COMMA expr(E).                 { A = add(ctx, L, E); }
tuple(A) ::= expr(X) COMMA expr(Y).                  { A = add(ctx, mk_holder(ctx, N_TUPLE, X), Y); }
tuple(A) ::= tuple(L) COMMA expr(E).                 { A = add(ctx, L, E); }

indices(A) ::= index(X).                             { A = mk_holder(ctx, N_INDEX, X); }
indices(A) ::= indices(L) COMMA index(X).            { A = add(ctx, L, X); }
index(A) ::= expr(A).
index(A) ::= expr(L) COLON expr(H).                  { A = mk_slice(ctx, L->span, L, H, H->span); }
index(A) ::= expr(L) COLON(C).                       { A = mk_slice(ctx, L->span, L, NULL, C.sp); }
index(A) ::= COLON(C) expr(H).                       { A = mk_slice(ctx, C.sp, NULL, H, H->span); }
index(A) ::= COLON(C).                               { A = mk_slice(ctx, C.sp, NULL, NULL, C.sp); }
/* lo:hi:step, any bound left out */
index(A) ::= expr(L) COLON expr(H) COLON expr(S).    { A = mk_step(ctx, mk_slice(ctx, L->span, L, H, H->span), S); }
index(A) ::= expr(L) COLON COLON expr(S).            { A = mk_step(ctx, mk_slice(ctx, L->span, L, NULL, L->span), S); }
index(A) ::= COLON(C) expr(H) COLON expr(S).         { A = mk_step(ctx, mk_slice(ctx, C.sp, NULL, H, H->span), S); }
index(A) ::= COLON(C) COLON expr(S).                 { A = mk_step(ctx, mk_slice(ctx, C.sp, NULL, NULL, C.sp), S); }

/* Arguments gather in an N_CALL: positional ones first, then keywords. */
args(A) ::= .                                        { A = mk_holder(ctx, N_CALL, NULL); }
args(A) ::= arglist(A).
args(A) ::= arglist(A) COMMA.
arglist(A) ::= arg(X).                               { A = mk_holder(ctx, N_CALL, X); }
arglist(A) ::= arglist(L) COMMA arg(X).              { A = add_arg(ctx, L, X); }
arg(A) ::= expr(A).
arg(A) ::= kwname(N) ASSIGN expr(V).                 { A = mk_kwarg(ctx, N, V); }
/* Vendor parameter names may collide with kdsl keywords (iota's step=). */
%type kwname {KdTok}
kwname(A) ::= IDENT(A).
kwname(A) ::= STEP(A).
kwname(A) ::= TARGET(A).
kwname(A) ::= CONST(A).
kwname(A) ::= KERNEL(A).
kwname(A) ::= LET(A).
kwname(A) ::= VAR(A).

%code {

/* ---- error reporting ---- */

/* Expressions nest at most this deep (tree height).  The parser stack
 * bounds nesting that opens brackets; this bounds what left-associative
 * chains (a+a+...+a, t[0][0]...) build without using the stack, so that
 * the recursive passes after the parser have a bounded depth too. */
enum { KD_MAX_HEIGHT = 1000 };

/* lemon has emptied its stack by now; the snapshot taken before this
 * token says what was nested. */
static void kd_stack_overflow(KdParseCtx *c)
{
	int block = c->snap_blocks > c->snap_exprs;
	if (!c->stop)
		kd_error(c->d, c->look.sp, "%s nested too deeply", block ? "blocks" : "expression");
	c->stop = 1;
}

/* The dry run of Parse() behind kd_accepts and kd_takes: would the
 * parser whose state stack (entries 0..n) lies at base, an entry every
 * stride bytes, shift or accept terminal tk after the reductions tk
 * triggers, its stack staying below limit entries?  The stack is only
 * read: what the reductions push goes to ov, the stack from lo up. */
static int kd_dry_run(const unsigned char *base, size_t stride, int n, int tk, int limit)
{
	YYACTIONTYPE ov[YYSTACKDEPTH + 2];
	int lo = n + 1;
	for (;;) {
		YYACTIONTYPE st, act;
		if (n >= lo)
			st = ov[n];
		else
			memcpy(&st, base + (size_t)n * stride, sizeof st);
		act = yy_find_shift_action((YYCODETYPE)tk, st);
		if (act < YY_MIN_REDUCE)
			return (act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION) && n < limit;
		int rule = act - YY_MIN_REDUCE;
		n += yyRuleInfoNRhs[rule];
		if (n < 0)
			return 0;
		if (n >= lo)
			st = ov[n];
		else
			memcpy(&st, base + (size_t)n * stride, sizeof st);
		if (++n >= limit)
			return 0;
		ov[n] = yy_find_reduce_action(st, (YYCODETYPE)yyRuleInfoLhs[rule]);
		if (n < lo)
			lo = n;
	}
}

/* Would the parser, in the configuration saved before the offending
 * token was fed, take terminal tk?  The basis of "expected ..." in syntax
 * errors. */
static int kd_accepts(const KdParseCtx *c, int tk)
{
	return kd_dry_run((const unsigned char *)c->snap, sizeof *c->snap, c->nsnap, tk, YYSTACKDEPTH + 2);
}

_Static_assert(sizeof(YYACTIONTYPE) == sizeof(unsigned short), "KdParseCtx.snap holds states as the stack does");

/* Saves what kd_accepts needs before a token is fed. */
static void kd_snapshot(KdParseCtx *c, void *parser)
{
	yyParser *p = parser;
	int n = (int)(p->yytos - p->yystack);
	c->snap_blocks = c->snap_exprs = 0;
	for (int i = 0; i <= n; i++) {
		int m = p->yystack[i].major;
		c->snap[i] = p->yystack[i].stateno;
		c->snap_blocks += m == TK_LBRACE || m == TK_IF || m == TK_ELSE || m == TK_FOR;
		c->snap_exprs += m == TK_LPAREN || m == TK_LBRACKET || m == TK_MINUS ||
		                 m == TK_PLUS || m == TK_NOT;
	}
	c->nsnap = n;
	c->snap_major = n > 0 && p->yytos->major < YYNTOKEN ? p->yytos->major : 0;
	if (c->snap_major)
		c->snap_span = p->yytos->minor.yy0.sp;
}

static int all_ok(const unsigned char *ok, const int *set, int n)
{
	for (int i = 0; i < n; i++)
		if (!ok[set[i]])
			return 0;
	return 1;
}

static void clear(unsigned char *ok, const int *set, int n)
{
	for (int i = 0; i < n; i++)
		ok[set[i]] = 0;
}

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* 'text' of a token for a message, shortened and escaped. */
static void quote_tok(KdBuf *b, KdParseCtx *c, KdSpan sp)
{
	size_t n = sp.len > 32 ? 29 : sp.len;
	kd_buf_puts(b, "'");
	kd_escape(b, c->src->text + sp.off, n, 0);
	kd_buf_puts(b, n < sp.len ? "...'" : "'");
}

/* "expected ';' after expression, got '}'": the acceptable terminals,
 * folded into classes ("an expression", "a statement", "a type") where
 * they form one, with the operators that may continue an expression left
 * out since they are always possible there. */
static void kd_syntax_error(struct yyParser *p, int major, KdTok tok)
{
	static const int exprstart[] = {
		TK_IDENT, TK_INT, TK_FLOAT, TK_STRING, TK_TRUE, TK_FALSE, TK_DTYPE, TK_VTYPE,
		TK_MTYPE, TK_LPAREN, TK_LBRACKET, TK_MINUS, TK_PLUS, TK_NOT, TK_TILDE,
	};
	static const int stmtstart[] = {TK_LET, TK_VAR, TK_FOR, TK_IF, TK_RETURN, TK_LBRACE};
	static const int kwstart[] = {TK_STEP, TK_TARGET, TK_CONST, TK_KERNEL, TK_LET, TK_VAR};
	static const int typestart[] = {TK_IDENT, TK_DTYPE, TK_VTYPE, TK_MTYPE};
	static const int binop[] = {
		TK_OROR, TK_ANDAND, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_PIPE, TK_CARET,
		TK_AMP, TK_SHL, TK_SHR, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT, TK_LBRACKET, TK_DOT,
	};
	KdParseCtx *c = p->ctx;
	if (major == TK_ILLEGAL || c->stop)
		return;                  /* the lexer has said what is wrong */

	unsigned char ok[YYNTOKEN];
	memset(ok, 0, sizeof ok);
	for (int t = 1; t < YYNTOKEN; t++)
		ok[t] = t != TK_ILLEGAL && kd_accepts(c, t);

	const char *item[YYNTOKEN];
	int nitem = 0;
	int after_expr = all_ok(ok, binop, NELEM(binop));
	if (after_expr) {
		clear(ok, binop, NELEM(binop));
		ok[TK_LPAREN] = 0;       /* a call, after a name */
	}
	if (all_ok(ok, exprstart, NELEM(exprstart))) {
		int stmt = all_ok(ok, stmtstart, NELEM(stmtstart));
		int arg = !stmt && all_ok(ok, kwstart, NELEM(kwstart));
		/* At the end of a truncated block, '}' is the useful half. */
		if (!(stmt && major == 0 && ok[TK_RBRACE]))
			item[nitem++] = stmt ? "a statement" : arg ? "an argument" : "an expression";
		clear(ok, exprstart, NELEM(exprstart));
		if (stmt)
			clear(ok, stmtstart, NELEM(stmtstart));
		if (arg)
			clear(ok, kwstart, NELEM(kwstart));
	} else if (all_ok(ok, typestart, NELEM(typestart))) {
		item[nitem++] = "a type";
		clear(ok, typestart, NELEM(typestart));
	}
	int closers_only = nitem == 0;
	for (int t = 1; t < YYNTOKEN; t++) {
		if (!ok[t])
			continue;
		item[nitem++] = kd_tok_spelling(t);
		if (t != TK_SEMI && t != TK_COMMA && t != TK_RPAREN && t != TK_RBRACKET &&
		    t != TK_RBRACE)
			closers_only = 0;
	}

	KdBuf b = {0};
	if (major == 0)
		kd_buf_puts(&b, "unexpected end of file");
	if (nitem > 0 && nitem <= 6) {
		kd_buf_puts(&b, major == 0 ? ", expected " : "expected ");
		for (int i = 0; i < nitem; i++) {
			if (i)
				kd_buf_puts(&b, i == nitem - 1 ? " or " : ", ");
			kd_buf_puts(&b, item[i]);
		}
		if (major != 0) {
			int top = c->snap_major;
			if (after_expr) {
				kd_buf_puts(&b, " after expression");
			} else if (top > 0 && top < YYNTOKEN && top != TK_SEMI && top != TK_LBRACE &&
			           top != TK_RBRACE) {
				/* (not after a boundary: "after ';'" says nothing) */
				kd_buf_puts(&b, " after ");
				quote_tok(&b, c, c->snap_span);
			}
			kd_buf_puts(&b, ", got ");
			quote_tok(&b, c, tok.sp);
		}
	} else if (major != 0) {
		kd_buf_puts(&b, "syntax error at ");
		quote_tok(&b, c, tok.sp);
	}
	/* A missing ';' or closing bracket, when the next token is on a later
	 * line, is reported where it belongs, as clang does: right after the
	 * previous token. */
	KdSpan at = tok.sp;
	if (c->prev_end > 0 && closers_only) {
		int l0, l1, col;
		kd_source_linecol(c->src, c->prev_end, &l0, &col);
		kd_source_linecol(c->src, tok.sp.off, &l1, &col);
		if (l1 > l0)
			at = (KdSpan){c->prev_end, 0};
	}
	kd_error(c->d, at, "%s", b.s);
	kd_buf_free(&b);
}

/* ---- builders ---- */

static const char *tok_text(KdParseCtx *c, KdTok t)
{
	return kd_strndup(c->a, c->src->text + t.sp.off, t.sp.len);
}

static KdNode *named(KdParseCtx *c, KdNodeKind k, KdTok name, KdSpan sp)
{
	KdNode *n = kd_node(c->ast, k, sp);
	n->name = tok_text(c, name);
	n->name_span = name.sp;
	return n;
}

/* Every expression builder ends here: bounds the tree height. */
static KdNode *expr_done(KdParseCtx *c, KdNode *n)
{
	if (n->height > KD_MAX_HEIGHT && !c->stop) {
		kd_error(c->d, n->span, "expression nested too deeply");
		c->stop = 1;
	}
	return n;
}

static void decl_push(KdParseCtx *c, KdNode *n)
{
	if (n->kind == N_TARGET && c->target) {
		kd_error(c->d, n->span, "duplicate 'target' declaration");
		kd_note(c->d, c->target->span, "the first 'target' declaration is here");
	} else if (n->kind == N_TARGET) {
		c->target = n;
	}
	kd_list_push(c->ast, &c->file->list, n);
}

static KdNode *mk_target(KdParseCtx *c, KdTok kw, KdTok name, KdTok end)
{
	return named(c, N_TARGET, name, kd_span_join(kw.sp, end.sp));
}

static KdNode *mk_const(KdParseCtx *c, KdTok kw, KdTok name, KdNode *val, KdTok end)
{
	KdNode *n = named(c, N_CONST, name, kd_span_join(kw.sp, end.sp));
	n->a = val;
	return n;
}

static KdNode *mk_kernel(KdParseCtx *c, KdTok kw, KdTok name, KdNode *params, KdNode *body)
{
	KdNode *n = named(c, N_KERNEL, name, kd_span_join(kw.sp, body->span));
	n->list = params->list;
	n->a = body;
	return n;
}

static KdNode *mk_param(KdParseCtx *c, KdTok name, KdNode *type)
{
	KdNode *n = named(c, N_PARAM, name, kd_span_join(name.sp, type->span));
	n->type = type;
	return n;
}

/* A node that gathers a list; the rule that closes the list sets its
 * span (or moves the list to its owner). */
static KdNode *mk_holder(KdParseCtx *c, KdNodeKind k, KdNode *first)
{
	KdNode *n = kd_node(c->ast, k, first ? first->span : (KdSpan){0, 0});
	return first ? add(c, n, first) : n;
}

static KdNode *add(KdParseCtx *c, KdNode *parent, KdNode *child)
{
	if (!child)
		return parent;           /* a statement lost to error recovery */
	kd_list_push(c->ast, &parent->list, child);
	if (child->height >= parent->height)
		parent->height = child->height + 1;
	return parent;
}

static KdNode *add_arg(KdParseCtx *c, KdNode *call, KdNode *arg)
{
	int n = call->list.n;
	if (arg->kind != N_KWARG && n > 0 && call->list.v[n - 1]->kind == N_KWARG) {
		/* Dropped, keeping "positional arguments, then keywords" for sema. */
		kd_error(c->d, arg->span, "positional argument follows keyword argument");
		return call;
	}
	return add(c, call, arg);
}

static KdNode *mk_type(KdParseCtx *c, int tk, KdTok t)
{
	KdNode *n = kd_node(c->ast, N_TYPE, t.sp);
	n->dtype = (KdDtype)t.dtype;
	if (tk != TK_DTYPE)
		n->lanes = t.lanes;
	if (tk == TK_MTYPE)
		n->maskbits = t.bits;
	return n;
}

static KdNode *mk_tensor_type(KdParseCtx *c, KdTok space, KdTok dt, KdNode *blocks,
                              KdNode *dims, KdTok end)
{
	KdNode *n = kd_node(c->ast, N_TYPE, kd_span_join(space.sp, end.sp));
	n->space = tok_text(c, space);
	n->space_span = space.sp;
	n->dtype = (KdDtype)dt.dtype;
	n->list = dims->list;
	if (blocks)
		n->list2 = blocks->list;
	return n;
}

static KdNode *mk_let(KdParseCtx *c, KdTok name, KdNode *type, KdNode *init)
{
	KdNode *n = named(c, N_LET, name, name.sp);
	n->type = type;
	n->a = init;
	return n;
}

static KdNode *mk_lettuple(KdParseCtx *c, KdNode *names, KdNode *init)
{
	(void)c;
	names->a = init;
	return names;
}

static KdNode *mk_assign(KdParseCtx *c, KdTok name, KdNode *val, KdTok end)
{
	KdNode *n = named(c, N_ASSIGN, name, kd_span_join(name.sp, end.sp));
	n->a = val;
	return n;
}

static KdNode *mk_for(KdParseCtx *c, KdTok kw, KdTok var, KdNode *lo, KdNode *hi,
                      KdNode *step, KdNode *body)
{
	KdNode *n = named(c, N_FOR, var, kd_span_join(kw.sp, body->span));
	n->a = lo;
	n->b = hi;
	n->c = step;
	n->d = body;
	return n;
}

static KdNode *mk_if(KdParseCtx *c, KdTok kw, KdNode *cond, KdNode *then, KdNode *els)
{
	KdNode *n = kd_node(c->ast, N_IF, kd_span_join(kw.sp, (els ? els : then)->span));
	n->a = cond;
	n->b = then;
	n->c = els;
	return n;
}

static KdNode *mk_stmt(KdParseCtx *c, KdNodeKind k, KdSpan from, KdNode *a, KdTok end)
{
	KdNode *n = kd_node(c->ast, k, kd_span_join(from, end.sp));
	n->a = a;
	return n;
}

/* Widens n's span to from..to: blocks to their braces, let statements to
 * their keyword and ';', a parenthesised expression to its parentheses. */
static KdNode *span_from(KdNode *n, KdSpan from, KdSpan to)
{
	n->span = kd_span_join(from, to);
	return n;
}

static KdNode *mk_ident(KdParseCtx *c, KdTok t)
{
	return named(c, N_IDENT, t, t.sp);
}

static KdNode *mk_lit(KdParseCtx *c, int tk, KdTok t)
{
	static const KdNodeKind kind[] = {
		[TK_INT] = N_INT, [TK_FLOAT] = N_FLOAT, [TK_STRING] = N_STR,
		[TK_TRUE] = N_BOOL, [TK_FALSE] = N_BOOL,
	};
	KdNode *n = kd_node(c->ast, kind[tk], t.sp);
	n->ival = tk == TK_TRUE ? 1 : t.ival;
	if (tk == TK_INT && t.u64)
		n->flags |= KD_INT_U64;
	n->fval = t.fval;
	n->name = t.str;
	return n;
}

static KdNode *mk_binary(KdParseCtx *c, int op, KdNode *l, KdNode *r)
{
	KdNode *n = kd_node(c->ast, N_BINARY, kd_span_join(l->span, r->span));
	n->op = op;
	n->a = l;
	n->b = r;
	n->height = (l->height > r->height ? l->height : r->height) + 1;
	return expr_done(c, n);
}

static KdNode *mk_unary(KdParseCtx *c, int op, KdTok optok, KdNode *e)
{
	KdNode *n = kd_node(c->ast, N_UNARY, kd_span_join(optok.sp, e->span));
	n->op = op;
	n->a = e;
	n->height = e->height + 1;
	return expr_done(c, n);
}

static KdNode *mk_call(KdParseCtx *c, KdTok name, KdNode *args, KdTok end)
{
	args->name = tok_text(c, name);
	args->name_span = name.sp;
	args->span = kd_span_join(name.sp, end.sp);
	return expr_done(c, args);
}

static KdNode *mk_cast(KdParseCtx *c, KdNode *type, KdNode *args, KdTok end)
{
	args->kind = N_CAST;
	args->type = type;
	args->name_span = type->span;
	args->span = kd_span_join(type->span, end.sp);
	return expr_done(c, args);
}

static KdNode *mk_kwarg(KdParseCtx *c, KdTok name, KdNode *val)
{
	KdNode *n = named(c, N_KWARG, name, kd_span_join(name.sp, val->span));
	n->a = val;
	n->height = val->height + 1;
	return n;
}

static KdNode *mk_index(KdParseCtx *c, KdNode *base, KdNode *idx, KdTok end)
{
	idx->span = kd_span_join(base->span, end.sp);
	idx->a = base;
	if (base->height >= idx->height)
		idx->height = base->height + 1;
	return expr_done(c, idx);
}

static KdNode *mk_slice(KdParseCtx *c, KdSpan from, KdNode *lo, KdNode *hi, KdSpan to)
{
	KdNode *n = kd_node(c->ast, N_SLICE, kd_span_join(from, to));
	n->a = lo;
	n->b = hi;
	int hl = lo ? lo->height : 0, hh = hi ? hi->height : 0;
	n->height = (hl > hh ? hl : hh) + 1;
	return n;
}

/* The step of a slice (N_SLICE's c). */
static KdNode *mk_step(KdParseCtx *c, KdNode *slice, KdNode *step)
{
	(void)c;
	slice->c = step;
	slice->span = kd_span_join(slice->span, step->span);
	if (step->height >= slice->height)
		slice->height = step->height + 1;
	return slice;
}

/* v.T: an N_INDEX whose b is the permutation [1, 0] (a view's index list
 * is kept; any other base gets an empty one).  Other names are sema's
 * error (b an N_IDENT then). */
static KdNode *mk_member(KdParseCtx *c, KdNode *base, KdTok name)
{
	KdNode *n = base->kind == N_INDEX && !base->b ? base : kd_node(c->ast, N_INDEX, base->span);
	KdNode *perm = named(c, N_IDENT, name, name.sp);
	if (n != base) {
		n->a = base;
		n->height = base->height + 1;
	}
	n->b = perm;
	n->flags |= KD_INDEX_T;
	n->span = kd_span_join(base->span, name.sp);
	if (n->height < 2)
		n->height = 2;
	return expr_done(c, n);
}

static KdNode *mk_seq(KdParseCtx *c, KdNodeKind k, KdNode *holder, KdTok open, KdTok close)
{
	KdNode *n = holder ? holder : kd_node(c->ast, k, open.sp);
	n->kind = k;
	n->span = kd_span_join(open.sp, close.sp);
	return expr_done(c, n);
}

}

%code {

/* ---- resynchronising at a missing ';' ---- */

/* Is tk, which the parser cannot take, the start of the next statement
 * of a kernel body after one that only lacks its ';'?  A keyword that
 * starts one always is; a name only on a later line (on the same line,
 * "a b" is more likely a missing operator).  Not between declarations
 * (their recovery skips to the next one), nor while lemon is still
 * recovering from an earlier error: that one's recovery decides. */
static int kd_missing_semi(KdParseCtx *c, void *parser, int tk)
{
	const yyParser *p = parser;
	/* only these start a statement: the test first spares every other
	 * token the two parses kd_accepts simulates */
	if (tk != TK_IDENT && tk != TK_LET && tk != TK_VAR && tk != TK_FOR && tk != TK_IF && tk != TK_RETURN)
		return 0;
	if (p->yyerrcnt >= 0 || c->stop || !c->snap_blocks || !kd_accepts(c, TK_SEMI) ||
	    kd_accepts(c, tk))
		return 0;
	if (tk == TK_IDENT) {
		int l0, l1, col;
		kd_source_linecol(c->src, c->prev_end, &l0, &col);
		kd_source_linecol(c->src, c->look.sp.off, &l1, &col);
		return c->prev_end > 0 && l1 > l0;
	}
	return 1;
}

/* Reports the missing ';' (the message of any syntax error, right after
 * the previous token) and feeds one in its place, so the statement that
 * follows is parsed, not skipped by error recovery with whatever errors it
 * has: a missing ';' before a 'for' hid every error in the loop's body. */
static void kd_insert_semi(KdParseCtx *c, void *parser, int tk)
{
	kd_syntax_error(parser, tk, c->look);
	KdTok semi = {.sp = {c->prev_end, 0}};
	kd_parser(parser, TK_SEMI, semi);
	kd_snapshot(c, parser);
}

/* Does the parser, as it is, take tk with room left on its stack?  Then
 * no syntax error can come of tk, and neither the snapshot nor the
 * missing-';' check (which returns 0 for a token the parser takes) is
 * needed: every token of a correct file.  The margin keeps lemon's
 * overflow, whose message reads the snapshot, on the full path, and so
 * does recovery from an earlier error. */
static int kd_takes(void *parser, int tk)
{
	const yyParser *p = parser;
	return p->yyerrcnt < 0 && kd_dry_run((const unsigned char *)&p->yystack[0].stateno, sizeof p->yystack[0],
	                                     (int)(p->yytos - p->yystack), tk, YYSTACKDEPTH - 2);
}

/* ---- the entry point: the lexer pushes tokens into the parser ---- */

KdNode *kd_parse(KdArena *a, KdArena *ast, KdDiag *d, const KdSource *src)
{
	KdParseCtx ctx = {.a = a, .ast = ast, .d = d, .src = src};
	ctx.file = kd_node(ast, N_FILE, (KdSpan){0, (uint32_t)src->len});
	unsigned short snap[YYSTACKDEPTH + 1];
	ctx.snap = snap;
	KdLexer lx;
	kd_lex_init(&lx, a, d, src);
	void *p = kd_parserAlloc(malloc, &ctx);
	if (!p) {
		kd_error_nopos(d, "out of memory");
		return ctx.file;
	}
	int tk, first = 1;
	do {
		tk = kd_lex_next(&lx, &ctx.look);
		/* The grammar lets 'target' appear anywhere so that a file that
		 * lacks it still parses; its place is checked here, up front, so
		 * the message comes before any about the rest of the file. */
		if (first && (tk == 0 || tk == TK_KERNEL || tk == TK_CONST))
			kd_error(d, ctx.look.sp, "expected 'target' declaration, got %s",
			         tk == 0 ? "end of file" : tk == TK_KERNEL ? "'kernel'" : "'const'");
		first = 0;
		if (!kd_takes(p, tk)) {
			kd_snapshot(&ctx, p);
			if (kd_missing_semi(&ctx, p, tk))
				kd_insert_semi(&ctx, p, tk);
		}
		kd_parser(p, tk, ctx.look);
		ctx.prev_end = ctx.look.sp.off + ctx.look.sp.len;
	} while (tk != 0 && !ctx.stop && !d->muted);
	kd_parserFree(p, free);
	return ctx.file;
}

}
