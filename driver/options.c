/* options.c: the command line of kdslc and `kdslc run`, parsed by
 * getopt_long from a table of options (KdOptSpec).  Each table gives every
 * spelling getopt knows: `--opt value` and `--opt=value` for long options,
 * `-oFILE` and `-o FILE` for short ones, `--` ending options.  Single-dash
 * words such as `-Werror=hazard` or `-fdiagnostics-color=never` are one
 * short letter (W, f) whose value names the entry: an option of that kind
 * is one table entry like any other. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* The spec of a single-dash word option ("-fdiagnostics-color") whose
 * letter is c and whose text after the letter starts val
 * ("diagnostics-color=never"), or NULL. */
static const KdOptSpec *word_spec(const KdOptSpec *specs, int n, int c, const char *val)
{
	size_t vl = strcspn(val, "=");
	for (int i = 0; i < n; i++) {
		const char *nm = specs[i].name;
		if (nm[0] == '-' && nm[1] == c && nm[2] && strlen(nm + 2) == vl && !strncmp(nm + 2, val, vl))
			return &specs[i];
	}
	return NULL;
}

/* Whether specs has a single-dash word option with letter c. */
static int has_word(const KdOptSpec *specs, int n, int c)
{
	for (int i = 0; i < n; i++)
		if (specs[i].name[0] == '-' && specs[i].name[1] == c && specs[i].name[2])
			return 1;
	return 0;
}

/* Edit distance of a[0..an) and b (util's), capped at 9: names are short. */
static int edit_distance(const char *a, size_t an, const char *b)
{
	return kd_edit_distance(a, an, b, strlen(b), 8);
}

/* "kdslc: error: unknown option 'ARG'", with the closest spelling in the
 * table when it is at most two edits away (and not most of the word), or
 * "ambiguous option" for a prefix of two long options. */
static int unknown_option(const char *prog, const KdOptSpec *specs, int n, const char *arg)
{
	size_t len = strcspn(arg, "=");
	const char *best = NULL;
	int bestd = 3;
	for (int i = 0; i < n; i++) {
		int d = edit_distance(arg, len, specs[i].name);
		if (d < bestd && (size_t)d * 2 < len) {
			bestd = d;
			best = specs[i].name;
		}
	}
	/* getopt_long takes any unambiguous prefix of a long option */
	int nprefix = 0;
	for (int i = 0; i < n && len > 2 && arg[1] == '-'; i++)
		nprefix += specs[i].name[1] == '-' && !strncmp(specs[i].name, arg, len);
	fprintf(stderr, "kdslc: error: %s option '%.*s'", nprefix > 1 ? "ambiguous" : "unknown", (int)len, arg);
	if (best && nprefix < 2)
		fprintf(stderr, " (did you mean '%s'?)", best);
	fprintf(stderr, "; see %s --help\n", prog);
	return 2;
}

int kd_usage_error(const char *prog, const char *fmt, const char *arg)
{
	fprintf(stderr, "kdslc: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "; see %s --help\n", prog);
	return 2;
}

/* Builds getopt_long's short-option string and long-option array from
 * specs: long entries carry their table index + 256 as their value. */
static void getopt_tables(const KdOptSpec *specs, int n, char *shorts, struct option *longs)
{
	int s = 0, l = 0;
	/* '-': non-options come back in order as 1 (argv is not permuted, so
	 * each error can name the word it is about); ':': report a missing
	 * value as ':' instead of printing getopt's own message. */
	shorts[s++] = '-';
	shorts[s++] = ':';
	for (int i = 0; i < n; i++) {
		const char *nm = specs[i].name;
		if (nm[1] == '-') {
			longs[l++] = (struct option){nm + 2, specs[i].has_arg, NULL, 256 + i};
		} else if (!nm[2] || !memchr(shorts, nm[1], (size_t)s)) {
			/* memchr over what is built so far: shorts has no NUL yet */
			shorts[s++] = nm[1];
			if (nm[2] || specs[i].has_arg == required_argument)
				shorts[s++] = ':';
			else if (specs[i].has_arg == optional_argument)
				shorts[s++] = ':', shorts[s++] = ':';
		}
	}
	shorts[s] = '\0';
	longs[l] = (struct option){0};
}

/* The table entry getopt_long's result c stands for, or NULL. */
static const KdOptSpec *spec_of(const KdOptSpec *specs, int n, int c, const char **val)
{
	if (c >= 256 && c < 256 + n)
		return &specs[c - 256];
	if (*val && has_word(specs, n, c)) {
		const KdOptSpec *w = word_spec(specs, n, c, *val);
		if (!w)
			return NULL;
		const char *eq = strchr(*val, '=');
		/* a value after '=' exactly when the entry takes one (either way
		 * for an optional one: -fdiagnostics-color, -fdiagnostics-color=auto) */
		if (w->has_arg == no_argument ? eq != NULL : w->has_arg == required_argument && !eq)
			return NULL;
		*val = eq ? eq + 1 : NULL;
		return w;
	}
	for (int i = 0; i < n; i++)
		if (specs[i].name[1] == c && !specs[i].name[2])
			return &specs[i];
	return NULL;
}

int kd_parse_options(int argc, char **argv, const char *prog, const KdOptSpec *specs, int n, void *ctx,
                     int (*operand)(void *ctx, const char *arg))
{
	char shorts[3 + 3 * 64];
	struct option longs[65];
	if (n > 64)
		return kd_usage_error(prog, "%s", "too many options in the table");
	getopt_tables(specs, n, shorts, longs);
	opterr = 0;
	optind = 0;   /* glibc: start afresh, also when called a second time */
	for (;;) {
		/* the word getopt is about to read (argv is not permuted) */
		int at = optind ? optind : 1;
		int c = getopt_long(argc, argv, shorts, longs, NULL);
		if (c == -1)
			break;
		const char *word = at < argc ? argv[at] : "";
		if (c == 1) {
			int rc = operand(ctx, optarg);
			if (rc)
				return rc;
			continue;
		}
		if (c == '?')
			return unknown_option(prog, specs, n, word);
		if (c == ':')
			return kd_usage_error(prog, "'%s' needs a value", word);
		const char *val = optarg;
		const KdOptSpec *sp = spec_of(specs, n, c, &val);
		if (!sp)
			return unknown_option(prog, specs, n, word);
		if (!sp->set) {
			char *field = (char *)ctx + sp->field - 1;
			if (sp->has_arg == no_argument)
				*(int *)(void *)field = 1;
			else
				*(const char **)(void *)field = val;
			continue;
		}
		int rc = sp->set(ctx, val);
		if (rc)
			return rc;
	}
	/* the words after "--" are operands, whatever they look like */
	for (int i = optind; i < argc; i++) {
		int rc = operand(ctx, argv[i]);
		if (rc)
			return rc;
	}
	return 0;
}

int kd_opt_level(const char *prog, const char *val, int *opt)
{
	if (val && strcmp(val, "0") && strcmp(val, "1"))
		return kd_usage_error(prog, "unknown optimisation level '-O%s' (expected -O0 or -O1)", val);
	*opt = val && *val == '0' ? 0 : 1;
	return 0;
}
