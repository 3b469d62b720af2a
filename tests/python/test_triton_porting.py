"""What GPU Triton scripts rely on beyond the language proper, on the project's own kernels:
``value.type`` inside a kernel (a pointer's type and its ``element_ty``, a block's type), compiled
and interpreted; the ``triton.tools.experimental_descriptor`` module that GPU scripts import; and
the ``-m cannon.triton`` runner's ``torch.cuda.get_device_capability`` where torch has no CUDA."""
import os

import numpy as np
import pytest
import torch

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton.compiler import build


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "triton-cache"))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("CANNON_TRITON_BOUNDS", raising=False)
    monkeypatch.delenv("CANNON_TRITON_CHECK", raising=False)


@triton.jit
def _scale_into(X, Out, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    acc = tl.load(X + offs, mask=m, other=0.0).to(tl.float32) * factor
    # a block's type: element type and shape; a pointer's type: its element type
    tl.static_assert(acc.type.element_ty == tl.float32)
    tl.static_assert(acc.type.shape[0] == BLOCK)
    wide: tl.constexpr = Out.type.element_ty == tl.float32
    if wide:
        acc = acc + 0.0
    tl.store(Out + offs, acc.to(Out.type.element_ty), mask=m)


@pytest.mark.parametrize("mode", ["compiled", "interpreter"])
@pytest.mark.parametrize("out_dtype", [torch.float16, torch.float32, torch.bfloat16])
def test_type_attribute_of_pointers_and_blocks(mode, out_dtype, monkeypatch):
    if mode == "compiled" and build.compiler() is None:
        pytest.skip("no C compiler")
    if mode == "interpreter":
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    n = 300
    x = torch.linspace(-7.0, 9.0, n, dtype=torch.float64).to(torch.float16)
    out = torch.full((n + 5,), -1.0, dtype=out_dtype)
    _scale_into[(triton.cdiv(n, 128),)](x, out, n, 2.5, BLOCK=128)
    assert _scale_into.last_mode == mode, getattr(_scale_into, "fallback_reason", None)
    ref = (x.double() * 2.5).to(out_dtype)
    assert torch.equal(out[:n], ref)
    assert torch.all(out[n:] == -1.0)


def test_experimental_descriptor_module_imports_and_refuses():
    from cannon.triton.__main__ import SUBMODULES
    from cannon.triton.tools import experimental_descriptor as ed
    assert "tools.experimental_descriptor" in SUBMODULES
    t = torch.zeros(64, 32, dtype=torch.float16)
    for call in (lambda: ed.create_1d_tma_descriptor(t.data_ptr(), 64, 16, 2),
                 lambda: ed.create_2d_tma_descriptor(t.data_ptr(), 64, 32, 16, 32, 2),
                 lambda: ed.TmaDescKernelParam(t.data_ptr(), [64], [16], 2)):
        with pytest.raises(NotImplementedError, match="TensorDescriptor"):
            call()


def test_runner_reports_no_cuda_capability(monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("torch has a CUDA device: its capability is left as it is")
    from cannon.triton.__main__ import _install_cuda_capability
    monkeypatch.setattr(torch.cuda, "get_device_capability", torch.cuda.get_device_capability)
    with pytest.raises(Exception):
        torch.cuda.get_device_capability()
    _install_cuda_capability(torch)
    assert torch.cuda.get_device_capability() == (0, 0)
    assert torch.cuda.get_device_capability(0)[0] < 9
