"""reduce_mean.py KDSLC EXAMPLE DIR: runs examples/compass_reduce_mean.k on
the three cases of Compass's test_reduce_mean.py (reduce over axis 0, 2
and 1 of a 3-D shape, normalised to [b, h, w] as its norm_shape_axis
does), on its input (uniform f16 in -10..10), and compares the output
with its reference, np.mean(x, axis, keepdims=True).astype(f16), under
its assert_allclose: equal when the f16 bit patterns differ by at most 2
or the values by at most 1e-6.  Prints what it compared; exits 1 on a
mismatch."""
import os
import subprocess
import sys

import numpy as np

KDSLC, SRC, DIR = sys.argv[1:4]
IN_ELEMS, OUT_ELEMS = 2304, 64    # the example's in0 and out0
RNG = np.random.default_rng(4)
# (x_shape, axis): the test's reduce_h_on_hxw, reduce_w_on_hxw and
# batch_x_reduce_h_on_hxw, with shapes that fit the example's tensors
CASES = (((37, 5, 9), 0), ((6, 7, 53), 2), ((3, 29, 21), 1))


def norm_shape_axis(x_shape, axis):
    """The test's: the shape as [before axis, axis, after axis]."""
    return (int(np.prod(x_shape[:axis])), x_shape[axis], int(np.prod(x_shape[axis + 1:]))), 1


def close(actual, desired):
    """Compass's testing.assert_allclose on f16 with its default tolerances."""
    bits = np.abs(actual.view(np.int16).astype(np.int32) - desired.view(np.int16).astype(np.int32))
    finite = np.isfinite(actual) & np.isfinite(desired)
    return (bits <= 2) & finite | (np.abs(actual.astype(np.float64) - desired) <= 1e-6)


bad = total = 0
for i, (x_shape, axis) in enumerate(CASES):
    shape3, axis3 = norm_shape_axis(x_shape, axis)
    x = RNG.uniform(-10, 10, shape3).astype(np.float16)
    gt = np.mean(x, axis=axis3, keepdims=True).astype(np.float16).flatten()
    d = os.path.join(DIR, 'case%d' % i)
    os.makedirs(os.path.join(d, 'in'), exist_ok=True)
    src = os.path.join(d, 'in', 'in0.npy')
    np.save(src, np.concatenate([x.flatten(), np.zeros(IN_ELEMS - x.size, np.float16)]))
    b, h, w = shape3
    subprocess.run([KDSLC, 'run', SRC, '--quiet', '--out', d, '--arg', 'in0=' + src,
                    '--arg', 'out0=zeros', '--arg', 'b=%d' % b, '--arg', 'h=%d' % h, '--arg', 'w=%d' % w],
                   check=True)
    out = np.load(os.path.join(d, 'out0.npy'))   # one kernel: named after the parameter
    got, rest = out[:gt.size], out[gt.size:]
    ok = close(got, gt)
    total += gt.size
    if not ok.all() or rest.any():
        bad += 1
        print('FAIL: shape %s axis %d: got %s, want %s (%d elements past the output written)'
              % (x_shape, axis, got[~ok], gt[~ok], np.count_nonzero(rest)))
print('reduce_mean: %d cases, %d means as numpy computes them%s'
      % (len(CASES), total, ', %d FAILED' % bad if bad else ''))
sys.exit(1 if bad else 0)
