"""Every example kernel through Python agrees bit for bit with `kdslc run`
on the same inputs (the C harness's path), and the seed examples agree with
numpy references (the Expected: lines of their .k files)."""
import glob
import os

import pytest

from conftest import EXAMPLES, example, inputs, kdsl, np

FILES = sorted(os.path.basename(f) for f in glob.glob(os.path.join(EXAMPLES, '*.k')))


def test_examples_found():
    assert len(FILES) >= 18


@pytest.mark.parametrize('name', FILES)
def test_example_matches_kdslc_run(name):
    mod = kdsl.compile(example(name))
    assert mod.kernels
    for k in mod.kernels.values():
        args = inputs(k)
        want = kdsl.run_file(example(name), kernel=k.name, **args)   # before k writes args
        got = k(**args)
        outs = got if isinstance(got, tuple) else (got,)
        written = [p for p in k.params if p.is_tensor and p.written]
        assert len(outs) == len(written)
        for p, a in zip(written, outs):
            assert a is args[p.name]          # written in place, and returned
            assert want[p.name].dtype == a.dtype
            assert want[p.name].tobytes() == a.tobytes(), '%s: %s differs' % (k.name, p.name)


def test_seed001_unaligned():
    mod = kdsl.compile(example('ascend_data_move_unaligned.k'))
    src = np.arange(23, dtype=np.float16)
    np.testing.assert_array_equal(mod.data_move_unaligned(src), src * 2)


def test_seed001_contiguous():
    mod = kdsl.compile(example('ascend_data_move_contiguous.k'))
    src = np.random.default_rng(3).standard_normal(512).astype(np.float16)
    dst = np.empty(512, np.float16)
    assert mod.data_move_contiguous(src, dst) is dst
    np.testing.assert_array_equal(dst, src)


def test_seed001_large():
    mod = kdsl.compile(example('ascend_data_move_large.k'))
    src = np.full((126976, 2), 2.0, np.float16)
    np.testing.assert_array_equal(mod.data_move_large(src_gm=src), np.full_like(src, 4.0))


def test_seed002_copy_predicated():
    mod = kdsl.compile(example('neuron_copy_predicated.k'))
    rng = np.random.default_rng(2)
    pred = rng.integers(0, 3, (128, 512)).astype(np.uint8)
    on_true = rng.standard_normal((128, 512)).astype(np.float32)
    on_false = rng.standard_normal((128, 512)).astype(np.float32)
    out = mod.select(pred, on_true, on_false)
    np.testing.assert_array_equal(out, np.where(pred != 0, on_true, on_false))


def test_seed000_stream_shuffle():
    mod = kdsl.compile(example('neuron_stream_shuffle.k'))
    a = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)
    np.testing.assert_array_equal(mod.swap_pairs(a), a[np.arange(128) ^ 1])
    a = np.random.default_rng(1).standard_normal((32, 16)).astype(np.float32)
    b = mod.rotate_quadrant(a)
    np.testing.assert_array_equal(b[:31], a[1:])
    np.testing.assert_array_equal(b[31], 0)


def test_seed003_psum_double_buffer():
    mod = kdsl.compile(example('neuron_psum_double_buffer.k'))
    rng = np.random.default_rng(4)
    xT = rng.uniform(-0.1, 0.1, (128, 128)).astype(np.float32)
    w = rng.uniform(-0.1, 0.1, (128, 2048)).astype(np.float32)
    y = mod.matmul_exp(xT, w)
    assert np.allclose(y, np.exp(xT.T.astype(np.float64) @ w), rtol=1e-5, atol=1e-6)


def test_transpose_bit_exact():
    mod = kdsl.compile(example('neuron_transpose.k'))
    a = np.random.default_rng(5).integers(0, 2**32, (128, 256), dtype=np.uint64) \
        .astype(np.uint32).view(np.float32)
    assert mod.transpose(a).view(np.uint32).tobytes() == a.T.copy().view(np.uint32).tobytes()


def test_examples_python_seed_script():
    """examples/python/seed_examples.py runs as the README says."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'seed_examples', os.path.join(EXAMPLES, 'python', 'seed_examples.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main()
