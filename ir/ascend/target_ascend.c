/* target_ascend.c: the IR stage's ascend hooks (ir_target.h).  Placement
 * is the generic one; the burst and forwarding passes apply. */
#include "ir_target.h"
#include "rules.h"

/* The elements a vector op's mask enables in a repeat: n, or the bits
 * set in [mask_h, mask_l]; 0 when the walk does not know it. */
static int64_t mask_elems(const KdWalk *w, const KdFunc *f, int v)
{
	if (f->val[v].type != VT_LIST)
		return kd_walk_int(w, f, v, 0);
	const KdIns *l = &f->ins[f->val[v].def];
	int64_t n = 0;
	for (int i = 0; i < l->nargs && l->nargs == 2; i++)
		n += __builtin_popcountll((unsigned long long)kd_walk_int(w, f, l->args[i], 0));
	return n;
}

/* --stats: a data_move counts nburst*burst*32 bytes in each of its two
 * spaces, an element access its element, a vector op the mask's elements
 * of every repeat in each tensor operand. */
static void bytes(int64_t *by, const KdWalk *w, const KdFunc *f, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	if (ins->op == OP_DATA_MOVE) {
		int64_t n = kd_walk_int(w, f, ins->args[DATA_MOVE_NBURST], 1) *
		            kd_walk_int(w, f, ins->args[DATA_MOVE_BURST], 1) * KDSL_ASCEND_BLOCK;
		by[f->buf[f->val[ins->args[DATA_MOVE_DST]].buf].space] += n;
		by[f->buf[f->val[ins->args[DATA_MOVE_SRC]].buf].space] += n;
	} else if (ins->op == OP_ELEM_READ || ins->op == OP_ELEM_WRITE) {
		/* one element of its ub tensor */
		_Static_assert(KD_SAME_POS(ELEM_READ_SRC, ELEM_WRITE_DST), "element ops take the tensor first");
		const KdBuffer *b = &f->buf[f->val[ins->args[ELEM_READ_SRC]].buf];
		by[b->space] += kd_dtypes[b->dt].size;
	} else if (kd_ascend_vec_repeat(ins->op) >= 0) {
		/* mask elements per repeat, in each tensor operand (every vector
		 * op takes the mask first: rules_ascend.c asserts it) */
		_Static_assert(KD_SAME_POS(VEC_DUP_MASK, VEC_ADD_MASK), "vec ops take mask first");
		int rep = kd_ascend_vec_repeat(ins->op);
		for (int t = 0; t < d->nparam; t++) {
			if (d->param[t].kind != PK_TENSOR)
				continue;
			const KdBuffer *b = &f->buf[f->val[ins->args[t]].buf];
			by[b->space] += mask_elems(w, f, ins->args[VEC_ADD_MASK]) *
			                kd_walk_int(w, f, ins->args[rep], 0) * kd_dtypes[b->dt].size;
		}
	}
}

const KdIrTarget kd_ir_target_ascend = {
	.bytes = bytes,
	.passes = KD_TPASS_FUSE_BURSTS | KD_TPASS_FORWARD,
};
