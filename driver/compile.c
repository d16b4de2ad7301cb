/* compile.c: kdslc's pipeline.  source -> tokens -> AST -> sema -> SSA IR
 * -> verify, rules, placement -> passes -> C, on a file (kd_compile) or on
 * a source already in memory (kd_compile_source: the fuzz targets run it
 * in process).  Exit status: 0 success, 1 errors in the input, 2 usage
 * or I/O errors (LANGUAGE.md section 5). */
#include <errno.h>
#include <string.h>

#include "driver.h"
#include "parse.h"
#include "sema.h"
#include "lower.h"
#include "irread.h"
#include "pass.h"
#include "ir_target.h"
#include "emit.h"

static int write_file(const char *path, const KdBuf *b)
{
	if (!strcmp(path, "-")) {
		fwrite(b->s ? b->s : "", 1, b->n, stdout);
		return fflush(stdout) ? -1 : 0;
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = fwrite(b->s ? b->s : "", 1, b->n, f);
	int bad = n != b->n;
	return fclose(f) || bad ? -1 : 0;
}

/* What the pool keeps of the tree while it is lowered: two of the
 * arena's largest chunks, for the IR's growth. */
enum { LOWER_POOL_KEEP = 2 * KD_ARENA_CHUNK_MAX };

int kd_compile(const KdOptions *o, KdBuf *c_out, int harness)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	if (kd_source_load(&src, a, o->input) < 0) {
		fprintf(stderr, "kdslc: error: cannot read '%s': %s\n", o->input, strerror(errno));
		kd_arena_free(a);
		return 2;
	}
	int rc = kd_compile_source(o, a, &src, stderr, c_out, harness);
	kd_arena_free(a);
	return rc;
}

int kd_compile_source(const KdOptions *o, KdArena *a, const KdSource *src, FILE *diag_out, KdBuf *c_out,
                      int harness)
{
	KdDiag d;
	KdBuf out = {0};
	int rc = 1;
	/* The syntax tree's own arena: the tree is a third of a compilation's
	 * memory and dead once lowered, so the passes and the C reuse it. */
	KdArena *ast = NULL;
	/* This compilation's pool of freed chunks (util/arena.c): the tree's
	 * serve the passes' scratch arenas and the IR's growth.  a joins it
	 * until the end (the caller frees a after that). */
	KdArenaPool *pool = kd_arena_pool_new();
	kd_arena_set_pool(a, pool);
	kd_diag_init(&d, src, diag_out);
	kd_diag_set_format(&d, o->diag_format, o->diag_color);
	d.werror_all = o->werror;
	memcpy(d.wgroup_off, o->wno, sizeof d.wgroup_off);
	memcpy(d.wgroup_err, o->werr, sizeof d.wgroup_err);
	/* an op whose .def entry lacks a field would fail somewhere later */
	if (kd_op_table_check(&d))
		goto done;

	size_t il = strlen(o->input);
	int ir = o->lang == 'i' || (!o->lang && il > 4 && !strcmp(o->input + il - 4, ".kir"));
	KdModule *m;
	if (ir && (o->emit == EMIT_TOKENS || o->emit == EMIT_AST)) {
		fprintf(stderr, "kdslc: error: --emit=%s needs kdsl source, not IR\n",
		        o->emit == EMIT_AST ? "ast" : "tokens");
		rc = 2;
		goto finish;
	}
	if (ir) {
		/* IR text goes through the same checks as a built module, but
		 * not through dce: a single --passes run sees the IR as written. */
		m = kd_ir_read(a, &d, src);
		if (!m || kd_ir_verify_input(&d, m))
			goto done;
		goto checked;
	}
	if (o->emit == EMIT_TOKENS) {
		kd_dump_tokens(&out, &d, src);
		goto done;
	}
	ast = kd_arena_new_in(pool);
	KdNode *file = kd_parse(a, ast, &d, src);
	if (d.nerror)
		goto done;
	if (o->emit == EMIT_AST) {
		kd_ast_dump(&out, src, file);
		goto done;
	}
	KdTarget target;
	/* Sema, the rule checker and placement each find their own errors;
	 * held until all three ran, they print in source order. */
	kd_diag_hold(&d);
	kd_sema(a, &d, file, &target);
	/* Lowering skips the statements sema rejected and those using a name
	 * whose declaration it rejected, so one run reports the rule errors of
	 * the rest too.  Past the error limit nothing more would print. */
	if (!target || d.muted)
		goto done;
	/* Lowering gives the tree back as it goes; the pool keeps enough of
	 * it for the IR's next chunks, the rest goes back to the system, so a
	 * long kernel's tree and IR are not alive at once. */
	kd_arena_pool_limit(pool, LOWER_POOL_KEEP);
	m = kd_lower(a, &d, src, file, target, ast);
	kd_arena_pool_limit(pool, SIZE_MAX);
	kd_arena_free(ast);
	ast = NULL;
	/* The tree's chunks serve the passes' scratch arenas, which a long
	 * kernel's IR bounds (a million lines: at most 0.7 GB of scratch at
	 * once for 0.8 GB of IR); more kept would only raise the peak while
	 * the passes grow the IR. */
	kd_arena_pool_trim(pool, kd_arena_used(a));
	if (kd_ir_verify(&d, m))
		goto done;
	/* Dead values go first, so no rule is checked on code that never runs
	 * and the C has no unused locals. */
	kd_ir_dce(m);
checked:
	kd_ir_check_rules(&d, m);
	kd_ir_place(&d, m);
	if (!d.nerror)
		kd_ir_check_target(&d, m);
	kd_diag_flush(&d);
	if (d.nerror || kd_ir_verify(&d, m))
		goto done;
	/* --stats reports the source program, then what the passes made of it. */
	int optimise = o->passes ? *o->passes != 0 : o->opt > 0;
	KdBuf st = {0};
	if (o->stats && optimise)
		kd_ir_stats_tagged(&st, m, "source");
	KdPassOptions po = {.opt = o->opt, .passes = o->passes, .print_after = o->print_after,
	                    .print_after_all = o->print_after_all, .verify_each = o->verify_each};
	if (kd_run_passes(&d, m, &po)) {
		kd_buf_free(&st);
		goto done;
	}
	/* The passes reused the tree's chunks; the C's buffer is malloc's,
	 * and what the pool still holds would only add to the peak. */
	kd_arena_pool_trim(pool, 0);
	if (o->stats) {
		kd_ir_stats_tagged(&st, m, NULL);
		fwrite(st.s ? st.s : "", 1, st.n, stderr);
		kd_buf_free(&st);
	}
	if (o->emit == EMIT_IR) {
		kd_ir_print(c_out ? c_out : &out, m);
		rc = 0;   /* stands unless there were errors; without c_out, done: writes out */
		goto done;
	}
	/* The interface as the C has it: after the passes, like the C. */
	if (o->emit == EMIT_SIGNATURE) {
		kd_emit_signature(c_out ? c_out : &out, m);
		rc = 0;
		goto done;
	}
	/* IR text may hold dead code the source path's dce would have removed
	 * before the rules; the C must not declare locals nothing uses. */
	if (ir)
		kd_ir_dce(m);
	if (c_out) {
		if (kd_emit_c(c_out, &d, m))
			goto done;
		if (harness)
			kd_emit_harness(c_out, m);
		rc = 0;
		goto finish;
	}
	if (o->header) {
		KdBuf h = {0};
		kd_emit_header(&h, m);
		if (write_file(o->header, &h) < 0) {
			fprintf(stderr, "kdslc: error: cannot write '%s': %s\n", o->header, strerror(errno));
			kd_buf_free(&h);
			rc = 2;
			goto finish;
		}
		kd_buf_free(&h);
		if (!o->output) {
			rc = 0;
			goto finish;
		}
	}
	kd_emit_c(&out, &d, m);
done:
	kd_diag_flush(&d);
	if (d.nerror) {
		rc = 1;
	} else if (!c_out) {
		const char *path = o->output ? o->output : "-";
		if (write_file(path, &out) < 0) {
			fprintf(stderr, "kdslc: error: cannot write '%s': %s\n", path, strerror(errno));
			rc = 2;
		} else {
			rc = 0;
		}
	}
finish:
	kd_arena_free(ast);
	kd_arena_set_pool(a, NULL);
	kd_arena_pool_free(pool);
	kd_diag_end(&d);
	kd_buf_free(&out);
	return rc;
}
