/* harness.c: kdsl_harness_main, the program behind `kdslc run`.
 *
 * For each kernel (or only --kernel NAME) it creates a runtime of the
 * kernel's target, fills the parameters, runs the kernel and prints:
 *
 *     kernel data_move_unaligned (ascend)
 *     inputs:
 *     src_gm: f16[23] =
 *     [ 0.  1.  2. ...]
 *     n: i32 = 5
 *     outputs:
 *     dst_gm: f16[23] =
 *     [ 0.  2.  4. ...]
 *
 * Inputs are the tensors the kernel only reads plus the scalars, printed
 * before the run; outputs are the tensors it writes, printed after it.  A
 * section with nothing in it reads "inputs: none" / "outputs: none".
 * Each tensor is numpy's str() of it, unindented, so it can be compared
 * with numpy output as is.  Kernels are separated by a blank line.
 *
 * Defaults: read-only tensors iota, written tensors zeros, scalars 0.
 * Exit status: 0 ok, 1 a kernel failed ("file.k:LINE:COL: error: op:
 * message" on stderr, or "error: <message>" when it has no site,
 * later kernels do not run), 2 bad usage or I/O. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness_internal.h"

typedef struct {
	char *name;   /* malloc'd: argv is left as it was */
	kdsl_fill fill;
} arg_spec;

typedef struct {
	arg_spec *args;
	int nargs;
	const char *out_dir;
	const char *only;
	int quiet;
	long repeat;   /* --repeat N: time N more runs */
	int check_uninit;   /* --check-uninit: the runtime's KDSL_CHECK_UNINIT */
} options;

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--arg NAME=iota|zeros|ones|random[:seed]|FILE.npy|NUMBER]...\n"
	           "       [--out DIR] [--kernel NAME] [--quiet] [--repeat N] [--check-uninit]\n", prog);
}

static int errorf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

static int errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* An option's value: "--opt VALUE" or "--opt=VALUE". */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

static int has_param(const kdsl_kernel_info *kernels, int nkernel, const char *name)
{
	int k, p;

	for (k = 0; k < nkernel; k++)
		for (p = 0; p < kernels[k].nparam; p++)
			if (!strcmp(kernels[k].params[p].name, name))
				return 1;
	return 0;
}

static int parse_options(int argc, char **argv, const kdsl_kernel_info *kernels, int nkernel,
                         options *o)
{
	const char *prog = argc > 0 ? argv[0] : "kdsl-run";
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout, prog);
			return 0;
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			o->quiet = 1;
		} else if (!strcmp(argv[i], "--check-uninit")) {
			o->check_uninit = 1;
		} else if ((v = opt_value(argc, argv, &i, "--out"))) {
			if (!*v)
				return errorf("--out needs a directory");
			o->out_dir = v;
		} else if ((v = opt_value(argc, argv, &i, "--repeat"))) {
			char *end;
			o->repeat = strtol(v, &end, 10);
			if (!*v || *end || o->repeat < 1 || o->repeat > 1000000)
				return errorf("--repeat needs a count in 1..1000000, got '%s'", v);
		} else if ((v = opt_value(argc, argv, &i, "--kernel"))) {
			if (!*v)
				return errorf("--kernel needs a kernel name");
			o->only = v;
		} else if ((v = opt_value(argc, argv, &i, "--arg"))) {
			const char *eq = strchr(v, '=');
			arg_spec *a = &o->args[o->nargs];

			if (!eq || eq == v)
				return errorf("--arg needs NAME=VALUE, got '%s'", v);
			a->name = malloc((size_t)(eq - v) + 1);
			if (!a->name)
				return errorf("out of memory");
			memcpy(a->name, v, (size_t)(eq - v));
			a->name[eq - v] = '\0';
			o->nargs++;
			if (!has_param(kernels, nkernel, a->name))
				return errorf("--arg %s: no kernel has a parameter named '%s'",
				              a->name, a->name);
			if (kdsl_fill_parse(eq + 1, &a->fill))
				return errorf("--arg %s: bad value '%s' (expected iota, zeros, ones, "
				              "random[:seed], FILE.npy or a number)", a->name, eq + 1);
		} else {
			usage(stderr, prog);
			return errorf("unknown option '%s'", argv[i]);
		}
	}
	return -1;   /* go on and run */
}

static void free_options(options *o)
{
	int i;

	for (i = 0; i < o->nargs; i++)
		free(o->args[i].name);
	free(o->args);
}

/* The last --arg for a parameter wins. */
static const kdsl_fill *arg_for(const options *o, const char *name)
{
	int i;

	for (i = o->nargs - 1; i >= 0; i--)
		if (!strcmp(o->args[i].name, name))
			return &o->args[i].fill;
	return NULL;
}

static int count_elems(const kdsl_param_info *p, size_t *count)
{
	size_t c = 1, size = kdsl_dtype_size(p->dtype);
	int i;

	if (size == 0 || p->rank < 0 || (p->rank > 0 && !p->dims))
		return -1;
	for (i = 0; i < p->rank; i++) {
		if (p->dims[i] < 0 || (p->dims[i] && c > SIZE_MAX / size / (size_t)p->dims[i]))
			return -1;
		c *= (size_t)p->dims[i];
	}
	*count = c;
	return 0;
}

static void print_type(const kdsl_param_info *p)
{
	int i;

	printf("%s: %s", p->name, kdsl_dtype_name(p->dtype));
	if (!p->is_tensor)
		return;
	putchar('[');
	for (i = 0; i < p->rank; i++)
		printf(i ? ", %lld" : "%lld", (long long)p->dims[i]);
	putchar(']');
}

static int print_param(const kdsl_param_info *p, const void *buf, int64_t scalar)
{
	char *text;

	print_type(p);
	if (!p->is_tensor) {
		if (p->dtype == KDSL_U64)
			printf(" = %llu\n", (unsigned long long)scalar);
		else
			printf(" = %lld\n", (long long)scalar);
		return 0;
	}
	text = kdsl_format_array(p->dtype, p->rank, p->dims, buf);
	if (!text)
		return errorf("out of memory formatting '%s'", p->name);
	printf(" =\n%s\n", text);
	free(text);
	return 0;
}

/* Wraps a scalar to its dtype, as the kernel's C parameter will see it. */
static int64_t wrap_scalar(kdsl_dtype dt, int64_t v)
{
	switch (dt) {
	case KDSL_I8: return (int8_t)(uint8_t)v;
	case KDSL_I16: return (int16_t)(uint16_t)v;
	case KDSL_I32: return (int32_t)(uint32_t)v;
	case KDSL_U8: return (uint8_t)v;
	case KDSL_U16: return (uint16_t)v;
	case KDSL_U32: return (uint32_t)v;
	case KDSL_BOOL: return v != 0;
	default: return v;
	}
}

/* The values of a scalar dtype, as an int64 range.  A u64 takes every
 * int64: a negative one is the bit pattern of a value above INT64_MAX
 * (which --arg also takes written out, as is_big). */
static void scalar_range(kdsl_dtype dt, int64_t *lo, int64_t *hi)
{
	switch (dt) {
	case KDSL_I8: *lo = INT8_MIN, *hi = INT8_MAX; return;
	case KDSL_I16: *lo = INT16_MIN, *hi = INT16_MAX; return;
	case KDSL_I32: *lo = INT32_MIN, *hi = INT32_MAX; return;
	case KDSL_U8: *lo = 0, *hi = UINT8_MAX; return;
	case KDSL_U16: *lo = 0, *hi = UINT16_MAX; return;
	case KDSL_U32: *lo = 0, *hi = UINT32_MAX; return;
	case KDSL_BOOL: *lo = 0, *hi = 1; return;
	default: *lo = INT64_MIN, *hi = INT64_MAX; return;
	}
}

static int fill_param(const kdsl_kernel_info *k, const kdsl_param_info *p, const options *o,
                      void *buf, size_t count, int64_t *scalar)
{
	const kdsl_fill *f = arg_for(o, p->name);
	kdsl_fill def;
	char err[512];

	if (!p->is_tensor) {
		*scalar = 0;
		if (f && kdsl_fill_scalar(f, scalar))
			return errorf("--arg %s: scalar parameter of kernel '%s' takes zeros, ones, "
			              "random[:seed] or an integer", p->name, k->name);
		if (f && f->kind == KDSL_FILL_NUMBER) {
			int64_t lo, hi;

			/* a number the parameter cannot hold is a mistake, not a wrap */
			scalar_range(p->dtype, &lo, &hi);
			if (f->is_big && p->dtype != KDSL_U64)
				return errorf("--arg %s: %llu is out of range for %s parameter '%s' "
				              "(%lld..%lld)", p->name, (unsigned long long)*scalar,
				              kdsl_dtype_name(p->dtype), p->name, (long long)lo,
				              (long long)hi);
			if (!f->is_big && (*scalar < lo || *scalar > hi))
				return errorf("--arg %s: %lld is out of range for %s parameter '%s' "
				              "(%lld..%lld)", p->name, (long long)*scalar,
				              kdsl_dtype_name(p->dtype), p->name, (long long)lo,
				              (long long)hi);
		}
		*scalar = wrap_scalar(p->dtype, *scalar);
		return 0;
	}
	if (!f) {
		memset(&def, 0, sizeof def);
		def.kind = p->is_written ? KDSL_FILL_ZEROS : KDSL_FILL_IOTA;
		f = &def;
	}
	if (f->kind == KDSL_FILL_FILE) {
		if (kdsl_npy_read(f->path, p->dtype, p->rank, p->dims, buf, err, sizeof err))
			return errorf("--arg %s: %s", p->name, err);
		return 0;
	}
	kdsl_fill_tensor(f, p->dtype, count, buf);
	return 0;
}

static int write_outputs(const kdsl_kernel_info *k, int nkernel, const options *o,
                         void *const *tensors)
{
	int i;

	if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
		return errorf("cannot create %s: %s", o->out_dir, strerror(errno));
	for (i = 0; i < k->nparam; i++) {
		const kdsl_param_info *p = &k->params[i];
		size_t n = strlen(o->out_dir) + strlen(k->name) + strlen(p->name) + 8;
		char *path;
		int rc;

		if (!p->is_tensor)
			continue;
		path = malloc(n);
		if (!path)
			return errorf("out of memory");
		if (nkernel == 1)
			snprintf(path, n, "%s/%s.npy", o->out_dir, p->name);
		else
			snprintf(path, n, "%s/%s.%s.npy", o->out_dir, k->name, p->name);
		rc = kdsl_npy_write(path, p->dtype, p->rank, p->dims, tensors[i]);
		if (rc)
			errorf("cannot write %s: %s", path, strerror(errno));
		free(path);
		if (rc)
			return 2;
	}
	return 0;
}

/* A kernel's tensor: 64-byte aligned, as an application's buffers usually
 * are, so `--repeat` times do not depend on where malloc put them (16
 * bytes off a cache line, a kernel's 32-byte bursts straddle lines). */
static void *tensor_alloc(size_t bytes)
{
	return aligned_alloc(64, (bytes + 64) / 64 * 64);
}

static int run_kernel(const kdsl_kernel_info *k, int nkernel, const options *o, int first)
{
	void **tensors = calloc((size_t)k->nparam + 1, sizeof *tensors);
	void **initial = calloc((size_t)k->nparam + 1, sizeof *initial);
	size_t *bytes = calloc((size_t)k->nparam + 1, sizeof *bytes);
	int64_t *scalars = calloc((size_t)k->nparam + 1, sizeof *scalars);
	kdsl_rt *rt = NULL;
	int i, rc = 0, shown;

	if (!tensors || !scalars || !initial || !bytes) {
		rc = errorf("out of memory");
		goto out;
	}
	for (i = 0; i < k->nparam && !rc; i++) {
		const kdsl_param_info *p = &k->params[i];
		size_t count = 0;

		if (p->is_tensor) {
			if (count_elems(p, &count)) {
				rc = errorf("parameter '%s' of kernel '%s' has a bad shape", p->name, k->name);
				break;
			}
			bytes[i] = count * kdsl_dtype_size(p->dtype);
			tensors[i] = tensor_alloc(bytes[i]);
			if (!tensors[i]) {
				rc = errorf("out of memory for parameter '%s'", p->name);
				break;
			}
		}
		rc = fill_param(k, p, o, tensors[i], count, &scalars[i]);
	}
	if (rc)
		goto out;
	for (i = 0; i < k->nparam && o->repeat; i++)
		if (tensors[i]) {
			initial[i] = tensor_alloc(bytes[i]);
			if (!initial[i]) {
				rc = errorf("out of memory");
				goto out;
			}
			memcpy(initial[i], tensors[i], bytes[i]);
		}
	rt = kdsl_rt_create(k->target);
	if (!rt) {
		rc = errorf("cannot create a runtime for target %s", kdsl_target_name(k->target));
		goto out;
	}
	if (o->check_uninit && kdsl_rt_set_check(rt, kdsl_rt_check(rt) | KDSL_CHECK_UNINIT) != KDSL_OK) {
		rc = errorf("--check-uninit: %s", kdsl_rt_last_error(rt));
		goto out;
	}
	if (!o->quiet) {
		if (!first)
			putchar('\n');
		printf("kernel %s (%s)\n", k->name, kdsl_target_name(k->target));
		printf("inputs:");
		for (i = 0, shown = 0; i < k->nparam; i++)
			shown += !k->params[i].is_tensor || !k->params[i].is_written;
		printf(shown ? "\n" : " none\n");
		for (i = 0; i < k->nparam && !rc; i++)
			if (!k->params[i].is_tensor || !k->params[i].is_written)
				rc = print_param(&k->params[i], tensors[i], scalars[i]);
		if (rc)
			goto out;
	}
	rc = k->call(rt, tensors, scalars);
	if (rc) {
		const char *msg = kdsl_rt_last_error(rt);
		size_t locus = kdsl_rt_last_error_locus(rt);

		fflush(stdout);
		/* GCC's form, as compile errors: editors and CI problem
		 * matchers find the .k line in either */
		if (locus)
			fprintf(stderr, "%.*s: error: %s\n", (int)locus, msg, msg + locus + 2);
		else if (*msg)
			fprintf(stderr, "error: %s\n", msg);
		else
			fprintf(stderr, "error: kernel '%s' failed with code %d\n", k->name, rc);
		rc = 1;
		goto out;
	}
	if (!o->quiet) {
		printf("outputs:");
		for (i = 0, shown = 0; i < k->nparam; i++)
			shown += k->params[i].is_tensor && k->params[i].is_written;
		printf(shown ? "\n" : " none\n");
		for (i = 0; i < k->nparam && !rc; i++)
			if (k->params[i].is_tensor && k->params[i].is_written)
				rc = print_param(&k->params[i], tensors[i], 0);
		if (rc)
			goto out;
	}
	if (o->out_dir)
		rc = write_outputs(k, nkernel, o, tensors);
	if (!rc && o->repeat) {
		/* the results above are the first run's; these runs only time */
		void **timed = calloc((size_t)k->nparam + 1, sizeof *timed);
		for (i = 0; timed && i < k->nparam; i++)
			if (tensors[i] && !(timed[i] = tensor_alloc(bytes[i])))
				break;
		if (!timed || i < k->nparam)
			rc = errorf("out of memory");
		else if (kdsl_harness_repeat(k, rt, timed, initial, bytes, scalars, o->repeat))
			rc = errorf("kernel '%s' failed while repeated", k->name);
		for (i = 0; timed && i < k->nparam; i++)
			free(timed[i]);
		free(timed);
	}
out:
	kdsl_rt_destroy(rt);
	for (i = 0; tensors && i < k->nparam; i++)
		free(tensors[i]);
	for (i = 0; initial && i < k->nparam; i++)
		free(initial[i]);
	free(tensors);
	free(initial);
	free(bytes);
	free(scalars);
	return rc;
}

/* The kernel table's one-time check (kdsl_harness.h): every field the
 * harness dereferences or sizes a loop by; 2 with a message when bad. */
static int check_params(const kdsl_kernel_info *k, int i)
{
	int p;

	if (!k->name)
		return errorf("kernel table: kernel %d has no name", i);
	if (!k->call)
		return errorf("kernel table: kernel '%s' has no function", k->name);
	if (k->nparam < 0 || (k->nparam > 0 && !k->params))
		return errorf("kernel table: kernel '%s' has %d parameters%s", k->name, k->nparam,
		              k->nparam < 0 ? "" : " but no parameter table");
	for (p = 0; p < k->nparam; p++) {
		const kdsl_param_info *q = &k->params[p];
		if (!q->name)
			return errorf("kernel table: parameter %d of kernel '%s' has no name", p, k->name);
		if (q->is_tensor && (q->rank < 0 || q->rank > KDSL_HARNESS_MAX_RANK || (q->rank > 0 && !q->dims)))
			return errorf("kernel table: tensor '%s' of kernel '%s' has rank %d%s", q->name, k->name,
			              q->rank, q->rank > 0 && q->rank <= KDSL_HARNESS_MAX_RANK ? " but no extents" : "");
	}
	return 0;
}

static int check_call(int argc, char **argv, const kdsl_kernel_info *kernels, int nkernel)
{
	int i;

	if (argc < 0)
		return errorf("kdsl_harness_main: argc is %d", argc);
	if (argc > 0 && !argv)
		return errorf("kdsl_harness_main: argv is NULL (argc %d)", argc);
	for (i = 0; i < argc; i++)
		if (!argv[i])
			return errorf("kdsl_harness_main: argv[%d] is NULL (argc %d)", i, argc);
	if (nkernel < 0 || (nkernel > 0 && !kernels))
		return errorf("kdsl_harness_main: %d kernels%s", nkernel, kernels ? "" : " in a NULL table");
	for (i = 0; i < nkernel; i++)
		if (check_params(&kernels[i], i))
			return 2;
	return 0;
}

int kdsl_harness_main(int argc, char **argv, const kdsl_kernel_info *kernels, int nkernel)
{
	options o;
	int i, rc = 0, ran = 0;

	if (check_call(argc, argv, kernels, nkernel))
		return 2;
	memset(&o, 0, sizeof o);
	o.args = calloc((size_t)(argc > 0 ? argc : 1), sizeof *o.args);
	if (!o.args)
		return errorf("out of memory");
	i = parse_options(argc, argv, kernels, nkernel, &o);
	if (i >= 0) {
		free_options(&o);
		return i;
	}
	if (o.only) {
		for (i = 0; i < nkernel; i++)
			if (!strcmp(kernels[i].name, o.only))
				break;
		if (i == nkernel) {
			free_options(&o);
			return errorf("no kernel named '%s'", o.only);
		}
	}
	for (i = 0; i < nkernel && !rc; i++) {
		if (o.only && strcmp(kernels[i].name, o.only) != 0)
			continue;
		rc = run_kernel(&kernels[i], nkernel, &o, ran == 0);
		ran++;
	}
	fflush(stdout);
	free_options(&o);
	return rc;
}
