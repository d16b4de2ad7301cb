#!/usr/bin/env python3
"""The numpy side of bench/run.sh's whole kernels: every examples/*.k
kernel and bench/matmul_act.k done the way a NumPy-based simulator does
it (each data_move, load, store and engine op one numpy call on
preallocated on-chip arrays, the kernel's loops over ops as Python
loops), with the same inputs and the same bytes out.  Two places give
numpy its best instead of a simulator's Python element loop: the scalar
loops of tik_batch_norm (a sequential f32 sum, np.add.accumulate, the
same rounding as the kernel's loop) and tik_upsample / tik_blast (whole
rows at once; blast's row recurrence as np.maximum.accumulate).

usage: whole_kernels.py args DIR         writes each kernel's inputs to
           DIR/NAME/*.npy and prints "NAME FILE KERNEL --arg ..." lines
       whole_kernels.py check DIR        compares numpy's outputs with
           kdsl's DIR/NAME/out/*.npy (exit 1 on a difference)
       whole_kernels.py time [--quick] [NAME...]   one round: "NAME
           median_ns min_ns memcpy_ns moved_bytes" per kernel (every
           kernel, or the NAMEs; moved: the bytes of its tensors, inputs
           read and outputs written; memcpy: one libc memcpy of that many
           bytes, for kernels that move 256 KiB or more, else "-")
       whole_kernels.py table FILE       the markdown tables of bench/run.sh
           from FILE's "ROUND NAME WHAT MEDIAN_NS ..." lines (WHAT: O0, O1,
           numpy or same)

The numpy BLAS in use (the library mapped into this process after a
matmul) is printed by `whole_kernels.py blas`."""
import ctypes
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_ops  # noqa: E402  (bench/'s shared timing loop)

F32, F16, I32, I16, U8, U32 = np.float32, np.float16, np.int32, np.int16, np.uint8, np.uint32
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def rng(seed):
    return np.random.default_rng(seed)


# Each kernel: (file, kernel name, inputs(), outputs {name: (shape, dtype)},
# scalars {name: value}, fn(arrays) writing the outputs, exact?).  fn gets a
# dict of the kernel's tensors; the on-chip arrays it needs are made once
# (closures), as a simulator allocates them once per kernel.

def k_mask_strings():
    def ins():
        return {"x": rng(1).integers(-50, 50, 32, dtype=I32), "y": rng(2).integers(-50, 50, 32, dtype=I32)}

    def pat(s, lanes):
        # the mask strings of the example, written out lane by lane
        return np.array([c == "T" for c in s], dtype=bool)[:lanes]

    m1, m2, m3 = pat("TTTFFFFF", 8), pat("FTFTFTFT", 8), pat("FTTFTTFT", 8)
    m4 = pat("TTTTFT", 6)
    m5 = pat("TTTFTFFFFTTT", 12)
    tail = np.arange(8)

    def fn(a, n=5):
        vx, vy = a["x"][0:8].copy(), a["y"][0:8].copy()
        a["strings"][0:8] = np.where(m1, vx, vy)
        a["strings"][8:16] = np.where(m2, vx, vy)
        a["strings"][16:24] = np.where(m3, vx, vy)
        gt, neg = vx > vy, vy < 0
        a["logic"][0:8] = np.where(gt & (tail < n), vx, vy)
        a["logic"][8:16] = np.where(gt | neg, vx, vy)
        a["logic"][16:24] = np.where(gt ^ neg, vx, vy)
        a["logic"][24:32] = np.where(~gt, vx, vy)
        a["flex"][0:6] = np.where(m4, a["x"][8:14], a["y"][8:14])
        z = np.empty(6, I32)
        z[0::2], z[1::2] = a["x"][14:17], a["y"][14:17]
        a["flex"][6:12] = z
        s12 = a["x"][17:29] + a["y"][17:29]
        a["flex"][12:24] = np.where(m5, s12, 0)

    return ("examples/aipu_mask_strings.k", "mask_strings", ins,
            {"strings": ((24,), I32), "logic": ((32,), I32), "flex": ((24,), I32)}, {"n": 5}, fn, True)


def k_permutations():
    def ins():
        return {"x": rng(3).integers(-99, 99, 8, dtype=I32), "y": rng(4).integers(-99, 99, 8, dtype=I32)}

    m = np.array([c == "T" for c in "TTFFTTTF"])

    def fn(a, n=5):
        vx, vy = a["x"].copy(), a["y"].copy()
        z = np.empty(16, I32)
        z[0::2], z[1::2] = vx, vy
        a["zipped"][:] = z
        a["picked"][:] = np.where(m, vx, vy)
        p = np.zeros(8, I32)
        p[:n] = vx[:n]
        a["packed"][:] = p

    return ("examples/aipu_permutations.k", "zip_and_select", ins,
            {"zipped": ((16,), I32), "picked": ((8,), I32), "packed": ((8,), I32)}, {"n": 5}, fn, True)


def k_block_stage():
    u = np.zeros(8192, I16)

    def ins():
        return {"src": rng(5).integers(-30000, 30000, 16384, dtype=I16)}

    def fn(a):
        src = a["src"]
        for r in range(64):
            for b in range(8):
                u[r * 128 + b * 16:r * 128 + b * 16 + 16] = src[r * 256 + 128 + b * 16:r * 256 + 144 + b * 16]
        a["dst"][:] = u

    return ("examples/ascend_block_stage.k", "block_stage", ins, {"dst": ((8192,), I16)}, {}, fn, True)


def f16_in(seed, shape):
    return rng(seed).uniform(-100, 100, shape).astype(F16)


def k_contiguous():
    u = np.zeros(512, F16)

    def fn(a):
        u[:] = a["src_gm"]
        a["dst_gm"][:] = u

    return ("examples/ascend_data_move_contiguous.k", "data_move_contiguous",
            lambda: {"src_gm": f16_in(6, 512)}, {"dst_gm": ((512,), F16)}, {}, fn, True)


def k_move_large():
    n = 126976
    u = np.zeros(n, F16)

    def fn(a):
        src, dst = a["src_gm"].reshape(-1), a["dst_gm"].reshape(-1)
        for i in range(2):
            u[:] = src[i * n:(i + 1) * n]
            for j in range(3):
                s = u[j * 128 * 255:(j + 1) * 128 * 255]
                np.add(s, s, out=s)
            s = u[3 * 128 * 255:3 * 128 * 255 + 227 * 128]
            np.add(s, s, out=s)
            dst[i * n:(i + 1) * n] = u

    return ("examples/ascend_data_move_large.k", "data_move_large",
            lambda: {"src_gm": f16_in(7, (n, 2))}, {"dst_gm": ((n, 2), F16)}, {}, fn, True)


def k_unaligned():
    su, du = np.zeros(32, F16), np.zeros(32, F16)

    def fn(a):
        su[:] = 0
        du[:] = 0
        for i in range(2):
            su[i * 16:i * 16 + 16] = a["src_gm"][i * 7:i * 7 + 16]
        np.add(su, su, out=du)
        for i in range(2):
            a["dst_gm"][i * 7:i * 7 + 16] = du[i * 16:i * 16 + 16]

    return ("examples/ascend_data_move_unaligned.k", "data_move_unaligned",
            lambda: {"src_gm": f16_in(8, 23)}, {"dst_gm": ((23,), F16)}, {}, fn, True)


def k_guarded():
    u = np.zeros(128, F16)

    def fn(a):
        x, y = a["x"], a["y"]
        for t in range(8):
            if t < 7:
                u[:] = x[t * 128:t * 128 + 128]
                np.add(u, u, out=u)
                y[t * 128:t * 128 + 128] = u
            else:
                v = u[:112]
                v[:] = x[888:1000]
                np.add(v, v, out=v)
                y[888:1000] = v

    return ("examples/ascend_guarded_tiles.k", "guarded_tiles",
            lambda: {"x": f16_in(9, 1000)}, {"y": ((1000,), F16)}, {}, fn, True)


def k_row_gather():
    u = np.zeros(2048, F16)

    def fn(a):
        u[:] = 0
        src = a["src"]
        for r in range(64):
            u[r * 32:r * 32 + 16] = src[r * 64 + 32:r * 64 + 48]
        a["dst"][:] = u

    return ("examples/ascend_row_gather.k", "row_gather",
            lambda: {"src": f16_in(10, 4096)}, {"dst": ((2048,), F16)}, {}, fn, True)


def k_predicated():
    pre, src, dst = np.zeros((128, 512), U8), np.zeros((128, 512), F32), np.zeros((128, 512), F32)

    def ins():
        return {"predicate": rng(11).integers(0, 2, (128, 512), dtype=U8),
                "on_true": rng(12).random((128, 512), dtype=F32),
                "on_false": rng(13).random((128, 512), dtype=F32)}

    def fn(a):
        pre[:] = a["predicate"]
        src[:] = a["on_true"]
        dst[:] = a["on_false"]
        np.copyto(dst, src, where=pre != 0)
        a["result"][:] = dst

    return ("examples/neuron_copy_predicated.k", "select", ins, {"result": ((128, 512), F32)}, {}, fn, True)


def k_rounding():
    t, r = np.zeros((128, 64), I32), np.zeros((128, 64), I32)
    f, u = np.zeros((128, 64), F32), np.zeros((128, 64), U32)

    def fn(a):
        t[:] = a["x"]
        r[:] = t.astype(F32).astype(I32)
        a["copied"][:] = r
        r[:] = (t.astype(F32) + F32(1)).astype(I32)
        a["plus_one"][:] = r
        f[:] = t.astype(F32)
        a["as_f32"][:] = f
        u[:] = t.astype(F32).astype(np.int64).astype(U32)
        a["as_u32"][:] = u
        r[:] = t
        a["same"][:] = r

    out = {k: ((128, 64), d) for k, d in
           (("copied", I32), ("plus_one", I32), ("as_f32", F32), ("as_u32", U32), ("same", I32))}
    # within +-2^30: every f32 of them converts back to i32 the same way
    # in kdsl (wrapping) and numpy (whose out-of-range casts are the CPU's)
    return ("examples/neuron_f32_rounding.k", "f32_rounding",
            lambda: {"x": rng(14).integers(-(1 << 30), 1 << 30, (128, 64), dtype=I32)}, out, {}, fn, True)


def k_psum_double():
    xs, ws, ys = np.zeros((128, 128), F32), np.zeros((128, 2048), F32), np.zeros((128, 2048), F32)
    acc = np.zeros((4, 128, 512), F32)

    def ins():
        return {"xT": rng(15).uniform(-0.5, 0.5, (128, 128)).astype(F32),
                "w": rng(16).uniform(-0.5, 0.5, (128, 2048)).astype(F32)}

    def fn(a):
        xs[:] = a["xT"]
        ws[:] = a["w"]
        for i in range(4):
            np.matmul(xs.T, ws[:, i * 512:(i + 1) * 512], out=acc[i])
            np.exp(acc[i], out=ys[:, i * 512:(i + 1) * 512])
        a["y"][:] = ys

    return ("examples/neuron_psum_double_buffer.k", "matmul_exp", ins, {"y": ((128, 2048), F32)}, {}, fn, False)


SWAP = np.array([1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
                 17, 16, 19, 18, 21, 20, 23, 22, 25, 24, 27, 26, 29, 28, 31, 30])


def k_swap_pairs():
    t = np.zeros((128, 64), F32)
    idx = (np.arange(128) // 32) * 32 + SWAP[np.arange(128) % 32]

    def fn(a):
        t[:] = a["a"]
        t[:] = t[idx]
        a["b"][:] = t

    return ("examples/neuron_stream_shuffle.k", "swap_pairs",
            lambda: {"a": rng(17).random((128, 64), dtype=F32)}, {"b": ((128, 64), F32)}, {}, fn, True)


def k_rotate():
    src, dst = np.zeros((128, 16), F32), np.zeros((128, 16), F32)
    mask = np.arange(1, 33)
    mask[31] = 255
    keep = mask != 255

    def fn(a):
        dst[:] = 0
        src[32:64] = a["a"]
        dst[64:96][keep] = src[32:64][mask[keep]]
        a["b"][:] = dst[64:96]

    return ("examples/neuron_stream_shuffle.k", "rotate_quadrant",
            lambda: {"a": rng(18).random((32, 16), dtype=F32)}, {"b": ((32, 16), F32)}, {}, fn, True)


def k_transpose():
    s, p, o = np.zeros((128, 256), F32), np.zeros((2, 128, 128), F32), np.zeros((128, 128), F32)

    def fn(a):
        s[:] = a["a"]
        for b in range(2):
            p[b] = s[:, b * 128:(b + 1) * 128].T
            o[:] = p[b]
            a["at"][b * 128:(b + 1) * 128] = o

    return ("examples/neuron_transpose.k", "transpose",
            lambda: {"a": rng(19).random((128, 256), dtype=F32)}, {"at": ((256, 128), F32)}, {}, fn, True)


def k_batch_norm():
    r, d, t = np.zeros(256, F32), np.zeros(256, F32), np.zeros(128, F32)
    m, v = np.zeros(8, F32), np.zeros(8, F32)
    inv = F32(0.00390625)

    def tree_sum():
        # the kernel's two vec_adds, then its sequential f32 loop
        np.add(r[:128], r[128:], out=t)
        np.add(t[:64], t[64:], out=t[:64])
        return np.add.accumulate(t[:64], dtype=F32)[-1]

    def fn(a):
        for i in range(8):
            r[:] = a["x"][i]
            mu = F32(tree_sum() * inv)
            m[i] = mu
            np.add(r, -mu, out=d)
            a["y"][i] = d
            np.multiply(d, d, out=r)
            v[i] = F32(tree_sum() * inv)
        a["mean"][:] = m
        a["variance"][:] = v

    return ("examples/tik_batch_norm.k", "batch_norm",
            lambda: {"x": rng(20).uniform(-4, 4, (8, 256)).astype(F32)},
            {"mean": ((8,), F32), "variance": ((8,), F32), "y": ((8, 256), F32)}, {}, fn, True)


def k_blast():
    h = np.zeros(72, I32)
    j = np.arange(64, dtype=np.int64)

    def ins():
        return {"q": rng(21).integers(0, 4, 32, dtype=I32), "s": rng(22).integers(0, 4, 64, dtype=I32)}

    def fn(a):
        q, s = a["q"], a["s"]
        h[:] = 0
        top = 0
        for i in range(32):
            diag, up = h[0:64].astype(np.int64), h[1:65].astype(np.int64)
            m = np.where(q[i] == s, diag + 2, diag - 1)
            m = np.maximum(np.maximum(m, up - 1), 0)
            # score_j = max(m_j, score_{j-1} - 1): a running max of m_k + k
            score = np.maximum.accumulate(m + j) - j
            h[1:65] = score
            top = max(top, int(score.max()))
        a["last"][:] = h
        a["best"][:] = top

    return ("examples/tik_blast.k", "blast", ins, {"last": ((72,), I32), "best": ((8,), I32)}, {}, fn, True)


def k_permute():
    c, tile_n = 10880, 65280
    tile = np.zeros(tile_n, F16)

    def fn(a):
        x, y = a["x"].reshape(-1), a["y"]
        for t in range(2):
            tile[:] = x[t * tile_n:(t + 1) * tile_n]
            for aa in range(2):
                for b in range(3):
                    y[b, 2 * t + aa] = tile[(aa * 3 + b) * c:(aa * 3 + b + 1) * c]

    return ("examples/tik_permute.k", "permute",
            lambda: {"x": f16_in(23, (4, 3, 10880))}, {"y": ((3, 4, 10880), F16)}, {}, fn, True)


def k_scatter():
    idx, upd, row = np.zeros(8, I32), np.zeros((8, 32), F32), np.zeros(32, F32)

    def ins():
        return {"table": rng(24).random((16, 32), dtype=F32),
                "indices": rng(25).integers(0, 16, 8, dtype=I32),
                "updates": rng(26).random((8, 32), dtype=F32)}

    def fn(a):
        idx[:] = a["indices"]
        upd[:] = a["updates"]
        table = a["table"]
        for k in range(8):
            i = idx[k]
            row[:] = table[i]
            np.add(row, upd[k], out=row)
            table[i] = row

    return ("examples/tik_scatter_nd_add.k", "scatter_nd_add", ins, {}, {}, fn, True)


def k_upsample():
    row, out = np.zeros(64, F16), np.zeros(128, F16)

    def fn(a):
        x, y = a["x"], a["y"]
        for h in range(8):
            row[:] = x[h]
            out[0::2] = row
            out[1::2] = row
            y[2 * h] = out
            y[2 * h + 1] = out

    return ("examples/tik_upsample.k", "upsample",
            lambda: {"x": f16_in(27, (8, 64))}, {"y": ((16, 128), F16)}, {}, fn, True)


def k_rmsnorm():
    x, y = np.zeros((128, 512), F32), np.zeros((128, 512), F32)
    r = np.zeros((128, 1), F32)

    def ins():
        return {"a": rng(30).random((256, 512), dtype=F32), "g": rng(31).random((1, 512), dtype=F32)}

    def fn(a):
        for i in range(2):
            x[:] = a["a"][i * 128:(i + 1) * 128]
            np.square(x, out=y)
            np.sum(y, axis=1, keepdims=True, out=r)
            r[:] = F32(1) / np.sqrt(r * F32(1.0 / 512))
            np.multiply(x, r, out=y)
            np.multiply(y, a["g"], out=y)
            a["out"][i * 128:(i + 1) * 128] = y

    return ("examples/nki_rmsnorm.k", "rmsnorm", ins, {"out": ((256, 512), F32)}, {}, fn, False)


def k_layernorm():
    t, sh = np.zeros((128, 512), F32), np.zeros((128, 512), F32)
    m, v = np.zeros((128, 1), F32), np.zeros((128, 1), F32)

    def ins():
        return {"x": rng(32).random((256, 512), dtype=F32), "gamma": rng(33).random((1, 512), dtype=F32),
                "beta": rng(34).random((1, 512), dtype=F32)}

    def fn(a):
        for i in range(2):
            t[:] = a["x"][i * 128:(i + 1) * 128]
            np.mean(t, axis=1, keepdims=True, out=m)
            np.square(t, out=sh)
            np.mean(sh, axis=1, keepdims=True, out=v)
            v[:] = F32(1) / np.sqrt(v - m * m + F32(1e-5))
            np.subtract(t, m, out=sh)
            np.multiply(sh, v, out=sh)
            np.multiply(sh, a["gamma"], out=sh)
            np.add(sh, a["beta"], out=sh)
            a["out"][i * 128:(i + 1) * 128] = sh

    return ("examples/nki_layernorm.k", "layernorm", ins, {"out": ((256, 512), F32)}, {}, fn, False)


def k_softmax():
    t, e = np.zeros((128, 512), F32), np.zeros((128, 512), F32)
    s = np.zeros((128, 1), F32)

    def fn(a):
        for i in range(2):
            t[:] = a["x"][i * 128:(i + 1) * 128]
            np.max(t, axis=1, keepdims=True, out=s)
            np.subtract(t, s, out=e)
            np.exp(e, out=e)
            np.sum(e, axis=1, keepdims=True, out=s)
            np.divide(e, s, out=e)
            a["out"][i * 128:(i + 1) * 128] = e

    return ("examples/nki_softmax.k", "softmax", lambda: {"x": rng(35).random((256, 512), dtype=F32)},
            {"out": ((256, 512), F32)}, {}, fn, False)


def k_matmul_act():
    xs, ws = np.zeros((128, 128), F32), np.zeros((128, 512), F32)
    acc, ys = np.zeros((128, 512), F32), np.zeros((128, 512), F32)

    def ins():
        return {"xT": rng(28).uniform(-1, 1, (128, 128)).astype(F32),
                "w": rng(29).uniform(-1, 1, (128, 512)).astype(F32)}

    def fn(a):
        xs[:] = a["xT"]
        ws[:] = a["w"]
        np.matmul(xs.T, ws, out=acc)
        np.maximum(acc, F32(0), out=ys)
        a["y"][:] = ys

    return ("bench/matmul_act.k", "matmul_act", ins, {"y": ((128, 512), F32)}, {}, fn, False)


def k_matmul_tiled():
    lt, rt, res, sb = (np.zeros((128, 128), F32), np.zeros((128, 512), F32), np.zeros((128, 512), F32),
                       np.zeros((128, 512), F32))

    def ins():
        return {"lhsT": rng(30).random((256, 512), dtype=F32), "rhs": rng(31).random((256, 1024), dtype=F32)}

    def fn(a):
        for m in range(4):
            for n in range(2):
                res[:] = 0
                for k in range(2):
                    lt[:] = a["lhsT"][k * 128:(k + 1) * 128, m * 128:(m + 1) * 128]
                    rt[:] = a["rhs"][k * 128:(k + 1) * 128, n * 512:(n + 1) * 512]
                    np.add(res, np.matmul(lt.T, rt), out=res)
                sb[:] = res
                a["result"][m * 128:(m + 1) * 128, n * 512:(n + 1) * 512] = sb

    return ("examples/nki_matmul_tiled.k", "nki_matmul_tiled", ins, {"result": ((512, 1024), F32)}, {}, fn, False)


def k_embedding():
    rows = np.zeros((128, 256), F32)

    def ins():
        r = rng(32)
        return {"ids": r.integers(0, 2048, 512, dtype=I32), "table": r.standard_normal((2048, 256), dtype=F32)}

    def fn(a):
        for t in range(4):
            np.take(a["table"], a["ids"][t * 128:(t + 1) * 128], axis=0, out=rows)
            a["out"][t * 128:(t + 1) * 128] = rows

    return ("examples/nki_embedding.k", "nki_embedding", ins, {"out": ((512, 256), F32)}, {}, fn, True)
def k_tensor_add():
    ta, tb, tc = np.zeros((128, 512), F16), np.zeros((128, 512), F16), np.zeros((128, 512), F16)

    def ins():
        return {"a": f16_in(50, (2, 128, 1024)), "b": f16_in(51, (2, 128, 1024))}

    def fn(a):
        # numpy adds f16 in f32 and rounds once, as the engine does
        for i in range(2):
            for j in range(2):
                ta[:] = a["a"][i, :, j * 512:(j + 1) * 512]
                tb[:] = a["b"][i, :, j * 512:(j + 1) * 512]
                np.add(ta, tb, out=tc)
                a["c"][i, :, j * 512:(j + 1) * 512] = tc

    return ("examples/nki_tensor_add.k", "tensor_add", ins, {"c": ((2, 128, 1024), F16)}, {}, fn, True)


def k_avgpool2d():
    t, f = np.zeros((128, 32, 32), F16), np.zeros((128, 32, 32), F32)
    s, o = np.zeros((128, 16, 16), F32), np.zeros((128, 16, 16), F16)

    def fn(a):
        t[:] = a["x"]
        f[:] = t
        np.add(f[:, 0::2, 0::2], f[:, 0::2, 1::2], out=s)
        np.add(s, f[:, 1::2, 0::2], out=s)
        np.add(s, f[:, 1::2, 1::2], out=s)
        np.multiply(s, F32(0.25), out=s)   # exact in f32; o rounds it once
        o[:] = s
        a["y"][:] = o

    return ("examples/nki_avgpool2d.k", "avgpool2d_128", lambda: {"x": f16_in(52, (128, 32, 32))},
            {"y": ((128, 16, 16), F16)}, {}, fn, True)


def k_causal_mask():
    qs, kb, eye = np.zeros((128, 256), F32), np.zeros((128, 128), F32), np.eye(128, dtype=F32)
    ktp, kt = np.zeros((128, 128), F32), np.zeros((128, 256), F32)
    sp, sb = np.zeros((128, 256), F32), np.zeros((128, 256), F32)
    p, j = np.arange(128)[:, None], np.arange(256)[None, :]

    def ins():
        return {"q": rng(53).random((128, 256), dtype=F32), "k": rng(54).random((256, 128), dtype=F32)}

    def fn(a):
        qs[:] = a["q"]
        for b in range(2):
            kb[:] = a["k"][b * 128:(b + 1) * 128]
            np.matmul(kb.T, eye, out=ktp)   # nc_matmul(ktp, kb, eye): the transpose through the PE
            kt[:, b * 128:(b + 1) * 128] = ktp
        for qt in range(2):
            np.matmul(qs[:, qt * 128:(qt + 1) * 128].T, kt, out=sp)
            sb[:] = sp
            # affine_select(p=1, f=-1, c=qt*128, ">="): keep where p - j + c >= 0
            np.copyto(sb, F32(-9984.0), where=p - j + qt * 128 < 0)
            a["scores"][qt * 128:(qt + 1) * 128] = sb

    return ("examples/nki_causal_mask.k", "causal_scores", ins, {"scores": ((256, 256), F32)}, {}, fn, False)


def k_transpose2d():
    s, t, o = np.zeros((96, 128), F32), np.zeros((128, 96), F32), np.zeros((128, 96), F32)

    def fn(a):
        for p in range(4):
            s[:] = a["a"][p * 96:(p + 1) * 96]
            t[:] = s.T
            o[:] = t
            a["at"][p * 128:(p + 1) * 128] = o

    return ("examples/nki_transpose2d_engine.k", "transpose2d", lambda: {"a": rng(55).random((384, 128), dtype=F32)},
            {"at": ((512, 96), F32)}, {}, fn, True)


def k_transpose_load():
    t = np.zeros((128, 512), F32)

    def fn(a):
        t[:] = a["a"].T
        a["out"][:] = t

    return ("examples/nki_transpose2d_load.k", "transpose_load", lambda: {"a": rng(56).random((512, 128), dtype=F32)},
            {"out": ((128, 512), F32)}, {}, fn, True)


def k_reduce_mean():
    # the batch case of Compass's test (x [3, 29, 21] reduced over axis 1),
    # its reference np.mean: f32 sums over h (row after row, the kernel's
    # order) divided in f32, then f16
    b, h, w = 3, 29, 21

    def ins():
        x = rng(57).uniform(-10, 10, b * h * w).astype(F16)
        return {"in0": np.concatenate([x, np.zeros(2304 - x.size, F16)])}

    def fn(a, b, h, w):
        a["out0"][:b * w] = np.mean(a["in0"][:b * h * w].reshape(b, h, w), axis=1).reshape(-1)

    return ("examples/compass_reduce_mean.k", "mean_fp16", ins, {"out0": ((64,), F16)}, {"b": b, "h": h, "w": w},
            fn, True)


def k_deinterleave():
    def ins():
        return {"x": f16_in(40, 512)}

    def fn(a, n=256):
        x = a["x"][:2 * n]
        a["re"][:n], a["im"][:n] = x[0::2], x[1::2]
        a["swapped"][0:2 * n:2], a["swapped"][1:2 * n:2] = x[1::2], x[0::2]

    return ("examples/compass_deinterleave.k", "deinterleave", ins,
            {"re": ((256,), F16), "im": ((256,), F16), "swapped": ((512,), F16)}, {"n": 256}, fn, True)


def k_lut():
    def ins():
        xs = np.linspace(-8, 8, 512)
        return {"table": (xs / (1 + np.exp(-xs))).astype(F16),
                "index": rng(41).integers(0, 511, 1024).astype(np.uint16)}

    t = np.zeros(512, F16)

    def fn(a, n=1024):
        t[:] = a["table"]
        ix = a["index"][:n]
        lo, hi = t[ix], t[ix + 1]
        a["y"][:n] = lo
        a["dy"][:n] = (hi.astype(np.float64) - lo.astype(np.float64)).astype(F16)

    return ("examples/compass_lut.k", "lut", ins, {"y": ((1024,), F16), "dy": ((1024,), F16)},
            {"n": 1024}, fn, True)


KERNELS = {f.__name__[2:]: f for f in (
    k_mask_strings, k_permutations, k_block_stage, k_contiguous, k_move_large, k_unaligned,
    k_guarded, k_row_gather, k_predicated, k_rounding, k_psum_double, k_swap_pairs, k_rotate,
    k_transpose, k_batch_norm, k_blast, k_permute, k_scatter, k_upsample, k_rmsnorm, k_layernorm,
    k_softmax, k_deinterleave, k_lut, k_matmul_act, k_matmul_tiled, k_embedding, k_tensor_add,
    k_avgpool2d, k_causal_mask, k_transpose2d, k_transpose_load, k_reduce_mean)}


def setup(name):
    """The kernel's tensors, fresh: inputs and zeroed outputs."""
    path, kern, ins, outs, scalars, fn, exact = KERNELS[name]()
    a = ins()
    for k, (shape, dt) in outs.items():
        a[k] = np.zeros(shape, dt)
    return path, kern, a, scalars, fn, exact


def call(fn, a, scalars):
    fn(a, **scalars) if scalars else fn(a)


def cmd_args(d):
    for name in KERNELS:
        path, kern, a, scalars, fn, exact = setup(name)
        os.makedirs(os.path.join(d, name), exist_ok=True)
        args = []
        for k, v in a.items():
            f = os.path.join(d, name, k + ".npy")
            np.save(f, v)
            args.append(f"--arg {k}={f}")
        args += [f"--arg {k}={v}" for k, v in scalars.items()]
        print(name, path, kern, " ".join(args))


def cmd_check(d):
    bad = 0
    for name in KERNELS:
        if not os.path.isdir(os.path.join(d, name, "out")):
            continue  # not run (bench/run.sh's PATTERN left it out)
        path, kern, a, scalars, fn, exact = setup(name)
        call(fn, a, scalars)
        diff = 0
        for k, v in a.items():
            # the harness prefixes the kernel's name when the file has several
            f = os.path.join(d, name, "out", k + ".npy")
            if not os.path.exists(f):
                f = os.path.join(d, name, "out", f"{kern}.{k}.npy")
            got = np.load(f)
            if exact:
                same = got.dtype == v.dtype and got.shape == v.shape and got.tobytes() == v.tobytes()
            else:
                # matmul: numpy's BLAS sums in its own order, kdsl in k order;
                # the norms: numpy's pairwise sums and f32 exp against kdsl's
                # sequential folds and libm's double exp
                same = got.shape == v.shape and np.allclose(got, v, rtol=1e-4, atol=1e-4)
            if not same:
                print(f"whole_kernels: {name}: {k} differs from kdsl's", file=sys.stderr)
                diff = bad = 1
        print(name, "DIFFERENT" if diff else "identical" if exact else "close(rtol=1e-4)")
    return bad


def timeit(fn, reps):
    """Median and min ns per call over reps batches of ~1 ms (numpy_ops's
    batches, the one timing loop of the numpy side)."""
    ts = numpy_ops.batches(fn, reps, 1e6)
    return statistics.median(ts), min(ts)


LIBC = ctypes.CDLL(None)
LIBC.memcpy.restype = ctypes.c_void_p
LIBC.memcpy.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)


def memcpy_ns(nbytes, reps):
    """libc memcpy of nbytes between two 64-byte aligned buffers."""
    src = np.ones(nbytes + 64, U8)
    dst = np.zeros(nbytes + 64, U8)
    s = src.ctypes.data + (-src.ctypes.data) % 64
    d = dst.ctypes.data + (-dst.ctypes.data) % 64
    return timeit(lambda: LIBC.memcpy(d, s, nbytes), reps)[0]


def cmd_time(quick, names):
    reps = 3 if quick else 7
    for name in names or KERNELS:
        if name not in KERNELS:
            sys.exit(f"whole_kernels.py: no kernel {name}")
        path, kern, a, scalars, fn, exact = setup(name)
        med, lo = timeit(lambda: call(fn, a, scalars), reps)
        # the bytes it moves: every tensor read in once and written out once
        moved = sum(v.nbytes for v in a.values())
        mc = f"{memcpy_ns(moved, reps):.0f}" if moved >= 256 << 10 else "-"
        print(f"{name} {med:.0f} {lo:.0f} {mc} {moved}", flush=True)


def cmd_blas():
    a = np.ones((64, 64), F32)
    a @ a
    libs = sorted({ln.split()[-1] for ln in open("/proc/self/maps") if "blas" in ln.split()[-1].lower()})
    thr = os.environ.get("OPENBLAS_NUM_THREADS", f"unset, so OpenBLAS threads on all {os.cpu_count()} cores")
    print(f"numpy {np.__version__}; BLAS numpy loaded: {', '.join(libs) or 'none found'}"
          f" (OPENBLAS_NUM_THREADS {thr})")


def spread(v):
    """The median of the rounds' medians and their "min-max"."""
    return statistics.median(v), f"{min(v):.0f}-{max(v):.0f}"


def paired(a, b):
    """The median of a's time over b's in the rounds that timed both, as
    "median (min-max)", and the median; ("-", None) when none did.  The
    two of a round ran back to back, so a ratio compares times taken
    under the same load, where the medians of two columns may come from
    rounds the machine ran at different speeds."""
    r = sorted(a[k] / b[k] for k in a if k in b and b[k] > 0)
    if not r:
        return "-", None
    m = statistics.median(r)
    return f"{m:.3f} ({r[0]:.2f}-{r[-1]:.2f})", m


def cmd_table(path):
    """Prints the whole-kernel tables from the rounds bench/run.sh ran:
    in each round, a kernel's processes run back to back, one per kdsl
    level (its median over --repeat calls) and one numpy process (its
    median over batches), so a time shown is the median of the rounds,
    the range says how far the rounds moved on the shared machine, and a
    ratio is the median of the rounds' own ratios (paired)."""
    t = {}
    flags, moved, mc, csame = {}, {}, {}, {}
    for ln in open(path):
        f = ln.split()
        if len(f) < 4:
            continue
        name, what = f[1], f[2]
        if what == "same":
            flags[name] = f[3]
            continue
        if what == "csame":
            csame[name] = f[3]
            continue
        t.setdefault((name, what), {})[f[0]] = float(f[3])
        if what == "numpy" and len(f) >= 7:
            moved[name] = int(f[6])
            if f[5] != "-":
                mc.setdefault(name, []).append(float(f[5]))
    names = [n for n in KERNELS if (n, "O1") in t]
    if not names:
        sys.exit("whole_kernels.py: no kdsl times in %s (did every kernel run fail?)" % path)
    nthr = os.environ.get("OPENBLAS_NUM_THREADS") or str(os.cpu_count())
    print("| kernel | kdsl -O1 ns | rounds | numpy ns | rounds | kdsl / numpy (rounds) | kdsl at least as fast "
          f"| outputs | {nthr} threads ns | {nthr} threads / numpy (rounds) |")
    print("|---|---:|---:|---:|---:|---:|---|---|---:|---:|")
    for n in names:
        k, kr = spread(t[(n, "O1")].values())
        p, pr, ratio, met = 0, "-", "-", "-"
        if (n, "numpy") in t:
            p, pr = spread(t[(n, "numpy")].values())
            ratio, m = paired(t[(n, "O1")], t[(n, "numpy")])
            met = "-" if m is None else "yes" if m <= 1 else "**no**"
        path = KERNELS[n]()[0]
        one, one_ratio = "-", "-"
        if (n, "O1tN") in t:
            one = f"{statistics.median(t[(n, 'O1tN')].values()):.0f}"
            one_ratio, mt = paired(t[(n, "O1tN")], t.get((n, "numpy"), {}))
            # numpy's matmuls run on nthr threads: kdsl with as many counts too
            if met == "**no**" and mt is not None and mt <= 1:
                met = f"yes ({nthr} threads)"
        print(f"| {n} ({os.path.basename(path)}) | {k:.0f} | {kr} | {p:.0f} | {pr} | {ratio} | {met} | "
              f"{flags.get(n, '-')} | {one} | {one_ratio} |")
    print()
    print("Kernels that move 256 KiB or more (the bytes of their tensors: inputs read, outputs")
    print("written), against one libc memcpy of as many bytes (memcpy time / kdsl time: 1.0 is")
    print("memcpy's speed; the medians of the same rounds):")
    print()
    print("| kernel | bytes moved | kdsl -O1 ns | memcpy ns | memcpy / kdsl |")
    print("|---|---:|---:|---:|---:|")
    for n in names:
        if n in mc:
            k, m = statistics.median(t[(n, "O1")].values()), statistics.median(mc[n])
            print(f"| {n} | {moved[n]} | {k:.0f} | {m:.0f} | {m / k:.3f} |")
    print()
    print("-O0 against -O1 (the same rounds). \"C\" says whether kdslc wrote the same C at both")
    print("levels (then any difference is the machine's: the processes' medians move with where")
    print("their memory lands); \"min\" compares the fastest round of each level.")
    print()
    # The noise floor of this run: how far the fastest rounds of the two
    # levels moved apart on the kernels whose C is the same at both.
    lo = {key: min(v.values()) for key, v in t.items()}
    noise = max([max(lo[(n, "O0")] / lo[(n, "O1")], lo[(n, "O1")] / lo[(n, "O0")])
                 for n in names if (n, "O0") in t and csame.get(n) == "same"] or [1.0])
    print("On the kernels with the same C at both levels the fastest rounds differ by up to")
    print(f"{100 * (noise - 1):.1f}% in this run: the noise a difference must exceed to count.")
    print()
    print("| kernel | C | -O0 ns | rounds | -O1 ns | rounds | -O0 / -O1 | min -O0 / min -O1 | -O1 not slower |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for n in names:
        if (n, "O0") not in t:
            continue
        v0, v1 = list(t[(n, "O0")].values()), list(t[(n, "O1")].values())
        a, ar = spread(v0)
        b, br = spread(v1)
        same_c = csame.get(n, "-")
        if b <= a or min(v1) <= min(v0):
            ok = "yes"
        elif same_c == "same":
            ok = "yes (same C)"
        elif min(v1) <= min(v0) * noise:
            ok = "within the noise"
        else:
            ok = "**no**"
        print(f"| {n} | {same_c} | {a:.0f} | {ar} | {b:.0f} | {br} | {a / b:.2f}x | "
              f"{min(v0) / min(v1):.2f}x | {ok} |")


def main(argv):
    if len(argv) >= 3 and argv[1] == "args":
        cmd_args(argv[2])
    elif len(argv) >= 3 and argv[1] == "check":
        return cmd_check(argv[2])
    elif len(argv) >= 2 and argv[1] == "time":
        cmd_time("--quick" in argv, [a for a in argv[2:] if a != "--quick"])
    elif len(argv) >= 3 and argv[1] == "table":
        cmd_table(argv[2])
    elif len(argv) >= 2 and argv[1] == "blas":
        cmd_blas()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
