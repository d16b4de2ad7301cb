/* ir_roundtrip.c: the textual IR's round trip as an oracle: IR that kdslc
 * printed must read back, pass the verifier and print the same again
 * (issue 19: a bool tensor parameter printed IR the reader rejected). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_compiler.h"

/* Reads ir (n bytes, as kd_ir_print wrote it) into arena a; the module, or
 * NULL after the diagnostics went to kdsl_fuzz_diag_out(). */
static KdModule *read_ir(KdArena *a, const char *ir, size_t n, int *bad_verify)
{
	KdSource src;
	KdDiag d;
	kd_source_from_string(&src, a, "roundtrip.kir", ir, n);
	kd_diag_init(&d, &src, kdsl_fuzz_diag_out());
	KdModule *m = kd_ir_read(a, &d, &src);
	*bad_verify = m && kd_ir_verify_input(&d, m);
	kd_diag_end(&d);
	return m;
}

static void roundtrip_fail(const char *what, const char *ir, size_t n)
{
	fprintf(stderr, "kdsl-fuzz: printed IR %s:\n", what);
	fwrite(ir, 1, n, stderr);
	abort();
}

void kdsl_fuzz_ir_roundtrip(const char *ir, size_t n)
{
	KdArena *a = kd_arena_new();
	int bad = 0;
	KdModule *m = read_ir(a, ir, n, &bad);
	if (!m || bad)
		roundtrip_fail(m ? "fails the verifier after reading it back" : "does not read back", ir, n);
	KdBuf again = {0};
	kd_ir_print(&again, m);
	if (again.n != n || memcmp(again.s, ir, n)) {
		fprintf(stderr, "kdsl-fuzz: printed IR reads back as other IR:\n");
		fwrite(again.s ? again.s : "", 1, again.n, stderr);
		roundtrip_fail("was", ir, n);
	}
	kd_buf_free(&again);
	kd_arena_free(a);
}

FILE *kdsl_fuzz_diag_out(void)
{
	/* a diagnostic per input would flood the fuzzer's log; KDSL_FUZZ_DIAG
	 * set shows them (minimising a finding) */
	static FILE *f;
	if (!f)
		f = getenv("KDSL_FUZZ_DIAG") ? stderr : fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}
