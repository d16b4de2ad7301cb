"""kdsl: compile kdsl kernels and run them on numpy arrays in the
emulator (docs/python.md).

    import numpy as np, kdsl
    mod = kdsl.compile('examples/ascend_data_move_unaligned.k')
    out = mod.data_move_unaligned(np.arange(23, dtype=np.float16))
"""
from ._core import (Kernel, Module, Runtime, bfloat16, cache_dir, cache_max, cache_stats, compile,
                    run_file, toolchain)
from ._errors import CompileError, Diagnostic, KernelError

__version__ = '0.1.0'
__all__ = ['compile', 'run_file', 'Module', 'Kernel', 'Runtime', 'CompileError', 'KernelError',
           'Diagnostic', 'bfloat16', 'cache_dir', 'cache_max', 'cache_stats', 'toolchain']
