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
	"usage: kdslc FILE.k [-o OUT.c] [--header OUT.h] [--emit tokens|ast|ir|c|signature-json]\n"
	"                    [-O0|-O1] [-Werror] [-Werror=GROUP] [-Wno-GROUP] [--stats]\n"
	"                    [-x k|ir]   FILE is source (k) or textual IR (ir, as --emit=ir\n"
	"                                writes it); default: IR if FILE ends in .kir\n"
	"                    [--passes=P,...] [--print-after=P] [--print-after-all] [--verify-each]\n"
	"                    [-fdiagnostics-format=text|json|sarif] [-fdiagnostics-color[=auto|always|never]]\n"
	"       kdslc run FILE.k [--arg NAME=VALUE]... [--out DIR] [--kernel NAME] [--quiet]\n"
	"                        [--repeat N] [--check-uninit] [-O0|-O1] [-g] [--keep DIR]\n"
	"                        (kdslc run --help)\n"
	"       kdslc --doc-ops TARGET      print the op reference of a target (markdown)\n"
	"       kdslc --list-names          print every target, dtype, memory space and op name\n"
	"       kdslc --version | --help\n"
	"FILE may be - for standard input; -o - writes to standard output.\n"
	"A long option's value follows it (--emit ir) or an '=' (--emit=ir); a short\n"
	"option's follows it or is glued on (-o out.c, -oout.c); -- ends the options.\n"
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
	/* The interface as the C has it: after the passes, like the C. */
	if (o->emit == EMIT_SIGNATURE) {
		kd_emit_signature(&out, m);
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

/* ---- options (the table at the end of this part) ---- */

static int opt_help(void *ctx, const char *val)
{
	(void)ctx, (void)val;
	fputs(usage, stdout);
	return KD_OPT_EXIT0;
}

static int opt_version(void *ctx, const char *val)
{
	(void)ctx, (void)val;
	printf("kdslc %s\n", KDSLC_VERSION);
	return KD_OPT_EXIT0;
}

static int opt_emit(void *ctx, const char *val)
{
	static const char *const kinds[] = {"c", "tokens", "ast", "ir", "signature-json"};
	for (int j = 0; j < 5; j++)
		if (!strcmp(val, kinds[j])) {
			((KdOptions *)ctx)->emit = (KdEmitKind)j;
			return 0;
		}
	return kd_usage_error("kdslc", "unknown --emit kind '%s' (expected tokens, ast, ir, c or signature-json)", val);
}

/* -O and -O1 optimise, -O0 does not. */
static int opt_level(void *ctx, const char *val)
{
	return kd_opt_level("kdslc", val, &((KdOptions *)ctx)->opt);
}

static int opt_lang(void *ctx, const char *val)
{
	if (strcmp(val, "k") && strcmp(val, "ir"))
		return kd_usage_error("kdslc", "'-x' needs 'k' or 'ir', got '%s'", val);
	((KdOptions *)ctx)->lang = val[0];
	return 0;
}

static int opt_passes(void *ctx, const char *val)
{
	size_t n;
	int at = kd_pass_list_bad(val, &n);
	if (at >= 0) {
		KdBuf names = {0};
		kd_pass_names(&names);
		fprintf(stderr, "kdslc: error: unknown pass '%.*s' (passes: %s); see kdslc --help\n", (int)n,
		        val + at, names.s);
		kd_buf_free(&names);
		return 2;
	}
	((KdOptions *)ctx)->passes = val;
	return 0;
}

static int opt_print_after(void *ctx, const char *val)
{
	if (!kd_pass_lookup(val, strlen(val)))
		return kd_usage_error("kdslc", "unknown pass '%s' in --print-after", val);
	((KdOptions *)ctx)->print_after = val;
	return 0;
}

/* -Werror, -Werror=GROUP, -Wno-GROUP and -WGROUP: val is what follows -W. */
static int opt_warning(void *ctx, const char *val)
{
	KdOptions *o = ctx;
	if (!strcmp(val, "error")) {
		o->werror = 1;
		return 0;
	}
	unsigned char *set = NULL;
	const char *g = val;
	if (!strncmp(val, "error=", 6))
		set = o->werr, g = val + 6;
	else if (!strncmp(val, "no-", 3))
		set = o->wno, g = val + 3;
	int k = kd_wgroup_lookup(g);
	if (k < 0) {
		fprintf(stderr, "kdslc: error: unknown warning option '-W%s' (groups: unused, hazard, mask-pad); see kdslc --help\n",
		        val);
		return 2;
	}
	if (set)
		set[k] = 1;
	else
		o->wno[k] = 0;
	return 0;
}

static int opt_diag_format(void *ctx, const char *val)
{
	int f = kd_diag_format_of(val);
	if (f < 0)
		return kd_usage_error("kdslc", "bad value in '-fdiagnostics-format=%s' (text, json or sarif)", val);
	((KdOptions *)ctx)->diag_format = f;
	return 0;
}

static int opt_diag_color(void *ctx, const char *val)
{
	int c = kd_diag_color_of(val);
	if (c < 0)
		return kd_usage_error("kdslc", "bad value in '-fdiagnostics-color=%s' (auto, always or never)", val);
	((KdOptions *)ctx)->diag_color = c;
	return 0;
}

static int opt_no_diag_color(void *ctx, const char *val)
{
	(void)val;
	((KdOptions *)ctx)->diag_color = KD_COLOR_NEVER;
	return 0;
}

/* The file to compile: exactly one. */
static int opt_input(void *ctx, const char *arg)
{
	KdOptions *o = ctx;
	if (o->input)
		return kd_usage_error("kdslc", "more than one input file ('%s')", arg);
	o->input = arg;
	return 0;
}

/* --list-names: the names the compiler's tables know, one per line as
 * "KIND NAME" (an op's line "op TARGET NAME", TARGET "ir" for the IR's
 * generic ops), so that tools/editors' grammars are tested against the
 * tables rather than a copy of them. */
static int list_names(void)
{
	for (int t = 1; t < KD_NTARGET; t++)
		printf("target %s\n", kd_target_names[t]);
	for (int i = 1; i < KD_NDTYPE; i++)
		printf("dtype %s\n", kd_dtypes[i].name);
	for (int s = 1; s < KD_NSPACE; s++)
		printf("space %s\n", kd_spaces[s].name);
	for (int i = 0; i < KD_NOP; i++)
		printf("op %s %s\n", kd_ops[i].target ? kd_target_names[kd_ops[i].target] : "ir", kd_ops[i].name);
	return fflush(stdout) ? 2 : 0;
}

/* kdslc's options: a new one is one entry here and its set function. */
static const KdOptSpec kdslc_options[] = {
	{"--help", no_argument, opt_help, 0},
	{"-h", no_argument, opt_help, 0},
	{"--version", no_argument, opt_version, 0},
	KD_OPT_STR("-o", KdOptions, output),
	KD_OPT_STR("--header", KdOptions, header),
	{"--emit", required_argument, opt_emit, 0},
	{"-O", optional_argument, opt_level, 0},
	{"-x", required_argument, opt_lang, 0},
	{"-W", required_argument, opt_warning, 0},
	KD_OPT_FLAG("--stats", KdOptions, stats),
	{"--passes", required_argument, opt_passes, 0},
	{"--print-after", required_argument, opt_print_after, 0},
	KD_OPT_FLAG("--print-after-all", KdOptions, print_after_all),
	KD_OPT_FLAG("--verify-each", KdOptions, verify_each),
	KD_OPT_STR("--doc-ops", KdOptions, doc_ops),
	KD_OPT_FLAG("--list-names", KdOptions, list_names),
	{"-fdiagnostics-format", required_argument, opt_diag_format, 0},
	{"-fdiagnostics-color", optional_argument, opt_diag_color, 0},
	{"-fno-diagnostics-color", no_argument, opt_no_diag_color, 0},
};

int main(int argc, char **argv)
{
	KdOptions o = {.opt = 1};
	if (argc > 1 && !strcmp(argv[1], "run"))
		return kd_run(argc - 1, argv + 1);
	int rc = kd_parse_options(argc, argv, "kdslc", kdslc_options,
	                          (int)(sizeof kdslc_options / sizeof kdslc_options[0]), &o, opt_input);
	if (rc)
		return rc == KD_OPT_EXIT0 ? 0 : rc;
	if (o.doc_ops) {
		KdTarget t = kd_target_lookup(o.doc_ops, strlen(o.doc_ops));
		if (!t)
			return kd_usage_error("kdslc", "unknown target '%s' (expected neuron, ascend or aipu)", o.doc_ops);
		KdBuf b = {0};
		kd_op_doc(&b, t);
		fwrite(b.s ? b.s : "", 1, b.n, stdout);
		kd_buf_free(&b);
		return 0;
	}
	if (o.list_names)
		return list_names();
	if (!o.input)
		return kd_usage_error("kdslc", "%s", "no input file");
	return kd_compile(&o, NULL, 0);
}
