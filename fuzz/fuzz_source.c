/* fuzz_source.c: the source pipeline in process, through C emission.
 * Each input is a .k file; a first line `//!path NAME` names it NAME
 * (what reaches #line and the C's comments: issue 19's paths with "*\/"
 * and "??="), else it is fuzz.k.  Every input is compiled three times,
 * each in its own arena: -O0 to IR, which must round-trip through the
 * IR reader; -O1 to C with `kdslc run`'s harness (a kernel named t);
 * -O0 to C.  Accepted C goes through the compile oracle (fuzz.h). */
#include <string.h>

#include "fuzz_compiler.h"

#define PATH_DIRECTIVE "//!path "

/* The file name an input asks for in its first line, copied into the
 * arena, or "fuzz.k". */
static const char *input_path(KdArena *a, const uint8_t *data, size_t size)
{
	size_t k = sizeof PATH_DIRECTIVE - 1, end = k;
	if (size < k || memcmp(data, PATH_DIRECTIVE, k))
		return "fuzz.k";
	while (end < size && data[end] != '\n' && data[end] != '\0')
		end++;
	return kd_strndup(a, (const char *)data + k, end - k);
}

/* One compile of the input; 0 when accepted, the output in *out. */
static int compile(const uint8_t *data, size_t size, int opt, KdEmitKind emit, int harness, KdBuf *out)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	KdOptions o = {0};
	o.input = input_path(a, data, size);
	o.lang = 'k';
	o.opt = opt;
	o.emit = emit;
	kd_source_from_string(&src, a, o.input, (const char *)data, size);
	int rc = kd_compile_source(&o, a, &src, kdsl_fuzz_diag_out(), out, harness);
	kd_arena_free(a);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	KdBuf ir = {0}, c1 = {0}, c0 = {0};
	if (compile(data, size, 0, EMIT_IR, 0, &ir) == 0) {
		kdsl_fuzz_accepted++;
		kdsl_fuzz_ir_roundtrip(ir.s ? ir.s : "", ir.n);
		if (compile(data, size, 1, EMIT_C, 1, &c1) == 0)
			kdsl_fuzz_oracle(c1.s ? c1.s : "", c1.n);
		if (compile(data, size, 0, EMIT_C, 0, &c0) == 0)
			kdsl_fuzz_oracle(c0.s ? c0.s : "", c0.n);
	}
	kd_buf_free(&ir);
	kd_buf_free(&c1);
	kd_buf_free(&c0);
	return 0;
}
