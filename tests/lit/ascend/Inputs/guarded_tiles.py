"""guarded_tiles.py gen DIR | check DIR

gen writes x.npy (1000 seeded random f16 values, NaN and inf excluded);
check reads y.npy, the output of examples/ascend_guarded_tiles.k (kdslc
run --out DIR), and compares every byte with numpy's f16 x + x computed
tile by tile as the TIK sample does: 7 tiles of 128 values, then the last
112 values (the tail rolled back to whole blocks).  Exits 1 on any
mismatch and prints how many bytes it compared.
"""
import os
import sys

import numpy as np

N, TILE, TAIL = 1000, 128, 112


def reference(x):
    y = np.zeros(N, dtype=np.float16)
    for t in range(8):
        lo, n = (t * TILE, TILE) if t < 7 else (N - TAIL, TAIL)
        with np.errstate(over='ignore'):   # large values round to inf, as on the device
            y[lo:lo + n] = x[lo:lo + n] + x[lo:lo + n]   # f16 + f16, rounded to f16
    return y


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == 'gen':
        rng = np.random.default_rng(4)
        bits = rng.integers(0, 0x7c00, N, dtype=np.uint16)      # finite, positive
        sign = rng.integers(0, 2, N, dtype=np.uint16) << 15
        np.save(os.path.join(d, 'x.npy'), (bits | sign).view(np.float16))
        return 0
    x = np.load(os.path.join(d, 'x.npy'))
    y = np.load(os.path.join(d, 'y.npy'))
    if y.dtype != np.float16 or y.shape != (N,):
        print('guarded_tiles: y is %s %s' % (y.dtype, y.shape))
        return 1
    want = reference(x).view(np.uint8)
    got = y.view(np.uint8)
    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = bad[0] // 2
        print('guarded_tiles: %d bytes differ, first in element %d: got %r, want %r'
              % (bad.size, i, y[i], reference(x)[i]))
        return 1
    print('guarded_tiles: %d bytes byte-identical' % got.size)
    return 0


if __name__ == '__main__':
    sys.exit(main())
