/* isa.c: which vector kernels a runtime uses (kdsl_rt_create asks once;
 * each op's kernel table is picked from the answer, so there is no
 * global state): the CPU's vector level, capped by KDSL_ISA. */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define KDSL_ISA_X86 1
#include <cpuid.h>
#else
#define KDSL_ISA_X86 0
#endif

#if KDSL_ISA_X86
/* F16C is CPUID leaf 1's ECX bit 29: clang 14's __builtin_cpu_supports
 * does not know "f16c" (a compile error, not 0), so cpuid is asked.  The
 * OS's saving of the AVX registers F16C uses is what the "avx2" test
 * before it checks. */
static int has_f16c(void)
{
	unsigned a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
}
#endif

/* KDSL_ISA=sse2|avx2 caps the choice (tests compare the kernels that way).
 * Both vector levels include FMA and F16C: the activations' double lanes
 * use FMA (neuron_act_fast.h), the f16 conversions of the engine ops and
 * of TIK's vector ops F16C, and every CPU with AVX2 or AVX-512 on record
 * has both; one without would run the SSE2 kernels. */
kdsl_isa kdsl_isa_detect(void)
{
	const char *cap = getenv("KDSL_ISA");
	kdsl_isa isa = KDSL_ISA_BASE;

#if KDSL_ISA_X86
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c())
		isa = KDSL_ISA_AVX2;
	if (isa == KDSL_ISA_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl"))
		isa = KDSL_ISA_AVX512;
#endif
	if (cap && (!strcmp(cap, "sse2") || !strcmp(cap, "base")))
		isa = KDSL_ISA_BASE;
	else if (cap && !strcmp(cap, "avx2") && isa > KDSL_ISA_AVX2)
		isa = KDSL_ISA_AVX2;
	return isa;
}
