"""gather.py gen|check DIR: the numpy side of gather_e2e.test.

gen writes the inputs of Inputs/gather.k's kernels into DIR, drawn as
Compass's unit tests draw them (test_built_in_vload_gather.py,
test_built_in_vstore_scatter.py: data of the kernel's dtype, u16 indices
below the table's length); check reads the outputs (kdslc run --out
DIR/out) and compares them with the tests' references: a[b] for a
gather, out[idx] == value for a scatter (later lanes win where indices
repeat, as numpy's fancy assignment does).  Prints how many elements it
compared; exits 1 on any mismatch.
"""
import os
import sys

import numpy as np


def rand(rng, n, dtype, high=None):
    if high is not None:
        return rng.integers(0, high, n).astype(dtype)
    if np.dtype(dtype).kind == 'f':
        return rng.uniform(-100, 100, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)


def save(d, kernel, **arrays):
    for name, x in arrays.items():
        np.save(os.path.join(d, kernel + '.' + name + '.npy'), x)


def gen(d):
    rng = np.random.default_rng(1124)
    save(d, 'gather_i8', a=rand(rng, 64, 'int8'), b=rand(rng, 32, 'uint16', 64))
    save(d, 'gather_f32', a=rand(rng, 64, 'float32'), b=rand(rng, 8, 'uint16', 64))
    save(d, 'gather_composite', a=rand(rng, 1000, 'float32'), b=rand(rng, 80, 'uint16', 1000))
    save(d, 'scatter_i32', value=rand(rng, 8, 'int32'), idx=rand(rng, 8, 'uint16', 64),
         src=rand(rng, 64, 'int32'))
    save(d, 'scatter_composite', value=rand(rng, 80, 'int8'), idx=rand(rng, 80, 'uint16', 1000))
    # one index past the 64-element table, in lane 5
    np.save(os.path.join(d, 'bad.npy'), np.array([0, 1, 2, 63, 4, 64, 6, 7], 'uint16'))


def load(d, kernel, name, out=False):
    if out:
        return np.load(os.path.join(d, 'out', kernel + '.' + name + '.npy'))
    return np.load(os.path.join(d, kernel + '.' + name + '.npy'))


def same(kernel, got, want):
    if got.dtype != want.dtype or got.tobytes() != want.tobytes():
        print('gather: %s differs:\n got  %s\n want %s' % (kernel, got, want))
        sys.exit(1)
    return want.size


def check(d, idx_n):
    count = 0
    for k in ('gather_i8', 'gather_f32', 'gather_composite'):
        a, b = load(d, k, 'a'), load(d, k, 'b')
        n = idx_n if k == 'gather_composite' else b.size
        count += same(k, load(d, k, 'c', True)[:n], a[b[:n]])
    k = 'scatter_i32'
    value, idx, src = load(d, k, 'value'), load(d, k, 'idx'), load(d, k, 'src')
    gt = src.copy()
    gt[idx] = value
    count += same(k, load(d, k, 'out', True), gt)
    k = 'scatter_composite'
    value, idx = load(d, k, 'value')[:idx_n], load(d, k, 'idx')[:idx_n]
    gt = np.zeros(1000, 'int8')
    gt[idx] = value
    count += same(k, load(d, k, 'out', True)[idx], gt[idx])
    print('gather: 5 kernels, %d elements byte-identical' % count)


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
    else:
        check(sys.argv[2], int(sys.argv[3]))
