/* uses.c: the def-use index of uses.h. */
#include <string.h>

#include "pass.h"
#include "uses.h"

typedef struct {
	int *v;
	int n, cap;
} UseList;

struct KdUses {
	KdArena *a;
	UseList *tab;      /* by value id; grows as passes make values */
	int ntab;
};

static UseList *list_of(KdUses *u, int v)
{
	if (v >= u->ntab) {
		int n = u->ntab ? u->ntab : 64;
		while (n <= v)
			n *= 2;
		UseList *t = kd_alloc(u->a, (size_t)n * sizeof *t);
		if (u->ntab)
			memcpy(t, u->tab, (size_t)u->ntab * sizeof *t);
		u->tab = t;
		u->ntab = n;
	}
	return &u->tab[v];
}

void kd_uses_add(KdUses *u, int v, int user)
{
	UseList *l = list_of(u, v);
	if (l->n && l->v[l->n - 1] == user)
		return;   /* the common duplicate: one instruction naming v twice */
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 2;
		int *nv = kd_alloc(u->a, (size_t)cap * sizeof *nv);
		if (l->n)
			memcpy(nv, l->v, (size_t)l->n * sizeof *nv);
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = user;
}

void kd_uses_add_ins(KdUses *u, const KdFunc *f, int ins)
{
	const KdIns *in = &f->ins[ins];
	for (int k = 0; k < in->nargs; k++)
		kd_uses_add(u, in->args[k], ins);
	for (int s = 0; s < in->nsucc; s++)
		for (int k = 0; k < in->succ[s].nargs; k++)
			kd_uses_add(u, in->succ[s].args[k], ins);
}

KdUses *kd_uses_build(KdArena *tmp, const KdFunc *f)
{
	KdUses *u = kd_alloc(tmp, sizeof *u);
	u->a = tmp;
	list_of(u, f->nval);
	for (int i = 0; i < f->nins; i++)
		kd_uses_add_ins(u, f, i);
	for (int b = 0; b < f->nblk; b++) {
		const KdLoop *l = f->blk[b]->loop;
		if (l) {
			kd_uses_add(u, l->lo, -1 - b);
			kd_uses_add(u, l->hi, -1 - b);
		}
	}
	return u;
}

/* Does user (an entry of v's list) name v? */
static int names(const KdFunc *f, int user, int v)
{
	if (user < 0) {
		const KdLoop *l = f->blk[-1 - user]->loop;
		return l && (l->lo == v || l->hi == v);
	}
	return kd_ins_uses(&f->ins[user], v);
}

int kd_uses_live(const KdUses *u, const KdFunc *f, int v)
{
	if (v >= u->ntab)
		return 0;
	const UseList *l = &u->tab[v];
	for (int i = 0; i < l->n; i++)
		if (names(f, l->v[i], v))
			return 1;
	return 0;
}

/* Patches one user; 1 when it named from. */
static int patch(KdFunc *f, int user, int from, int to)
{
	int hit = 0;
	if (user < 0) {
		KdLoop *l = f->blk[-1 - user]->loop;
		if (l && l->lo == from)
			l->lo = to, hit = 1;
		if (l && l->hi == from)
			l->hi = to, hit = 1;
		return hit;
	}
	KdIns *in = &f->ins[user];
	for (int k = 0; k < in->nargs; k++)
		if (in->args[k] == from)
			in->args[k] = to, hit = 1;
	for (int s = 0; s < in->nsucc; s++)
		for (int k = 0; k < in->succ[s].nargs; k++)
			if (in->succ[s].args[k] == from)
				in->succ[s].args[k] = to, hit = 1;
	return hit;
}

void kd_uses_replace(KdUses *u, KdFunc *f, int from, int to, void (*touched)(void *ctx, int ins),
                     void *ctx)
{
	if (from == to || from >= u->ntab)
		return;
	/* The entries stay where they are if the table grows under us. */
	int *users = u->tab[from].v, n = u->tab[from].n;
	u->tab[from].n = 0;
	u->tab[from].cap = 0;
	u->tab[from].v = NULL;
	for (int i = 0; i < n; i++) {
		if (!patch(f, users[i], from, to))
			continue;
		kd_uses_add(u, to, users[i]);
		if (users[i] >= 0 && touched)
			touched(ctx, users[i]);
	}
}
