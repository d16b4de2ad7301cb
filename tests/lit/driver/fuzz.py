#!/usr/bin/env python3
"""Mutation fuzzing of kdslc: seeded, bounded, fast.  Every mutant of the
examples must give exit status 0 or 1 (never a signal, 2, or a sanitizer
report), and a mutant that compiles must give C that gcc accepts.
Seeds named *.kir are textual IR (kdslc --emit=ir): their mutants are
written as m.kir, so kdslc reads them as IR, and get IR tokens as well.
A run where fewer than --min-compiled mutants compile fails: a kdslc (or
a mutator) that rejects everything would otherwise pass, having checked
nothing past the first error.  The run is deterministic for a given
SEED, kdslc and seed files, so the floor only moves when they change.
usage: fuzz.py --min-compiled N KDSLC RTINC WORKDIR COUNT SEED EXAMPLES..."""
import argparse
import os
import random
import re
import subprocess
import sys

ap = argparse.ArgumentParser(usage=__doc__.rsplit('usage: ', 1)[1])
ap.add_argument('--min-compiled', type=int, required=True, metavar='N')
ap.add_argument('kdslc')
ap.add_argument('rtinc')
ap.add_argument('work')
ap.add_argument('count', type=int)
ap.add_argument('seed', type=int)
ap.add_argument('examples', nargs='+')
opt = ap.parse_args()
kdslc, rtinc, work, count = opt.kdslc, opt.rtinc, opt.work, opt.count
seeds = [(open(p, 'rb').read(), '.kir' if p.endswith('.kir') else '.k') for p in opt.examples]
rng = random.Random(opt.seed)
tokens = [b'(', b')', b'[', b']', b'{', b'}', b';', b',', b'..', b'=', b'0', b'-1', b'65536',
          b'i', b'ub', b'gm', b'l1', b'f16', b'data_move', b'for', b'if', b'let', b'var',
          b'"', b'/*', b'*/', b'//', b'\x00', b'\xff', b'1e999', b'0x', b'_', b'99999999999999999999']
ir_tokens = [b'%1', b'%999999', b'%n', b'@u', b'bb0', b'bb1(', b'bb9', b':', b' : i32x8', b' : boolx8',
             b' : f64', b'; 1:1', b', name x', b', loop %2 in 0..4 step 1', b'\n', b'view', b'tile',
             b'list', b'jmp', b'br', b'ret', b'cast.i8', b'vmask', b'true', b'1.5', b'-0',
             b' blocks=[2]', b' alloc=mod', b' mod=[3]', b'func', b'buffer', b'}', b'\n}\n']


edge_numbers = [b'0', b'1', b'-1', b'2', b'7', b'31', b'32', b'4096', b'5000', b'65536', b'2147483648',
                b'9223372036854775807', b'-9223372036854775808', b'1.5', b'true', b'"x"']


def mutate_numbers(data):
    """IR mutants that still parse: a number or value number of an
    instruction replaced, so the reader's checks, the rules, the passes
    and the emitter see odd but well-formed IR."""
    lines = data.split(b'\n')
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        code, sep, ann = lines[i].partition(b';')
        nums = list(re.finditer(rb'(?<![%\w@])-?\d+(?![\w:])|%\d+', code))
        if not nums:
            continue
        m = rng.choice(nums)
        rep = b'%%%d' % rng.randrange(80) if m.group().startswith(b'%') else rng.choice(edge_numbers)
        lines[i] = code[:m.start()] + rep + code[m.end():] + sep + ann
    return b'\n'.join(lines)


def mutate(data, tokens):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:                       # delete a span
            del data[pos:pos + rng.randint(1, 8)]
        elif op == 1:                              # insert a token
            data[pos:pos] = rng.choice(tokens)
        elif op == 2 and data:                     # flip a byte
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 3:                              # truncate
            del data[pos:]
        else:                                      # duplicate a span
            data[pos:pos] = data[pos:pos + rng.randint(1, 40)]
    return bytes(data)


os.makedirs(work, exist_ok=True)
bad = 0
compiled = 0
for n in range(count):
    seed, ext = rng.choice(seeds)
    if ext == '.kir' and rng.random() < 0.5:
        src = mutate_numbers(seed)
    else:
        src = mutate(seed, tokens + ir_tokens if ext == '.kir' else tokens)
    path = os.path.join(work, 'm' + ext)
    with open(path, 'wb') as f:
        f.write(src)
    r = subprocess.run([kdslc, path, '-o', os.path.join(work, 'm.c')],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    err = r.stderr.decode('utf-8', 'replace')
    if r.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
        bad += 1
        keep = os.path.join(work, 'crash-%d%s' % (n, ext))
        os.rename(path, keep)
        print('FAIL: exit %d on %s\n%s' % (r.returncode, keep, err[-2000:]))
        continue
    if r.returncode == 1 and 'error:' not in err:
        bad += 1
        print('FAIL: exit 1 without an error message on mutant %d' % n)
    if r.returncode == 0:
        compiled += 1
        c = subprocess.run(['gcc', '-std=c11', '-fsyntax-only', '-Wall', '-Wextra', '-pedantic', '-Werror',
                            '-I' + rtinc, os.path.join(work, 'm.c')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if c.returncode != 0:
            bad += 1
            keep = os.path.join(work, 'badc-%d%s' % (n, ext))
            os.rename(path, keep)
            print('FAIL: generated C does not compile for %s\n%s' % (keep, c.stderr.decode()[-2000:]))
if compiled < opt.min_compiled:
    bad += 1
    print('FAIL: only %d of %d mutants compiled, fewer than --min-compiled %d'
          % (compiled, count, opt.min_compiled))
print('fuzz: %d mutants, %d compiled (at least %d), %d failures' % (count, compiled, opt.min_compiled, bad))
sys.exit(1 if bad else 0)
