"""nki_move.py gen NAME DIR | check NAME DIR

The NKI ports of examples/nki_matmul_tiled.k and examples/nki_embedding.k
(docs/porting-nki.md).  gen writes the kernel's seeded inputs as .npy;
check reads its outputs (kdslc run --out DIR) and compares them with numpy
computed the way NKI's own test computes them, printing one line and
exiting 1 on any mismatch.
"""
import os
import sys

import numpy as np

F32 = np.float32


def matmul_tiled(d, gen):
    """NKI's tutorial test: torch.rand inputs, torch.matmul(lhs, rhs) as the
    reference, allclose(atol=1e-4, rtol=1e-2).  Here in f32, lhs = lhsT.T.
    Besides the vendor's tolerance, the result must equal bit for bit the
    f32 sum kdsl's nc_matmul documents: each K tile summed in k order from
    zero, then added to the psum tile (which starts at zero)."""
    if gen:
        rng = np.random.default_rng(7)
        return dict(lhsT=rng.random((256, 512), dtype=F32), rhs=rng.random((256, 1024), dtype=F32))
    lhsT = np.load(os.path.join(d, "lhsT.npy"))
    rhs = np.load(os.path.join(d, "rhs.npy"))
    got = np.load(os.path.join(d, "result.npy"))
    acc = np.zeros((512, 1024), F32)
    for kt in range(2):
        c = np.zeros((512, 1024), F32)
        for k in range(kt * 128, (kt + 1) * 128):
            c = c + np.outer(lhsT[k], rhs[k])
        acc = acc + c
    close = np.allclose(np.matmul(lhsT.T, rhs), got, atol=1e-4, rtol=1e-2)
    return dict(result=acc), close


def embedding(d, gen):
    """The lookup is table[ids]: row copies, so exact."""
    if gen:
        rng = np.random.default_rng(8)
        ids = rng.integers(0, 2048, 512, dtype=np.int32)
        ids[:4] = [0, 2047, 5, 5]   # both ends of the table, a repeat
        return dict(ids=ids, table=rng.standard_normal((2048, 256), dtype=F32))
    ids = np.load(os.path.join(d, "ids.npy"))
    return dict(out=np.load(os.path.join(d, "table.npy"))[ids]), True


PORTS = {"matmul_tiled": matmul_tiled, "embedding": embedding}


def main():
    mode, name, d = sys.argv[1:4]
    if mode == "gen":
        for k, v in PORTS[name](d, True).items():
            np.save(os.path.join(d, k + ".npy"), v)
        return 0
    want, close = PORTS[name](d, False)
    n = bad = 0
    for k, v in want.items():
        got = np.load(os.path.join(d, k + ".npy"))
        if got.shape != v.shape or got.dtype != v.dtype:
            print("%s: %s is %s %s, want %s %s" % (name, k, got.dtype, got.shape, v.dtype, v.shape))
            return 1
        n += v.size
        # bit for bit, so -0.0 and NaN payloads count too
        bad += int(np.count_nonzero(got.view(np.uint32) != v.view(np.uint32)))
    print("%s: %d elements, %d mismatching outputs%s" % (name, n, bad, "" if close else ", not allclose to numpy"))
    return 1 if bad or not close else 0


if __name__ == "__main__":
    sys.exit(main())
