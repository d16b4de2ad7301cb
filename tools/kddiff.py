#!/usr/bin/env python3
"""kddiff: differential test of the passes.  Generates kernels with kdgen
for every target, runs each batch with `kdslc run` at -O0 and at -O1 on
the same seeded random inputs, and compares every output byte.  A
disagreement prints the kernel (ready to become a lit test) and fails.

  kddiff.py KDSLC WORKDIR COUNT SEED [BATCH]

COUNT kernels in all, split evenly over the three targets, BATCH kernels
per generated file (one C compile per file and level).  The generated C
is compiled with gcc -O1 unless CFLAGS says otherwise."""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import kdgen  # noqa: E402

kdslc, work, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
batch = int(sys.argv[5]) if len(sys.argv) > 5 else 40
targets = {'ascend': (kdgen.Ascend, ['src']), 'neuron': (kdgen.Neuron, ['src', 'pred']),
           'aipu': (kdgen.Aipu, ['src'])}
os.makedirs(work, exist_ok=True)

# `kdslc run` compiles with $CC: a wrapper makes every generated C file,
# at both levels, also pass gcc's warnings as errors (an optimised form
# the emitter renders badly shows up here, not only in a user's build).
# gcc at -O1 unless CFLAGS says otherwise (CFLAGS comes after kdslc's
# -O2, so it wins): the flow warnings still run, and the compiles, which
# are nearly all of this test's time, take half as long as at -O2.
strict_cc = os.path.join(os.path.abspath(work), 'strict-cc')
with open(strict_cc, 'w') as f:
    f.write('#!/bin/sh\nexec cc -std=c11 -Wall -Wextra -pedantic -Werror "$@"\n')
os.chmod(strict_cc, 0o755)
run_env = dict(os.environ, CC=strict_cc)
run_env.setdefault('CFLAGS', '-O1')


def run(path, level, out, args):
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.unlink(os.path.join(out, f))
    cmd = [kdslc, 'run', '-O%d' % level, path, '--out', out, '--quiet'] + args
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600, env=run_env)
    if r.returncode:
        sys.exit('FAIL: %s at -O%d exits %d\n%s' % (path, level, r.returncode,
                                                  r.stderr.decode('utf-8', 'replace')[-3000:]))
    return {f: open(os.path.join(out, f), 'rb').read() for f in sorted(os.listdir(out))}


def kernel_text(src, name):
    m = re.search(r'^kernel %s\(.*?^}\n' % re.escape(name), src, re.M | re.S)
    return m.group(0) if m else '(kernel %s not found)' % name


done = 0
names = sorted(targets)
per = [count // 3 + (1 if i < count % 3 else 0) for i in range(3)]
for ti, t in enumerate(names):
    cls, inputs = targets[t]
    left, b = per[ti], 0
    while left > 0:
        n = min(batch, left)
        bseed = seed * 1000003 + ti * 7919 + b
        gen = cls(kdgen.random.Random(bseed))
        src = 'target %s;\n\n' % t + '\n'.join(gen.kernel('k%d' % i) for i in range(n))
        path = os.path.join(work, '%s_%d.k' % (t, b))
        with open(path, 'w') as f:
            f.write(src)
        args = []
        for name in inputs:
            args += ['--arg', '%s=random:%d' % (name, bseed % 65536)]
        o0 = run(path, 0, os.path.join(work, 'o0'), args)
        o1 = run(path, 1, os.path.join(work, 'o1'), args)
        if o0.keys() != o1.keys():
            sys.exit('FAIL: %s: different output files %s / %s' % (path, sorted(o0), sorted(o1)))
        for f in o0:
            if o0[f] != o1[f]:
                k = f.split('.')[0]
                sys.exit('FAIL: %s: %s differs between -O0 and -O1; the kernel:\ntarget %s;\n\n%s'
                         % (path, f, t, kernel_text(src, k)))
        left -= n
        done += n
        b += 1
print('kddiff: %d kernels agree at -O0 and -O1 (seed %d)' % (done, seed))
