"""vec_binary.py gen DIR | check DIR

gen writes seeded random inputs (f16 in -8..8 with a NaN and both zeros,
f32 likewise, i32 over the whole range so sums and products wrap); check
compares the outputs of Inputs/vec_binary.k (kdslc run --out DIR) bit for
bit with numpy computed as TIK does (docs/language.md, "The two-source
vector ops"): f16 and f32 results are the exact result rounded once
(computed in float64, then cast), i32 wraps, max/min pick an operand with
NaN winning (np.maximum/np.minimum).  Exits 1 on any mismatch.
"""
import os
import sys

import numpy as np

OPS = ["add", "sub", "mul", "max", "min"]


def ref(op, a, b, dt):
    if dt == np.int32:
        x, y = a.astype(np.int64), b.astype(np.int64)
        r = {"add": x + y, "sub": x - y, "mul": x * y,
             "max": np.maximum(x, y), "min": np.minimum(x, y)}[op]
        return (r & 0xffffffff).astype(np.uint32).view(np.int32)
    x, y = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        r = {"add": x + y, "sub": x - y, "mul": x * y,
             "max": np.maximum(x, y), "min": np.minimum(x, y)}[op]
    return r.astype(dt)


def gen(d):
    rng = np.random.default_rng(15)
    a = rng.uniform(-8, 8, 256).astype(np.float16)
    b = rng.uniform(-8, 8, 256).astype(np.float16)
    a[3], b[4], a[5], b[5] = np.nan, np.nan, 0.0, -0.0
    c = rng.uniform(-8, 8, 128).astype(np.float32)
    dd = rng.uniform(-8, 8, 128).astype(np.float32)
    c[7] = np.nan
    e = rng.integers(-2**31, 2**31, 128, dtype=np.int64).astype(np.int32)
    g = rng.integers(-2**31, 2**31, 128, dtype=np.int64).astype(np.int32)
    for name, v in dict(a=a, b=b, c=c, d=dd, e=e, g=g).items():
        np.save(os.path.join(d, name + ".npy"), v)


def same(got, want):
    """Bit-equal, any NaN equal to any NaN (the payload is the engine's)."""
    gn, wn = np.isnan(got), np.isnan(want)
    if not np.array_equal(gn, wn):
        return False
    return np.array_equal(got[~gn].view(np.uint8 if got.itemsize == 1 else
                                        {2: np.uint16, 4: np.uint32}[got.itemsize]),
                          want[~wn].view({2: np.uint16, 4: np.uint32}[want.itemsize]))


def check(d):
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    bad = 0
    n = 0
    for out, (s0, s1), dt in (("h", ("a", "b"), np.float16), ("x", ("c", "d"), np.float32),
                              ("y", ("e", "g"), np.int32)):
        got = ld(out)
        k = ld(s0).size
        for i, op in enumerate(OPS):
            want = ref(op, ld(s0), ld(s1), dt)
            seg = got[i * k:(i + 1) * k]
            ok = same(seg, want) if dt != np.int32 else np.array_equal(seg, want)
            n += k
            if not ok:
                bad += 1
                print("MISMATCH vec_%s %s" % (op, np.dtype(dt).name))
    print("vec_binary: %d elements, %d mismatching ops" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(gen(sys.argv[2]) if sys.argv[1] == "gen" else check(sys.argv[2]))
