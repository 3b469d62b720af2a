"""The Triton kernels of examples/triton (elementwise, row reductions, matmul, attention forward)
against float64/torch references, compiled against interpreted on the same inputs, and as PyTorch
operators made by cannon.triton.torch_op (torch.ops.cannon_examples.*, gradients through autograd
against torch's)."""
import math
import os
import sys

import pytest
import torch

import cannon.triton as triton
from cannon.triton.compiler import build

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "triton"))
import attention  # noqa: E402
import elementwise  # noqa: E402
import matmul  # noqa: E402
import row_reduction  # noqa: E402

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("CANNON_TRITON_CHECK", raising=False)


def interpreted(fn, *args):
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        return fn(*args)
    finally:
        del os.environ["TRITON_INTERPRET"]


def g(seed):
    return torch.Generator().manual_seed(seed)


def test_axpy_and_its_operator():
    x, y = torch.randn(10_001, generator=g(1)), torch.randn(10_001, generator=g(2))
    out = elementwise.axpy(x, y, -0.75)
    assert elementwise.axpy_kernel.last_mode == "compiled"
    assert torch.equal(out, x + torch.tensor(-0.75) * y)  # fp32 ops round as torch's
    assert torch.equal(out, interpreted(elementwise.axpy, x, y, -0.75))
    xh, yh = x.half(), y.half()
    assert torch.equal(elementwise.axpy(xh, yh, 2.0), (xh.float() + 2.0 * yh.float()).half())
    a = x[:100].clone().requires_grad_()
    b = y[:100].clone().requires_grad_()
    r = torch.ops.cannon_examples.axpy(a, b, 3.0)
    (r * torch.arange(100.0)).sum().backward()
    assert torch.equal(a.grad, torch.arange(100.0)) and torch.equal(b.grad, 3.0 * torch.arange(100.0))


@pytest.mark.parametrize("shape", [(33, 1000), (4, 3, 128), (2, 32000)])
def test_softmax(shape):
    x = torch.randn(*shape, generator=g(3)) * 4
    y = row_reduction.softmax(x)
    assert row_reduction.softmax_kernel.last_mode == "compiled"
    ref = torch.softmax(x.double(), -1)
    assert torch.allclose(y.double(), ref, rtol=1e-5, atol=1e-7)
    assert torch.allclose(y, interpreted(row_reduction.softmax, x), rtol=2e-5, atol=1e-9)  # sum orders differ


def test_softmax_operator_gradient():
    x = (torch.randn(16, 100, generator=g(4), dtype=torch.float64) * 3).float().requires_grad_()
    w = torch.randn(16, 100, generator=g(5))
    (torch.ops.cannon_examples.softmax(x) * w).sum().backward()
    xd = x.detach().double().requires_grad_()
    (torch.softmax(xd, -1) * w.double()).sum().backward()
    assert torch.allclose(x.grad.double(), xd.grad, rtol=1e-4, atol=1e-6)


def test_layer_norm():
    x = torch.randn(37, 300, generator=g(6)) * 2 + 1
    w, b = torch.randn(300, generator=g(7)), torch.randn(300, generator=g(8))
    y = row_reduction.layer_norm(x, w, b, 1e-5)
    ref = torch.nn.functional.layer_norm(x.double(), (300,), w.double(), b.double(), 1e-5)
    assert torch.allclose(y.double(), ref, rtol=1e-4, atol=1e-5)
    assert torch.allclose(y, interpreted(row_reduction.layer_norm, x, w, b, 1e-5), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_matmul(dtype, monkeypatch):
    # two of the example's configs keep the test short; the autotuner still chooses between them
    monkeypatch.setattr(matmul.matmul_kernel, "configs", matmul.CONFIGS[1:3])
    monkeypatch.setattr(matmul.matmul_kernel, "cache", {})
    M, K, N = 150, 90, 70
    a = torch.randn(M, K, generator=g(9)).to(dtype)
    b = torch.randn(K, N, generator=g(10)).to(dtype)
    c = matmul.matmul(a, b)
    ref = a.double() @ b.double()
    tol = 1e-4 if dtype == torch.float32 else 1e-2
    assert c.dtype == dtype and torch.allclose(c.double(), ref, rtol=tol, atol=tol)
    # the autotuner's choice, run by the interpreter, gives the same values
    cfg = matmul.matmul_kernel.best_config.kwargs
    monkeypatch.setattr(matmul.matmul_kernel, "configs", [triton.Config(cfg)])
    ci = interpreted(matmul.matmul, a, b)
    assert torch.allclose(c.float(), ci.float(), rtol=tol, atol=tol)


def test_matmul_operator_gradient():
    a = torch.randn(40, 30, generator=g(11)).requires_grad_()
    b = torch.randn(30, 20, generator=g(12)).requires_grad_()
    torch.ops.cannon_examples.matmul(a, b).sum().backward()
    assert torch.allclose(a.grad, torch.ones(40, 20) @ b.detach().t(), atol=1e-5)
    assert torch.allclose(b.grad, a.detach().t() @ torch.ones(40, 20), atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_attention(causal):
    B, H, S, D = 2, 2, 100, 32
    q, k, v = (torch.randn(B, H, S, D, generator=g(13 + i)) for i in range(3))
    o = attention.attention(q, k, v, causal)
    assert attention.attention_fwd_kernel.last_mode == "compiled"
    s = q.double() @ k.double().transpose(-1, -2) / math.sqrt(D)
    if causal:
        s = s.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), -math.inf)
    ref = torch.softmax(s, -1) @ v.double()
    assert torch.allclose(o.double(), ref, rtol=1e-4, atol=1e-5)
    oi = interpreted(attention.attention, q[:, :1, :40], k[:, :1, :40], v[:, :1, :40], causal)
    assert torch.allclose(attention.attention(q[:, :1, :40], k[:, :1, :40], v[:, :1, :40], causal), oi,
                          rtol=1e-5, atol=1e-6)
    assert torch.allclose(torch.ops.cannon_examples.attention(q, k, v, causal), o)


def test_torch_op_rejects_bad_names():
    with pytest.raises(ValueError):
        triton.torch_op("no_namespace", elementwise.axpy)
    with pytest.raises(ValueError):
        triton.torch_op("cannon_examples::axpy", elementwise.axpy)
