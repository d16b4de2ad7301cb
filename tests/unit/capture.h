/* capture.h: kdsl_harness_main with its stdout and stderr captured, the
 * one way the unit tests read what the harness prints.  Each stream goes
 * to a temporary file of its own and comes back NUL-terminated in the
 * caller's buffer (cut at the buffer's size). */
#ifndef KD_TEST_CAPTURE_H
#define KD_TEST_CAPTURE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kdsl_harness.h"

/* The file at fd from its start into buf; closes fd. */
static inline void kd_capture_read(int fd, char *buf, size_t n)
{
	FILE *f = fdopen(fd, "rb");
	size_t got;

	ck_assert_ptr_nonnull(f);
	rewind(f);
	got = fread(buf, 1, n - 1, f);
	buf[got] = '\0';
	fclose(f);
}

static inline int kd_capture_main(int argc, char **argv, const kdsl_kernel_info *k, int nk, char *out,
                                  size_t outn, char *err, size_t errn)
{
	char outp[] = "/tmp/kdsl-cap-out-XXXXXX", errp[] = "/tmp/kdsl-cap-err-XXXXXX";
	int fo = mkstemp(outp), fe = mkstemp(errp), so, se, rc;

	ck_assert_int_ge(fo, 0);
	ck_assert_int_ge(fe, 0);
	unlink(outp);   /* the descriptors keep the files until they close */
	unlink(errp);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = kdsl_harness_main(argc, argv, k, nk);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	kd_capture_read(fo, out, outn);
	kd_capture_read(fe, err, errn);
	return rc;
}

#endif
