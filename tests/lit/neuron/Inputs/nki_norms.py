"""nki_norms.py gen NAME DIR | check NAME DIR

The normalisation examples (examples/nki_rmsnorm.k, nki_layernorm.k,
nki_softmax.k).  gen writes the kernel's seeded inputs as .npy, drawn as
NKI's tutorial tests draw them (uniform [0, 1) f32); check reads the
kernel's outputs (kdslc run --out DIR) and compares them with numpy in
f32 computed the way the tutorial's reference computes, with the
tutorial test's tolerance (np.allclose, atol=1e-5, rtol=1e-3: the rmsnorm
tutorial's).  Prints one line and exits 1 on any mismatch.
"""
import os
import sys

import numpy as np

F32 = np.float32
ROWS, COLS = 256, 512


def load(d, name):
    return np.load(os.path.join(d, name + ".npy"))


def rmsnorm(d, gen):
    if gen:
        rng = np.random.default_rng(11)
        return dict(a=rng.random((ROWS, COLS), dtype=F32), g=rng.random((1, COLS), dtype=F32))
    a, g = load(d, "a"), load(d, "g")
    # the tutorial's reference: a * rsqrt(mean(a^2)) * g
    mean = np.square(a).mean(axis=1, keepdims=True)
    return dict(out=a * (F32(1) / np.sqrt(mean)) * g)


def layernorm(d, gen):
    if gen:
        rng = np.random.default_rng(12)
        return dict(x=rng.random((ROWS, COLS), dtype=F32), gamma=rng.random((1, COLS), dtype=F32),
                    beta=rng.random((1, COLS), dtype=F32))
    x, gamma, beta = load(d, "x"), load(d, "gamma"), load(d, "beta")
    # layer_norm over the last dim, eps 1e-5
    mean = x.mean(axis=1, keepdims=True)
    var = np.square(x - mean).mean(axis=1, keepdims=True)
    return dict(out=(x - mean) / np.sqrt(var + F32(1e-5)) * gamma + beta)


def softmax(d, gen):
    if gen:
        return dict(x=np.random.default_rng(13).random((ROWS, COLS), dtype=F32))
    x = load(d, "x")
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return dict(out=e / e.sum(axis=1, keepdims=True))


KERNELS = dict(rmsnorm=rmsnorm, layernorm=layernorm, softmax=softmax)


def main():
    mode, name, d = sys.argv[1:4]
    fn = KERNELS[name]
    if mode == "gen":
        for k, v in fn(d, True).items():
            np.save(os.path.join(d, k + ".npy"), v)
        return 0
    bad = n = 0
    for k, want in fn(d, False).items():
        got = load(d, k)
        assert got.dtype == want.dtype and got.shape == want.shape, (k, got.dtype, got.shape)
        n += want.size
        bad += int((~np.isclose(got, want, atol=1e-5, rtol=1e-3)).sum())
    print("%s: %d elements, %d mismatching outputs" % (name, n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
