/* test_diag.c: util/diag.c on its own: the edit distance and "did you
 * mean" thresholds at their boundaries, and what the JSON and SARIF
 * writers do with what lit cannot easily reach (a note with no
 * diagnostic before it, a position past the end, escapes, the error
 * limit). */
#include <check.h>
#include <string.h>

#include "kd.h"
#include "diag_sink.h"
#include "../check_run.h"

static int dist(const char *a, const char *b, int max)
{
	return kd_edit_distance(a, strlen(a), b, strlen(b), max);
}

START_TEST(edit_distance)
{
	ck_assert_int_eq(dist("", "", 2), 0);
	ck_assert_int_eq(dist("tile", "tile", 2), 0);
	ck_assert_int_eq(dist("tiel", "tile", 2), 1);          /* a transposition */
	ck_assert_int_eq(dist("data_mvoe", "data_move", 2), 1);
	ck_assert_int_eq(dist("dst_strid", "dst_stride", 2), 1);
	ck_assert_int_eq(dist("dta_mve", "data_move", 2), 2);
	ck_assert_int_eq(dist("dt_mv", "data_move", 2), 3);    /* capped: max + 1 */
	ck_assert_int_eq(dist("dt_mv", "data_move", 9), 4);
	ck_assert_int_eq(dist("abc", "", 5), 3);
	/* longer than 64 bytes: no distance is computed */
	char longw[80];
	memset(longw, 'a', sizeof longw - 1);
	longw[sizeof longw - 1] = 0;
	ck_assert_int_eq(dist(longw, longw, 2), 3);
}
END_TEST

static const char *nearest(const char *word, const char *const *cands)
{
	KdNear n;
	kd_near_init(&n, word);
	for (; *cands; cands++)
		kd_near_try(&n, *cands);
	return n.best;
}

START_TEST(near_thresholds)
{
	const char *const ops[] = {"vec_add", "data_move", "vec_dup", NULL};
	ck_assert_str_eq(nearest("data_mvoe", ops), "data_move");
	ck_assert_str_eq(nearest("vec_ad", ops), "vec_add");
	ck_assert_str_eq(nearest("vec_dud", ops), "vec_dup");
	/* of equals the first offered */
	const char *const ties[] = {"tile", "tilt", NULL};
	ck_assert_str_eq(nearest("tilf", ties), "tile");
	ck_assert_ptr_null(nearest("dt_mv", ops));             /* 3 edits */
	const char *const names[] = {"tile", "t", "ab", NULL};
	ck_assert_ptr_null(nearest("tabe", names));            /* 2 edits, 4 letters */
	ck_assert_str_eq(nearest("tilex", names), "tile");     /* 1 edit, 5 letters */
	ck_assert_ptr_null(nearest("tx", names));              /* 1 edit, 2 letters */
	ck_assert_ptr_null(nearest("tile", names));            /* itself is no suggestion */
}
END_TEST

START_TEST(json_edges)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	KdDiag d;
	FILE *sink = tmpfile();
	kd_source_from_string(&src, a, "q\"x.k", "let x;\n", 7);
	kd_diag_init(&d, &src, sink);
	kd_diag_set_format(&d, KD_DIAG_JSON, KD_COLOR_ALWAYS);
	ck_assert_int_eq(d.color, 0);                          /* no escapes in JSON */
	kd_note(&d, (KdSpan){4, 1}, "a lone note");
	kd_error(&d, (KdSpan){100, 3}, "past the end \"q\" \t\x01 \xc3\xa9");
	kd_diag_end(&d);
	const char *t = kd_sink_text(sink);
	ck_assert_ptr_nonnull(strstr(t, "[{\"kind\": \"note\", \"message\": \"a lone note\""));
	ck_assert_ptr_nonnull(strstr(t, "\"file\": \"q\\\"x.k\", \"line\": 1, \"column\": 5"));
	ck_assert_ptr_nonnull(strstr(t, "\"message\": \"past the end \\\"q\\\" \\u0009\\u0001 ??\""));
	ck_assert_ptr_nonnull(strstr(t, "\"line\": 2, \"column\": 1"));   /* clamped to the end */
	ck_assert_int_eq(d.nerror, 1);
	fclose(sink);
	kd_arena_free(a);
}
END_TEST

START_TEST(sarif_limit)
{
	KdArena *a = kd_arena_new();
	KdSource src;
	KdDiag d;
	FILE *sink = tmpfile();
	kd_source_from_string(&src, a, "my file.k", "x\n", 2);
	kd_diag_init(&d, &src, sink);
	kd_diag_set_format(&d, KD_DIAG_SARIF, KD_COLOR_NEVER);
	d.max_errors = 2;
	for (int i = 0; i < 5; i++)
		kd_error(&d, (KdSpan){0, 1}, "e%d", i);
	kd_diag_end(&d);
	const char *t = kd_sink_text(sink);
	ck_assert_ptr_nonnull(strstr(t, "\"uri\": \"my%20file.k\""));
	ck_assert_ptr_nonnull(strstr(t, "\"text\": \"e1\""));
	ck_assert_ptr_null(strstr(t, "\"text\": \"e2\""));
	/* the limit's own error has no location */
	ck_assert_ptr_nonnull(strstr(t, "\"message\": {\"text\": \"too many errors emitted, stopping now\"}, "
	                                "\"locations\": []"));
	fclose(sink);
	kd_arena_free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diag");
	TCase *tc = tcase_create("diag");
	tcase_add_test(tc, edit_distance);
	tcase_add_test(tc, near_thresholds);
	tcase_add_test(tc, json_edges);
	tcase_add_test(tc, sarif_limit);
	suite_add_tcase(s, tc);
	return kd_check_run(s);
}
