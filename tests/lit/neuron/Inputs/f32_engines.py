"""f32_engines.py gen|check DIR: the numpy side of f32_engines.test.

gen writes seeded inputs for the kernels of f32_engines.k and
examples/neuron_f32_rounding.k into DIR; check reads the kernels' outputs
(kdslc run --out DIR) and compares every byte with a reference computed
the way NKI's tests compute theirs, in np.float32 arithmetic (LANGUAGE.md,
neuron: inputs and scalar operands to f32, f32 math, f32 result to dst's
dtype).  Two readings are kdsl's, documented in docs/language.md: exp is
the f32 nearest e^x (np.exp in f64, rounded once; numpy's own f32 exp is
off by an ulp in many elements), and an f32 result stored into an integer
is truncated toward zero and wrapped (numpy's astype, with the wrap
spelled out so that out-of-range values are defined).  Prints how many
elements it compared; exits 1 on the first kernel with a mismatch.
"""
import os
import sys

import numpy as np

P = 128


def save_bf16(path, bits):
    """bits (uint16) as a bf16 .npy with descr '<V2', as ml_dtypes'
    bfloat16 writes it (kdsl and numpy's own 2-byte void write '|V2',
    which tests/lit/driver/npy_layouts.test reads)."""
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '<V2', 'fortran_order': False, 'shape': bits.shape})
        f.write(np.ascontiguousarray(bits, dtype='<u2').tobytes())


def bf16_to_f32(v):
    return (v.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_int(f, dt):
    """The f32 result f stored into integer dtype dt: truncated, wrapped."""
    f = f.astype(np.float64)
    f[~np.isfinite(f)] = 0
    return np.trunc(f).astype(np.int64).astype(dt)


def finite_halves(rng, shape):
    bits = rng.integers(0, 1 << 16, size=shape, dtype=np.uint32).astype(np.uint16)
    bits[(bits & 0x7c00) == 0x7c00] &= 0xbfff   # no inf/NaN: their payloads are not the point
    return bits


def gen(d):
    rng = np.random.default_rng(20261124)
    x = rng.uniform(-1000, 1000, (P, 512)).astype(np.float32)
    x.flat[:8] = [np.nan, np.inf, -np.inf, 3.4e38, -1.0e-45, 0.0, -0.0, 16777216.0]
    np.save(os.path.join(d, 'add_x.npy'), x)
    np.save(os.path.join(d, 'f16_a.npy'), finite_halves(rng, (P, 256)).view(np.float16))
    np.save(os.path.join(d, 'f16_b.npy'), finite_halves(rng, (P, 256)).view(np.float16))
    a = rng.integers(0, 1 << 16, size=(P, 256), dtype=np.uint32).astype(np.uint16)
    b = rng.integers(0, 1 << 16, size=(P, 256), dtype=np.uint32).astype(np.uint16)
    a[(a & 0x7f80) == 0x7f80] &= 0xbfff
    b[(b & 0x7f80) == 0x7f80] &= 0xbfff
    save_bf16(os.path.join(d, 'bf16_a.npy'), a)
    save_bf16(os.path.join(d, 'bf16_b.npy'), b)
    e = rng.uniform(-100, 100, (P, 512)).astype(np.float32)
    e.flat[:6] = [np.inf, -np.inf, 0.0, 88.72283, 88.72284, -103.97208]
    np.save(os.path.join(d, 'exp_x.npy'), e)
    i = rng.integers(-(1 << 31), 1 << 31, size=(P, 64), dtype=np.int64)
    near = rng.integers((1 << 24) - 64, (1 << 24) + 64, size=(P // 2, 64))
    i[:P // 2] = near * np.where(rng.integers(0, 2, size=near.shape) == 0, 1, -1)
    i.flat[:6] = [16777217, 16777216, -16777217, 2147483647, -2147483648, 33554435]
    np.save(os.path.join(d, 'i32_x.npy'), i.astype(np.int32))


def load(d, name):
    return np.load(os.path.join(d, name))


def same(what, got, want, counts):
    """Byte-for-byte comparison; counts the elements."""
    if got.dtype != want.dtype or got.shape != want.shape:
        sys.exit('f32_engines: %s: got %s%s, want %s%s' % (what, got.dtype, got.shape, want.dtype, want.shape))
    g = got.reshape(-1).view(np.uint8).reshape(got.size, -1)
    w = want.reshape(-1).view(np.uint8).reshape(want.size, -1)
    bad = np.nonzero((g != w).any(axis=1))[0]
    if bad.size:
        k = bad[0]
        sys.exit('f32_engines: %s: %d of %d elements differ; first at %d: got %r, want %r'
                 % (what, bad.size, got.size, k, got.reshape(-1)[k], want.reshape(-1)[k]))
    counts.append(got.size)


def check(d):
    counts = []
    with np.errstate(all='ignore'):
        x = load(d, 'add_x.npy')
        same('tensor_scalar add 2.2', load(d, 'scalar_add.y.npy'), x + np.float32(2.2), counts)
        a = load(d, 'f16_a.npy').astype(np.float32)
        b = load(d, 'f16_b.npy').astype(np.float32)
        same('tensor_tensor f16 multiply', load(d, 'tt_f16.prod.npy'), a * b, counts)
        same('tensor_tensor f16 subtract', load(d, 'tt_f16.diff.npy'), a - b, counts)
        a = bf16_to_f32(load(d, 'bf16_a.npy'))
        b = bf16_to_f32(load(d, 'bf16_b.npy'))
        same('tensor_tensor bf16 add', load(d, 'tt_bf16.sum.npy'), a + b, counts)
        e = load(d, 'exp_x.npy')
        same('activation exp', load(d, 'act_exp.y.npy'), np.exp(e.astype(np.float64)).astype(np.float32), counts)
        i = load(d, 'i32_x.npy')
        f = i.astype(np.float32)
        same('activation copy i32', load(d, 'copied.npy'), f32_to_int(f, np.int32), counts)
        same('tensor_scalar add 1 i32', load(d, 'plus_one.npy'), f32_to_int(f + np.float32(1), np.int32), counts)
        same('tensor_copy i32 -> f32', load(d, 'as_f32.npy'), f, counts)
        same('tensor_copy i32 -> u32', load(d, 'as_u32.npy'), f32_to_int(f, np.uint32), counts)
        same('tensor_copy i32 -> i32', load(d, 'same.npy'), i, counts)
        # the inputs tell f32 from exact arithmetic apart: not a vacuous pass
        if not (load(d, 'copied.npy') != i).any() or (x + np.float32(2.2) == (x.astype(np.float64) + 2.2).astype(np.float32)).all():
            sys.exit('f32_engines: the inputs do not exercise f32 rounding')
    print('f32_engines: %d outputs, %d elements byte-identical' % (len(counts), sum(counts)))


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('gen', 'check'):
        sys.exit('usage: f32_engines.py gen|check DIR')
    (gen if sys.argv[1] == 'gen' else check)(sys.argv[2])
