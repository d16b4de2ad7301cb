/* canon.c: canonicalisation and folding (pass canon).  Every rewrite
 * replaces a value by one it provably equals, or removes an op that
 * provably changes nothing; dce then sweeps what became unused.
 *
 *  - scalar folding: integer and bool ops on constants, to the value
 *    generated C computes (util/ieval.h: 64-bit arithmetic wraps); not
 *    div, rem or shifts, whose run-time checks stay in the C;
 *  - copy propagation: a block parameter that every jump passes the same
 *    value (or itself) is that value (a loop's induction variable stays);
 *  - aipu permutation algebra on the pure vector ops: vrevs(vrevs(x)) = x;
 *    vshfl(vshfl(x, a), b) = vshfl(x, a + b mod L), vshfl(x, 0) = x
 *    (constant non-negative shifts only); vsel with a constant all-true
 *    mask = x, all-false = y (only when that operand is a vector of the
 *    result's type, not a broadcast scalar); vsplit(vconcat(x, y), i) = x
 *    or y for native x and y; vconcat(lo, hi) of the two halves of
 *    vsplit(x) = x; vconcat(vzip(x, y, low), vzip(x, y, high)) = vzip(x, y);
 *  - neuron: an nc_stream_shuffle that leaves dst as it was is removed:
 *    every entry 255, or in place (dst the very tile src is) with every
 *    entry i -> i or 255.  Not when dst is another tile: i -> i then
 *    copies partition i.  Only with constant tile views (so the rule
 *    checker proved the op in bounds and removing it cannot hide a
 *    run-time error);
 *  - a tensor_copy_predicated with a constant predicate (the instruction
 *    mask, or a predicate tile a memset just filled) becomes nothing or a
 *    tensor_copy (see predicated);
 *  - two nc_stream_shuffles compose into one when the intermediate tile is
 *    read by nothing else (see compose_shuffles for when it must not). */
#include <string.h>

#include "pass.h"
#include "uses.h"
#include "dom.h"
#include "tile.h"
#include "walk.h"

/* The worklist holds instruction ids and, as -1 - v, block parameters v
 * to look at again; an entry may repeat (looking twice is harmless). */
typedef struct {
	KdArena *a;        /* the module's: new values and instructions */
	KdArena *tmp;      /* this run's index and worklist */
	KdFunc *f;
	KdUses *uses;
	KdDom dom;         /* for its predecessor lists */
	int *work;
	int head, nwork, capwork;
} Canon;

static void push(Canon *u, int item)
{
	if (u->nwork == u->capwork) {
		int cap = u->capwork ? 2 * u->capwork : 256;
		int *w = kd_alloc(u->tmp, (size_t)cap * sizeof *w);
		/* the first push has no work array (memcpy's NULL is undefined even for 0 bytes) */
		if (u->nwork > u->head)
			memcpy(w, u->work + u->head, (size_t)(u->nwork - u->head) * sizeof *w);
		u->nwork -= u->head;
		u->head = 0;
		u->work = w;
		u->capwork = cap;
	}
	u->work[u->nwork++] = item;
}

/* An instruction whose operands changed: it may fold now, and when it
 * jumps, the parameters it passes may have become copies. */
static void touched(void *ctx, int ins)
{
	Canon *u = ctx;
	const KdIns *in = &u->f->ins[ins];
	push(u, ins);
	for (int s = 0; s < in->nsucc; s++) {
		const KdBlock *b = u->f->blk[in->succ[s].blk];
		for (int p = 0; p < b->nparam; p++)
			push(u, -1 - b->params[p]);
	}
}

/* Every use of `from` becomes `to`, and what used it is looked at again. */
static void replace_uses(Canon *u, int from, int to)
{
	kd_uses_replace(u->uses, u->f, from, to, touched, u);
}

static int is_int(const KdFunc *f, int v, int64_t *c)
{
	const KdVal *x = &f->val[v];
	if (x->kind != VK_CONST || (x->type != VT_INT && x->type != VT_BOOL))
		return 0;
	*c = x->c;
	return 1;
}

static int fold(Canon *u, const KdIns *in)
{
	KdFunc *f = u->f;
	int64_t x, y = 0, r;
	if (in->res < 0 || !(kd_ops[in->op].flags & KD_OPF_ARITH) || in->op == OP_DIV || in->op == OP_REM ||
	    in->op == OP_SHL || in->op == OP_SHR || !in->nargs || !is_int(f, in->args[0], &x) ||
	    (in->nargs > 1 && !is_int(f, in->args[1], &y)) || !kd_eval_op(in->op, x, y, &r))
		return 0;
	const KdVal *res = &f->val[in->res];
	int c;
	if (res->type == VT_BOOL)
		c = kd_val_bool(u->a, f, r != 0);
	else if (res->type == VT_INT && (!res->dt || res->dt == KD_I64))
		c = kd_val_const(u->a, f, r);
	else
		return 0;      /* a narrower dtype: its wrapping is the emitter's */
	replace_uses(u, in->res, c);
	return 1;
}

/* One value: the same id, or equal integer or bool constants. */
static int same_value(const KdFunc *f, int a, int b)
{
	const KdVal *x = &f->val[a], *y = &f->val[b];
	return a == b || (x->kind == VK_CONST && y->kind == VK_CONST && x->type == y->type && x->c == y->c &&
	                  x->type != VT_FLOAT);
}

/* Block parameter v (not a loop's induction variable) that every jump
 * passes one value (or v itself) is that value. */
static int copy_param(Canon *u, int v)
{
	KdFunc *f = u->f;
	const KdVal *x = &f->val[v];
	if (x->kind != VK_BARG)
		return 0;
	int b = x->def, p = 0, same = -1;
	const KdBlock *bl = f->blk[b];
	while (p < bl->nparam && bl->params[p] != v)
		p++;
	if (p == bl->nparam || (bl->loop && bl->loop->iv == v))
		return 0;
	for (int e = u->dom.pstart[b]; e < u->dom.pstart[b + 1]; e++) {
		const KdBlock *pb = f->blk[u->dom.plist[e]];
		const KdIns *t = &f->ins[pb->insv[pb->nins - 1]];
		for (int s = 0; s < t->nsucc; s++) {
			const KdSucc *sc = &t->succ[s];
			if (sc->blk != b || sc->args[p] == v)
				continue;
			if (same < 0)
				same = sc->args[p];
			else if (!same_value(f, same, sc->args[p]))
				return 0;
		}
	}
	if (same < 0 || !kd_uses_live(u->uses, f, v))
		return 0;
	replace_uses(u, v, same);
	return 1;
}

static const KdIns *def(const KdFunc *f, int v, KdOp op)
{
	const KdIns *d = kd_defins(f, v);
	return d && d->op == op ? d : NULL;
}

static int same_vec(const KdFunc *f, int a, int b)
{
	const KdVal *x = &f->val[a], *y = &f->val[b];
	return (x->type == VT_VEC || x->type == VT_MASK) && x->type == y->type && x->dt == y->dt &&
	       x->lanes == y->lanes;
}

/* Mask literal: 1 all true, 0 all false, -1 neither or not constant. */
static int mask_all(const KdFunc *f, int v)
{
	const KdIns *m = def(f, v, OP_VMASKLIT);
	int t = 0, fl = 0;
	int64_t c;
	if (!m || !m->nargs)
		return -1;
	for (int i = 0; i < m->nargs; i++) {
		if (!is_int(f, m->args[i], &c))
			return -1;
		t += c != 0;
		fl += c == 0;
	}
	return t == m->nargs ? 1 : fl == m->nargs ? 0 : -1;
}

static int aipu(Canon *u, KdIns *in)
{
	KdFunc *f = u->f;
	const KdIns *d;
	int64_t a, b;
	if (in->res < 0)
		return 0;
	int res = in->res, to = -1;
	switch (in->op) {
	case OP_VREVS:
		if ((d = def(f, in->args[VREVS_X], OP_VREVS)) && same_vec(f, d->args[VREVS_X], res))
			to = d->args[VREVS_X];
		break;
	case OP_VSHFL: {
		int lanes = f->val[res].lanes;
		if (!is_int(f, in->args[VSHFL_SHIFT], &b) || b < 0 || lanes <= 0)
			break;
		if ((d = def(f, in->args[VSHFL_X], OP_VSHFL)) && is_int(f, d->args[VSHFL_SHIFT], &a) && a >= 0 &&
		    same_vec(f, d->args[VSHFL_X], res)) {
			in->args[VSHFL_X] = d->args[VSHFL_X];
			in->args[VSHFL_SHIFT] = kd_val_const(u->a, f, (a % lanes + b % lanes) % lanes);
			int id = (int)(in - f->ins);
			kd_uses_add_ins(u->uses, f, id);
			push(u, id);
			return 1;
		}
		if (b % lanes == 0 && same_vec(f, in->args[VSHFL_X], res))
			to = in->args[VSHFL_X];
		break;
	}
	case OP_VSEL: {
		int m = in->nargs == VSEL_NPARAM ? mask_all(f, in->args[VSEL_MASK]) : -1;
		int pick = m ? VSEL_X : VSEL_Y;
		if (m >= 0 && same_vec(f, in->args[pick], res))
			to = in->args[pick];
		break;
	}
	case OP_VSPLIT:
		/* part i of vconcat(x, y, all), x and y native: x or y */
		if ((d = def(f, in->args[VSPLIT_IR_X], OP_VCONCAT)) && is_int(f, d->args[VCONCAT_PART], &a) &&
		    a == 0 && in->nargs > VSPLIT_IR_PART && is_int(f, in->args[VSPLIT_IR_PART], &b) &&
		    (b == 0 || b == 1) && same_vec(f, d->args[VCONCAT_X], res) &&
		    same_vec(f, d->args[VCONCAT_Y], res))
			to = d->args[b ? VCONCAT_Y : VCONCAT_X];
		break;
	case OP_VCONCAT: {
		const KdIns *zl = def(f, in->args[VCONCAT_X], OP_VZIP), *zh = def(f, in->args[VCONCAT_Y], OP_VZIP);
		/* vconcat(vzip(x, y, low), vzip(x, y, high)) = vzip(x, y) */
		if (is_int(f, in->args[VCONCAT_PART], &a) && a == 0 && zl && zh &&
		    zl->args[VZIP_X] == zh->args[VZIP_X] && zl->args[VZIP_Y] == zh->args[VZIP_Y] &&
		    is_int(f, zl->args[VZIP_PART], &a) && a == 1 && is_int(f, zh->args[VZIP_PART], &b) &&
		    b == 2 && f->val[res].type == VT_VEC) {
			int args[VZIP_NPARAM] = {[VZIP_X] = zl->args[VZIP_X], [VZIP_Y] = zl->args[VZIP_Y],
			                         [VZIP_PART] = kd_val_const(u->a, f, 0)};
			int blk = in->blk, pos = 0, id = (int)(in - f->ins);
			KdSpan sp = in->span;
			while (f->blk[blk]->insv[pos] != id)
				pos++;
			int ni = kd_ins_add(u->a, f, blk, OP_VZIP, VZIP_NPARAM, args, NULL, sp);
			kd_ins_move_to(f, blk, ni, pos);
			kd_uses_add_ins(u->uses, f, ni);
			int nv = kd_ins_result(u->a, f, ni, VT_VEC, f->val[res].dt, -1, NULL);
			f->val[nv].lanes = f->val[res].lanes;
			to = nv;
			break;
		}
		const KdIns *lo = def(f, in->args[VCONCAT_X], OP_VSPLIT), *hi = def(f, in->args[VCONCAT_Y], OP_VSPLIT);
		if (is_int(f, in->args[VCONCAT_PART], &a) && a == 0 && lo && hi &&
		    lo->args[VSPLIT_IR_X] == hi->args[VSPLIT_IR_X] && lo->nargs > VSPLIT_IR_PART &&
		    is_int(f, lo->args[VSPLIT_IR_PART], &a) && a == 0 &&
		    is_int(f, hi->args[VSPLIT_IR_PART], &b) && b == 1 && same_vec(f, lo->args[VSPLIT_IR_X], res))
			to = lo->args[VSPLIT_IR_X];
		break;
	}
	default:
		break;   /* the algebra above knows these ops; any other stays as it is */
	}
	if (to < 0)
		return 0;
	replace_uses(u, res, to);
	return 1;
}

static int const_tile(const KdFunc *f, int v)
{
	const KdIns *t = def(f, v, OP_TILE);
	if (!t)
		return 0;
	for (int i = 0; i < t->nargs; i++)
		if (f->val[t->args[i]].kind != VK_CONST)
			return 0;
	return 1;
}

static int same_tile(const KdFunc *f, int x, int y)
{
	if (x == y)
		return 1;
	const KdIns *a = def(f, x, OP_TILE), *b = def(f, y, OP_TILE);
	if (!a || !b || f->val[x].buf != f->val[y].buf || a->nargs != b->nargs)
		return 0;
	for (int i = 0; i < a->nargs; i++)
		if (f->val[a->args[i]].c != f->val[b->args[i]].c)
			return 0;
	return 1;
}

/* An nc_stream_shuffle that leaves dst unchanged. */
static int noop_shuffle(const KdFunc *f, const KdIns *in)
{
	if (in->op != OP_NC_STREAM_SHUFFLE || !const_tile(f, in->args[NC_STREAM_SHUFFLE_DST]) ||
	    !const_tile(f, in->args[NC_STREAM_SHUFFLE_SRC]))
		return 0;
	const KdIns *m = def(f, in->args[NC_STREAM_SHUFFLE_SHUFFLE_MASK], OP_LIST);
	if (!m)
		return 0;
	int inplace = same_tile(f, in->args[NC_STREAM_SHUFFLE_DST], in->args[NC_STREAM_SHUFFLE_SRC]);
	for (int i = 0; i < m->nargs; i++) {
		int64_t e;
		if (!is_int(f, m->args[i], &e) || (e != KDSL_NEURON_SHUFFLE_KEEP && !(inplace && e == i)))
			return 0;
	}
	return 1;
}

static int tile_geom_eq(const KdFunc *f, int x, int y)
{
	const KdIns *a = def(f, x, OP_TILE), *b = def(f, y, OP_TILE);
	return a && b && f->val[a->args[TA_NPART]].c == f->val[b->args[TA_NPART]].c &&
	       f->val[a->args[TA_NFREE]].c == f->val[b->args[TA_NFREE]].c;
}

/* shuffle(D, T, m2) after shuffle(T, S, m1), T an automatically placed
 * tile nothing else reads, S, T and D three buffers of one geometry, and
 * no op between touching any of them: one
 * shuffle(D, S, c) with c[i] = m2[i] == 255 ? 255 : m1[m2[i]].  Not when
 * some m1[m2[i]] is 255: D would get T's old partition, which S lacks. */
static int compose_shuffles(Canon *u, int blk, int k)
{
	KdFunc *f = u->f;
	const KdBlock *bl = f->blk[blk];
	KdIns *s2 = &f->ins[bl->insv[k]];
	if (s2->op != OP_NC_STREAM_SHUFFLE)
		return 0;
	int d = s2->args[NC_STREAM_SHUFFLE_DST], t = s2->args[NC_STREAM_SHUFFLE_SRC], tb = f->val[t].buf;
	const KdBuffer *tbuf = &f->buf[tb];
	if (tbuf->param >= 0 || (tbuf->tile && tbuf->tile->alloc != KD_ALLOC_AUTO) ||
	    f->val[d].buf == tb || !const_tile(f, d) || !const_tile(f, t))
		return 0;
	/* nothing but s2 and s1 reads T */
	int j = k - 1;
	for (; j >= 0; j--) {
		const KdIns *in = &f->ins[bl->insv[j]];
		if (kd_ops[in->op].kind == OK_PURE)
			continue;
		if (in->op == OP_NC_STREAM_SHUFFLE && same_tile(f, in->args[NC_STREAM_SHUFFLE_DST], t))
			break;
		if (kd_ins_names_buf(f, in, tb) || kd_ins_names_buf(f, in, f->val[d].buf))
			return 0;
	}
	if (j < 0)
		return 0;
	int s1id = bl->insv[j];
	const KdIns *s1 = &f->ins[s1id];
	int src = s1->args[NC_STREAM_SHUFFLE_SRC], sb = f->val[src].buf;
	if (sb == tb || sb == f->val[d].buf || !const_tile(f, src) || !tile_geom_eq(f, src, t) || !tile_geom_eq(f, d, t))
		return 0;
	for (int q = j + 1; q < k; q++)
		if (kd_ins_names_buf(f, &f->ins[bl->insv[q]], sb))
			return 0;
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		if (i == s1id || in == s2 || in->op == OP_TILE)
			continue;
		for (int a = 0; a < in->nargs; a++) {
			if (f->val[in->args[a]].type == VT_REF && f->val[in->args[a]].buf == tb &&
			    !kd_param_writes(&kd_ops[in->op], a))
				return 0;
		}
	}
	const KdIns *l1 = def(f, s1->args[NC_STREAM_SHUFFLE_SHUFFLE_MASK], OP_LIST),
	            *l2 = def(f, s2->args[NC_STREAM_SHUFFLE_SHUFFLE_MASK], OP_LIST);
	enum { QUAD = KDSL_NEURON_QUADRANT, KEEP = KDSL_NEURON_SHUFFLE_KEEP };
	if (!l1 || !l2 || l1->nargs != QUAD || l2->nargs != QUAD)
		return 0;
	int el[QUAD];
	for (int i = 0; i < QUAD; i++) {
		int64_t a, b;
		if (!is_int(f, l2->args[i], &b) || (b != KEEP && (b < 0 || b >= QUAD)))
			return 0;
		if (b == KEEP) {
			el[i] = l2->args[i];
			continue;
		}
		if (!is_int(f, l1->args[b], &a) || a == KEEP)
			return 0;
		el[i] = l1->args[b];
	}
	KdSpan sp = s2->span;
	int li = kd_ins_add(u->a, f, blk, OP_LIST, QUAD, el, NULL, sp);
	int lv = kd_ins_result(u->a, f, li, VT_LIST, KD_I64, -1, NULL);
	kd_ins_move_to(f, blk, li, k);
	s2 = &f->ins[f->blk[blk]->insv[k + 1]];
	s2->args[NC_STREAM_SHUFFLE_SRC] = src;
	s2->args[NC_STREAM_SHUFFLE_SHUFFLE_MASK] = lv;
	kd_ins_unlink(f, s1id);
	return 1;
}

/* The value every element of tile view v holds before position k of the
 * block: a memset of that very view earlier in the block with an integer
 * 0..255 and no op in between naming the buffer.  -1: unknown. */
static int64_t known_fill(const KdFunc *f, const KdBlock *bl, int k, int v)
{
	int buf = f->val[v].buf;
	const KdBuffer *b = &f->buf[buf];
	if (b->param >= 0 || (b->tile && b->tile->alloc != KD_ALLOC_AUTO))
		return -1;
	for (int j = k - 1; j >= 0; j--) {
		const KdIns *in = &f->ins[bl->insv[j]];
		if (kd_ops[in->op].kind == OK_PURE)
			continue;
		int64_t c;
		if (in->op == OP_MEMSET && same_tile(f, in->args[MEMSET_DST], v) &&
		    is_int(f, in->args[MEMSET_VALUE], &c) &&
		    c >= 0 && c <= 255)
			return c;
		if (kd_ins_names_buf(f, in, buf))
			return -1;
	}
	return -1;
}

/* tensor_copy_predicated(src, dst, predicate, mask, dtype, reverse_pred)
 * whose instruction mask is false, or whose predicate tile is known all
 * zero (all nonzero with reverse_pred): nothing.  Known all nonzero (zero
 * with reverse_pred), a tile src, no dtype: tensor_copy(dst, src), which
 * then copies exactly (src and dst share a dtype).  Constant tile views
 * only; a scalar src or a dtype conversion keeps the predicated form. */
static int predicated(Canon *u, int blk, int k)
{
	KdFunc *f = u->f;
	const KdBlock *bl = f->blk[blk];
	const KdIns *in = &f->ins[bl->insv[k]];
	int64_t mask, dt, rev;
	enum { SRC = TENSOR_COPY_PREDICATED_SRC, DST = TENSOR_COPY_PREDICATED_DST,
	       PRED = TENSOR_COPY_PREDICATED_PREDICATE };
	if (in->op != OP_TENSOR_COPY_PREDICATED || in->nargs < TENSOR_COPY_PREDICATED_NPARAM ||
	    !is_int(f, in->args[TENSOR_COPY_PREDICATED_MASK], &mask) ||
	    !is_int(f, in->args[TENSOR_COPY_PREDICATED_DTYPE], &dt) ||
	    !is_int(f, in->args[TENSOR_COPY_PREDICATED_REVERSE_PRED], &rev) ||
	    !const_tile(f, in->args[DST]) || !const_tile(f, in->args[PRED]))
		return 0;
	int src_tile = f->val[in->args[SRC]].type == VT_REF;
	if (src_tile && !const_tile(f, in->args[SRC]))
		return 0;
	int64_t fill = mask ? known_fill(f, bl, k, in->args[PRED]) : 0;
	if (fill < 0)
		return 0;
	int copies = mask && ((fill != 0) != (rev != 0));
	if (!copies) {
		kd_ins_unlink(f, bl->insv[k]);
		return 1;
	}
	if (!src_tile || dt)
		return 0;
	int id = bl->insv[k];
	int args[TENSOR_COPY_NPARAM] = {[TENSOR_COPY_DST] = in->args[DST], [TENSOR_COPY_SRC] = in->args[SRC]};
	KdSpan asp[TENSOR_COPY_NPARAM] = {[TENSOR_COPY_DST] = in->argspan[DST],
	                                  [TENSOR_COPY_SRC] = in->argspan[SRC]};
	KdSpan sp = in->span;
	int ni = kd_ins_add(u->a, f, blk, OP_TENSOR_COPY, TENSOR_COPY_NPARAM, args, asp, sp);
	kd_ins_move_to(f, blk, ni, k);
	kd_ins_unlink(f, id);
	return 1;
}

/* The value rewrites (folding, copies, the aipu algebra), to a fixpoint
 * by worklist: a rewrite queues exactly what it may have enabled, the
 * users of the value it replaced, so each instruction is looked at once
 * plus once per operand change. */
static int values(Canon *u)
{
	KdFunc *f = u->f;
	int n = 0;
	for (int b = 0; b < f->nblk; b++) {
		const KdBlock *bl = f->blk[b];
		for (int p = 0; p < bl->nparam; p++)
			push(u, -1 - bl->params[p]);
		for (int k = 0; k < bl->nins; k++)
			push(u, bl->insv[k]);
	}
	while (u->head < u->nwork) {
		int item = u->work[u->head++];
		if (item < 0) {
			n += copy_param(u, -1 - item);
			continue;
		}
		const KdIns *in = &f->ins[item];
		/* a folded value leaves its op unused: dce drops it */
		if (kd_ops[in->op].kind != OK_PURE || in->res < 0 || !kd_uses_live(u->uses, f, in->res))
			continue;
		n += fold(u, in) || aipu(u, &f->ins[item]);
	}
	return n;
}

/* The op rewrites, in one sweep of each block: an op is looked at again
 * after a rewrite at its position (a composed shuffle may compose with
 * the one before, or turn out to change nothing). */
static int effects(Canon *u)
{
	KdFunc *f = u->f;
	int n = 0;
	for (int b = 0; b < f->nblk; b++) {
		KdBlock *bl = f->blk[b];
		for (int k = 0; k < bl->nins; k++) {
			if (noop_shuffle(f, &f->ins[bl->insv[k]])) {
				kd_ins_unlink(f, bl->insv[k--]);
				n++;
			} else if (compose_shuffles(u, b, k)) {
				k--;   /* s1, before it, is gone: s2 is at k now */
				n++;
			} else if (predicated(u, b, k)) {
				k--;
				n++;
			}
		}
	}
	return n;
}

int kd_pass_canon(KdModule *m)
{
	int total = 0;
	for (int fi = 0; fi < m->nfn; fi++) {
		KdArena *tmp = kd_arena_new_like(m->arena);
		Canon u = {.a = m->arena, .tmp = tmp, .f = m->fn[fi]};
		u.uses = kd_uses_build(tmp, u.f);
		kd_dom_build(tmp, u.f, &u.dom);
		total += values(&u);
		total += effects(&u);
		kd_arena_free(tmp);
	}
	return total;
}
