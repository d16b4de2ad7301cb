/* rules.c: the hardware-rule checker.  It walks every op of the target,
 * checks the table's integer ranges, memory spaces and dtypes, then calls
 * the op's hook.  Integer operands are bounded by an affine analysis over
 * the loop nest: an operand that is affine in induction variables of
 * loops with constant bounds takes exactly the values between its corner
 * values over the trips that run, so a rule broken at any iteration that
 * runs is a compile-time error.  Which trips run is the loop's bounds
 * narrowed by the op's guards (guards.h: `if t < 7` around a full tile
 * keeps trips 0..6).  Operands that depend on runtime values, and every
 * value under a guard the checker cannot read or that never holds, are
 * left to the runtime, which re-checks every rule. */
#include <string.h>

#include "guards.h"
#include "rules.h"

/* -1 when the count does not fit int64 (lo..hi spans more than 2^63
 * values): no affine form over such a loop, no pass transforms it. */
static int64_t trips(const KdFunc *f, const KdLoop *l)
{
	int64_t lo = f->val[l->lo].c, hi = f->val[l->hi].c;
	if (hi <= lo)
		return 0;
	uint64_t n = ((uint64_t)hi - (uint64_t)lo - 1) / (uint64_t)l->step + 1;
	return n > INT64_MAX ? -1 : (int64_t)n;
}

static int is_iconst(const KdFunc *f, int v)
{
	return f->val[v].kind == VK_CONST;
}

/* v as an affine form over the trip indices of loops with constant
 * bounds, keyed by the loop's header block, into *r.  In place (affine.h's
 * _to functions): the rule checker asks for every integer operand, and
 * forms passed and returned by value (152 bytes, zeroed at each level)
 * were a tenth of a long kernel's -O1 compile. */
static void aff_into(const KdFunc *f, int v, int depth, KdAff *r)
{
	const KdVal *x = &f->val[v];
	r->ok = r->overflow = r->n = 0;
	r->c = 0;
	if (depth > 64)
		return;
	if (x->kind == VK_CONST && x->type != VT_FLOAT) {
		kd_aff_set_const(r, x->c);
		return;
	}
	if (x->kind == VK_BARG) {
		const KdLoop *l = f->blk[x->def]->loop;
		if (!l || l->iv != v || !is_iconst(f, l->lo) || !is_iconst(f, l->hi) || trips(f, l) < 1)
			return;
		kd_aff_set_const(r, f->val[l->lo].c);
		r->n = 1;
		r->t[0].key = x->def;
		r->t[0].k = l->step;
		return;
	}
	if (x->kind != VK_INS)
		return;
	const KdIns *in = &f->ins[x->def];
	KdAff y;
	switch (in->op) {
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
		aff_into(f, in->args[0], depth + 1, r);
		aff_into(f, in->args[1], depth + 1, &y);
		if (in->op == OP_MUL)
			kd_aff_mul_to(r, &y);
		else
			kd_aff_add_to(r, &y, in->op == OP_ADD ? 1 : -1);
		return;
	case OP_NEG:
		aff_into(f, in->args[0], depth + 1, r);
		kd_aff_scale_to(r, -1);
		return;
	case OP_DIM_INDEX:
		/* the index itself (its rule is dim_index's, checked apart), so
		 * tuple-indexed addresses stay affine for the rules and passes */
		aff_into(f, in->args[DIM_INDEX_IDX], depth + 1, r);
		return;
	case OP_SHL:
		aff_into(f, in->args[1], depth + 1, &y);
		if (y.ok && !y.n && y.c >= 0 && y.c < 62) {
			aff_into(f, in->args[0], depth + 1, r);
			kd_aff_scale_to(r, (int64_t)1 << y.c);
		}
		return;
	default:
		return;
	}
}

static KdAff aff_of(const KdFunc *f, int v, int depth)
{
	KdAff r;
	aff_into(f, v, depth, &r);
	return r;
}

KdAff kd_aff_of(const KdFunc *f, int v)
{
	return aff_of(f, v, 0);
}

static int64_t gcd(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The trips of loop `blk` an operand of the instruction being checked
 * takes: those its guards keep (guards.h), else all of them.  *step is
 * the spacing of the kept trips (0: one trip). */
static int64_t kept_trips(const KdCheck *c, int blk, int64_t *lo, int64_t *step)
{
	const KdTrips *t = c->guard ? kd_guard_trips(c->guard, blk) : NULL;
	if (!t) {
		int64_t n = trips(c->f, c->f->blk[blk]->loop);
		*lo = 0;
		*step = n > 1;
		return n;
	}
	*lo = t->lo;
	*step = kd_trips_step(t);
	return t->hi - t->lo + 1;
}

KdRange kd_range_of(KdCheck *c, int v)
{
	KdRange r = {0};
	const KdFunc *f = c->f;
	/* never runs, or runs on trips the checker cannot tell: the runtime
	 * checks what runs */
	if (c->blind)
		return r;
	KdAff a = aff_of(f, v, 0);
	if (!a.ok)
		return r;
	r.known = 1;
	r.lo = r.hi = a.c;
	for (int i = 0; i < a.n; i++) {
		int64_t first, step, n = kept_trips(c, (int)a.t[i].key, &first, &step), span, base, k = a.t[i].k;
		/* INT64_MIN has no magnitude gcd() could take (IR text can say it) */
		if (k == INT64_MIN || __builtin_mul_overflow(k, n - 1, &span) ||
		    __builtin_mul_overflow(k, first, &base) || __builtin_add_overflow(r.lo, base, &r.lo) ||
		    __builtin_add_overflow(r.hi, base, &r.hi)) {
			r.known = 0;
			return r;
		}
		if ((span < 0 ? __builtin_add_overflow(r.lo, span, &r.lo)
		              : __builtin_add_overflow(r.hi, span, &r.hi))) {
			r.known = 0;
			return r;
		}
		if (step && __builtin_mul_overflow(k, step, &k)) {
			r.known = 0;
			return r;
		}
		if (step)
			r.mod = gcd(r.mod, k);
	}
	r.rem = r.mod ? ((r.lo % r.mod) + r.mod) % r.mod : r.lo;
	return r;
}

KdRange kd_range_scale(KdRange r, int64_t k, int64_t add)
{
	if (!r.known)
		return r;
	KdRange o = r;
	if (__builtin_mul_overflow(r.lo, k, &o.lo) || __builtin_mul_overflow(r.hi, k, &o.hi) ||
	    __builtin_add_overflow(o.lo, add, &o.lo) || __builtin_add_overflow(o.hi, add, &o.hi) ||
	    __builtin_mul_overflow(r.mod, k, &o.mod)) {
		o.known = 0;
		return o;
	}
	if (k < 0) {
		int64_t t = o.lo;
		o.lo = o.hi;
		o.hi = t;
		o.mod = -o.mod;
	}
	o.rem = o.mod ? (((r.rem * k + add) % o.mod) + o.mod) % o.mod : o.lo;
	return o;
}

void kd_span_str(char out[48], int64_t s, int64_t n)
{
	if (s < 0)
		snprintf(out, 48, "%lld..%lld", (long long)s, (long long)(s + (n - 1)));
	else
		snprintf(out, 48, "%lld..%llu", (long long)s, (unsigned long long)s + (unsigned long long)(n - 1));
}

int kd_arg_const(const KdFunc *f, const KdIns *ins, int i, int64_t *out)
{
	const KdVal *x = &f->val[ins->args[i]];
	if (x->kind != VK_CONST)
		return 0;
	*out = x->c;
	return 1;
}

int kd_arg_legal(const KdFunc *f, const KdIns *ins, int i, int64_t *out)
{
	const KdOpParam *p = &kd_ops[ins->op].param[i];
	return kd_arg_const(f, ins, i, out) && (!(p->flags & PF_RANGE) || (*out >= p->lo && *out <= p->hi));
}

const KdBuffer *kd_check_ref(KdCheck *c, const KdIns *ins, int i, KdRange *off)
{
	const KdFunc *f = c->f;
	const KdVal *v = &f->val[ins->args[i]];
	const KdIns *vi = &f->ins[v->def];
	*off = kd_range_of(c, vi->args[0]);
	return &f->buf[v->buf];
}

/* After an error under guards that narrowed its loops: which values of
 * each induction variable the rule was checked for. */
static void guard_note(KdCheck *c)
{
	const KdGuardSet *g = c->guard;
	if (!g || !g->n || g->dead || g->undecided)
		return;
	KdBuf b = {0};
	for (int i = 0; i < g->n; i++) {
		const KdTrips *t = &g->t[i];
		const KdLoop *l = c->f->blk[t->blk]->loop;
		int64_t lo = c->f->val[l->lo].c;
		const char *name = c->f->val[l->iv].name;
		kd_buf_printf(&b, "%s%s %s %lld", i ? ", " : "", name ? name : "the loop variable",
		              t->lo == t->hi ? "=" : "in", (long long)(lo + l->step * t->lo));
		if (t->hi > t->lo)
			kd_buf_printf(&b, "..%lld", (long long)(lo + l->step * t->hi));
		for (int h = 0; h < t->nhole; h++)
			kd_buf_printf(&b, "%s%lld", h ? ", " : " except ", (long long)(lo + l->step * t->hole[h]));
	}
	kd_note(c->d, g->at, "checked for the iterations the guards keep: %s", b.s);
	kd_buf_free(&b);
}

static void check_verror(KdCheck *c, const KdIns *ins, KdSpan sp, const char *fmt, va_list ap)
{
	if (c->muted) {
		c->nviolation++;
		return;
	}
	KdBuf b = {0};
	/* a generic op (dim_index) is no vendor op the user called */
	if (kd_ops[ins->op].target)
		kd_buf_printf(&b, "%s: ", kd_ops[ins->op].name);
	kd_buf_vprintf(&b, fmt, ap);
	kd_error(c->d, sp, "%s", b.s);
	kd_buf_free(&b);
	guard_note(c);
}

void kd_check_error(KdCheck *c, const KdIns *ins, int i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	check_verror(c, ins, i >= 0 ? ins->argspan[i] : ins->span, fmt, ap);
	va_end(ap);
}

void kd_check_error_at(KdCheck *c, const KdIns *ins, KdSpan sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	check_verror(c, ins, sp, fmt, ap);
	va_end(ap);
}

void kd_check_dim_index(KdCheck *c, const KdIns *ins)
{
	const KdFunc *f = c->f;
	KdRange r = kd_range_of(c, ins->args[DIM_INDEX_IDX]);
	int64_t n = f->val[ins->args[DIM_INDEX_EXTENT]].c;
	if (!r.known || (r.lo >= 0 && r.hi < n))
		return;
	char over[64] = "";
	if (r.lo != r.hi)
		snprintf(over, sizeof over, " (it runs %lld..%lld over the loops)", (long long)r.lo,
		         (long long)r.hi);
	kd_check_error(c, ins, DIM_INDEX_IDX, "index %lld of '%s' must be in 0..%lld, got %lld%s",
	               (long long)f->val[ins->args[DIM_INDEX_DIM]].c, f->val[ins->args[DIM_INDEX_NAME]].s,
	               (long long)(n - 1), (long long)(r.lo < 0 ? r.lo : r.hi), over);
}

void kd_ir_dim_index_proven(const KdFunc *f, char *proven)
{
	KdArena *a = kd_arena_new_like(f->arena);
	KdGuards g;
	int built = 0;
	for (int i = 0; i < f->nins; i++) {
		const KdIns *in = &f->ins[i];
		proven[i] = 0;
		if (in->op != OP_DIM_INDEX)
			continue;
		if (!built++)
			kd_guards_build(a, f, &g);
		/* kd_range_of reads f only */
		KdCheck c = {.f = (KdFunc *)f, .a = a, .guard = kd_guards_of(&g, in->blk)};
		c.blind = c.guard->dead || c.guard->undecided;
		KdRange r = kd_range_of(&c, in->args[DIM_INDEX_IDX]);
		proven[i] = (char)(r.known && r.lo >= 0 && r.hi < f->val[in->args[DIM_INDEX_EXTENT]].c);
	}
	kd_arena_free(a);
}

/* Ranges, spaces and dtypes straight from the table. */
static void table_rules(KdCheck *c, const KdIns *ins)
{
	const KdOpDesc *d = &kd_ops[ins->op];
	const KdFunc *f = c->f;
	for (int i = 0; i < d->nparam; i++) {
		const KdOpParam *p = &d->param[i];
		if (p->kind == PK_TENSOR) {
			const KdBuffer *b = &f->buf[f->val[ins->args[i]].buf];
			if (p->spaces && !(p->spaces & (1u << b->space))) {
				KdBuf sp = {0};
				for (int s = 1; s < KD_NSPACE; s++)
					if (p->spaces & (1u << s))
						kd_buf_printf(&sp, "%s%s", sp.n ? " or " : "", kd_spaces[s].name);
				kd_check_error(c, ins, i, "%s must be in %s, got '%s' in %s", p->name, sp.s,
				               b->name, kd_spaces[b->space].name);
				kd_buf_free(&sp);
			}
			if (d->dtypes && !(d->dtypes & KD_DTBIT(b->dt)))
				kd_check_error(c, ins, i, "dtype %s of %s '%s' is not supported (supported: %s)",
				               kd_dtypes[b->dt].name, p->name, b->name,
				               kd_dtype_list(c->a, d->dtypes));
		} else if (p->flags & PF_RANGE) {
			KdRange r = kd_range_of(c, ins->args[i]);
			if (!r.known)
				continue;
			if (r.lo < p->lo || r.hi > p->hi)
				kd_check_error(c, ins, i, "%s must be in %lld..%lld, got %lld", p->name,
				               (long long)p->lo, (long long)p->hi,
				               (long long)(r.lo < p->lo ? r.lo : r.hi));
		}
	}
}

/* The rules of one instruction under its guards. */
static void check_ins(KdCheck *c, const KdIns *in)
{
	const KdOpDesc *od = &kd_ops[in->op];
	c->dead = c->guard->dead;
	c->blind = !c->muted && (c->guard->dead || c->guard->undecided);
	/* pure ops with rules too: aipu's vload checks its address */
	if (od->kind == OK_EFFECT)
		table_rules(c, in);
	if (od->check)
		od->check(c, in);
}

int kd_ir_check_rules(KdDiag *d, KdModule *m)
{
	int before = d->nerror;
	KdArena *a = kd_arena_new_like(m->arena);
	for (int fi = 0; fi < m->nfn; fi++) {
		KdCheck c = {.d = d, .m = m, .f = m->fn[fi], .a = a};
		KdGuards g;
		kd_guards_build(a, c.f, &g);
		for (int i = 0; i < c.f->nins; i++) {
			c.guard = kd_guards_of(&g, c.f->ins[i].blk);
			check_ins(&c, &c.f->ins[i]);
		}
	}
	kd_arena_free(a);
	return d->nerror - before;
}

int kd_rules_hold(KdArena *a, KdModule *m, KdFunc *f, const KdIns *in, const KdGuardSet *g)
{
	KdCheck c = {.m = m, .f = f, .a = a, .guard = g, .muted = 1};
	check_ins(&c, in);
	return !c.nviolation;
}

int kd_affine_in(const KdFunc *f, int v, int loop_blk, int64_t *c, int64_t *k)
{
	KdAff a = aff_of(f, v, 0);
	if (!a.ok || a.n > 1 || (a.n == 1 && (int)a.t[0].key != loop_blk))
		return 0;
	*c = a.c;
	*k = a.n ? a.t[0].k : 0;
	return 1;
}

int64_t kd_loop_trips(const KdFunc *f, const KdLoop *l)
{
	return trips(f, l);
}

_Static_assert(KD_AFF_MAXTERM == 8, "kd_affine_terms returns at most 8 terms (rules.h)");

int kd_affine_terms(const KdFunc *f, int v, int64_t *c, int *nterm, int blk[8], int64_t k[8])
{
	KdAff a = aff_of(f, v, 0);
	if (!a.ok)
		return 0;
	*c = a.c;
	*nterm = a.n;
	for (int i = 0; i < a.n; i++) {
		blk[i] = (int)a.t[i].key;
		k[i] = a.t[i].k;
	}
	return 1;
}
