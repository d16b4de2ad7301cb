"""vec_masks.py gen DIR | check DIR

gen writes a.npy, b.npy (f16) and c.npy (f32), seeded random values; check
reads the output of Inputs/vec_masks.k (kdslc run --out DIR) and compares
every byte of y and z with a numpy reference computed as TIK does: repeat
after repeat, each reading its sources before it writes, only the elements
the mask enables written (the others keep their value), f16 sums in
np.float16 (the correctly rounded sum) and f32 sums in np.float32.  Exits 1
on any mismatch, or when a mask would not matter to the result.
"""
import os
import sys

import numpy as np

# the runtime halves the test passes (--arg mh=, ml=), as u64 bits
MH = 12345678901234567890
ML = 0xff00ff00ff00ff01


def bits(h, l, n):
    """The elements [h, l] enables of a repeat of n elements."""
    v = (h << 64) | l
    return np.array([(v >> i) & 1 for i in range(n)], dtype=bool)


def vec_add(dst, s0, s1, off, mask, rep, strides):
    """off: element offsets of dst, src0, src1 in their arrays; strides in
    elements per repeat; mask: bool per element of a repeat."""
    n = mask.size
    for r in range(rep):
        d, a, b = (o + r * s for o, s in zip(off, strides))
        x = s0[a:a + n].copy()
        y = s1[b:b + n].copy()
        out = x + y
        seg = dst[d:d + n]
        seg[mask] = out[mask]


def vec_dup(dst, off, value, mask, rep, stride):
    n = mask.size
    for r in range(rep):
        seg = dst[off + r * stride:off + r * stride + n]
        seg[mask] = value


def reference(a, b, c):
    u, v, w = a.copy(), b.copy(), c.copy()
    w2 = np.zeros(512, dtype=np.float32)
    all16, all32 = np.ones(128, dtype=bool), np.ones(64, dtype=bool)
    m = bits(0xf0f0f0f0f0f0f0f0, 0x8000000000000001, 128)
    vec_add(u, u, v, (0, 0, 0), m, 4, (128, 128, 128))
    vec_dup(u, 512, np.float16(-2.5), bits(MH, ML, 128), 2, 128)
    vec_add(v, v, v, (0, 0, 0), all16, 8, (128, 128, 128))
    vec_add(w, w, w, (0, 64, 0), all32, 4, (0, 64, 0))
    vec_dup(w2, 0, np.float32(7.0), all32, 8, 64)
    vec_add(w2, w, w, (0, 0, 0), bits(0, 0xaaaaaaaaaaaaaaaa, 64), 8, (64, 64, 64))
    return np.concatenate([u, v]), np.concatenate([w, w2])


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == 'gen':
        rng = np.random.default_rng(6)
        np.save(os.path.join(d, 'a.npy'), rng.uniform(-60, 60, 1024).astype(np.float16))
        np.save(os.path.join(d, 'b.npy'), rng.uniform(-60, 60, 1024).astype(np.float16))
        np.save(os.path.join(d, 'c.npy'), rng.uniform(-1e3, 1e3, 512).astype(np.float32))
        return 0
    a, b, c = (np.load(os.path.join(d, n + '.npy')) for n in 'abc')
    want_y, want_z = reference(a, b, c)
    n = 0
    for name, want in (('y', want_y), ('z', want_z)):
        got = np.load(os.path.join(d, name + '.npy'))
        if got.dtype != want.dtype or got.shape != want.shape:
            print('vec_masks: %s is %s %s' % (name, got.dtype, got.shape))
            return 1
        gb, wb = got.view(np.uint8), want.view(np.uint8)
        bad = np.nonzero(gb != wb)[0]
        if bad.size:
            i = bad[0] // got.itemsize
            print('vec_masks: %s: %d bytes differ, first in element %d: got %r, want %r'
                  % (name, bad.size, i, got[i], want[i]))
            return 1
        n += gb.size
    # the masks must matter: some elements the masks leave alone differ
    # from what every element enabled would give
    added, kept = want_y[:512] == a[:512] + b[:512], want_y[:512] == a[:512]
    dup = want_y[512:768] == np.float16(-2.5)
    odd = want_z[512:] != np.float32(7.0)
    if added.all() or kept.all() or dup.all() or not dup.any() or odd.all() or not odd.any():
        print('vec_masks: the masks do not change the result')
        return 1
    print('vec_masks: %d bytes byte-identical' % n)
    return 0


if __name__ == '__main__':
    sys.exit(main())
