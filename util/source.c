/* source.c: loading a source file and mapping offsets to line:column. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kd.h"

static void index_lines(KdSource *src, KdArena *a)
{
	int n = 1;
	for (size_t i = 0; i < src->len; i++)
		n += src->text[i] == '\n';
	src->line_off = kd_alloc(a, sizeof *src->line_off * (size_t)n);
	src->nline = 0;
	src->line_off[src->nline++] = 0;
	for (size_t i = 0; i < src->len; i++)
		if (src->text[i] == '\n')
			src->line_off[src->nline++] = (uint32_t)(i + 1);
}

void kd_source_from_string(KdSource *src, KdArena *a, const char *path,
                           const char *text, size_t len)
{
	src->path = path;
	src->text = kd_strndup(a, text, len);
	src->len = len;
	index_lines(src, a);
}

int kd_source_load(KdSource *src, KdArena *a, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return -1;
	KdBuf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		kd_buf_put(&b, chunk, n);
	int bad = ferror(f);
	if (f != stdin)
		fclose(f);
	/* Offsets are 32-bit; a larger kernel source is not a real input. */
	if (bad || b.n > 0x7fffffffu) {
		kd_buf_free(&b);
		errno = bad ? EIO : EFBIG;
		return -1;
	}
	kd_source_from_string(src, a, strcmp(path, "-") ? path : "<stdin>", b.s ? b.s : "", b.n);
	kd_buf_free(&b);
	return 0;
}

void kd_source_linecol(const KdSource *src, uint32_t off, int *line, int *col)
{
	int lo = 0, hi = src->nline - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (src->line_off[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	*line = lo + 1;
	*col = (int)(off - src->line_off[lo]) + 1;
}

KdSpan kd_span_join(KdSpan a, KdSpan b)
{
	uint32_t lo = a.off < b.off ? a.off : b.off;
	uint32_t ea = a.off + a.len, eb = b.off + b.len;
	uint32_t hi = ea > eb ? ea : eb;
	return (KdSpan){lo, hi - lo};
}
