"""kdsl's exceptions and the diagnostics a compile error carries."""
import json
import re


class Diagnostic:
    """One compiler diagnostic: file, line, column (1-based; 0 when it has
    no position), severity ('error', 'warning', 'note'), message, option
    (the warning group, '-Wunused', or None) and notes (Diagnostics)."""

    __slots__ = ('file', 'line', 'column', 'severity', 'message', 'option', 'notes')

    def __init__(self, file, line, column, severity, message, option=None, notes=()):
        self.file, self.line, self.column = file, line, column
        self.severity, self.message, self.option = severity, message, option
        self.notes = list(notes)

    def __str__(self):
        where = '%s:%d:%d: ' % (self.file, self.line, self.column) if self.line else ''
        return '%s%s: %s' % (where, self.severity, self.message)

    def __repr__(self):
        return 'Diagnostic(%r, %d, %d, %r, %r)' % (self.file, self.line, self.column,
                                                  self.severity, self.message)


def _one(rec):
    locs = rec.get('locations') or []
    caret = locs[0]['caret'] if locs else {}
    return Diagnostic(caret.get('file', ''), caret.get('line', 0), caret.get('column', 0),
                      rec.get('kind', 'error'), rec.get('message', ''), rec.get('option'),
                      [_one(c) for c in rec.get('children', [])])


def parse_json_diagnostics(text):
    """The Diagnostics of kdslc's -fdiagnostics-format=json output (a JSON
    array per run; other lines, such as 'kdslc: error: ...' usage errors,
    become position-less errors)."""
    diags = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            recs = json.loads(line)
        except ValueError:
            diags.append(Diagnostic('', 0, 0, 'error', re.sub(r'^kdslc: error: ', '', line)))
            continue
        diags.extend(_one(r) for r in (recs if isinstance(recs, list) else [recs]))
    return diags


class CompileError(Exception):
    """kdslc or the C compiler rejected a kernel file.  diagnostics: the
    Diagnostics (errors with their notes; warnings too); text: what kdslc
    prints for them (GCC style, with carets)."""

    def __init__(self, text, diagnostics=()):
        self.text = text
        self.diagnostics = list(diagnostics)
        super().__init__(text.rstrip('\n') or 'compile failed')

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == 'error']


class KernelError(RuntimeError):
    """A kernel returned an error: code (KDSL_ERR_*), message (the
    runtime's whole last error, "file.k:LINE:COL: op: message"), and its
    location: file, line, column (None when the error has none)."""

    def __init__(self, kernel, code, message, locus):
        self.kernel, self.code, self.message = kernel, code, message
        self.file = self.line = self.column = None
        if locus:
            where = message[:locus]
            file, line, col = where.rsplit(':', 2)
            self.file, self.line, self.column = file, int(line), int(col)
            text = '%s: error: %s' % (where, message[locus:].lstrip(': '))
        else:
            text = 'error: %s' % (message or 'kernel %s failed with code %d' % (kernel, code))
        super().__init__(text)
