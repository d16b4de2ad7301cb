"""Shared fixtures of the Python package's tests (tests/python)."""
import os

import pytest

SRC = os.environ.get('KDSL_SRC_ROOT') or os.path.normpath(
    os.path.join(os.path.dirname(__file__), '..', '..'))
EXAMPLES = os.path.join(SRC, 'examples')

np = pytest.importorskip('numpy')
kdsl = pytest.importorskip('kdsl')


def example(name):
    """The path of examples/NAME."""
    return os.path.join(EXAMPLES, name)


def inputs(kernel, seed=1):
    """Arguments for every parameter of a kernel: deterministic random
    inputs (small integers, so indices stay in range; floats in [-2, 2)),
    zeros for the tensors it writes, 5 for a scalar."""
    rng = np.random.default_rng(seed)
    args = {}
    for p in kernel.params:
        if not p.is_tensor:
            args[p.name] = 5
        elif p.written:
            args[p.name] = np.zeros(p.shape, p.dtype)
        elif p.dtype.kind == 'f':
            args[p.name] = rng.uniform(-2, 2, p.shape).astype(p.dtype)
        elif p.dtype.kind == 'b':
            args[p.name] = rng.integers(0, 2, p.shape).astype(p.dtype)
        else:
            args[p.name] = rng.integers(0, 16, p.shape).astype(p.dtype)
    return args
