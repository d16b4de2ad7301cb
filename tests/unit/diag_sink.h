/* diag_sink.h: the compiler's unit tests send diagnostics to a temporary
 * file and read back what was reported so far. */
#ifndef KD_DIAG_SINK_H
#define KD_DIAG_SINK_H

#include <stdio.h>

/* Everything written to sink so far (at most 4 KiB). */
static inline const char *kd_sink_text(FILE *sink)
{
	static char text[4096];
	fflush(sink);
	rewind(sink);
	size_t n = fread(text, 1, sizeof text - 1, sink);
	text[n] = 0;
	return text;
}

#endif
