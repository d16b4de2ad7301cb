/* test_harness.c: kdsl_harness_main driven the way `kdslc run` drives it,
 * with hand-written kernels standing in for generated ones.  stdout and
 * stderr are redirected to files so the exact printout can be checked. */
#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdsl_harness.h"
#include "../check_run.h"
#include "capture.h"

static const kdsl_site MOVE = {"t.k", 3, 5, "data_move"};
static const kdsl_site ADD = {"t.k", 4, 5, "vec_add"};

/* ---- kernels ---- */

static const int64_t d23[1] = {23};
static const kdsl_param_info dbl_params[2] = {
	{"src_gm", KDSL_F16, 1, 0, 1, d23},
	{"dst_gm", KDSL_F16, 1, 1, 1, d23},
};

/* Seed 001 example 2, as the generated code would do it. */
static int dbl_call(kdsl_rt *rt, void *const *t, const int64_t *s)
{
	unsigned char *ub = kdsl_rt_mem(rt, KDSL_MEM_UB, NULL);
	kdsl_cref src = kdsl_cref_of(t[0], 46, KDSL_MEM_GM);
	kdsl_ref dst = kdsl_ref_of(t[1], 46, KDSL_MEM_GM);
	int rc, i;

	(void)s;
	if ((rc = kdsl_rt_enter(rt, KDSL_TARGET_ASCEND, "double_it")))
		return rc;
	for (i = 0; i < 2; i++)
		if ((rc = kdsl_ascend_data_move(rt, &MOVE, kdsl_ref_of(ub, 64, KDSL_MEM_UB), i * 32,
		                                src, i * 14, 0, 1, 1, 0, 0)))
			return rc;
	if ((rc = kdsl_ascend_vec_add(rt, &ADD, KDSL_F16, kdsl_ascend_mask_count(32), kdsl_ref_of(ub + 64, 64, KDSL_MEM_UB), 0,
	                              kdsl_cref_of(ub, 64, KDSL_MEM_UB), 0,
	                              kdsl_cref_of(ub, 64, KDSL_MEM_UB), 0, 1, 1, 1, 1)))
		return rc;
	for (i = 0; i < 2; i++)
		if ((rc = kdsl_ascend_data_move(rt, &MOVE, dst, i * 14,
		                                kdsl_cref_of(ub + 64, 64, KDSL_MEM_UB), i * 32,
		                                0, 1, 1, 0, 0)))
			return rc;
	return KDSL_OK;
}

static const int64_t d4[1] = {4};
static const kdsl_param_info scale_params[2] = {
	{"n", KDSL_I32, 0, 0, 0, NULL},
	{"out", KDSL_I32, 1, 1, 1, d4},
};

static int scale_call(kdsl_rt *rt, void *const *t, const int64_t *s)
{
	int32_t *out = t[1];
	int i;

	if (kdsl_rt_target(rt) != KDSL_TARGET_NEURON)
		return KDSL_ERR_TARGET;
	for (i = 0; i < 4; i++)
		out[i] = (int32_t)(s[0] * i);
	return KDSL_OK;
}

static int bad_call(kdsl_rt *rt, void *const *t, const int64_t *s)
{
	unsigned char *ub = kdsl_rt_mem(rt, KDSL_MEM_UB, NULL);

	(void)s;
	return kdsl_ascend_data_move(rt, &MOVE, kdsl_ref_of(ub, 64, KDSL_MEM_UB), 0,
	                             kdsl_cref_of(t[0], 46, KDSL_MEM_GM), 0, 0, 1, 0, 0, 0);
}

static const int64_t d300[1] = {300};
static const kdsl_param_info wrap_params[1] = {
	{"x", KDSL_I8, 1, 0, 1, d300},
};

static int noop_call(kdsl_rt *rt, void *const *t, const int64_t *s)
{
	(void)rt;
	(void)t;
	(void)s;
	return KDSL_OK;
}

static const kdsl_kernel_info DBL[1] = {
	{"double_it", KDSL_TARGET_ASCEND, 2, dbl_params, dbl_call},
};
static const kdsl_kernel_info TWO[2] = {
	{"double_it", KDSL_TARGET_ASCEND, 2, dbl_params, dbl_call},
	{"scale", KDSL_TARGET_NEURON, 2, scale_params, scale_call},
};
static const kdsl_kernel_info BAD[1] = {
	{"bad", KDSL_TARGET_ASCEND, 2, dbl_params, bad_call},
};
static const kdsl_kernel_info WRAP[1] = {
	{"wrap", KDSL_TARGET_AIPU, 1, wrap_params, noop_call},
};

/* ---- running the harness with captured output ---- */

static char out_text[1 << 16], err_text[1 << 16];

/* Runs kdsl_harness_main(argv...) with stdout and stderr captured. */
static int run(const kdsl_kernel_info *k, int nk, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "kdsl-run";
	va_start(ap, nk);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	return kd_capture_main(argc, argv, k, nk, out_text, sizeof out_text, err_text, sizeof err_text);
}

static const char DBL_OUT[] =
	"kernel double_it (ascend)\n"
	"inputs:\n"
	"src_gm: f16[23] =\n"
	"[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n"
	" 18. 19. 20. 21. 22.]\n"
	"outputs:\n"
	"dst_gm: f16[23] =\n"
	"[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18. 20. 22. 24. 26. 28. 30. 32. 34.\n"
	" 36. 38. 40. 42. 44.]\n";

START_TEST(default_fill_and_print)
{
	ck_assert_int_eq(run(DBL, 1, NULL), 0);
	ck_assert_str_eq(out_text, DBL_OUT);
	ck_assert_str_eq(err_text, "");
	ck_assert_int_eq(run(DBL, 1, "--quiet", NULL), 0);
	ck_assert_str_eq(out_text, "");
}
END_TEST

START_TEST(arg_fills)
{
	char want[128];
	int i, n = 0;

	ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=ones", NULL), 0);
	n += snprintf(want + n, sizeof want - (size_t)n, "dst_gm: f16[23] =\n[");
	for (i = 0; i < 23; i++)
		n += snprintf(want + n, sizeof want - (size_t)n, i ? " 2." : "2.");
	snprintf(want + n, sizeof want - (size_t)n, "]\n");
	ck_assert_ptr_nonnull(strstr(out_text, want));
	ck_assert_int_eq(run(DBL, 1, "--arg=src_gm=3", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "dst_gm: f16[23] =\n[6. 6. 6."));
	/* random: the same seed gives the same tensor, another seed another. */
	{
		char a[sizeof out_text], b[sizeof out_text];

		ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=random:7", NULL), 0);
		snprintf(a, sizeof a, "%s", out_text);
		ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=random:7", NULL), 0);
		ck_assert_str_eq(out_text, a);
		ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=random", NULL), 0);
		snprintf(b, sizeof b, "%s", out_text);
		ck_assert_str_ne(a, b);
		/* Uniform in [-10, 10): 23 draws include negatives. */
		ck_assert_ptr_nonnull(strstr(b, "src_gm: f16[23] =\n[-") ? b : strstr(b, " -"));
	}
}
END_TEST

START_TEST(usage_errors)
{
	ck_assert_int_eq(run(DBL, 1, "--arg", "nope=1", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "error: --arg nope: no kernel has a parameter named 'nope'"));
	ck_assert_str_eq(out_text, "");
	ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=bogus", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "bad value 'bogus'"));
	ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm", NULL), 2);
	ck_assert_int_eq(run(DBL, 1, "--kernel", "other", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "no kernel named 'other'"));
	ck_assert_int_eq(run(DBL, 1, "--frobnicate", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "unknown option '--frobnicate'"));
	ck_assert_int_eq(run(DBL, 1, "--arg", "src_gm=/nonexistent/x.npy", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err_text, "/nonexistent/x.npy"));
	ck_assert_int_eq(run(TWO, 2, "--arg", "n=1.5", NULL), 2);
	ck_assert_int_eq(run(TWO, 2, "--arg", "n=iota", NULL), 2);
	ck_assert_int_eq(run(DBL, 1, "--help", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "usage:"));
}
END_TEST

START_TEST(kernel_failure)
{
	ck_assert_int_eq(run(BAD, 1, NULL), 1);
	ck_assert_str_eq(err_text, "t.k:3:5: error: data_move: burst must be in 1..65535, got 0\n");
	ck_assert_ptr_nonnull(strstr(out_text, "kernel bad (ascend)\ninputs:\nsrc_gm: f16[23] =\n"));
	ck_assert_ptr_null(strstr(out_text, "outputs:"));
}
END_TEST

START_TEST(scalars_and_kernel_choice)
{
	ck_assert_int_eq(run(TWO, 2, "--arg", "n=5", "--kernel", "scale", NULL), 0);
	ck_assert_str_eq(out_text,
	                 "kernel scale (neuron)\n"
	                 "inputs:\n"
	                 "n: i32 = 5\n"
	                 "outputs:\n"
	                 "out: i32[4] =\n"
	                 "[ 0  5 10 15]\n");
	ck_assert_int_eq(run(TWO, 2, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, " 36. 38. 40. 42. 44.]\n\nkernel scale (neuron)\n"
	                                       "inputs:\nn: i32 = 0\noutputs:\nout: i32[4] =\n[0 0 0 0]\n"));
	/* A number the scalar's dtype cannot hold is an error, not a wrap. */
	ck_assert_int_eq(run(TWO, 2, "--arg", "n=4294967297", "--kernel", "scale", NULL), 2);
	ck_assert_int_eq(run(TWO, 2, "--arg", "n=2147483647", "--kernel", "scale", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out_text, "n: i32 = 2147483647\n"));
}
END_TEST

START_TEST(out_files)
{
	char dir[] = "/tmp/kdsl-h-XXXXXX", path[256], err[256];
	uint16_t dst[23], src[23];
	int8_t x[300];
	int i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(run(DBL, 1, "--out", dir, "--quiet", NULL), 0);
	snprintf(path, sizeof path, "%s/dst_gm.npy", dir);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 1, d23, dst, err, sizeof err), 0);
	for (i = 0; i < 23; i++)
		ck_assert(kdsl_f16_to_f64(dst[i]) == 2.0 * i);
	remove(path);
	snprintf(path, sizeof path, "%s/src_gm.npy", dir);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 1, d23, src, err, sizeof err), 0);
	ck_assert(kdsl_f16_to_f64(src[22]) == 22.0);
	/* A file written by one run feeds the next. */
	for (i = 0; i < 23; i++)
		src[i] = kdsl_f64_to_f16(0.5);
	ck_assert_int_eq(kdsl_npy_write(path, KDSL_F16, 1, d23, src), 0);
	ck_assert_int_eq(run(DBL, 1, "--arg", path, "--quiet", NULL), 2);   /* no NAME= */
	{
		char spec[300];

		snprintf(spec, sizeof spec, "src_gm=%s", path);
		ck_assert_int_eq(run(DBL, 1, "--arg", spec, NULL), 0);
		ck_assert_ptr_nonnull(strstr(out_text, "dst_gm: f16[23] =\n[1. 1. 1."));
		ck_assert_int_eq(run(TWO, 2, "--arg", spec, "--out", dir, "--quiet", NULL), 0);
	}
	remove(path);
	/* Several kernels: files are named kernel.param.npy. */
	snprintf(path, sizeof path, "%s/double_it.dst_gm.npy", dir);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_F16, 1, d23, dst, err, sizeof err), 0);
	ck_assert(kdsl_f16_to_f64(dst[3]) == 1.0);
	remove(path);
	snprintf(path, sizeof path, "%s/double_it.src_gm.npy", dir);
	remove(path);
	snprintf(path, sizeof path, "%s/scale.out.npy", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	remove(path);
	/* iota wraps in small integer dtypes. */
	ck_assert_int_eq(run(WRAP, 1, "--out", dir, "--quiet", NULL), 0);
	snprintf(path, sizeof path, "%s/x.npy", dir);
	ck_assert_int_eq(kdsl_npy_read(path, KDSL_I8, 1, d300, x, err, sizeof err), 0);
	ck_assert_int_eq(x[127], 127);
	ck_assert_int_eq(x[128], -128);
	ck_assert_int_eq(x[299], 43);
	remove(path);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("harness");
	TCase *tc = tcase_create("harness");

	tcase_add_test(tc, default_fill_and_print);
	tcase_add_test(tc, arg_fills);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, kernel_failure);
	tcase_add_test(tc, scalars_and_kernel_choice);
	tcase_add_test(tc, out_files);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
