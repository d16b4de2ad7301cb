/* parse.h: the front end's interface: source text in, syntax tree out. */
#ifndef KD_PARSE_H
#define KD_PARSE_H

#include "ast.h"

/* Parses a whole file.  Returns the N_FILE node (possibly partial after
 * errors; every error already reported through d).  Never NULL.  The
 * nodes and their lists go in ast, names and strings in a: the IR keeps
 * the names, so ast may be freed once the tree is lowered (a and ast may
 * be the same arena). */
KdNode *kd_parse(KdArena *a, KdArena *ast, KdDiag *d, const KdSource *src);

/* --emit=tokens: one line per token "LINE:COL KIND 'text'", then
 * "LINE:COL EOF".  Lexical errors are reported through d. */
void kd_dump_tokens(KdBuf *out, KdDiag *d, const KdSource *src);

#endif
