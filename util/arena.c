/* arena.c: bump allocation in chunks.  AST and IR nodes are never freed
 * one by one; the whole arena goes when the compilation ends. */
#include <stdlib.h>
#include <string.h>

#include "kd.h"

typedef struct Chunk {
	struct Chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
} Chunk;

struct KdArena {
	Chunk *head;
};

enum { CHUNK = 64 * 1024 };

static void oom(void)
{
	fputs("kdslc: fatal: out of memory\n", stderr);
	exit(2);
}

KdArena *kd_arena_new(void)
{
	KdArena *a = calloc(1, sizeof *a);
	if (!a)
		oom();
	return a;
}

void kd_arena_free(KdArena *a)
{
	if (!a)
		return;
	for (Chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void *kd_alloc(KdArena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	Chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK ? n : CHUNK;
		c = malloc(sizeof *c + cap);
		if (!c)
			oom();
		c->used = 0;
		c->cap = cap;
		/* A big block gets its own chunk behind the current one, so the
		 * current chunk's free space is not thrown away. */
		if (a->head && n > CHUNK) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->mem + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *kd_strndup(KdArena *a, const char *s, size_t n)
{
	char *p = kd_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *kd_strdup(KdArena *a, const char *s)
{
	return kd_strndup(a, s, strlen(s));
}

char *kd_fmt(KdArena *a, const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	/* A NULL format is a caller's bug; the guard also keeps gcc's
	 * -Wformat-truncation quiet under -fsanitize, which cannot prove it. */
	char probe[1];
	if (!fmt)
		fmt = "";
	int n = vsnprintf(probe, sizeof probe, fmt, ap);
	va_end(ap);
	char *p = kd_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
	if (n > 0)
		vsnprintf(p, (size_t)n + 1, fmt, aq);
	va_end(aq);
	return p;
}

void kd_vec_push(KdArena *a, KdVec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		void **nv = kd_alloc(a, sizeof *nv * (size_t)cap);
		if (v->n)
			memcpy(nv, v->v, sizeof *nv * (size_t)v->n);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}
