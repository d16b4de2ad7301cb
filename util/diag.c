/* diag.c: every diagnostic of the compiler goes through here, so the
 * format (GCC's, with the source line and a caret) and the error count
 * live in one place. */
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
static void show_line(KdDiag *d, KdSpan at, int line, int col)
{
	const KdSource *s = d->src;
	uint32_t start = s->line_off[line - 1], end = start;
	while (end < s->len && s->text[end] != '\n')
		end++;
	if (end - start > 400)
		return;
	for (uint32_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)s->text[i];
		fputc(c == '\t' || (c >= 32 && c < 127) ? c : '?', d->out);
	}
	fputc('\n', d->out);
	for (uint32_t i = start; i < start + (uint32_t)col - 1 && i < end; i++)
		fputc(s->text[i] == '\t' ? '\t' : ' ', d->out);
	fputc('^', d->out);
	uint32_t stop = at.off + at.len < end ? at.off + at.len : end;
	for (uint32_t i = at.off + 1; i < stop; i++)
		fputc('~', d->out);
	fputc('\n', d->out);
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
	if (sev == KD_ERROR && d->max_errors && d->nerror >= d->max_errors) {
		fprintf(d->out, "kdslc: fatal error: too many errors emitted, stopping now\n");
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
		fprintf(d->out, "%s:%d:%d: %s: ", d->src->path, line, col, sevname[sev]);
	} else {
		fprintf(d->out, "kdslc: %s: ", sevname[sev]);
	}
	vfprintf(d->out, fmt, ap);
	if (flag && group)
		fprintf(d->out, " [%s%s]", flag, wgroup_names[group]);
	fputc('\n', d->out);
	if (d->src)
		show_line(d, at, line, col);
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
	fprintf(d->out, "kdslc: error: ");
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	va_end(ap);
	d->nerror++;
}
