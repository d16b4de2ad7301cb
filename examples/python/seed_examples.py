"""The seed examples (examples/*.k) through Python, each against numpy as
its .k file's Expected: line states it.

    PYTHONPATH=python python3 examples/python/seed_examples.py
"""
import os

import numpy as np

import kdsl

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_example(name):
    return kdsl.compile(os.path.join(HERE, '..', name))


def main():
    rng = np.random.default_rng(0)

    # seed 001, example 2: 23 halves doubled through two overlapping bursts
    m = compile_example('ascend_data_move_unaligned.k')
    src = np.arange(23, dtype=np.float16)
    assert np.array_equal(m.data_move_unaligned(src), 2 * src)

    # seed 001, example 1: gm -> ub -> gm, unchanged
    m = compile_example('ascend_data_move_contiguous.k')
    src = rng.standard_normal(512).astype(np.float16)
    assert np.array_equal(m.data_move_contiguous(src), src)

    # seed 001, example 3: larger than ub, in two segments; 2.0 -> 4.0
    m = compile_example('ascend_data_move_large.k')
    assert np.all(m.data_move_large(np.full((126976, 2), 2.0, np.float16)) == 4.0)

    # seed 002, example 1: on_true where the predicate is nonzero
    m = compile_example('neuron_copy_predicated.k')
    pred = rng.integers(0, 2, (128, 512)).astype(np.uint8)
    on_true = rng.standard_normal((128, 512)).astype(np.float32)
    on_false = rng.standard_normal((128, 512)).astype(np.float32)
    assert np.array_equal(m.select(pred, on_true, on_false), np.where(pred != 0, on_true, on_false))

    # seed 000: neighbouring partitions swapped
    m = compile_example('neuron_stream_shuffle.k')
    a = rng.standard_normal((128, 64)).astype(np.float32)
    assert np.array_equal(m.swap_pairs(a), a[np.arange(128) ^ 1])

    # seed 003: exp(xT^T @ w) through two psum banks
    m = compile_example('neuron_psum_double_buffer.k')
    xT = rng.uniform(-0.1, 0.1, (128, 128)).astype(np.float32)
    w = rng.uniform(-0.1, 0.1, (128, 2048)).astype(np.float32)
    assert np.allclose(m.matmul_exp(xT, w), np.exp(xT.T @ w), rtol=1e-5)

    print('the seed examples match numpy')


if __name__ == '__main__':
    main()
