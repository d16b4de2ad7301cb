"""An NKI-style test against a kdsl kernel: NKI's getting-started kernel
(element-wise add of two [128, 512] float16 tensors through sbuf), tested
the way its NKI test is: numpy inputs from np.random.rand, call the kernel,
compare with numpy using np.allclose.  Where NKI calls
nki.simulate_kernel(kernel, a, b), kdsl calls the compiled kernel.

    PYTHONPATH=python python3 -m pytest -q examples/python/test_nki_style.py
"""
import numpy as np

import kdsl

TENSOR_ADD = """
target neuron;

kernel tensor_add(a_input: hbm f16[128, 512], b_input: hbm f16[128, 512],
                  c_output: hbm f16[128, 512]) {
    let a_tile: sbuf f16[128, 512];
    let b_tile: sbuf f16[128, 512];
    let c_tile: sbuf f16[128, 512];
    load(a_tile, a_input);
    load(b_tile, b_input);
    tensor_tensor(c_tile, a_tile, b_tile, "add");
    store(c_output, c_tile);
}
"""


def test_tensor_add():
    tensor_add = kdsl.compile(TENSOR_ADD).tensor_add
    a = np.random.rand(128, 512).astype(np.float16)
    b = np.random.rand(128, 512).astype(np.float16)

    output_kdsl = tensor_add(a, b)

    output_np = a + b
    assert np.allclose(output_kdsl, output_np, atol=1e-4, rtol=1e-2)


if __name__ == '__main__':
    test_tensor_add()
    print('tensor_add matches numpy')
