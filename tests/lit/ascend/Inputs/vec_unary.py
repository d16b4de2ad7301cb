"""vec_unary.py gen DIR | check DIR

gen writes seeded random inputs (f16 and f32 in -6..6 with both zeros, a
NaN, an infinity and a subnormal); check compares the outputs of
Inputs/vec_unary.k (kdslc run --out DIR, with --arg s=-3) bit for bit with
numpy computed as docs/language.md reads the TIK pages: the scalar first
converted to the dtype, then every result the exact value (float64)
rounded once to the dtype; relu gives +0.0 for negatives and -0.0.
Exits 1 on any mismatch.
"""
import os
import sys

import numpy as np

S = -3


def ref(op, a, dt):
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        r = {"adds": x + np.float64(dt(0.1)), "muls": x * np.float64(dt(S)), "abs": np.abs(x),
             "exp": np.exp(x), "ln": np.log(x), "rec": 1.0 / x,
             "relu": np.where(np.isnan(x), x, np.where(x > 0, x, 0.0))}[op]
    return r.astype(dt)


def gen(d):
    rng = np.random.default_rng(15)
    a = rng.uniform(-6, 6, 256).astype(np.float16)
    a[:6] = [0.0, -0.0, np.nan, np.inf, 6e-8, -1.0]
    c = rng.uniform(-6, 6, 128).astype(np.float32)
    c[:6] = [0.0, -0.0, np.nan, -np.inf, 1e-45, 100.0]
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "c.npy"), c)


def same(got, want):
    """Bit-equal, any NaN equal to any NaN (the payload is the engine's)."""
    u = {2: np.uint16, 4: np.uint32}[got.itemsize]
    gn, wn = np.isnan(got), np.isnan(want)
    return np.array_equal(gn, wn) and np.array_equal(got[~gn].view(u), want[~wn].view(u))


def check(d):
    ld = lambda n: np.load(os.path.join(d, n + ".npy"))
    bad = n = 0
    for out, src, dt, ops in (("h", "a", np.float16, ["adds", "muls", "abs", "exp", "ln", "rec", "relu"]),
                              ("x", "c", np.float32, ["adds", "muls", "abs", "exp", "ln", "rec"])):
        got, a = ld(out), ld(src)
        for i, op in enumerate(ops):
            seg = got[i * a.size:(i + 1) * a.size]
            n += a.size
            if not same(seg, ref(op, a, dt)):
                bad += 1
                print("MISMATCH vec_%s %s" % (op, np.dtype(dt).name))
    print("vec_unary: %d elements, %d mismatching ops" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(gen(sys.argv[2]) if sys.argv[1] == "gen" else check(sys.argv[2]))
