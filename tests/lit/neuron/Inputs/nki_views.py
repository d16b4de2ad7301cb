"""nki_views.py gen NAME DIR | check NAME DIR

The NKI tutorial ports of examples/nki_transpose2d_load.k,
nki_tensor_add.k and nki_avgpool2d.k (docs/porting-nki.md).  gen writes
a kernel's inputs as .npy (the tutorial's test inputs, or seeded ones of
the same kind); check reads its outputs (kdslc run --out DIR) and
compares every one with numpy computed the way the tutorial's test
computes it: exactly, except where the tutorial's test uses a tolerance
(tensor_addition: np.allclose with atol=1e-4, rtol=1e-2).  Prints one
line and exits 1 on any mismatch.
"""
import os
import sys

import numpy as np


def load(d, k):
    return np.load(os.path.join(d, k + ".npy"))


def transpose2d(d, gen):
    # the tutorial: arange(P*X*Y) as int8, [P, X*Y] with P, X, Y = 5, 3, 4
    if gen:
        return dict(a=np.arange(5 * 3 * 4, dtype=np.int8).reshape(5, 3, 4))
    a = load(d, "a")
    return dict(out=np.transpose(a.reshape(5, 3, 4), (0, 2, 1)))


def transpose_load(d, gen):
    if gen:
        return dict(a=np.random.default_rng(7).standard_normal((512, 128)).astype(np.float32))
    return dict(out=load(d, "a").T)


def tensor_add(d, gen):
    # the tutorial's test: rand(256, 1024) as float16, c = a + b
    if gen:
        rng = np.random.default_rng(11)
        return dict(a=rng.random((256, 1024)).astype(np.float16).reshape(2, 128, 1024),
                    b=rng.random((256, 1024)).astype(np.float16).reshape(2, 128, 1024))
    return dict(c=load(d, "a") + load(d, "b"))


TOLERANCE = dict(tensor_add=dict(atol=1e-4, rtol=1e-2))


def pool(x, k):
    """The tutorial's reference (nanmean over each k x k window), in f32
    as the engines compute, rounded to the output's f16."""
    c, h, w = x.shape
    r = x.astype(np.float32).reshape(c, h // k, k, w // k, k)
    return np.nanmean(r, axis=(2, 4)).astype(np.float16)


def avgpool2d(d, gen):
    # the tutorial's test: arange(C*H*W) as float16, C, H, W = 2, 6, 6
    if gen:
        return dict(x=np.arange(2 * 6 * 6, dtype=np.float16).reshape(2, 6, 6))
    return dict(y=pool(load(d, "x"), 2))


def avgpool2d_128(d, gen):
    # integers up to 1023: every f32 sum of a window is exact, so numpy's
    # order of summation and the kernel's give the same bits
    if gen:
        rng = np.random.default_rng(13)
        return dict(x=rng.integers(0, 1024, (128, 32, 32)).astype(np.float16))
    return dict(y=pool(load(d, "x"), 2))


PORTS = dict(transpose2d=transpose2d, transpose_load=transpose_load, tensor_add=tensor_add,
             avgpool2d=avgpool2d, avgpool2d_128=avgpool2d_128)


def main():
    mode, name, d = sys.argv[1:4]
    port = PORTS[name]
    if mode == "gen":
        for k, v in port(d, True).items():
            np.save(os.path.join(d, k + ".npy"), v)
        return 0
    bad = n = 0
    tol = TOLERANCE.get(name)
    for k, want in port(d, False).items():
        # kdslc run --out names a tensor KERNEL.NAME when the file has several kernels
        f = os.path.join(d, name + "." + k + ".npy")
        got = np.load(f if os.path.exists(f) else os.path.join(d, k + ".npy"))
        n += got.size
        if got.dtype != want.dtype or got.shape != want.shape:
            ok = False
        elif tol:
            ok = np.allclose(want, got, **tol)
        else:
            ok = got.tobytes() == want.tobytes()
        if not ok:
            bad += 1
            print("MISMATCH %s: %s" % (k, np.argwhere(got != want)[:5].tolist() if got.shape == want.shape
                                         else (got.dtype, got.shape, want.dtype, want.shape)))
    print("%s: %d elements, %d mismatching outputs" % (name, n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
