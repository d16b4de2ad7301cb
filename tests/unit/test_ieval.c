/* test_ieval.c: the integer evaluator (util/ieval.h) against the edge
 * cases docs/language.md defines, the exact text of the C helpers it
 * shares with the emitter, the IR's mapping onto it (kd_eval_op), and
 * the overflow-checked affine forms (util/affine.h), and the arena's
 * reuse of freed chunks (util/arena.c). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "affine.h"
#include "ieval.h"
#include "kd.h"
#include "walk.h"
#include "../check_run.h"

#define MIN INT64_MIN
#define MAX INT64_MAX

static const struct {
	KdIop op;
	int64_t a, b;
	KdIevalStatus st;
	int64_t r;
} cases[] = {
	/* wrapping */
	{KD_I_ADD, MAX, 1, KD_IEVAL_OK, MIN},
	{KD_I_ADD, MIN, -1, KD_IEVAL_OK, MAX},
	{KD_I_SUB, MIN, 1, KD_IEVAL_OK, MAX},
	{KD_I_SUB, 0, MIN, KD_IEVAL_OK, MIN},
	{KD_I_MUL, MAX, 2, KD_IEVAL_OK, -2},
	{KD_I_MUL, MIN, -1, KD_IEVAL_OK, MIN},
	{KD_I_MUL, (int64_t)1 << 32, (int64_t)1 << 32, KD_IEVAL_OK, 0},
	{KD_I_MUL, 3037000500, 3037000500, KD_IEVAL_OK, -9223372036709301616},
	{KD_I_NEG, MIN, 0, KD_IEVAL_OK, MIN},
	{KD_I_NEG, MAX, 0, KD_IEVAL_OK, -MAX},
	/* division truncates toward zero; INT64_MIN / -1 wraps */
	{KD_I_DIV, MIN, -1, KD_IEVAL_OK, MIN},
	{KD_I_REM, MIN, -1, KD_IEVAL_OK, 0},
	{KD_I_DIV, -7, 2, KD_IEVAL_OK, -3},
	{KD_I_REM, -7, 2, KD_IEVAL_OK, -1},
	{KD_I_REM, 7, -2, KD_IEVAL_OK, 1},
	{KD_I_DIV, MIN, 1, KD_IEVAL_OK, MIN},
	{KD_I_DIV, 5, 0, KD_IEVAL_DIV_ZERO, 0},
	{KD_I_REM, MIN, 0, KD_IEVAL_DIV_ZERO, 0},
	/* shifts: counts 0..63; >> is arithmetic */
	{KD_I_SHL, 1, 63, KD_IEVAL_OK, MIN},
	{KD_I_SHL, -1, 63, KD_IEVAL_OK, MIN},
	{KD_I_SHL, 3, 0, KD_IEVAL_OK, 3},
	{KD_I_SHR, MIN, 63, KD_IEVAL_OK, -1},
	{KD_I_SHR, -5, 1, KD_IEVAL_OK, -3},
	{KD_I_SHL, 1, 64, KD_IEVAL_SHIFT, 0},
	{KD_I_SHL, 1, -1, KD_IEVAL_SHIFT, 0},
	{KD_I_SHR, 1, 64, KD_IEVAL_SHIFT, 0},
	{KD_I_SHR, 1, MIN, KD_IEVAL_SHIFT, 0},
	/* bitwise, comparisons, logic: 0 or 1, both sides evaluated */
	{KD_I_AND, -1, 12, KD_IEVAL_OK, 12},
	{KD_I_OR, MIN, 1, KD_IEVAL_OK, MIN + 1},
	{KD_I_XOR, -1, MAX, KD_IEVAL_OK, MIN},
	{KD_I_LT, MIN, MAX, KD_IEVAL_OK, 1},
	{KD_I_GE, MIN, MAX, KD_IEVAL_OK, 0},
	{KD_I_EQ, 4, 4, KD_IEVAL_OK, 1},
	{KD_I_NE, 4, 4, KD_IEVAL_OK, 0},
	{KD_I_LE, 4, 4, KD_IEVAL_OK, 1},
	{KD_I_GT, 5, 4, KD_IEVAL_OK, 1},
	{KD_I_LAND, 2, -3, KD_IEVAL_OK, 1},
	{KD_I_LAND, 2, 0, KD_IEVAL_OK, 0},
	{KD_I_LOR, 0, MIN, KD_IEVAL_OK, 1},
	{KD_I_NOT, 7, 0, KD_IEVAL_OK, 0},
	{KD_I_NOT, 0, 0, KD_IEVAL_OK, 1},
	{KD_I_PLUS, MIN, 0, KD_IEVAL_OK, MIN},
};

START_TEST(edge_cases)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t r = 12345;
		KdIevalStatus st = kd_ieval(cases[i].op, cases[i].a, cases[i].b, &r);
		ck_assert_msg(st == cases[i].st, "case %zu: status %d", i, (int)st);
		ck_assert_msg(r == (st == KD_IEVAL_OK ? cases[i].r : 12345), "case %zu: %lld", i, (long long)r);
	}
}
END_TEST

/* The emitter writes these into generated C; ieval.c compiles the same
 * text.  Stringizing must keep the spacing of the C before this module
 * existed, so generated files stay byte-identical. */
START_TEST(helper_text)
{
	static const char *const want[KD_IH_N] = {
		"static inline int64_t kd_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }\n",
		"static inline int64_t kd_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }\n",
		"static inline int64_t kd_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }\n",
		"static inline int64_t kd_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }\n",
		"static inline int64_t kd_div(int64_t a, int64_t b) { return b == -1 ? kd_neg(a) : a / b; }\n",
		"static inline int64_t kd_rem(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }\n",
		"static inline int64_t kd_shl(int64_t a, int64_t b) { return (int64_t)((uint64_t)a << b); }\n",
		"static inline int64_t kd_f2i(double x)\n{\n\treturn x != x ? 0 : x >= 9.2233720368547758e18 ? INT64_MAX\n\t       : x <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)x;\n}\n",
	};
	static const char *const names[KD_IH_N] = {"kd_add", "kd_sub", "kd_mul", "kd_neg",
	                                           "kd_div", "kd_rem", "kd_shl", "kd_f2i"};
	for (int h = 0; h < KD_IH_N; h++) {
		ck_assert_str_eq(kd_ieval_helper_c[h], want[h]);
		ck_assert_str_eq(kd_ieval_helper_name[h], names[h]);
	}
}
END_TEST

START_TEST(conversions)
{
	ck_assert_int_eq(kd_ieval_f2i(NAN), 0);
	ck_assert_int_eq(kd_ieval_f2i(9223372036854775808.0), MAX);
	ck_assert_int_eq(kd_ieval_f2i(9.25e18), MAX);
	ck_assert_int_eq(kd_ieval_f2i(-9223372036854775808.0), MIN);
	ck_assert_int_eq(kd_ieval_f2i(-HUGE_VAL), MIN);
	ck_assert_int_eq(kd_ieval_f2i(-1.9), -1);
	ck_assert_int_eq(kd_ieval_f2i(1.9), 1);
	ck_assert_int_eq(kd_ieval_narrow(260, 8, 0), 4);
	ck_assert_int_eq(kd_ieval_narrow(255, 8, 1), -1);
	ck_assert_int_eq(kd_ieval_narrow(-1, 16, 0), 65535);
	ck_assert_int_eq(kd_ieval_narrow(0x80000000, 32, 1), INT32_MIN);
	ck_assert_int_eq(kd_ieval_narrow(MIN, 64, 0), MIN);
}
END_TEST

/* Every scalar integer op of the IR evaluates as the evaluator's operator
 * of the same name; the others are not evaluated. */
START_TEST(ir_ops_map_onto_the_evaluator)
{
	static const struct { int op; KdIop iop; } map[] = {
		{OP_ADD, KD_I_ADD}, {OP_SUB, KD_I_SUB}, {OP_MUL, KD_I_MUL}, {OP_DIV, KD_I_DIV},
		{OP_REM, KD_I_REM}, {OP_SHL, KD_I_SHL}, {OP_SHR, KD_I_SHR}, {OP_AND, KD_I_AND},
		{OP_OR, KD_I_OR}, {OP_XOR, KD_I_XOR}, {OP_EQ, KD_I_EQ}, {OP_NE, KD_I_NE},
		{OP_LT, KD_I_LT}, {OP_LE, KD_I_LE}, {OP_GT, KD_I_GT}, {OP_GE, KD_I_GE},
		{OP_LAND, KD_I_LAND}, {OP_LOR, KD_I_LOR}, {OP_NEG, KD_I_NEG}, {OP_NOT, KD_I_NOT},
	};
	static const int64_t vals[][2] = {{-7, 2}, {MIN, -1}, {MAX, 63}, {0, 0}, {5, 3}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
			int64_t want = 0, got = 0;
			int ok = kd_ieval(map[i].iop, vals[v][0], vals[v][1], &want) == KD_IEVAL_OK;
			ck_assert_int_eq(kd_eval_op(map[i].op, vals[v][0], vals[v][1], &got), ok);
			ck_assert_int_eq(got, ok ? want : 0);
		}
	int64_t r;
	ck_assert_int_eq(kd_eval_op(OP_CAST, 1, 0, &r), 0);
	ck_assert_int_eq(kd_eval_op(OP_VIEW, 1, 0, &r), 0);
	ck_assert_int_eq(kd_eval_op(OP_BR, 1, 0, &r), 0);
}
END_TEST

START_TEST(affine_forms)
{
	int64_t c = 0;
	/* 3*x + 2*y - (3*x - 5) = 2*y + 5 */
	KdAff a = kd_aff_add(kd_aff_add(kd_aff_sym(1, 3), kd_aff_sym(2, 2), 1),
	                     kd_aff_add(kd_aff_sym(1, 3), kd_aff_const(5), -1), -1);
	ck_assert(a.ok);
	ck_assert_int_eq(a.c, 5);
	ck_assert_int_eq(a.n, 2);
	ck_assert(!kd_aff_is_const(a, &c));
	/* x - x is the constant 0 (its term stays with coefficient 0) */
	KdAff z = kd_aff_add(kd_aff_add(kd_aff_sym(1, 1), kd_aff_const(7), 1), kd_aff_sym(1, 1), -1);
	ck_assert(kd_aff_is_const(z, &c));
	ck_assert_int_eq(c, 7);
	ck_assert_int_eq(z.n, 1);
	/* x * y is not affine; 4 * x is */
	ck_assert(!kd_aff_mul(kd_aff_sym(1, 1), kd_aff_sym(2, 1)).ok);
	KdAff m = kd_aff_mul(kd_aff_const(4), kd_aff_sym(1, 3));
	ck_assert(m.ok && m.n == 1 && m.t[0].k == 12);
	/* the slice of issue 12: n - (n + INT64_MIN) negates INT64_MIN */
	KdAff lo = kd_aff_add(kd_aff_sym(9, 1), kd_aff_const(MIN), 1);
	KdAff d = kd_aff_add(kd_aff_sym(9, 1), lo, -1);
	ck_assert(!d.ok && d.overflow);
	ck_assert(!kd_aff_is_const(d, &c));
	/* overflow of a constant, of a coefficient, of a scale */
	KdAff o1 = kd_aff_add(kd_aff_const(MAX), kd_aff_const(1), 1);
	ck_assert(!o1.ok && o1.overflow);
	KdAff o2 = kd_aff_add(kd_aff_sym(1, MAX), kd_aff_sym(1, 1), 1);
	ck_assert(!o2.ok && o2.overflow);
	KdAff o3 = kd_aff_scale(kd_aff_sym(1, (int64_t)1 << 62), 2);
	ck_assert(!o3.ok && o3.overflow);
	KdAff o4 = kd_aff_scale(kd_aff_sym(1, MIN), -1);
	ck_assert(!o4.ok && o4.overflow);
	/* the limits themselves are fine */
	KdAff e = kd_aff_add(kd_aff_sym(1, MAX), kd_aff_const(MIN), 1);
	ck_assert(e.ok && e.c == MIN && e.t[0].k == MAX);
	/* an overflow stays one through later steps; too many terms is no overflow */
	ck_assert(kd_aff_add(kd_aff_const(1), o1, 1).overflow);
	ck_assert(kd_aff_mul(o1, kd_aff_const(2)).overflow);
	KdAff many = kd_aff_const(0);
	for (int i = 0; i < KD_AFF_MAXTERM; i++)
		many = kd_aff_add(many, kd_aff_sym(i, 1), 1);
	ck_assert(many.ok && many.n == KD_AFF_MAXTERM);
	many = kd_aff_add(many, kd_aff_sym(KD_AFF_MAXTERM, 1), 1);
	ck_assert(!many.ok && !many.overflow);
}
END_TEST

/* The in-place forms the rule checker builds with: the same results as
 * the by-value ones, an operand that is the result itself included. */
START_TEST(affine_forms_in_place)
{
	KdAff r;
	kd_aff_set_const(&r, 5);
	KdAff y = kd_aff_sym(1, 3);
	kd_aff_add_to(&r, &y, -2);             /* 5 - 6x */
	ck_assert(r.ok && r.c == 5 && r.n == 1 && r.t[0].key == 1 && r.t[0].k == -6);
	kd_aff_add_to(&r, &r, 1);              /* doubled */
	ck_assert(r.ok && r.c == 10 && r.n == 1 && r.t[0].k == -12);
	KdAff four = kd_aff_const(4);
	kd_aff_mul_to(&r, &four);
	ck_assert(r.ok && r.c == 40 && r.t[0].k == -48);
	KdAff k = kd_aff_const(3);
	kd_aff_mul_to(&k, &r);                 /* constant times form */
	ck_assert(k.ok && k.c == 120 && k.n == 1 && k.t[0].key == 1 && k.t[0].k == -144);
	kd_aff_mul_to(&k, &y);                 /* two forms: not affine */
	ck_assert(!k.ok && !k.overflow);
	KdAff big = kd_aff_sym(2, MAX);
	kd_aff_scale_to(&big, 2);
	ck_assert(!big.ok && big.overflow);
	kd_aff_add_to(&big, &r, 1);            /* overflow sticks */
	ck_assert(!big.ok && big.overflow);
}
END_TEST

/* Are p's n bytes all zero? */
static int all_zero(const unsigned char *p, size_t n)
{
	unsigned char acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* A chunk a freed arena leaves in the pool comes back zeroed, whatever
 * was written in it, and after the pool is emptied allocation still
 * works.  Sizes past the pool's 256 KiB threshold. */
START_TEST(arena_reuses_chunks_zeroed)
{
	enum { N = 1 << 20 };
	KdArenaPool *pool = kd_arena_pool_new();
	KdArena *a = kd_arena_new_in(pool);
	unsigned char *p = kd_alloc(a, N);
	memset(p, 0xab, N);
	unsigned char *q = kd_alloc(a, 300 * 1024);
	memset(q, 0xcd, 300 * 1024);
	ck_assert_uint_ge(kd_arena_used(a), N + 300 * 1024);
	kd_arena_free(a);
	KdArena *b = kd_arena_new_in(pool);
	for (int round = 0; round < 3; round++) {
		unsigned char *r = kd_alloc(b, N);
		ck_assert(all_zero(r, N));
		memset(r, 0xef, N);
	}
	ck_assert(all_zero(kd_alloc(b, 4096), 4096));
	kd_arena_free(b);
	kd_arena_pool_trim(pool, N);
	KdArena *c = kd_arena_new_in(pool);
	KdArena *c2 = kd_arena_new_like(c);   /* a scratch arena: the same pool */
	ck_assert(all_zero(kd_alloc(c, 2 * N), 2 * N));
	ck_assert(all_zero(kd_alloc(c2, N), N));
	kd_arena_free(c2);
	kd_arena_free(c);
	kd_arena_pool_trim(pool, 0);
	KdArena *d = kd_arena_new_in(pool);
	ck_assert_uint_eq(kd_arena_used(d), 0);
	ck_assert_ptr_nonnull(kd_alloc(d, N));
	kd_arena_free(d);
	kd_arena_pool_free(pool);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ieval");
	TCase *tc = tcase_create("ieval");
	tcase_add_test(tc, edge_cases);
	tcase_add_test(tc, helper_text);
	tcase_add_test(tc, conversions);
	tcase_add_test(tc, ir_ops_map_onto_the_evaluator);
	tcase_add_test(tc, affine_forms);
	tcase_add_test(tc, affine_forms_in_place);
	tcase_add_test(tc, arena_reuses_chunks_zeroed);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
