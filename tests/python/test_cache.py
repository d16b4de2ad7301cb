"""The compile cache: a second compile of the same text and options runs
neither kdslc nor cc; another option or text misses; entries appear
whole (no temporary folder left)."""
import os
import subprocess

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
