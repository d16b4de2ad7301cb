/* run.c: `kdslc run FILE.k [harness options]`.  Compiles the kernels and a
 * harness main() to C, builds them with the system C compiler against the
 * harness and runtime libraries, and runs the program with the harness
 * options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

/* The folders of the headers (inc) and libraries (lib) of the runtime
 * and the harness: n of each, 1 when both share one. */
typedef struct {
	const char *inc[2], *lib[2];
	int ninc, nlib;
} RtDirs;

/* Whether dir holds library lib, shared or static (-Ddefault_library=
 * static builds only the .a, which -l finds as well). */
static int has_lib(const char *dir, const char *lib)
{
	static const char *const ext[] = {".so", ".a"};
	char path[4200];
	struct stat st;
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/lib%s%s", dir, lib, ext[i]);
		if (stat(path, &st) == 0)
			return 1;
	}
	return 0;
}

/* The build tree when kdslc's holds both libraries (each in its own
 * folder), else the installed prefix (both in one); KDSL_RT_INCLUDE and
 * KDSL_RT_LIBDIR override either with one folder that holds both. */
static RtDirs runtime_dirs(void)
{
	RtDirs d = {.inc = {KD_RT_INCDIR}, .lib = {KD_RT_LIBDIR}, .ninc = 1, .nlib = 1};
	if (has_lib(KD_RT_BUILDDIR, "kdsl-runtime") && has_lib(KD_RT_HARNESS_BUILDDIR, "kdsl-harness"))
		d = (RtDirs){.inc = {KD_RT_SRCDIR, KD_RT_HARNESS_SRCDIR},
		             .lib = {KD_RT_BUILDDIR, KD_RT_HARNESS_BUILDDIR},
		             .ninc = 2,
		             .nlib = 2};
	if (getenv("KDSL_RT_INCLUDE")) {
		d.inc[0] = getenv("KDSL_RT_INCLUDE");
		d.ninc = 1;
	}
	if (getenv("KDSL_RT_LIBDIR")) {
		d.lib[0] = getenv("KDSL_RT_LIBDIR");
		d.nlib = 1;
	}
	return d;
}

static int spawn(char *const *argv)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "kdslc: error: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static const char run_usage[] =
	"usage: kdslc run FILE.k [--arg NAME=VALUE]... [--out DIR] [--kernel NAME]\n"
	"                        [--repeat N] [--quiet] [--check-uninit] [-O0|-O1] [-g]\n"
	"                        [--keep DIR]\n"
	"Compiles FILE.k's kernels with a harness, builds them with the C compiler\n"
	"and runs each (or only --kernel NAME), printing its tensors.\n"
	"  --arg NAME=VALUE  fills parameter NAME: iota, zeros, ones, random[:seed],\n"
	"                    FILE.npy or an integer (a scalar's must fit its dtype)\n"
	"  --out DIR         writes every tensor to DIR/NAME.npy after the run\n"
	"  --repeat N        times N more runs of each kernel\n"
	"  --quiet, -q       prints no tensors\n"
	"  --check-uninit    fails an op that reads on-chip bytes (ub, l1, sbuf, psum,\n"
	"                    lsram) no op wrote since the kernel started\n"
	"                    (KDSL_CHECK=uninit)\n"
	"  -O0, -O1          kdslc's optimisation level (default -O1)\n"
	"  -g                builds the C with -g -O0 (for gdb)\n"
	"  --keep DIR        builds in DIR and keeps the C (kernel.c) and the program\n"
	"Environment: CC (default cc; may hold arguments, split on blanks), CFLAGS\n"
	"(appended to kdslc's flags), TMPDIR (where the temporary folder goes).\n";

/* What `kdslc run` reads from its command line. */
typedef struct {
	KdOptions o;
	int debug;           /* -g */
	const char *keep;    /* --keep DIR */
	char **fwd;          /* the harness options, for the program */
	int nfwd;
} RunOptions;

static int run_help(void *ctx, const char *val)
{
	(void)ctx, (void)val;
	fputs(run_usage, stdout);
	return KD_OPT_EXIT0;
}

static int run_level(void *ctx, const char *val)
{
	return kd_opt_level("kdslc run", val, &((RunOptions *)ctx)->o.opt);
}

static int run_keep(void *ctx, const char *val)
{
	if (!*val)
		return kd_usage_error("kdslc run", "%s", "--keep needs a folder");
	((RunOptions *)ctx)->keep = val;
	return 0;
}

/* Passes an option on to the program, which checks its value. */
static int forward(RunOptions *r, const char *opt, const char *val)
{
	r->fwd[r->nfwd++] = (char *)opt;
	if (val)
		r->fwd[r->nfwd++] = (char *)val;
	return 0;
}

static int run_arg(void *ctx, const char *val) { return forward(ctx, "--arg", val); }
static int run_out(void *ctx, const char *val) { return forward(ctx, "--out", val); }
static int run_kernel(void *ctx, const char *val) { return forward(ctx, "--kernel", val); }
static int run_repeat(void *ctx, const char *val) { return forward(ctx, "--repeat", val); }
static int run_quiet(void *ctx, const char *val) { return forward(ctx, "--quiet", val); }
static int run_check_uninit(void *ctx, const char *val) { return forward(ctx, "--check-uninit", val); }

static int run_input(void *ctx, const char *arg)
{
	RunOptions *r = ctx;
	if (r->o.input)
		return kd_usage_error("kdslc run", "more than one input file ('%s')", arg);
	r->o.input = arg;
	return 0;
}

/* `kdslc run`'s options: kdslc's own and the harness's, which go on to
 * the program. */
static const KdOptSpec run_options[] = {
	{"--help", no_argument, run_help, 0},
	{"-h", no_argument, run_help, 0},
	{"-O", optional_argument, run_level, 0},
	KD_OPT_FLAG("-g", RunOptions, debug),
	{"--keep", required_argument, run_keep, 0},
	{"--arg", required_argument, run_arg, 0},
	{"--out", required_argument, run_out, 0},
	{"--kernel", required_argument, run_kernel, 0},
	{"--repeat", required_argument, run_repeat, 0},
	{"--quiet", no_argument, run_quiet, 0},
	{"-q", no_argument, run_quiet, 0},
	{"--check-uninit", no_argument, run_check_uninit, 0},
};

/* Appends the blank-separated words of s to argv (no shell: no quotes,
 * no expansions, as make passes $(CC)); words point into s, a copy. */
static int split_words(char *s, char **argv, int n, int max)
{
	for (char *w = strtok(s, " \t\n"); w; w = strtok(NULL, " \t\n")) {
		if (n >= max)
			return -1;
		argv[n++] = w;
	}
	return n;
}

/* Removes the files run made in dir, then dir; keeps them under --keep. */
static void clean_up(const RunOptions *r, const char *dir, const char *src, const char *exe)
{
	if (r->keep)
		return;
	unlink(exe);
	unlink(src);
	rmdir(dir);
}

/* Makes the folder of the build: --keep's (created if need be) or a new
 * one under $TMPDIR (else /tmp).  dir gets its path; -1 on failure. */
static int make_dir(const RunOptions *r, char *dir, size_t n)
{
	if (r->keep) {
		if (mkdir(r->keep, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr, "kdslc: error: cannot create '%s': %s\n", r->keep, strerror(errno));
			return -1;
		}
		return snprintf(dir, n, "%s", r->keep) < (int)n ? 0 : -1;
	}
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (snprintf(dir, n, "%s/kdslc-run-XXXXXX", tmp) >= (int)n || !mkdtemp(dir)) {
		fprintf(stderr, "kdslc: error: cannot create a temporary folder in '%s': %s\n", tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* Builds src into exe with $CC and $CFLAGS against the runtime.  Returns
 * the compiler's exit status (0 ok). */
static int build(const RunOptions *r, const char *src, const char *exe)
{
	RtDirs d = runtime_dirs();
	char *cc = strdup(getenv("CC") && *getenv("CC") ? getenv("CC") : "cc");
	char *cflags = strdup(getenv("CFLAGS") ? getenv("CFLAGS") : "");
	char incflag[2][4200], libflag[2][4200], rpath[2][4200];
	enum { MAXARGS = 256 };
	char *ccargv[MAXARGS];
	int n = cc && cflags ? split_words(cc, ccargv, 0, 64) : -1;
	if (n <= 0) {
		fprintf(stderr, "kdslc: error: %s\n", n == 0 ? "CC names no compiler" : "CC is too long");
		free(cc), free(cflags);
		return 2;
	}
	ccargv[n++] = "-std=c11";
	if (r->debug)
		ccargv[n++] = "-g", ccargv[n++] = "-O0";
	else
		ccargv[n++] = "-O2";
	for (int i = 0; i < d.ninc; i++) {
		snprintf(incflag[i], sizeof incflag[i], "-I%s", d.inc[i]);
		ccargv[n++] = incflag[i];
	}
	/* after kdslc's flags, so that the user's win (make's order) */
	n = split_words(cflags, ccargv, n, MAXARGS - 20);
	if (n < 0) {
		fprintf(stderr, "kdslc: error: CFLAGS has too many words\n");
		free(cc), free(cflags);
		return 2;
	}
	ccargv[n++] = (char *)src;
	ccargv[n++] = "-o";
	ccargv[n++] = (char *)exe;
	for (int i = 0; i < d.nlib; i++) {
		snprintf(libflag[i], sizeof libflag[i], "-L%s", d.lib[i]);
		snprintf(rpath[i], sizeof rpath[i], "-Wl,-rpath,%s", d.lib[i]);
		ccargv[n++] = libflag[i];
		ccargv[n++] = rpath[i];
	}
	/* the harness before the runtime it calls, as a static link needs */
	ccargv[n++] = "-lkdsl-harness";
	ccargv[n++] = "-lkdsl-runtime";
	ccargv[n++] = "-lm";
	/* A sanitized runtime needs a sanitized program. */
	if (KD_RT_SANITIZE[0])
		ccargv[n++] = "-fsanitize=" KD_RT_SANITIZE;
	ccargv[n] = NULL;
	int rc = spawn(ccargv);
	if (rc != 0)
		fprintf(stderr, "kdslc: error: the C compiler '%s' failed on the generated code%s\n", ccargv[0],
		        r->keep ? "" : " (--keep DIR keeps it)");
	free(cc), free(cflags);
	return rc;
}

int kd_run(int argc, char **argv)
{
	RunOptions r = {.o = {.opt = 1}};
	/* each word is at most one forwarded option and its value */
	r.fwd = calloc((size_t)argc * 2 + 2, sizeof *r.fwd);
	if (!r.fwd)
		return 2;
	r.fwd[r.nfwd++] = NULL;   /* the program's argv[0], set below */
	int rc = kd_parse_options(argc, argv, "kdslc run", run_options,
	                          (int)(sizeof run_options / sizeof run_options[0]), &r, run_input);
	if (!rc && !r.o.input)
		rc = kd_usage_error("kdslc run", "%s", "'kdslc run' needs a .k file");
	if (rc) {
		free(r.fwd);
		return rc == KD_OPT_EXIT0 ? 0 : rc;
	}
	KdBuf c = {0};
	rc = kd_compile(&r.o, &c, 1);
	char dir[4096], src[4200], exe[4200];
	if (!rc && make_dir(&r, dir, sizeof dir) < 0)
		rc = 2;
	if (rc) {
		kd_buf_free(&c);
		free(r.fwd);
		return rc;
	}
	snprintf(src, sizeof src, "%s/kernel.c", dir);
	snprintf(exe, sizeof exe, "%s/kernel", dir);
	FILE *f = fopen(src, "wb");
	int bad = !f || fwrite(c.s, 1, c.n, f) != c.n;
	if (f && fclose(f))
		bad = 1;
	kd_buf_free(&c);
	if (bad) {
		fprintf(stderr, "kdslc: error: cannot write '%s': %s\n", src, strerror(errno));
		rc = 2;
	} else if (build(&r, src, exe) != 0) {
		rc = 2;
	} else {
		r.fwd[0] = exe;
		r.fwd[r.nfwd] = NULL;
		fflush(stdout);
		rc = spawn(r.fwd);
		if (rc < 0)
			fprintf(stderr, "kdslc: error: cannot run the kernel program\n");
		rc = rc < 0 ? 2 : rc > 2 ? 1 : rc;
	}
	clean_up(&r, dir, src, exe);
	free(r.fwd);
	return rc;
}
