"""The Python package's call cost (docs/python.md, "Call overhead"):
prints markdown rows, the median time of a call through kdsl (ctypes, the
argument checks) of an empty kernel and of seed 002's 256 KiB predicated
copy (examples/neuron_copy_predicated.k: four 128x512 tensors of 256 KiB
or 64 KiB), beside the same kernel called from C (`kdslc run --repeat`,
the harness's median).

    PYTHONPATH=python KDSL_BUILD_DIR=build python3 bench/python_calls.py [RUNS]
"""
import os
import re
import subprocess
import sys
import time

import numpy as np

import kdsl

HERE = os.path.dirname(os.path.abspath(__file__))
COPY = os.path.join(HERE, '..', 'examples', 'neuron_copy_predicated.k')


def median_ns(call, runs):
    """Median of runs timed calls, after a warm-up."""
    for _ in range(max(3, runs // 20)):
        call()
    ts = []
    for _ in range(runs):
        t = time.perf_counter_ns()
        call()
        ts.append(time.perf_counter_ns() - t)
    return sorted(ts)[len(ts) // 2]


def c_median_ns(runs):
    """kdslc run's median for the predicated copy (the C harness)."""
    out = subprocess.run([kdsl.toolchain().kdslc, 'run', COPY, '--quiet', '--repeat', str(runs)],
                         capture_output=True, text=True, check=True)
    return int(re.search(r'median (\d+) ns', out.stdout + out.stderr).group(1))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    empty = kdsl.compile('target ascend;\nkernel empty() {\n}\n').empty
    sel = kdsl.compile(COPY).select
    rng = np.random.default_rng(0)
    pred = rng.integers(0, 2, (128, 512)).astype(np.uint8)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    b = rng.standard_normal((128, 512)).astype(np.float32)
    out = np.empty((128, 512), np.float32)
    e = median_ns(empty, runs * 50)
    p = median_ns(lambda: sel(pred, a, b, out), runs)
    c = c_median_ns(runs)
    print('| call | median |')
    print('| --- | --- |')
    print('| empty kernel, Python | %.2f us |' % (e / 1e3))
    print('| 256 KiB predicated copy, Python | %.1f us |' % (p / 1e3))
    print('| 256 KiB predicated copy, C (kdslc run) | %.1f us |' % (c / 1e3))


if __name__ == '__main__':
    main()
