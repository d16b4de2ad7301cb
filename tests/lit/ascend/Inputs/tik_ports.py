"""tik_ports.py gen NAME DIR | check NAME DIR

The TIK ports in examples/tik_*.k (docs/porting-tik.md).  gen writes the
kernel's seeded inputs as .npy; check reads its outputs (kdslc run --out
DIR) and compares them with numpy computed the way the TIK sample
computes: the same operations in the same order and precision (f32 steps
rounded to f32, f16 moves bit for bit).  Prints one line and exits 1 on
any mismatch.
"""
import os
import sys

import numpy as np

F32 = np.float32


def permute(d, gen):
    if gen:
        x = np.random.default_rng(1).standard_normal((4, 3, 10880)).astype(np.float16)
        return dict(x=x)
    return dict(y=np.transpose(np.load(os.path.join(d, "x.npy")), (1, 0, 2)))


def upsample(d, gen):
    if gen:
        return dict(x=np.random.default_rng(2).standard_normal((8, 64)).astype(np.float16))
    x = np.load(os.path.join(d, "x.npy"))
    return dict(y=x.repeat(2, axis=0).repeat(2, axis=1))


def scatter_nd_add(d, gen):
    if gen:
        rng = np.random.default_rng(3)
        return dict(table=rng.standard_normal((16, 32)).astype(F32),
                    indices=np.array([3, 0, 15, 3, 7, 3, 0, 9], dtype=np.int32),
                    updates=rng.standard_normal((8, 32)).astype(F32))
    t = np.load(os.path.join(d, "table_in.npy"))
    np.add.at(t, np.load(os.path.join(d, "indices.npy")), np.load(os.path.join(d, "updates.npy")))
    return dict(table=t)


def fold_sum(r):
    """vec_add 256 -> 128 -> 64 as the kernel issues them, then the 64
    partial sums added one by one, each step rounded to f32."""
    t = np.empty(128, dtype=F32)
    t[:64] = r[0:64] + r[128:192]
    t[64:] = r[64:128] + r[192:256]
    t[:64] = t[:64] + t[64:128]
    s = F32(0)
    for v in t[:64]:
        s = F32(s + v)
    return s


def batch_norm(d, gen):
    if gen:
        return dict(x=np.random.default_rng(5).uniform(-2, 2, (8, 256)).astype(F32))
    x = np.load(os.path.join(d, "x.npy"))
    mean, var, y = np.empty(8, F32), np.empty(8, F32), np.empty((8, 256), F32)
    for i in range(8):
        mu = F32(fold_sum(x[i]) * F32(1 / 256))
        y[i] = x[i] + F32(-mu)
        var[i] = F32(fold_sum(y[i] * y[i]) * F32(1 / 256))
        mean[i] = mu
    return dict(mean=mean, variance=var, y=y)


def blast(d, gen):
    if gen:
        rng = np.random.default_rng(6)
        s = rng.integers(0, 4, 64).astype(np.int32)
        q = s[20:52].copy()
        q[::5] = rng.integers(0, 4, q[::5].size)   # a noisy copy: a long local match
        return dict(q=q.astype(np.int32), s=s)
    q, s = np.load(os.path.join(d, "q.npy")), np.load(os.path.join(d, "s.npy"))
    h, top = [0] * 72, 0
    for i in range(32):
        diag = left = 0
        for j in range(1, 65):
            up = h[j]
            score = diag + 2 if q[i] == s[j - 1] else diag - 1
            score = max(score, up - 1, left - 1, 0)
            h[j] = score
            top = max(top, score)
            diag, left = up, score
    return dict(last=np.array(h, dtype=np.int32), best=np.full(8, top, dtype=np.int32))


PORTS = dict(permute=permute, upsample=upsample, scatter_nd_add=scatter_nd_add,
             batch_norm=batch_norm, blast=blast)


def main():
    mode, name, d = sys.argv[1:4]
    port = PORTS[name]
    if mode == "gen":
        for k, v in port(d, True).items():
            np.save(os.path.join(d, k + ".npy"), v)
            if name == "scatter_nd_add" and k == "table":
                np.save(os.path.join(d, "table_in.npy"), v)
        return 0
    bad = n = 0
    for k, want in port(d, False).items():
        got = np.load(os.path.join(d, k + ".npy"))
        n += got.size
        if got.dtype != want.dtype or got.shape != want.shape or \
           got.tobytes() != want.tobytes():
            bad += 1
            print("MISMATCH %s: %s" % (k, np.argwhere(got != want)[:5].tolist()))
    print("%s: %d elements, %d mismatching outputs" % (name, n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
