/* emit.h: the C backend.  Output is C11 that includes kdsl_rt.h, one
 * function per kernel (LANGUAGE.md section 6), deterministic byte for byte. */
#ifndef KD_EMIT_H
#define KD_EMIT_H

#include "ir.h"

/* The kernels' C source, with #line directives back to the .k file.  An
 * op it cannot emit is an internal error reported through d; returns the
 * number of those (0: out is complete). */
int kd_emit_c(KdBuf *out, KdDiag *d, const KdModule *m);
/* The prototypes, for embedding (--header FILE). */
void kd_emit_header(KdBuf *out, const KdModule *m);
/* Is `name` one a kernel or a parameter cannot be in C (a C keyword, a C
 * library name, main, rt, a name ending in _t or starting with _, kd_,
 * KD_, kdsl_ or KDSL_)? */
int kd_c_reserved(const char *name);
/* Writes the C name of a kernel (what = 'k') or a parameter ('p') named
 * `name`: the name itself, or, if kd_c_reserved, kd_k_<name> / kd_p_<name>,
 * with a final `_` when the name ends in a digit or `_`.  Deterministic and
 * injective, and never equal to another name of the generated C. */
void kd_c_name(KdBuf *o, const char *name, char what);
/* The C local of on-chip buffer i of f (kd_<name>_buf<i>): a typed
 * pointer to its start, which the kernel's prologue sets. */
void kd_emit_buf_local(KdBuf *o, const KdFunc *f, int i);
/* A kernel table and main() for `kdslc run` (appended to kd_emit_c's output). */
/* Text that reaches C, escaped here only (source paths can hold anything):
 * s as a C string literal, valid in #line too, with every byte outside
 * printable ASCII octal-escaped and each ? as \? (so no trigraph such as
 * ??= or ??/ forms under -std=c11); and s inside a block comment, with
 * each star-slash broken as *\/ and ??/ (which would splice lines) as ?\?/. */
void kd_c_string(KdBuf *o, const char *s);
void kd_c_comment(KdBuf *o, const char *s);

void kd_emit_harness(KdBuf *out, const KdModule *m);
/* The kernels' signatures as JSON (--emit=signature-json; signature.c). */
void kd_emit_signature(KdBuf *out, const KdModule *m);

#endif
