"""kdsl.compile: a kernel file -> kdslc -> C -> a shared object loaded with
ctypes, its kernels as callables over numpy arrays (docs/python.md)."""
import ctypes
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading

import numpy as np

from . import _locate
from ._errors import CompileError, Diagnostic, KernelError, parse_json_diagnostics

__all__ = ['compile', 'run_file', 'Module', 'Kernel', 'Runtime', 'cache_dir', 'cache_max',
           'cache_stats', 'toolchain', 'bfloat16']

# kdsl_hw.h's enums (tests/python/test_api.py checks them against it).
TARGETS = {'neuron': 1, 'ascend': 2, 'aipu': 3}
MEMS = {'gm': 1, 'ub': 2, 'l1': 3, 'hbm': 4, 'sbuf': 5, 'psum': 6}

try:   # bf16 as ml_dtypes' bfloat16 when it is installed, else its bits
    import ml_dtypes
    bfloat16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    bfloat16 = np.dtype(np.uint16)

DTYPES = {'i8': np.int8, 'i16': np.int16, 'i32': np.int32, 'i64': np.int64,
          'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32, 'u64': np.uint64,
          'f16': np.float16, 'bf16': bfloat16, 'f32': np.float32, 'bool': np.bool_}
DTYPES = {k: np.dtype(v) for k, v in DTYPES.items()}
# A scalar parameter's C type (kdsl_hw.h's KDSL_DTYPE_LIST).
_CSCALAR = {'i8': ctypes.c_int8, 'i16': ctypes.c_int16, 'i32': ctypes.c_int32,
            'i64': ctypes.c_int64, 'u8': ctypes.c_uint8, 'u16': ctypes.c_uint16,
            'u32': ctypes.c_uint32, 'u64': ctypes.c_uint64, 'f16': ctypes.c_uint16,
            'bf16': ctypes.c_uint16, 'f32': ctypes.c_float, 'bool': ctypes.c_uint8}

_lock = threading.Lock()
_state = {'toolchain': None, 'rtlib': None, 'stamp': None}
cache_stats = {'hits': 0, 'misses': 0, 'evictions': 0}


def toolchain():
    """The kdslc, headers and runtime library this package uses (_locate)."""
    with _lock:
        if _state['toolchain'] is None:
            _state['toolchain'] = _locate.find()
        return _state['toolchain']


def _rtlib():
    """libkdsl-runtime, loaded once: what the kernels' shared objects link."""
    tc = toolchain()
    with _lock:
        if _state['rtlib'] is None:
            lib = ctypes.CDLL(tc.runtime)
            lib.kdsl_rt_create.restype = ctypes.c_void_p
            lib.kdsl_rt_create.argtypes = [ctypes.c_int]
            lib.kdsl_rt_destroy.argtypes = [ctypes.c_void_p]
            lib.kdsl_rt_last_error.restype = ctypes.c_char_p
            lib.kdsl_rt_last_error.argtypes = [ctypes.c_void_p]
            lib.kdsl_rt_last_error_locus.restype = ctypes.c_size_t
            lib.kdsl_rt_last_error_locus.argtypes = [ctypes.c_void_p]
            lib.kdsl_rt_mem.restype = ctypes.c_void_p
            lib.kdsl_rt_mem.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
            for f in (lib.kdsl_rt_partition_bytes, lib.kdsl_rt_partition_stride):
                f.restype = ctypes.c_size_t
                f.argtypes = [ctypes.c_void_p, ctypes.c_int]
            _state['rtlib'] = lib
        return _state['rtlib']


class Runtime:
    """An emulated device of a target (kdsl_rt_create): its on-chip
    memories persist between kernel calls.  Each on-chip memory is an
    attribute (rt.ub, rt.sbuf, ...): a uint8 numpy view of its bytes,
    (partitions, partition bytes) for a partitioned memory.  One runtime
    serves one thread at a time; two threads use two runtimes."""

    def __init__(self, target):
        if target not in TARGETS:
            raise ValueError('unknown target %r (targets: %s)' % (target, ', '.join(TARGETS)))
        self._lib = _rtlib()
        self.target = target
        self._ptr = self._lib.kdsl_rt_create(TARGETS[target])
        if not self._ptr:
            raise MemoryError('kdsl_rt_create(%s) failed' % target)

    def __del__(self):
        ptr, self._ptr = getattr(self, '_ptr', None), None
        if ptr:
            self._lib.kdsl_rt_destroy(ptr)

    @property
    def last_error(self):
        """The runtime's last error ("" when none)."""
        return self._lib.kdsl_rt_last_error(self._ptr).decode('utf-8', 'replace')

    def memories(self):
        """The names of the target's on-chip memories."""
        return [m for m in MEMS if self._mem(m) is not None]

    def _mem(self, name):
        n = ctypes.c_size_t()
        base = self._lib.kdsl_rt_mem(self._ptr, MEMS[name], ctypes.byref(n))
        return (base, n.value) if base else None

    def __getattr__(self, name):
        if name.startswith('_') or name not in MEMS:
            raise AttributeError(name)
        m = self._mem(name)
        if m is None:
            raise AttributeError('target %s has no on-chip memory %s' % (self.target, name))
        base, size = m
        raw = (ctypes.c_ubyte * size).from_address(base)
        raw._kdsl_runtime = self     # the view keeps the memory alive
        flat = np.ctypeslib.as_array(raw)
        part = self._lib.kdsl_rt_partition_bytes(self._ptr, MEMS[name])
        stride = self._lib.kdsl_rt_partition_stride(self._ptr, MEMS[name])
        if not part or part == size:
            return flat
        return np.lib.stride_tricks.as_strided(flat, shape=(size // stride, part), strides=(stride, 1))


class Param:
    """A kernel parameter as --emit=signature-json gives it."""

    def __init__(self, d):
        self.name, self.kind, self.dtype_name = d['name'], d['kind'], d['dtype']
        self.is_tensor = self.kind == 'tensor'
        self.dtype = DTYPES[self.dtype_name]
        self.shape = tuple(d.get('shape', ()))
        self.mem = d.get('mem')
        self.written = bool(d.get('written'))
        self.ctype = ctypes.c_void_p if self.is_tensor else _CSCALAR[self.dtype_name]

    def __repr__(self):
        if self.is_tensor:
            return '%s: %s %s%s' % (self.name, self.mem, self.dtype_name, list(self.shape))
        return '%s: %s' % (self.name, self.dtype_name)


class Kernel:
    """A compiled kernel: call it with numpy arrays and ints, by position
    or parameter name.  Tensors must have the parameter's dtype and shape
    and be C-contiguous; the ones it writes (outputs) must be writeable,
    may be left out (they then start as zeros), are written in place and
    are returned (one array, a tuple of them in parameter order, or None)."""

    def __init__(self, module, sig, fn):
        self.module, self.name = module, sig['name']
        self.params = [Param(p) for p in sig['params']]
        self._index = {p.name: i for i, p in enumerate(self.params)}
        self._outs = [i for i, p in enumerate(self.params) if p.is_tensor and p.written]
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p] + [p.ctype for p in self.params]
        self._fn = fn

    def __repr__(self):
        return '<kdsl kernel %s(%s)>' % (self.name, ', '.join(map(repr, self.params)))

    def _bind(self, args, kwargs):
        n = len(self.params)
        if len(args) > n:
            raise TypeError('%s() takes %d arguments, got %d' % (self.name, n, len(args)))
        vals = list(args) + [None] * (n - len(args))
        given = [True] * len(args) + [False] * (n - len(args))
        for k, v in kwargs.items():
            i = self._index.get(k)
            if i is None:
                raise TypeError('%s() has no parameter %r (parameters: %s)'
                                % (self.name, k, ', '.join(p.name for p in self.params)))
            if given[i]:
                raise TypeError('%s() got parameter %r twice' % (self.name, k))
            vals[i], given[i] = v, True
        for i, p in enumerate(self.params):
            if given[i]:
                continue
            if p.is_tensor and p.written:
                vals[i] = np.zeros(p.shape, p.dtype)
            else:
                raise TypeError('%s() missing parameter %r' % (self.name, p.name))
        return vals

    def _tensor(self, p, a):
        """a's address after the checks of p's dtype, shape, layout."""
        if not isinstance(a, np.ndarray):
            raise TypeError('%s(): parameter %s must be a numpy array of %s%s, not %s'
                            % (self.name, p.name, p.dtype_name, list(p.shape), type(a).__name__))
        if a.dtype != p.dtype:
            raise TypeError('%s(): parameter %s must have dtype %s (numpy %s), not %s'
                            % (self.name, p.name, p.dtype_name, p.dtype, a.dtype))
        if a.shape != p.shape:
            raise ValueError('%s(): parameter %s must have shape %s, not %s'
                             % (self.name, p.name, p.shape, a.shape))
        if not a.flags.c_contiguous:
            raise ValueError('%s(): parameter %s must be C-contiguous (np.ascontiguousarray)'
                             % (self.name, p.name))
        if p.written and not a.flags.writeable:
            raise ValueError('%s(): parameter %s is written by the kernel but its array is '
                             'read-only' % (self.name, p.name))
        return a.ctypes.data

    def _scalar(self, p, v):
        if p.dtype.kind in 'iub':
            if isinstance(v, (bool, np.bool_)) and p.dtype_name != 'bool':
                raise TypeError('%s(): parameter %s must be an int, not bool' % (self.name, p.name))
            if not isinstance(v, (int, np.integer, np.bool_)):
                raise TypeError('%s(): parameter %s must be an int (%s), not %s'
                                % (self.name, p.name, p.dtype_name, type(v).__name__))
            info = np.iinfo(p.dtype) if p.dtype.kind != 'b' else None
            v = int(v)
            if info and not info.min <= v <= info.max:
                raise ValueError('%s(): parameter %s = %d is outside %s [%d, %d]'
                                 % (self.name, p.name, v, p.dtype_name, info.min, info.max))
            return v
        if not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError('%s(): parameter %s must be a number (%s), not %s'
                            % (self.name, p.name, p.dtype_name, type(v).__name__))
        if p.dtype_name == 'f32':
            return float(v)
        return int(np.array([v], np.float32 if p.dtype_name == 'bf16' else p.dtype)
                   .astype(p.dtype).view(np.uint16)[0])

    def __call__(self, *args, **kwargs):
        vals = self._bind(args, kwargs)
        cargs = [self._tensor(p, v) if p.is_tensor else self._scalar(p, v)
                 for p, v in zip(self.params, vals)]
        rt = self.module.runtime
        rc = self._fn(rt._ptr, *cargs)
        if rc:
            lib = rt._lib
            msg = lib.kdsl_rt_last_error(rt._ptr).decode('utf-8', 'replace')
            raise KernelError(self.name, rc, msg, lib.kdsl_rt_last_error_locus(rt._ptr))
        if len(self._outs) == 1:
            return vals[self._outs[0]]
        return tuple(vals[i] for i in self._outs) if self._outs else None


class Module:
    """A compiled kernel file: target, kernels (name -> Kernel, also
    attributes), runtime (a Runtime of the target, new per Module),
    diagnostics (kdslc's warnings), cache_hit (whether it came from the
    cache), path (the shared object)."""

    def __init__(self, sig, so_path, diagnostics, cache_hit):
        self.target = sig['target']
        self.path, self.diagnostics, self.cache_hit = so_path, diagnostics, cache_hit
        _rtlib()   # the shared object needs it loaded (same SONAME)
        self._lib = ctypes.CDLL(so_path)
        self.runtime = Runtime(self.target)
        self.kernels = {k['name']: Kernel(self, k, getattr(self._lib, k['c_name']))
                        for k in sig['kernels']}

    def __getattr__(self, name):
        kernels = self.__dict__.get('kernels', {})
        if name in kernels:
            return kernels[name]
        raise AttributeError('module has no kernel %r (kernels: %s)' % (name, ', '.join(kernels)))

    def __dir__(self):
        return list(super().__dir__()) + list(self.kernels)

    def __repr__(self):
        return '<kdsl module (%s): %s>' % (self.target, ', '.join(self.kernels))


def cache_dir():
    """$KDSL_CACHE_DIR, else $XDG_CACHE_HOME/kdsl, else ~/.cache/kdsl."""
    d = os.environ.get('KDSL_CACHE_DIR')
    if not d:
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
        d = os.path.join(base, 'kdsl')
    return d


def _cc():
    """The C compiler command and flags: $CC (split like a shell) and
    $CFLAGS after the package's own, as `kdslc run` takes them."""
    cc = shlex.split(os.environ.get('CC') or 'cc')
    return cc, ['-std=c11', '-O2', '-fPIC', '-shared'], shlex.split(os.environ.get('CFLAGS', ''))


def _stamp(tc):
    """What else the compiled code depends on: the package, kdslc and the
    runtime (file identity: a rebuilt kdslc gives new entries), the headers."""
    with _lock:
        if _state['stamp'] is None:
            h = hashlib.sha256()
            for f in (tc.kdslc, tc.runtime):
                st = os.stat(f)
                h.update(('%s %d %d\n' % (os.path.realpath(f), st.st_size, st.st_mtime_ns)).encode())
            for name in ('kdsl_rt.h', 'kdsl_hw.h'):
                with open(os.path.join(tc.include, name), 'rb') as f:
                    h.update(f.read())
            _state['stamp'] = h.hexdigest()
        return _state['stamp']


def _kdslc(tc, name, text, args):
    """Runs kdslc on the source (its text on stdin when name is None)."""
    cmd = [tc.kdslc, name if name is not None else '-'] + args
    return subprocess.run(cmd, input=text if name is None else None, capture_output=True)


def _build(tc, name, text, opt, werror, tmp):
    """kdslc and cc into folder tmp: signature.json, diagnostics.json,
    kernel.c, kernel.so.  Raises CompileError."""
    flags = ['-O%d' % opt] + (['-Werror'] if werror else [])
    r = _kdslc(tc, name, text, flags + ['--emit=signature-json', '-fdiagnostics-format=json',
                                        '-o', os.path.join(tmp, 'signature.json')])
    diags = parse_json_diagnostics(r.stderr.decode('utf-8', 'replace'))
    if r.returncode:
        t = _kdslc(tc, name, text, flags + ['-o', os.devnull])
        raise CompileError(t.stderr.decode('utf-8', 'replace'), diags)
    with open(os.path.join(tmp, 'diagnostics.json'), 'w') as f:
        json.dump([[d.file, d.line, d.column, d.severity, d.message, d.option] for d in diags], f)
    r = _kdslc(tc, name, text, flags + ['-o', os.path.join(tmp, 'kernel.c')])
    if r.returncode:
        raise CompileError(r.stderr.decode('utf-8', 'replace'))
    cc, own, user = _cc()
    cmd = cc + own + ['-I', tc.include, os.path.join(tmp, 'kernel.c'), tc.runtime,
                      '-Wl,-rpath,' + os.path.dirname(os.path.abspath(tc.runtime))] + user + \
        ['-o', os.path.join(tmp, 'kernel.so')]
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode:
        raise CompileError('kdsl: the C compiler failed (%s):\n%s'
                           % (' '.join(cmd), r.stderr.decode('utf-8', 'replace')))


def _source(src):
    """(name for kdslc or None for stdin, text bytes)."""
    if isinstance(src, os.PathLike) or (isinstance(src, str) and '\n' not in src):
        path = os.fspath(src)
        with open(path, 'rb') as f:
            return path, f.read()
    if isinstance(src, bytes):
        return None, src
    return None, src.encode('utf-8')


# The cache's size cap when $KDSL_CACHE_MAX does not set one.
CACHE_MAX_DEFAULT = 512 << 20
_UNITS = {'': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}


def cache_max():
    """The cache's size cap in bytes: $KDSL_CACHE_MAX (a number of bytes,
    with an optional K, M or G suffix: 1024's powers), else 512 MiB; 0
    means no cap.  ValueError when the variable is not such a number."""
    v = os.environ.get('KDSL_CACHE_MAX', '').strip()
    if not v:
        return CACHE_MAX_DEFAULT
    m = re.match(r'^([0-9]+)\s*([kKmMgG]?)i?[bB]?$', v)
    if not m:
        raise ValueError('KDSL_CACHE_MAX=%r is not a size (bytes, or a number with K, M or G)' % v)
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def _lock_entry(lock_path):
    """An fd holding a shared flock on an entry's lock file, or None when
    the entry is not there (never built, or evicted: an evictor renames
    the entry while it holds the exclusive lock, so the file this fd has
    must still be the one at lock_path).  The lock file's mtime is the
    entry's last use, which the cap's least-recently-used order reads."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        st = os.fstat(fd)
        try:
            now = os.stat(lock_path)
        except FileNotFoundError:
            now = None
        if now is None or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
            os.close(fd)
            return None
        try:   # the last use; another user's entry may refuse it
            os.utime(fd)
        except OSError:
            pass
        return fd
    except BaseException:
        os.close(fd)
        raise


def _entry_bytes(path):
    """The bytes of an entry's files."""
    n = 0
    for e in os.scandir(path):
        try:
            n += e.stat(follow_symlinks=False).st_size
        except OSError:
            pass
    return n


def _last_use(path):
    """An entry's last use: its lock file's mtime (a folder without one was
    left by an older version of the package, whose entries this one never
    reads: its own mtime)."""
    try:
        return os.stat(os.path.join(path, 'lock')).st_mtime_ns
    except FileNotFoundError:
        return os.stat(path).st_mtime_ns


def _evict_one(root, name):
    """Removes entry name unless a process holds its lock (it is loading
    it): takes the exclusive flock without waiting, renames the folder out
    of the way (atomic: no process finds it any more), then deletes it.
    True when it went."""
    path = os.path.join(root, name)
    try:
        fd = os.open(os.path.join(path, 'lock'), os.O_RDONLY)
    except FileNotFoundError:
        fd = None   # an older version's entry: nothing of this one loads it
    except OSError:
        return False
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
        gone = tempfile.mkdtemp(prefix='.evict-', dir=root)
        try:
            os.rename(path, os.path.join(gone, name))
        except OSError:   # another process evicted it first
            os.rmdir(gone)
            return False
    finally:
        if fd is not None:
            os.close(fd)
    shutil.rmtree(gone, ignore_errors=True)
    return True


def _evict(root, cap, keep):
    """Least recently used entries out until the cache holds at most cap
    bytes; never keep (the entry just used), never one another process is
    loading, never a build in progress (.tmp-*)."""
    if cap <= 0:
        return
    entries = []
    for name in os.listdir(root):
        if name.startswith('.'):
            continue
        path = os.path.join(root, name)
        try:
            used = None if name == keep else _last_use(path)
            entries.append((used, name, _entry_bytes(path)))
        except OSError:
            continue
    total = sum(e[2] for e in entries)
    for used, name, size in sorted((e for e in entries if e[0] is not None), key=lambda e: e[:2]):
        if total <= cap:
            break
        if _evict_one(root, name):
            total -= size
            with _lock:
                cache_stats['evictions'] += 1


def _entry(tc, name, text, opt, werror, root, entry):
    """An fd holding entry's shared lock, building the entry first when it
    is not there (in a temporary folder of root, locked before it is
    renamed into place, so it appears whole and no evictor can take it
    before it is loaded).  (fd, hit)."""
    fd = _lock_entry(os.path.join(entry, 'lock'))
    if fd is not None:
        return fd, True
    os.makedirs(root, exist_ok=True)
    for _ in range(5):
        tmp = tempfile.mkdtemp(prefix='.tmp-', dir=root)
        try:
            _build(tc, name, text, opt, werror, tmp)
            fd = os.open(os.path.join(tmp, 'lock'), os.O_RDONLY | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:   # atomic: a folder appears whole; a concurrent build's may win
                os.rename(tmp, entry)
                return fd, False
            except OSError:
                os.close(fd)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        fd = _lock_entry(os.path.join(entry, 'lock'))   # the winner's
        if fd is not None:
            return fd, False
    raise RuntimeError('kdsl: cache entry %s keeps disappearing (is the cache cap too small '
                       'for the processes using it?)' % entry)


def compile(src, target=None, opt=1, warnings_as_errors=False):
    """Compiles a kernel file (a path: str without a newline, or a
    PathLike) or kernel source text (a str holding a newline, or bytes;
    kdslc reads it as <stdin>) into a Module.  target, when given, must be
    the one the file declares (ValueError otherwise).  Compiled code is
    cached (cache_dir()): a second compile of the same text, options,
    kdslc, runtime and C compiler runs neither kdslc nor cc.  The cache
    keeps at most cache_max() bytes, evicting the least recently used
    entries after a new one is built."""
    if opt not in (0, 1):
        raise ValueError('opt must be 0 or 1, not %r' % (opt,))
    if target is not None and target not in TARGETS:
        raise ValueError('unknown target %r (targets: %s)' % (target, ', '.join(TARGETS)))
    cap = cache_max()
    tc = toolchain()
    name, text = _source(src)
    h = hashlib.sha256()
    for part in (b'kdsl-python-2', _stamp(tc).encode(), repr(_cc()).encode(),
                 repr((name, opt, bool(warnings_as_errors))).encode(), text):
        h.update(len(part).to_bytes(8, 'little') + part)
    root = cache_dir()
    key = h.hexdigest()[:40]
    entry = os.path.join(root, key)
    fd, hit = _entry(tc, name, text, opt, warnings_as_errors, root, entry)
    try:   # loaded under the entry's shared lock: no evictor removes it meanwhile
        with _lock:
            cache_stats['hits' if hit else 'misses'] += 1
        with open(os.path.join(entry, 'signature.json')) as f:
            sig = json.load(f)
        with open(os.path.join(entry, 'diagnostics.json')) as f:
            diags = [Diagnostic(*d) for d in json.load(f)]
        if target is not None and sig['target'] != target:
            raise ValueError('%s declares target %s, not %s' % (name or '<stdin>', sig['target'], target))
        mod = Module(sig, os.path.join(entry, 'kernel.so'), diags, hit)
    finally:
        os.close(fd)
    # once loaded, the shared object outlives its file (POSIX unlink)
    if not hit:
        _evict(root, cap, key)
    return mod


def run_file(path, kernel=None, opt=1, check_uninit=False, **args):
    """`kdslc run PATH` with each keyword as an --arg: a numpy array (passed
    as a .npy file), an int, or one of kdslc run's fillers ('iota',
    'zeros', 'ones', 'random', 'random:SEED').  Returns every tensor after
    the run, name -> numpy array, as `--out DIR` writes them (a file of
    several kernels run whole gives "kernel.param" names).  A kernel
    that fails raises KernelError; a file that does not compile, or a
    run whose build fails, CompileError."""
    tc = toolchain()
    with tempfile.TemporaryDirectory(prefix='kdsl-run-') as tmp:
        cmd = [tc.kdslc, 'run', os.fspath(path), '--quiet', '--out', os.path.join(tmp, 'out'),
               '-O%d' % opt]
        if kernel:
            cmd += ['--kernel', kernel]
        if check_uninit:
            cmd.append('--check-uninit')
        for k, v in args.items():
            if isinstance(v, np.ndarray):
                f = os.path.join(tmp, 'arg-%s.npy' % k)
                np.save(f, v)
                v = f
            elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, str)):
                raise TypeError('run_file(): argument %s must be a numpy array, an int or a filler '
                                'name, not %s' % (k, type(v).__name__))
            cmd += ['--arg', '%s=%s' % (k, v)]
        r = subprocess.run(cmd, capture_output=True, env=dict(os.environ, **tc.run_env))
        if r.returncode:
            raise _run_error(tc, os.fspath(path), r.stderr.decode('utf-8', 'replace'))
        out = os.path.join(tmp, 'out')
        # A file of several kernels gives KERNEL.NAME.npy; with kernel=
        # given, the names are the parameters' alone.
        res = {}
        for f in sorted(os.listdir(out)):
            if f.endswith('.npy'):
                key = f[:-4]
                if kernel and key.startswith(kernel + '.'):
                    key = key[len(kernel) + 1:]
                res[key] = np.load(os.path.join(out, f))
        return res


def _run_error(tc, path, err):
    """The exception for a failed `kdslc run`: CompileError when the file
    does not compile (kdslc says so again, as JSON), else KernelError from
    the first "file.k:LINE:COL: error: op: message" line."""
    r = _kdslc(tc, path, None, ['-fdiagnostics-format=json', '-o', os.devnull])
    if r.returncode:
        return CompileError(err, parse_json_diagnostics(r.stderr.decode('utf-8', 'replace')))
    if 'kdslc: error: ' in err:   # the run's own build failed (the C compiler, I/O)
        return CompileError(err)
    for line in err.splitlines():
        m = re.match(r'^(.*:[0-9]+:[0-9]+): error: (.*)$', line)
        if m:
            return KernelError(os.path.basename(path), 1, m.group(1) + ': ' + m.group(2),
                               len(m.group(1)))
    return KernelError(os.path.basename(path), 1, err.strip(), 0)
