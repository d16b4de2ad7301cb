/* main.c: kdslc.  source -> tokens -> AST -> sema -> SSA IR -> verify,
 * rules, placement -> C.  Exit status: 0 success, 1 errors in the input,
 * 2 usage or I/O errors (LANGUAGE.md section 5). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "parse.h"
#include "sema.h"
#include "lower.h"
#include "irread.h"
#include "pass.h"
#include "ir_target.h"
#include "emit.h"

static const char usage[] =
	"usage: kdslc FILE.k [-o OUT.c] [--header OUT.h] [--emit=tokens|ast|ir|c]\n"
	"                    [-O0|-O1] [-Werror] [-Werror=GROUP] [-Wno-GROUP] [--stats]\n"
	"                    [-x k|ir]   FILE is source (k) or textual IR (ir, as --emit=ir\n"
	"                                writes it); default: IR if FILE ends in .kir\n"
	"                    [--passes=P,...] [--print-after=P] [--print-after-all] [--verify-each]\n"
	"                    [-fdiagnostics-format=text|json|sarif] [-fdiagnostics-color=auto|always|never]\n"
	"       kdslc run FILE.k [--arg NAME=iota|zeros|ones|random[:seed]|FILE.npy|INT]...\n"
	"                        [--out DIR] [--kernel NAME] [--quiet]\n"
	"       kdslc --doc-ops=TARGET      print the op reference of a target (markdown)\n"
	"       kdslc --version | --help\n"
	"FILE may be - for standard input; -o - writes to standard output.\n"
	"Warning groups: unused, hazard, mask-pad.\n";

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

int kd_compile(const KdOptions *o, KdBuf *c_out, int harness)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	KdDiag d;
	KdBuf out = {0};
	int rc = 1;
	if (kd_source_load(&src, a, o->input) < 0) {
		fprintf(stderr, "kdslc: error: cannot read '%s': %s\n", o->input, strerror(errno));
		kd_arena_free(a);
		return 2;
	}
	kd_diag_init(&d, &src, stderr);
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
		m = kd_ir_read(a, &d, &src);
		if (!m || kd_ir_verify_input(&d, m))
			goto done;
		goto checked;
	}
	if (o->emit == EMIT_TOKENS) {
		kd_dump_tokens(&out, &d, &src);
		goto done;
	}
	KdNode *file = kd_parse(a, &d, &src);
	if (d.nerror)
		goto done;
	if (o->emit == EMIT_AST) {
		kd_ast_dump(&out, &src, file);
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
	m = kd_lower(a, &d, &src, file, target);
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
	if (o->stats) {
		kd_ir_stats_tagged(&st, m, NULL);
		fwrite(st.s ? st.s : "", 1, st.n, stderr);
		kd_buf_free(&st);
	}
	if (o->emit == EMIT_IR) {
		kd_ir_print(&out, m);
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
	kd_diag_end(&d);
	kd_buf_free(&out);
	kd_arena_free(a);
	return rc;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "kdslc: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

static int warning_flag(KdOptions *o, const char *a)
{
	if (!strcmp(a, "-Werror")) {
		o->werror = 1;
		return 0;
	}
	const char *g = NULL;
	unsigned char *set = NULL;
	if (!strncmp(a, "-Werror=", 8)) {
		g = a + 8;
		set = o->werr;
	} else if (!strncmp(a, "-Wno-", 5)) {
		g = a + 5;
		set = o->wno;
	} else if (!strncmp(a, "-W", 2)) {
		int k = kd_wgroup_lookup(a + 2);
		if (k < 0)
			return -1;
		o->wno[k] = 0;
		return 0;
	}
	int k = g ? kd_wgroup_lookup(g) : -1;
	if (k < 0)
		return -1;
	set[k] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	KdOptions o = {.opt = 1};
	if (argc > 1 && !strcmp(argv[1], "run"))
		return kd_run(argc - 2, argv + 2);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("kdslc %s\n", KDSLC_VERSION);
			return 0;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--header")) {
			if (i + 1 >= argc)
				return bad_usage("'%s' needs a file name", a);
			*(a[1] == 'o' ? &o.output : &o.header) = argv[++i];
		} else if (!strncmp(a, "--emit=", 7)) {
			static const char *const kinds[] = {"c", "tokens", "ast", "ir"};
			int k = -1;
			for (int j = 0; j < 4; j++)
				if (!strcmp(a + 7, kinds[j]))
					k = j;
			if (k < 0)
				return bad_usage("unknown --emit kind '%s' (expected tokens, ast, ir or c)", a + 7);
			o.emit = (KdEmitKind)k;
		} else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O")) {
			o.opt = a[2] == '0' ? 0 : 1;
		} else if (!strncmp(a, "-x", 2)) {
			const char *l = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
			if (!l || (strcmp(l, "k") && strcmp(l, "ir")))
				return bad_usage("'-x' needs 'k' or 'ir'%s", "");
			o.lang = l[0];
		} else if (!strcmp(a, "--stats")) {
			o.stats = 1;
		} else if (!strncmp(a, "--passes=", 9)) {
			size_t n;
			int at = kd_pass_list_bad(a + 9, &n);
			if (at >= 0) {
				KdBuf names = {0};
				kd_pass_names(&names);
				fprintf(stderr, "kdslc: error: unknown pass '%.*s' (passes: %s)\n%s", (int)n, a + 9 + at,
				        names.s, usage);
				kd_buf_free(&names);
				return 2;
			}
			o.passes = a + 9;
		} else if (!strncmp(a, "--print-after=", 14)) {
			if (!kd_pass_lookup(a + 14, strlen(a + 14)))
				return bad_usage("unknown pass '%s' in --print-after", a + 14);
			o.print_after = a + 14;
		} else if (!strcmp(a, "--print-after-all")) {
			o.print_after_all = 1;
		} else if (!strcmp(a, "--verify-each")) {
			o.verify_each = 1;
		} else if (!strncmp(a, "--doc-ops=", 10)) {
			o.doc_ops = a + 10;
		} else if (!strncmp(a, "-fdiagnostics-", 14) || !strcmp(a, "-fno-diagnostics-color")) {
			if (kd_diag_option(a, &o.diag_format, &o.diag_color) < 0)
				return bad_usage("unknown option '%s' (-fdiagnostics-format=text|json|sarif,"
				                 " -fdiagnostics-color=auto|always|never)", a);
		} else if (!strncmp(a, "-W", 2)) {
			if (warning_flag(&o, a) < 0)
				return bad_usage("unknown warning option '%s' (groups: unused, hazard, mask-pad)", a);
		} else if (a[0] == '-' && a[1]) {
			return bad_usage("unknown option '%s'", a);
		} else if (o.input) {
			return bad_usage("more than one input file ('%s')", a);
		} else {
			o.input = a;
		}
	}
	if (o.doc_ops) {
		KdTarget t = kd_target_lookup(o.doc_ops, strlen(o.doc_ops));
		if (!t)
			return bad_usage("unknown target '%s' (expected neuron, ascend or aipu)", o.doc_ops);
		KdBuf b = {0};
		kd_op_doc(&b, t);
		fwrite(b.s ? b.s : "", 1, b.n, stdout);
		kd_buf_free(&b);
		return 0;
	}
	if (!o.input)
		return bad_usage("%s", "no input file");
	return kd_compile(&o, NULL, 0);
}
