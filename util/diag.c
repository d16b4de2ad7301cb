/* diag.c: every diagnostic of the compiler goes through here, so the
 * format (GCC's, with the source line and a caret) and the error count
 * live in one place. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kd.h"

static const char *const wgroup_names[KD_W_NGROUP] = {"", "unused", "hazard", "mask-pad",
                                                      "matmul-overwrite"};

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

/* GCC's default colours (GCC_COLORS): bold locus, red error, magenta
 * warning, cyan note, green caret.  "\33[K" clears to the end of the line
 * so a coloured span never bleeds into the terminal's background. */
#define SGR_LOCUS "\33[01m\33[K"
#define SGR_CARET "\33[01;32m\33[K"
#define SGR_OFF "\33[m\33[K"
static const char *const sev_sgr[] = {"\33[01;31m\33[K", "\33[01;35m\33[K", "\33[01;36m\33[K"};
static const char *const sevname[] = {"error", "warning", "note"};

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
	kd_buf_puts(o, d->color ? SGR_CARET "^" : "^");
	uint32_t stop = at.off + at.len < end ? at.off + at.len : end;
	for (uint32_t i = at.off + 1; i < stop; i++)
		kd_buf_puts(o, "~");
	kd_buf_puts(o, d->color ? SGR_OFF "\n" : "\n");
}

/* Appends a JSON/SARIF record to the written list, in report order. */
static void keep(KdDiag *d, KdDiagRec *r)
{
	if (d->last)
		d->last->next = r;
	else
		d->first = r;
	d->last = r;
}

/* A note belongs to the diagnostic before it and moves with it. */
static void attach_note(KdDiag *d, KdDiagRec *r)
{
	KdDiagRec **p = &d->latest->notes;
	while (*p)
		p = &(*p)->next;
	*p = r;
}

static void free_rec(KdDiagRec *r)
{
	while (r) {
		KdDiagRec *next = r->next;
		free_rec(r->notes);
		free(r->msg);
		free(r);
		r = next;
	}
}

/* One diagnostic's text (or, for JSON/SARIF, its record): written at
 * once, or held under its source offset while kd_diag_hold is on. */
static void put(KdDiag *d, int sev, uint32_t key, KdBuf *text, KdDiagRec *rec)
{
	if (rec && sev == KD_NOTE && d->latest) {
		attach_note(d, rec);
		return;
	}
	if (rec)
		d->latest = rec;
	if (!d->holding) {
		if (rec)
			keep(d, rec);
		else
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
			if (rec)
				keep(d, rec);
			else
				fwrite(text->s ? text->s : "", 1, text->n, d->out);
			kd_buf_free(text);
			return;
		}
		d->held = v;
		d->capheld = cap;
	}
	d->held[d->nheld].key = key;
	d->held[d->nheld].seq = d->nheld;
	d->held[d->nheld].rec = rec;
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
		if (d->held[i].rec)
			keep(d, d->held[i].rec);
		else
			fwrite(t->s ? t->s : "", 1, t->n, d->out);
		kd_buf_free(t);
	}
	free(d->held);
	d->held = NULL;
	d->nheld = d->capheld = d->holding = 0;
}

/* The record of one diagnostic for JSON/SARIF; NULL in text mode (or out
 * of memory, when the diagnostic is dropped from the log but counted). */
static KdDiagRec *new_rec(KdDiag *d, int sev, int group, int promoted, KdSpan at,
                          const char *fmt, va_list ap)
{
	KdDiagRec *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->sev = sev;
	r->group = group;
	r->promoted = promoted;
	if (d->src) {
		kd_source_linecol(d->src, at.off, &r->line, &r->col);
		if (at.len > 1 && at.off + at.len <= d->src->len)
			kd_source_linecol(d->src, at.off + at.len - 1, &r->eline, &r->ecol);
	}
	KdBuf m = {0};
	kd_buf_vprintf(&m, fmt, ap);
	kd_buf_puts(&m, "");
	r->msg = m.s;
	return r;
}

/* Formats and files one diagnostic: text with the source line and caret,
 * or a record for the JSON/SARIF log. */
static void emit(KdDiag *d, int sev, int group, int promoted, KdSpan at, const char *fmt,
                 va_list ap)
{
	KdBuf o = {0};
	if (d->src && at.off > d->src->len)
		at.off = (uint32_t)d->src->len;
	if (d->format != KD_DIAG_TEXT) {
		KdDiagRec *r = new_rec(d, sev, group, promoted, at, fmt, ap);
		if (r)
			put(d, sev, d->src ? at.off : UINT32_MAX, &o, r);
		return;
	}
	int line = 0, col = 0;
	const char *on = d->color ? SGR_LOCUS : "", *off = d->color ? SGR_OFF : "";
	if (d->src) {
		kd_source_linecol(d->src, at.off, &line, &col);
		kd_buf_printf(&o, "%s%s:%d:%d:%s ", on, d->src->path, line, col, off);
	} else {
		kd_buf_printf(&o, "%skdslc:%s ", on, off);
	}
	kd_buf_printf(&o, "%s%s: %s", d->color ? sev_sgr[sev] : "", sevname[sev], off);
	kd_buf_vprintf(&o, fmt, ap);
	if (group && sev != KD_NOTE)
		kd_buf_printf(&o, " [%s%s%s%s]", d->color ? sev_sgr[sev] : "",
		              promoted ? "-Werror=" : "-W", wgroup_names[group], off);
	kd_buf_puts(&o, "\n");
	if (d->src)
		show_line(d, &o, at, line, col);
	put(d, sev, d->src ? at.off : UINT32_MAX, &o, NULL);
}

/* emit() with a format string of its own. */
static void emitf(KdDiag *d, int sev, KdSpan at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(d, sev, 0, 0, at, fmt, ap);
	va_end(ap);
}

void kd_vdiag(KdDiag *d, int sev, int group, KdSpan at, const char *fmt, va_list ap)
{
	int promoted = 0;
	if (sev == KD_WARNING) {
		if (group && d->wgroup_off[group])
			return;
		if (d->werror_all || (group && d->wgroup_err[group])) {
			sev = KD_ERROR;
			promoted = 1;
		}
	}
	if (d->muted)
		return;
	if (sev == KD_ERROR && d->max_errors && d->nerror >= d->max_errors) {
		const KdSource *src = d->src;
		d->src = NULL;
		if (d->format == KD_DIAG_TEXT) {
			KdBuf o = {0};
			kd_buf_puts(&o, "kdslc: fatal error: too many errors emitted, stopping now\n");
			put(d, KD_ERROR, UINT32_MAX, &o, NULL);
		} else {
			emitf(d, KD_ERROR, at, "too many errors emitted, stopping now");
		}
		d->src = src;
		d->muted = 1;
		d->nerror++;
		return;
	}
	emit(d, sev, group, promoted, at, fmt, ap);
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
	const KdSource *src = d->src;
	d->src = NULL;
	emit(d, KD_ERROR, 0, 0, (KdSpan){0, 0}, fmt, ap);
	d->src = src;
	va_end(ap);
	d->nerror++;
}

int kd_diag_format_of(const char *val)
{
	static const char *const formats[] = {[KD_DIAG_TEXT] = "text", [KD_DIAG_JSON] = "json",
	                                      [KD_DIAG_SARIF] = "sarif"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(val, formats[i]))
			return i;
	return -1;
}

int kd_diag_color_of(const char *val)
{
	static const char *const whens[] = {[KD_COLOR_AUTO] = "auto", [KD_COLOR_ALWAYS] = "always",
	                                    [KD_COLOR_NEVER] = "never"};
	if (!val)
		return KD_COLOR_ALWAYS;   /* GCC: a bare -fdiagnostics-color */
	for (int i = 0; i < 3; i++)
		if (!strcmp(val, whens[i]))
			return i;
	return -1;
}

void kd_diag_set_format(KdDiag *d, int format, int color)
{
	d->format = format;
	if (format != KD_DIAG_TEXT || color == KD_COLOR_NEVER) {
		d->color = 0;
	} else if (color == KD_COLOR_ALWAYS) {
		d->color = 1;
	} else {
		const char *term = getenv("TERM"), *no = getenv("NO_COLOR");
		d->color = isatty(fileno(d->out)) && term && strcmp(term, "dumb") && !(no && *no);
	}
}

/* A JSON string: quotes, backslashes and control bytes escaped; bytes
 * past ASCII become '?' (the source need not be UTF-8; JSON must be). */
void kd_json_str(KdBuf *o, const char *s)
{
	kd_buf_puts(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			kd_buf_printf(o, "\\%c", c);
		else if (c < 32)
			kd_buf_printf(o, "\\u%04x", c);
		else
			kd_buf_put(o, c < 127 ? (const char *)s : "?", 1);
	}
	kd_buf_puts(o, "\"");
}

/* GCC's position object: file, line, column (1-based bytes). */
static void json_pos(KdBuf *o, const char *file, int line, int col)
{
	kd_buf_puts(o, "{\"file\": ");
	kd_json_str(o, file);
	kd_buf_printf(o, ", \"line\": %d, \"column\": %d, \"display-column\": %d, \"byte-column\": %d}",
	              line, col, col, col);
}

/* Writes each record of a list with one(), comma separated (a JSON array's
 * items, without its brackets). */
static void json_list(KdBuf *o, const KdDiag *d, const KdDiagRec *first,
                      void (*one)(KdBuf *o, const KdDiag *d, const KdDiagRec *r))
{
	for (const KdDiagRec *r = first; r; r = r->next) {
		one(o, d, r);
		if (r->next)
			kd_buf_puts(o, ", ");
	}
}

/* One diagnostic of GCC's -fdiagnostics-format=json: kind, message,
 * locations (caret and, for a span, finish), option, children (notes). */
static void json_rec(KdBuf *o, const KdDiag *d, const KdDiagRec *r)
{
	kd_buf_printf(o, "{\"kind\": \"%s\", \"message\": ", sevname[r->sev]);
	kd_json_str(o, r->msg);
	kd_buf_puts(o, ", \"locations\": [");
	if (r->line) {
		kd_buf_puts(o, "{\"caret\": ");
		json_pos(o, d->src->path, r->line, r->col);
		if (r->eline) {
			kd_buf_puts(o, ", \"finish\": ");
			json_pos(o, d->src->path, r->eline, r->ecol);
		}
		kd_buf_puts(o, "}");
	}
	kd_buf_puts(o, "]");
	if (r->group && r->sev != KD_NOTE)
		kd_buf_printf(o, ", \"option\": \"%s%s\"", r->promoted ? "-Werror=" : "-W",
		              wgroup_names[r->group]);
	kd_buf_puts(o, ", \"column-origin\": 1, \"escape-source\": false, \"children\": [");
	json_list(o, d, r->notes, json_rec);
	kd_buf_puts(o, "]}");
}

/* A path as a URI reference for SARIF's artifactLocation: unreserved
 * bytes and '/' kept, everything else percent-encoded. */
static void uri_str(KdBuf *o, const char *s)
{
	kd_buf_puts(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/", c))
			kd_buf_put(o, (const char *)s, 1);
		else
			kd_buf_printf(o, "%%%02X", c);
	}
	kd_buf_puts(o, "\"");
}

/* A SARIF location: the file and the region of the span. */
static void sarif_loc(KdBuf *o, const KdDiag *d, const KdDiagRec *r, int with_msg)
{
	kd_buf_puts(o, "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ");
	uri_str(o, d->src->path);
	kd_buf_printf(o, "}, \"region\": {\"startLine\": %d, \"startColumn\": %d", r->line, r->col);
	if (r->eline)
		kd_buf_printf(o, ", \"endLine\": %d, \"endColumn\": %d", r->eline, r->ecol + 1);
	kd_buf_puts(o, "}}");
	if (with_msg) {
		kd_buf_puts(o, ", \"message\": {\"text\": ");
		kd_json_str(o, r->msg);
		kd_buf_puts(o, "}");
	}
	kd_buf_puts(o, "}");
}

/* SARIF rule ids: "error" for the compiler's errors, then one per warning
 * group (a promoted warning keeps its group's rule, at level error). */
static int rule_index(const KdDiagRec *r)
{
	return r->group ? r->group : 0;
}

/* One SARIF result; its notes are relatedLocations (a note without a
 * position is appended to the message instead). */
static void sarif_result(KdBuf *o, const KdDiag *d, const KdDiagRec *r)
{
	int k = rule_index(r);
	kd_buf_printf(o, "{\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"%s\", \"message\": {\"text\": ",
	              k ? wgroup_names[k] : "error", k, sevname[r->sev]);
	kd_json_str(o, r->msg);
	kd_buf_puts(o, "}, \"locations\": [");
	if (r->line)
		sarif_loc(o, d, r, 0);
	kd_buf_puts(o, "], \"relatedLocations\": [");
	int first = 1;
	for (const KdDiagRec *n = r->notes; n; n = n->next) {
		if (!n->line)
			continue;
		kd_buf_puts(o, first ? "" : ", ");
		sarif_loc(o, d, n, 1);
		first = 0;
	}
	kd_buf_puts(o, "]}");
}

/* The SARIF 2.1.0 log: one run of kdslc, its rules, its results. */
static void sarif_log(KdBuf *o, const KdDiag *d)
{
	kd_buf_puts(o, "{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", "
	               "\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": {\"name\": \"kdslc\", "
	               "\"version\": \"" KDSLC_VERSION "\", \"rules\": [");
	kd_buf_puts(o, "{\"id\": \"error\", \"shortDescription\": {\"text\": \"a rule of the language "
	               "or the target is broken\"}}");
	for (int g = 1; g < KD_W_NGROUP; g++)
		kd_buf_printf(o, ", {\"id\": \"%s\", \"shortDescription\": {\"text\": \"warning group "
		                 "-W%s\"}}", wgroup_names[g], wgroup_names[g]);
	kd_buf_puts(o, "]}}, \"columnKind\": \"unicodeCodePoints\", \"results\": [");
	json_list(o, d, d->first, sarif_result);
	kd_buf_puts(o, "]}]}\n");
}

void kd_diag_end(KdDiag *d)
{
	kd_diag_flush(d);
	if (d->format == KD_DIAG_TEXT)
		return;
	KdBuf o = {0};
	if (d->format == KD_DIAG_SARIF) {
		sarif_log(&o, d);
	} else {
		kd_buf_puts(&o, "[");
		json_list(&o, d, d->first, json_rec);
		kd_buf_puts(&o, "]\n");
	}
	fwrite(o.s, 1, o.n, d->out);
	kd_buf_free(&o);
	free_rec(d->first);
	d->first = d->last = d->latest = NULL;
}

/* Optimal string alignment distance over two rows and the one before,
 * stopping early once every cell of a row exceeds max. */
int kd_edit_distance(const char *a, size_t na, const char *b, size_t nb, int max)
{
	if (na > 64 || nb > 64 || (na > nb ? na - nb : nb - na) > (size_t)max)
		return max + 1;
	int rows[3][65];
	for (size_t j = 0; j <= nb; j++)
		rows[0][j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		/* row i in rows[i % 3]; rows i-1 and i-2 in the other two */
		int *c = rows[i % 3], *p = rows[(i + 2) % 3], *pp = rows[(i + 1) % 3];
		c[0] = (int)i;
		int best = c[0];
		for (size_t j = 1; j <= nb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = p[j - 1] + cost;
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	int r = rows[na % 3][nb];
	return r > max ? max + 1 : r;
}

void kd_near_init(KdNear *n, const char *word)
{
	n->word = word;
	n->best = NULL;
	n->dist = 3;
}

void kd_near_try(KdNear *n, const char *cand)
{
	size_t nw = strlen(n->word), nc = strlen(cand);
	if (!strcmp(n->word, cand))
		return;
	int dist = kd_edit_distance(n->word, nw, cand, nc, 2);
	if (dist < n->dist && (size_t)dist * 2 < nw) {
		n->best = cand;
		n->dist = dist;
	}
}

void kd_near_note(KdDiag *d, const KdNear *n, KdSpan at)
{
	if (n->best)
		kd_note(d, at, "did you mean '%s'?", n->best);
}
