"""bursts_in_order.py gen DIR | check DIR

gen writes x.npy (seeded random bytes); check reads the output of
Inputs/bursts_in_order.k (kdslc run --out DIR) and compares every byte
with a reference that runs each data_move's bursts one after the other,
burst k copying its bytes after burst k-1 has completed (docs/language.md,
data_move).  Exits 1 on any mismatch and prints how many bytes it
compared.
"""
import os
import sys

import numpy as np

N = 2048
# (dst_off, src_off, nburst, burst, src_stride, dst_stride) within ub,
# the ub->ub moves of the kernel in its order
MOVES = [
    (32, 0, 8, 1, 0, 0),
    (320, 384, 6, 2, 0, 0),
    (640, 544, 5, 2, 1, 0),
    (800, 1024, 4, 1, 0, 2),
    (1088, 1024, 1, 2, 0, 0),
    (1152, 1088, 1, 2, 0, 0),
    (1408, 1344, 3, 1, 0, 0),
    (1376, 1344, 3, 1, 0, 0),
]


def in_order(u, d, s, nb, bl, ss, ds):
    n = bl * 32
    for k in range(nb):
        a = s + k * (bl + ss) * 32
        b = d + k * (bl + ds) * 32
        u[b:b + n] = u[a:a + n].copy()   # one burst: read all, then write


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == 'gen':
        rng = np.random.default_rng(13)
        np.save(os.path.join(d, 'x.npy'), rng.integers(0, 256, N, dtype=np.uint8))
        return 0
    u = np.load(os.path.join(d, 'x.npy')).copy()
    for m in MOVES:
        in_order(u, *m)
    y = np.load(os.path.join(d, 'y.npy'))
    if y.dtype != np.uint8 or y.shape != (N,):
        print('bursts_in_order: y is %s %s' % (y.dtype, y.shape))
        return 1
    bad = np.nonzero(y != u)[0]
    if bad.size:
        print('bursts_in_order: %d bytes differ, first at %d: got %d, want %d'
              % (bad.size, bad[0], y[bad[0]], u[bad[0]]))
        return 1
    # a plain snapshot (memmove per move) must give other bytes, or the
    # kernel would not test the order at all
    v = np.load(os.path.join(d, 'x.npy')).copy()
    for (dd, s, nb, bl, ss, ds) in MOVES:
        src = v.copy()
        for k in range(nb):
            a, b = s + k * (bl + ss) * 32, dd + k * (bl + ds) * 32
            v[b:b + bl * 32] = src[a:a + bl * 32]
    if np.array_equal(v, u):
        print('bursts_in_order: the reference does not depend on the order')
        return 1
    print('bursts_in_order: %d bytes byte-identical' % y.size)
    return 0


if __name__ == '__main__':
    sys.exit(main())
