/* test_ops.c: an op added to a .def and to nothing else is an internal
 * error at every stage that has a case per op, never silent output.
 * Built with -DKD_TEST_OPS against a build of the compiler whose table
 * holds vtest (ops_test.def): a complete table entry with no sema,
 * lowering or emitter case.  Real ops routed to a stage that has no case
 * for them take the same paths. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "lower_aipu.h"
#include "parse.h"
#include "sema.h"
#include "diag_sink.h"
#include "../check_run.h"

static KdArena *A;
static KdSource src;
static KdDiag diag;
static FILE *sink;

static void use_source(const char *text)
{
	kd_source_from_string(&src, A, "t.k", text, strlen(text));
	kd_diag_init(&diag, &src, sink);
}

static void setup(void)
{
	A = kd_arena_new();
	sink = tmpfile();
	use_source("target aipu;\n");
}

static void teardown(void)
{
	fclose(sink);
	kd_arena_free(A);
}

/* Everything reported so far. */
static const char *reported(void)
{
	return kd_sink_text(sink);
}

static KdModule *aipu_module(KdFunc *f)
{
	KdModule *m = kd_alloc(A, sizeof *m);
	*m = (KdModule){.target = KD_TARGET_AIPU, .src = &src, .arena = A};
	kd_module_add(A, m, f);
	return m;
}

/* f() { %v = vsplat 1.0 (f32x8); %r = OP %v (type rt); ret } */
static KdModule *one_op(KdOp op, KdValType rt)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "k", KD_TARGET_AIPU, sp);
	int entry = kd_block_new(A, f, "entry");
	int one = kd_val_fconst(A, f, 1.0);
	int s = kd_ins_add(A, f, entry, OP_VSPLAT, 1, &one, NULL, sp);
	int v = kd_ins_result(A, f, s, VT_VEC, KD_F32, -1, NULL);
	f->val[v].lanes = 8;
	int i = kd_ins_add(A, f, entry, op, 1, &v, NULL, sp);
	int r = kd_ins_result(A, f, i, rt, rt == VT_VEC ? KD_F32 : KD_I64, -1, NULL);
	f->val[r].lanes = rt == VT_VEC ? 8 : 0;
	kd_ins_add(A, f, entry, OP_RET, 0, NULL, NULL, sp);
	return aipu_module(f);
}

START_TEST(the_test_op_is_a_complete_table_entry)
{
	ck_assert_int_eq(kd_op_table_check(&diag), 0);
	ck_assert_ptr_eq(kd_op_lookup(KD_TARGET_AIPU, "vtest"), &kd_ops[OP_VTEST]);
	ck_assert_int_eq(kd_ops[OP_VTEST].nparam, VTEST_NPARAM);
}
END_TEST

START_TEST(sema_reports_an_op_it_has_no_case_for)
{
	use_source("target aipu;\n"
	           "kernel k(x: gm f32[16], z: gm f32[16]) {\n"
	           "    vstore(z[0], vtest(vload(x[0])));\n"
	           "}\n");
	KdNode *file = kd_parse(A, A, &diag, &src);
	ck_assert_int_eq(diag.nerror, 0);
	KdTarget t;
	kd_sema(A, &diag, file, &t);
	ck_assert_int_eq(diag.nerror, 1);
	ck_assert_ptr_nonnull(strstr(reported(), "t.k:3:18: error: internal error: sema: op vtest not handled"));
}
END_TEST

START_TEST(lowering_reports_an_op_it_has_no_case_for)
{
	KdSpan sp = {0, 1};
	KdFunc *f = kd_func_new(A, "k", KD_TARGET_AIPU, sp);
	KdVecLower vb = {.a = A, .d = &diag, .f = f, .cur = kd_block_new(A, f, "entry")};
	KdNode call = {.kind = N_CALL, .span = sp, .opdesc = &kd_ops[OP_VTEST]};
	kd_lower_aipu_call(&vb, &call);
	ck_assert_int_eq(diag.nerror, 1);
	ck_assert_ptr_nonnull(strstr(reported(), "error: internal error: lower: op vtest not handled"));
	ck_assert_int_eq(f->nins, 0);
}
END_TEST

START_TEST(vector_emitter_reports_an_op_it_has_no_case_for)
{
	KdBuf c = {0};
	ck_assert_int_eq(kd_emit_c(&c, &diag, one_op(OP_VTEST, VT_VEC)), 1);
	ck_assert_int_eq(diag.nerror, 1);
	ck_assert_ptr_nonnull(strstr(reported(), "internal error: emit (aipu vectors): op vtest not handled"));
	kd_buf_free(&c);
}
END_TEST

/* A real op at the wrong stage: an aipu op whose result is a scalar
 * reaches the scalar emitter, which has no C for it. */
START_TEST(scalar_emitter_reports_an_aipu_op)
{
	KdBuf c = {0};
	ck_assert_int_eq(kd_emit_c(&c, &diag, one_op(OP_VREVS, VT_INT)), 1);
	ck_assert_ptr_nonnull(strstr(reported(), "internal error: emit: op vrevs not handled"));
	kd_buf_free(&c);
}
END_TEST

/* And a well-formed module emits with no error: the checks above are
 * about the op, not the harness. */
START_TEST(a_handled_op_emits)
{
	KdBuf c = {0};
	ck_assert_int_eq(kd_emit_c(&c, &diag, one_op(OP_VREVS, VT_VEC)), 0);
	ck_assert_int_eq(diag.nerror, 0);
	ck_assert_ptr_nonnull(strstr(c.s, "int k(kdsl_rt *kd_rt)"));
	kd_buf_free(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ops");
	TCase *tc = tcase_create("ops");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_test_op_is_a_complete_table_entry);
	tcase_add_test(tc, sema_reports_an_op_it_has_no_case_for);
	tcase_add_test(tc, lowering_reports_an_op_it_has_no_case_for);
	tcase_add_test(tc, vector_emitter_reports_an_op_it_has_no_case_for);
	tcase_add_test(tc, scalar_emitter_reports_an_aipu_op);
	tcase_add_test(tc, a_handled_op_emits);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
