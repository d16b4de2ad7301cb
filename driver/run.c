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

/* The build tree when kdslc's holds both libraries (each in its own
 * folder), else the installed prefix (both in one); KDSL_RT_INCLUDE and
 * KDSL_RT_LIBDIR override either with one folder that holds both. */
static RtDirs runtime_dirs(void)
{
	struct stat st;
	RtDirs d = {.inc = {KD_RT_INCDIR}, .lib = {KD_RT_LIBDIR}, .ninc = 1, .nlib = 1};
	if (stat(KD_RT_BUILDDIR "/libkdsl-runtime.so", &st) == 0 &&
	    stat(KD_RT_HARNESS_BUILDDIR "/libkdsl-harness.so", &st) == 0)
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

int kd_run(int argc, char **argv)
{
	KdOptions o = {.opt = 1};
	int first = -1;
	for (int i = 0; i < argc; i++) {
		/* Options that take a value: skip it when looking for the file. */
		if (!strcmp(argv[i], "--arg") || !strcmp(argv[i], "--out") || !strcmp(argv[i], "--kernel") ||
		    !strcmp(argv[i], "--repeat")) {
			i++;
			continue;
		}
		/* -O0/-O1 count wherever they stand, before or after the file */
		if (!strcmp(argv[i], "-O0") || !strcmp(argv[i], "-O1")) {
			o.opt = argv[i][2] - '0';
			continue;
		}
		if (first < 0 && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			first = i;
	}
	if (first < 0) {
		fprintf(stderr, "kdslc: error: 'kdslc run' needs a .k file\n"
		                "usage: kdslc run FILE.k [--arg NAME=VALUE]... [--out DIR] [--kernel NAME]\n");
		return 2;
	}
	o.input = argv[first];
	KdBuf c = {0};
	int rc = kd_compile(&o, &c, 1);
	if (rc) {
		kd_buf_free(&c);
		return rc;
	}
	char dir[] = "/tmp/kdslc-run-XXXXXX";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "kdslc: error: cannot create a temporary folder: %s\n", strerror(errno));
		kd_buf_free(&c);
		return 2;
	}
	char src[64], exe[64];
	snprintf(src, sizeof src, "%s/kernel.c", dir);
	snprintf(exe, sizeof exe, "%s/kernel", dir);
	FILE *f = fopen(src, "wb");
	if (!f || fwrite(c.s, 1, c.n, f) != c.n || fclose(f)) {
		fprintf(stderr, "kdslc: error: cannot write '%s'\n", src);
		kd_buf_free(&c);
		rmdir(dir);
		return 2;
	}
	kd_buf_free(&c);

	RtDirs d = runtime_dirs();
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	char incflag[2][4200], libflag[2][4200], rpath[2][4200];
	char *ccargv[24];
	int n = 0;
	ccargv[n++] = (char *)cc;
	ccargv[n++] = "-std=c11";
	ccargv[n++] = "-O2";
	for (int i = 0; i < d.ninc; i++) {
		snprintf(incflag[i], sizeof incflag[i], "-I%s", d.inc[i]);
		ccargv[n++] = incflag[i];
	}
	ccargv[n++] = src;
	ccargv[n++] = "-o";
	ccargv[n++] = exe;
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
	rc = spawn(ccargv);
	if (rc != 0) {
		fprintf(stderr, "kdslc: error: the C compiler '%s' failed on the generated code (%s)\n", cc, src);
		return 2;
	}
	/* The program gets every option but the file name. */
	char **pargv = calloc((size_t)argc + 2, sizeof *pargv);
	int k = 0;
	pargv[k++] = exe;
	for (int i = 0; i < argc; i++)
		if (i != first && strcmp(argv[i], "-O0") && strcmp(argv[i], "-O1"))
			pargv[k++] = argv[i];
	pargv[k] = NULL;
	fflush(stdout);
	rc = spawn(pargv);
	free(pargv);
	unlink(exe);
	unlink(src);
	rmdir(dir);
	if (rc < 0) {
		fprintf(stderr, "kdslc: error: cannot run the kernel program\n");
		return 2;
	}
	return rc > 2 ? 1 : rc;
}
