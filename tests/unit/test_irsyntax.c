/* test_irsyntax.c: the IR type spellings the printer and the reader share
 * (ir/irsyntax.c): every (type, dtype, lanes) has one spelling, and it
 * parses back to the same triple; loc lookup finds recorded offsets. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "irsyntax.h"
#include "../check_run.h"

START_TEST(every_type_spells_and_parses_back)
{
	static const int lanes[] = {0, 1, 8, 64};
	int n = 0;
	for (int t = VT_INT; t <= VT_LIST; t++)
		for (int dt = 0; dt < KD_NDTYPE; dt++)
			for (int l = 0; l < 4; l++) {
				KdVal x = {.type = (KdValType)t, .dt = (KdDtype)dt, .lanes = lanes[l]}, y = {0};
				KdBuf b = {0};
				kd_ir_put_type(&b, &x);
				ck_assert_msg(kd_ir_parse_type(b.s, &y) == 0, "'%s' does not parse", b.s);
				ck_assert_msg(y.type == x.type && y.dt == x.dt && y.lanes == x.lanes,
				              "'%s' parses to another type", b.s);
				kd_buf_free(&b);
				n++;
			}
	ck_assert_int_eq(n, 8 * KD_NDTYPE * 4);
}
END_TEST

START_TEST(builders_types_keep_their_short_names)
{
	static const struct {
		KdValType t;
		KdDtype dt;
		int lanes;
		const char *s;
	} cases[] = {
		{VT_INT, KD_I64, 0, "i64"}, {VT_INT, KD_U8, 0, "u8"}, {VT_FLOAT, KD_DT_NONE, 0, "f64"},
		{VT_BOOL, KD_BOOL, 0, "bool"}, {VT_LIST, KD_I64, 0, "list"}, {VT_VEC, KD_I32, 8, "i32x8"},
		{VT_MASK, KD_BOOL, 16, "boolx16"}, {VT_FLOAT, KD_F32, 0, "float.f32"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		KdVal x = {.type = cases[i].t, .dt = cases[i].dt, .lanes = cases[i].lanes};
		KdBuf b = {0};
		kd_ir_put_type(&b, &x);
		ck_assert_str_eq(b.s, cases[i].s);
		kd_buf_free(&b);
	}
}
END_TEST

START_TEST(non_types_are_refused)
{
	static const char *const bad[] = {"", "x8", "i33", "i32x0", "i32x08", "int.", "vec.i99x8",
	                                  "int.i64", "bool.bool", "i32x1234567", "ref"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		KdVal y = {0};
		ck_assert_msg(kd_ir_parse_type(bad[i], &y) < 0, "'%s' parsed", bad[i]);
	}
}
END_TEST

START_TEST(locations_found_by_offset)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	kd_source_from_string(&src, a, "t.kir", "ab\ncd\n", 6);
	KdIrLocs locs = {0};
	for (int i = 0; i < 100; i++)
		kd_ir_loc_add(a, &locs, (uint32_t)(10 + 2 * i), i + 1, 7);
	KdModule m = {.src = &src, .locs = &locs};
	int l, c;
	kd_ir_loc(&m, 10 + 2 * 57, &l, &c);
	ck_assert_int_eq(l, 58);
	ck_assert_int_eq(c, 7);
	kd_ir_loc(&m, 4, &l, &c);   /* not recorded: the position in src */
	ck_assert_int_eq(l, 2);
	ck_assert_int_eq(c, 2);
	kd_arena_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irsyntax");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, every_type_spells_and_parses_back);
	tcase_add_test(tc, builders_types_keep_their_short_names);
	tcase_add_test(tc, non_types_are_refused);
	tcase_add_test(tc, locations_found_by_offset);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
