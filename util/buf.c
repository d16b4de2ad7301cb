/* buf.c: a growable output string. */
#include <stdlib.h>
#include <string.h>

#include "kd.h"

static void grow(KdBuf *b, size_t need)
{
	if (b->n + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + need + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		fputs("kdslc: fatal: out of memory\n", stderr);
		exit(2);
	}
	b->s = s;
	b->cap = cap;
}

void kd_buf_put(KdBuf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void kd_buf_puts(KdBuf *b, const char *s)
{
	kd_buf_put(b, s, strlen(s));
}

void kd_buf_vprintf(KdBuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	/* A NULL format is a caller's bug; the guard also keeps gcc's
	 * -Wformat-truncation quiet under -fsanitize, which cannot prove it. */
	char probe[1];
	if (!fmt)
		fmt = "";
	/* Formatted into the room there is first: only text that does not
	 * fit is formatted twice (the C output is mostly printf). */
	size_t room = b->cap - b->n;
	int n = b->s ? vsnprintf(b->s + b->n, room, fmt, ap) : vsnprintf(probe, sizeof probe, fmt, ap);
	if (n > 0 && (!b->s || (size_t)n >= room)) {
		grow(b, (size_t)n);
		vsnprintf(b->s + b->n, (size_t)n + 1, fmt, aq);
	}
	if (n > 0)
		b->n += (size_t)n;
	else if (b->s)
		b->s[b->n] = 0;   /* an encoding error may have left part of a text */
	va_end(aq);
}

void kd_buf_printf(KdBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kd_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void kd_buf_free(KdBuf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}
