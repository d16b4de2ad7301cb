"""mask_strings.py gen|check DIR N...: the numpy side of mask_strings_e2e.test.

gen writes seeded i32 inputs x and y for examples/aipu_mask_strings.k into
DIR; check reads the kernel's outputs (kdslc run --out DIR/nN, one run per
n) and compares every byte with a reference computed the way the Compass
DSL's tests compute theirs: each mask written out lane by lane as a list
of bools (not parsed from its string), np.where(mask, x, y) for vsel,
x[::2]/y[::2] interleaving for vzip, wrapping int32 arithmetic for +.
Prints how many elements it compared; exits 1 on any mismatch.
"""
import os
import sys

import numpy as np

T, F = True, False


def gen(d):
    rng = np.random.default_rng(20261124)
    np.save(os.path.join(d, 'x.npy'), rng.integers(-100, 100, 32, dtype=np.int32))
    y = rng.integers(-100, 100, 32, dtype=np.int32)
    y[17:29] = [2**31 - 1, -2**31, 5, -5, 7, 0, 1, -1, 2**31 - 1, 3, 4, -2**31]
    np.save(os.path.join(d, 'y.npy'), y)


def reference(x, y, n):
    vx, vy = x[:8], y[:8]
    strings = np.concatenate([
        np.where([T, T, T, F, F, F, F, F], vx, vy),       # "3T5F"
        np.where([F, T] * 4, vx, vy),                     # "4FT"
        np.where([F, T, T, F, T, T, F, T], vx, vy),       # "2FTT1FT"
    ])
    gt, neg = vx > vy, vy < 0
    tail = np.arange(8) < n
    logic = np.concatenate([
        np.where(gt & tail, vx, vy),
        np.where(gt | neg, vx, vy),
        np.where(gt ^ neg, vx, vy),
        np.where(~gt, vx, vy),
    ])
    zipped = np.empty(6, np.int32)
    zipped[0::2], zipped[1::2] = x[14:17], y[14:17]
    s12 = (x[17:29].astype(np.int64) + y[17:29]).astype(np.int32)   # wraps
    flex = np.concatenate([
        np.where([T, T, T, T, F, T], x[8:14], y[8:14]),              # "4T_FT"
        zipped,
        np.where([T, T, T, F, T, F, F, F, F, T, T, T], s12, 0),      # "3T_FT_4F_TTT"
    ])
    return {'strings': strings, 'logic': logic, 'flex': flex}


def check(d, ns):
    x = np.load(os.path.join(d, 'x.npy'))
    y = np.load(os.path.join(d, 'y.npy'))
    count = 0
    for n in ns:
        for name, want in reference(x, y, int(n)).items():
            got = np.load(os.path.join(d, 'n' + n, name + '.npy'))
            if got.dtype != np.int32 or got.shape != want.shape or got.tobytes() != want.astype(np.int32).tobytes():
                print('mask_strings: n=%s %s differs:\n got  %s\n want %s' % (n, name, got, want))
                sys.exit(1)
            count += want.size
    print('mask_strings: %d runs, %d elements byte-identical' % (len(ns), count))


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
