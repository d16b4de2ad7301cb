/* c_names_app.c: an embedding program that calls c_names.k's kernels by
 * the C names its header documents, next to the C library headers whose
 * names those kernels (int, main, log10, ...) take in kdsl. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k.h"

static void show(const char *what, const uint8_t *v, int n)
{
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %d", v[i]);
	printf("\n");
}

/* Each kernel copies one 32-byte burst (main: rt of them) from its first
 * tensor to its second. */
int main(void)
{
	uint8_t a[64], b[64];
	int bad = 0;
	kdsl_rt *rt = kdsl_rt_create(KDSL_TARGET_ASCEND);
	if (!rt)
		return 1;
	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)(i + 5);
	memset(b, 0, sizeof b);
	bad |= kd_k_int(rt, a, b);
	show("int", b, 3);
	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)i;
	bad |= kd_k_main(rt, a, b, 2);
	show("main", b + 60, 4);
	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)(i + 7);
	bad |= kd_k_kd_k_main(rt, a, b, 0, 0, 1);
	show("kd_k_main", b, 2);
	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)(i + 9);
	bad |= kd_k_log10_(rt, a, 0, b, 1, 0, 0, 0);
	show("log10", b, 2);
	for (int i = 0; i < 64; i++)
		a[i] = (uint8_t)(i + 11);
	bad |= t(rt, a, b);
	show("t", b, 2);
	/* the C library's own names still mean what they mean */
	printf("%g %d\n", log10(100.0), abs(-3));
	kdsl_rt_destroy(rt);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
