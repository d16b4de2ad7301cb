"""elem_paths.py gen DIR | check DIR

gen writes seeded random inputs of Inputs/elem_paths.k (i8, u16 and i64
over their whole ranges, so the arithmetic wraps; f16 and f32 with a NaN,
an infinity and values whose thirds fall between two f16s); check
compares its outputs (kdslc run --out DIR, s = 5) element for element
with numpy computing what docs/language.md's "Element access" says:
integers wrap to the width, floats are computed in float64 from the exact
elements and rounded once on write.  Exits 1 on any mismatch.
"""
import os
import sys

import numpy as np

S = 5


def gen(d):
    rng = np.random.default_rng(23)
    a = rng.integers(-128, 128, 32).astype(np.int8)
    b = rng.integers(0, 1 << 16, 16).astype(np.uint16)
    c = rng.integers(-2**63, 2**63, 4, dtype=np.int64)
    h = rng.uniform(-60000, 60000, 16).astype(np.float16)
    h[2], h[9] = np.nan, np.inf
    f = rng.uniform(-1e30, 1e30, 8).astype(np.float32)
    f[3] = np.nan
    for name, v in dict(a=a, b=b, c=c, h=h, f=f).items():
        np.save(os.path.join(d, name + ".npy"), v)


def want(d):
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    a, b, c, h, f = ld("a"), ld("b"), ld("c"), ld("h"), ld("f")
    with np.errstate(all="ignore"):
        a = (a.astype(np.int64) * 3 + S).astype(np.int8)
        b = b.copy()
        b[8:] = ((b[(np.arange(8) + S) % 8].astype(np.int64) + 40000) & 0xffff).astype(np.uint16)
        c = (c.astype(object) * 1000003 + S)
        c = np.array([((v + 2**63) % 2**64) - 2**63 for v in c], dtype=np.int64)
        x = h.astype(np.float64)
        o = (x / 3.0 + x[(np.arange(16) + S) % 16]).astype(np.float16)
        y = f.astype(np.float64)
        # sequential: element i reads element i + 1 before it is written,
        # the last reads element 0 as written
        for i in range(8):
            y[i] = np.float32(y[i] * 0.1 + y[(i + 1) % 8])
        f = y.astype(np.float32)
    return dict(a=a, b=b, c=c, f=f, o=o)


def check(d, inputs):
    bad = n = 0
    for name, w in want(inputs).items():
        g = np.load(os.path.join(d, name + ".npy"))
        n += g.size
        if g.dtype != w.dtype or not np.array_equal(g.view(np.uint8), w.view(np.uint8)):
            bad += 1
            print("MISMATCH %s: got %s want %s" % (name, g, w))
    print("elem_paths: %d elements, %d mismatching outputs" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(gen(sys.argv[2]) if sys.argv[1] == "gen" else check(sys.argv[2], sys.argv[3]))
