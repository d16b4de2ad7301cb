/* driver.h: the kdslc command line.  main.c parses options; compile.c
 * runs the pipeline (the kddriver library, which the fuzz targets link
 * too); options.c is the option parser both commands use; run.c builds
 * and runs a kernel with the system C compiler. */
#ifndef KD_DRIVER_H
#define KD_DRIVER_H

#include <getopt.h>
#include <stddef.h>   /* no_argument, required_argument, optional_argument */
#include <stdio.h>

#include "kd.h"

typedef enum { EMIT_C, EMIT_TOKENS, EMIT_AST, EMIT_IR, EMIT_SIGNATURE } KdEmitKind;

typedef struct {
	const char *input;
	const char *output;        /* NULL: stdout unless only a header is asked for */
	const char *header;
	KdEmitKind emit;
	int opt;                   /* -O level */
	int stats;
	int werror;
	unsigned char wno[KD_W_NGROUP], werr[KD_W_NGROUP];
	const char *doc_ops;       /* --doc-ops=TARGET */
	int list_names;            /* --list-names */
	const char *passes;        /* --passes=a,b,c: exactly these (ir/pass.h) */
	const char *print_after;   /* --print-after=PASS */
	int print_after_all;
	int verify_each;
	int lang;                  /* -x: 'k' source, 'i' IR; 0: IR if the name ends in .kir */
	int diag_format, diag_color; /* -fdiagnostics-format=, -fdiagnostics-color= (util/diag.c) */
} KdOptions;

/* One command-line option of a table kd_parse_options reads.  name is
 * "--long", "-c" (one letter) or "-cword" (a single-dash word such as
 * "-fdiagnostics-color": its letter c takes the rest as its value);
 * has_arg is getopt's no_argument, required_argument or
 * optional_argument.  set gets the table's context and the value (NULL
 * when there is none) and returns 0 to go on, KD_OPT_EXIT0 to stop and
 * exit 0 (--help), or an exit status after printing an error.  An entry
 * without set stores into the context's field instead (KD_OPT_FLAG: an
 * int set to 1; KD_OPT_STR: a const char * set to the value). */
typedef struct {
	const char *name;
	int has_arg;
	int (*set)(void *ctx, const char *val);
	size_t field;      /* offsetof + 1 in the context, when set is NULL */
} KdOptSpec;

#define KD_OPT_FLAG(name, T, f) {name, no_argument, NULL, offsetof(T, f) + 1}
#define KD_OPT_STR(name, T, f) {name, required_argument, NULL, offsetof(T, f) + 1}

enum { KD_OPT_EXIT0 = -1 };

/* Parses argv[1..argc) with specs (at most 64): options to their set
 * function, operands (and every word after "--") to operand, in order.
 * An unknown option or a missing value is a one-line error naming it,
 * with a close spelling when there is one.  Returns 0, KD_OPT_EXIT0 or
 * an exit status (2 for a usage error).  prog names the command in the
 * errors' "see PROG --help". */
int kd_parse_options(int argc, char **argv, const char *prog, const KdOptSpec *specs, int n, void *ctx,
                     int (*operand)(void *ctx, const char *arg));

/* -O, -O0, -O1 (val: what follows -O) into *opt; a usage error for any
 * other level. */
int kd_opt_level(const char *prog, const char *val, int *opt);

/* Prints "kdslc: error: " fmt (with arg) and the --help hint; returns 2. */
int kd_usage_error(const char *prog, const char *fmt, const char *arg);

/* Compiles o->input.  With c_out, the C (the IR under --emit=ir) goes into
 * *c_out instead of a file, and with harness set `kdslc run`'s main()
 * follows the C.  Returns the exit status (0, 1, 2). */
int kd_compile(const KdOptions *o, KdBuf *c_out, int harness);

/* kd_compile on a source the caller loaded into arena a (which it frees
 * afterwards); diagnostics go to diag_out.  o->input still names the
 * input: a name ending in .kir means IR when o->lang is 0.  Everything it
 * allocates outside a is freed before it returns. */
int kd_compile_source(const KdOptions *o, KdArena *a, const KdSource *src, FILE *diag_out, KdBuf *c_out,
                      int harness);

/* `kdslc run FILE [options]`: argv starts after "run". */
int kd_run(int argc, char **argv);

#endif
