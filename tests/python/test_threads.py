"""Two runtimes in two threads: each thread's module has its own runtime
(emulated memories), ctypes releases the GIL during a call, and the
results are each thread's own."""
import threading

from conftest import example, kdsl, np


def test_two_runtimes_two_threads():
    mods = [kdsl.compile(example('neuron_copy_predicated.k')) for _ in range(2)]
    assert mods[0].runtime is not mods[1].runtime
    errors = []

    def work(i):
        try:
            rng = np.random.default_rng(i)
            for _ in range(20):
                pred = rng.integers(0, 2, (128, 512)).astype(np.uint8)
                a = rng.standard_normal((128, 512)).astype(np.float32)
                b = np.full((128, 512), float(i), np.float32)
                out = mods[i].select(pred, a, b)
                if not np.array_equal(out, np.where(pred != 0, a, b)):
                    errors.append('thread %d: wrong result' % i)
        except Exception as e:   # reported by the main thread
            errors.append('thread %d: %r' % (i, e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_concurrent_compiles_of_one_text(tmp_path, monkeypatch):
    monkeypatch.setenv('KDSL_CACHE_DIR', str(tmp_path))
    src = open(example('ascend_data_move_contiguous.k')).read()
    mods, errors = [None, None], []

    def work(i):
        try:
            mods[i] = kdsl.compile(src)
        except Exception as e:
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and mods[0].path == mods[1].path
    x = np.arange(512, dtype=np.float16)
    np.testing.assert_array_equal(mods[0].data_move_contiguous(x), x)
    np.testing.assert_array_equal(mods[1].data_move_contiguous(x), x)
