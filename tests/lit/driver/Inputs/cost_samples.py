"""cost_samples.py KDSLC LITDIR TARGET...: every op of each target's op
reference (kdslc --doc-ops) has a Cost: line, and a --stats sample: a
call of it in a lit kernel of LITDIR/TARGET/ that runs --stats and checks
a "cycles" line.  So an op added to the table without a sample that pins
its formula's numbers fails here (the samples themselves are the
FileCheck lines of those kernels).  Prints one line per target; exits 1
on a missing sample."""
import glob
import os
import re
import subprocess
import sys


def ops_of(kdslc, target):
    """(name, has a Cost: line) for each op of target's reference."""
    doc = subprocess.run([kdslc, '--doc-ops=' + target], check=True,
                         capture_output=True, text=True).stdout
    ops = []
    for part in re.split(r'^### `', doc, flags=re.M)[1:]:
        name = part.split('(', 1)[0]
        ops.append((name, re.search(r'^Cost: \S', part, re.M) is not None))
    return ops


def samples(litdir, target):
    """Source text (comments dropped) of the target's --stats kernels."""
    out = []
    for path in sorted(glob.glob(os.path.join(litdir, target, '*.k'))):
        text = open(path, encoding='utf-8').read()
        if re.search(r'RUN:.*--stats', text) and re.search(r'CHECK.*cycles', text):
            out.append(re.sub(r'//[^\n]*', '', text))
    return '\n'.join(out)


def main():
    kdslc, litdir, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = 0
    for t in targets:
        code = samples(litdir, t)
        ops = ops_of(kdslc, t)
        for name, has_cost in ops:
            if not has_cost:
                print('FAIL: %s: %s has no Cost: line' % (t, name))
                bad += 1
            if not re.search(r'\b%s\s*\(' % re.escape(name), code):
                print('FAIL: %s: %s has no --stats sample in %s/%s/' % (t, name, litdir, t))
                bad += 1
        print('%s: %d ops, each with a Cost: line and a --stats sample' % (t, len(ops)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
