"""cost_samples.py KDSLC LITDIR TARGET...: the Cost: lines of the op
reference (kdslc --doc-ops, from the op table's cost_doc) and the cost
functions (what kdslc --stats adds up) say the same thing.

Each op's Cost: line gives its formula in backquotes, one per row when
it has several (`max(64, N)` when ..., else `max(64, 2 * N)`); the
paragraph above the ops gives the target's generic ops' formulas, named
"operators" here.  A lit kernel of LITDIR/TARGET/ that runs --stats
states, in comment lines before it,

    // COST: data_move(nburst=3, burst=5) + 2 * memset#2(N=8) + tail_mask#2

the ops it runs: OP#ROW (row 1 when left out) with its variables, times
a count.  For every such kernel this script evaluates the text's
formulas at those values, runs kdslc --stats -O0 on the file, and
compares the sum with the cycles kdslc reports: a formula changed in
the text or in the code alone fails here.  It also fails when an op has
no Cost: formula or is called by no --stats kernel, or when a row of an
op is evaluated by no sample (a constant row, such as aipu's `1` for a
mask result, needs one sample per target).  A textual IR file (.kir)
does the same with `; COST:` before `func @NAME(`: an op only a pass
makes (predicated_merge) has its samples there.  Prints one line per target;
exits 1 on a failure."""
import glob
import math
import os
import re
import subprocess
import sys

FORMULA = re.compile(r'^[A-Za-z0-9_ +*/(),]+$')
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print('FAIL: ' + msg)


def formulas(text):
    """The backquoted formulas of a doc paragraph (not `kdslc --stats`)."""
    return [f for f in re.findall(r'`([^`]*)`', text) if FORMULA.match(f)]


def doc_formulas(kdslc, target):
    """{op: [formula, ...]}, with the generic ops' under "operators"."""
    doc = subprocess.run([kdslc, '--doc-ops=' + target], check=True,
                         capture_output=True, text=True).stdout
    parts = re.split(r'^### `', doc, flags=re.M)
    out = {}
    written = {}
    intro = parts[0].split('except that', 1)
    if len(intro) == 2:
        out['operators'] = formulas(intro[1])
    for part in parts[1:]:
        name = part.split('(', 1)[0]
        m = re.search(r'^Cost: (.*)$', part, re.M)
        out[name] = formulas(m.group(1)) if m else []
        # an op written as a construct (elem_read: `let v = u[i];`)
        w = re.search(r'^Written `([^`]*)`; not called by name', part, re.M)
        if w:
            written[name] = w.group(1)
        # an op only a pass makes (predicated_merge): sampled from textual IR
        if re.search(r'^Made by the optimisation passes', part, re.M):
            written[name] = 'IR'
        if not out[name]:
            fail('%s: %s has no Cost: formula in backquotes' % (target, name))
    return out, written


def evaluate(formula, env):
    """The formula's value with env's variables: max, min, ceil, + * /."""
    names = set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', formula)) - {'max', 'min', 'ceil'}
    missing = names - set(env)
    if missing:
        raise ValueError('no value for %s' % ', '.join(sorted(missing)))
    scope = {'max': max, 'min': min, 'ceil': math.ceil, '__builtins__': {}}
    scope.update(env)
    return eval(formula, scope)   # FORMULA admits names, numbers, + * / ( ) only


TERM = re.compile(r'^(?:(\d+)\s*\*\s*)?([a-z_0-9]+)(?:#(\d+))?(?:\(([^)]*)\))?$')


def annotated(path):
    """[(kernel, [(count, op, row, env)], line)] of a file's // COST: lines
    (; COST: and func @NAME( in textual IR)."""
    out, pending, at = [], [], 0
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = re.match(r'\s*(?://|;) COST:(.*)$', line)
        if m:
            pending.append(m.group(1))
            at = at or n
            continue
        k = re.match(r'(?:kernel |func @)(\w+)\(', line)
        if k and pending:
            terms = []
            for t in ' '.join(pending).split('+'):
                tm = TERM.match(t.strip())
                if not tm:
                    fail('%s:%d: cannot read the term %r' % (path, at, t.strip()))
                    continue
                env = {}
                for b in filter(None, (x.strip() for x in (tm.group(4) or '').split(','))):
                    name, _, val = b.partition('=')
                    env[name.strip()] = int(val)
                terms.append((int(tm.group(1) or 1), tm.group(2), int(tm.group(3) or 1), env))
            out.append((k.group(1), terms, at))
            pending, at = [], 0
    return out


def stats_cycles(kdslc, path):
    """{kernel: cycles} of kdslc --stats -O0 on path."""
    r = subprocess.run([kdslc, path, '-O0', '-o', os.devnull, '--stats'],
                       capture_output=True, text=True)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'^kernel (\w+): \d+ ops, (\d+) cycles', r.stderr, re.M)}


def check_target(kdslc, litdir, t):
    docs, written = doc_formulas(kdslc, t)
    used, code, nsamples, sampled = set(), [], 0, set()
    paths = glob.glob(os.path.join(litdir, t, '*.k')) + glob.glob(os.path.join(litdir, t, '*.kir'))
    for path in sorted(paths):
        text = open(path, encoding='utf-8').read()
        if not (re.search(r'RUN:.*--stats', text) and re.search(r'CHECK.*cycles', text)):
            continue
        code.append(re.sub(r';[^\n]*' if path.endswith('.kir') else r'//[^\n]*', '', text))
        samples = annotated(path)
        if not samples:
            continue
        got = stats_cycles(kdslc, path)
        for kernel, terms, line in samples:
            total, ok = 0, True
            for count, op, row, env in terms:
                sampled.add(op)
                rows = docs.get(op)
                if not rows or row > len(rows):
                    fail('%s:%d: %s has no formula %d' % (path, line, op, row))
                    ok = False
                    continue
                try:
                    total += count * evaluate(rows[row - 1], env)
                except (ValueError, ZeroDivisionError, SyntaxError) as e:
                    fail('%s:%d: %s#%d `%s`: %s' % (path, line, op, row, rows[row - 1], e))
                    ok = False
                    continue
                const = not re.search(r'[A-Za-z_]', rows[row - 1])
                used.add(('const', rows[row - 1]) if const else (op, row))
            nsamples += 1
            if ok and total != got.get(kernel):
                fail('%s:%d: kernel %s: the Cost: formulas give %s cycles, kdslc --stats %s'
                     % (path, line, kernel, total, got.get(kernel)))
    calls = '\n'.join(code)
    # a construct's op is called when a --stats kernel's COST: line names
    # it (the kernel's cycles then include it: the sum above checks that)
    for op, rows in docs.items():
        if op in written and op in sampled:
            continue
        if op != 'operators' and not re.search(r'\b%s\s*\(' % re.escape(op), calls):
            fail('%s: %s is called by no --stats kernel in %s/%s/' % (t, op, litdir, t))
        for row, f in enumerate(rows, 1):
            key = ('const', f) if not re.search(r'[A-Za-z_]', f) else (op, row)
            if key not in used:
                fail('%s: no COST: sample evaluates %s#%d `%s`' % (t, op, row, f))
    nops = len([op for op in docs if op != 'operators'])
    print('%s: %d ops, %d formulas, each evaluated by a sample; %d kernels as --stats counts them'
          % (t, nops, sum(len(r) for r in docs.values()), nsamples))


def main():
    kdslc, litdir, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
    for t in targets:
        check_target(kdslc, litdir, t)
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
