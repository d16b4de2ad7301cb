"""The package's errors: compile errors as Diagnostic objects, argument
checks (dtype, shape, contiguity, names), kernel errors with their .k
location and the runtime's memories inspectable afterwards."""
import os
import re
import subprocess
import sys
import time

import pytest

from conftest import SRC, example, kdsl, np

BAD = 'target ascend;\nkernel bad(a: gm i32[8]) {\n    data_move(a, a, 0, 1, 1, 0, 0);\n}\n'
# A kernel that fails at run time when k > 0 (run_error.k's, with a scalar).
SHIFT = ('target ascend;\nkernel shift(src: gm u8[64], dst: gm u8[64], k: i32) {\n'
         '    let t: ub u8[64];\n    data_move(t, src[k], 0, 1, 1, 0, 0);\n'
         '    data_move(dst, t, 0, 1, 1, 0, 0);\n}\n')
WARN = ('target ascend;\nkernel w(g: gm f16[64], n: i32) {\n    let t: ub f16[64];\n'
        '    n + 1;\n    data_move(t, g, 0, 1, 1, 0, 0);\n    data_move(g, t, 0, 1, 1, 0, 0);\n}\n')


def test_enums_match_kdsl_hw_h():
    hw = open(os.path.join(SRC, 'runtime', 'kdsl_hw.h')).read()
    for name, v in kdsl._core.TARGETS.items():
        assert re.search(r'KDSL_TARGET_%s = %d\b' % (name.upper(), v), hw) or v == 1 + \
            list(kdsl._core.TARGETS).index(name)
    assert 'KDSL_MEM_GM = 1, KDSL_MEM_UB, KDSL_MEM_L1,\n\tKDSL_MEM_HBM, KDSL_MEM_SBUF, KDSL_MEM_PSUM' in hw
    assert list(kdsl._core.MEMS.values()) == [1, 2, 3, 4, 5, 6]


def test_compile_error_diagnostics():
    with pytest.raises(kdsl.CompileError) as e:
        kdsl.compile(BAD)
    d = e.value.errors[0]
    assert (d.file, d.line, d.column, d.severity) == ('<stdin>', 3, 5, 'error')
    assert d.message.startswith('data_move: cannot move from gm to gm')
    assert '^~~~' in e.value.text and '<stdin>:3:5: error: data_move' in e.value.text


def test_compile_error_notes_from_a_file(tmp_path):
    f = tmp_path / 'redef.k'
    f.write_text('target ascend;\nkernel k(g: gm f16[64]) {\n    let tile: ub f16[64];\n'
                 '    let tile: ub f16[32];\n}\n')
    with pytest.raises(kdsl.CompileError) as e:
        kdsl.compile(f)
    d = e.value.errors[0]
    assert (d.file, d.line, d.column, d.message) == (str(f), 4, 9, "redefinition of 'tile'")
    assert [(n.severity, n.line, n.column) for n in d.notes] == [('note', 3, 9)]


def test_warnings_kept_and_as_errors():
    mod = kdsl.compile(WARN)
    assert [(d.severity, d.line, d.option) for d in mod.diagnostics] == [('warning', 4, '-Wunused')]
    with pytest.raises(kdsl.CompileError) as e:
        kdsl.compile(WARN, warnings_as_errors=True)
    assert e.value.errors[0].message == 'expression result unused'


def test_target_checked():
    with pytest.raises(ValueError, match='declares target ascend, not neuron'):
        kdsl.compile(example('ascend_data_move_unaligned.k'), target='neuron')
    assert kdsl.compile(example('ascend_data_move_unaligned.k'), target='ascend').target == 'ascend'
    with pytest.raises(ValueError, match='unknown target'):
        kdsl.compile(BAD, target='gpu')


def test_argument_checks():
    k = kdsl.compile(example('ascend_data_move_unaligned.k')).data_move_unaligned
    ok = np.zeros(23, np.float16)
    with pytest.raises(TypeError, match='src_gm must have dtype f16 .* not float32'):
        k(np.zeros(23, np.float32))
    with pytest.raises(ValueError, match=r'src_gm must have shape \(23,\), not \(24,\)'):
        k(np.zeros(24, np.float16))
    with pytest.raises(ValueError, match='dst_gm must be C-contiguous'):
        k(ok, np.zeros(46, np.float16)[::2])
    ro = np.zeros(23, np.float16)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match='dst_gm is written by the kernel but its array is read-only'):
        k(ok, ro)
    k(ro)   # an input may be read-only
    with pytest.raises(TypeError, match='must be a numpy array'):
        k([0.0] * 23)
    with pytest.raises(TypeError, match="missing parameter 'src_gm'"):
        k(dst_gm=ok)
    with pytest.raises(TypeError, match="has no parameter 'dst'"):
        k(ok, dst=ok)
    with pytest.raises(TypeError, match="got parameter 'src_gm' twice"):
        k(ok, src_gm=ok)
    with pytest.raises(TypeError, match='takes 2 arguments, got 3'):
        k(ok, ok, ok)


def test_scalar_checks():
    k = kdsl.compile(SHIFT).shift
    src = np.arange(64, dtype=np.uint8)
    np.testing.assert_array_equal(k(src, k=0)[:32], src[:32])   # one 32-byte burst
    with pytest.raises(ValueError, match=r'k = 2147483648 is outside i32'):
        k(src, k=2**31)
    with pytest.raises(TypeError, match='k must be an int'):
        k(src, k=1.5)


def test_kernel_error_location_and_memory_survives():
    mod = kdsl.compile(SHIFT)
    src = np.arange(64, dtype=np.uint8)
    mod.shift(src, k=0)
    ub = mod.runtime.ub
    assert ub.dtype == np.uint8 and ub.size == 256 * 1024
    placed = ub[:64].copy()
    np.testing.assert_array_equal(placed[:32], src[:32])   # one 32-byte burst to t, at ub 0
    with pytest.raises(kdsl.KernelError) as e:
        mod.shift(src, k=40)
    assert (e.value.file, e.value.line, e.value.column) == ('<stdin>', 4, 5)
    assert str(e.value) == ('<stdin>:4:5: error: data_move: src burst 0 reads bytes 40..71 '
                            'outside the tensor of 64 bytes')
    assert e.value.code == 2   # KDSL_ERR_BOUNDS
    np.testing.assert_array_equal(mod.runtime.ub[:64], placed)   # untouched, still readable
    mod.runtime.ub[:64] = 7   # and writable: the views are the emulated memory
    assert mod.runtime.ub[3] == 7
    assert mod.shift(src, k=1)[:32].tolist() == list(range(1, 33))   # the runtime still works


def test_partitioned_memory_view():
    mod = kdsl.compile(example('neuron_copy_predicated.k'))
    rt = mod.runtime
    assert rt.memories() == ['sbuf', 'psum']
    assert rt.sbuf.shape[0] == 128 and rt.psum.shape[0] == 128
    with pytest.raises(AttributeError, match='target neuron has no on-chip memory ub'):
        rt.ub


def test_run_file_errors():
    with pytest.raises(kdsl.KernelError) as e:
        kdsl.run_file(os.path.join(SRC, 'tests', 'lit', 'driver', 'run_error.k'), k=40)
    assert e.value.line == 11 and e.value.column == 5
    out = kdsl.run_file(example('ascend_data_move_unaligned.k'))
    np.testing.assert_array_equal(out['dst_gm'], np.arange(23, dtype=np.float16) * 2)


BF16 = ('target neuron;\nkernel bf(x: hbm bf16[128, 8], y: hbm f32[128, 8], z: hbm bf16[128, 8]) {\n'
        '    let t: sbuf bf16[128, 8];\n    let f: sbuf f32[128, 8];\n    load(t, x);\n'
        '    tensor_copy(f, t);\n    store(y, f);\n    store(z, t);\n}\n')
# bf16 bits and their values: 1.0, -2.5, 3.140625, the smallest normal, -inf
BF16_BITS = np.array([0x3f80, 0xc020, 0x4049, 0x0080, 0xff80], np.uint16)


def _bf16_case():
    """x (bits), and the f32 values the kernel's tensor_copy must give."""
    x = np.resize(BF16_BITS, (128, 8)).astype(np.uint16)
    return x, (x.astype(np.uint32) << 16).view(np.float32)


def test_bf16_dtype():
    try:
        import ml_dtypes
        assert kdsl.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        assert kdsl.bfloat16 == np.dtype(np.uint16)


@pytest.mark.skipif(kdsl.bfloat16 != np.dtype(np.uint16), reason='ml_dtypes is installed')
def test_bf16_as_uint16_bits():
    """Without ml_dtypes (Debian 12 has no package of it) a bf16 tensor is
    a uint16 array of the bits, in and out."""
    x, want = _bf16_case()
    bf = kdsl.compile(BF16).bf
    y, z = bf(x)
    np.testing.assert_array_equal(y.view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(z, x)
    with pytest.raises(TypeError, match='parameter x must have dtype bf16'):
        bf(x.view(np.float16))


STANDIN = '''
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])     # the stand-in ml_dtypes below
import kdsl
assert kdsl.bfloat16 == np.dtype([('bits', '<u2')]), kdsl.bfloat16
x = np.load(sys.argv[2])
bf = kdsl.compile(sys.argv[3]).bf
y, z = bf(x.view(kdsl.bfloat16))
assert z.dtype == kdsl.bfloat16 and (z.view(np.uint16) == x).all()
np.save(sys.argv[4], y)
try:
    bf(x)
    sys.exit('a uint16 array was taken for bf16')
except TypeError:
    pass
'''


def test_bf16_through_an_ml_dtypes_standin(tmp_path):
    """With ml_dtypes importable, bf16 tensors are arrays of
    ml_dtypes.bfloat16 (and uint16 ones are refused).  ml_dtypes is not
    installable here, so a stand-in module gives a 2-byte dtype of its own:
    this tests that the package takes ml_dtypes' dtype and passes such
    arrays' bytes; ml_dtypes' own conversions (a bf16 scalar parameter) are
    not exercised."""
    (tmp_path / 'ml_dtypes.py').write_text("import numpy as np\nbfloat16 = np.dtype([('bits', '<u2')])\n")
    x, want = _bf16_case()
    np.save(tmp_path / 'x.npy', x)
    (tmp_path / 'bf.k').write_text(BF16)
    r = subprocess.run([sys.executable, '-c', STANDIN, str(tmp_path), str(tmp_path / 'x.npy'),
                        str(tmp_path / 'bf.k'), str(tmp_path / 'y.npy')], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / 'y.npy').view(np.uint32), want.view(np.uint32))


def test_call_overhead():
    """A call of a kernel that does nothing: the figure docs/python.md
    gives (printed with -s; the bound here only catches a gross regression)."""
    k = kdsl.compile('target ascend;\nkernel empty() {\n}\n').empty
    n = 20000
    for _ in range(100):
        k()
    t = time.perf_counter()
    for _ in range(n):
        k()
    us = (time.perf_counter() - t) / n * 1e6
    print('call overhead of an empty kernel: %.2f us' % us)
    assert us < 100
