/* fuse_bursts.c: burst fusion for ascend data_move (pass fuse-bursts).
 *
 * A data_move is a sequence of nburst bursts of `burst` 32-byte blocks,
 * burst k at src + k*(burst+src_stride)*32 and dst + k*(burst+dst_stride)*32.
 * Two moves whose sequences continue each other become one move, and a
 * loop whose body is one move with addresses affine in the induction
 * variable becomes one strided move (or a few, when nburst would pass
 * 4095).  Moves with both strides 0 are one contiguous span: they become
 * a single burst when it fits 65535 blocks.
 *
 * It must not fire when the result would change what memory holds:
 *  - src and dst in the same buffer (ub->ub), unless every byte read is
 *    outside every byte written (the runtime and the device move burst by
 *    burst, so overlapping bursts depend on the order): this holds for
 *    a single move's bursts becoming one burst as for a fused pair;
 *  - across an op that touches a buffer the moves use (two gm kernel
 *    parameters may be the same memory, so gm against gm counts);
 *  - on moves under a guard the rule checker cannot decide (their rules
 *    are checked at run time, move by move);
 *  - when an operand is not a constant (or, in a loop, not affine in the
 *    induction variable), or the fused strides or counts leave the
 *    table's ranges (a loop is split into moves of at most 4095 bursts;
 *    a stride cannot be split, so then nothing fires). */
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "rules.h"

enum { BLK = KDSL_ASCEND_BLOCK };

/* Offset terms of enclosing loops: bytes per unit of their induction
 * variable (the fused move recomputes them before the loop). */
typedef struct {
	int n;
	int iv[8];
	int64_t k[8];
} Outer;

typedef struct {
	int dbuf, sbuf;
	int64_t d, s;             /* byte offsets of burst 0 (outer ivs at 0) */
	int64_t dk, sk;           /* bytes added per loop trip */
	Outer dout, sout;
	int64_t sid, nb, bl, ss, ds;
} Move;

typedef struct {
	KdArena *a;
	KdFunc *f;
	KdCfg cfg;
	char *proven;             /* per block: kd_pass_proven */
} Fuse;

/* The byte offset of view v: c + k*trip of loop_blk + the outer terms
 * (only when loop_blk >= 0: straight-line fusion wants constants). */
static int ref_off(const KdFunc *f, int v, int loop_blk, int64_t *c, int64_t *k, Outer *o, int *buf)
{
	const KdVal *x = &f->val[v];
	if (x->kind != VK_INS || f->ins[x->def].op != OP_VIEW)
		return 0;
	int64_t sz = kd_dtypes[f->buf[x->buf].dt].size;
	int n, blk[8];
	int64_t kk[8];
	if (!kd_affine_terms(f, f->ins[x->def].args[0], c, &n, blk, kk))
		return 0;
	*k = 0;
	o->n = 0;
	for (int i = 0; i < n; i++) {
		const KdLoop *l = f->blk[blk[i]]->loop;
		if (blk[i] == loop_blk) {
			*k = kk[i];
			continue;
		}
		/* k*trip == (k/step)*(iv - lo) */
		if (loop_blk < 0 || kk[i] % l->step)
			return 0;
		int64_t per = kk[i] / l->step, lo = f->val[l->lo].c, t;
		if (__builtin_mul_overflow(per, lo, &t) || __builtin_sub_overflow(*c, t, c) ||
		    __builtin_mul_overflow(per, sz, &o->k[o->n]))
			return 0;
		o->iv[o->n++] = l->iv;
	}
	if (__builtin_mul_overflow(*c, sz, c) || __builtin_mul_overflow(*k, sz, k))
		return 0;
	*buf = x->buf;
	return 1;
}

/* The move ins as a burst sequence; loop_blk >= 0 lets the addresses
 * step with that loop. */
static int move_of(const KdFunc *f, const KdIns *in, int loop_blk, Move *m)
{
	if (in->op != OP_DATA_MOVE)
		return 0;
	memset(m, 0, sizeof *m);
	if (!ref_off(f, in->args[DATA_MOVE_DST], loop_blk, &m->d, &m->dk, &m->dout, &m->dbuf) ||
	    !ref_off(f, in->args[DATA_MOVE_SRC], loop_blk, &m->s, &m->sk, &m->sout, &m->sbuf))
		return 0;
	return kd_arg_legal(f, in, DATA_MOVE_SID, &m->sid) && kd_arg_legal(f, in, DATA_MOVE_NBURST, &m->nb) &&
	       kd_arg_legal(f, in, DATA_MOVE_BURST, &m->bl) &&
	       kd_arg_legal(f, in, DATA_MOVE_SRC_STRIDE, &m->ss) &&
	       kd_arg_legal(f, in, DATA_MOVE_DST_STRIDE, &m->ds);
}

static int64_t extent(int64_t nb, int64_t bl, int64_t stride)
{
	return ((nb - 1) * (bl + stride) + bl) * BLK;
}

/* Same buffer: the bytes read and the bytes written must not meet. */
static int alias_safe(const KdFunc *f, const Move *m)
{
	if (m->dbuf != m->sbuf)
		return f->buf[m->dbuf].space != KD_SP_GM || f->buf[m->sbuf].space != KD_SP_GM;
	if (m->dout.n || m->sout.n)
		return 0;
	return m->s + extent(m->nb, m->bl, m->ss) <= m->d || m->d + extent(m->nb, m->bl, m->ds) <= m->s;
}

/* The stride that makes a burst at `next` follow nb bursts from `base`:
 * fixed by a side that already has several bursts. */
static int stride_for(int64_t base, int64_t anb, int64_t astr, int64_t next, int64_t bnb, int64_t bstr,
                      int64_t bl, int64_t *out)
{
	int64_t st;
	if (anb > 1)
		st = astr;
	else if (bnb > 1)
		st = bstr;
	else {
		int64_t gap = next - base - bl * BLK;
		if (gap < 0 || gap % BLK)
			return 0;
		st = gap / BLK;
	}
	if (st > KDSL_ASCEND_STRIDE_MAX || (bnb > 1 && bstr != st))
		return 0;
	*out = st;
	return next == base + anb * (bl + st) * BLK;
}

static int contiguous(const Move *m)
{
	return m->nb == 1 || (!m->ss && !m->ds);
}

/* a followed by b as one move. */
static int join(const KdFunc *f, const Move *a, const Move *b, Move *out)
{
	if (a->dbuf != b->dbuf || a->sbuf != b->sbuf || a->sid != b->sid)
		return 0;
	/* two spans, end to start on both sides: one span */
	int64_t la = a->nb * a->bl, lb = b->nb * b->bl;
	if (contiguous(a) && contiguous(b) && la + lb <= KDSL_ASCEND_BURST_MAX && b->s == a->s + la * BLK &&
	    b->d == a->d + la * BLK) {
		*out = *a;
		out->nb = 1;
		out->bl = la + lb;
		out->ss = out->ds = 0;
		return alias_safe(f, out);
	}
	if (a->bl != b->bl || a->nb + b->nb > KDSL_ASCEND_NBURST_MAX)
		return 0;
	*out = *a;
	out->nb = a->nb + b->nb;
	if (!stride_for(a->s, a->nb, a->ss, b->s, b->nb, b->ss, a->bl, &out->ss) ||
	    !stride_for(a->d, a->nb, a->ds, b->d, b->nb, b->ds, a->bl, &out->ds))
		return 0;
	return alias_safe(f, out);
}

static int may_alias(const KdFunc *f, int x, int y)
{
	return x == y || (f->buf[x].space == KD_SP_GM && f->buf[y].space == KD_SP_GM);
}

/* Does ins touch a buffer m uses? */
static int touches(const KdFunc *f, const KdIns *in, const Move *m)
{
	for (int i = 0; i < in->nargs; i++) {
		const KdVal *x = &f->val[in->args[i]];
		if (x->type == VT_REF && (may_alias(f, x->buf, m->dbuf) || may_alias(f, x->buf, m->sbuf)))
			return 1;
	}
	return 0;
}

static int cst(Fuse *u, int64_t c)
{
	return kd_val_const(u->a, u->f, c);
}

/* Appends a pure op to blk at *pos. */
static int arith(Fuse *u, int blk, int *pos, KdOp op, int x, int y, KdSpan sp)
{
	int args[2] = {x, y};
	int i = kd_ins_add(u->a, u->f, blk, op, 2, args, NULL, sp);
	kd_ins_move_to(u->f, blk, i, (*pos)++);
	return kd_ins_result(u->a, u->f, i, VT_INT, KD_I64, -1, NULL);
}

/* A view of buf at byte_off + the outer terms, appended to blk at *pos. */
static int view(Fuse *u, int blk, int *pos, int buf, int64_t byte_off, const Outer *o, KdSpan sp)
{
	int64_t sz = kd_dtypes[u->f->buf[buf].dt].size;
	int off = cst(u, byte_off / sz);
	for (int t = 0; t < o->n; t++) {
		int prod = arith(u, blk, pos, OP_MUL, o->iv[t], cst(u, o->k[t] / sz), sp);
		off = arith(u, blk, pos, OP_ADD, off, prod, sp);
	}
	int i = kd_ins_add(u->a, u->f, blk, OP_VIEW, 1, &off, &sp, sp);
	kd_ins_move_to(u->f, blk, i, (*pos)++);
	return kd_ins_result(u->a, u->f, i, VT_REF, u->f->buf[buf].dt, buf, NULL);
}

/* Appends moves equivalent to m to block blk (before its terminator at
 * position `pos`, which advances); one per 4095 bursts. */
static void emit_moves(Fuse *u, int blk, int *pos, Move m, int proto)
{
	if (!m.ss && !m.ds && m.nb * m.bl <= KDSL_ASCEND_BURST_MAX) {
		m.bl *= m.nb;
		m.nb = 1;
	}
	if (m.nb == 1)
		m.ss = m.ds = 0;
	for (int64_t done = 0; done < m.nb;) {
		int64_t n = m.nb - done < KDSL_ASCEND_NBURST_MAX ? m.nb - done : KDSL_ASCEND_NBURST_MAX;
		KdSpan sp = u->f->ins[proto].span;
		KdSpan asp[DATA_MOVE_NPARAM];
		memcpy(asp, u->f->ins[proto].argspan, sizeof asp);
		int dv = view(u, blk, pos, m.dbuf, m.d + done * (m.bl + m.ds) * BLK, &m.dout, asp[DATA_MOVE_DST]);
		int sv = view(u, blk, pos, m.sbuf, m.s + done * (m.bl + m.ss) * BLK, &m.sout, asp[DATA_MOVE_SRC]);
		int args[DATA_MOVE_NPARAM] = {
			[DATA_MOVE_DST] = dv,
			[DATA_MOVE_SRC] = sv,
			[DATA_MOVE_SID] = cst(u, m.sid),
			[DATA_MOVE_NBURST] = cst(u, n),
			[DATA_MOVE_BURST] = cst(u, m.bl),
			[DATA_MOVE_SRC_STRIDE] = cst(u, n > 1 ? m.ss : 0),
			[DATA_MOVE_DST_STRIDE] = cst(u, n > 1 ? m.ds : 0),
		};
		int i = kd_ins_add(u->a, u->f, blk, OP_DATA_MOVE, DATA_MOVE_NPARAM, args, asp, sp);
		kd_ins_move_to(u->f, blk, i, (*pos)++);
		done += n;
	}
}

/* Replaces ins id (in its block) by the moves of m. */
static void replace(Fuse *u, int id, const Move *m)
{
	int blk = u->f->ins[id].blk, pos = 0;
	const KdBlock *b = u->f->blk[blk];
	while (b->insv[pos] != id)
		pos++;
	emit_moves(u, blk, &pos, *m, id);
	kd_ins_unlink(u->f, id);
}

/* The first straight-line rewrite in a block (a move made one burst, or
 * a pair of moves made one). */
static int fuse_first(Fuse *u, int blk)
{
	KdFunc *f = u->f;
	const KdBlock *b = f->blk[blk];
	for (int k = 0; k < b->nins; k++) {
		Move a, c, j;
		int ia = b->insv[k];
		if (!move_of(f, &f->ins[ia], -1, &a))
			continue;
		/* a single move: contiguous bursts become one burst, unless
		 * within one buffer it may read what it writes (the bursts
		 * then see their predecessors' bytes; one burst would not) */
		if (a.nb > 1 && !a.ss && !a.ds && a.nb * a.bl <= KDSL_ASCEND_BURST_MAX && alias_safe(f, &a)) {
			replace(u, ia, &a);
			return 1;
		}
		for (int n = k + 1; n < b->nins; n++) {
			const KdIns *in = &f->ins[b->insv[n]];
			if (kd_ops[in->op].kind == OK_PURE)
				continue;
			if (move_of(f, in, -1, &c) && join(f, &a, &c, &j)) {
				int ib = b->insv[n];
				kd_ins_unlink(f, ia);
				replace(u, ib, &j);
				return 1;
			}
			if (kd_ops[in->op].kind != OK_EFFECT || touches(f, in, &a))
				break;
		}
	}
	return 0;
}

/* Every straight-line rewrite in a block; how many.  After each the block
 * is scanned again from its start (a fused move may join an earlier
 * one): quadratic only in a block's own fusions, not the function's. */
static int fuse_block(Fuse *u, int blk)
{
	int n = 0;
	if (blk < 0)
		return 0;
	while (fuse_first(u, blk))
		n++;
	return n;
}

static int want_move(const KdIns *in)
{
	return in->op == OP_DATA_MOVE;
}

/* A loop headed by h whose body is a chain of blocks holding one
 * data_move and pure ops becomes strided moves at the end of its
 * preheader, *pre. */
static int fuse_loop(Fuse *u, int h, int *pre_out)
{
	KdFunc *f = u->f;
	KdCountedLoop cl;
	if (!kd_counted_loop(f, &u->cfg, h, want_move, &cl) || !u->proven[f->ins[cl.op].blk])
		return 0;
	int64_t n = cl.trips;
	int mv = cl.op, pre = cl.pre, exitb = cl.exitb;
	*pre_out = pre;
	Move m;
	if (!move_of(f, &f->ins[mv], h, &m))
		return 0;
	/* Trip t's bursts must continue trip t-1's. */
	int64_t tot;
	if (m.nb > 1) {
		if (m.sk != m.nb * (m.bl + m.ss) * BLK || m.dk != m.nb * (m.bl + m.ds) * BLK)
			return 0;
	} else {
		if (m.sk < m.bl * BLK || m.dk < m.bl * BLK || m.sk % BLK || m.dk % BLK)
			return 0;
		m.ss = m.sk / BLK - m.bl;
		m.ds = m.dk / BLK - m.bl;
		if (m.ss > KDSL_ASCEND_STRIDE_MAX || m.ds > KDSL_ASCEND_STRIDE_MAX)
			return 0;
	}
	if (__builtin_mul_overflow(m.nb, n, &tot))
		return 0;
	m.nb = tot;
	if (!alias_safe(f, &m))
		return 0;
	/* Moves at the end of the preheader, which then jumps past the loop. */
	int pos = f->blk[pre]->nins - 1;
	emit_moves(u, pre, &pos, m, mv);
	kd_loop_skip(f, pre, exitb);
	kd_ins_unlink(f, mv);
	return 1;
}

/* One round: every reachable block's straight-line pairs, then its loop
 * (and the preheader again, where the loop's moves now are), on one
 * analysis (loops.c says why that is sound).  Rounds repeat while they
 * rewrite: a fused inner loop can leave its outer loop fusable. */
int kd_pass_fuse_bursts(KdModule *m)
{
	int total = 0;
	for (int fi = 0; fi < m->nfn; fi++) {
		Fuse u = {.a = m->arena, .f = m->fn[fi]};
		for (int changed = 1; changed;) {
			changed = 0;
			kd_cfg_analyse(&u.cfg, u.f);
			u.proven = calloc((size_t)u.f->nblk + 1, 1);
			kd_pass_proven(m, u.f, u.proven);
			for (int b = 0; b < u.f->nblk; b++) {
				if (!u.cfg.reach[b])
					continue;
				int pre = -1;
				if (u.proven[b])
					changed += fuse_block(&u, b);
				if (fuse_loop(&u, b, &pre))
					changed += 1 + (u.proven[pre] ? fuse_block(&u, pre) : 0);
			}
			free(u.proven);
			total += changed;
		}
		kd_cfg_free(&u.cfg);
	}
	return total;
}
