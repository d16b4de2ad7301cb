/* rules_ascend.c: the rules of seed 001 (TIK data_move) and of the TIK
 * vector ops beyond what the op table's ranges say. */
#include <stdio.h>

#include "rules.h"

/* A string operand lowers to its index here: the runtime's code. */
#define STR(code, s) [code] = s,
const char *const kd_ascend_round_modes[KDSL_NROUND + 1] = {KDSL_ROUND_LIST(STR) [KDSL_NROUND] = NULL};
#undef STR

/* Seed 001, Table 2: the scope pairs data_move accepts (src -> dst), as
 * the runtime checks them. */
int kd_ascend_move_pair_ok(KdSpace src, KdSpace dst)
{
	return kdsl_ascend_move_allowed((kdsl_mem)src, (kdsl_mem)dst);
}

/* ub and l1 addresses must be 32-byte aligned for every value the
 * operand takes. */
static void aligned(KdCheck *c, const KdIns *ins, int i, const KdBuffer *b, KdRange off)
{
	uint32_t al = kd_spaces[b->space].align;
	KdRange by = kd_range_scale(off, kd_dtypes[b->dt].size, 0);
	if (!al || !by.known)
		return;
	const char *pname = kd_ops[ins->op].param[i].name;
	if (by.lo % al)
		kd_check_error(c, ins, i, "%s address in %s must be %u-byte aligned, got byte offset %lld",
		               pname, kd_spaces[b->space].name, al, (long long)by.lo);
	else if (by.mod % al)
		kd_check_error(c, ins, i,
		               "%s address in %s must be %u-byte aligned, got byte offsets %lld, %lld, ... "
		               "that step by %lld", pname, kd_spaces[b->space].name, al,
		               (long long)by.lo, (long long)(by.lo + by.mod), (long long)by.mod);
}

/* Bytes [off, off + extent) of b, for every value of off. */
static void inside(KdCheck *c, const KdIns *ins, int i, const KdBuffer *b, KdRange off, int64_t extent,
                   const char *verb)
{
	KdRange by = kd_range_scale(off, kd_dtypes[b->dt].size, 0);
	int64_t end;
	if (!by.known || extent <= 0 || __builtin_add_overflow(by.hi, extent, &end))
		return;
	if (by.lo < 0 || end > b->bytes)
		kd_check_error(c, ins, i,
		               "every byte must be inside its tensor: %s %s bytes %lld..%lld of '%s', which has %lld bytes",
		               kd_ops[ins->op].param[i].name, verb, (long long)by.lo, (long long)(end - 1),
		               b->name, (long long)b->bytes);
}

void kd_check_data_move(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	KdRange doff, soff;
	const KdBuffer *dst = kd_check_ref(c, ins, DATA_MOVE_DST, &doff);
	const KdBuffer *src = kd_check_ref(c, ins, DATA_MOVE_SRC, &soff);
	if (dst->dt != src->dt)
		kd_check_error(c, ins, -1, "src and dst must have the same dtype, got %s (src '%s') and %s (dst '%s')",
		               kd_dtypes[src->dt].name, src->name, kd_dtypes[dst->dt].name, dst->name);
	if (!kd_ascend_move_pair_ok(src->space, dst->space))
		kd_check_error(c, ins, -1, "cannot move from %s to %s (scopes allowed: " KDSL_ASCEND_MOVE_PAIRS_TEXT ")",
		               kd_spaces[src->space].name, kd_spaces[dst->space].name);
	aligned(c, ins, DATA_MOVE_DST, dst, doff);
	aligned(c, ins, DATA_MOVE_SRC, src, soff);
	int64_t nburst, burst, sstride, dstride;
	if (!kd_arg_legal(f, ins, DATA_MOVE_NBURST, &nburst) || !kd_arg_legal(f, ins, DATA_MOVE_BURST, &burst))
		return;
	if (kd_arg_legal(f, ins, DATA_MOVE_SRC_STRIDE, &sstride))
		inside(c, ins, DATA_MOVE_SRC, src, soff, ((nburst - 1) * (burst + sstride) + burst) * KDSL_ASCEND_BLOCK, "reads");
	if (kd_arg_legal(f, ins, DATA_MOVE_DST_STRIDE, &dstride))
		inside(c, ins, DATA_MOVE_DST, dst, doff, ((nburst - 1) * (burst + dstride) + burst) * KDSL_ASCEND_BLOCK, "writes");
}

/* The TIK vector ops: mask first, then each tensor (dst first) with its
 * rep stride, and the repeat count. */
typedef struct {
	int ntensor, repeat;
	int tensor[3], stride[3];
} VecLayout;

static const VecLayout dup_layout = {1, VEC_DUP_REPEAT_TIMES, {VEC_DUP_DST}, {VEC_DUP_DST_REP_STRIDE}};
static const VecLayout add_layout = {3, VEC_ADD_REPEAT_TIMES, {VEC_ADD_DST, VEC_ADD_SRC0, VEC_ADD_SRC1},
                                  {VEC_ADD_DST_REP_STRIDE, VEC_ADD_SRC0_REP_STRIDE, VEC_ADD_SRC1_REP_STRIDE}};
_Static_assert(KD_SAME_POS(VEC_DUP_MASK, VEC_ADD_MASK), "vec ops take mask first");
enum { VEC_MASK = VEC_ADD_MASK };
/* the two-source ops share vec_add's description (ops_ascend.def's
 * VEC_BINARY), so their positions are vec_add's */
#define SAME_AS_ADD(OPN) \
	_Static_assert(KD_SAME_POS(OPN##_SRC1, VEC_ADD_SRC1) && \
	               KD_SAME_POS(OPN##_SRC1_REP_STRIDE, VEC_ADD_SRC1_REP_STRIDE), #OPN " is vec_add's shape");
SAME_AS_ADD(VEC_SUB)
SAME_AS_ADD(VEC_MUL)
SAME_AS_ADD(VEC_MAX)
SAME_AS_ADD(VEC_MIN)

/* the one-source ops: unary ones (VEC_UNARY) take vec_abs's positions,
 * tensor-scalar ones (VEC_SCALAR) vec_adds' */
static const VecLayout unary_layout = {2, VEC_ABS_REPEAT_TIMES, {VEC_ABS_DST, VEC_ABS_SRC},
                                       {VEC_ABS_DST_REP_STRIDE, VEC_ABS_SRC_REP_STRIDE}};
static const VecLayout scalar_layout = {2, VEC_ADDS_REPEAT_TIMES, {VEC_ADDS_DST, VEC_ADDS_SRC},
                                        {VEC_ADDS_DST_REP_STRIDE, VEC_ADDS_SRC_REP_STRIDE}};
#define SAME_AS(OPN, BASE) \
	_Static_assert(KD_SAME_POS(OPN##_MASK, VEC_ADD_MASK) && KD_SAME_POS(OPN##_SRC, BASE##_SRC) && \
	               KD_SAME_POS(OPN##_SRC_REP_STRIDE, BASE##_SRC_REP_STRIDE), #OPN " is " #BASE "'s shape");
SAME_AS(VEC_MULS, VEC_ADDS)
SAME_AS(VEC_EXP, VEC_ABS)
SAME_AS(VEC_LN, VEC_ABS)
SAME_AS(VEC_REC, VEC_ABS)
SAME_AS(VEC_RELU, VEC_ABS)
SAME_AS(VEC_ABS, VEC_ABS)
/* vec_conv: the unary shape with round_mode after the mask */
static const VecLayout conv_layout = {2, VEC_CONV_REPEAT_TIMES, {VEC_CONV_DST, VEC_CONV_SRC},
                                      {VEC_CONV_DST_REP_STRIDE, VEC_CONV_SRC_REP_STRIDE}};
_Static_assert(KD_SAME_POS(VEC_CONV_MASK, VEC_ADD_MASK), "vec_conv takes mask first");

int kd_ascend_vec_binary(KdOp op)
{
	return op == OP_VEC_ADD || op == OP_VEC_SUB || op == OP_VEC_MUL || op == OP_VEC_MAX || op == OP_VEC_MIN;
}

/* The operand layout of each vector op's shape. */
static const VecLayout *layout_of(KdOp op)
{
	if (kd_ascend_vec_binary(op))
		return &add_layout;
	if (op == OP_VEC_ADDS || op == OP_VEC_MULS)
		return &scalar_layout;
	if (op == OP_VEC_CONV)
		return &conv_layout;
	return op == OP_VEC_DUP ? &dup_layout : &unary_layout;
}

int kd_ascend_vec_repeat(KdOp op)
{
	int vec = op == OP_VEC_DUP || kd_ascend_vec_binary(op) || op == OP_VEC_ADDS || op == OP_VEC_MULS ||
	          op == OP_VEC_ABS || op == OP_VEC_EXP || op == OP_VEC_LN || op == OP_VEC_REC ||
	          op == OP_VEC_RELU || op == OP_VEC_CONV;
	return vec ? layout_of(op)->repeat : -1;
}

/* The mask as the element bits of a repeat, when its value is known: the
 * continuous n (table_rules has checked 1..128) against the dtype's
 * 256/size, or the bitwise [mask_h, mask_l], two halves (each its 64
 * bits), not both 0, mask_h 0 where a repeat has 64 elements. */
static int mask_bits(KdCheck *c, const KdIns *ins, KdDtype dt, kdsl_ascend_bits *out)
{
	const KdFunc *f = c->f;
	const KdVal *x = &f->val[ins->args[VEC_MASK]];
	int sz = kd_dtypes[dt].size, max = KDSL_ASCEND_REPEAT_BYTES / sz;
	if (x->type != VT_LIST) {
		int64_t mask;
		KdRange mr = kd_range_of(c, ins->args[VEC_MASK]);
		/* above the dtype's mask but within the table's range (the widest) */
		if (mr.known && mr.lo >= 1 && mr.hi > max && mr.hi <= KDSL_ASCEND_MASK_MAX)
			kd_check_error(c, ins, VEC_MASK, "mask must be in 1..%d for %s, got %lld", max,
			               kd_dtypes[dt].name, (long long)mr.hi);
		if (!kd_arg_legal(f, ins, VEC_MASK, &mask) || mask > max)
			return 0;
		*out = kdsl_ascend_bits_count(mask);
		return 1;
	}
	const KdIns *l = &f->ins[x->def];
	if (l->nargs != 2) {
		kd_check_error(c, ins, VEC_MASK, "a bitwise mask is a list of two halves [mask_h, mask_l], got %d",
		               l->nargs);
		return 0;
	}
	const KdVal *h = &f->val[l->args[0]], *lo = &f->val[l->args[1]];
	if (max <= 64 && h->kind == VK_CONST && h->c)
		kd_check_error_at(c, ins, l->argspan[0], "mask_h must be 0 for %s (%d elements a repeat), got 0x%llx",
		                  kd_dtypes[dt].name, max, (unsigned long long)h->c);
	else if (h->kind == VK_CONST && lo->kind == VK_CONST && !h->c && !lo->c)
		kd_check_error(c, ins, VEC_MASK, "a bitwise mask must enable at least one element, got [0, 0]");
	else if (h->kind == VK_CONST && lo->kind == VK_CONST) {
		out->h = (uint64_t)h->c;
		out->l = (uint64_t)lo->c;
		return 1;
	}
	return 0;
}

/* Element offset of tensor operand j minus that of operand i, when the
 * two are affine in the same loops with the same coefficients (so the
 * difference is one constant at every iteration). */
static int offset_diff(const KdFunc *f, const KdIns *ins, int i, int j, int64_t *diff)
{
	int64_t c[2], k[2][8];
	int n[2], blk[2][8];
	for (int t = 0; t < 2; t++) {
		const KdIns *vi = &f->ins[f->val[ins->args[t ? j : i]].def];
		if (!kd_affine_terms(f, vi->args[0], &c[t], &n[t], blk[t], k[t]))
			return 0;
	}
	if (n[0] != n[1])
		return 0;
	for (int a = 0; a < n[0]; a++) {
		int found = 0;
		for (int b = 0; b < n[1]; b++)
			found |= blk[0][a] == blk[1][b] && k[0][a] == k[1][b];
		if (!found)
			return 0;
	}
	return !__builtin_sub_overflow(c[1], c[0], diff);
}

/* vec_add's overlap rules (kdsl_hw.h's kdsl_ascend_vec_overlap) between
 * dst and source t, decided here when they share a buffer and the
 * distance, strides, repeat count and mask are all known; the runtime
 * checks what is not. */
static void overlap(KdCheck *c, const KdIns *ins, const VecLayout *l, int t, const KdBuffer *b,
                    int64_t repeat, kdsl_ascend_bits bits)
{
	const KdFunc *f = c->f;
	int64_t diff, dstride, sstride, r = 0, r2 = 0, sz = kd_dtypes[b->dt].size;
	if (!offset_diff(f, ins, l->tensor[0], l->tensor[t], &diff) ||
	    !kd_arg_legal(f, ins, l->stride[0], &dstride) || !kd_arg_legal(f, ins, l->stride[t], &sstride) ||
	    __builtin_mul_overflow(diff, sz, &diff))
		return;
	/* dst == src1 at rep stride 0: the pages' accumulation */
	if (l == &add_layout && l->tensor[t] == VEC_ADD_SRC1 && !diff && !dstride && !sstride)
		return;
	const char *sn = kd_ops[ins->op].param[l->tensor[t]].name;
	int64_t ds = dstride * KDSL_ASCEND_BLOCK, ss = sstride * KDSL_ASCEND_BLOCK;
	switch (kdsl_ascend_vec_overlap(diff, ds, ss, repeat, bits, sz, sz, &r, &r2)) {
	case 1:
		kd_check_error(c, ins, l->tensor[t],
		               "within a repeat dst and %s must coincide exactly or not overlap: in repeat %lld "
		               "%s starts %lld bytes from dst in '%s'", sn, (long long)r, sn,
		               (long long)(diff + r * (ss - ds)), b->name);
		break;
	case 2:
		kd_check_error(c, ins, l->tensor[t],
		               "no repeat may read what an earlier repeat wrote: repeat %lld reads %s bytes "
		               "of '%s' that repeat %lld wrote to dst", (long long)r2, sn, b->name, (long long)r);
		break;
	default:
		break;
	}
}

/* vec_conv's pair of dtypes and its round_mode against the page's table
 * (kdsl_hw.h's KDSL_ASCEND_CONV_LIST), once the table's dtype list holds
 * both dtypes. */
static void conv_pair(KdCheck *c, const KdIns *ins, const KdBuffer *dst, const KdBuffer *src)
{
	unsigned list = kd_ops[ins->op].dtypes;
	if (!(list & KD_DTBIT(dst->dt)) || !(list & KD_DTBIT(src->dt)))
		return;
	unsigned modes = kdsl_ascend_conv_modes((kdsl_dtype)src->dt, (kdsl_dtype)dst->dt);
	if (!modes) {
		kd_check_error(c, ins, -1, "cannot convert %s ('%s') to %s ('%s') (conversions: "
		               KDSL_ASCEND_CONV_PAIRS_TEXT ")", kd_dtypes[src->dt].name, src->name,
		               kd_dtypes[dst->dt].name, dst->name);
		return;
	}
	int64_t mode;
	if (!kd_arg_const(c->f, ins, VEC_CONV_ROUND_MODE, &mode) || mode < 0 || mode >= KDSL_NROUND ||
	    (modes >> mode & 1))
		return;
	char text[128];
	size_t at = 0;
	text[0] = 0;
	for (int k = 0; k < KDSL_NROUND; k++)
		if (modes >> k & 1)
			at += (size_t)snprintf(text + at, sizeof text - at, "%s\"%s\"", at ? ", " : "",
			                       kd_ascend_round_modes[k]);
	kd_check_error(c, ins, VEC_CONV_ROUND_MODE, "round_mode must be one of %s for %s->%s, got \"%s\"", text,
	               kd_dtypes[src->dt].name, kd_dtypes[dst->dt].name, kd_ascend_round_modes[mode]);
}

void kd_check_vec(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	const VecLayout *l = layout_of(ins->op);
	KdRange off[3];
	const KdBuffer *b[3];
	for (int t = 0; t < l->ntensor; t++) {
		b[t] = kd_check_ref(c, ins, l->tensor[t], &off[t]);
		aligned(c, ins, l->tensor[t], b[t], off[t]);
	}
	if (l == &conv_layout)
		conv_pair(c, ins, b[0], b[1]);
	else
		for (int t = 1; t < l->ntensor; t++)
			if (b[t]->dt != b[0]->dt)
				kd_check_error(c, ins, l->tensor[t],
				               "all operands must have the same dtype, got %s ('%s') and %s ('%s')",
				               kd_dtypes[b[t]->dt].name, b[t]->name, kd_dtypes[b[0]->dt].name, b[0]->name);
	int64_t repeat, stride;
	/* a repeat is 256 bytes of the widest operand (they differ only for vec_conv) */
	KdDtype wide = b[0]->dt;
	for (int t = 1; t < l->ntensor; t++)
		if (kd_dtypes[b[t]->dt].size > kd_dtypes[wide].size)
			wide = b[t]->dt;
	int sz = kd_dtypes[wide].size;
	/* TIK takes a runtime 0 (no repeat) but not an immediate one */
	if (kd_arg_const(f, ins, l->repeat, &repeat) && !repeat)
		kd_check_error(c, ins, l->repeat, "repeat_times must be in 1..%d when it is a constant, got 0",
		               KDSL_ASCEND_REPEAT_MAX);
	kdsl_ascend_bits bits;
	if (!sz || !mask_bits(c, ins, wide, &bits) || !kd_arg_legal(f, ins, l->repeat, &repeat) || !repeat)
		return;
	for (int t = 0; t < l->ntensor; t++)
		if (kd_arg_legal(f, ins, l->stride[t], &stride))
			inside(c, ins, l->tensor[t], b[t], off[t], (repeat - 1) * stride * KDSL_ASCEND_BLOCK +
			       kdsl_ascend_bits_span(bits) * kd_dtypes[b[t]->dt].size, t ? "reads" : "writes");
	/* the overlap is a fact about values: under a guard that never holds
	 * or that the checker cannot read, the runtime checks what runs.  A
	 * buffer has one dtype, so operands that share one share it. */
	for (int t = 1; t < l->ntensor && !c->blind; t++)
		if (b[t] == b[0] && b[t]->dt == b[0]->dt)
			overlap(c, ins, l, t, b[0], repeat, bits);
}

/* Element access (u[i], u[i] = v): the element inside its tensor, for
 * every value the index takes on the trips that run (guards narrow it). */
void kd_check_elem(KdCheck *c, const KdIns *ins)
{
	_Static_assert(KD_SAME_POS(ELEM_READ_SRC, ELEM_WRITE_DST), "element ops take the tensor first");
	KdRange off;
	const KdBuffer *b = kd_check_ref(c, ins, ELEM_READ_SRC, &off);
	int64_t n = b->bytes / (kd_dtypes[b->dt].size ? kd_dtypes[b->dt].size : 1);
	if (!off.known || (off.lo >= 0 && off.hi < n))
		return;
	kd_check_error(c, ins, ELEM_READ_SRC, "the element must be inside its tensor: index %lld of '%s', "
	               "which has %lld elements (0..%lld)", (long long)(off.lo < 0 ? off.lo : off.hi), b->name,
	               (long long)n, (long long)(n - 1));
}

/* No cost table on the page: a documented model.  The MTE moves 32 bytes
 * a cycle after a fixed start of 100 cycles and 4 cycles per burst; a
 * vector repeat takes one cycle after a start of 20. */
int64_t kd_cost_data_move(const KdFunc *f, const KdIns *ins)
{
	int64_t nburst = 1, burst = 1;
	kd_arg_const(f, ins, DATA_MOVE_NBURST, &nburst);
	kd_arg_const(f, ins, DATA_MOVE_BURST, &burst);
	return 100 + nburst * (burst + 4);
}

int64_t kd_cost_vec(const KdFunc *f, const KdIns *ins)
{
	int64_t repeat = 1;
	kd_arg_const(f, ins, layout_of(ins->op)->repeat, &repeat);
	return 20 + repeat;
}

int64_t kd_cost_elem(const KdFunc *f, const KdIns *ins)
{
	(void)f, (void)ins;
	return 10;
}
