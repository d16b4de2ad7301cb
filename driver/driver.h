/* driver.h: the kdslc command line.  main.c parses options and runs the
 * pipeline; run.c builds and runs a kernel with the system C compiler. */
#ifndef KD_DRIVER_H
#define KD_DRIVER_H

#include "kd.h"

typedef enum { EMIT_C, EMIT_TOKENS, EMIT_AST, EMIT_IR } KdEmitKind;

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
	const char *passes;        /* --passes=a,b,c: exactly these (ir/pass.h) */
	const char *print_after;   /* --print-after=PASS */
	int print_after_all;
	int verify_each;
	int lang;                  /* -x: 'k' source, 'i' IR; 0: IR if the name ends in .kir */
	int diag_format, diag_color; /* -fdiagnostics-format=, -fdiagnostics-color= (util/diag.c) */
} KdOptions;

/* Compiles o->input; with harness set, appends `kdslc run`'s main() to the C
 * in *c_out instead of writing files.  Returns the exit status (0, 1, 2). */
int kd_compile(const KdOptions *o, KdBuf *c_out, int harness);

/* `kdslc run FILE [options]`: argv starts after "run". */
int kd_run(int argc, char **argv);

#endif
