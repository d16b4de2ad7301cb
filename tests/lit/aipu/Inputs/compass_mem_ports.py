"""compass_mem_ports.py gen|check PORT DIR [N]: the numpy side of the
memory ports' tests (compass_deinterleave.test, compass_lut.test).

gen writes the port's inputs into DIR; check reads its outputs (kdslc run
--out DIR) and compares them with the reference computed as Compass's
tests compute theirs: a stride-s load is a[i * s] for lane i
(test_vload_stride), so the de-interleave is x[0::2] and x[1::2]; a
gather is table[index] (test_vload_gather).  Prints how many elements it
compared and how many differ; exits 1 on a difference.
"""
import os
import sys

import numpy as np


def load(d, name):
    return np.load(os.path.join(d, name + '.npy'))


def gen_deinterleave(d):
    rng = np.random.default_rng(1124)
    x = rng.uniform(-1000, 1000, 512).astype(np.float16)
    np.save(os.path.join(d, 'x.npy'), x)


def check_deinterleave(d, n):
    x = load(d, 'x')[:2 * n]
    want = {'re': x[0::2], 'im': x[1::2]}
    sw = np.empty(2 * n, np.float16)
    sw[0::2], sw[1::2] = x[1::2], x[0::2]
    want['swapped'] = sw
    count = bad = 0
    for name, w in want.items():
        got = load(d, name)[:w.size]
        bad += int(np.count_nonzero(got.view(np.uint16) != w.view(np.uint16)))
        count += w.size
    return count, bad


def gen_lut(d):
    rng = np.random.default_rng(1124)
    # the tutorial's table: a function sampled at 512 points (here silu
    # on [-8, 8], stored as f16), looked up by u16 indices below 512
    xs = np.linspace(-8, 8, 512)
    np.save(os.path.join(d, 'table.npy'), (xs / (1 + np.exp(-xs))).astype(np.float16))
    np.save(os.path.join(d, 'index.npy'), rng.integers(0, 511, 1024).astype(np.uint16))


def check_lut(d, n):
    table, index = load(d, 'table'), load(d, 'index')[:n]
    count = bad = 0
    # the difference of two f16 values is exact in f64: one rounding to
    # f16, as an f16 vector subtraction rounds
    want = {'y': table[index], 'dy': (table[index + 1].astype(np.float64) -
                                      table[index].astype(np.float64)).astype(np.float16)}
    for name, w in want.items():
        got = load(d, name)[:n]
        bad += int(np.count_nonzero(got.view(np.uint16) != w.view(np.uint16)))
        count += w.size
    return count, bad


if __name__ == '__main__':
    what, port, d = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == 'gen':
        globals()['gen_' + port](d)
    else:
        n = int(sys.argv[4])
        count, bad = globals()['check_' + port](d, n)
        print('%s: %d elements, %d mismatching outputs' % (port, count, bad))
        sys.exit(1 if bad or not count else 0)
