/* check_run.h: the one way every Check program runs its suite.  CK_ENV
 * lets meson's environment choose the TAP log (one TAP line per test). */
#ifndef KD_CHECK_RUN_H
#define KD_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int kd_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
