/* test_cname.c: the C names of kernels and parameters (backend/cname.c)
 * over every name built from pieces that look like C's, the runtime's and
 * the emitter's names: each is an identifier, two kdsl names never get one
 * C name, a kept name is never reserved, and a renamed one is never a name
 * the emitter gives a value (kd_<name>_<id>, kd_t<id>). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "../check_run.h"

static const char *const piece[] = {"", "kd_", "_", "x", "1", "k_", "p_", "int", "main", "t", "_t",
                                    "KD", "E", "sin", "f", "_r", "9_", "rt", "kdsl_"};
enum { NP = sizeof piece / sizeof *piece, NN = NP * NP * NP };

static char names[NN][32], cnames[NN][48];

/* Is s the C name of a local of the emitter: kd_<any>_<digits> or kd_t<digits>? */
static int local_like(const char *s)
{
	size_t n = strlen(s), d = n;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	return d < n && !strncmp(s, "kd_", 3) && (s[d - 1] == '_' || (d == 4 && s[3] == 't'));
}

static int ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every identifier of up to three pieces, once each, sorted. */
static int names_of(void)
{
	int n = 0;
	for (int a = 0; a < NP; a++)
		for (int b = 0; b < NP; b++)
			for (int c = 0; c < NP; c++) {
				char *s = names[n];
				strcpy(s, piece[a]);
				strcat(s, piece[b]);
				strcat(s, piece[c]);
				n += ident(s);
			}
	qsort(names, (size_t)n, sizeof names[0], cmp);
	int u = 0;
	for (int i = 0; i < n; i++)
		if (!u || strcmp(names[i], names[u - 1]))
			memmove(names[u++], names[i], sizeof names[0]);
	return u;
}

START_TEST(c_names_are_distinct_and_safe)
{
	int n = names_of();
	ck_assert_int_gt(n, 1000);
	for (const char *w = "kp"; *w; w++) {
		for (int i = 0; i < n; i++) {
			KdBuf o = {0};
			kd_c_name(&o, names[i], *w);
			ck_assert_uint_lt(o.n, sizeof cnames[0]);
			memcpy(cnames[i], o.s, o.n + 1);
			kd_buf_free(&o);
			const char *c = cnames[i];
			ck_assert_msg(ident(c), "%s -> %s", names[i], c);
			if (!strcmp(c, names[i])) {
				ck_assert_msg(!kd_c_reserved(c) && strncmp(c, "kd_", 3), "%s kept", c);
			} else {
				ck_assert_msg(kd_c_reserved(names[i]), "%s renamed", names[i]);
				ck_assert_msg(!local_like(c), "%s -> %s, a local's name", names[i], c);
				ck_assert_msg(kd_c_reserved(c), "%s -> %s, not reserved", names[i], c);
			}
		}
		qsort(cnames, (size_t)n, sizeof cnames[0], cmp);
		for (int i = 1; i < n; i++)
			ck_assert_msg(strcmp(cnames[i], cnames[i - 1]), "two names are %s", cnames[i]);
	}
}
END_TEST

START_TEST(reserved_examples)
{
	static const char *const yes[] = {"int", "main", "rt", "NULL", "errno", "printf", "memcpy",
	                                  "int64_t", "_Bool", "kd_x", "kdsl_rt", "KD_X", "KDSL_OK",
	                                  "o_t", "__x", "_y", "free", "sinf", "rand_r", "getc_unlocked",
	                                  "lgammaf_r", "EPS", "E2BIG", "PATH_MAX", "FLT_X", "INT9_C",
	                                  "class", "nullptr", "uint", "linux", "select", "pselect",
	                                  NULL};
	static const char *const no[] = {"x", "t", "s", "a", "src", "dst", "stride", "total", "Eps",
	                                 "sinc", "path_max", "selector", "x_tt", "kdx", "main2", "tile",
	                                 "Int", NULL};
	for (int i = 0; yes[i]; i++)
		ck_assert_msg(kd_c_reserved(yes[i]), "%s", yes[i]);
	for (int i = 0; no[i]; i++)
		ck_assert_msg(!kd_c_reserved(no[i]), "%s", no[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cname");
	TCase *tc = tcase_create("cname");
	tcase_add_test(tc, c_names_are_distinct_and_safe);
	tcase_add_test(tc, reserved_examples);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
