/* arena.c: bump allocation in chunks.  AST and IR nodes are never freed
 * one by one; the whole arena goes at once, its big chunks into the pool
 * it was made in (if any), which later arenas of that pool take from
 * (below). */
#include <stdlib.h>
#include <string.h>

#include "kd.h"

/* Under AddressSanitizer every block is followed by a poisoned redzone
 * and a chunk's unused bytes are poisoned, so a read past the end of an
 * arena object (a node allocated short for its kind, an array indexed
 * past its count) is reported where it happens, as it would be for
 * malloc's blocks, instead of reading the next object. */
#ifdef KD_ASAN   /* kd.h */
#include <sanitizer/asan_interface.h>
enum { REDZONE = 16 };
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
enum { REDZONE = 0 };
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

typedef struct Chunk {
	struct Chunk *next;
	size_t used, cap;
	size_t touched;    /* in the pool: bytes ever handed out (resident) */
	int own;           /* holds one block (kd_regrow may move it) */
	_Alignas(16) unsigned char mem[];
} Chunk;

/* Chunks of freed arenas (and those an arena gave back early,
 * kd_arena_release_before), for the next ones, up to a limit.  A big
 * compilation frees the syntax tree (a gigabyte at a million lines) and
 * every pass's scratch arena; given back to the system (glibc unmaps blocks of 32 MiB
 * and more) the same memory came back as fresh pages that the kernel
 * faults in and zeroes again, each pass, which on this VM cost more per
 * page the more of them a process takes: a million-line -O1 compile
 * faulted 2 GB after the tree was freed against 45 MB at 100k lines.
 * Reused here, a chunk costs a memset of the bytes it had handed out.
 * One compilation owns its pool (driver/compile.c); its arenas are used
 * by one thread. */
struct KdArenaPool {
	Chunk *head;
	size_t held;     /* the chunks' resident bytes */
	size_t limit;    /* held stays at most this (kd_arena_pool_limit) */
};

struct KdArena {
	Chunk *head;
	Chunk *cut;           /* the chunk kd_arena_release_before last kept (oldest but its own ones) */
	size_t grow;          /* size of the next chunk */
	KdArenaPool *pool;    /* where its big chunks come from and go (NULL: malloc) */
};

/* Chunks double from CHUNK to KD_ARENA_CHUNK_MAX (kd.h): a big compilation (2 GB for a
 * million lines) then takes its memory in few large blocks, zeroed by
 * the system, instead of 50,000 small ones.  They do not ask for huge
 * pages (MADV_HUGEPAGE): on the 2-core VM of 2026-11-24 a million-line
 * compile spent a median 5.1 s of system time zeroing fresh 2 MiB pages
 * against 3.0 s for the same memory in 4 KiB pages, 11.8 s of CPU
 * against 9.4 s (a 100k-line one, whose ~230 MiB the system had at
 * hand, lost 0.07 s without them). */
enum { CHUNK = 64 * 1024 };

static void oom(void)
{
	fputs("kdslc: fatal: out of memory\n", stderr);
	exit(2);
}

KdArena *kd_arena_new(void)
{
	return kd_arena_new_in(NULL);
}

KdArena *kd_arena_new_in(KdArenaPool *p)
{
	KdArena *a = calloc(1, sizeof *a);
	if (!a)
		oom();
	a->pool = p;
	return a;
}

KdArena *kd_arena_new_like(const KdArena *a)
{
	return kd_arena_new_in(a ? a->pool : NULL);
}

void kd_arena_set_pool(KdArena *a, KdArenaPool *p)
{
	a->pool = p;
}

KdArenaPool *kd_arena_pool_new(void)
{
	KdArenaPool *p = calloc(1, sizeof *p);
	if (!p)
		oom();
	p->limit = SIZE_MAX;
	return p;
}

void kd_arena_pool_limit(KdArenaPool *p, size_t limit)
{
	p->limit = limit;
	kd_arena_pool_trim(p, limit);
}

void kd_arena_pool_free(KdArenaPool *p)
{
	if (!p)
		return;
	kd_arena_pool_trim(p, 0);
	free(p);
}

/* Below this a chunk goes back to malloc, which reuses small blocks
 * without the system. */
enum { POOL_MIN = 256 * 1024 };

/* Gives back the chunks from c on: a big one to pool p while it stays
 * within its limit, the rest to the system.  A pooled chunk is poisoned
 * whole, so under AddressSanitizer a read of a block after its arena
 * gave it back is reported (pool_take unpoisons what it hands out). */
static void give_back(KdArenaPool *p, Chunk *c)
{
	for (Chunk *n; c; c = n) {
		n = c->next;
		if (c->touched < c->used)
			c->touched = c->used;
		if (p && c->cap >= POOL_MIN && p->held + c->touched <= p->limit) {
			POISON(c->mem, c->cap);
			c->next = p->head;
			p->head = c;
			p->held += c->touched;
		} else {
			UNPOISON(c->mem, c->cap);
			free(c);
		}
	}
}

void kd_arena_free(KdArena *a)
{
	if (!a)
		return;
	give_back(a->pool, a->head);
	free(a);
}

/* The chunks behind the one holding p were all made before it, but for
 * the chunks of their own right behind it: kd_alloc puts such a chunk
 * behind the current one, so those were made while it was current,
 * possibly after p. */
void kd_arena_release_before(KdArena *a, const void *p)
{
	const unsigned char *q = p;
	/* called statement by statement: p is mostly where it was last time */
	if (a->cut && q >= a->cut->mem && q < a->cut->mem + a->cut->used)
		return;
	Chunk *c = a->head;
	while (c && !(q >= c->mem && q < c->mem + c->used))
		c = c->next;
	if (!c)
		return;
	a->cut = c->own ? NULL : c;   /* kd_regrow may move a chunk of its own */
	while (c->next && c->next->own)
		c = c->next;
	Chunk *older = c->next;
	c->next = NULL;
	give_back(a->pool, older);
}

void kd_arena_pool_trim(KdArenaPool *p, size_t keep)
{
	size_t held = 0;
	for (Chunk **l = &p->head; *l;) {
		Chunk *c = *l;
		if (held + c->touched <= keep) {
			held += c->touched;
			l = &c->next;
		} else {
			*l = c->next;
			UNPOISON(c->mem, c->cap);
			free(c);
		}
	}
	p->held = held;
}

size_t kd_arena_used(const KdArena *a)
{
	size_t n = 0;
	for (const Chunk *c = a->head; c; c = c->next)
		n += c->used;
	return n;
}

/* Is pooled chunk x a better answer than y to a request for need bytes
 * that would like want (the chunk the arena would make)?  Pages already
 * resident first: a chunk's untouched pages fault like fresh ones while
 * the touched pages of others sit idle.  Among chunks whose resident
 * bytes hold want, the smallest (a big one stays for a big request);
 * else the one with the most resident bytes. */
static int pool_better(const Chunk *x, const Chunk *y, size_t want)
{
	int fx = x->touched >= want, fy = y->touched >= want;
	if (fx != fy)
		return fx;
	return fx ? x->cap < y->cap : x->touched > y->touched;
}

/* A chunk of pool p (NULL: none) of at least need bytes, zeroed again,
 * or NULL. */
static Chunk *pool_take(KdArenaPool *p, size_t need, size_t want)
{
	Chunk **best = NULL;
	if (!p)
		return NULL;
	for (Chunk **l = &p->head; *l; l = &(*l)->next)
		if ((*l)->cap >= need && (!best || pool_better(*l, *best, want)))
			best = l;
	if (!best)
		return NULL;
	Chunk *c = *best;
	*best = c->next;
	p->held -= c->touched;
	/* only the bytes it handed out since it was last zeroed were
	 * written: the rest is still zero */
	UNPOISON(c->mem, c->cap);
	memset(c->mem, 0, c->used);
	POISON(c->mem, c->cap);
	c->used = 0;
	c->own = 0;
	return c;
}

void *kd_alloc(KdArena *a, size_t size)
{
	size_t n = ((size + 15) & ~(size_t)15) + REDZONE;
	Chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = a->grow ? a->grow : CHUNK;
		int own = cap < n;   /* a block bigger than a chunk: a chunk of its own */
		if (own)
			cap = n;
		else if (cap < KD_ARENA_CHUNK_MAX)
			a->grow = 2 * cap;
		c = pool_take(a->pool, n, cap);
		if (c) {
			cap = c->cap;
		} else {
			/* calloc: every allocation is zero already, and large
			 * chunks come zeroed from the system */
			c = calloc(1, sizeof *c + cap);
			if (!c)
				oom();
			c->used = c->touched = 0;
			c->cap = cap;
			POISON(c->mem, cap);
		}
		c->own = own;
		/* A chunk of its own goes behind the current one, so the current
		 * chunk's free space is not thrown away. */
		if (a->head && own) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->mem + c->used;
	c->used += n;
	UNPOISON(p, size);
	return p;
}

/* Big arrays grow in a chunk of their own, which realloc moves or extends
 * (for blocks this big glibc remaps the pages instead of copying them), so
 * a doubling array of n bytes costs n bytes, not the 2n of the copies an
 * arena abandons, and its capacity past n is never touched.  Smaller ones
 * are copied and abandoned as kd_alloc's arrays always were. */
enum { OWN_GROW = 256 * 1024 };

void *kd_regrow(KdArena *a, void *p, size_t old, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n < OWN_GROW || !p) {
		void *np = kd_alloc(a, n);
		if (old)
			memcpy(np, p, old < n ? old : n);
		return np;
	}
	/* p's own chunk, if it has one (and the link that points at it) */
	Chunk **link = &a->head;
	while (*link && (*link)->mem != (unsigned char *)p)
		link = &(*link)->next;
	Chunk *c = *link;
	if (!c || !c->own) {   /* not a chunk of its own: copy it once */
		Chunk *own = malloc(sizeof *own + n);
		if (!own)
			oom();
		own->used = own->cap = n;
		own->touched = 0;
		own->own = 1;
		memcpy(own->mem, p, old < n ? old : n);
		own->next = a->head ? a->head->next : NULL;
		if (a->head)
			a->head->next = own;
		else
			a->head = own;
		return own->mem;
	}
	if (c->cap >= n) {   /* a pooled chunk may be bigger than asked */
		c->used = n;
		UNPOISON(c->mem, n);
		return c->mem;
	}
	UNPOISON(c->mem, c->cap);
	c = realloc(c, sizeof *c + n);
	if (!c)
		oom();
	c->used = c->cap = n;
	*link = c;
	return c->mem;
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
