"""meson test's entry to the Python package's tests (suite python):
run_pytest.py SRC_ROOT BUILD_ROOT.  Exits 77 (meson's skip) when this
python lacks pytest or numpy; otherwise runs pytest on this folder with
the package from the source tree (and examples/python/test_nki_style.py),
the build tree's kdslc and runtime
(KDSL_BUILD_DIR) and a compile cache in the build tree."""
import os
import sys

src, build = sys.argv[1], sys.argv[2]
sys.dont_write_bytecode = True   # nothing written into the source tree
try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print('skipped: %s' % e)
    sys.exit(77)
sys.path.insert(0, os.path.join(src, 'python'))
os.environ['PYTHONPATH'] = os.path.join(src, 'python')
os.environ['PYTHONDONTWRITEBYTECODE'] = '1'
os.environ['KDSL_BUILD_DIR'] = build
os.environ['KDSL_CACHE_DIR'] = os.path.join(build, 'tests', 'python-cache')
os.environ['KDSL_SRC_ROOT'] = src
# examples/python's NKI-style test runs as it is, in the same session.
sys.exit(pytest.main([os.path.dirname(os.path.abspath(__file__)),
                      os.path.join(src, 'examples', 'python', 'test_nki_style.py'),
                      '-q', '-p', 'no:cacheprovider', '-rs'] + sys.argv[3:]))
