/* guards.c: the conditions each block runs under (guards.h).  Blocks are
 * visited in reverse postorder, so a block's immediate dominator has its
 * set already: a block entered only from a conditional branch (one
 * predecessor) adds that branch's condition, taken or not, to its
 * dominator's set; any other block shares its dominator's set.  Nothing
 * is recomputed per instruction, so a long kernel stays linear. */
#include <stddef.h>
#include <string.h>

#include "guards.h"
#include "rules.h"

static const KdGuardSet no_guard;

/* x fits int64 at every trip of its loops (the kernel's wrapping value is
 * the exact one, so comparing forms compares the values). */
static int aff_fits(const KdFunc *f, KdAff x)
{
	int64_t lo = x.c, hi = x.c;
	for (int i = 0; i < x.n; i++) {
		int64_t n = kd_loop_trips(f, f->blk[(int)x.t[i].key]->loop), span;
		if (n < 1 || __builtin_mul_overflow(x.t[i].k, n - 1, &span) ||
		    (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi)))
			return 0;
	}
	return 1;
}

/* floor(a / b) and ceil(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0 && a > 0);
}

/* The kept trips of loop `blk` in s, starting from all of them. */
static KdTrips *trips_in(const KdFunc *f, KdGuardSet *s, int blk)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i].blk == blk)
			return &s->t[i];
	if (s->n == KD_GUARD_LOOPS)
		return NULL;
	KdTrips *t = &s->t[s->n++];
	memset(t, 0, sizeof *t);
	t->blk = blk;
	t->hi = kd_loop_trips(f, f->blk[blk]->loop) - 1;
	return t;
}

static int is_hole(const KdTrips *t, int64_t x)
{
	for (int i = 0; i < t->nhole; i++)
		if (t->hole[i] == x)
			return 1;
	return 0;
}

/* Drops holes outside lo..hi and moves the ends past holes. */
static void tidy(KdTrips *t)
{
	while (t->lo <= t->hi && is_hole(t, t->lo))
		t->lo++;
	while (t->lo <= t->hi && is_hole(t, t->hi))
		t->hi--;
	int n = 0;
	for (int i = 0; i < t->nhole; i++)
		if (t->hole[i] > t->lo && t->hole[i] < t->hi)
			t->hole[n++] = t->hole[i];
	t->nhole = n;
}

/* Keeps the trips x of t where c + k*x <= 0 (k != 0). */
static void keep_le(KdTrips *t, int64_t c, int64_t k)
{
	if (k > 0) {
		/* c + kx <= 0 <=> x <= floor(-c / k); -c of INT64_MIN: no trip fails */
		if (c != INT64_MIN) {
			int64_t b = floor_div(-c, k);
			if (b < t->hi)
				t->hi = b;
		}
	} else {
		/* c - Kx <= 0 <=> x >= ceil(c / K), K = -k (k > INT64_MIN here) */
		int64_t b = ceil_div(c, -k);
		if (b > t->lo)
			t->lo = b;
	}
}

/* Applies `c + k*x OP 0` to loop blk's trips x; 0 when it cannot be said. */
static int atom(const KdFunc *f, KdGuardSet *s, int blk, KdOp op, int64_t c, int64_t k)
{
	KdTrips *t = trips_in(f, s, blk);
	if (!t || k == INT64_MIN || c == INT64_MIN || c == INT64_MAX)
		return 0;
	switch (op) {
	case OP_LT: keep_le(t, c + 1, k); break;          /* c + kx <= -1 */
	case OP_LE: keep_le(t, c, k); break;
	case OP_GT: keep_le(t, 1 - c, -k); break;         /* -c - kx <= -1 */
	case OP_GE: keep_le(t, -c, -k); break;
	case OP_EQ:
		if (c % k)
			t->hi = t->lo - 1;
		else {
			int64_t x = -(c / k);
			if (x > t->lo)
				t->lo = x;
			if (x < t->hi)
				t->hi = x;
		}
		break;
	case OP_NE:
		if (c % k == 0) {
			int64_t x = -(c / k);
			if (x == t->lo)
				t->lo++;
			else if (x == t->hi)
				t->hi--;
			else if (x > t->lo && x < t->hi && !is_hole(t, x)) {
				if (t->nhole == KD_GUARD_HOLES)
					return 0;
				t->hole[t->nhole++] = x;
			}
		}
		break;
	default:
		return 0;
	}
	tidy(t);
	if (t->lo > t->hi)
		s->dead = 1;
	return 1;
}

static KdOp negate(KdOp op)
{
	switch (op) {
	case OP_LT: return OP_GE;
	case OP_GE: return OP_LT;
	case OP_LE: return OP_GT;
	case OP_GT: return OP_LE;
	case OP_EQ: return OP_NE;
	default: return OP_EQ;
	}
}

/* A comparison (negated when neg): one loop's affine form against a
 * constant, or no loop at all (then the guard is always or never true). */
static int compare(const KdFunc *f, KdGuardSet *s, const KdIns *in, int neg)
{
	KdAff a = kd_aff_of(f, in->args[0]), b = kd_aff_of(f, in->args[1]);
	if (!a.ok || !b.ok || !aff_fits(f, a) || !aff_fits(f, b))
		return 0;
	KdAff e = kd_aff_add(a, b, -1);
	if (!e.ok)
		return 0;
	KdOp op = neg ? negate(in->op) : in->op;
	int key = -1;
	int64_t k = 0;
	for (int i = 0; i < e.n; i++) {
		if (!e.t[i].k)
			continue;
		if (key >= 0)
			return 0;          /* two loop variables */
		key = (int)e.t[i].key;
		k = e.t[i].k;
	}
	if (key >= 0)
		return atom(f, s, key, op, e.c, k);
	int64_t x = e.c;
	int holds = op == OP_LT ? x < 0 : op == OP_LE ? x <= 0 : op == OP_GT ? x > 0 :
	            op == OP_GE ? x >= 0 : op == OP_EQ ? x == 0 : x != 0;
	if (!holds)
		s->dead = 1;
	return 1;
}

/* Adds condition v (negated when neg) to s; 0 when it is not readable. */
static int cond(const KdFunc *f, KdGuardSet *s, int v, int neg, int depth)
{
	const KdVal *x = &f->val[v];
	if (depth > 64)
		return 0;
	if (x->kind == VK_CONST) {
		if ((x->c != 0) == neg)
			s->dead = 1;
		return 1;
	}
	const KdIns *in = kd_defins(f, v);
	if (!in)
		return 0;
	switch (in->op) {
	case OP_NOT:
		return cond(f, s, in->args[0], !neg, depth + 1);
	case OP_LAND:
	case OP_LOR:
		/* a conjunction: a && b taken, or a || b not taken */
		if ((in->op == OP_LAND) == !neg)
			return cond(f, s, in->args[0], neg, depth + 1) && cond(f, s, in->args[1], neg, depth + 1);
		return 0;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		return compare(f, s, in, neg);
	default:
		return 0;
	}
}

/* The edge into b that guards it, if any: b's only predecessor ends in a
 * two-way branch that is not a loop's header test.  *taken: b is the
 * branch's true successor. */
static const KdIns *guard_edge(const KdFunc *f, const KdGuards *g, int b, int *taken)
{
	if (b == 0 || g->dom.npred[b] != 1)
		return NULL;
	int p = g->dom.idom[b];
	const KdBlock *pb = f->blk[p];
	if (pb->loop || !pb->nins)
		return NULL;
	const KdIns *br = &f->ins[pb->insv[pb->nins - 1]];
	if (br->op != OP_BR || br->nsucc != 2 || br->succ[0].blk == br->succ[1].blk)
		return NULL;
	*taken = br->succ[0].blk == b;
	return br;
}

/* *to = *from, but only from's header and its n trips: a set's storage
 * holds no more (kd_guards_build). */
static void copy_set(KdGuardSet *to, const KdGuardSet *from)
{
	memcpy(to, from, offsetof(KdGuardSet, t) + sizeof from->t[0] * (size_t)from->n);
}

void kd_guards_build(KdArena *a, const KdFunc *f, KdGuards *g)
{
	kd_dom_build(a, f, &g->dom);
	g->at = kd_alloc(a, sizeof *g->at * (size_t)(f->nblk ? f->nblk : 1));
	for (int i = 0; i < g->dom.nreach; i++) {
		int b = g->dom.order[i], taken = 0;
		const KdGuardSet *up = b ? g->at[g->dom.idom[b]] : &no_guard;
		const KdIns *br = guard_edge(f, g, b, &taken);
		if (!br) {
			g->at[b] = up;
			continue;
		}
		KdGuardSet s;
		copy_set(&s, up);
		s.nguard++;
		s.at = br->argspan ? br->argspan[0] : br->span;
		if (!s.dead && !s.undecided && !cond(f, &s, br->args[0], !taken, 0))
			s.undecided = 1;
		/* Only the loops it narrows: a full set is ~550 bytes, and a
		 * long kernel has a set per branch arm, rebuilt by every rule
		 * check (8 of them at -O1).  Readers look at t[0..n) only. */
		KdGuardSet *keep = kd_alloc(a, offsetof(KdGuardSet, t) + sizeof s.t[0] * (size_t)s.n);
		copy_set(keep, &s);
		g->at[b] = keep;
	}
}

const KdGuardSet *kd_guards_of(const KdGuards *g, int b)
{
	return b >= 0 && b < g->dom.n && g->at[b] ? g->at[b] : &no_guard;
}

const KdTrips *kd_guard_trips(const KdGuardSet *s, int loop_blk)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i].blk == loop_blk)
			return &s->t[i];
	return NULL;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int64_t kd_trips_step(const KdTrips *t)
{
	if (t->lo >= t->hi)
		return 0;
	/* with h holes, more than 2h + 1 trips leave two neighbours */
	if (!t->nhole || t->hi - t->lo > 2 * KD_GUARD_HOLES + 1)
		return 1;
	int64_t step = 0, prev = t->lo;
	for (int64_t x = t->lo + 1; x <= t->hi; x++)
		if (!is_hole(t, x)) {
			step = gcd64(step, x - prev);
			prev = x;
		}
	return step;
}

int kd_guards_proven(const KdGuards *g, int b)
{
	const KdGuardSet *s = kd_guards_of(g, b);
	return s->dead || !s->undecided;
}
