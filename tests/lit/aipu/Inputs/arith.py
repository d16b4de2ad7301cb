"""arith.py KDSLC ARITH.K DIR: runs each kernel of arith.k on the inputs
Compass's unit tests use and compares every output with the numpy
reference computed the way those tests compute it (vdiv: b != 0 ?
clip(a / b, range) : 0; vrpadd: np.sum of the masked x in the result
dtype; abs: np.abs, saturated through int64; rint: np.rint; clip:
np.clip between the 3rd smallest and 3rd largest; cast: numpy's astype
after the two stages the API documents).  Floats compare bit for bit,
NaN with NaN.  Prints what it compared, so it cannot pass on nothing;
exits 1 on a mismatch."""
import os
import subprocess
import sys

import numpy as np

np.seterr(all="ignore")   # the references overflow where the ops do (1e30 / 1e-30, 70000 to f16)

KDSLC, SRC, DIR = sys.argv[1:4]
RNG = np.random.default_rng(15)
BAD = []
COUNT = [0, 0]


def rand(n, dtype):
    """Random values over the dtype's whole range (Compass's rand)."""
    if np.dtype(dtype).kind == 'f':
        return (RNG.standard_normal(n) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, n, endpoint=True).astype(dtype)


def run(kernel, inputs, scalars=None):
    """Saves the inputs, runs the kernel, returns its outputs by name."""
    d = os.path.join(DIR, kernel)
    os.makedirs(d, exist_ok=True)
    args = []
    for name, arr in inputs.items():
        np.save(os.path.join(d, name + '.npy'), arr)
        args += ['--arg', '%s=%s' % (name, os.path.join(d, name + '.npy'))]
    for name, v in (scalars or {}).items():
        args += ['--arg', '%s=%d' % (name, v)]
    subprocess.run([KDSLC, 'run', SRC, '--kernel', kernel, '--quiet', '--out', d] + args,
                   check=True)
    return lambda name: np.load(os.path.join(d, kernel + '.' + name + '.npy'))


def same(what, got, want):
    want = np.asarray(want).astype(got.dtype)
    COUNT[0] += 1
    COUNT[1] += got.size
    if got.dtype.kind == 'f':
        ok = np.array_equal(np.isnan(got), np.isnan(want)) and \
            got[~np.isnan(got)].tobytes() == want[~np.isnan(want)].tobytes()
    else:
        ok = got.tobytes() == want.tobytes()
    if not ok:
        BAD.append(what)
        print('FAIL: %s\n  got  %s\n  want %s' % (what, got, want))


def div():
    ins = {}
    for k, dt, n in (('8', 'int8', 32), ('16', 'uint16', 16), ('32', 'int32', 8)):
        a, b = rand(n, dt), rand(n, dt)
        b[1] = 0
        if dt != 'uint16':
            a[0], b[0] = np.iinfo(dt).min, -1   # test_integer_vdiv_staturate
        ins['a' + k], ins['b' + k] = a, b
    ins['af'] = np.array([1, -1, 0, 7, 1e30, -3, 5, 2], np.float32)
    ins['bf'] = np.array([0, 0, 0, 3, 1e-30, 7, -0.0, 8], np.float32)
    out = run('div', ins)
    for k, dt in (('8', 'int8'), ('16', 'uint16'), ('32', 'int32')):
        a, b = ins['a' + k], ins['b' + k]
        with np.errstate(all='ignore'):
            want = np.where(b != 0, np.clip(a.astype(np.float64) / b, *range_of(dt)), 0)
        same('div ' + dt, out('q' + k), want.astype(dt))
    with np.errstate(all='ignore'):
        same('div float32', out('qf'), ins['af'] / ins['bf'])


def range_of(dt):
    return np.iinfo(dt).min, np.iinfo(dt).max


def rpadd():
    ins, masks = {}, {}
    for k, dt, mdt, n in (('8', 'int8', 'int8', 32), ('u', 'uint32', 'uint32', 8),
                          ('h', 'float16', 'int16', 16), ('f', 'float32', 'int32', 8)):
        ins['x' + k] = np.array(range(n), dtype=dt)
        masks[k] = RNG.integers(0, 2, n).astype(bool)
        ins['m' + k] = masks[k].astype(mdt)
    ins['xw'] = np.array(range(16), dtype=np.int32)
    out = run('rpadd', ins)
    for k, odt, n in (('8', 'int8', 32), ('u', 'uint32', 8), ('h', 'float32', 8), ('f', 'float32', 8)):
        want = np.zeros(n, odt)
        want[0] = np.sum(np.where(masks[k], ins['x' + k], 0), dtype=odt)
        same('vrpadd ' + k, out('s' + k), want)
    want = np.zeros(16, np.int32)
    want[0] = np.sum(ins['xw'], dtype=np.int32)
    same('vrpadd i32x16', out('sw'), want)


def sat_i32(f):
    """A float converted to an integer: NaN 0, saturated to i32, truncated."""
    f = np.where(np.isnan(f), 0, f.astype(np.float64))
    return np.trunc(np.clip(f, -2147483648.0, 2147483647.0)).astype(np.int64)


def casts():
    x = rand(32, 'int8')
    f = np.array([1.5, -1.5, np.nan, 3e9, -3e9, 255.9, -0.7, 1000.25], np.float32)
    h = np.array([0.1, 70000, -70000, 1e-8, 65504, 65520, 2049, -0.0,
                  1 / 3, 6e-5, 3.14159, -2.5, 1e4, 0.5, -1, 100.06], np.float32)
    out = run('casts', {'c8': x, 'cf': f, 'cfh': h})
    same('cast low', out('lo'), x[:16].astype(np.int16))
    same('cast high', out('hi'), x[16:].astype(np.int16))
    same('cast even', out('ev'), x[::2].astype(np.int16))
    same('cast odd', out('od'), x[1::2].astype(np.int16))
    same('cast ll', out('ll'), x[:8].astype(np.int32))
    same('cast hh', out('hh'), x[24:].astype(np.int32))
    w = x[:16].astype(np.int16) * np.int16(3)
    same('cast i16 to i8', out('nw'), w.astype(np.int8))
    same('cast i16 to u8, saturate', out('ns'), np.clip(w, 0, 255).astype(np.uint8))
    fi = sat_i32(f)
    same('cast f32 to i32', out('fi'), fi.astype(np.int32))
    same('cast f32 to u8', out('fu8'), fi.astype(np.uint8))
    same('cast f32 to f16', out('fh'), h.astype(np.float16))
    same('cast f16 to f32', out('fw'), h.astype(np.float16).astype(np.float32))
    same('cast i32 to f16', out('ih'), fi.astype(np.int32).astype(np.float64).astype(np.float16))


def misc():
    xc = RNG.integers(-1000, 1000, 8).astype(np.int32)
    lo, hi = int(np.sort(xc)[2]), int(np.sort(xc)[8 - 2])
    fc = np.array([-1, -0.5, 0.2, 0.75, 3, np.nan, -0.6, 9], np.float32)
    xa = rand(32, 'int8')
    xa[0], xa[1] = -128, 127
    fa = np.array([-0.0, np.nan, -np.inf, -1.5, 2, -3e38, 1e-40, 0], np.float32)
    fr = np.array([-0.4, 0.2, 1.4, 1.5, 1.6, 2.5, -2.5, 8388609.0], np.float32)
    hr = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, 1024.5, 2047.5,
                   -0.0, 3.7, -3.7, 100.5, np.inf, np.nan, 0.25, 65504], np.float16)
    mr = np.array([1, 0, 1, 1, 0, 1, 0, 1], np.int32)
    xb, yb, xu = rand(16, 'int16'), rand(16, 'int16'), rand(32, 'uint8')
    out = run('misc', {'xc': xc, 'fc': fc, 'xa': xa, 'fa': fa, 'fr': fr, 'hr': hr, 'mr': mr,
                       'xb': xb, 'yb': yb, 'xu': xu}, {'lo': lo, 'hi': hi})
    same('clip i32', out('yc'), np.clip(xc, lo, hi))
    m = np.array([True] * 7 + [False])
    same('clip f32, mask', out('gc'), np.where(m, np.clip(fc, np.float32(-0.5), np.float32(0.75)), fc))
    same('abs i8', out('ya'), np.abs(xa))
    same('abs i8, saturate', out('za'), np.minimum(np.abs(xa.astype(np.int64)), 127))
    same('abs f32', out('ga'), np.abs(fa))
    same('rint f32', out('gr'), np.rint(fr))
    same('rint f16', out('kr'), np.rint(hr))
    same('rint f32, mask', out('mg'), np.where(mr != 0, np.rint(fr), fr))
    same('and', out('band'), xb & yb)
    same('or', out('bor'), xb | yb)
    same('xor', out('bxor'), xb ^ yb)
    same('inv', out('binv'), ~xu)


div()
rpadd()
casts()
misc()
print('arith: %d outputs, %d elements as numpy computes them%s'
      % (COUNT[0], COUNT[1], ', %d FAILED' % len(BAD) if BAD else ''))
sys.exit(1 if BAD else 0)
