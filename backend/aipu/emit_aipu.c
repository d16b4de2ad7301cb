/* emit_aipu.c: aipu vectors as C.  A vector whose size is a power of two
 * is a struct of GNU vectors of at most 16 bytes (its parts, p[]) under
 * clang and gcc 12 or later: gcc without -march keeps such a struct in SSE
 * registers as long as its address is never taken, where it kept a struct
 * of lanes on the stack.  Every other compiler, builds defining
 * KDSL_PORTABLE_VECTORS, and the other sizes (x3, x24) get a struct of an
 * array of lanes (v[]).  Values copy by assignment through block
 * parameters in either form.  The constant permutations (vconcat, vzip,
 * vsplit, vrevs, vsldl, vshfl/vreplic by a constant, vsel/vcompt/vcompc by
 * a literal mask) are __builtin_shufflevector on whole parts in the GNU
 * form and loops in the other (#if kd_vshuf); unmasked vload/vstore move
 * whole parts; the other ops are loops with constant bounds over kd_at(x,
 * n, i), lane i in either form, which the compiler unrolls.  There are no
 * calls into the runtime per element.  Integer lanes compute in uint32_t,
 * so wrapping is defined behaviour. */
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_aipu.h"
#include "types_aipu.h"

/* Lane arrays are this long: the IR verifier holds every vector and mask
 * to it (ir/aipu/verify_aipu.c). */
enum { MAXLANES = KD_AIPU_MAX_LANES };

/* The vector-extension form works 16 bytes at a time (see shuffle_begin). */
enum { PART_BYTES = 16 };

static const char *elem(KdDtype dt)
{
	return kd_dtypes[dt].ctype;
}

/* The vector-extension form works in parts of 16 bytes: gcc without AVX (no
 * -march) keeps a 32-byte GNU vector in memory and lowers a shuffle of it
 * lane by lane through the stack, where reloading lanes just stored as a
 * 16-byte vector stalls store forwarding.  Shuffles of 16-byte vectors are
 * SSE2 instructions in registers, and a struct of such parts is split by
 * gcc's scalar replacement into those same registers. */
/* Lanes in one part of vector x: 16 bytes' worth, or all of a smaller x. */
static int part_lanes(const KdVal *x)
{
	int size = x->type == VT_MASK ? 1 : kd_dtypes[x->dt].size;
	return x->lanes * size < PART_BYTES ? x->lanes : PART_BYTES / size;
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

/* Whether value x has the GNU vector form: its size a power of two. */
static int gv_ok(const KdVal *x)
{
	return pow2(x->lanes * (x->type == VT_MASK ? 1 : kd_dtypes[x->dt].size));
}

/* The GNU vector type of one part of a value of dtype dt (a mask: dt < 0)
 * and `lanes` lanes: at most 16 bytes (see part_lanes). */
static void part_type_of(KdBuf *o, int dt, int lanes)
{
	int size = dt < 0 ? 1 : kd_dtypes[dt].size;
	int p = lanes * size < PART_BYTES ? lanes : PART_BYTES / size;
	if (dt < 0)
		kd_buf_printf(o, "kd_gv_mask%d", p);
	else
		kd_buf_printf(o, "kd_gv_%sx%d", kd_dtypes[dt].name, p);
}

/* The typedef of vector (dt >= 0) or mask (dt < 0) type of `lanes` lanes:
 * its GNU vector parts when gv, else its array of lanes. */
static void struct_type(KdBuf *o, int dt, int lanes, int gv)
{
	int size = dt < 0 ? 1 : kd_dtypes[dt].size;
	kd_buf_puts(o, "typedef struct { ");
	if (gv) {
		part_type_of(o, dt, lanes);
		kd_buf_printf(o, " p[%d]; }", lanes * size < PART_BYTES ? 1 : lanes * size / PART_BYTES);
	} else {
		kd_buf_printf(o, "%s v[%d]; }", dt < 0 ? "unsigned char" : elem((KdDtype)dt), lanes);
	}
	if (dt < 0)
		kd_buf_printf(o, " kd_mask%d;\n", lanes);
	else
		kd_buf_printf(o, " kd_%sx%d;\n", kd_dtypes[dt].name, lanes);
}

/* The structs of the used types (vec[dt][lanes], mask[lanes]) of one
 * kind: which 1: the power-of-two sizes as GNU vector parts, 0: the same
 * as arrays of lanes, -1: the other sizes (always arrays). */
static void structs(KdBuf *o, unsigned char (*vec)[MAXLANES + 1], const unsigned char *mask, int which)
{
	for (int dt = 1; dt < KD_NDTYPE; dt++)
		for (int l = 1; l <= MAXLANES; l++)
			if (vec[dt][l] && pow2(l * kd_dtypes[dt].size) == (which >= 0))
				struct_type(o, dt, l, which > 0);
	for (int l = 1; l <= MAXLANES; l++)
		if (mask[l] && pow2(l) == (which >= 0))
			struct_type(o, -1, l, which > 0);
}

/* The GNU vector part types of the used power-of-two types: one per
 * dtype and part lane count. */
static void part_types(KdBuf *o, unsigned char (*vec)[MAXLANES + 1], const unsigned char *mask)
{
	for (int dt = 1; dt < KD_NDTYPE; dt++) {
		int size = kd_dtypes[dt].size, done[PART_BYTES + 1] = {0};
		for (int l = 1; l <= MAXLANES; l++) {
			int p = l * size < PART_BYTES ? l : PART_BYTES / size;
			if (vec[dt][l] && pow2(l * size) && !done[p]) {
				done[p] = 1;
				kd_buf_printf(o, "typedef %s kd_gv_%sx%d __attribute__((vector_size(%d)));\n",
				              elem((KdDtype)dt), kd_dtypes[dt].name, p, p * size);
			}
		}
	}
	for (int l = 1, done = 0; l <= MAXLANES; l++)
		if (mask[l] && pow2(l) && (l < PART_BYTES || !done)) {
			done |= l >= PART_BYTES;
			kd_buf_printf(o, "typedef unsigned char kd_gv_mask%d __attribute__((vector_size(%d)));\n",
			              l < PART_BYTES ? l : PART_BYTES, l < PART_BYTES ? l : PART_BYTES);
		}
}

/* Writes the struct of every vector and mask type the module uses.  A
 * type whose size is a power of two holds GNU vectors of at most 16 bytes
 * (the parts, p[]) under clang and gcc 12 or later, so its values live in
 * SSE registers and the constant permutations are shuffles of whole parts;
 * elsewhere, and for the other sizes (x3, x24), an array of lanes (v[]).
 * kd_at(x, n, i) is lane i of a power-of-two vector x of n lanes a part in
 * either form, so the loops of the ops read the same in both. */
void kd_emit_vec_types(KdBuf *o, const KdModule *m)
{
	static const int none = 0;
	unsigned char vec[KD_NDTYPE][MAXLANES + 1] = {{none}}, mask[MAXLANES + 1] = {0};
	int any = 0, anygv = 0;
	for (int i = 0; i < m->nfn; i++)
		for (int v = 0; v < m->fn[i]->nval; v++) {
			const KdVal *x = &m->fn[i]->val[v];
			if (x->lanes < 1 || x->lanes > MAXLANES)
				continue;
			if (x->type == VT_VEC)
				any = vec[x->dt][x->lanes] = 1;
			else if (x->type == VT_MASK)
				any = mask[x->lanes] = 1;
			if ((x->type == VT_VEC || x->type == VT_MASK) && gv_ok(x))
				anygv = 1;
		}
	if (!any)
		return;
	kd_buf_puts(o, "\n/* aipu vectors (masks: 0 or 1 per lane) */\n");
	if (anygv) {
		kd_buf_puts(o, "#if !defined(KDSL_PORTABLE_VECTORS) && "
		               "(defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))\n"
		               "/* GNU vectors of at most 16 bytes, the parts of a vector (kept in\n"
		               " * SSE registers); constant permutations as __builtin_shufflevector */\n"
		               "#define kd_vshuf 1\n"
		               "#define kd_at(x, n, i) ((x).p[(i) / (n)][(i) % (n)])\n");
		part_types(o, vec, mask);
		structs(o, vec, mask, 1);
		kd_buf_puts(o, "#else\n#define kd_vshuf 0\n#define kd_at(x, n, i) ((x).v[i])\n");
		structs(o, vec, mask, 0);
		kd_buf_puts(o, "#endif\n");
	}
	structs(o, vec, mask, -1);
}

int kd_emit_vec_handles(const KdFunc *f, const KdIns *in)
{
	if (in->op == OP_VSTORE || in->op == OP_VSTORE_SCATTER)
		return 1;
	return in->res >= 0 && (f->val[in->res].type == VT_VEC || f->val[in->res].type == VT_MASK);
}

/* vload and vstore: the view first, then (vstore) the vector, then the
 * mask if any; the mask operand, or -1. */
_Static_assert(KD_SAME_POS(VLOAD_IR_SRC, VSTORE_DST), "vload and vstore take the view first");
enum { MEM_VIEW = VSTORE_DST };

static int mem_mask(const KdIns *in)
{
	int k = in->op == OP_VSTORE ? (int)VSTORE_MASK : (int)VLOAD_IR_MASK;
	return in->nargs > k ? in->args[k] : -1;
}

/* The stride operand of a vload/vstore (after its mask), or -1: contiguous. */
static int mem_stride(const KdIns *in)
{
	int k = in->op == OP_VSTORE ? (int)VSTORE_STRIDE : (int)VLOAD_IR_STRIDE;
	return in->nargs > k ? in->args[k] : -1;
}

/* vload/vstore check at run time unless their lanes are in bounds here:
 * a constant offset with no mask or a constant one, whose active lanes
 * lie inside the tensor.  The emitter does not rely on the rule checker
 * having rejected the others: under a guard it cannot decide, an op with
 * a constant offset outside its tensor compiles and must fail at run
 * time (docs/language.md, rule checker). */
static int mem_checked(const KdFunc *f, const KdIns *in)
{
	const KdVal *off = &f->val[kd_defins(f, in->args[MEM_VIEW])->args[0]];
	int m = mem_mask(in), sv = mem_stride(in);
	const KdIns *mi = m < 0 ? NULL : kd_defins(f, m);   /* NULL: a block parameter */
	if (off->kind != VK_CONST || (m >= 0 && (!mi || mi->op != OP_VMASKLIT)))
		return 1;
	if (sv >= 0 && (f->val[sv].kind != VK_CONST || f->val[sv].c < 1))
		return 1;
	int64_t stride = sv >= 0 ? f->val[sv].c : 1, far;
	int last = f->val[in->op == OP_VSTORE ? in->args[VSTORE_V] : in->res].lanes - 1;
	if (mi)
		for (last = mi->nargs - 1; last >= 0 && !f->val[mi->args[last]].c; last--)
			;
	const KdBuffer *b = &f->buf[f->val[in->args[MEM_VIEW]].buf];
	if (last < 0)
		return 0;
	return off->c < 0 || __builtin_mul_overflow((int64_t)last, stride, &far) ||
	       __builtin_add_overflow(far, off->c, &far) || far > b->dims[0] - 1;
}

int kd_emit_vec_needs_site(const KdFunc *f, const KdIns *in)
{
	if (in->op == OP_VLOAD || in->op == OP_VSTORE)
		return mem_checked(f, in);
	if (in->op == OP_VLOAD_GATHER || in->op == OP_VSTORE_SCATTER)
		return 1;
	return in->op == OP_VREPLIC && f->val[in->args[VREPLIC_INDEX]].kind != VK_CONST;
}

/* ---- printing helpers ---- */

/* The C name of tensor b: a kernel parameter's, or the typed local of an
 * on-chip (lsram) buffer. */
static void tensor(KdVecOut *v, const KdBuffer *b)
{
	if (b->param >= 0)
		kd_c_name(v->o, b->name, 'p');
	else
		kd_emit_buf_local(v->o, v->f, (int)(b - v->f->buf));
}

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

/* "\tfor (int kd_i = 0; kd_i < n; kd_i++)\n\t\t": the caller writes the body. */
static void loop(KdVecOut *v, int n)
{
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t", n);
}

/* Lane `index` of vector x is written between lane_open and lane_close:
 * kd_at(x, n, index) when x's size allows GNU vector parts (n lanes a
 * part; kd_at picks the form, see kd_emit_vec_types), else x.v[index].
 * The index may be evaluated twice: no side effects in it. */
static void lane_open(KdVecOut *v, int x)
{
	if (gv_ok(&v->f->val[x])) {
		put(v, "kd_at(");
		val(v, x);
		kd_buf_printf(v->o, ", %d, ", part_lanes(&v->f->val[x]));
	} else {
		val(v, x);
		put(v, ".v[");
	}
}

static void lane_close(KdVecOut *v, int x)
{
	put(v, gv_ok(&v->f->val[x]) ? ")" : "]");
}

static void lane(KdVecOut *v, int x, const char *index)
{
	lane_open(v, x);
	put(v, index);
	lane_close(v, x);
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
		put(v, "kdsl_h_f64_to_f16((double)(");
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

/* Lane dst of r = lane src of x over n lanes, with index expressions in kd_i. */
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

/* The GNU vector type of one part of x (kd_emit_vec_types declares it). */
static void part_type(KdBuf *o, const KdVal *x)
{
	part_type_of(o, x->type == VT_MASK ? -1 : (int)x->dt, x->lanes);
}

/* A source part of a shuffle: part k of operand 0 (a) or 1 (b); 2: zeros;
 * 3: kd_w, the partial result of a chain; 4: kd_h, a half-way shuffle. */
typedef struct {
	int opnd, k;
} Part;

static void part_name(KdVecOut *v, Part p)
{
	if (p.opnd >= 2)
		put(v, p.opnd == 2 ? "kd_z" : p.opnd == 3 ? "kd_w" : "kd_h");
	else
		kd_buf_printf(v->o, "kd_%c%d", p.opnd ? 'b' : 'a', p.k);
}

static void shuffle_line(KdVecOut *v, const char *indent, const char *dst, Part x, Part y,
                         const int *lane, int n)
{
	kd_buf_printf(v->o, "%s%s = __builtin_shufflevector(", indent, dst);
	part_name(v, x);
	put(v, ", ");
	part_name(v, y);
	for (int i = 0; i < n; i++)
		kd_buf_printf(v->o, ", %d", lane[i]);
	put(v, ");\n");
}

/* Whether SSE2 has one instruction for a two-source shuffle of four
 * 32-bit lanes: one source (pshufd), two lanes of each in halves (shufps),
 * or an interleave (punpck). */
static int sse2_one(const int *sel)
{
	static const int unpck[4][4] = {{0, 4, 1, 5}, {2, 6, 3, 7}, {4, 0, 5, 1}, {6, 2, 7, 3}};
	int x[4];
	for (int j = 0; j < 4; j++)
		x[j] = sel[j] < 4;
	if (x[0] + x[1] + x[2] + x[3] == 0 || x[0] + x[1] + x[2] + x[3] == 4)
		return 1;
	if (x[0] == x[1] && x[2] == x[3])
		return 1;
	for (int u = 0; u < 4; u++)
		if (!memcmp(sel, unpck[u], sizeof unpck[u]))
			return 1;
	return 0;
}

/* dst = __builtin_shufflevector(x, y, sel...).  gcc 12 without SSSE3
 * lowers a shuffle of four 32-bit lanes that no SSE2 instruction does
 * lane by lane through the stack; every such shuffle is two shufps /
 * pshufd steps, so it is written as two (through kd_h), which gcc keeps. */
static void shuffle_call(KdVecOut *v, const KdVal *part, const char *dst, Part x, Part y,
                         const int *sel, int n)
{
	int size = part->type == VT_MASK ? 1 : kd_dtypes[part->dt].size;
	if (n != 4 || size != 4 || (x.opnd == y.opnd && x.k == y.k) || sse2_one(sel)) {
		shuffle_line(v, "\t\t", dst, x, y, sel, n);
		return;
	}
	int t[4], r[4], nx = 0;
	Part first = x, second = y;
	for (int j = 0; j < 4; j++)
		nx += sel[j] < 4;
	if (nx == 2) {
		/* kd_h = x's two lanes, then y's; then pshufd into place */
		int ix = 0, iy = 2;
		for (int j = 0; j < 4; j++) {
			int at = sel[j] < 4 ? ix++ : iy++;
			t[at] = sel[j];
			r[j] = at;
		}
		first = second = (Part){4, 0};
	} else {
		/* three lanes of m, one (at p) of the other, l: kd_h pairs l with
		 * the m lane beside it, then a shufps takes the other half from m */
		int lone = nx == 1, p = 0;
		for (int j = 0; j < 4; j++)
			if ((sel[j] < 4) == lone)
				p = j;
		Part l = lone ? x : y, m = lone ? y : x;
		int ll = sel[p] % 4, ml = sel[p ^ 1] % 4;
		/* kd_h = (l l m m): shufps overwrites its first operand, and l is
		 * not needed after it */
		t[0] = t[1] = ll;
		t[2] = t[3] = 4 + ml;
		x = l;
		y = m;
		if (p >= 2) {
			r[0] = sel[0] % 4;
			r[1] = sel[1] % 4;
			r[2] = p == 2 ? 4 : 6;
			r[3] = p == 3 ? 4 : 6;
			first = m;
			second = (Part){4, 0};
		} else {
			r[0] = p == 0 ? 0 : 2;
			r[1] = p == 1 ? 0 : 2;
			r[2] = 4 + sel[2] % 4;
			r[3] = 4 + sel[3] % 4;
			first = (Part){4, 0};
			second = m;
		}
	}
	put(v, "\t\t{\n\t\t\t");
	part_type(v->o, part);
	shuffle_line(v, " ", "kd_h", x, y, t, 4);
	shuffle_line(v, "\t\t\t", dst, first, second, r, 4);
	put(v, "\t\t}\n");
}

/* The lanes of mask m when it is a literal (bits[i] 0 or 1); 0 if not. */
static int lit_bits(const KdFunc *f, int m, int *bits)
{
	const KdIns *mi = kd_defins(f, m);
	if (!mi || mi->op != OP_VMASKLIT)
		return 0;
	for (int i = 0; i < mi->nargs; i++)
		bits[i] = f->val[mi->args[i]].c != 0;
	return 1;
}

/* vconcat / vzip: parts 0 all, 1 low, 2 high, 3 even, 4 odd. */
_Static_assert(KD_SAME_POS(VCONCAT_X, VZIP_X) && KD_SAME_POS(VCONCAT_Y, VZIP_Y) &&
               KD_SAME_POS(VCONCAT_PART, VZIP_PART), "vconcat and vzip share positions");
_Static_assert(KD_SAME_POS(VCOMPT_X, VCOMPC_X), "vcompt and vcompc take x first");

/* The lanes of vconcat (zip 0) or vzip (zip 1) of n-lane operands, part p. */
static void concat_zip_lanes(int zip, int p, int n, int *idx)
{
	int h = n / 2, cnt = p == 0 ? n : h;
	for (int i = 0; i < cnt; i++) {
		int s = p <= 1 ? i : p == 2 ? h + i : p == 3 ? 2 * i : 2 * i + 1;
		idx[zip ? 2 * i : i] = s;
		idx[zip ? 2 * i + 1 : cnt + i] = n + s;
	}
}

_Static_assert(VSHFL_SHIFT == 1 && VREPLIC_INDEX == 1, "vshfl's shift and vreplic's index second");

/* Whether instruction in is a constant permutation: lane i of its result is
 * lane idx[i] of *a's lanes followed by *b's (*b < 0: a alone; *b == *a:
 * a one-operand permutation), or zero where idx[i] < 0.  The operands and
 * lanes shuffle_begin takes. */
static int perm_of(const KdFunc *f, const KdIns *in, int *a, int *b, int *idx)
{
	int n = in->res >= 0 ? f->val[in->res].lanes : 0, bits[MAXLANES], k = 0;
	const KdVal *arg1 = in->nargs > 1 ? &f->val[in->args[1]] : NULL;
	*a = *b = in->nargs ? in->args[0] : -1;
	switch (in->op) {
	case OP_VCONCAT: case OP_VZIP:
		*b = in->args[VCONCAT_Y];
		concat_zip_lanes(in->op == OP_VZIP, (int)f->val[in->args[VCONCAT_PART]].c,
		                 f->val[*a].lanes, idx);
		return 1;
	case OP_VSPLIT:
		for (int i = 0; i < n; i++)
			idx[i] = (int)f->val[in->args[VSPLIT_IR_PART]].c * n + i;
		return 1;
	case OP_VREVS:
		for (int i = 0; i < n; i++)
			idx[i] = n - 1 - i;
		return 1;
	case OP_VSHFL: case OP_VREPLIC:
		if (arg1->kind != VK_CONST)
			return 0;
		for (int i = 0; i < n; i++)
			idx[i] = in->op == OP_VREPLIC ? (int)arg1->c : (int)((i + (arg1->c % n + n) % n) % n);
		return 1;
	case OP_VSLDL:
		*b = in->args[VSLDL_Y];
		for (int i = 0; i < n; i++)
			idx[i] = i + (int)f->val[in->args[VSLDL_SHIFT]].c;
		return 1;
	case OP_VSEL:
		*b = in->args[VSEL_Y];
		if (!lit_bits(f, in->args[VSEL_MASK], bits))
			return 0;
		for (int i = 0; i < n; i++)
			idx[i] = bits[i] ? i : n + i;
		return 1;
	case OP_VCOMPT: case OP_VCOMPC:
		*b = in->op == OP_VCOMPC ? in->args[VCOMPC_Y] : -1;
		if (!lit_bits(f, in->args[in->op == OP_VCOMPC ? (int)VCOMPC_MASK : (int)VCOMPT_MASK], bits))
			return 0;
		/* the kept lanes, then zeros (vcompt) or y's first lanes (vcompc) */
		for (int i = 0; i < n; i++)
			if (bits[i])
				idx[k++] = i;
		for (int j = 0; k < n; k++, j++)
			idx[k] = *b >= 0 ? n + j : -1;
		return 1;
	default:
		return 0;
	}
}

/* Whether values x and y have one vector or mask type. */
static int same_vtype(const KdVal *x, const KdVal *y)
{
	return x->type == y->type && x->dt == y->dt && x->lanes == y->lanes;
}

/* Follows lane *lane of value *x back through the constant permutations
 * that give it, while they permute values of x's type (at most 8 steps).
 * 0: the lane is a zero (vcompt's fill). */
static int trace_lane(const KdFunc *f, int *x, int *lane)
{
	for (int step = 0; step < 8; step++) {
		int pa, pb, pidx[MAXLANES];
		const KdIns *d = kd_defins(f, *x);
		if (!d || !perm_of(f, d, &pa, &pb, pidx) || !same_vtype(&f->val[pa], &f->val[*x]) ||
		    (pb >= 0 && !same_vtype(&f->val[pb], &f->val[*x])))
			return 1;
		if (pidx[*lane] < 0)
			return 0;
		int n = f->val[pa].lanes;
		*x = pidx[*lane] >= n && pb >= 0 ? pb : pa;
		*lane = pidx[*lane] % n;
	}
	return 1;
}

/* Folds the constant permutations that give a and b into idx when every
 * lane then comes from at most two values of a's type: vsel(vzip(x, y),
 * vrevs(vconcat(x, y))) becomes one permutation of x and y, which gcc
 * makes into one or two shuffles per part where it kept a chain of one per
 * op and part (the stream of docs/performance.md).  Exact: lanes are
 * moved, never computed.  n: the result's lanes. */
static void compose(const KdFunc *f, int *a, int *b, int *idx, int n)
{
	int na = f->val[*a].lanes, nidx[MAXLANES], srcs[2] = {-1, -1};
	for (int i = 0; i < n; i++) {
		int x = idx[i] >= na && *b >= 0 ? *b : *a, lane = idx[i] % na;
		nidx[i] = -1;
		if (idx[i] < 0 || !trace_lane(f, &x, &lane))
			continue;
		int k = srcs[0] < 0 || srcs[0] == x ? 0 : srcs[1] < 0 || srcs[1] == x ? 1 : 2;
		if (k == 2)
			return;   /* more than two values: the ops one by one */
		srcs[k] = x;
		nidx[i] = k * na + lane;
	}
	if (srcs[0] < 0)
		return;   /* all zeros: left as it is */
	*a = srcs[0];
	*b = srcs[1] < 0 ? srcs[0] : srcs[1];
	memcpy(idx, nidx, sizeof nidx[0] * (size_t)n);
}

/* Opens the vector-extension form of a constant permutation: result lane i
 * is lane idx[i] of a's lanes followed by b's (b < 0: a alone), or zero
 * where idx[i] < 0; mask >= 0: a literal mask the loops read and the
 * shuffle does not (cast to void, so it is not "set but not used").
 * Each 16-byte part of the result is one
 * __builtin_shufflevector of two 16-byte parts of the operands, or a chain
 * of them when its lanes come from more parts.  Returns 1 when it wrote
 * "#if kd_vshuf ... #else"; the caller then writes the loops and closes
 * with shuffle_end. */
static int shuffle_begin(KdVecOut *v, int r, int a, int b, const int *given, int mask)
{
	int idx[MAXLANES], a0 = a, b0 = b;
	memcpy(idx, given, sizeof idx[0] * (size_t)v->f->val[r].lanes);
	compose(v->f, &a, &b, idx, v->f->val[r].lanes);
	const KdVal *rv = &v->f->val[r], *av = &v->f->val[a];
	int na = av->lanes, lin = part_lanes(av), lout = part_lanes(rv);
	int nin = (b >= 0 && b != a ? 2 : 1) * na / lin;   /* operand parts, b's after a's */
	if (!gv_ok(rv) || !gv_ok(av))
		return 0;
	/* the sources of each result part, in order of first use; -1: not read */
	Part src[MAXLANES], used[MAXLANES + 1];
	int lane[MAXLANES], nused = 0, zero = 0, chain = 0;
	char need[MAXLANES] = {0};
	for (int i = 0; i < rv->lanes; i++) {
		int x = idx[i] < 0 ? -1 : idx[i] >= na && b == a ? idx[i] - na : idx[i];
		src[i] = x < 0 ? (Part){2, 0} : (Part){x >= na, (x % na) / lin};
		lane[i] = x < 0 ? 0 : x % na % lin;
		if (x < 0)
			zero = 1;
		else
			need[src[i].opnd * na / lin + src[i].k] = 1;
	}
	/* more than two sources for a part wider than the operands' parts: a
	 * case the ops do not produce (small operands give at most two) */
	for (int p = 0; p < rv->lanes / lout; p++) {
		nused = 0;
		for (int j = 0; j < lout; j++) {
			Part s = src[p * lout + j];
			int seen = 0;
			for (int u = 0; u < nused; u++)
				seen |= used[u].opnd == s.opnd && used[u].k == s.k;
			if (!seen)
				used[nused++] = s;
		}
		if (nused > 2 && lout > lin)
			return 0;
		chain |= nused > 2;
	}
	put(v, "#if kd_vshuf\n\t{\n\t\t");
	part_type(v->o, av);
	const char *sep = " ";
	for (int k = 0; k < nin; k++)
		if (need[k]) {
			kd_buf_printf(v->o, "%skd_%c%d", sep, k >= na / lin ? 'b' : 'a', k % (na / lin));
			sep = ", ";
		}
	if (zero) {
		kd_buf_printf(v->o, "%skd_z = {0}", sep);
		sep = ", ";
	}
	if (chain)
		kd_buf_printf(v->o, "%skd_w", sep);
	put(v, ";\n\t\t");
	part_type(v->o, rv);
	put(v, " kd_r;\n");
	for (int k = 0; k < nin; k++)
		if (need[k]) {
			char c = k >= na / lin ? 'b' : 'a';
			kd_buf_printf(v->o, "\t\tkd_%c%d = ", c, k % (na / lin));
			val(v, c == 'b' ? b : a);
			kd_buf_printf(v->o, ".p[%d];\n", k % (na / lin));
		}
	for (int p = 0; p < rv->lanes / lout; p++) {
		const Part *s = &src[p * lout];
		int sel[MAXLANES];
		nused = 0;
		for (int j = 0; j < lout; j++) {
			int seen = 0;
			for (int u = 0; u < nused; u++)
				seen |= used[u].opnd == s[j].opnd && used[u].k == s[j].k;
			if (!seen)
				used[nused++] = s[j];
		}
		if (nused <= 2) {
			for (int j = 0; j < lout; j++)
				sel[j] = lane[p * lout + j] +
				         (nused == 2 && used[1].opnd == s[j].opnd && used[1].k == s[j].k ? lin : 0);
			shuffle_call(v, rv, "kd_r", used[0], used[nused - 1], sel, lout);
		} else {
			/* kd_w (an operand part wide) gathers the lanes of the first two
			 * sources, then takes each further source's lanes in turn */
			for (int u = 1; u < nused; u++) {
				for (int j = 0; j < lin; j++) {
					int from = j < lout && used[u].opnd == s[j].opnd && used[u].k == s[j].k;
					int first = u == 1 && j < lout && used[0].opnd == s[j].opnd && used[0].k == s[j].k;
					sel[j] = from ? lin + lane[p * lout + j] : first ? lane[p * lout + j] : j;
				}
				shuffle_call(v, av, "kd_w", u == 1 ? used[0] : (Part){3, 0}, used[u], sel, lin);
			}
			if (lout == lin) {
				put(v, "\t\tkd_r = kd_w;\n");
			} else {
				for (int j = 0; j < lout; j++)
					sel[j] = j;
				shuffle_call(v, rv, "kd_r", (Part){3, 0}, (Part){3, 0}, sel, lout);
			}
		}
		put(v, "\t\t");
		val(v, r);
		kd_buf_printf(v->o, ".p[%d] = kd_r;\n", p);
	}
	if (mask >= 0) {
		put(v, "\t\t(void)");
		val(v, mask);
		put(v, ";\n");
	}
	/* An operand no lane comes from (vsel with a constant all-false mask)
	 * is read only by the #else loop: without this, set but not used. */
	int from_a = 0, from_b = 0;
	for (int k = 0; k < nin; k++)
		if (need[k])
			*(k >= na / lin ? &from_b : &from_a) = 1;
	if (!from_a) {
		put(v, "\t\t(void)");
		val(v, a);
		put(v, ";\n");
	}
	if (b >= 0 && b != a && !from_b) {
		put(v, "\t\t(void)");
		val(v, b);
		put(v, ";\n");
	}
	/* the operands compose folded away: read by the #else loop only */
	if (a0 != a && a0 != b) {
		put(v, "\t\t(void)");
		val(v, a0);
		put(v, ";\n");
	}
	if (b0 >= 0 && b0 != a0 && b0 != a && b0 != b) {
		put(v, "\t\t(void)");
		val(v, b0);
		put(v, ";\n");
	}
	put(v, "\t}\n#else\n");
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

/* Element `off + at` of tensor b (at: an expression in kd_i). */
static void element(KdVecOut *v, const KdBuffer *b, int off, const char *at)
{
	tensor(v, b);
	put(v, "[");
	val(v, off);
	kd_buf_printf(v->o, " + %s]", at);
}

/* Mask m of a memory op, or -1 where it is a literal with every lane set
 * (lowering gives a strided access one when the source had none): then
 * the op ignores it, and `(void)m;` keeps gcc from warning that its lanes
 * were set but never read. */
static int mem_used_mask(KdVecOut *v, int m)
{
	if (m < 0 || !all_true_lit(v, m))
		return m;
	put(v, "\t(void)");
	val(v, m);
	put(v, ";\n");
	return -1;
}

/* One lane of a vload (vec lane = tensor element) or a vstore (the other
 * way round), at lane kd_i from element `off + at` of tensor b. */
static void lane_move_at(KdVecOut *v, int store, const KdBuffer *b, int off, int vec, const char *at)
{
	if (store) {
		element(v, b, off, at);
		put(v, " = ");
		lane(v, vec, "kd_i");
	} else {
		lane(v, vec, "kd_i");
		put(v, " = ");
		element(v, b, off, at);
	}
}

static void lane_move(KdVecOut *v, int store, const KdBuffer *b, int off, int vec)
{
	lane_move_at(v, store, b, off, vec, "kd_i");
}

/* Value vec, or (k >= 0) the part local kd_v. */
static void move_operand(KdVecOut *v, int vec, int k)
{
	if (k >= 0)
		put(v, "kd_v");
	else
		val(v, vec);
}

/* A memcpy between value vec (k >= 0: its part k, through the local
 * kd_v) and element off + at of tensor b. */
static void move_line(KdVecOut *v, int store, const KdBuffer *b, int off, int at, int vec, int k)
{
	put(v, k >= 0 ? "\t\tmemcpy(" : "\tmemcpy(");
	if (!store) {
		put(v, "&");
		move_operand(v, vec, k);
		put(v, ", ");
	}
	tensor(v, b);
	put(v, " + ");
	val(v, off);
	if (at)
		kd_buf_printf(v->o, " + %d", at);
	if (store) {
		put(v, ", &");
		move_operand(v, vec, k);
	}
	put(v, ", sizeof ");
	move_operand(v, vec, k);
	put(v, ");\n");
}

/* An unmasked vload or vstore.  The portable form is one memcpy of the
 * whole value, whose struct holds exactly its lanes in order.  The GNU
 * form moves each part through a local part vector: a memcpy to or from
 * the struct itself would take its address, and gcc then keeps the
 * struct in memory (a dead store of every part on every iteration). */
static void whole_move(KdVecOut *v, int store, const KdBuffer *b, int off, int vec)
{
	const KdVal *x = &v->f->val[vec];
	if (gv_ok(x)) {
		int n = part_lanes(x);
		put(v, "#if kd_vshuf\n\t{\n\t\t");
		part_type(v->o, x);
		put(v, " kd_v;\n");
		for (int k = 0; k < x->lanes / n; k++) {
			if (store) {
				put(v, "\t\tkd_v = ");
				val(v, vec);
				kd_buf_printf(v->o, ".p[%d];\n", k);
			}
			move_line(v, store, b, off, k * n, vec, k);
			if (!store) {
				put(v, "\t\t");
				val(v, vec);
				kd_buf_printf(v->o, ".p[%d] = kd_v;\n", k);
			}
		}
		put(v, "\t}\n#else\n");
	}
	move_line(v, store, b, off, 0, vec, -1);
	if (gv_ok(x))
		put(v, "#endif\n");
}

/* The GNU form of a loaded vector built part by part from vector
 * literals, `vec.p[k] = (part){e0, e1, ...};`, lane i's element written
 * by elem(v, ctx, i): gcc assembles a literal in registers, where lane
 * stores into the struct's parts go through memory (3.5x the time of the
 * loop by hand, bench/bench_mem.c).  Opens the `#if kd_vshuf` the caller
 * closes after its portable loop. */
static void part_literals(KdVecOut *v, int vec, int n, void (*elem)(KdVecOut *, const void *, int),
                          const void *ctx)
{
	const KdVal *x = &v->f->val[vec];
	int pl = part_lanes(x);
	put(v, "#if kd_vshuf\n");
	for (int k = 0; k < n / pl; k++) {
		put(v, "\t\t");
		val(v, vec);
		kd_buf_printf(v->o, ".p[%d] = (", k);
		part_type(v->o, x);
		put(v, "){");
		for (int j = 0; j < pl; j++) {
			put(v, j ? ", " : "");
			elem(v, ctx, k * pl + j);
		}
		put(v, "};\n");
	}
	put(v, "#else\n");
}

/* A strided load's lane i: element off + i * kd_s. */
typedef struct {
	const KdBuffer *b;
	int off;
} StridedAt;

static void strided_elem(KdVecOut *v, const void *ctx, int i)
{
	const StridedAt *s = ctx;
	char at[32];
	snprintf(at, sizeof at, "%d * kd_s", i);
	element(v, s->b, s->off, at);
}

/* A gather's lane i: element kd_k + idx[i]. */
typedef struct {
	const KdBuffer *b;
	int idx;
} GatherAt;

static void gather_elem(KdVecOut *v, const void *ctx, int i)
{
	const GatherAt *g = ctx;
	char at[16];
	snprintf(at, sizeof at, "%d", i);
	tensor(v, g->b);
	put(v, "[kd_k + ");
	lane(v, g->idx, at);
	put(v, "]");
}

/* "OFF < 0 || OFF > LAST || (LAST - OFF) / kd_s < LANE": lane LANE of a
 * strided access from element OFF lies outside a tensor of LAST + 1
 * elements.  The division cannot overflow (kd_s >= 1 is checked first)
 * where OFF + LANE * kd_s could. */
static void stride_outside(KdVecOut *v, int off, long long last, const char *lane_expr)
{
	val(v, off);
	put(v, " < 0 || ");
	val(v, off);
	kd_buf_printf(v->o, " > %lld || (%lld - ", last, last);
	val(v, off);
	kd_buf_printf(v->o, ") / kd_s < %s", lane_expr);
}

/* A strided vload / vstore (mask m, -1 for every lane): lane kd_i is
 * element off + kd_i * kd_s, in a loop of constant trip count that the
 * compiler unrolls into lane moves; no call per lane.  Unless `check` is
 * 0 (constants the rule checker proved), the stride must be at least 1
 * and the last lane (unmasked) or each active lane inside the tensor,
 * checked before anything is written. */
static void mem_strided(KdVecOut *v, const KdIns *in, int store, int m, int check)
{
	const KdFunc *f = v->f;
	const KdBuffer *b = &f->buf[f->val[in->args[MEM_VIEW]].buf];
	int off = defins(v, in->args[MEM_VIEW])->args[0];
	int vec = store ? in->args[VSTORE_V] : in->res, n = lanes(v, vec);
	long long last = (long long)b->dims[0] - 1;
	char nm1[16];
	snprintf(nm1, sizeof nm1, "%d", n - 1);
	put(v, "\t{\n\t\tconst int64_t kd_s = ");
	val(v, mem_stride(in));
	put(v, ";\n");
	const KdVal *sval = &v->f->val[mem_stride(in)];
	if (check && !(sval->kind == VK_CONST && sval->c >= 1))
		kd_buf_printf(v->o, "\t\tif (kd_s < 1)\n\t\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], "
		              "KDSL_ERR_RANGE, \"stride must be at least 1, got %%lld\", (long long)kd_s);\n",
		              v->site);
	if (check && m < 0) {
		put(v, "\t\tif (");
		stride_outside(v, off, last, nm1);
		kd_buf_printf(v->o, ")\n\t\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_BOUNDS, "
		              "\"%d lanes from element %%lld with stride %%lld are outside '%s' (%lld "
		              "elements)\", (long long)", v->site, n, b->name, last + 1);
		val(v, off);
		put(v, ", (long long)kd_s);\n");
	}
	if (m < 0 && !store && gv_ok(&v->f->val[vec]))
		part_literals(v, vec, n, strided_elem, &(StridedAt){b, off});
	kd_buf_printf(v->o, "\t\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n", n);
	if (m >= 0) {
		put(v, "\t\t\tif (!");
		lane(v, m, "kd_i");
		put(v, ") {\n");
		if (!store) {
			put(v, "\t\t\t\t");
			lane(v, vec, "kd_i");
			put(v, " = 0;\n");
		}
		put(v, "\t\t\t\tcontinue;\n\t\t\t}\n");
		if (check) {
			put(v, "\t\t\tif (");
			stride_outside(v, off, last, "kd_i");
			kd_buf_printf(v->o, ")\n\t\t\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_BOUNDS, "
			              "\"lane %%d of the vector at element %%lld with stride %%lld is outside "
			              "'%s' (%lld elements)\", kd_i, (long long)", v->site, b->name, last + 1);
			val(v, off);
			put(v, ", (long long)kd_s);\n");
		}
	}
	put(v, "\t\t\t");
	lane_move_at(v, store, b, off, vec, "kd_i * kd_s");
	put(v, ";\n\t\t}\n");
	if (m < 0 && !store && gv_ok(&v->f->val[vec]))
		put(v, "#endif\n");
	put(v, "\t}\n");
}

/* vload / vstore: the tensor, the element offset and its run-time check. */
static void mem(KdVecOut *v, const KdIns *in, int store)
{
	const KdFunc *f = v->f;
	const KdIns *vi = defins(v, in->args[MEM_VIEW]);
	const KdBuffer *b = &f->buf[f->val[in->args[MEM_VIEW]].buf];
	int off = vi->args[0];
	int vec = store ? in->args[VSTORE_V] : in->res;
	int n = lanes(v, vec);
	int m = mem_used_mask(v, mem_mask(in));
	if (mem_stride(in) >= 0) {
		mem_strided(v, in, store, m, mem_checked(f, in));
		return;
	}
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
		whole_move(v, store, b, off, vec);
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

/* "(uint64_t)kd_k + (uint64_t)(int64_t)index[kd_i] > LAST": lane kd_i's
 * element lies outside a tensor of LAST + 1 elements.  In unsigned
 * arithmetic the sum wraps (defined), and no int64 k and 16-bit index
 * outside 0..LAST (at most 2^40) wraps into it, so the test is exact. */
static void gather_outside(KdVecOut *v, int idx, long long last)
{
	put(v, "(uint64_t)kd_k + (uint64_t)(int64_t)");
	lane(v, idx, "kd_i");
	kd_buf_printf(v->o, " > %lluu", (unsigned long long)last);
}

/* vload_gather / vstore_scatter: lane kd_i at element k + index[kd_i].
 * One pass over the index vector ORs the active lanes' range tests (a
 * loop without branches the compiler vectorises); only when one fails
 * does a second pass find the lane to name.  Then the lanes move in a
 * loop of constant trip count: no call per lane. */
static void gather(KdVecOut *v, const KdIns *in, int store)
{
	_Static_assert(KD_SAME_POS(VLOAD_GATHER_SRC, VSTORE_SCATTER_DST), "the view first");
	const KdFunc *f = v->f;
	const KdBuffer *b = &f->buf[f->val[in->args[VLOAD_GATHER_SRC]].buf];
	int ik = store ? (int)VSTORE_SCATTER_INDEX : (int)VLOAD_GATHER_INDEX;
	int idx = in->args[ik], vec = store ? in->args[VSTORE_SCATTER_V] : in->res, n = lanes(v, vec);
	int m = mem_used_mask(v, in->nargs > ik + 1 ? in->args[ik + 1] : -1);
	long long last = (long long)b->dims[0] - 1;
	put(v, "\t{\n\t\tconst int64_t kd_k = ");
	val(v, defins(v, in->args[VLOAD_GATHER_SRC])->args[0]);
	kd_buf_printf(v->o, ";\n\t\tint kd_bad = 0;\n\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\tkd_bad |= ", n);
	if (m >= 0) {
		lane(v, m, "kd_i");
		put(v, " & ");
	}
	put(v, "(");
	gather_outside(v, idx, last);
	kd_buf_printf(v->o, ");\n\t\tif (kd_bad)\n\t\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t\tif (", n);
	if (m >= 0) {
		lane(v, m, "kd_i");
		put(v, " && ");
	}
	gather_outside(v, idx, last);
	kd_buf_printf(v->o, ")\n\t\t\t\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_BOUNDS, \"lane %%d: "
	              "element %%lld + index %%lld is outside '%s' (%lld elements)\", kd_i, (long long)kd_k, "
	              "(long long)", v->site, b->name, last + 1);
	lane(v, idx, "kd_i");
	put(v, ");\n");
	/* an unmasked gather's parts as vector literals, as a strided load's
	 * (part_literals says why) */
	int literal = !store && m < 0 && gv_ok(&v->f->val[vec]);
	if (literal)
		part_literals(v, vec, n, gather_elem, &(GatherAt){b, idx});
	kd_buf_printf(v->o, "\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t", n);
	if (store && m >= 0) {
		put(v, "if (");
		lane(v, m, "kd_i");
		put(v, ")\n\t\t\t\t");
	}
	if (!store) {
		lane(v, vec, "kd_i");
		put(v, " = ");
		if (m >= 0) {
			lane(v, m, "kd_i");
			put(v, " ? ");
		}
	}
	tensor(v, b);
	put(v, "[kd_k + ");
	lane(v, idx, "kd_i");
	put(v, "]");
	if (store) {
		put(v, " = ");
		lane(v, vec, "kd_i");
	} else if (m >= 0) {
		put(v, " : 0");
	}
	put(v, ";\n");
	if (literal)
		put(v, "#endif\n");
	put(v, "\t}\n");
}

/* vconcat (zip 0) or vzip (zip 1): a constant permutation of x and y. */
static void concat_zip(KdVecOut *v, const KdIns *in, int zip)
{
	int r = in->res, x = in->args[VCONCAT_X], y = in->args[VCONCAT_Y];
	int p = (int)cval(v, in->args[VCONCAT_PART]);
	int n = lanes(v, x), h = n / 2, cnt = p == 0 ? n : h;
	char src[32];
	switch (p) {
	case 0: case 1: snprintf(src, sizeof src, "kd_i"); break;
	case 2: snprintf(src, sizeof src, "%d + kd_i", h); break;
	case 3: snprintf(src, sizeof src, "2 * kd_i"); break;
	default: snprintf(src, sizeof src, "2 * kd_i + 1"); break;
	}
	int idx[MAXLANES];
	concat_zip_lanes(zip, p, n, idx);
	int opened = shuffle_begin(v, r, x, y, idx, -1);
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

/* A one-operand constant permutation (perm_of's lanes): lane kd_i of the
 * result is lane `src` of x in the loop form. */
static void permute(KdVecOut *v, const KdIns *in, const char *src)
{
	int idx[MAXLANES], a, b;
	perm_of(v->f, in, &a, &b, idx);
	int opened = shuffle_begin(v, in->res, a, b, idx, -1);
	copy(v, in->res, "kd_i", a, src, lanes(v, in->res));
	shuffle_end(v, opened);
}

static void compress(KdVecOut *v, const KdIns *in, int fill)
{
	int r = in->res, x = in->args[VCOMPT_X], n = lanes(v, x);
	int m = in->args[fill ? (int)VCOMPC_MASK : (int)VCOMPT_MASK];
	int idx[MAXLANES], pa, pb, opened = 0;
	/* a literal mask: a constant permutation */
	if (perm_of(v->f, in, &pa, &pb, idx))
		opened = shuffle_begin(v, r, pa, pb, idx, m);
	kd_buf_printf(v->o, "\t{\n\t\tint kd_n = 0;\n\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\tif (", n);
	lane(v, m, "kd_i");
	put(v, ") {\n\t\t\t\t");
	lane(v, r, "kd_n");
	put(v, " = ");
	lane(v, x, "kd_i");
	put(v, ";\n\t\t\t\tkd_n++;\n\t\t\t}\n");
	if (fill)
		kd_buf_printf(v->o, "\t\tfor (int kd_j = 0; kd_n < %d; kd_n++, kd_j++)\n\t\t\t", n);
	else
		kd_buf_printf(v->o, "\t\tfor (; kd_n < %d; kd_n++)\n\t\t\t", n);
	lane(v, r, "kd_n");
	if (fill) {
		put(v, " = ");
		lane(v, in->args[VCOMPC_Y], "kd_j");
	} else {
		put(v, " = 0");
	}
	put(v, ";\n\t}\n");
	shuffle_end(v, opened);
}

/* One f16 lane of an element-wise op; b < 0: the same value as a (read
 * through kd_y, see elementwise). */
static void f16_lane(KdVecOut *v, int x)
{
	put(v, "kdsl_h_f16_to_f64(");
	if (x < 0)
		put(v, "kd_y");
	else
		lane(v, x, "kd_i");
	put(v, ")");
}

static void f16_lanes(KdVecOut *v, KdOp op, const char *sym, int a, int b)
{
	if (op == OP_VMIN || op == OP_VMAX) {
		f16_lane(v, a);
		put(v, op == OP_VMIN ? " < " : " > ");
		f16_lane(v, b);
		put(v, " ? ");
		lane(v, a, "kd_i");
		put(v, " : ");
		if (b < 0)
			put(v, "kd_y");
		else
			lane(v, b, "kd_i");
	} else if (!(kd_ops[op].flags & KD_OPF_COMPARE)) {
		/* arithmetic: rounded back to f16 (a comparison gives a mask lane) */
		put(v, "kdsl_h_f64_to_f16(");
		f16_lane(v, a);
		kd_buf_printf(v->o, " %s ", sym);
		f16_lane(v, b);
		put(v, ")");
	} else {
		f16_lane(v, a);
		kd_buf_printf(v->o, " %s ", sym);
		f16_lane(v, b);
	}
}

/* The vector operators (add, sub, mul, the comparisons: their C
 * operator is the table's) and min/max, whose x and y stand where the
 * operators' two operands do. */
_Static_assert(VMIN_X == 0 && VMIN_Y == 1 && VMAX_X == 0 && VMAX_Y == 1, "min and max take (x, y)");

static void elementwise(KdVecOut *v, const KdIns *in)
{
	int r = in->res, a = in->args[0], b = in->args[1];
	KdDtype dt = v->f->val[a].dt;
	const char *sym = kd_ops[in->op].c_op;
	/* max(x, x), x > x: the second operand goes through a local, or gcc
	 * and clang warn of a self-comparison (-Wtautological-compare). */
	int same = a == b;
#define B_LANE() (same ? put(v, "kd_y") : lane(v, b, "kd_i"))
	loop(v, lanes(v, r));
	if (same) {
		kd_buf_printf(v->o, "{\n\t\t\tconst %s kd_y = ", elem(dt));
		lane(v, b, "kd_i");
		put(v, ";\n\t\t\t");
	}
	lane(v, r, "kd_i");
	put(v, " = ");
	if (dt == KD_F16) {
		/* f16 lanes are bit patterns: computed in double, where the
		 * exact sum, difference or product of two f16 values fits (at
		 * most 40 significant bits), so the one rounding back to f16 is
		 * IEEE's. */
		f16_lanes(v, in->op, sym, a, same ? -1 : b);
	} else if (in->op == OP_VMIN || in->op == OP_VMAX) {
		lane(v, a, "kd_i");
		put(v, in->op == OP_VMIN ? " < " : " > ");
		B_LANE();
		put(v, " ? ");
		lane(v, a, "kd_i");
		put(v, " : ");
		B_LANE();
	} else if (!(kd_ops[in->op].flags & KD_OPF_COMPARE) && !kd_dtypes[dt].is_float) {
		/* integer arithmetic wraps at the lane's width */
		kd_buf_printf(v->o, "(%s)((uint32_t)", elem(dt));
		lane(v, a, "kd_i");
		kd_buf_printf(v->o, " %s (uint32_t)", sym);
		B_LANE();
		put(v, ")");
	} else {
		lane(v, a, "kd_i");
		kd_buf_printf(v->o, " %s ", sym);
		B_LANE();
	}
#undef B_LANE
	put(v, same ? ";\n\t\t}\n" : ";\n");
}

/* Masks combined lane by lane (each lane is 0 or 1, so the bitwise
 * operators give 0 or 1 again). */
static void mask_logic(KdVecOut *v, const KdIns *in)
{
	int r = in->res, a = in->args[0];
	loop(v, lanes(v, r));
	lane(v, r, "kd_i");
	if (in->op == OP_MASK_NOT) {
		put(v, " = !");
		lane(v, a, "kd_i");
		put(v, ";\n");
		return;
	}
	kd_buf_printf(v->o, " = (unsigned char)(");
	lane(v, a, "kd_i");
	put(v, in->op == OP_MASK_AND ? " & " : in->op == OP_MASK_OR ? " | " : " ^ ");
	lane(v, in->args[1], "kd_i");
	put(v, ");\n");
}

static void table(KdVecOut *v, const KdIns *in)
{
	int r = in->res, idx = in->args[VTBL_IR_INDICES], n = lanes(v, r);
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n\t\tuint64_t kd_k = (uint64_t)(int64_t)", n);
	lane(v, idx, "kd_i");
	put(v, ";\n\t\t");
	lane(v, r, "kd_i");
	put(v, " = ");
	for (int t = 0; t + VTBL_IR_TABLE < in->nargs; t++) {
		char at[48];
		snprintf(at, sizeof at, "kd_k - %d", t * n);
		kd_buf_printf(v->o, "kd_k < %d ? ", (t + 1) * n);
		lane(v, in->args[VTBL_IR_TABLE + t], t == 0 ? "kd_k" : at);
		put(v, " : ");
	}
	put(v, "0;\n\t}\n");
}

/* ---- arithmetic: vector /, cast, vrpadd, vrint, clip, abs ---- */

/* Operand k of in, or -1 when in has not that many (an optional mask). */
static int opt_arg(const KdIns *in, int k)
{
	return in->nargs > k ? in->args[k] : -1;
}

/* The range of integer dtype dt as C int64 literals. */
static void int_range(KdDtype dt, char *lo, char *hi, size_t n)
{
	int bits = kd_dtypes[dt].size * 8;
	if (kd_dtypes[dt].is_signed) {
		snprintf(lo, n, "(-INT64_C(%lld) - 1)", (long long)((UINT64_C(1) << (bits - 1)) - 1));
		snprintf(hi, n, "INT64_C(%lld)", (long long)((UINT64_C(1) << (bits - 1)) - 1));
	} else {
		snprintf(lo, n, "INT64_C(0)");
		snprintf(hi, n, "INT64_C(%lld)", (long long)((UINT64_C(1) << bits) - 1));
	}
}

/* Lane `index` of x as a double (f16 lanes are bit patterns). */
static void as_double(KdVecOut *v, int x, const char *index)
{
	put(v, v->f->val[x].dt == KD_F16 ? "kdsl_h_f16_to_f64(" : "(double)(");
	lane(v, x, index);
	put(v, ")");
}

/* Double expression `e` as a lane of float dtype dt. */
static void from_double(KdVecOut *v, KdDtype dt, const char *e)
{
	if (dt == KD_F16)
		kd_buf_printf(v->o, "kdsl_h_f64_to_f16(%s)", e);
	else
		kd_buf_printf(v->o, "(%s)(%s)", elem(dt), e);
}

/* Opens the loop of an op whose inactive lanes (mask m, unless a literal
 * with every lane set) are x's: "for (...) {" and the pass-through. */
static void masked_open(KdVecOut *v, int r, int x, int m)
{
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n", lanes(v, r));
	if (m < 0 || all_true_lit(v, m)) {
		if (m >= 0) {
			/* read only here: "set but not used" otherwise */
			put(v, "\t\t(void)");
			val(v, m);
			put(v, ";\n");
		}
		return;
	}
	put(v, "\t\tif (!");
	lane(v, m, "kd_i");
	put(v, ") {\n\t\t\t");
	lane(v, r, "kd_i");
	put(v, " = ");
	lane(v, x, "kd_i");
	put(v, ";\n\t\t\tcontinue;\n\t\t}\n");
}

/* Vector / (the Compass API's vdiv): integers divide in int64, truncating,
 * where no quotient is undefined (INT32_MIN / -1 included); a lane
 * divided by 0 is 0 and a quotient above the dtype's maximum (MIN / -1)
 * is that maximum.  f32 divides as IEEE says (x / 0 an infinity or NaN). */
static void divide(KdVecOut *v, const KdIns *in)
{
	int r = in->res, a = in->args[0], b = in->args[1];
	KdDtype dt = v->f->val[r].dt;
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n", lanes(v, r));
	if (kd_dtypes[dt].is_float) {
		put(v, "\t\t");
		lane(v, r, "kd_i");
		put(v, " = ");
		lane(v, a, "kd_i");
		put(v, " / ");
		lane(v, b, "kd_i");
		put(v, ";\n\t}\n");
		return;
	}
	char lo[48], hi[48];
	int_range(dt, lo, hi, sizeof lo);
	put(v, "\t\tint64_t kd_d = (int64_t)");
	lane(v, b, "kd_i");
	put(v, ";\n\t\tint64_t kd_q = kd_d ? (int64_t)");
	lane(v, a, "kd_i");
	put(v, " / kd_d : 0;\n\t\t");
	lane(v, r, "kd_i");
	kd_buf_printf(v->o, " = (%s)(kd_q > %s ? %s : kd_q);\n\t}\n", elem(dt), hi, hi);
}

/* cast: lane i of the result from lane kd_aipu_cast_src(i) of x. */
static void cast(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->args[VCAST_IR_X], n = lanes(v, r);
	int part = (int)cval(v, in->args[VCAST_IR_PART]), sat = (int)cval(v, in->args[VCAST_IR_SATURATE]);
	KdDtype from = v->f->val[x].dt, to = v->f->val[r].dt;
	char src[48], lo[48], hi[48];
	switch (kd_aipu_cast_src(1, n, part) - kd_aipu_cast_src(0, n, part)) {
	case 2: snprintf(src, sizeof src, "2 * kd_i + %d", kd_aipu_cast_src(0, n, part)); break;
	default: snprintf(src, sizeof src, "%d + kd_i", kd_aipu_cast_src(0, n, part)); break;
	}
	kd_buf_printf(v->o, "\tfor (int kd_i = 0; kd_i < %d; kd_i++) {\n\t\t", n);
	if (kd_dtypes[to].is_float) {
		/* to a float: one rounding, to nearest even (an integer or f32 is
		 * exact in double) */
		lane(v, r, "kd_i");
		put(v, " = ");
		if (to == KD_F16) {
			put(v, "kdsl_h_f64_to_f16(");
			as_double(v, x, src);
			put(v, ")");
		} else if (to == KD_F32 && from == KD_F16) {
			/* the same value without the trip through double
			 * (kdsl_rt.h's form for lanes converted one by one) */
			put(v, "kdsl_h_f16_to_f32_quiet(");
			lane(v, x, src);
			put(v, ")");
		} else {
			kd_buf_printf(v->o, "(%s)", elem(to));
			as_double(v, x, src);
		}
		put(v, ";\n\t}\n");
		return;
	}
	if (kd_dtypes[from].is_float) {
		/* truncated towards zero, NaN 0, saturated to i32, then wrapped */
		put(v, "double kd_f = ");
		as_double(v, x, src);
		put(v, ";\n\t\tint64_t kd_v = kd_f != kd_f ? 0 : kd_f <= -2147483648.0 ? -INT64_C(2147483648)"
		       " : kd_f >= 2147483647.0 ? INT64_C(2147483647) : (int64_t)kd_f;\n\t\t");
	} else {
		put(v, "int64_t kd_v = (int64_t)");
		lane(v, x, src);
		put(v, ";\n\t\t");
	}
	lane(v, r, "kd_i");
	if (sat && !kd_dtypes[from].is_float) {
		int_range(to, lo, hi, sizeof lo);
		kd_buf_printf(v->o, " = (%s)(kd_v < %s ? %s : kd_v > %s ? %s : kd_v);\n\t}\n", elem(to), lo, lo,
		              hi, hi);
	} else {
		/* wraps at the lane's width: through uint64_t, reduced modulo 2^bits */
		kd_buf_printf(v->o, " = (%s)(uint64_t)kd_v;\n\t}\n", elem(to));
	}
}

/* vrpadd: the active lanes' sum in lane 0, the other lanes 0.  Integers
 * add in uint32_t (wrapping at the lane's width once truncated); floats
 * in f32, a tree of adjacent pairs within each native vector, those sums
 * in order. */
static void vrpadd(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->args[VRPADD_IR_X], m = opt_arg(in, VRPADD_IR_MASK);
	KdDtype dt = v->f->val[x].dt, rdt = v->f->val[r].dt;
	int n = lanes(v, x), nat = kd_aipu_native(dt), all = m < 0 || all_true_lit(v, m);
	put(v, "\t{\n");
	if (all && m >= 0) {
		put(v, "\t\t(void)");
		val(v, m);
		put(v, ";\n");
	}
	if (!kd_dtypes[dt].is_float) {
		put(v, "\t\tuint32_t kd_s = 0;\n");
		kd_buf_printf(v->o, "\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t", n);
		if (!all) {
			put(v, "if (");
			lane(v, m, "kd_i");
			put(v, ")\n\t\t\t\t");
		}
		put(v, "kd_s += (uint32_t)");
		lane(v, x, "kd_i");
		put(v, ";\n");
	} else {
		kd_buf_printf(v->o, "\t\tfloat kd_s = 0.0f, kd_t[%d];\n", nat);
		kd_buf_printf(v->o, "\t\tfor (int kd_c = 0; kd_c < %d; kd_c += %d) {\n", n, nat);
		kd_buf_printf(v->o, "\t\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t\tkd_t[kd_i] = ", nat);
		if (!all) {
			lane(v, m, "kd_c + kd_i");
			put(v, " ? ");
		}
		put(v, "(float)");
		as_double(v, x, "kd_c + kd_i");
		put(v, all ? ";\n" : " : 0.0f;\n");
		kd_buf_printf(v->o, "\t\t\tfor (int kd_w = %d; kd_w > 0; kd_w /= 2)\n"
		              "\t\t\t\tfor (int kd_i = 0; kd_i < kd_w; kd_i++)\n"
		              "\t\t\t\t\tkd_t[kd_i] = kd_t[2 * kd_i] + kd_t[2 * kd_i + 1];\n"
		              "\t\t\tkd_s = kd_c ? kd_s + kd_t[0] : kd_t[0];\n\t\t}\n", nat / 2);
	}
	kd_buf_printf(v->o, "\t\tfor (int kd_i = 1; kd_i < %d; kd_i++)\n\t\t\t", lanes(v, r));
	lane(v, r, "kd_i");
	put(v, " = 0;\n\t\t");
	lane(v, r, "0");
	kd_buf_printf(v->o, " = (%s)kd_s;\n\t}\n", elem(rdt));
}

/* vrint: halves to even without a call: below 2^23 (f32) or 2^52 (f16's
 * double), adding and taking away that power rounds in the FPU's mode,
 * to nearest even; a zero keeps x's sign; larger, infinite and NaN lanes
 * are integral already. */
static void vrint(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->args[VRINT_IR_X];
	int f16 = v->f->val[x].dt == KD_F16;
	const char *t = f16 ? "double" : "float", *big = f16 ? "4503599627370496.0" : "8388608.0f";
	masked_open(v, r, x, opt_arg(in, VRINT_IR_MASK));
	kd_buf_printf(v->o, "\t\t%s kd_a = ", t);
	if (f16)
		as_double(v, x, "kd_i");
	else
		lane(v, x, "kd_i");
	kd_buf_printf(v->o, ";\n\t\tif (kd_a < %s && kd_a > -%s) {\n"
	              "\t\t\t%s kd_r = kd_a >= 0 ? (%s)((%s)(kd_a + %s) - %s) : (%s)((%s)(kd_a - %s) + %s);\n"
	              "\t\t\tkd_a = kd_r == 0 ? kd_a * 0 : kd_r;\n\t\t}\n\t\t",
	              big, big, t, t, t, big, big, t, t, big, big);
	lane(v, r, "kd_i");
	put(v, " = ");
	if (f16)
		from_double(v, KD_F16, "kd_a");
	else
		put(v, "kd_a");
	put(v, ";\n\t}\n");
}

/* clip: integers max(min(x, hi), lo) in int64; floats hi where x > hi,
 * else lo where x < lo, else x (so a NaN stays). */
static void clip(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->args[CLIP_IR_X];
	int lo = in->args[CLIP_IR_MIN_VAL], hi = in->args[CLIP_IR_MAX_VAL];
	KdDtype dt = v->f->val[x].dt;
	masked_open(v, r, x, opt_arg(in, CLIP_IR_MASK));
	if (kd_dtypes[dt].is_float) {
		put(v, "\t\tdouble kd_a = ");
		as_double(v, x, "kd_i");
		put(v, ", kd_l = ");
		as_double(v, lo, "kd_i");
		put(v, ", kd_h = ");
		as_double(v, hi, "kd_i");
		put(v, ";\n\t\t");
		lane(v, r, "kd_i");
		put(v, " = kd_a > kd_h ? ");
		lane(v, hi, "kd_i");
		put(v, " : kd_a < kd_l ? ");
		lane(v, lo, "kd_i");
		put(v, " : ");
		lane(v, x, "kd_i");
		put(v, ";\n\t}\n");
		return;
	}
	put(v, "\t\tint64_t kd_a = (int64_t)");
	lane(v, x, "kd_i");
	put(v, ", kd_l = (int64_t)");
	lane(v, lo, "kd_i");
	put(v, ", kd_h = (int64_t)");
	lane(v, hi, "kd_i");
	put(v, ";\n\t\tkd_a = kd_a < kd_h ? kd_a : kd_h;\n\t\t");
	lane(v, r, "kd_i");
	kd_buf_printf(v->o, " = (%s)(kd_a > kd_l ? kd_a : kd_l);\n\t}\n", elem(dt));
}

/* abs: a signed integer in int64, wrapped back (the minimum stays
 * itself) or saturated; unsigned lanes as they are; a float's sign bit
 * cleared (f32 through a union, which C11 defines). */
static void absolute(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->args[ABS_IR_X], sat = (int)cval(v, in->args[ABS_IR_SATURATE]);
	KdDtype dt = v->f->val[x].dt;
	char lo[48], hi[48];
	masked_open(v, r, x, opt_arg(in, ABS_IR_MASK));
	put(v, "\t\t");
	if (dt == KD_F16) {
		lane(v, r, "kd_i");
		put(v, " = (kdsl_f16)(");
		lane(v, x, "kd_i");
		put(v, " & 0x7fffu);\n\t}\n");
	} else if (dt == KD_F32) {
		put(v, "union { float f; uint32_t u; } kd_u;\n\t\tkd_u.f = ");
		lane(v, x, "kd_i");
		put(v, ";\n\t\tkd_u.u &= 0x7fffffffu;\n\t\t");
		lane(v, r, "kd_i");
		put(v, " = kd_u.f;\n\t}\n");
	} else if (!kd_dtypes[dt].is_signed) {
		lane(v, r, "kd_i");
		put(v, " = ");
		lane(v, x, "kd_i");
		put(v, ";\n\t}\n");
	} else {
		int_range(dt, lo, hi, sizeof lo);
		put(v, "int64_t kd_a = (int64_t)");
		lane(v, x, "kd_i");
		put(v, ";\n\t\tkd_a = kd_a < 0 ? -kd_a : kd_a;\n\t\t");
		lane(v, r, "kd_i");
		if (sat)
			kd_buf_printf(v->o, " = (%s)(kd_a > %s ? %s : kd_a);\n\t}\n", elem(dt), hi, hi);
		else
			kd_buf_printf(v->o, " = (%s)(uint64_t)kd_a;\n\t}\n", elem(dt));
	}
}

/* Every op below takes its vector (x, or vsplat's and vbcast's scalar,
 * or tail_mask's n) first. */
_Static_assert(VSPLIT_IR_X == 0 && VREVS_X == 0 && VSEL_X == 0 && VSHFL_X == 0 && VBCAST_X == 0 &&
               VSLDL_X == 0 && VREPLIC_X == 0 && TAIL_MASK_N == 0, "x first");

int kd_emit_vec_ins(KdVecOut *v, const KdIns *in)
{
	int r = in->res, x = in->nargs ? in->args[0] : -1;
	char buf[64];
	int idx[MAXLANES] = {0}, n = r >= 0 ? lanes(v, r) : 0;
	switch (in->op) {
	case OP_VLOAD: mem(v, in, 0); break;
	case OP_VSTORE: mem(v, in, 1); break;
	case OP_VLOAD_GATHER: gather(v, in, 0); break;
	case OP_VSTORE_SCATTER: gather(v, in, 1); break;
	case OP_VCONCAT: concat_zip(v, in, 0); break;
	case OP_VZIP: concat_zip(v, in, 1); break;
	case OP_VSPLIT:
		snprintf(buf, sizeof buf, "%lld + kd_i", (long long)cval(v, in->args[VSPLIT_IR_PART]) * n);
		permute(v, in, buf);
		break;
	case OP_VCOMPT: compress(v, in, 0); break;
	case OP_VCOMPC: compress(v, in, 1); break;
	case OP_VREVS:
		snprintf(buf, sizeof buf, "%d - kd_i", n - 1);
		permute(v, in, buf);
		break;
	case OP_VSEL: {
		/* a literal mask picks each lane from a known operand: a shuffle */
		int pa, pb, opened = 0;
		if (perm_of(v->f, in, &pa, &pb, idx))
			opened = shuffle_begin(v, r, pa, pb, idx, in->args[VSEL_MASK]);
		loop(v, lanes(v, r));
		lane(v, r, "kd_i");
		put(v, " = ");
		lane(v, in->args[VSEL_MASK], "kd_i");
		put(v, " ? ");
		lane(v, x, "kd_i");
		put(v, " : ");
		lane(v, in->args[VSEL_Y], "kd_i");
		put(v, ";\n");
		shuffle_end(v, opened);
		break;
	}
	case OP_VSHFL: {
		if (is_const(v, in->args[VSHFL_SHIFT])) {
			int64_t s = ((cval(v, in->args[VSHFL_SHIFT]) % n) + n) % n;
			snprintf(buf, sizeof buf, "(kd_i + %lld) %% %d", (long long)s, n);
			permute(v, in, buf);
			break;
		}
		put(v, "\t{\n\t\tint64_t kd_s = ");
		val(v, in->args[VSHFL_SHIFT]);
		kd_buf_printf(v->o, " %% %d;\n\t\tif (kd_s < 0)\n\t\t\tkd_s += %d;\n", n, n);
		kd_buf_printf(v->o, "\t\tfor (int kd_i = 0; kd_i < %d; kd_i++)\n\t\t\t", n);
		lane(v, r, "kd_i");
		put(v, " = ");
		snprintf(buf, sizeof buf, "(kd_i + kd_s) %% %d", n);
		lane(v, x, buf);
		put(v, ";\n\t}\n");
		break;
	}
	case OP_VBCAST: splat(v, r, x, in->nargs > VBCAST_MASK ? in->args[VBCAST_MASK] : -1); break;
	case OP_VSPLAT: splat(v, r, x, -1); break;
	case OP_VSLDL: {
		int s = (int)cval(v, in->args[VSLDL_SHIFT]);
		char dst[32];
		int pa, pb;
		perm_of(v->f, in, &pa, &pb, idx);
		int opened = shuffle_begin(v, r, pa, pb, idx, -1);
		snprintf(buf, sizeof buf, "kd_i + %d", s);
		copy(v, r, "kd_i", x, buf, n - s);
		snprintf(dst, sizeof dst, "%d + kd_i", n - s);
		copy(v, r, dst, in->args[VSLDL_Y], "kd_i", s);
		shuffle_end(v, opened);
		break;
	}
	case OP_VTBL: table(v, in); break;
	case OP_VREPLIC: {
		if (is_const(v, in->args[VREPLIC_INDEX])) {
			snprintf(buf, sizeof buf, "%lld", (long long)cval(v, in->args[VREPLIC_INDEX]));
			permute(v, in, buf);
			break;
		}
		put(v, "\tif (");
		val(v, in->args[VREPLIC_INDEX]);
		put(v, " < 0 || ");
		val(v, in->args[VREPLIC_INDEX]);
		kd_buf_printf(v->o, " > %d)\n\t\treturn kdsl_rt_fail(kd_rt, &kd_site[%d], KDSL_ERR_RANGE, "
		              "\"index must be in 0..%d, got %%lld\", (long long)", n - 1, v->site, n - 1);
		val(v, in->args[VREPLIC_INDEX]);
		put(v, ");\n");
		loop(v, n);
		lane(v, r, "kd_i");
		put(v, " = ");
		lane_open(v, x);
		val(v, in->args[VREPLIC_INDEX]);
		lane_close(v, x);
		put(v, ";\n");
		break;
	}
	case OP_TAIL_MASK:
		loop(v, lanes(v, r));
		lane(v, r, "kd_i");
		put(v, " = kd_i < ");
		if (is_const(v, x)) {
			/* clamped: a count past int's range would make the C compare
			 * an int with a constant it can never reach (-Wtype-limits) */
			int64_t c = cval(v, x), n = lanes(v, r);
			kd_buf_printf(v->o, "%lld", (long long)(c < 0 ? 0 : c > n ? n : c));
		} else {
			val(v, x);
		}
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
	case OP_MASK_AND: case OP_MASK_OR: case OP_MASK_XOR: case OP_MASK_NOT:
		mask_logic(v, in);
		break;
	case OP_DIV: divide(v, in); break;
	case OP_VCAST: cast(v, in); break;
	case OP_VRPADD: vrpadd(v, in); break;
	case OP_VRINT: vrint(v, in); break;
	case OP_CLIP: clip(v, in); break;
	case OP_ABS: absolute(v, in); break;
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_AND: case OP_OR: case OP_XOR:
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
	case OP_VMIN: case OP_VMAX:
		elementwise(v, in);
		break;
	default:
		kd_op_unhandled(v->d, in->span, "emit (aipu vectors)", in->op);
		return -1;
	}
	return 0;
}
