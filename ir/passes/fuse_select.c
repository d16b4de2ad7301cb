/* fuse_select.c: the predicated copy's chain as one op (pass fuse-select,
 * neuron).  In one block,
 *
 *     load(D <- F) ... tensor_copy_predicated(src=S, dst=D, predicate=P)
 *     ... store(B <- D)
 *
 * with the same constant view of D in all three becomes, at the store's
 * position, predicated_merge(B, S', F, P', reverse_pred): B gets F's
 * elements with S's blended in where P selects, which is what the chain
 * leaves in B.  S' is the hbm view S was loaded from when S is an auto
 * tile whose only reader is the predicated copy and whose load (in the
 * block, the last op naming S before the copy) wrote exactly the view the
 * copy reads; that load then goes too.  Otherwise S' is S itself (sbuf or
 * psum), and the same for P.  D's load and the copy go: D ends with other
 * bytes, but nothing in the kernel reads it, the argument dead-moves and
 * forward rest on.  The merged op reads its inputs at the store's
 * position, so nothing between the chain's first op and the store may
 * change them.
 *
 * It must not fire:
 *  - when an op between the chain's first op and the store writes any
 *    hbm tensor (kernel parameters may be one memory: F, S' or P' could
 *    change), writes S or P (a directly allocated one: any directly
 *    allocated tile), or names D at all;
 *  - when anything else in the kernel reads D (after the store, too), or
 *    D is a directly allocated tile or a kernel parameter;
 *  - when the three views of D differ or are not constant views
 *    (kd_const_view), or the ops are not in one proven block (across
 *    blocks or loop trips the chain is not proven; under a guard the
 *    checker cannot read, the rules are left to the ops as written).
 *    The hbm views and those of src and predicate may vary with a loop
 *    index (a tile loop): the merge reads each at the trip the op did,
 *    where the proven block's rules held;
 *  - for a converting load, store or copy (dtype=, or dtypes that
 *    differ), a scalar src, a mask other than constant true, a
 *    reverse_pred that is not a constant;
 *  - when S or P is D's buffer.
 * A load of S or P is only folded in when it covers exactly the view the
 * copy reads and does not convert; otherwise S or P stays on chip. */

#include "pass.h"
#include "tile.h"

enum { TCP_SRC = TENSOR_COPY_PREDICATED_SRC, TCP_DST = TENSOR_COPY_PREDICATED_DST,
       TCP_PRED = TENSOR_COPY_PREDICATED_PREDICATE, TCP_MASK = TENSOR_COPY_PREDICATED_MASK,
       TCP_DTYPE = TENSOR_COPY_PREDICATED_DTYPE, TCP_REV = TENSOR_COPY_PREDICATED_REVERSE_PRED };

static int same_view(const KdConstView *x, const KdConstView *y)
{
	if (x->buf != y->buf)
		return 0;
	for (int i = 0; i < TA_N; i++)
		if (x->a[i] != y->a[i])
			return 0;
	return 1;
}

/* Operand a of in as a constant view (0 when it is none). */
static int view_of(const KdFunc *f, const KdIns *in, int a, KdConstView *v)
{
	return a < in->nargs && kd_const_view(f, in->args[a], v);
}

/* The buffer operand a of in views, constant or not (a loop's hbm
 * tile), or -1.  The merge takes such a view as the op had it: the
 * block is proven, so its rules held there, and the merge reads it at
 * the same trip. */
static int ref_of(const KdFunc *f, const KdIns *in, int a)
{
	return a < in->nargs && f->val[in->args[a]].type == VT_REF ? f->val[in->args[a]].buf : -1;
}

/* Does in write buffer b, or any hbm tensor, or (b shared: a directly
 * allocated tile may be another's bytes) any shared buffer? */
static int writes_into(const KdFunc *f, const KdIns *in, int b)
{
	const KdOpDesc *d = &kd_ops[in->op];
	int wide = kd_buf_shared(&f->buf[b]);
	for (int i = 0; i < in->nargs; i++) {
		const KdVal *x = &f->val[in->args[i]];
		if (x->type != VT_REF || !kd_param_writes(d, i))
			continue;
		const KdBuffer *xb = &f->buf[x->buf];
		if (x->buf == b || kd_spaces[xb->space].external || (wide && kd_buf_shared(xb)))
			return 1;
	}
	return 0;
}

/* Position of the nearest effect op naming buffer b before position k
 * (dir -1) or after it (dir 1) in block bl, or -1. */
static int nearest(const KdFunc *f, const KdBlock *bl, int k, int b, int dir)
{
	for (int j = k + dir; j >= 0 && j < bl->nins; j += dir) {
		const KdIns *in = &f->ins[bl->insv[j]];
		if (kd_ops[in->op].kind != OK_PURE && kd_ins_names_buf(f, in, b))
			return j;
	}
	return -1;
}

/* The chain around the predicated copy at position kc. */
typedef struct {
	int kc, kl, ks;              /* positions: the copy, D's load, the store */
	int kls, klp;                /* positions of S's and P's loads that fold in, or -1 */
	int d, s, p;                 /* buffers D, S, P */
	int on_true, pred;           /* the merged op's operand values */
} Chain;

/* Is the op at position k a non-converting load of exactly view v (from
 * any view of its source)? */
static int exact_load(const KdFunc *f, const KdBlock *bl, int k, const KdConstView *v)
{
	if (k < 0)
		return 0;
	const KdIns *in = &f->ins[bl->insv[k]];
	KdConstView dv;
	int src;
	return in->op == OP_LOAD && in->nargs == LOAD_NPARAM && view_of(f, in, LOAD_DST, &dv) &&
	       same_view(&dv, v) && (src = ref_of(f, in, LOAD_SRC)) >= 0 && f->buf[src].dt == f->buf[dv.buf].dt;
}

/* S (or P) through its load when that folds in: *pos its position (else
 * -1), *val the operand the merged op reads. */
static void fold_source(const KdFunc *f, const KdBlock *bl, const Chain *c, int arg, int *pos, int *val)
{
	const KdIns *tcp = &f->ins[bl->insv[c->kc]];
	KdConstView v;
	*pos = -1;
	*val = tcp->args[arg];
	if (!kd_const_view(f, tcp->args[arg], &v) || kd_buf_shared(&f->buf[v.buf]))
		return;
	int k = nearest(f, bl, c->kc, v.buf, -1);
	int skip[1] = {bl->insv[c->kc]};
	if (!exact_load(f, bl, k, &v) || kd_buf_read_elsewhere(f, v.buf, skip, 1))
		return;
	*pos = k;
	*val = f->ins[bl->insv[k]].args[LOAD_SRC];
}

/* The chain of the copy at position kc, when it may fuse. */
static int chain_of(const KdFunc *f, const KdBlock *bl, int kc, Chain *c)
{
	const KdIns *tcp = &f->ins[bl->insv[kc]];
	KdConstView d, st;
	int s, p, b;
	if (tcp->op != OP_TENSOR_COPY_PREDICATED || tcp->nargs != TENSOR_COPY_PREDICATED_NPARAM ||
	    !view_of(f, tcp, TCP_DST, &d) || (s = ref_of(f, tcp, TCP_SRC)) < 0 || (p = ref_of(f, tcp, TCP_PRED)) < 0)
		return 0;
	const KdVal *mask = &f->val[tcp->args[TCP_MASK]], *dt = &f->val[tcp->args[TCP_DTYPE]],
	            *rev = &f->val[tcp->args[TCP_REV]];
	if (mask->kind != VK_CONST || !mask->c || dt->kind != VK_CONST || dt->c || rev->kind != VK_CONST ||
	    kd_buf_shared(&f->buf[d.buf]) || s == d.buf || p == d.buf || f->buf[s].dt != f->buf[d.buf].dt)
		return 0;
	c->kc = kc;
	c->d = d.buf;
	c->s = s;
	c->p = p;
	c->kl = nearest(f, bl, kc, d.buf, -1);
	c->ks = nearest(f, bl, kc, d.buf, 1);
	if (c->kl < 0 || c->ks < 0)
		return 0;
	const KdIns *sto = &f->ins[bl->insv[c->ks]];
	if (!exact_load(f, bl, c->kl, &d) || sto->op != OP_STORE || sto->nargs != STORE_NPARAM ||
	    !view_of(f, sto, STORE_SRC, &st) || !same_view(&st, &d) || (b = ref_of(f, sto, STORE_DST)) < 0 ||
	    f->buf[b].dt != f->buf[d.buf].dt)
		return 0;
	int skip[3] = {bl->insv[c->kl], bl->insv[kc], bl->insv[c->ks]};
	if (kd_buf_read_elsewhere(f, d.buf, skip, 3))
		return 0;
	fold_source(f, bl, c, TCP_SRC, &c->kls, &c->on_true);
	fold_source(f, bl, c, TCP_PRED, &c->klp, &c->pred);
	/* one tile as src and predicate (a u32 select of u32 data): the merge
	 * reads the tile, its load stays (unlinked once, it would go twice) */
	if (c->kls >= 0 && c->kls == c->klp)
		c->kls = c->klp = -1, c->on_true = tcp->args[TCP_SRC], c->pred = tcp->args[TCP_PRED];
	return 1;
}

/* Nothing between the chain's first op and the store (its own ops
 * aside) writes hbm, S or P, or names D. */
static int between_clear(const KdFunc *f, const KdBlock *bl, const Chain *c)
{
	int first = c->kl;
	if (c->kls >= 0 && c->kls < first)
		first = c->kls;
	if (c->klp >= 0 && c->klp < first)
		first = c->klp;
	for (int k = first + 1; k < c->ks; k++) {
		const KdIns *in = &f->ins[bl->insv[k]];
		if (k == c->kl || k == c->kc || k == c->kls || k == c->klp || kd_ops[in->op].kind == OK_PURE)
			continue;
		if (kd_ins_names_buf(f, in, c->d) || writes_into(f, in, c->s) || writes_into(f, in, c->p))
			return 0;
	}
	return 1;
}

/* The merged op in place of the store; the chain's other ops go. */
static void rewrite(KdModule *m, KdFunc *f, int blk, const Chain *c)
{
	const KdBlock *bl = f->blk[blk];
	int tcp = bl->insv[c->kc], load = bl->insv[c->kl], sto = bl->insv[c->ks];
	int ls = c->kls >= 0 ? bl->insv[c->kls] : -1, lp = c->klp >= 0 ? bl->insv[c->klp] : -1;
	const KdIns *t = &f->ins[tcp], *l = &f->ins[load], *s = &f->ins[sto];
	int args[PREDICATED_MERGE_NPARAM] = {
		[PREDICATED_MERGE_DST] = s->args[STORE_DST], [PREDICATED_MERGE_ON_TRUE] = c->on_true,
		[PREDICATED_MERGE_ON_FALSE] = l->args[LOAD_SRC], [PREDICATED_MERGE_PREDICATE] = c->pred,
		[PREDICATED_MERGE_REVERSE_PRED] = t->args[TCP_REV]};
	KdSpan sp[PREDICATED_MERGE_NPARAM], *span = NULL;
	if (s->argspan && l->argspan && t->argspan) {
		const KdIns *is = ls >= 0 ? &f->ins[ls] : NULL, *ip = lp >= 0 ? &f->ins[lp] : NULL;
		sp[PREDICATED_MERGE_DST] = s->argspan[STORE_DST];
		sp[PREDICATED_MERGE_ON_TRUE] = is && is->argspan ? is->argspan[LOAD_SRC] : t->argspan[TCP_SRC];
		sp[PREDICATED_MERGE_ON_FALSE] = l->argspan[LOAD_SRC];
		sp[PREDICATED_MERGE_PREDICATE] = ip && ip->argspan ? ip->argspan[LOAD_SRC] : t->argspan[TCP_PRED];
		sp[PREDICATED_MERGE_REVERSE_PRED] = t->argspan[TCP_REV];
		span = sp;
	}
	int id = kd_ins_add(m->arena, f, blk, OP_PREDICATED_MERGE, PREDICATED_MERGE_NPARAM, args, span, t->span);
	kd_ins_move_to(f, blk, id, c->ks);
	kd_ins_unlink(f, sto);
	kd_ins_unlink(f, tcp);
	kd_ins_unlink(f, load);
	if (ls >= 0)
		kd_ins_unlink(f, ls);
	if (lp >= 0)
		kd_ins_unlink(f, lp);
}

/* One fusion in block blk (1), or none (0). */
static int block(KdModule *m, KdFunc *f, int blk)
{
	const KdBlock *bl = f->blk[blk];
	for (int k = 0; k < bl->nins; k++) {
		Chain c;
		if (chain_of(f, bl, k, &c) && between_clear(f, bl, &c)) {
			rewrite(m, f, blk, &c);
			return 1;
		}
	}
	return 0;
}

int kd_pass_fuse_select(KdModule *m)
{
	return kd_pass_rewrite_module(m, block);
}
