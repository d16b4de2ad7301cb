#!/usr/bin/env python3
"""The numpy side of the benchmark: each op of bench/kdsl-bench done the
way a NumPy-based simulator does it, at the same sizes, printed as
"key median_ns" lines that kdsl-bench --numpy FILE reads.

usage: numpy_ops.py [--quick] > numpy.txt

Run it with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (bench/run.sh
does) so numpy runs its normal kernels; none of these ops calls BLAS."""
import statistics
import sys
import time

import numpy as np

REPS = 9
SIZES = [16 << 10, 256 << 10, 1 << 20, 8 << 20]
PSIZES = [16 << 10, 256 << 10, 1 << 20, 4 << 20]


def batches(fn, reps, batch_ns):
    """ns per call of reps batches of about batch_ns each (the batch size
    found first, so a fast fn is timed over many calls)."""
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        el = time.perf_counter_ns() - t0
        if el >= batch_ns or n >= 1 << 20:
            break
        n = n * 16 if el < 1e4 else int(n * 1.1 * batch_ns / el) + 1
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter_ns() - t0) / n)
    return ts


def timeit(fn):
    """Median ns per call over REPS repetitions of ~2 ms each."""
    return statistics.median(batches(fn, REPS, 2e6))


def out(key, ns):
    print(f"{key} {ns:.1f}", flush=True)


def moves(sizes):
    chunk = 1 << 20
    l1 = np.zeros(chunk, dtype=np.uint8)
    gm = np.random.default_rng(1).integers(0, 256, 2 * sizes[-1], dtype=np.uint8)
    for n in sizes:
        def long_():
            for d in range(0, n, chunk):
                m = min(chunk, n - d)
                l1[:m] = gm[d:d + m]

        def short():
            # bursts of 32 bytes, one slice assignment per burst call of
            # 2048 bursts as the C side issues them
            for d in range(0, n, chunk):
                m = min(chunk, n - d)
                for b in range(0, m, 2048 * 32):
                    k = min(2048 * 32, m - b)
                    l1[b:b + k].reshape(-1, 32)[:] = gm[d + b:d + b + k].reshape(-1, 32)

        def strided():
            for d in range(0, n, chunk):
                m = min(chunk, n - d)
                src = gm[2 * d:2 * d + 2 * m].reshape(-1, 64)[:, :32]
                l1[:m].reshape(-1, 32)[:] = src

        out(f"data_move/long/{n}", timeit(long_))
        out(f"data_move/short/{n}", timeit(short))
        out(f"data_move/strided/{n}", timeit(strided))


def shuffles(sizes):
    mask = np.array([31 - i for i in range(32)])
    idx = (np.arange(128) // 32) * 32 + mask[np.arange(128) % 32]
    for n in sizes:
        cols = n // 4 // 128
        src = np.random.default_rng(2).random((128, cols), dtype=np.float32)
        dst = np.empty_like(src)
        out(f"nc_stream_shuffle/copy/{n}", timeit(lambda: np.take(src, idx, axis=0, out=dst)))

        def inplace():
            src[:] = src[idx]
        out(f"nc_stream_shuffle/inplace/{n}", timeit(inplace))


def predicated(sizes):
    rng = np.random.default_rng(3)
    for dt, dname in ((np.float32, "f32"), (np.float16, "f16")):
        for pt, pname in ((np.uint8, "u8"), (np.uint32, "u32")):
            for dens in ("half", "random"):
                for n in sizes:
                    cols = n // np.dtype(dt).itemsize // 128
                    src = rng.random((128, cols)).astype(dt)
                    dst = np.zeros((128, cols), dtype=dt)
                    if dens == "half":
                        pred = np.tile(np.array([1, 0], dtype=pt), (128, cols // 2))
                    else:
                        pred = rng.integers(0, 2, (128, cols)).astype(pt)
                    out(f"tensor_copy_predicated/{dname}/{pname}/{dens}/{n}",
                        timeit(lambda: np.copyto(dst, src, where=pred != 0)))


def perms():
    x = np.arange(10, 26, dtype=np.int32)
    y = np.arange(100, 108, dtype=np.int32)
    x8 = x[:8]
    r = np.empty(16, dtype=np.int32)
    sel = np.array([1, 1, 0, 0, 1, 1, 1, 0], dtype=bool)
    selc = np.array([1, 1, 0, 1, 0, 1, 0, 0], dtype=bool)
    ops = {
        "vzip": lambda: np.stack((x8, y), axis=1).reshape(-1),
        "vconcat_even": lambda: np.concatenate((x8, y))[0::2],
        "vsplit": lambda: np.split(x, 2)[1],
        "vrevs": lambda: x8[::-1].copy(),
        "vsel_const": lambda: np.where(sel, x8, y),
        "vshfl_2": lambda: np.roll(x8, -2),
        "vsldl_3": lambda: np.concatenate((x8, y))[3:11],
        "vreplic_3": lambda: np.full(8, x8[3]),
        "vcompt_const": lambda: np.concatenate((x8[sel], np.zeros(8 - sel.sum(), np.int32))),
        "vcompc_const": lambda: np.concatenate((x8[selc], y))[:8],
    }
    for name, fn in ops.items():
        def call(fn=fn):
            r[:8] = fn()[:8]
        out(f"perm/{name}", timeit(call))


def perm_loops():
    """The ops of bench/perms.k's l_* kernels, each applied `loops` times
    (kdsl-bench's LOOPS) to its previous result, as a simulator steps
    through a kernel's loop: ns per op."""
    loops = 1000
    x8 = np.arange(10, 18, dtype=np.int32)
    y = np.arange(100, 108, dtype=np.int32)
    sel = np.array([1, 1, 0, 0, 1, 1, 1, 0], dtype=bool)
    ops = {
        "vrevs": lambda v: v[::-1].copy(),
        "vshfl_2": lambda v: np.roll(v, -2),
        "vreplic_3": lambda v: np.full(8, v[3]),
        "vzip_low": lambda v: np.stack((v, y), axis=1).reshape(-1)[:8],
        "vconcat_even": lambda v: np.concatenate((v, y))[0::2],
        "vsel_const": lambda v: np.where(sel, y, v),
        "vsldl_3": lambda v: np.concatenate((v, y))[3:11],
    }
    for name, fn in ops.items():
        def run(fn=fn):
            v = x8
            for _ in range(loops):
                v = fn(v)
        out(f"perm_loop/{name}", timeit(run) / loops)


def engine(sizes):
    """The neuron engine ops as a simulator writes them, in f32 on [128, F]
    arrays: out= where numpy has it, so no op allocates."""
    rng = np.random.default_rng(4)
    for n in sizes:
        cols = n // 4 // 128
        a = (rng.random((128, cols), dtype=np.float32) * 2 - 1)
        b = (rng.random((128, cols), dtype=np.float32) * 2 - 1)
        o = np.empty_like(a)
        o16 = np.empty((128, cols), dtype=np.float16)
        s = np.float32(1.5)
        out(f"engine/tensor_tensor_add/{n}", timeit(lambda: np.add(a, b, out=o)))
        out(f"engine/tensor_scalar_mul/{n}", timeit(lambda: np.multiply(a, s, out=o)))
        out(f"engine/activation_copy/{n}", timeit(lambda: np.copyto(o, a)))
        out(f"engine/activation_relu/{n}", timeit(lambda: np.maximum(a, np.float32(0), out=o)))
        out(f"engine/activation_exp/{n}", timeit(lambda: np.exp(a, out=o)))
        out(f"engine/tensor_copy_f16/{n}", timeit(lambda: np.copyto(o16, a, casting="same_kind")))


def matmul():
    """nc_matmul [K=128, M=128] x [K, N=512] into psum, then the
    activation copy to sbuf: stationary.T @ moving through numpy's BLAS."""
    rng = np.random.default_rng(5)
    st = rng.random((128, 128), dtype=np.float32) * 2 - 1
    mv = rng.random((128, 512), dtype=np.float32) * 2 - 1
    ps = np.empty((128, 512), dtype=np.float32)
    sb = np.empty_like(ps)

    def run():
        np.matmul(st.T, mv, out=ps)
        np.copyto(sb, ps)
    out("nc_matmul/128x128x512", timeit(run))


def blas_name():
    """The BLAS numpy calls, from the libraries mapped into this process."""
    try:
        with open("/proc/self/maps") as f:
            libs = {l.split()[-1].rsplit("/", 1)[-1] for l in f if "blas" in l.lower()}
        return ", ".join(sorted(libs)) or "unknown"
    except OSError:
        return "unknown"


def main():
    quick = "--quick" in sys.argv
    feats = getattr(np.core._multiarray_umath, "__cpu_features__", {})
    print(f"numpy {np.__version__}; SIMD features it may use: "
          f"{' '.join(k for k, v in sorted(feats.items()) if v) or 'unknown'}", file=sys.stderr)
    sizes = SIZES[:2] if quick else SIZES
    moves(sizes)
    shuffles(sizes)
    predicated(PSIZES[:2] if quick else PSIZES)
    perms()
    perm_loops()
    engine(SIZES[:2] if quick else SIZES[:3])
    matmul()
    print(f"numpy's BLAS: {blas_name()}", file=sys.stderr)


if __name__ == "__main__":
    main()
