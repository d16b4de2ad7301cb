/* diag.c: every diagnostic of the compiler goes through here, so the
 * format (GCC's, with the source line and a caret) and the error count
 * live in one place. */
#include <stdlib.h>
#include <string.h>

#include "kd.h"

static const char *const wgroup_names[KD_W_NGROUP] = {"", "unused", "hazard", "mask-pad"};

const char *kd_wgroup_name(int group)
{
	return group > 0 && group < KD_W_NGROUP ? wgroup_names[group] : "";
}

int kd_wgroup_lookup(const char *name)
{
	for (int i = 1; i < KD_W_NGROUP; i++)
		if (!strcmp(name, wgroup_names[i]))
			return i;
	return -1;
}

void kd_diag_init(KdDiag *d, const KdSource *src, FILE *out)
{
	memset(d, 0, sizeof *d);
	d->src = src;
	d->out = out;
	d->max_errors = 50;
}

/* Echoes the line holding `at` and marks the span under it.  Bytes that a
 * terminal would not show one column wide become '?', tabs stay tabs, so
 * the caret lines up whatever the editor's tab width. */
static void show_line(const KdDiag *d, KdBuf *o, KdSpan at, int line, int col)
{
	const KdSource *s = d->src;
	uint32_t start = s->line_off[line - 1], end = start;
	while (end < s->len && s->text[end] != '\n')
		end++;
	if (end - start > 400)
		return;
	for (uint32_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)s->text[i];
		char ch = c == '\t' || (c >= 32 && c < 127) ? (char)c : '?';
		kd_buf_put(o, &ch, 1);
	}
	kd_buf_puts(o, "\n");
	for (uint32_t i = start; i < start + (uint32_t)col - 1 && i < end; i++)
		kd_buf_puts(o, s->text[i] == '\t' ? "\t" : " ");
	kd_buf_puts(o, "^");
	uint32_t stop = at.off + at.len < end ? at.off + at.len : end;
	for (uint32_t i = at.off + 1; i < stop; i++)
		kd_buf_puts(o, "~");
	kd_buf_puts(o, "\n");
}

/* One diagnostic's text: written at once, or held under its source
 * offset while kd_diag_hold is on.  A note belongs to the diagnostic
 * before it and moves with it. */
static void put(KdDiag *d, int sev, uint32_t key, KdBuf *text)
{
	if (!d->holding) {
		fwrite(text->s ? text->s : "", 1, text->n, d->out);
		kd_buf_free(text);
		return;
	}
	if (sev == KD_NOTE && d->nheld) {
		KdBuf *last = &d->held[d->nheld - 1].text;
		kd_buf_put(last, text->s ? text->s : "", text->n);
		kd_buf_free(text);
		return;
	}
	if (d->nheld == d->capheld) {
		int cap = d->capheld ? d->capheld * 2 : 16;
		void *v = realloc(d->held, sizeof *d->held * (size_t)cap);
		if (!v) {
			fwrite(text->s ? text->s : "", 1, text->n, d->out);
			kd_buf_free(text);
			return;
		}
		d->held = v;
		d->capheld = cap;
	}
	d->held[d->nheld].key = key;
	d->held[d->nheld].seq = d->nheld;
	d->held[d->nheld++].text = *text;
}

void kd_diag_hold(KdDiag *d)
{
	d->holding = 1;
}

static int by_offset(const void *x, const void *y)
{
	const KdHeldDiag *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

void kd_diag_flush(KdDiag *d)
{
	if (d->nheld)
		qsort(d->held, (size_t)d->nheld, sizeof *d->held, by_offset);
	for (int i = 0; i < d->nheld; i++) {
		KdBuf *t = &d->held[i].text;
		fwrite(t->s ? t->s : "", 1, t->n, d->out);
		kd_buf_free(t);
	}
	free(d->held);
	d->held = NULL;
	d->nheld = d->capheld = d->holding = 0;
}

void kd_vdiag(KdDiag *d, int sev, int group, KdSpan at, const char *fmt, va_list ap)
{
	const char *flag = NULL;
	if (sev == KD_WARNING) {
		if (group && d->wgroup_off[group])
			return;
		if (d->werror_all || (group && d->wgroup_err[group])) {
			sev = KD_ERROR;
			flag = "-Werror=";
		} else {
			flag = "-W";
		}
	}
	if (d->muted)
		return;
	KdBuf o = {0};
	if (sev == KD_ERROR && d->max_errors && d->nerror >= d->max_errors) {
		kd_buf_puts(&o, "kdslc: fatal error: too many errors emitted, stopping now\n");
		put(d, KD_ERROR, UINT32_MAX, &o);
		d->muted = 1;
		d->nerror++;
		return;
	}
	static const char *const sevname[] = {"error", "warning", "note"};
	int line = 0, col = 0;
	if (d->src) {
		if (at.off > d->src->len)
			at.off = (uint32_t)d->src->len;
		kd_source_linecol(d->src, at.off, &line, &col);
		kd_buf_printf(&o, "%s:%d:%d: %s: ", d->src->path, line, col, sevname[sev]);
	} else {
		kd_buf_printf(&o, "kdslc: %s: ", sevname[sev]);
	}
	kd_buf_vprintf(&o, fmt, ap);
	if (flag && group)
		kd_buf_printf(&o, " [%s%s]", flag, wgroup_names[group]);
	kd_buf_puts(&o, "\n");
	if (d->src)
		show_line(d, &o, at, line, col);
	put(d, sev, d->src ? at.off : UINT32_MAX, &o);
	if (sev == KD_ERROR)
		d->nerror++;
	else if (sev == KD_WARNING)
		d->nwarning++;
}

void kd_error(KdDiag *d, KdSpan at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kd_vdiag(d, KD_ERROR, 0, at, fmt, ap);
	va_end(ap);
}

void kd_warn(KdDiag *d, int group, KdSpan at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kd_vdiag(d, KD_WARNING, group, at, fmt, ap);
	va_end(ap);
}

void kd_note(KdDiag *d, KdSpan at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kd_vdiag(d, KD_NOTE, 0, at, fmt, ap);
	va_end(ap);
}

void kd_error_nopos(KdDiag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	KdBuf o = {0};
	kd_buf_puts(&o, "kdslc: error: ");
	kd_buf_vprintf(&o, fmt, ap);
	kd_buf_puts(&o, "\n");
	put(d, KD_ERROR, UINT32_MAX, &o);
	va_end(ap);
	d->nerror++;
}
