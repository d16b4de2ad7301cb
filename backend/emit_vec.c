/* emit_vec.c: aipu vectors as C.  A vector is a struct holding an array
 * of its lanes (a mask: one unsigned char per lane), so values copy by
 * assignment through block parameters, and every op is a few loops with
 * constant bounds and constant index arithmetic that the C compiler
 * unrolls or vectorises; there are no calls into the runtime per element.
 * Integer lanes compute in uint32_t, so wrapping is defined behaviour.
 *
 * The constant permutations (vconcat, vzip, vsplit, vrevs, vsldl, and
 * vshfl/vreplic by a constant) also get a GNU vector-extension form,
 * __builtin_shufflevector on vector_size types, chosen by the preprocessor
 * (kd_vshuf: clang, and gcc from 12, which has that builtin); other
 * compilers, builds defining KDSL_PORTABLE_VECTORS, and vectors whose size
 * is not a power of two (x24) take the portable loops. */
#include "emit_vec.h"

enum { MAXLANES = 128 };

static const char *elem(KdDtype dt)
{
	return kd_dtypes[dt].ctype;
}

void kd_emit_vec_ctype(KdBuf *o, const KdVal *x)
{
	if (x->type == VT_MASK)
		kd_buf_printf(o, "kd_mask%d", x->lanes);
	else
		kd_buf_printf(o, "kd_%sx%d", kd_dtypes[x->dt].name, x->lanes);
}

static int pow2(int bytes)
{
	return bytes > 0 && !(bytes & (bytes - 1));
}

/* The GNU vector type of a value, if its size allows one. */
static int gv_ok(const KdVal *x)
{
	return pow2(x->lanes * (x->type == VT_MASK ? 1 : kd_dtypes[x->dt].size));
}

static void gv_type(KdBuf *o, const KdVal *x)
{
	if (x->type == VT_MASK)
		kd_buf_printf(o, "kd_gv_mask%d", x->lanes);
	else
		kd_buf_printf(o, "kd_gv_%sx%d", kd_dtypes[x->dt].name, x->lanes);
}

void kd_emit_vec_types(KdBuf *o, const KdModule *m)
{
	static const int none = 0;
	unsigned char vec[KD_NDTYPE][MAXLANES + 1] = {{none}}, mask[MAXLANES + 1] = {0};
	int any = 0;
	for (int i = 0; i < m->nfn; i++)
		for (int v = 0; v < m->fn[i]->nval; v++) {
			const KdVal *x = &m->fn[i]->val[v];
			if (x->lanes < 1 || x->lanes > MAXLANES)
				continue;
			if (x->type == VT_VEC)
				any = vec[x->dt][x->lanes] = 1;
			else if (x->type == VT_MASK)
				any = mask[x->lanes] = 1;
		}
	if (!any)
		return;
	kd_buf_puts(o, "\n/* aipu vectors: one array of lanes each (masks: 0 or 1 per lane). */\n");
	for (int dt = 1; dt < KD_NDTYPE; dt++)
		for (int l = 1; l <= MAXLANES; l++)
			if (vec[dt][l])
				kd_buf_printf(o, "typedef struct { %s v[%d]; } kd_%sx%d;\n", elem((KdDtype)dt), l,
				              kd_dtypes[dt].name, l);
	for (int l = 1; l <= MAXLANES; l++)
		if (mask[l])
			kd_buf_printf(o, "typedef struct { unsigned char v[%d]; } kd_mask%d;\n", l, l);
	kd_buf_puts(o, "#if !defined(KDSL_PORTABLE_VECTORS) && "
	               "(defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))\n"
	               "/* constant permutations as __builtin_shufflevector on GNU vectors */\n"
	               "#define kd_vshuf 1\n");
	for (int dt = 1; dt < KD_NDTYPE; dt++)
		for (int l = 1; l <= MAXLANES; l++)
			if (vec[dt][l] && pow2(l * kd_dtypes[dt].size))
				kd_buf_printf(o, "typedef %s kd_gv_%sx%d __attribute__((vector_size(%d)));\n",
				              elem((KdDtype)dt), kd_dtypes[dt].name, l, l * kd_dtypes[dt].size);
	for (int l = 1; l <= MAXLANES; l++)
		if (mask[l] && pow2(l))
			kd_buf_printf(o, "typedef unsigned char kd_gv_mask%d __attribute__((vector_size(%d)));\n",
			              l, l);
	kd_buf_puts(o, "#else\n#define kd_vshuf 0\n#endif\n");
}

int kd_emit_vec_handles(const KdFunc *f, const KdIns *in)
{
	if (in->op == OP_VSTORE)
		return 1;
	return in->res >= 0 && (f->val[in->res].type == VT_VEC || f->val[in->res].type == VT_MASK);
}

/* vload/vstore check at run time unless the rule checker could prove
 * them: a constant offset with no mask or a constant one. */
static int mem_checked(const KdFunc *f, const KdIns *in)
{
	int store = in->op == OP_VSTORE;
	int off = kd_defins(f, in->args[0])->args[0];
	int m = in->nargs > (store ? 2 : 1) ? in->args[store ? 2 : 1] : -1;
	const KdIns *mi = m < 0 ? NULL : kd_defins(f, m);   /* NULL: a block parameter */
	int mlit = m < 0 || (mi && mi->op == OP_VMASKLIT);
	return !(f->val[off].kind == VK_CONST && mlit);
}

int kd_emit_vec_needs_site(const KdFunc *f, const KdIns *in)
{
	if (in->op == OP_VLOAD || in->op == OP_VSTORE)
		return mem_checked(f, in);
	return in->op == OP_VREPLIC && f->val[in->args[1]].kind != VK_CONST;
}

/* ---- printing helpers ---- */

static void put(KdVecOut *v, const char *s)
{
	kd_buf_puts(v->o, s);
}

static void val(KdVecOut *v, int x)
{
	v->val(v->ctx, x);
}

static int lanes(KdVecOut *v, int x)
{
	return v->f->val[x].lanes;
}

static const KdIns *defins(KdVecOut *v, int x)
{
	return kd_defins(v->f, x);
}

static int is_const(KdVecOut *v, int x)
{
	return v->f->val[x].kind == VK_CONST;
}

static int64_t cval(KdVecOut *v, int x)
{
	return v->f->val[x].c;
}

/* "\tfor (int kd_i = 0; kd_i < n; kd_i++)\n\t\tRES.v[" ... the caller writes the rest. */
static void loop(KdVecOut *v, int n)
{
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t", n);
}

static void lane(KdVecOut *v, int x, const char *index)
{
	val(v, x);
	kd_buf_printf(v->o, ".v[%s]", index);
}

/* Scalar x converted to a lane of dtype dt (masks: KD_BOOL). */
static void convert(KdVecOut *v, int x, KdDtype dt, int is_mask)
{
	const KdVal *s = &v->f->val[x];
	if (is_mask) {
		put(v, "(");
		val(v, x);
		put(v, " != 0)");
	} else if (dt == KD_F16) {
		put(v, "kdsl_f64_to_f16((double)(");
		val(v, x);
		put(v, "))");
	} else if (kd_dtypes[dt].is_float) {
		kd_buf_printf(v->o, "(%s)(", elem(dt));
		val(v, x);
		put(v, ")");
	} else if (s->type == VT_FLOAT) {
		/* sema gives integer vectors integer scalars only */
		kd_buf_printf(v->o, "(%s)0", elem(dt));
	} else {
		kd_buf_printf(v->o, "(%s)(uint32_t)(uint64_t)(", elem(dt));
		val(v, x);
		put(v, ")");
	}
}

/* Fills every lane of r with scalar x (active lanes only with mask m >= 0). */
static void splat(KdVecOut *v, int r, int x, int m)
{
	const KdVal *rv = &v->f->val[r];
	put(v, "\t{\n\t\t");
	if (rv->type == VT_MASK)
		put(v, "unsigned char");
	else
		put(v, elem(rv->dt));
	put(v, " kd_s = ");
	convert(v, x, rv->dt, rv->type == VT_MASK);
	kd_buf_printf(v->o, ";\n\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t", rv->lanes);
	lane(v, r, "kd_i");
	if (m >= 0) {
		put(v, " = ");
		lane(v, m, "kd_i");
		put(v, " ? kd_s : 0;\n\t}\n");
	} else {
		put(v, " = kd_s;\n\t}\n");
	}
}

/* r.v[dst] = x.v[src] over n lanes, with index expressions in kd_i. */
static void copy(KdVecOut *v, int r, const char *dst, int x, const char *src, int n)
{
	if (n <= 0)
		return;
	loop(v, n);
	lane(v, r, dst);
	put(v, " = ");
	lane(v, x, src);
	put(v, ";\n");
}

/* Opens the vector-extension form of a constant permutation: result lane i
 * is lane idx[i] of a's lanes followed by b's.  Returns 1 when it wrote
 * "#if kd_vshuf ... #else"; the caller then writes the loops and closes
 * with shuffle_end. */
static int shuffle_begin(KdVecOut *v, int r, int a, int b, const int *idx)
{
	const KdVal *rv = &v->f->val[r], *av = &v->f->val[a];
	if (!gv_ok(rv) || !gv_ok(av))
		return 0;
	put(v, "#if kd_vshuf\n\t{\n\t\t");
	gv_type(v->o, av);
	put(v, " kd_a, kd_b;\n\t\t");
	gv_type(v->o, rv);
	put(v, " kd_r;\n\t\t__builtin_memcpy(&kd_a, &");
	val(v, a);
	put(v, ", sizeof kd_a);\n\t\t__builtin_memcpy(&kd_b, &");
	val(v, b);
	put(v, ", sizeof kd_b);\n\t\tkd_r = __builtin_shufflevector(kd_a, kd_b");
	for (int i = 0; i < rv->lanes; i++)
		kd_buf_printf(v->o, ", %d", idx[i]);
	put(v, ");\n\t\t__builtin_memcpy(&");
	val(v, r);
	put(v, ", &kd_r, sizeof kd_r);\n\t}\n#else\n");
	return 1;
}

static void shuffle_end(KdVecOut *v, int opened)
{
	if (opened)
		put(v, "#endif\n");
}

static int all_true_lit(KdVecOut *v, int m)
{
	const KdIns *mi = defins(v, m);
	if (!mi || mi->op != OP_VMASKLIT)
		return 0;
	for (int i = 0; i < mi->nargs; i++)
		if (!cval(v, mi->args[i]))
			return 0;
	return 1;
}

/* One lane of a vload (vec lane = tensor element) or a vstore (the other
 * way round), at lane kd_i from element `off` of tensor b. */
static void lane_move(KdVecOut *v, int store, const KdBuffer *b, int off, int vec)
{
	if (store) {
		kd_buf_printf(v->o, "%s[", b->name);
		val(v, off);
		put(v, " + kd_i] = ");
		lane(v, vec, "kd_i");
	} else {
		lane(v, vec, "kd_i");
		kd_buf_printf(v->o, " = %s[", b->name);
		val(v, off);
		put(v, " + kd_i]");
	}
}

/* vload / vstore: the tensor, the element offset and its run-time check. */
static void mem(KdVecOut *v, const KdIns *in, int store)
{
	const KdFunc *f = v->f;
	const KdIns *vi = defins(v, in->args[0]);
	const KdBuffer *b = &f->buf[f->val[in->args[0]].buf];
	int off = vi->args[0];
	int vec = store ? in->args[1] : in->res;
	int n = lanes(v, vec);
	int m = in->nargs > (store ? 2 : 1) ? in->args[store ? 2 : 1] : -1;
	if (m >= 0 && all_true_lit(v, m))
		m = -1;
	/* Constant offsets with constant masks were proved in bounds by the rule checker. */
	int check = mem_checked(f, in);
	if (m < 0) {
		if (check) {
			put(v, "\tif (");
			val(v, off);
			put(v, " < 0 || ");
			val(v, off);
			kd_buf_printf(v->o, " > %lld)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_BOUNDS, "
			              "\"%d lanes from element %%lld are outside '%s' (%lld elements)\", "
			              "(long long)", (long long)(b->dims[0] - n), v->site, n, b->name,
			              (long long)b->dims[0]);
			val(v, off);
			put(v, ");\n");
		}
		loop(v, n);
		lane_move(v, store, b, off, vec);
		put(v, ";\n");
		return;
	}
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n\t\tif (!", n);
	lane(v, m, "kd_i");
	put(v, ") {\n");
	if (!store) {
		put(v, "\t\t\t");
		lane(v, vec, "kd_i");
		put(v, " = 0;\n");
	}
	put(v, "\t\t\tcontinue;\n\t\t}\n");
	if (check) {
		put(v, "\t\tif (");
		val(v, off);
		put(v, " < 0 || ");
		val(v, off);
		kd_buf_printf(v->o, " >= %lld - kd_i)\n\t\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], "
		              "KDSL_ERR_BOUNDS, \"lane %%d of the vector at element %%lld is outside "
		              "'%s' (%lld elements)\", kd_i, (long long)", (long long)b->dims[0], v->site,
		              b->name, (long long)b->dims[0]);
		val(v, off);
		put(v, ");\n");
	}
	put(v, "\t\t");
	lane_move(v, store, b, off, vec);
	put(v, ";\n\t}\n");
}

/* vconcat / vzip: parts 0 all, 1 low, 2 high, 3 even, 4 odd. */
static void concat_zip(KdVecOut *v, const KdIns *in, int zip)
{
	int r = in->res, x = in->args[0], y = in->args[1], p = (int)cval(v, in->args[2]);
	int n = lanes(v, x), h = n / 2, cnt = p == 0 ? n : h;
	char src[32];
	switch (p) {
	case 0: case 1: snprintf(src, sizeof src, "kd_i"); break;
	case 2: snprintf(src, sizeof src, "%d + kd_i", h); break;
	case 3: snprintf(src, sizeof src, "2 * kd_i"); break;
	default: snprintf(src, sizeof src, "2 * kd_i + 1"); break;
	}
	int idx[MAXLANES] = {0};
	for (int i = 0; i < cnt; i++) {
		int s = p <= 1 ? i : p == 2 ? h + i : p == 3 ? 2 * i : 2 * i + 1;
		if (zip) {
			idx[2 * i] = s;
			idx[2 * i + 1] = n + s;
		} else {
			idx[i] = s;
			idx[cnt + i] = n + s;
		}
	}
	int opened = shuffle_begin(v, r, x, y, idx);
	if (zip) {
		copy(v, r, "2 * kd_i", x, src, cnt);
		copy(v, r, "2 * kd_i + 1", y, src, cnt);
	} else {
		char dst[32];
		snprintf(dst, sizeof dst, "%d + kd_i", cnt);
		copy(v, r, "kd_i", x, src, cnt);
		copy(v, r, dst, y, src, cnt);
	}
	shuffle_end(v, opened);
}

/* A one-operand constant permutation: lane i of r is lane idx[i] of x. */
static void permute(KdVecOut *v, int r, int x, const int *idx, const char *src)
{
	int opened = shuffle_begin(v, r, x, x, idx);
	copy(v, r, "kd_i", x, src, lanes(v, r));
	shuffle_end(v, opened);
}

static void compress(KdVecOut *v, const KdIns *in, int fill)
{
	int r = in->res, x = in->args[0], n = lanes(v, x);
	int m = in->args[fill ? 2 : 1];
	kd_buf_printf(v->o, "\t{\n\t\tint kd_n = 0;\n\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\tif (", n);
	lane(v, m, "kd_i");
	put(v, ")\n\t\t\t\t");
	lane(v, r, "kd_n++");
	put(v, " = ");
	lane(v, x, "kd_i");
	if (fill)
		kd_buf_printf(v->o, ";\n\t\tfor (int kd_j = 0; kd_n < %d; kd_n++, kd_j++)\n\t\t\t", n);
	else
		kd_buf_printf(v->o, ";\n\t\tfor (; kd_n < %d; kd_n++)\n\t\t\t", n);
	lane(v, r, "kd_n");
	if (fill) {
		put(v, " = ");
		lane(v, in->args[1], "kd_j");
	} else {
		put(v, " = 0");
	}
	put(v, ";\n\t}\n");
}

static void elementwise(KdVecOut *v, const KdIns *in)
{
	int r = in->res, a = in->args[0], b = in->args[1];
	KdDtype dt = v->f->val[a].dt;
	const char *ops[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_EQ] = "==",
	                     [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">",
	                     [OP_GE] = ">="};
	loop(v, lanes(v, r));
	lane(v, r, "kd_i");
	put(v, " = ");
	if (in->op == OP_VMIN || in->op == OP_VMAX) {
		lane(v, a, "kd_i");
		put(v, in->op == OP_VMIN ? " < " : " > ");
		lane(v, b, "kd_i");
		put(v, " ? ");
		lane(v, a, "kd_i");
		put(v, " : ");
		lane(v, b, "kd_i");
	} else if (in->op <= OP_MUL && !kd_dtypes[dt].is_float) {
		kd_buf_printf(v->o, "(%s)((uint32_t)", elem(dt));
		lane(v, a, "kd_i");
		kd_buf_printf(v->o, " %s (uint32_t)", ops[in->op]);
		lane(v, b, "kd_i");
		put(v, ")");
	} else {
		lane(v, a, "kd_i");
		kd_buf_printf(v->o, " %s ", ops[in->op]);
		lane(v, b, "kd_i");
	}
	put(v, ";\n");
}

static void table(KdVecOut *v, const KdIns *in)
{
	int r = in->res, idx = in->args[0], n = lanes(v, r);
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n\t\tuint64_t kd_k = (uint64_t)(int64_t)", n);
	lane(v, idx, "kd_i");
	put(v, ";\n\t\t");
	lane(v, r, "kd_i");
	put(v, " = ");
	for (int t = 1; t < in->nargs; t++) {
		char at[48];
		snprintf(at, sizeof at, "kd_k - %d", (t - 1) * n);
		kd_buf_printf(v->o, "kd_k < %d ? ", t * n);
		lane(v, in->args[t], t == 1 ? "kd_k" : at);
		put(v, " : ");
	}
	put(v, "0;\n\t}\n");
}

void kd_emit_vec_ins(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->nargs ? in->args[0] : -1;
	char buf[64];
	int idx[MAXLANES] = {0}, n = r >= 0 ? lanes(v, r) : 0;
	switch (in->op) {
	case OP_VLOAD: mem(v, in, 0); break;
	case OP_VSTORE: mem(v, in, 1); break;
	case OP_VCONCAT: concat_zip(v, in, 0); break;
	case OP_VZIP: concat_zip(v, in, 1); break;
	case OP_VSPLIT:
		snprintf(buf, sizeof buf, "%lld + kd_i", (long long)cval(v, in->args[1]) * n);
		for (int i = 0; i < n; i++)
			idx[i] = (int)cval(v, in->args[1]) * n + i;
		permute(v, r, x, idx, buf);
		break;
	case OP_VCOMPT: compress(v, in, 0); break;
	case OP_VCOMPC: compress(v, in, 1); break;
	case OP_VREVS:
		snprintf(buf, sizeof buf, "%d - kd_i", n - 1);
		for (int i = 0; i < n; i++)
			idx[i] = n - 1 - i;
		permute(v, r, x, idx, buf);
		break;
	case OP_VSEL:
		loop(v, lanes(v, r));
		lane(v, r, "kd_i");
		put(v, " = ");
		lane(v, in->args[2], "kd_i");
		put(v, " ? ");
		lane(v, x, "kd_i");
		put(v, " : ");
		lane(v, in->args[1], "kd_i");
		put(v, ";\n");
		break;
	case OP_VSHFL: {
		if (is_const(v, in->args[1])) {
			int64_t s = ((cval(v, in->args[1]) % n) + n) % n;
			snprintf(buf, sizeof buf, "(kd_i + %lld) %% %d", (long long)s, n);
			for (int i = 0; i < n; i++)
				idx[i] = (int)((i + s) % n);
			permute(v, r, x, idx, buf);
			break;
		}
		put(v, "\t{\n\t\tint64_t kd_s = ");
		val(v, in->args[1]);
		kd_buf_printf(v->o, " %% %d;\n\t\tif (kd_s < 0)\n\t\t\tkd_s += %d;\n", n, n);
		kd_buf_printf(v->o, "\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t", n);
		lane(v, r, "kd_i");
		put(v, " = ");
		snprintf(buf, sizeof buf, "(kd_i + kd_s) %% %d", n);
		lane(v, x, buf);
		put(v, ";\n\t}\n");
		break;
	}
	case OP_VBCAST: splat(v, r, x, in->nargs > 1 ? in->args[1] : -1); break;
	case OP_VSPLAT: splat(v, r, x, -1); break;
	case OP_VSLDL: {
		int s = (int)cval(v, in->args[2]);
		char dst[32];
		for (int i = 0; i < n; i++)
			idx[i] = i + s;
		int opened = shuffle_begin(v, r, x, in->args[1], idx);
		snprintf(buf, sizeof buf, "kd_i + %d", s);
		copy(v, r, "kd_i", x, buf, n - s);
		snprintf(dst, sizeof dst, "%d + kd_i", n - s);
		copy(v, r, dst, in->args[1], "kd_i", s);
		shuffle_end(v, opened);
		break;
	}
	case OP_VTBL: table(v, in); break;
	case OP_VREPLIC: {
		if (is_const(v, in->args[1])) {
			snprintf(buf, sizeof buf, "%lld", (long long)cval(v, in->args[1]));
			for (int i = 0; i < n; i++)
				idx[i] = (int)cval(v, in->args[1]);
			permute(v, r, x, idx, buf);
			break;
		}
		put(v, "\tif (");
		val(v, in->args[1]);
		put(v, " < 0 || ");
		val(v, in->args[1]);
		kd_buf_printf(v->o, " > %d)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_RANGE, "
		              "\"index must be in 0..%d, got %%lld\", (long long)", n - 1, v->site, n - 1);
		val(v, in->args[1]);
		put(v, ");\n");
		loop(v, n);
		lane(v, r, "kd_i");
		put(v, " = ");
		val(v, x);
		put(v, ".v[");
		val(v, in->args[1]);
		put(v, "];\n");
		break;
	}
	case OP_TAIL_MASK:
		loop(v, lanes(v, r));
		lane(v, r, "kd_i");
		put(v, " = kd_i < ");
		val(v, x);
		put(v, ";\n");
		break;
	case OP_VMASKLIT:
		for (int i = 0; i < in->nargs; i++) {
			snprintf(buf, sizeof buf, "%d", i);
			put(v, "\t");
			lane(v, r, buf);
			kd_buf_printf(v->o, " = %d;\n", cval(v, in->args[i]) != 0);
		}
		break;
	default:
		elementwise(v, in);
		break;
	}
}
