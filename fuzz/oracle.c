/* oracle.c: the compile oracle of the source and IR targets (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

int kdsl_fuzz_replay;
long kdsl_fuzz_accepted;
long kdsl_fuzz_oracle_runs;

/* Whether this call is one the oracle checks: all in replay mode, every
 * N-th (KDSL_FUZZ_ORACLE=N) under libFuzzer, where a gcc per input would
 * divide the exec rate by a thousand. */
static int oracle_due(void)
{
	static long every = -1, calls;
	if (kdsl_fuzz_replay)
		return 1;
	if (every < 0) {
		const char *e = getenv("KDSL_FUZZ_ORACLE");
		every = e ? strtol(e, NULL, 10) : 0;
		if (every < 0)
			every = 0;
	}
	return every > 0 && ++calls % every == 0;
}

static char dir[64];

/* atexit: the oracle's folder goes with the process (a failing input's
 * C stays: abort skips this). */
static void remove_dir(void)
{
	char p[128];
	snprintf(p, sizeof p, "%s/err", dir);
	remove(p);
	rmdir(dir);
}

void kdsl_fuzz_oracle(const char *c, size_t n)
{
	char path[128], cmd[4096];
	if (!*KDSL_FUZZ_GCC || !oracle_due())
		return;
	if (!*dir) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%.40s/kdslfuzzXXXXXX", tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perror("kdsl-fuzz: mkdtemp");
			abort();
		}
		atexit(remove_dir);
	}
	snprintf(path, sizeof path, "%s/k.c", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(c, 1, n, f) != n || fclose(f)) {
		perror("kdsl-fuzz: writing the generated C");
		abort();
	}
	snprintf(cmd, sizeof cmd,
	         "'%s' -std=c11 -Wall -Wextra -pedantic -Werror -Wmissing-prototypes -fsyntax-only "
	         "-I'%s' -I'%s' '%s' 2>'%s/err'",
	         KDSL_FUZZ_GCC, KDSL_FUZZ_RTINC, KDSL_FUZZ_HARNESSINC, path, dir);
	kdsl_fuzz_oracle_runs++;
	if (system(cmd) == 0) {
		remove(path);
		return;
	}
	/* the finding: the C and what gcc said, then a crash libFuzzer saves */
	fprintf(stderr, "kdsl-fuzz: generated C does not compile (kept in %s):\n", path);
	fwrite(c, 1, n, stderr);
	snprintf(cmd, sizeof cmd, "cat '%s/err' >&2", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "kdsl-fuzz: (no gcc output)\n");
	abort();
}
