/* fuzz_compiler.h: what the source and IR targets share (ir_roundtrip.c). */
#ifndef KDSL_FUZZ_COMPILER_H
#define KDSL_FUZZ_COMPILER_H

#include <stdio.h>

#include "driver.h"
#include "irread.h"
#include "fuzz.h"

/* Where the compiler's diagnostics go: /dev/null, or stderr when the
 * environment sets KDSL_FUZZ_DIAG. */
FILE *kdsl_fuzz_diag_out(void);

/* Aborts unless ir (n bytes, printed by kd_ir_print) reads back, verifies
 * and prints as the same bytes. */
void kdsl_fuzz_ir_roundtrip(const char *ir, size_t n);

#endif
