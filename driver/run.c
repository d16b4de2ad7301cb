/* run.c: `kdslc run FILE.k [harness options]`.  Compiles the kernels and a
 * harness main() to C, builds them with the system C compiler against the
 * runtime library, and runs the program with the harness options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

/* Where the runtime is: the build tree when kdslc runs from it, else the
 * installed prefix; KDSL_RT_INCLUDE and KDSL_RT_LIBDIR override both. */
static void runtime_dirs(const char **inc, const char **lib)
{
	struct stat st;
	*inc = KD_RT_INCDIR;
	*lib = KD_RT_LIBDIR;
	if (stat(KD_RT_BUILDDIR "/libkdsl-runtime.so", &st) == 0) {
		*inc = KD_RT_SRCDIR;
		*lib = KD_RT_BUILDDIR;
	}
	if (getenv("KDSL_RT_INCLUDE"))
		*inc = getenv("KDSL_RT_INCLUDE");
	if (getenv("KDSL_RT_LIBDIR"))
		*lib = getenv("KDSL_RT_LIBDIR");
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

	const char *inc, *lib;
	runtime_dirs(&inc, &lib);
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	char incflag[4200], libflag[4200], rpath[4200];
	snprintf(incflag, sizeof incflag, "-I%s", inc);
	snprintf(libflag, sizeof libflag, "-L%s", lib);
	snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", lib);
	char *ccargv[16];
	int n = 0;
	ccargv[n++] = (char *)cc;
	ccargv[n++] = "-std=c11";
	ccargv[n++] = "-O2";
	ccargv[n++] = incflag;
	ccargv[n++] = src;
	ccargv[n++] = "-o";
	ccargv[n++] = exe;
	ccargv[n++] = libflag;
	ccargv[n++] = rpath;
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
