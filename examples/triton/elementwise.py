"""An elementwise operator written in Triton: out = x + alpha * y over contiguous tensors of any
shape, with its gradient, registered as ``torch.ops.cannon_examples.axpy``.

    PYTHONPATH=python /usr/bin/python3 examples/triton/elementwise.py
"""
import torch

import cannon.triton as triton
import cannon.triton.language as tl

BLOCK = 4096  # elements per program: three 16 KiB tiles stay in L1


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


def axpy(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """x + alpha * y (same shape and dtype, contiguous)."""
    if x.shape != y.shape or x.dtype != y.dtype:
        raise ValueError("axpy: x and y must have the same shape and dtype")
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    axpy_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, float(alpha), n, BLOCK=BLOCK)
    return out


def _axpy_backward(grads, inputs, output):
    g = grads[0]
    return g, axpy(torch.zeros_like(g), g, inputs[2]), None


axpy_op = triton.torch_op("cannon_examples::axpy", axpy, backward=_axpy_backward)

if __name__ == "__main__":
    a, b = torch.randn(10_000), torch.randn(10_000)
    print("max error:", (axpy_op(a, b, 0.5) - (a + 0.5 * b)).abs().max().item())
