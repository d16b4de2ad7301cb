/* test_lower.c: lowering a long kernel while giving its syntax tree
 * back (kd_lower's tree argument, kd_arena_release_before) makes the
 * same IR as lowering it with the tree kept, on each target, and gives
 * most of the tree back.  Under AddressSanitizer (CI runs the suite so)
 * the chunks given back are poisoned or freed, so a read of a node made
 * before the statement being lowered is reported. */
#include <check.h>
#include <string.h>

#include "ir.h"
#include "lower.h"
#include "parse.h"
#include "sema.h"
#include "../check_run.h"

/* Statements enough for a tree of several MB, so of many chunks. */
enum { UNITS = 1500 };

/* One kernel per target, its body UNITS units long, each unit with its
 * own constants: every kind of statement lowering has (let, var,
 * assignment, for, if/else, the target's op calls, element reads and
 * writes). */
static void ascend_kernel(KdBuf *b)
{
	kd_buf_puts(b, "target ascend;\n"
	               "kernel k(src: gm f16[65536], dst: gm f16[65536], n: i32) {\n"
	               "    let u: ub f16[4096];\n    var acc = 0;\n");
	for (int i = 0; i < UNITS; i++)
		kd_buf_printf(b,
		              "    for i in 0..n {\n"
		              "        data_move(u, src[i*16 + %d], 0, 1, 1, 0, 0);\n"
		              "        acc = acc + i * %d + %d;\n"
		              "        if acc > %d { acc = acc - %d; } else { acc = acc ^ %d; }\n"
		              "    }\n"
		              "    let w%d = %d * 16 + 2;\n"
		              "    if w%d > %d { vec_add(128, u[0], u[128], u[256], 1, 8, 8, 8); }\n"
		              "    else { vec_dup(64, u[512], 0, 2, 8); }\n"
		              "    data_move(dst[%d * 64], u[%d * 64], 0, 4, 1, 0, 0);\n",
		              i % 97, i % 13 + 1, i % 97, i * 7 % 1000, i % 5 + 1, i % 89, i, i % 50, i, i * 3 % 200,
		              i % 60, i % 60);
	kd_buf_puts(b, "}\n");
}

static void neuron_kernel(KdBuf *b)
{
	kd_buf_puts(b, "target neuron;\n"
	               "kernel k(x: hbm f32[128, 64], y: hbm f32[128, 64], n: i32) {\n"
	               "    let a: sbuf f32[128, 64];\n    let c: sbuf f32[128, 64];\n"
	               "    load(a, x);\n");
	for (int i = 0; i < UNITS; i++)
		kd_buf_printf(b,
		              "    for j in 0..n {\n"
		              "        tensor_scalar(c, a, \"multiply\", %d.5);\n"
		              "        tensor_tensor(a, a, c, \"add\");\n"
		              "    }\n"
		              "    let s%d = %d;\n"
		              "    if s%d > 7 { store(y, a); } else { load(c, x); }\n",
		              i % 9, i, i % 17, i);
	kd_buf_puts(b, "    store(y, a);\n}\n");
}

static void aipu_kernel(KdBuf *b)
{
	kd_buf_puts(b, "target aipu;\n"
	               "kernel k(x: gm i32[8], y: gm i32[8], z: gm i32[16], n: i32) {\n"
	               "    let vy = vload(y[0]);\n    var m = 0;\n");
	for (int i = 0; i < UNITS; i++)
		kd_buf_printf(b,
		              "    let v%d = vload(x[0]);\n"
		              "    vstore(z[0], vzip(v%d, vy));\n"
		              "    vstore(z[8], vsel(v%d, vy, \"%s\"));\n"
		              "    m = m + %d;\n"
		              "    if m > n { vstore(z[%d], vrevs(v%d), mask=tail_mask(n %% 8, 8)); }\n",
		              i, i, i, i % 2 ? "TTFFTTTF" : "FTFTFTFT", i % 11, i % 9, i);
	kd_buf_puts(b, "}\n");
}

/* The -O0 IR of the source in text, lowered with the tree kept or given
 * back; *kept_frac: the tree's bytes after lowering over before. */
static void lower_text(const char *text, int release, KdBuf *ir, double *kept_frac)
{
	KdArena *a = kd_arena_new(), *ast = kd_arena_new();
	KdSource src;
	KdDiag d;
	FILE *sink = tmpfile();
	kd_source_from_string(&src, a, "t.k", text, strlen(text));
	kd_diag_init(&d, &src, sink);
	KdNode *file = kd_parse(a, ast, &d, &src);
	ck_assert_int_eq(d.nerror, 0);
	KdTarget t;
	kd_sema(a, &d, file, &t);
	ck_assert_int_eq(d.nerror, 0);
	size_t before = kd_arena_used(ast);
	KdModule *m = kd_lower(a, &d, &src, file, t, release ? ast : NULL);
	ck_assert_int_eq(d.nerror, 0);
	*kept_frac = (double)kd_arena_used(ast) / (double)before;
	kd_arena_free(ast);
	kd_ir_print(ir, m);
	kd_diag_end(&d);
	fclose(sink);
	kd_arena_free(a);
}

static void same_ir(void (*gen)(KdBuf *))
{
	KdBuf text = {0}, kept = {0}, given = {0};
	double fk, fg;
	gen(&text);
	lower_text(text.s, 0, &kept, &fk);
	lower_text(text.s, 1, &given, &fg);
	ck_assert_uint_gt(kept.n, 100000);   /* a long kernel was lowered */
	ck_assert_msg(kept.n == given.n && !memcmp(kept.s, given.s, kept.n),
	              "the IR differs when the tree is given back");
	ck_assert(fk == 1.0);
	/* all but the last chunks (the arena doubles them) went back */
	ck_assert_msg(fg < 0.6, "only %.0f%% of the tree was given back", 100 * (1 - fg));
	kd_buf_free(&text);
	kd_buf_free(&kept);
	kd_buf_free(&given);
}

START_TEST(ascend_same_ir)
{
	same_ir(ascend_kernel);
}
END_TEST

START_TEST(neuron_same_ir)
{
	same_ir(neuron_kernel);
}
END_TEST

START_TEST(aipu_same_ir)
{
	same_ir(aipu_kernel);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lower");
	TCase *tc = tcase_create("lower");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ascend_same_ir);
	tcase_add_test(tc, neuron_same_ir);
	tcase_add_test(tc, aipu_same_ir);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
