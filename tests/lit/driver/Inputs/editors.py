"""editors.py KDSLC SRCROOT: checks tools/editors' grammars against the
compiler.

The names come from the compiler, not from a copy: `kdslc --list-names`
(targets, dtypes, memory spaces, every op of every table, the IR's generic
ops as "op ir NAME") and the keywords of the two re2c lexers
(frontend/lex.re, ir/read/irlex.re).  For each grammar pair (source .k:
vim/syntax/kdsl.vim and kdsl.tmLanguage.json; textual IR .kir:
vim/syntax/kdslir.vim and kdslir.tmLanguage.json) it

1. loads the TextMate JSON and compiles every regex with Python's re,
   refusing constructs outside the subset Python and Oniguruma (the
   engine of VS Code and TextMate) read alike: named groups (?<n>...),
   atomic groups, possessive quantifiers, \\h, \\G, \\A, \\z, \\p{...};
2. tokenizes sample lines with a small TextMate interpreter (match,
   begin/end, captures, includes; the earliest match wins, ties go to the
   first rule) and checks that each name of each kind is one token with
   the expected scope: every keyword, dtype, memory space, target and op,
   numbers, strings, comments, and the IR's %values, @buffers and block
   labels;
3. checks the Vim files: each name in the `syn keyword` group of its
   kind, and, when vim is installed, runs it on the same samples and
   reads the syntax group at each name (synID);
4. checks that package.json (the VS Code extension tools/editors is)
   names existing files and each grammar's scopeName, and that Vim's
   ftdetect maps .k and .kir.

Prints one line per grammar and check; exits 1 on any failure."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print('FAIL: ' + msg)


# ---- the names -------------------------------------------------------

def compiler_names(kdslc):
    """{'target': [...], 'dtype': [...], 'space': [...], 'op': {tgt: [...]}}"""
    out = subprocess.run([kdslc, '--list-names'], check=True, capture_output=True,
                         text=True).stdout
    names = {'target': [], 'dtype': [], 'space': [], 'op': {}}
    for line in out.splitlines():
        f = line.split()
        if f[0] == 'op':
            names['op'].setdefault(f[1], []).append(f[2])
        else:
            names[f[0]].append(f[1])
    return names


def lexer_keywords(path, tk):
    """The words a re2c lexer turns into tokens of their own."""
    text = open(path, encoding='utf-8').read()
    words = re.findall(r'^\s*"([a-z]+)"\s*\{[^}\n]*tk = %s_' % tk, text, re.M)
    if not words:
        fail('no keywords found in %s' % path)
    return words


def lexer_dtypes(path):
    """frontend/lex.re's elemtype alternatives and "bool"."""
    text = open(path, encoding='utf-8').read()
    m = re.search(r'elemtype = (.*?);', text, re.S)
    words = re.findall(r'"([a-z0-9]+)"', m.group(1)) if m else []
    if re.search(r'elemtype \| "bool"', text):
        words.append('bool')
    return words


# ---- TextMate --------------------------------------------------------

UNSUPPORTED = [
    (r'\(\?<[A-Za-z]', 'a named group'),
    (r'\(\?>', 'an atomic group'),
    (r'(?<!\\)[*+?}]\+', 'a possessive quantifier'),
    (r'\\[hHGAzZ]', 'an Oniguruma-only escape'),
    (r'\\[pP]\{', 'a Unicode property'),
]


def regexes(node):
    """Every regex of a grammar: match, begin and end, at any depth."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ('match', 'begin', 'end') and isinstance(v, str):
                yield v
            else:
                yield from regexes(v)
    elif isinstance(node, list):
        for v in node:
            yield from regexes(v)


class Grammar:
    def __init__(self, path):
        self.g = json.load(open(path, encoding='utf-8'))
        self.path = path
        for key in ('name', 'scopeName', 'fileTypes', 'patterns'):
            if key not in self.g:
                fail('%s: no "%s"' % (path, key))
        self.n = 0
        for rx in regexes(self.g):
            self.n += 1
            for bad, what in UNSUPPORTED:
                if re.search(bad, rx):
                    fail('%s: %r uses %s' % (path, rx, what))
            try:
                re.compile(rx)
            except re.error as e:
                fail('%s: %r does not compile: %s' % (path, rx, e))

    def rules(self, patterns):
        """Patterns with includes resolved (#name, $self)."""
        out = []
        for p in patterns:
            inc = p.get('include')
            if inc is None:
                out.append(p)
            elif inc == '$self':
                out.extend(self.rules(self.g['patterns']))
            elif inc.startswith('#'):
                out.extend(self.rules(self.g['repository'][inc[1:]]['patterns']))
            else:
                fail('%s: include %r is outside the grammar' % (self.path, inc))
        return out

    def tokenize(self, text):
        """[(start, end, scopes)] over text, one line at a time (scopes:
        the open begin/end rules' names, then the token's own); a
        begin/end rule's scope stays open across lines."""
        toks, stack = [], []   # stack: (rule, compiled end)
        pos = 0
        for line in text.split('\n'):
            self._line(line, pos, toks, stack)
            pos += len(line) + 1
        return toks

    def _line(self, line, base, toks, stack):
        def add(s, e, name):
            toks.append((s, e, ' '.join([r['name'] for r, _ in stack] + [name])))
        i = 0
        while i <= len(line):
            rules = self.rules(stack[-1][0].get('patterns', [])) if stack else self.rules(self.g['patterns'])
            best = None
            if stack:
                m = stack[-1][1].search(line, i)
                if m:
                    best = (m.start(), -1, None, m)
            for k, r in enumerate(rules):
                rx = r.get('match') or r.get('begin')
                m = re.compile(rx).search(line, i)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), k, r, m)
            if best is None:
                if stack:
                    add(base + i, base + len(line), '')
                return
            start, k, r, m = best
            if stack and start > i:
                add(base + i, base + start, '')
            if r is None:          # the open rule's end
                add(base + m.start(), base + m.end(), '')
                stack.pop()
            elif 'begin' in r:
                add(base + m.start(), base + m.end(), r['name'])
                stack.append((r, re.compile(r['end'])))
            else:
                for g, c in r.get('captures', {}).items():
                    if m.group(int(g)) is not None:
                        add(base + m.start(int(g)), base + m.end(int(g)), c['name'])
                if 'name' in r:
                    add(base + m.start(), base + m.end(), r['name'])
            i = m.end() if m.end() > i else i + 1


def tm_check(tokens, start, end, prefixes, whole):
    """None if every character of [start, end) is in a token with a scope
    starting with one of prefixes (and, when whole, one token is exactly
    [start, end)), else what was found."""
    found = []
    for c in range(start, end):
        inner = [t for t in tokens if t[0] <= c < t[1]]
        scopes = ' | '.join(t[2].strip() for t in inner) or '(no scope)'
        if not any(p.startswith(prefixes) for t in inner for p in t[2].split()):
            return scopes
        found.append(scopes)
    if whole and not any(t[0] == start and t[1] == end for t in tokens):
        return 'not one token: ' + ', '.join(sorted(set(found)))
    return None


# ---- Vim -------------------------------------------------------------

def vim_keywords(path):
    """{word: group} from the `syn keyword` lines."""
    words = {}
    for line in open(path, encoding='utf-8'):
        f = line.split()
        if len(f) > 3 and f[0] == 'syn' and f[1] == 'keyword':
            for w in f[3:]:
                if w != 'contained':
                    words[w] = f[2]
    return words


def vim_groups(vim, syntax, text, positions):
    """The syntax group vim gives each (line, col) (1-based) of text."""
    with tempfile.TemporaryDirectory() as d:
        sample = os.path.join(d, 'sample.txt')
        out = os.path.join(d, 'out.txt')
        script = os.path.join(d, 'check.vim')
        with open(sample, 'w', encoding='utf-8') as f:
            f.write(text + '\n')
        with open(script, 'w', encoding='utf-8') as f:
            f.write('source %s\n' % syntax)
            f.write('let g:out = []\n')
            for ln, col in positions:
                f.write("call add(g:out, synIDattr(synID(%d, %d, 1), 'name'))\n" % (ln, col))
            f.write("call writefile(g:out, '%s')\nqa!\n" % out)
        subprocess.run([vim, '-u', 'NONE', '-i', 'NONE', '-N', '-n', '-es', '-S', script, sample],
                       check=False, capture_output=True, timeout=60)
        if not os.path.exists(out):
            fail('%s: vim did not run the check script' % syntax)
            return [''] * len(positions)
        return open(out, encoding='utf-8').read().split('\n')[:len(positions)]


# ---- samples ---------------------------------------------------------
# (line, word, TextMate scope prefixes, Vim groups, kind): the first
# occurrence of word in line is checked.

def source_samples(names, keywords, dtypes):
    s = []
    for kw in keywords:
        if kw in ('true', 'false'):
            s.append(('let b = %s;' % kw, kw, ('constant.language',), ('kdslBoolean',), 'keyword'))
        else:
            s.append((kw, kw, ('keyword.',), ('kdslKeyword',), 'keyword'))
    for t in names['target']:
        s.append(('target %s;' % t, t, ('constant.language.target',), ('kdslTarget',), 'target'))
    for dt in sorted(set(names['dtype']) | set(dtypes)):
        s.append(('let t: gm %s[4];' % dt, dt, ('storage.type',), ('kdslType',), 'dtype'))
    for vt in ('i32x8', 'bf16x16', 'u8x32', 'bool8x8', 'bool16x16'):
        s.append(('let v: %s = w;' % vt, vt, ('storage.type',), ('kdslType',), 'vector type'))
    for sp in names['space']:
        s.append(('let t: %s f32[4];' % sp, sp, ('storage.modifier.memory',), ('kdslSpace',), 'space'))
    for tgt, ops in names['op'].items():
        if tgt != 'ir':
            for op in ops:
                s.append(('    %s(x, y);' % op, op, ('support.function',), ('kdslOp',), 'op'))
    for n in ('42', '1_000', '0xffff_ffff', '0XAB', '1.5', '2.5e-3', '3e10'):
        s.append(('x = %s;' % n, n, ('constant.numeric',), ('kdslNumber', 'kdslFloat'), 'number'))
    s += [
        ('kernel scale(x: gm f32[4]) {', 'scale', ('entity.name.function',), ('',), 'kernel name'),
        ('vsel(a, b, "4TF\\n");', '"4TF\\n"', ('string.quoted',), ('kdslString',), 'string'),
        ('let a = 1; // vload(x) kernel', '// vload(x) kernel', ('comment.line',), ('kdslComment',), 'comment'),
        ('x = 1 /* let kernel */ + 2;', 'let', ('comment.block',), ('kdslComment',), 'comment'),
        ('/* two\n   lines vload(x) */ let', 'vload', ('comment.block',), ('kdslComment',), 'comment'),
        ('/* two\n   lines vload(x) */ let', 'let', ('keyword.',), ('kdslKeyword',), 'keyword after a comment'),
    ]
    return s


IR_ATTRS = ('at', 'alloc', 'mod', 'direct', 'base', 'blocks')   # irread_buf.c, read_neuron.c


def ir_samples(names, keywords):
    s = []
    for kw in keywords:
        s.append(('%s @k(%%x: gm f16[4]) {' % kw if kw == 'func' else '  %s @u: ub f16[4] at 0' % kw,
                  kw, ('keyword.',), ('kdslirKeyword',), 'keyword'))
    for a in IR_ATTRS:
        s.append(('  buffer @acc: psum f32[128, 512] %s=1' % a if a != 'at' else
                  '  buffer @u: ub f16[4] at 0', a, ('keyword.other.attribute',), ('kdslirAttr',), 'attribute'))
    for b in ('true', 'false'):
        s.append(('  %%3 = land %s, %%2' % b, b, ('constant.language',), ('kdslirBoolean',), 'boolean'))
    for dt in names['dtype'] + ['f64', 'str', 'i32x8', 'boolx8', 'int.none', 'float.f32']:
        s.append(('bb1(%%2: %s):' % dt, dt, ('storage.type',), ('kdslirType',), 'type'))
    for sp in names['space']:
        s.append(('  buffer @u: %s f16[128] at 0' % sp, sp, ('storage.modifier.memory',), ('kdslirSpace',), 'space'))
    for tgt, ops in names['op'].items():
        for op in ops:
            s.append(('  %%3 = %s %%1, %%2  ; 4:5' % op, op, ('support.function', 'keyword.control'),
                      ('kdslirOp', 'kdslirTerm'), 'op'))
    for v in ('%12', '%acc', '%i.1'):
        s.append(('  %%3 = add %s, 1' % v, v, ('variable.other.value',), ('kdslirValue',), 'value'))
    for n in ('-12', '42', '3.5', '1e-3', '-inf', 'nan'):
        s.append(('  %%3 = add %%1, %s' % n, n, ('constant.numeric',), ('kdslirNumber', 'kdslirFloat'), 'number'))
    s += [
        ('  %3 = tile @xs, 0, 0, 0, 128, 128', '@xs', ('variable.other.buffer',), ('kdslirGlobal',), 'buffer'),
        ('func @matmul(%x: hbm f32[128, 128]) {', '@matmul', ('entity.name.function',), ('kdslirGlobal',), 'function'),
        ('bb12:  ; for_i_body', 'bb12', ('entity.name.label',), ('kdslirLabel',), 'label'),
        ('  br %19, bb2, bb3  ; 14:5', 'bb3', ('entity.name.label',), ('kdslirLabel',), 'label'),
        ('  %2 = vmask "a\\x41\\n", 1', '"a\\x41\\n"', ('string.quoted',), ('kdslirString',), 'string'),
        ('; kdsl ir, target neuron', '; kdsl ir, target neuron', ('comment.line',), ('kdslirComment',), 'comment'),
        ('  load %3, %7  ; 12:5, name load', '; 12:5, name load', ('comment.line',), ('kdslirComment',), 'comment'),
    ]
    return s


def check(label, tm_path, vim_path, samples, vim):
    g = Grammar(tm_path)
    text = '\n'.join(line for line, *_ in samples)
    toks = g.tokenize(text)
    kw = vim_keywords(vim_path)
    positions, where = [], []
    base = 0
    for line, word, scopes, groups, kind in samples:
        i = line.find(word)
        if i < 0:
            fail('%s: sample %r lacks %r' % (label, line, word))
            continue
        start = base + i
        scope = tm_check(toks, start, start + len(word), scopes, kind not in ('string', 'comment'))
        if scope is not None:
            fail('%s: TextMate: %s %r in %r has scope %s, expected %s' % (label, kind, word, line, scope,
                                                                          ' or '.join(scopes)))
        # Vim: keyword groups statically, every sample through vim itself
        if kind in ('keyword', 'target', 'dtype', 'space', 'op') and groups[0] and kw.get(word) not in groups:
            fail('%s: Vim: %s %r is in group %s, expected %s' % (label, kind, word, kw.get(word),
                                                                 ' or '.join(groups)))
        before = text[:start]
        ln = before.count('\n') + 1
        col = start - (before.rfind('\n') + 1) + 1
        if groups[0]:
            positions += [(ln, col), (ln, col + len(word) - 1)]
            where.append((word, line, groups, kind))
        base += len(line) + 1
    print('%s: %d regexes compile; %d samples checked in %s' % (label, g.n, len(samples),
                                                                os.path.basename(tm_path)))
    if vim:
        got = vim_groups(vim, vim_path, text, positions)
        for k, (word, line, groups, kind) in enumerate(where):
            first, last = got[2 * k], got[2 * k + 1]
            if first not in groups or last != first:
                fail('%s: vim: %s %r in %r has groups %s..%s, expected %s' % (label, kind, word, line, first,
                                                                              last, ' or '.join(groups)))
        print('%s: vim ran %s on them' % (label, os.path.basename(vim_path)))
    else:
        print('%s: %s read statically (no vim installed)' % (label, os.path.basename(vim_path)))


def check_manifest(ed):
    """package.json (the VS Code extension that tools/editors is) names
    files that exist, and each grammar by its own scopeName."""
    m = json.load(open(os.path.join(ed, 'package.json'), encoding='utf-8'))
    c = m['contributes']
    for lang in c['languages']:
        if not os.path.exists(os.path.join(ed, lang['configuration'])):
            fail('package.json: %s is missing' % lang['configuration'])
        json.load(open(os.path.join(ed, lang['configuration']), encoding='utf-8'))
    for g in c['grammars']:
        scope = json.load(open(os.path.join(ed, g['path']), encoding='utf-8'))['scopeName']
        if scope != g['scopeName']:
            fail('package.json: %s has scope %s, not %s' % (g['path'], scope, g['scopeName']))
    exts = sorted(e for lang in c['languages'] for e in lang['extensions'])
    if exts != ['.k', '.kir']:
        fail('package.json: extensions %s' % exts)
    ftd = open(os.path.join(ed, 'vim', 'ftdetect', 'kdsl.vim'), encoding='utf-8').read()
    for pat in ('*.k set filetype=kdsl', '*.kir set filetype=kdslir'):
        if pat not in ftd:
            fail('vim/ftdetect/kdsl.vim lacks %r' % pat)
    print('package.json: %d languages, %d grammars; ftdetect: .k and .kir'
          % (len(c['languages']), len(c['grammars'])))


def vim_filetypes(vim, ed):
    """With tools/editors/vim on the runtime path, as the README installs
    it, vim gives a .k file the filetype kdsl (Vim's own reads .k as
    Kimwitu++) and a .kir file kdslir, with their syntax loaded."""
    with tempfile.TemporaryDirectory() as d:
        rc = os.path.join(d, 'vimrc')
        with open(rc, 'w', encoding='utf-8') as f:
            f.write('set runtimepath+=%s\nfiletype on\nsyntax on\n' % os.path.join(ed, 'vim'))
        for ext, ft in (('k', 'kdsl'), ('kir', 'kdslir')):
            src = os.path.join(d, 'x.' + ext)
            out = os.path.join(d, 'ft.txt')
            open(src, 'w', encoding='utf-8').write('target ascend;\n')
            subprocess.run([vim, '-u', rc, '-i', 'NONE', '-N', '-n', '-es', '-c',
                            "call writefile([&filetype . ' ' . get(b:, 'current_syntax', '')], '%s')" % out,
                            '-c', 'qa!', src], check=False, capture_output=True, timeout=60)
            got = open(out, encoding='utf-8').read().strip() if os.path.exists(out) else '(vim did not run)'
            if got != '%s %s' % (ft, ft):
                fail('vim: a .%s file gets filetype and syntax %r, expected %s' % (ext, got, ft))
    print('vim: .k is kdsl, .kir is kdslir')


def main():
    kdslc, root = sys.argv[1], sys.argv[2]
    ed = os.path.join(root, 'tools', 'editors')
    names = compiler_names(kdslc)
    src_kw = lexer_keywords(os.path.join(root, 'frontend', 'lex.re'), 'TK')
    ir_kw = lexer_keywords(os.path.join(root, 'ir', 'read', 'irlex.re'), 'IR')
    dtypes = lexer_dtypes(os.path.join(root, 'frontend', 'lex.re'))
    if set(dtypes) != set(names['dtype']):
        fail('lex.re dtypes %s differ from the table %s' % (sorted(dtypes), sorted(names['dtype'])))
    print('names: %d keywords, %d dtypes, %d spaces, %d targets, %d ops (%d generic); IR keywords %s'
          % (len(src_kw), len(names['dtype']), len(names['space']), len(names['target']),
             sum(len(v) for v in names['op'].values()), len(names['op'].get('ir', [])), ' '.join(ir_kw)))
    vim = shutil.which('vim')
    check('kdsl', os.path.join(ed, 'kdsl.tmLanguage.json'), os.path.join(ed, 'vim', 'syntax', 'kdsl.vim'),
          source_samples(names, src_kw, dtypes), vim)
    check('kdslir', os.path.join(ed, 'kdslir.tmLanguage.json'), os.path.join(ed, 'vim', 'syntax', 'kdslir.vim'),
          ir_samples(names, ir_kw), vim)
    check_manifest(ed)
    if vim:
        vim_filetypes(vim, ed)
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
