/* verify_ops.c: the typing rules of the generic IR ops (the op table's
 * verify hook of add ... ret, see verify.h): what sema guarantees on
 * source and later stages index or emit by.  Each rule stops at its
 * first broken operand, so one mistake is one message. */
#include "tile.h"
#include "verify.h"

static const KdVal *arg(const KdVerify *v, const KdIns *in, int k)
{
	return &v->f->val[in->args[k]];
}

static const char *name(const KdIns *in)
{
	return kd_ops[in->op].name;
}

static int is_vec(const KdVal *x)
{
	return x->type == VT_VEC || x->type == VT_MASK;
}

static int is_num(const KdVal *x)
{
	return x->type == VT_INT || x->type == VT_FLOAT || x->type == VT_BOOL || is_vec(x);
}

/* in has exactly n operands (the reader's shapes; a built op always does). */
static int count(KdVerify *v, const KdIns *in, int n)
{
	if (in->nargs == n)
		return 1;
	kd_verify_fail(v, in, -1, "%s takes %d operand%s, got %d", name(in), n, n == 1 ? "" : "s",
	               in->nargs);
	return 0;
}

/* The vector form of an element-wise op (aipu), once its operands and
 * result are vectors of one lane count: +, -, *, / and & | ^ give a
 * vector of the operands' dtype (/ not on f16, the bitwise ones on
 * integers only), a comparison a mask; nothing else has one (sema's
 * rule, and all the vector emitter writes). */
static void vector_form(KdVerify *v, const KdIns *in, const KdVal *r)
{
	int bits = in->op == OP_AND || in->op == OP_OR || in->op == OP_XOR;
	int arith = in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL || in->op == OP_DIV || bits;
	int cmp = in->op == OP_EQ || in->op == OP_NE || in->op == OP_LT || in->op == OP_LE ||
	          in->op == OP_GT || in->op == OP_GE;
	if (!arith && !cmp) {
		kd_verify_fail(v, in, -1, "%s has no vector form (vectors take add, sub, mul, div, and, or, "
		               "xor and comparisons)", name(in));
		return;
	}
	if (r->type == VT_VEC && ((bits && kd_dtypes[r->dt].is_float) || (in->op == OP_DIV && r->dt == KD_F16))) {
		kd_verify_fail(v, in, -1, "%s has no %s vector form", name(in), kd_dtypes[r->dt].name);
		return;
	}
	if (r->type != (arith ? VT_VEC : VT_MASK)) {
		kd_verify_fail(v, in, -1, "%s: the result of vectors must be a %s", name(in),
		               arith ? "vector" : "mask");
		return;
	}
	for (int k = 0; k < in->nargs; k++)
		if (arg(v, in, k)->type != VT_VEC) {
			kd_verify_fail(v, in, k, "%s: operand %d must be a vector, got %s", name(in), k + 1,
			               kd_verify_type_str(v, arg(v, in, k)));
			return;
		}
	if (arg(v, in, 0)->dt != arg(v, in, 1)->dt)
		kd_verify_fail(v, in, 1, "%s: operand 2 is a %s vector, operand 1 %s", name(in),
		               kd_dtypes[arg(v, in, 1)->dt].name, kd_dtypes[arg(v, in, 0)->dt].name);
}

/* add ... not: two operands (neg and not one), numbers; all scalars, or
 * (aipu) vectors of the result's lanes, a vector result's dtype theirs. */
static void elementwise(KdVerify *v, const KdIns *in)
{
	if (!count(v, in, in->op == OP_NEG || in->op == OP_NOT ? 1 : 2))
		return;
	if (in->res < 0) {
		kd_verify_fail(v, in, -1, "%s needs a result", name(in));
		return;
	}
	const KdVal *r = &v->f->val[in->res];
	for (int k = 0; k < in->nargs; k++) {
		const KdVal *a = arg(v, in, k);
		if (!is_num(a))
			kd_verify_fail(v, in, k, "%s: operand %d must be a number, got %s", name(in), k + 1,
			               kd_verify_type_str(v, a));
		else if (r->type == VT_VEC && a->type == VT_VEC && a->dt != r->dt)
			kd_verify_fail(v, in, k, "%s: operand %d is a %s vector, the result %s", name(in), k + 1,
			               kd_dtypes[a->dt].name, kd_dtypes[r->dt].name);
		else if (is_vec(a) != is_vec(r))
			kd_verify_fail(v, in, k, "%s: operand %d must be a %s like the result", name(in), k + 1,
			               is_vec(r) ? "vector" : "scalar");
		else if (is_vec(a) && a->lanes != r->lanes)
			kd_verify_fail(v, in, k, "%s: operand %d has %d lanes, the result %d", name(in), k + 1,
			               a->lanes, r->lanes);
		else
			continue;
		return;
	}
	if (is_vec(r))
		vector_form(v, in, r);
}

/* cast x: a number (the emitter converts scalars only). */
static void cast(KdVerify *v, const KdIns *in)
{
	if (!count(v, in, 1))
		return;
	const KdVal *x = arg(v, in, 0);
	if (x->type != VT_INT && x->type != VT_FLOAT && x->type != VT_BOOL)
		kd_verify_fail(v, in, 0, "cast: operand 1 must be a number, got %s", kd_verify_type_str(v, x));
}

/* list e0, e1, ...: integers (a neuron list argument). */
static void list(KdVerify *v, const KdIns *in)
{
	for (int k = 0; k < in->nargs; k++)
		if (arg(v, in, k)->type != VT_INT) {
			kd_verify_fail(v, in, k, "list: operand %d must be an integer, got %s", k + 1,
			               kd_verify_type_str(v, arg(v, in, k)));
			return;
		}
}

/* view @b, offset and tile @b, ...: integers within what sema's index
 * checks bound on source (the rule checker computes byte addresses from
 * them); a tile's counts constants.  The buffer is operand 1 in the text,
 * so the value operands count from 2. */
/* A tile's access pattern (tile.h): TA_N + 1 + 2 * nd operands, nd
 * 1..KDSL_NEURON_AP_DIMS, constants: PSTEP 0 on chip, strides 1..lim and
 * counts 1..lim whose product is NFREE, every (count - 1) * stride within
 * lim, so the span of a partition sums without overflow. */
static int tile_ap(KdVerify *v, const KdIns *in, int64_t lim)
{
	int nd = (in->nargs - TA_N - 1) / 2;
	if (nd < 1 || nd > KDSL_NEURON_AP_DIMS || in->nargs != TA_N + 1 + 2 * nd) {
		kd_verify_fail(v, in, -1, "tile takes %d operands, or %d, %d or %d with an access pattern, got %d", TA_N,
		               TA_N + 3, TA_N + 5, TA_N + 7, in->nargs);
		return 0;
	}
	int64_t prod = 1;
	for (int k = TA_PSTEP; k < in->nargs; k++) {
		const KdVal *x = arg(v, in, k);
		int cnt = (k - TA_PSTEP) % 2 == 0 && k > TA_PSTEP;
		int64_t lo = k > TA_PSTEP;   /* counts and strides >= 1, PSTEP >= 0 */
		if (x->type != VT_INT || x->kind != VK_CONST || x->c < lo || x->c > lim) {
			kd_verify_fail(v, in, k, "tile: operand %d must be a constant %s %lld..%lld", k + 2,
			               cnt ? "count" : k == TA_PSTEP ? "partition step" : "stride", (long long)lo,
			               (long long)lim);
			return 0;
		}
		if (cnt) {
			int64_t span, s = arg(v, in, k - 1)->c;
			if (__builtin_mul_overflow(x->c - 1, s, &span) || span > lim ||
			    __builtin_mul_overflow(prod, x->c, &prod) || prod > lim) {
				kd_verify_fail(v, in, k, "tile: the access pattern reaches past %lld elements", (long long)lim);
				return 0;
			}
		}
	}
	const KdVal *nf = arg(v, in, TA_NFREE), *ps = arg(v, in, TA_PSTEP);
	const KdBuffer *b = in->res >= 0 && v->f->val[in->res].buf >= 0 ? &v->f->buf[v->f->val[in->res].buf] : NULL;
	if (nf->kind == VK_CONST && nf->c != prod) {
		kd_verify_fail(v, in, TA_NFREE, "tile: the access pattern's counts multiply to %lld, NFREE is %lld",
		               (long long)prod, (long long)nf->c);
		return 0;
	}
	if (b && !kd_spaces[b->space].external && ps->c != 0) {
		kd_verify_fail(v, in, TA_PSTEP, "tile: the partition step of a view in %s must be 0, got %lld",
		               kd_spaces[b->space].name, (long long)ps->c);
		return 0;
	}
	return 1;
}

static void view(KdVerify *v, const KdIns *in)
{
	if (in->op == OP_TILE && in->nargs > TA_N) {
		if (!tile_ap(v, in, (int64_t)1 << 40))
			return;
	} else if (!count(v, in, in->op == OP_TILE ? TA_N : 1)) {
		return;
	}
	int64_t lim = (int64_t)1 << 40;
	for (int k = 0; k < (in->op == OP_TILE ? TA_N : in->nargs); k++) {
		const KdVal *x = arg(v, in, k);
		int counts = in->op == OP_TILE && (k == TA_NPART || k == TA_NFREE);
		if (x->type != VT_INT)
			kd_verify_fail(v, in, k, "%s: operand %d must be an integer, got %s", name(in), k + 2,
			               kd_verify_type_str(v, x));
		else if (counts && (x->kind != VK_CONST || x->c < 1 || x->c > lim))
			kd_verify_fail(v, in, k, "tile: operand %d must be a constant count 1..%lld", k + 2,
			               (long long)lim);
		else if (x->kind == VK_CONST && (x->c < -lim || x->c > lim))
			kd_verify_fail(v, in, k, "%s: operand %d out of range (|x| <= %lld)", name(in), k + 2,
			               (long long)lim);
		else
			continue;
		return;
	}
}

/* dim_index: an integer index, its dim's extent (a constant within the
 * language's size limit, which the emitted check and the rule compare
 * against), the dim's number and the tensor's name (for the message). */
static void dim_index(KdVerify *v, const KdIns *in)
{
	if (!count(v, in, DIM_INDEX_N))
		return;
	const KdVal *x = arg(v, in, DIM_INDEX_IDX), *e = arg(v, in, DIM_INDEX_EXTENT),
	            *k = arg(v, in, DIM_INDEX_DIM), *n = arg(v, in, DIM_INDEX_NAME);
	if (x->type != VT_INT)
		kd_verify_fail(v, in, DIM_INDEX_IDX, "dim_index: the index must be an integer, got %s",
		               kd_verify_type_str(v, x));
	else if (e->kind != VK_CONST || e->type != VT_INT || e->c < 1 || e->c > KD_MAX_TENSOR_BYTES)
		kd_verify_fail(v, in, DIM_INDEX_EXTENT, "dim_index: the extent must be a constant 1..%lld",
		               (long long)KD_MAX_TENSOR_BYTES);
	else if (k->kind != VK_CONST || k->type != VT_INT || k->c < 0 || k->c >= KD_MAXRANK)
		kd_verify_fail(v, in, DIM_INDEX_DIM, "dim_index: the dim must be a constant 0..%d",
		               KD_MAXRANK - 1);
	else if (n->kind != VK_STR)
		kd_verify_fail(v, in, DIM_INDEX_NAME, "dim_index: the tensor's name must be a string, got %s",
		               kd_verify_type_str(v, n));
}

/* jmp and br: the values passed to a block's parameters have their
 * types; br's condition is a bool (or an integer). */
static void branch(KdVerify *v, const KdIns *in)
{
	const KdFunc *f = v->f;
	if (!count(v, in, in->op == OP_BR))
		return;
	if (in->op == OP_BR) {
		const KdVal *c = arg(v, in, 0);
		if (c->type != VT_BOOL && c->type != VT_INT) {
			kd_verify_fail(v, in, 0, "br: the condition must be a bool, got %s",
			               kd_verify_type_str(v, c));
			return;
		}
	}
	for (int s = 0; s < in->nsucc; s++) {
		const KdSucc *sc = &in->succ[s];
		const KdBlock *to = f->blk[sc->blk];
		if (sc->nargs != to->nparam) {
			kd_verify_fail(v, in, -1, "bb%d takes %d argument%s, got %d", sc->blk, to->nparam,
			               to->nparam == 1 ? "" : "s", sc->nargs);
			continue;
		}
		for (int i = 0; i < sc->nargs; i++) {
			const KdVal *a = &f->val[sc->args[i]], *p = &f->val[to->params[i]];
			if (a->type != p->type || a->lanes != p->lanes)
				kd_verify_fail(v, in, -1, "argument %d of bb%d must be %s, got %s", i + 1, sc->blk,
				               kd_verify_type_str(v, p), kd_verify_type_str(v, a));
		}
	}
}

void kd_verify_core(KdVerify *v, const KdIns *in)
{
	switch (in->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_SHL: case OP_SHR:
	case OP_AND: case OP_OR: case OP_XOR: case OP_EQ: case OP_NE: case OP_LT: case OP_LE:
	case OP_GT: case OP_GE: case OP_LAND: case OP_LOR: case OP_NEG: case OP_NOT:
		elementwise(v, in);
		return;
	case OP_CAST: cast(v, in); return;
	case OP_LIST: list(v, in); return;
	case OP_VIEW: case OP_TILE: view(v, in); return;
	case OP_DIM_INDEX: dim_index(v, in); return;
	case OP_JMP: case OP_BR: branch(v, in); return;
	case OP_RET: count(v, in, 0); return;
	default:
		/* an op given this hook in the table but no rules here */
		kd_error(v->d, in->span, "internal compiler error: op '%s' has no typing rule in verify_ops.c",
		         name(in));
		v->nerr++;
		return;
	}
}
