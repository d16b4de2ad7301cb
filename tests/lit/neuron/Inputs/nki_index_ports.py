"""nki_index_ports.py gen NAME DIR | check NAME DIR

The numpy side of the NKI ports that use the index-generated tiles and
the Tensor Engine transpose (examples/nki_transpose2d_engine.k,
examples/nki_causal_mask.k).  gen writes a kernel's seeded inputs into
DIR as .npy; check reads its outputs (kdslc run --out DIR) and compares
every byte with numpy computed the way the NKI sample's own test computes
it.  Prints one line with the count of elements compared and exits 1 on
any mismatch, so a run that compares nothing cannot pass.
"""
import os
import sys

import numpy as np

F32 = np.float32


def load(d, name):
    return np.load(os.path.join(d, name + ".npy"))


def transpose2d_ref(a, p, x, y):
    """The tutorial's reference: each row a flattened [x, y] matrix,
    transposed (np.transpose of the [p, x, y] reshape), flattened again;
    as the kernel declares them, [p*x, y] in and [p*y, x] out."""
    return np.transpose(a.reshape(p, x, y), (0, 2, 1)).reshape(p * y, x)


def transpose2d_tutorial(d, gen):
    # the tutorial's main: P, X, Y = 5, 3, 4 and np.arange in int8
    if gen:
        return dict(a=np.arange(5 * 3 * 4, dtype=np.int8).reshape(15, 4))
    return dict(at=transpose2d_ref(load(d, "a"), 5, 3, 4))


def transpose2d(d, gen):
    if gen:
        a = np.random.default_rng(14).standard_normal((384, 128)).astype(F32)
        a[0, :4] = [np.nan, -0.0, np.inf, -np.inf]   # the Tensor Engine transpose is bit-exact
        return dict(a=a)
    return dict(at=transpose2d_ref(load(d, "a"), 4, 96, 128))


def causal_scores(d, gen):
    """flash_fwd's test takes q^T k in f32 and masks the future keys with
    its fill; here the product is summed in f32 over the head dim in order,
    one rounding per multiply and per add (kdsl's nc_matmul, docs/language.md),
    so the comparison is exact rather than NKI's allclose.  k^T through the
    identity matmul is k^T exactly (finite, nonzero inputs)."""
    if gen:
        rng = np.random.default_rng(15)
        return dict(q=rng.standard_normal((128, 256)).astype(F32),
                    k=rng.standard_normal((256, 128)).astype(F32))
    q, kt = load(d, "q"), load(d, "k").T
    s = q[0][:, None] * kt[0][None, :]
    for h in range(1, 128):
        s = s + q[h][:, None] * kt[h][None, :]
    qpos = np.arange(256)[:, None]
    kpos = np.arange(256)[None, :]
    return dict(scores=np.where(qpos - kpos >= 0, s, F32(-9984.0)).astype(F32))


PORTS = dict(transpose2d_tutorial=transpose2d_tutorial, transpose2d=transpose2d,
             causal_scores=causal_scores)


def main():
    mode, name, d = sys.argv[1:4]
    port = PORTS[name]
    if mode == "gen":
        for k, v in port(d, True).items():
            np.save(os.path.join(d, k + ".npy"), v)
        return 0
    bad = n = 0
    for k, want in port(d, False).items():
        # kdslc run names a kernel's outputs KERNEL.NAME.npy in a file of several
        multi = os.path.join(d, "%s.%s.npy" % (name, k))
        got = np.load(multi) if os.path.exists(multi) else load(d, k)
        n += got.size
        if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
            bad += 1
            diff = np.argwhere(got.view(np.uint8) != want.view(np.uint8)) if got.shape == want.shape else []
            print("MISMATCH %s at (row, byte) %s" % (k, [tuple(x) for x in diff[:5]]))
    print("%s: %d elements, %d mismatching outputs" % (name, n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
