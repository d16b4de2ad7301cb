/* main.c: kdslc.  source -> tokens -> AST -> sema -> SSA IR -> verify,
 * rules, placement -> C.  Exit status: 0 success, 1 errors in the input,
 * 2 usage or I/O errors (LANGUAGE.md section 5). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "pass.h"

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
	"Warning groups: unused, hazard, mask-pad, matmul-overwrite.\n";

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
		fprintf(stderr, "kdslc: error: unknown warning option '-W%s' (groups: unused, hazard, mask-pad, matmul-overwrite); see kdslc --help\n",
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
