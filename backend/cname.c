/* cname.c: the C names of kernels and parameters (LANGUAGE.md section 1).
 * Every kdsl identifier is valid; the ones that would clash with C, the C
 * library, the runtime or the emitter's own names get a C name of their
 * own, by one rule the header documents. */
#include <string.h>

#include "emit.h"

/* Identifiers a kernel or a parameter cannot be in C: C11's keywords (and
 * C23's, GNU's asm/typeof, C++'s), main, the header's runtime parameter `rt`,
 * and what <stddef.h> <stdint.h> <string.h> <math.h> <stdlib.h> <stdio.h>
 * (which the generated C and an embedding program include) declare in ISO
 * C and in glibc's default (POSIX, BSD) mode, with <errno.h> <assert.h>
 * <stdbool.h> <limits.h> <float.h> <stdarg.h> (<sys/select.h>'s select
 * included: glibc's default mode declares it through <stdlib.h>, so a
 * kernel named select would not compile beside an embedder's gnu17
 * <stdlib.h>).  Variants and families of these names, names ending in
 * _t and starting with _, kd_, KD_, kdsl_ or KDSL_ are rules, in
 * kd_c_reserved. */
static const char *const reserved[] = {
	/* keywords */
	"alignas", "alignof", "asm", "auto", "bool", "break", "case", "char", "const",
	"constexpr", "continue", "default", "do", "double", "else", "enum", "extern", "false",
	"float", "for", "goto", "if", "inline", "int", "long", "nullptr", "register", "restrict",
	"return", "short", "signed", "sizeof", "static", "static_assert", "struct", "switch",
	"thread_local", "true", "typedef", "typeof", "typeof_unqual", "union", "unsigned", "void",
	"volatile", "while",
	/* C++'s, for the header's extern "C" block */
	"and", "and_eq", "bitand", "bitor", "catch", "char16_t", "char32_t", "class", "compl",
	"concept", "consteval", "constinit", "const_cast", "co_await", "co_return", "co_yield",
	"decltype", "delete", "dynamic_cast", "explicit", "export", "friend", "mutable",
	"namespace", "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq", "private",
	"protected", "public", "reinterpret_cast", "requires", "static_cast", "template", "this",
	"throw", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
	/* the program and the runtime parameter of the header's prototypes */
	"main", "rt",
	/* <stddef.h> <stdbool.h> <stdarg.h> <assert.h> <errno.h> */
	"NULL", "offsetof", "unreachable", "va_arg", "va_copy", "va_end", "va_start", "assert",
	"static_assert", "errno", "EDOM", "EILSEQ", "ERANGE",
	/* <stdint.h> <limits.h> <float.h> macros */
	"INT8_MIN", "INT8_MAX", "UINT8_MAX", "INT16_MIN", "INT16_MAX", "UINT16_MAX", "INT32_MIN",
	"INT32_MAX", "UINT32_MAX", "INT64_MIN", "INT64_MAX", "UINT64_MAX", "INT_LEAST8_MIN",
	"INT_LEAST8_MAX", "UINT_LEAST8_MAX", "INT_LEAST16_MIN", "INT_LEAST16_MAX",
	"UINT_LEAST16_MAX", "INT_LEAST32_MIN", "INT_LEAST32_MAX", "UINT_LEAST32_MAX",
	"INT_LEAST64_MIN", "INT_LEAST64_MAX", "UINT_LEAST64_MAX", "INT_FAST8_MIN", "INT_FAST8_MAX",
	"UINT_FAST8_MAX", "INT_FAST16_MIN", "INT_FAST16_MAX", "UINT_FAST16_MAX", "INT_FAST32_MIN",
	"INT_FAST32_MAX", "UINT_FAST32_MAX", "INT_FAST64_MIN", "INT_FAST64_MAX", "UINT_FAST64_MAX",
	"INTPTR_MIN", "INTPTR_MAX", "UINTPTR_MAX", "INTMAX_MIN", "INTMAX_MAX", "UINTMAX_MAX",
	"PTRDIFF_MIN", "PTRDIFF_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "SIZE_MAX", "WCHAR_MIN",
	"WCHAR_MAX", "WINT_MIN", "WINT_MAX", "INT8_C", "INT16_C", "INT32_C", "INT64_C", "UINT8_C",
	"UINT16_C", "UINT32_C", "UINT64_C", "INTMAX_C", "UINTMAX_C", "CHAR_BIT", "CHAR_MIN",
	"CHAR_MAX", "SCHAR_MIN", "SCHAR_MAX", "UCHAR_MAX", "SHRT_MIN", "SHRT_MAX", "USHRT_MAX",
	"INT_MIN", "INT_MAX", "UINT_MAX", "LONG_MIN", "LONG_MAX", "ULONG_MAX", "LLONG_MIN",
	"LLONG_MAX", "ULLONG_MAX", "MB_LEN_MAX", "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX",
	"DBL_MIN", "DBL_EPSILON", "LDBL_MAX", "LDBL_MIN", "LDBL_EPSILON", "FLT_RADIX",
	"DECIMAL_DIG", "FLT_EVAL_METHOD",
	/* <math.h> */
	"HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "INFINITY", "NAN", "FP_INFINITE", "FP_NAN",
	"FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMAL",
	"FP_ILOGB0", "FP_ILOGBNAN", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "M_E",
	"M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4", "M_1_PI", "M_2_PI",
	"M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "MAXFLOAT", "HUGE", "fpclassify", "isfinite",
	"isinf", "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal", "isless",
	"islessequal", "islessgreater", "isunordered", "signgam",
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign",
	"cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma",
	"fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "llrint", "llround",
	"log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan", "nearbyint",
	"nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round", "scalbln",
	"scalbn", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc", "j0", "j1", "jn", "y0",
	"y1", "yn", "drem", "finite", "gamma", "scalb", "significand", "exp10", "pow10", "sincos",
	"lgamma_r",
	/* <string.h> (and <strings.h>, which glibc's includes by default) */
	"memchr", "memcmp", "memcpy", "memmove", "memset", "strcat", "strchr", "strcmp", "strcoll",
	"strcpy", "strcspn", "strerror", "strlen", "strncat", "strncmp", "strncpy", "strpbrk",
	"strrchr", "strspn", "strstr", "strtok", "strxfrm", "memccpy", "mempcpy", "memmem",
	"memrchr", "rawmemchr", "stpcpy", "stpncpy", "strdup", "strndup", "strdupa", "strndupa",
	"strnlen", "strsep", "strsignal", "strtok_r", "strerror_r", "strerror_l", "strcoll_l",
	"strxfrm_l", "strcasecmp", "strncasecmp", "strcasestr", "strchrnul", "strlcpy", "strlcat",
	"explicit_bzero", "bcmp", "bcopy", "bzero", "ffs", "ffsl", "ffsll", "index", "rindex",
	/* <stdlib.h> */
	"EXIT_FAILURE", "EXIT_SUCCESS", "MB_CUR_MAX", "RAND_MAX", "abort", "abs", "aligned_alloc",
	"alloca", "at_quick_exit", "atexit", "atof", "atoi", "atol", "atoll", "bsearch", "calloc",
	"div", "exit", "free", "getenv", "labs", "ldiv", "llabs", "lldiv", "malloc", "mblen",
	"mbstowcs", "mbtowc", "qsort", "quick_exit", "rand", "realloc", "srand", "strtod", "strtof",
	"strtol", "strtold", "strtoll", "strtoul", "strtoull", "system", "wcstombs", "wctomb",
	"_Exit", "a64l", "l64a", "drand48", "erand48", "jrand48", "lcong48", "lrand48", "mrand48",
	"nrand48", "seed48", "srand48", "ecvt", "fcvt", "gcvt", "getloadavg", "getsubopt",
	"grantpt", "initstate", "mkdtemp", "mkstemp", "mkstemps", "mktemp", "on_exit",
	"posix_memalign", "posix_openpt", "ptsname", "putenv", "qsort_r", "rand_r", "random",
	"realpath", "reallocarray", "secure_getenv", "setenv", "setstate", "srandom", "unlockpt",
	"unsetenv", "valloc", "clearenv", "arc4random",
	/* <stdio.h> */
	"BUFSIZ", "EOF", "FILENAME_MAX", "FOPEN_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END",
	"SEEK_SET", "TMP_MAX", "_IOFBF", "_IOLBF", "_IONBF", "FILE", "stdin", "stdout", "stderr",
	"clearerr", "fclose", "feof", "ferror", "fflush", "fgetc", "fgetpos", "fgets", "fopen",
	"fprintf", "fputc", "fputs", "fread", "freopen", "fscanf", "fseek", "fsetpos", "ftell",
	"fwrite", "getc", "getchar", "gets", "perror", "printf", "putc", "putchar", "puts",
	"remove", "rename", "rewind", "scanf", "setbuf", "setvbuf", "snprintf", "sprintf", "sscanf",
	"tmpfile", "tmpnam", "ungetc", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf",
	"vsprintf", "vsscanf", "asprintf", "vasprintf", "ctermid", "dprintf", "vdprintf", "fdopen",
	"fileno", "flockfile", "ftrylockfile", "funlockfile", "fmemopen", "open_memstream",
	"fseeko", "ftello", "getc_unlocked", "getchar_unlocked", "putc_unlocked",
	"putchar_unlocked", "getdelim", "getline", "pclose", "popen", "renameat", "tempnam",
	"setbuffer", "setlinebuf", "getw", "putw", "fcloseall", "P_tmpdir",
	/* <sys/types.h>, which glibc's <stdlib.h> includes by default */
	"uint", "ulong", "ushort", "u_char", "u_short", "u_int", "u_long", "fd_set", "fd_mask",
	"FD_SET", "FD_CLR", "FD_ISSET", "FD_ZERO", "FD_SETSIZE", "NFDBITS", "select", "pselect",
	"BYTE_ORDER",
	"LITTLE_ENDIAN", "BIG_ENDIAN", "PDP_ENDIAN",
	"htobe16", "htole16", "be16toh", "le16toh", "htobe32", "htole32", "be32toh", "le32toh",
	"htobe64", "htole64", "be64toh", "le64toh",
	/* the rest of what glibc's default mode declares there */
	"va_list", "linux", "unix", "i386", "L_ctermid", "MAX_CANON", "MAX_INPUT", "PIPE_BUF",
	"PTHREAD_DESTRUCTOR_ITERATIONS", "WCONTINUED", "WEXITED", "WEXITSTATUS", "WIFCONTINUED",
	"WIFEXITED", "WIFSIGNALED", "WIFSTOPPED", "WNOHANG", "WNOWAIT", "WSTOPPED", "WSTOPSIG",
	"WTERMSIG", "WUNTRACED", "qecvt", "qfcvt", "qgcvt", "rpmatch", "strtoq", "strtouq",
	"arc4random_buf", "arc4random_uniform",
	NULL};

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int has_suffix(const char *s, size_t n, const char *x)
{
	size_t k = strlen(x);
	return n > k && !strcmp(s + n - k, x);
}

/* Is the first n characters of name in the table? */
static int in_table(const char *name, size_t n)
{
	/* the emitter asks for every parameter reference: the first
	 * character turns most entries away without measuring them */
	for (int i = 0; reserved[i]; i++)
		if (reserved[i][0] == name[0] && !strncmp(name, reserved[i], n) && !reserved[i][n])
			return 1;
	return 0;
}

/* The table's names and their variants: <math.h>'s float and long double
 * ones (sinf, sinl), the reentrant, locale and unlocked ones (rand_r,
 * strcasecmp_l, getc_unlocked), and both (lgammaf_r). */
static int table_name(const char *name, size_t n)
{
	static const char *const sfx[] = {"", "_r", "_l", "_unlocked"};
	for (int i = 0; i < 4; i++) {
		size_t k = strlen(sfx[i]);
		if (k && !has_suffix(name, n, sfx[i]))
			continue;
		size_t m = n - k;
		if (in_table(name, m) ||
		    (m > 1 && (name[m - 1] == 'f' || name[m - 1] == 'l') && in_table(name, m - 1)))
			return 1;
	}
	return 0;
}

/* The families C and POSIX reserve in those headers: errno's E + digit or
 * capital, <float.h>'s FLT_ DBL_ LDBL_, <stdint.h>'s INT..._C, and the
 * capitals ending in _MAX or _MIN of <limits.h> (PATH_MAX, ...). */
static int reserved_family(const char *name, size_t n)
{
	int caps = 1;
	for (const char *c = name; *c; c++)
		caps &= (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
	return (name[0] == 'E' && ((name[1] >= 'A' && name[1] <= 'Z') || (name[1] >= '0' && name[1] <= '9'))) ||
	       has_prefix(name, "FLT_") || has_prefix(name, "DBL_") || has_prefix(name, "LDBL_") ||
	       ((has_prefix(name, "INT") || has_prefix(name, "UINT")) && has_suffix(name, n, "_C")) ||
	       (caps && (has_suffix(name, n, "_MAX") || has_suffix(name, n, "_MIN")));
}

int kd_c_reserved(const char *name)
{
	size_t n = strlen(name);
	return name[0] == '_' || has_prefix(name, "kd_") || has_prefix(name, "KD_") ||
	       has_prefix(name, "kdsl_") || has_prefix(name, "KDSL_") || has_suffix(name, n, "_t") ||
	       table_name(name, n) || reserved_family(name, n);
}

/* A renamed name starts with kd_ (which no kept name does) and never ends
 * in a digit (as every local of the emitter does: kd_<value>_<id>), so it
 * meets neither.  The final _ goes after a digit and after a _ (kd_1 is
 * kd_k_kd_1_, kd_1_ is kd_k_kd_1__), so no two renamed names meet. */
void kd_c_name(KdBuf *o, const char *name, char what)
{
	if (!kd_c_reserved(name)) {
		kd_buf_puts(o, name);
		return;
	}
	char last = name[strlen(name) - 1];
	kd_buf_printf(o, "kd_%c_%s%s", what, name, (last >= '0' && last <= '9') || last == '_' ? "_" : "");
}

void kd_c_string(KdBuf *o, const char *s)
{
	kd_buf_puts(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\' || c == '?')
			kd_buf_printf(o, "\\%c", c);
		else if (c < 32 || c >= 127)
			kd_buf_printf(o, "\\%03o", c);
		else
			kd_buf_put(o, (const char *)&c, 1);
	}
	kd_buf_puts(o, "\"");
}

void kd_c_comment(KdBuf *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '*' && s[1] == '/')
			kd_buf_puts(o, "*\\");
		else if (c == '?' && s[1] == '?')
			kd_buf_puts(o, "?\\");
		else if (c < 32 || c == 127)   /* UTF-8 stays readable */
			kd_buf_printf(o, "\\%03o", c);
		else
			kd_buf_put(o, (const char *)&c, 1);
	}
}
