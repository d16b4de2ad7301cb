/* forward.c: staging-copy forwarding (pass forward).  A copy into a
 * staging buffer T (op1: T <- A) whose bytes are read only by one later
 * copy (op2: B <- T) becomes the direct copy B <- A where the target has
 * that op for those memories; op1 then writes a buffer nothing reads and
 * goes.  T's final content changes (it keeps whatever it held before),
 * but nothing in the kernel reads T, the same argument dead-moves rests
 * on.
 *
 *  - ascend: data_move T <- A, data_move B <- T with T in ub (seed 001
 *    Table 2 decides: ub A -> ub T -> ub B becomes ub->ub, gm -> ub -> ub
 *    becomes gm->ub, ub -> ub -> gm becomes ub->gm; gm -> ub -> gm stays,
 *    there is no gm->gm move).  op2 keeps its nburst, burst and dst
 *    stride; every burst it reads must lie inside one burst of op1, and
 *    the bursts of A they map to must be evenly stepped.
 *  - neuron: tensor_copy/tensor_copy becomes tensor_copy, load/tensor_copy
 *    becomes load, tensor_copy/store becomes store, where the op table
 *    lets the direct op name those memories and the dtypes allow it (a
 *    load or store does not convert; a copy chain converts once: A and T,
 *    or T and B, share a dtype).  load/store would be hbm->hbm: no op.
 *
 * It must not fire:
 *  - when an op other than op1 and op2 reads T anywhere in the kernel
 *    (an op naming T is allowed only as the dst of a plain write), or op2
 *    reads a byte of T that op1 did not write;
 *  - when an op between the two names A, T or B (kernel parameters may be
 *    one memory, and directly allocated neuron tiles may share bytes, so
 *    with such a buffer any op naming one stops it);
 *  - when the two copies are not in one block with constant operands
 *    (across blocks or loop trips the pairing is not proven), or the
 *    block is under a guard the rule checker cannot decide (the ops'
 *    rules are then checked at run time, on the ops as written);
 *  - when T is a kernel parameter or a directly allocated tile, A or B is
 *    T, or A and B are one buffer whose bytes (elements) read and written
 *    meet;
 *  - when the direct op would leave its ranges (a stride past 65535). */
#include <string.h>

#include "pass.h"
#include "rules.h"
#include "tile.h"

enum { BLK = KDSL_ASCEND_BLOCK };

/* The copies it pairs (data_move, and the neuron copies) all take (dst,
 * src) first. */
enum { DST = KD_COPY_DST, SRC = KD_COPY_SRC };
_Static_assert(KD_SAME_POS(DATA_MOVE_DST, DST) && KD_SAME_POS(DATA_MOVE_SRC, SRC),
               "data_move takes (dst, src) first");

typedef struct {
	KdModule *m;
	KdFunc *f;
} Fw;

/* ---- which ops name a buffer, and how ---- */

/* Does in name buffer a, t or b? */
static int touches(const KdFunc *f, const KdIns *in, const int bufs[3])
{
	int wide = 0;
	for (int j = 0; j < 3; j++)
		wide |= kd_buf_shared(&f->buf[bufs[j]]);
	for (int i = 0; i < in->nargs; i++) {
		const KdVal *x = &f->val[in->args[i]];
		if (x->type != VT_REF)
			continue;
		if (x->buf == bufs[0] || x->buf == bufs[1] || x->buf == bufs[2] ||
		    (wide && kd_buf_shared(&f->buf[x->buf])))
			return 1;
	}
	return 0;
}

/* A new pure op before position *pos of blk. */
static int add_before(Fw *w, int blk, int *pos, KdOp op, int n, const int *args, KdValType ty, int buf,
                      KdSpan sp)
{
	int i = kd_ins_add(w->m->arena, w->f, blk, op, n, args, NULL, sp);
	kd_ins_move_to(w->f, blk, i, (*pos)++);
	return kd_ins_result(w->m->arena, w->f, i, ty, w->f->buf[buf].dt, buf, NULL);
}

/* ---- ascend ---- */

typedef struct {
	int dbuf, sbuf;
	int64_t d, s;              /* byte offsets */
	int64_t sid, nb, bl, ss, ds;
} Move;

static int const_view(const KdFunc *f, int v, int *buf, int64_t *byte_off)
{
	const KdIns *d = kd_defins(f, v);
	int64_t c, k;
	if (!d || d->op != OP_VIEW || !kd_affine_in(f, d->args[0], -1, &c, &k))
		return 0;
	*buf = f->val[v].buf;
	return !__builtin_mul_overflow(c, (int64_t)kd_dtypes[f->buf[*buf].dt].size, byte_off);
}

static int move_of(const KdFunc *f, const KdIns *in, Move *m)
{
	return in->op == OP_DATA_MOVE && const_view(f, in->args[DATA_MOVE_DST], &m->dbuf, &m->d) &&
	       const_view(f, in->args[DATA_MOVE_SRC], &m->sbuf, &m->s) &&
	       kd_arg_legal(f, in, DATA_MOVE_SID, &m->sid) && kd_arg_legal(f, in, DATA_MOVE_NBURST, &m->nb) &&
	       kd_arg_legal(f, in, DATA_MOVE_BURST, &m->bl) &&
	       kd_arg_legal(f, in, DATA_MOVE_SRC_STRIDE, &m->ss) &&
	       kd_arg_legal(f, in, DATA_MOVE_DST_STRIDE, &m->ds);
}

static int64_t extent(int64_t nb, int64_t bl, int64_t stride)
{
	return ((nb - 1) * (bl + stride) + bl) * BLK;
}

/* The bytes of A that op2 (B <- T) reads through op1 (T <- A): burst j
 * at *a0 + j*(bl2 + *ss)*32.  0 when a burst of op2 is not inside one
 * burst of op1, or the bursts of A are not evenly stepped. */
static int compose(const Move *m1, const Move *m2, int64_t *a0, int64_t *ss)
{
	int64_t p1 = (m1->bl + m1->ds) * BLK;
	*ss = 0;
	for (int64_t j = 0; j < m2->nb; j++) {
		int64_t rel = m2->s + j * (m2->bl + m2->ss) * BLK - m1->d;
		if (rel < 0)
			return 0;
		int64_t k = rel / p1, in = rel % p1;
		if (k >= m1->nb || in + m2->bl * BLK > m1->bl * BLK)
			return 0;
		int64_t a = m1->s + k * (m1->bl + m1->ss) * BLK + in;
		if (j == 0) {
			*a0 = a;
		} else if (j == 1) {
			int64_t gap = a - *a0 - m2->bl * BLK;
			if (gap < 0 || gap % BLK || gap / BLK > KDSL_ASCEND_STRIDE_MAX)
				return 0;
			*ss = gap / BLK;
		} else if (a != *a0 + j * (m2->bl + *ss) * BLK) {
			return 0;
		}
	}
	return 1;
}

static int ascend_pair(Fw *w, int blk, int k1, int k2)
{
	KdFunc *f = w->f;
	int op1 = f->blk[blk]->insv[k1], op2 = f->blk[blk]->insv[k2];
	Move m1, m2;
	if (!move_of(f, &f->ins[op1], &m1) || !move_of(f, &f->ins[op2], &m2))
		return 0;
	int t = m1.dbuf, a = m1.sbuf, b = m2.dbuf;
	if (m2.sbuf != t || a == t || b == t || kd_buf_shared(&f->buf[t]) ||
	    !kd_ascend_move_pair_ok(f->buf[a].space, f->buf[b].space))
		return 0;
	int64_t a0 = 0, ss = 0;
	if (!compose(&m1, &m2, &a0, &ss))
		return 0;
	/* one buffer: the direct move must not read what it writes */
	if (a == b && !(a0 + extent(m2.nb, m2.bl, ss) <= m2.d || m2.d + extent(m2.nb, m2.bl, m2.ds) <= a0))
		return 0;
	int64_t esz = kd_dtypes[f->buf[a].dt].size;
	if (a0 % esz || kd_buf_read_elsewhere(f, t, (const int[]){op1, op2}, 2))
		return 0;
	int pos = k2;
	KdSpan sp = f->ins[op2].argspan ? f->ins[op2].argspan[DATA_MOVE_SRC] : f->ins[op2].span;
	int off = kd_val_const(w->m->arena, f, a0 / esz);
	int v = add_before(w, blk, &pos, OP_VIEW, 1, &off, VT_REF, a, sp);
	KdIns *in = &f->ins[op2];
	in->args[DATA_MOVE_SRC] = v;
	in->args[DATA_MOVE_SRC_STRIDE] = kd_val_const(w->m->arena, f, ss);
	kd_ins_unlink(f, op1);
	return 1;
}

/* ---- neuron ---- */

/* Do two views of one buffer share no element? */
static int disjoint(const KdConstView *x, const KdConstView *y)
{
	return x->a[TA_BLOCK] != y->a[TA_BLOCK] ||
	       x->a[TA_PSTART] + x->a[TA_NPART] <= y->a[TA_PSTART] ||
	       y->a[TA_PSTART] + y->a[TA_NPART] <= x->a[TA_PSTART] ||
	       x->a[TA_FOFF] + x->a[TA_NFREE] <= y->a[TA_FOFF] || y->a[TA_FOFF] + y->a[TA_NFREE] <= x->a[TA_FOFF];
}

static int copy_op(KdOp op)
{
	return op == OP_LOAD || op == OP_STORE || op == OP_TENSOR_COPY;
}

/* The op that copies A to B directly for the pair (op1, op2), or KD_NOP. */
static KdOp direct_op(const KdFunc *f, KdOp op1, KdOp op2, int a, int t, int b)
{
	KdOp op = op1 == OP_TENSOR_COPY && op2 == OP_TENSOR_COPY ? OP_TENSOR_COPY
	          : op1 == OP_LOAD && op2 == OP_TENSOR_COPY      ? OP_LOAD
	          : op1 == OP_TENSOR_COPY && op2 == OP_STORE     ? OP_STORE
	                                                         : KD_NOP;
	if (op == KD_NOP)
		return KD_NOP;
	const KdOpDesc *d = &kd_ops[op];
	KdDtype da = f->buf[a].dt, dt = f->buf[t].dt, db = f->buf[b].dt;
	if (!(d->param[DST].spaces & (1u << f->buf[b].space)) || !(d->param[SRC].spaces & (1u << f->buf[a].space)))
		return KD_NOP;
	/* a copy chain converts at most once; a converting load or store is
	 * left as written (LANGUAGE.md 7 lets them convert) */
	if (op == OP_TENSOR_COPY ? da != dt && dt != db : da != dt || dt != db)
		return KD_NOP;
	return op;
}

static int neuron_pair(Fw *w, int blk, int k1, int k2)
{
	KdFunc *f = w->f;
	int op1 = f->blk[blk]->insv[k1], op2 = f->blk[blk]->insv[k2];
	const KdIns *i1 = &f->ins[op1], *i2 = &f->ins[op2];
	KdConstView t1, a, b, t2;
	if (!copy_op(i1->op) || !copy_op(i2->op) || i1->nargs != KD_COPY_N || i2->nargs != KD_COPY_N ||
	    !kd_const_view(f, i1->args[DST], &t1) || !kd_const_view(f, i1->args[SRC], &a) || !kd_const_view(f, i2->args[DST], &b) ||
	    !kd_const_view(f, i2->args[SRC], &t2))
		return 0;
	int t = t1.buf;
	if (t2.buf != t || a.buf == t || b.buf == t || kd_buf_shared(&f->buf[t]) ||
	    (f->buf[a.buf].tile && f->buf[a.buf].tile->alloc != KD_ALLOC_AUTO) ||
	    (f->buf[b.buf].tile && f->buf[b.buf].tile->alloc != KD_ALLOC_AUTO))
		return 0;
	KdOp op = direct_op(f, i1->op, i2->op, a.buf, t, b.buf);
	if (op == KD_NOP)
		return 0;
	/* op2 reads only what op1 wrote: T2 inside T1 */
	int64_t dp = t2.a[TA_PSTART] - t1.a[TA_PSTART], df = t2.a[TA_FOFF] - t1.a[TA_FOFF];
	if (t2.a[TA_BLOCK] != t1.a[TA_BLOCK] || dp < 0 || df < 0 ||
	    dp + t2.a[TA_NPART] > t1.a[TA_NPART] || df + t2.a[TA_NFREE] > t1.a[TA_NFREE] ||
	    a.a[TA_NPART] != t1.a[TA_NPART] || a.a[TA_NFREE] != t1.a[TA_NFREE] ||
	    kd_buf_read_elsewhere(f, t, (const int[]){op1, op2}, 2))
		return 0;
	KdConstView n = a;
	n.a[TA_PSTART] += dp;
	n.a[TA_FOFF] += df;
	n.a[TA_NPART] = t2.a[TA_NPART];
	n.a[TA_NFREE] = t2.a[TA_NFREE];
	/* one buffer: the direct copy must not read what it writes */
	if (a.buf == b.buf && !disjoint(&n, &b))
		return 0;
	int args[TA_N], pos = k2;
	for (int i = 0; i < TA_N; i++)
		args[i] = kd_val_const(w->m->arena, f, n.a[i]);
	KdSpan sp = i2->argspan ? i2->argspan[SRC] : i2->span;
	int v = add_before(w, blk, &pos, OP_TILE, TA_N, args, VT_REF, a.buf, sp);
	KdIns *in = &f->ins[op2];
	in->op = op;
	in->args[SRC] = v;
	kd_ins_unlink(f, op1);
	return 1;
}

/* ---- the pairs of a block ---- */

static int dst_src(const KdFunc *f, const KdIns *in, int bufs[2])
{
	if (in->nargs < 2 || f->val[in->args[DST]].type != VT_REF || f->val[in->args[SRC]].type != VT_REF)
		return 0;
	bufs[0] = f->val[in->args[DST]].buf;
	bufs[1] = f->val[in->args[SRC]].buf;
	return 1;
}

/* No op between positions k1 and k2 names A, T or B. */
static int between_clear(const KdFunc *f, int blk, int k1, int k2)
{
	const KdBlock *bl = f->blk[blk];
	const KdIns *i1 = &f->ins[bl->insv[k1]], *i2 = &f->ins[bl->insv[k2]];
	int bufs[3] = {f->val[i1->args[SRC]].buf, f->val[i1->args[DST]].buf, f->val[i2->args[DST]].buf};
	for (int k = k1 + 1; k < k2; k++) {
		const KdIns *in = &f->ins[bl->insv[k]];
		if (kd_ops[in->op].kind != OK_PURE && touches(f, in, bufs))
			return 0;
	}
	return 1;
}

static int block(Fw *w, int blk)
{
	KdFunc *f = w->f;
	const KdBlock *bl = f->blk[blk];
	for (int k = 0; k < bl->nins; k++) {
		const KdIns *i1 = &f->ins[bl->insv[k]];
		/* the op says whose rules pair it: data_move ascend's, the copies neuron's */
		int asc = i1->op == OP_DATA_MOVE;
		int b1[2];
		if ((!asc && !copy_op(i1->op)) || !dst_src(f, i1, b1))
			continue;
		int bufs[3] = {b1[1], b1[0], b1[0]};
		for (int n = k + 1; n < bl->nins; n++) {
			const KdIns *i2 = &f->ins[bl->insv[n]];
			int b2[2];
			if (kd_ops[i2->op].kind == OK_PURE)
				continue;
			if ((asc ? i2->op == OP_DATA_MOVE : copy_op(i2->op)) && dst_src(f, i2, b2) && b2[1] == b1[0]) {
				/* the first op after op1 that reads T is the only candidate */
				if (between_clear(f, blk, k, n) &&
				    (asc ? ascend_pair(w, blk, k, n) : neuron_pair(w, blk, k, n)))
					return 1;
				break;
			}
			if (kd_ops[i2->op].kind != OK_EFFECT || touches(f, i2, bufs))
				break;
		}
	}
	return 0;
}

/* A block's pairs, as kd_pass_rewrite_proven calls it. */
static int block_of(KdModule *m, KdFunc *f, int blk)
{
	Fw w = {.m = m, .f = f};
	return block(&w, blk);
}

int kd_pass_forward(KdModule *m)
{
	return kd_pass_rewrite_module(m, block_of);
}
