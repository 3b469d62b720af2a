"""Golden tests of the in-place forms CANN's calling examples use next to their out-of-place
operator: aclnnInplaceSqrt, aclnnInplaceTanh, aclnnInplaceHardswish and aclnnInplaceTril, on every
instruction-set tier, against the out-of-place operator on the same input (bit-identical: one
kernel computes both) and against a float64 reference.

Pass criteria: the in-place result equals the out-of-place one bit for bit, in every listed dtype
and on strided views (nothing outside the view written); against float64: fp32 2^-20 relative
(+1e-37), fp16 2^-10, bf16 2^-7, double 2^-50; InplaceTril exact. Error paths: NULL 161001,
an unsupported dtype 161002.
"""
import numpy as np
import pytest
import torch

import golden
from golden import torch_dtype

REL = {"float32": 2.0 ** -20, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float64": 2.0 ** -50}

OPS = {
    "sqrt": ("aclnnInplaceSqrt", "aclnnSqrt", golden.FLOATS, lambda x: torch.sqrt(x), (0.0, 50.0)),
    "tanh": ("aclnnInplaceTanh", "aclnnTanh", ["float32", "float16", "bfloat16"], lambda x: torch.tanh(x), (-6, 6)),
    "hardswish": ("aclnnInplaceHardswish", "aclnnHardswish", ["float32", "float16", "bfloat16"],
                  lambda x: torch.where(x >= 3, x, x * torch.clamp(x + 3, 0, 6) / 6), (-5, 5)),
}


def cases():
    return [(op, dt) for op, v in OPS.items() for dt in v[2]]


@pytest.mark.parametrize("op,dtype", cases())
def test_inplace_unary(isa, op, dtype):
    inplace, outplace, _, ref, (lo, hi) = OPS[op]
    g = torch.Generator().manual_seed(31)
    x = (torch.rand(1000, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(torch_dtype(dtype))
    x = torch.cat([x, torch.tensor([0.0, -0.0, float("inf"), float("nan")], dtype=x.dtype)])
    S = golden.upload(x, dtype, "strided")
    O = golden.empty([x.numel()], dtype)
    golden.call(outplace, golden.upload(x, dtype), O)
    before = S.storage().copy()
    golden.call(inplace, S)
    ours = golden.download(S, dtype)
    assert np.array_equal(golden.read(S).view(np.uint8), golden.read(O).view(np.uint8)), "in-place differs"
    after = S.storage()
    changed = np.flatnonzero(after.view(np.uint8) != before.view(np.uint8)) // golden.dtype(dtype).itemsize
    assert np.all(changed % 2 == 0), "written outside the strided view"
    want = ref(x.double())
    fin = torch.isfinite(want)
    err = (ours.double()[fin] - want[fin]).abs()
    assert torch.all(err <= REL[dtype] * want[fin].abs() + 1e-37 + (REL[dtype] if dtype != "float32" else 0)), op
    assert torch.equal(torch.isnan(ours.double()), torch.isnan(want))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "float16", "uint8"])
@pytest.mark.parametrize("diagonal", [0, 1, -2, 7])
def test_inplace_tril(dtype, diagonal):
    g = torch.Generator().manual_seed(32)
    x = torch.randint(1, 100, (3, 5, 6), generator=g).to(torch_dtype(dtype))
    S = golden.upload(x, dtype, "transposed")
    golden.call("aclnnInplaceTril", S, diagonal)
    assert torch.equal(golden.download(S, dtype), torch.tril(x, diagonal))
    O = golden.empty([3, 5, 6], dtype)
    golden.call("aclnnTril", golden.upload(x, dtype), diagonal, O)
    assert torch.equal(golden.download(O, dtype), torch.tril(x, diagonal))


def test_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    assert golden.status("aclnnInplaceSqrt", None) == 161001
    assert golden.status("aclnnInplaceSqrt", f((3,), "int32")) == 161002
    assert golden.status("aclnnInplaceTanh", None) == 161001
    assert golden.status("aclnnInplaceTanh", f((3,), "float64")) == 161002
    assert golden.status("aclnnInplaceHardswish", None) == 161001
    assert golden.status("aclnnInplaceHardswish", f((3,), "int8")) == 161002
    assert golden.status("aclnnInplaceTril", None, 0) == 161001
    assert golden.status("aclnnInplaceTril", f((3,)), 0) == 161002  # rank 1
