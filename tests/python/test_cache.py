"""The compile cache: a second compile of the same text and options runs
neither kdslc nor cc; another option or text misses; entries appear
whole (no temporary folder left); the size cap evicts the least recently
used entries, never one another process is loading, and two processes
share a cache."""
import os
import subprocess
import sys
import time

import pytest

from conftest import example, kdsl, np

SRC = open(example('ascend_data_move_unaligned.k')).read()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv('KDSL_CACHE_DIR', str(tmp_path / 'cache'))
    return tmp_path / 'cache'


def test_second_compile_hits(cache, monkeypatch):
    before = dict(kdsl.cache_stats)
    m1 = kdsl.compile(SRC)
    assert not m1.cache_hit and kdsl.cache_stats['misses'] == before['misses'] + 1
    assert os.path.dirname(m1.path).startswith(str(cache))

    def no_subprocess(*a, **k):
        raise AssertionError('a cache hit ran %r' % (a[0],))
    monkeypatch.setattr(subprocess, 'run', no_subprocess)
    m2 = kdsl.compile(SRC)
    assert m2.cache_hit and m2.path == m1.path
    assert kdsl.cache_stats['hits'] == before['hits'] + 1
    np.testing.assert_array_equal(m2.data_move_unaligned(np.ones(23, np.float16)), 2)
    assert m2.runtime is not m1.runtime
    assert [e for e in os.listdir(cache) if e.startswith('.tmp-')] == []


def test_options_and_text_miss(cache):
    paths = {kdsl.compile(SRC).path, kdsl.compile(SRC, opt=0).path,
             kdsl.compile(SRC, warnings_as_errors=True).path, kdsl.compile(SRC + '\n').path,
             kdsl.compile(example('ascend_data_move_unaligned.k')).path}
    assert len(paths) == 5
    assert kdsl.compile(SRC, opt=0).cache_hit


def test_failed_compile_leaves_nothing(cache):
    with pytest.raises(kdsl.CompileError):
        kdsl.compile('target ascend;\nkernel k( {\n')
    assert os.listdir(cache) == []


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv('KDSL_CACHE_DIR', raising=False)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    assert kdsl.cache_dir() == str(tmp_path / 'kdsl')
    monkeypatch.delenv('XDG_CACHE_HOME')
    monkeypatch.setenv('HOME', str(tmp_path))
    assert kdsl.cache_dir() == str(tmp_path / '.cache' / 'kdsl')


def _names(cache):
    """The cache's entries and what else is in it (.tmp-*, .evict-*)."""
    return sorted(os.listdir(cache))


def _entry_size(mod):
    d = os.path.dirname(mod.path)
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def test_cache_max(monkeypatch):
    monkeypatch.delenv('KDSL_CACHE_MAX', raising=False)
    assert kdsl.cache_max() == 512 << 20
    for text, n in (('4096', 4096), ('2M', 2 << 20), ('3k', 3072), ('1G', 1 << 30), ('0', 0)):
        monkeypatch.setenv('KDSL_CACHE_MAX', text)
        assert kdsl.cache_max() == n
    monkeypatch.setenv('KDSL_CACHE_MAX', 'lots')
    with pytest.raises(ValueError, match='KDSL_CACHE_MAX'):
        kdsl.cache_max()


def test_cap_evicts_least_recently_used(cache, monkeypatch):
    a, b, c = (SRC + '\n' * k for k in (1, 2, 3))
    ma = kdsl.compile(a)
    # room for two entries, not three
    monkeypatch.setenv('KDSL_CACHE_MAX', str(_entry_size(ma) * 5 // 2))
    time.sleep(0.02)
    mb = kdsl.compile(b)
    time.sleep(0.02)
    assert kdsl.compile(a).cache_hit   # a is now used more recently than b
    before = kdsl.cache_stats['evictions']
    time.sleep(0.02)
    mc = kdsl.compile(c)
    assert kdsl.cache_stats['evictions'] == before + 1
    assert os.path.exists(ma.path) and os.path.exists(mc.path) and not os.path.exists(mb.path)
    assert len(_names(cache)) == 2   # nothing else left behind
    # a module whose entry went keeps running (its shared object is mapped)
    np.testing.assert_array_equal(mb.data_move_unaligned(np.ones(23, np.float16)), 2)
    # no cap: nothing goes
    monkeypatch.setenv('KDSL_CACHE_MAX', '0')
    kdsl.compile(b)
    assert len(_names(cache)) == 3


HOLD = '''
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH)
print('locked', flush=True)
sys.stdin.read()
'''


def test_cap_spares_an_entry_another_process_is_loading(cache, monkeypatch):
    a, b, c = (SRC + '\n' * k for k in (1, 2, 3))
    ma, mb = kdsl.compile(a), kdsl.compile(b)
    # another process holds a's lock, as one does from finding an entry
    # until its shared object is loaded
    hold = subprocess.Popen([sys.executable, '-c', HOLD, os.path.join(os.path.dirname(ma.path), 'lock')],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert hold.stdout.readline() == 'locked\n'
        monkeypatch.setenv('KDSL_CACHE_MAX', '1')   # every entry but the new one must go
        mc = kdsl.compile(c)
        assert os.path.exists(ma.path) and not os.path.exists(mb.path) and os.path.exists(mc.path)
    finally:
        hold.stdin.close()
        hold.wait()
    kdsl.compile(b)   # a is free now: it goes, and c
    assert _names(cache) == [os.path.basename(os.path.dirname(mb.path))]


RACE = '''
import sys
import numpy as np
import kdsl
srcs = sys.argv[1:]
for k in range(4):
    m = kdsl.compile(srcs[k % len(srcs)])
    out = m.data_move_unaligned(np.arange(23, dtype=np.float16))
    assert (out == 2 * np.arange(23)).all(), out
print(kdsl.cache_stats['misses'], kdsl.cache_stats['evictions'])
'''


def test_two_processes_share_a_tiny_cache(cache, monkeypatch):
    """Two processes compile and evict each other's entries at once (a
    cap under one entry: every miss evicts all it can); each load still
    finds its entry whole.  ~4 compiles each: the slowest test here."""
    monkeypatch.setenv('KDSL_CACHE_MAX', '1')
    srcs = [SRC + '\n' * k for k in (1, 2)]
    procs = [subprocess.Popen([sys.executable, '-c', RACE] + (srcs if i == 0 else srcs[::-1]),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    # each process missed (built) every compile whose entry the other had evicted
    assert sum(int(o.split()[0]) for o, _ in outs) >= 2
    assert not [n for n in _names(cache) if n.startswith('.')]
