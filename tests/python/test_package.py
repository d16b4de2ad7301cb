"""kdsl.run_file where only the package's own copies exist: a package
folder laid out as a pip install lays it out (python/meson.build: kdsl/_bin
kdslc, kdsl/_lib the runtime's SONAME file and the static harness and
runtime, kdsl/_include the three headers), copied from the build tree and
imported in a fresh python away from the checkout.  `kdslc run` then gets
KDSL_RT_INCLUDE and KDSL_RT_LIBDIR naming the package's folders, which
replace its built-in paths, so the run links the copies alone.  (A real
`pip install` builds the whole project, about 100 s on 2 loaded cores:
docs/python.md says how it was checked by hand.)"""
import os
import shutil
import subprocess
import sys

from conftest import SRC, example, np

CHILD = '''
import subprocess, sys
import numpy as np
import kdsl
tc = kdsl.toolchain()
pkg = sys.argv[1]
assert tc.origin == 'package', tc
assert tc.run_env == {'KDSL_RT_INCLUDE': pkg + '/_include', 'KDSL_RT_LIBDIR': pkg + '/_lib'}, tc.run_env
seen = []
real = subprocess.run
def spy(cmd, **kw):
    if cmd[1:2] == ['run']:
        seen.append(kw.get('env') or {})
    return real(cmd, **kw)
subprocess.run = spy
out = kdsl.run_file(sys.argv[2], src_gm=np.arange(23, dtype=np.float16))
assert seen and all(seen[0].get(k) == v for k, v in tc.run_env.items()), seen
np.save(sys.argv[3], out['dst_gm'])
'''


def test_run_file_from_the_package_copies(tmp_path):
    build = os.environ['KDSL_BUILD_DIR']
    pkg = tmp_path / 'site' / 'kdsl'
    for d in ('_bin', '_lib', '_include'):
        (pkg / d).mkdir(parents=True)
    for f in os.listdir(os.path.join(SRC, 'python', 'kdsl')):
        if f.endswith('.py'):
            shutil.copy(os.path.join(SRC, 'python', 'kdsl', f), pkg)
    shutil.copy(os.path.join(build, 'driver', 'kdslc'), pkg / '_bin')
    for f in ('runtime/libkdsl-runtime.so.0', 'runtime/libkdsl-runtime.a', 'runtime/harness/libkdsl-harness.a'):
        shutil.copy(os.path.join(build, f), pkg / '_lib')
    for f in ('runtime/kdsl_rt.h', 'runtime/kdsl_hw.h', 'runtime/harness/kdsl_harness.h'):
        shutil.copy(os.path.join(SRC, f), pkg / '_include')
    env = {k: v for k, v in os.environ.items() if k not in ('KDSL_BUILD_DIR', 'PYTHONPATH')}
    env['PYTHONPATH'] = str(tmp_path / 'site')
    r = subprocess.run([sys.executable, '-c', CHILD, str(pkg), example('ascend_data_move_unaligned.k'),
                        str(tmp_path / 'out.npy')], cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / 'out.npy'), np.arange(23, dtype=np.float16) * 2)
