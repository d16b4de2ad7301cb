/* fuzz_ir.c: the textual IR reader.  Each input is IR text (kdslc
 * --emit=ir's format) compiled as `kdslc -x ir` does: read, verified,
 * rule-checked, placed and printed back; IR that reads and verifies must
 * also round-trip (print, read, print the same), and its C (-O1, through
 * the passes) goes through the compile oracle (fuzz.h). */
#include "fuzz_compiler.h"

/* One compile of the input as IR; 0 when accepted, the output in *out. */
static int compile(const uint8_t *data, size_t size, int opt, KdEmitKind emit, KdBuf *out)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	KdOptions o = {0};
	o.input = "fuzz.kir";
	o.lang = 'i';
	o.opt = opt;
	o.emit = emit;
	kd_source_from_string(&src, a, o.input, (const char *)data, size);
	int rc = kd_compile_source(&o, a, &src, kdsl_fuzz_diag_out(), out, 0);
	kd_arena_free(a);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	KdBuf ir = {0}, c = {0};
	if (compile(data, size, 0, EMIT_IR, &ir) == 0) {
		kdsl_fuzz_accepted++;
		kdsl_fuzz_ir_roundtrip(ir.s ? ir.s : "", ir.n);
		if (compile(data, size, 1, EMIT_C, &c) == 0)
			kdsl_fuzz_oracle(c.s ? c.s : "", c.n);
	}
	kd_buf_free(&ir);
	kd_buf_free(&c);
	return 0;
}
