"""vec_conv.py gen DIR | check DIR

gen writes seeded random inputs: f16 in -300..300 on quarter steps (so
ties x.5 occur) with NaN, both infinities, both zeros and the byte
dtypes' edges; f32 in -70000..70000 (past f16's 65504) with NaN, an
infinity, a subnormal and the values either side of f16's overflow
threshold 65520; all u8 and i8 values.  check compares the outputs of
Inputs/vec_conv.k (kdslc run --out DIR) bit for bit with numpy computed as
docs/language.md reads TIK's vec_conv page: 'round', '' and 'none' to
nearest with ties to even (np.rint, numpy's astype for f32->f16), 'floor'
and 'ceil'/'ceiling' np.floor and np.ceil, every result past the dtype's
range saturated (f16 +-65504 from a finite value; integers clipped, an
infinity to its end, NaN to 0).  Exits 1 on any mismatch.
"""
import os
import sys

import numpy as np


def to_int(x, mode, dt):
    """x (f16) rounded by mode, saturated to dt, NaN to 0."""
    f = {"round": np.rint, "floor": np.floor, "ceil": np.ceil}[mode]
    info = np.iinfo(dt)
    with np.errstate(invalid="ignore"):
        y = f(x.astype(np.float64))
        y = np.where(np.isnan(y), 0.0, np.clip(y, info.min, info.max))
    return y.astype(dt)


def to_f16(c):
    """f32 to f16, to nearest even; a finite value past 65504 saturates."""
    with np.errstate(over="ignore"):
        r = c.astype(np.float16)
    sat = np.isfinite(c) & np.isinf(r)
    return np.where(sat, np.copysign(np.float16(65504), c).astype(np.float16), r)


def gen(d):
    rng = np.random.default_rng(18)
    a = (np.round(rng.uniform(-300, 300, 256) * 4) / 4).astype(np.float16)
    a[:20] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 127.5, 128.0, -128.5,
              -129.0, 255.5, 256.0, 65504, -65504, 6e-8, -1.5]
    c = rng.uniform(-70000, 70000, 128).astype(np.float32)
    c[:10] = [np.nan, -np.inf, 1e-45, 65519.0, 65520.0, -65520.0, 1e5, 0.1, 2049.0, -0.0]
    q = np.arange(256, dtype=np.uint8)
    s = np.arange(-128, 128, dtype=np.int8)
    for n, v in (("a", a), ("c", c), ("q", q), ("s", s)):
        np.save(os.path.join(d, n + ".npy"), v)


def same(got, want):
    """Bit-equal, any NaN equal to any NaN (the payload is the engine's)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind != "f":
        return np.array_equal(got, want)
    u = {2: np.uint16, 4: np.uint32}[got.itemsize]
    gn, wn = np.isnan(got), np.isnan(want)
    return np.array_equal(gn, wn) and np.array_equal(got[~gn].view(u), want[~wn].view(u))


def check(d):
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    a, c, q, s = ld("a"), ld("c"), ld("q"), ld("s")
    r = ld("r")
    ceiling = to_int(a, "ceil", np.int32)
    ceiling[1::2] = 7   # the bitwise mask's disabled elements keep vec_dup's 7
    cases = [("f16->f32", ld("h"), a.astype(np.float32)),
             ("f32->f16", ld("x"), to_f16(c)),
             ("f16->i32 round", r[:256], to_int(a, "round", np.int32)),
             ("f16->i32 floor", r[256:512], to_int(a, "floor", np.int32)),
             ("f16->i32 ceil", r[512:768], to_int(a, "ceil", np.int32)),
             ("f16->i32 ceiling, bitwise mask", r[768:], ceiling),
             ("f16->i8", ld("b"), to_int(a, "round", np.int8)),
             ("f16->u8", ld("u"), to_int(a, "round", np.uint8)),
             ("u8->f16", ld("hq"), q.astype(np.float16)),
             ("i8->f16", ld("hs"), s.astype(np.float16))]
    bad = n = 0
    for name, got, want in cases:
        n += want.size
        if not same(got, want):
            bad += 1
            print("MISMATCH vec_conv %s" % name)
    print("vec_conv: %d conversions, %d elements, %d mismatching" % (len(cases), n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(gen(sys.argv[2]) if sys.argv[1] == "gen" else check(sys.argv[2]))
