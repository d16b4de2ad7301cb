"""npy_layouts.py gen|check DIR: the numpy side of npy_layouts.test.

gen writes, with numpy's own np.save, the inputs of two kernels of
tests/lit/neuron/Inputs/f32_engines.k in the layouts np.load reads but
kdsl does not write: a Fortran-order f32 array, a big-endian ('>f4') one,
and bf16 bits as the 2-byte void numpy writes ('|V2').  It asserts each
header says so, so the test cannot pass on files in kdsl's own layout.
check compares what `kdslc run --out` wrote with numpy's f32 arithmetic
and checks that kdsl writes bf16 as numpy does ('|V2', the same bits).
Prints how many elements it compared; exits 1 on a mismatch.
"""
import os
import sys

import numpy as np

P = 128


def header(path):
    with open(path, 'rb') as f:
        major, _ = np.lib.format.read_magic(f)
        assert major == 1, path
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    return shape, fortran, dtype.str


def inputs():
    rng = np.random.default_rng(1124)
    x = rng.uniform(-1000, 1000, (P, 512)).astype(np.float32)
    a = rng.integers(0, 1 << 16, size=(P, 256), dtype=np.uint32).astype(np.uint16)
    b = rng.integers(0, 1 << 16, size=(P, 256), dtype=np.uint32).astype(np.uint16)
    a[(a & 0x7f80) == 0x7f80] &= 0xbfff   # no inf/NaN in bf16
    b[(b & 0x7f80) == 0x7f80] &= 0xbfff
    return x, a, b


def bf16_to_f32(v):
    return (v.astype(np.uint32) << 16).view(np.float32)


def gen(d):
    x, a, b = inputs()
    np.save(os.path.join(d, 'x_fortran.npy'), np.asfortranarray(x))
    np.save(os.path.join(d, 'x_big.npy'), x.astype('>f4'))
    np.save(os.path.join(d, 'a_void.npy'), a.view('V2'))
    np.save(os.path.join(d, 'b_void.npy'), b.view('V2'))
    assert header(os.path.join(d, 'x_fortran.npy'))[1] is True
    assert header(os.path.join(d, 'x_big.npy'))[2] == '>f4'
    assert header(os.path.join(d, 'a_void.npy'))[2] == '|V2'


def same(name, got, want):
    if got.shape != want.shape or got.tobytes() != want.tobytes():
        print('%s: mismatch' % name)
        sys.exit(1)
    return got.size


def check(d):
    x, a, b = inputs()
    n = 0
    want = x + np.float32(2.2)
    n += same('fortran y', np.load(os.path.join(d, 'fortran', 'scalar_add.y.npy')), want)
    n += same('big-endian y', np.load(os.path.join(d, 'big', 'scalar_add.y.npy')), want)
    with np.errstate(over='ignore'):   # large bf16 sums overflow f32 to inf, as in the kernel
        want = bf16_to_f32(a) + bf16_to_f32(b)
    n += same('bf16 sum', np.load(os.path.join(d, 'bf16', 'tt_bf16.sum.npy')), want)
    # kdsl writes bf16 as numpy writes a 2-byte void, holding the same bits
    path = os.path.join(d, 'bf16', 'tt_bf16.a.npy')
    if header(path)[2] != '|V2':
        print('%s: descr %s, not |V2' % (path, header(path)[2]))
        sys.exit(1)
    n += same('bf16 a', np.load(path).view(np.uint16), a)
    print('compared %d elements' % n)


if __name__ == '__main__':
    {'gen': gen, 'check': check}[sys.argv[1]](sys.argv[2])
