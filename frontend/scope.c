/* scope.c: the name table of scope.h.  Open addressing keyed by name;
 * an entry stays when its name goes out of view (top becomes NULL), so
 * there are no deletions and the table holds one entry per distinct name. */
#include <string.h>

#include "scope.h"

typedef struct {
	const char *name;
	KdSym *top;        /* innermost in view, or NULL */
} Entry;

typedef struct Frame {
	struct Frame *up;
	KdVec syms;        /* declared here, in order */
} Frame;

struct KdScopes {
	KdArena *a;
	Entry *tab;
	size_t mask, used;
	Frame *frame;
	int depth;
};

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037u;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static Entry *slot(const KdScopes *s, const char *name)
{
	for (size_t i = hash(name) & s->mask;; i = (i + 1) & s->mask)
		if (!s->tab[i].name || !strcmp(s->tab[i].name, name))
			return &s->tab[i];
}

static void rehash(KdScopes *s, size_t n)
{
	Entry *old = s->tab;
	size_t on = old ? s->mask + 1 : 0;
	s->tab = kd_alloc(s->a, n * sizeof *s->tab);
	s->mask = n - 1;
	for (size_t i = 0; i < on; i++)
		if (old[i].name)
			*slot(s, old[i].name) = old[i];
}

KdScopes *kd_scopes_new(KdArena *a)
{
	KdScopes *s = kd_alloc(a, sizeof *s);
	s->a = a;
	rehash(s, 64);
	return s;
}

void kd_scope_push(KdScopes *s)
{
	Frame *f = kd_alloc(s->a, sizeof *f);
	f->up = s->frame;
	s->frame = f;
	s->depth++;
}

void kd_scope_pop(KdScopes *s)
{
	Frame *f = s->frame;
	for (int i = f->syms.n - 1; i >= 0; i--) {
		KdSym *y = f->syms.v[i];
		slot(s, y->name)->top = y->shadow;
	}
	s->frame = f->up;
	s->depth--;
}

KdSym *kd_scope_lookup(const KdScopes *s, const char *name)
{
	return slot(s, name)->top;
}

KdSym *kd_scope_here(const KdScopes *s, const char *name)
{
	KdSym *first = NULL;
	for (KdSym *y = slot(s, name)->top; y && y->depth == s->depth; y = y->shadow)
		first = y;
	return first;
}

void kd_scope_add(KdScopes *s, KdSym *y)
{
	if (2 * (s->used + 1) > s->mask + 1)
		rehash(s, 2 * (s->mask + 1));
	Entry *e = slot(s, y->name);
	if (!e->name) {
		e->name = y->name;
		s->used++;
	}
	y->shadow = e->top;
	y->depth = s->depth;
	e->top = y;
	kd_vec_push(s->a, &s->frame->syms, y);
}

void kd_scope_near(const KdScopes *s, KdNear *n)
{
	for (size_t i = 0; i <= s->mask; i++)
		if (s->tab[i].name && s->tab[i].top)
			kd_near_try(n, s->tab[i].name);
}
