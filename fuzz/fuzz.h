/* fuzz.h: what the fuzz targets share.  Each target defines libFuzzer's
 * LLVMFuzzerTestOneInput; built with -Dfuzzing=true and clang it is a
 * libFuzzer binary, otherwise replay.c's main() runs it over files, so
 * the regression corpus replays in the normal `meson test`. */
#ifndef KDSL_FUZZ_H
#define KDSL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Set by replay.c's main(): the oracle then checks every accepted input. */
extern int kdsl_fuzz_replay;
/* Inputs the target accepted (compiled, parsed, ran a call): replay.c's
 * --min-accepted floor keeps a replay from passing on nothing. */
extern long kdsl_fuzz_accepted;
/* Generated C the oracle compiled. */
extern long kdsl_fuzz_oracle_runs;

/* The compile oracle: with gcc -std=c11 -Wall -Wextra -pedantic -Werror
 * -Wmissing-prototypes, c (n bytes) must compile (-fsyntax-only) against
 * the runtime's and harness's headers; otherwise prints the C and gcc's
 * errors and aborts, which libFuzzer records as a crash.  It runs on
 * every call in replay mode, on every KDSL_FUZZ_ORACLE-th call (an
 * environment variable, default 0: never) under libFuzzer. */
void kdsl_fuzz_oracle(const char *c, size_t n);

#endif
