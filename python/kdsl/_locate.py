"""Where kdslc, kdsl_rt.h and libkdsl-runtime are.

The package runs the kdslc of one kdsl installation and links the kernels
it compiles against that installation's runtime, so the three always come
from the same place.  In order, the first that exists wins:

1. ``$KDSL_BUILD_DIR``: a meson build tree of kdsl (``build/``);
2. the copies installed inside the package (``kdsl/_bin``, ``_lib``,
   ``_include``: a ``pip install`` or a meson install with -Dpython=enabled);
3. the build tree beside the package's source folder (``python/kdsl`` of a
   checkout whose ``build/`` is built: ``PYTHONPATH=python`` works as is);
4. ``kdslc`` on ``$PATH`` with pkg-config's ``kdsl-runtime`` (a system
   install, ``meson install``).
"""
import os
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))


class Toolchain:
    """kdslc's path, the runtime headers' folder and the runtime shared
    library's path (the file named by its SONAME, libkdsl-runtime.so.0);
    run_env, what `kdslc run` needs in its environment to find the
    harness and runtime it links (KDSL_RT_INCLUDE, KDSL_RT_LIBDIR: empty
    where kdslc's own defaults find them)."""

    def __init__(self, kdslc, include, runtime, origin, run_env=None):
        self.kdslc = kdslc
        self.include = include
        self.runtime = runtime
        self.origin = origin
        self.run_env = dict(run_env or {})

    def __repr__(self):
        return 'Toolchain(kdslc=%r, include=%r, runtime=%r, origin=%r)' % (
            self.kdslc, self.include, self.runtime, self.origin)


def _pc_value(pc_file, key):
    """A variable (``key=value``) or field (``Key: value``) of a pkg-config
    file, with ${var} expanded."""
    vals = {}
    with open(pc_file) as f:
        for line in f:
            line = line.strip()
            eq, colon = line.find('='), line.find(':')
            if eq < 0 and colon < 0:
                continue
            at = eq if colon < 0 or (0 <= eq < colon) else colon
            k, v = line[:at].strip(), line[at + 1:].strip()
            for name, val in vals.items():
                v = v.replace('${%s}' % name, val)
            vals[k] = v
    return vals.get(key)


def _from_build(build):
    """The toolchain of a meson build tree, or None when it is not one."""
    kdslc = os.path.join(build, 'driver', 'kdslc')
    lib = os.path.join(build, 'runtime', 'libkdsl-runtime.so.0')
    pc = os.path.join(build, 'meson-uninstalled', 'kdsl-runtime-uninstalled.pc')
    if not (os.path.exists(kdslc) and os.path.exists(lib) and os.path.exists(pc)):
        return None
    # The uninstalled .pc names the source tree's runtime folder, where
    # kdsl_rt.h is (the headers are not copied into the build tree).
    cflags = _pc_value(pc, 'Cflags') or ''
    include = None
    for word in cflags.split():
        if word.startswith('-I') and os.path.exists(os.path.join(word[2:], 'kdsl_rt.h')):
            include = word[2:]
    if include is None:
        src = os.path.join(_HERE, '..', '..', 'runtime')
        include = os.path.normpath(src)
    return Toolchain(kdslc, include, lib, 'build tree ' + build)


def _bundled():
    kdslc = os.path.join(_HERE, '_bin', 'kdslc')
    lib = os.path.join(_HERE, '_lib', 'libkdsl-runtime.so.0')
    inc = os.path.join(_HERE, '_include')
    if os.path.exists(kdslc) and os.path.exists(lib):
        # kdslc's built-in paths name the folders it was built in, gone
        # after a pip install: `kdslc run` links the package's static
        # harness and runtime (_lib/libkdsl-*.a, python/meson.build)
        return Toolchain(kdslc, inc, lib, 'package',
                         {'KDSL_RT_INCLUDE': inc, 'KDSL_RT_LIBDIR': os.path.dirname(lib)})
    return None


def _system():
    kdslc = shutil.which('kdslc')
    if not kdslc:
        return None
    try:
        out = subprocess.run(['pkg-config', '--variable=libdir', 'kdsl-runtime'],
                             capture_output=True, text=True, check=True).stdout.strip()
        inc = subprocess.run(['pkg-config', '--variable=includedir', 'kdsl-runtime'],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return Toolchain(kdslc, os.path.join(inc, 'kdsl'), os.path.join(out, 'libkdsl-runtime.so.0'),
                     'system')


def find():
    """The toolchain (see the module's docstring); RuntimeError when none."""
    build = os.environ.get('KDSL_BUILD_DIR')
    if build:
        tc = _from_build(os.path.abspath(build))
        if tc is None:
            raise RuntimeError('KDSL_BUILD_DIR=%s is not a built kdsl build tree '
                               '(no driver/kdslc or runtime/libkdsl-runtime.so.0)' % build)
        return tc
    tc = _bundled() or _from_build(os.path.normpath(os.path.join(_HERE, '..', '..', 'build'))) \
        or _system()
    if tc is None:
        raise RuntimeError('kdsl: no kdslc found: set KDSL_BUILD_DIR to a kdsl build tree, '
                           'install the package, or put kdslc on PATH')
    return tc
