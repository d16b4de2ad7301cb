/* replay.c: a fuzz target without libFuzzer.  Runs LLVMFuzzerTestOneInput
 * over each file named, and each file of each folder named (in name
 * order, so a replay is deterministic), with the compile oracle on every
 * accepted input (fuzz.h).  A crash or sanitizer report fails the run.
 * usage: TARGET [--min-accepted N] FILE|DIR...
 * --min-accepted: fewer accepted inputs fail the run, so a target that
 * rejects everything (or a corpus gone empty) cannot pass vacuously. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static long nrun;

/* Runs the target on the bytes of path; 0 ok, -1 unreadable. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return -1;
	}
	/* exactly n bytes, so ASan sees a read past the input */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	nrun++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir, in name order; 0 ok, -1 unreadable. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		if (!(names[n] = malloc(len)))
			break;
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!stat(names[i], &st) && S_ISREG(st.st_mode) && replay_file(names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	long min_accepted = 0;
	int i = 1;
	kdsl_fuzz_replay = 1;
	if (i + 1 < argc && !strcmp(argv[i], "--min-accepted")) {
		min_accepted = strtol(argv[i + 1], NULL, 10);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--min-accepted N] FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (; i < argc; i++) {
		struct stat st;
		int rc = stat(argv[i], &st) ? -1 : S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: cannot read '%s': %s\n", argv[0], argv[i], strerror(errno));
			return 2;
		}
	}
	printf("replayed %ld inputs, %ld accepted, %ld through the compile oracle\n", nrun, kdsl_fuzz_accepted,
	       kdsl_fuzz_oracle_runs);
	if (kdsl_fuzz_accepted < min_accepted) {
		fprintf(stderr, "%s: only %ld inputs accepted, expected at least %ld\n", argv[0], kdsl_fuzz_accepted,
		        min_accepted);
		return 1;
	}
	return 0;
}
