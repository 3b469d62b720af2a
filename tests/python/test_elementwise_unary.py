"""Golden tests of the unary elementwise operators of the manifest's generic kinds that have no
typed wrapper of their own: each against torch, bit for bit where the operation is exact, every
ISA tier, contiguous and strided inputs, every dtype the operator's page lists, and the dtypes it
does not (161002)."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

import cannon  # noqa: E402
from cannon import ops  # noqa: E402

torch = pytest.importorskip("torch")

TIERS = ["avx512", "avx2", "scalar"]


@pytest.fixture(params=TIERS)
def tier(request, monkeypatch):
    monkeypatch.setenv("CANNON_ISA", request.param)  # read by each operator's phase 1
    return request.param


TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int8": torch.int8,
         "int32": torch.int32, "int64": torch.int64, "float64": torch.float64}


def sample(dtype, shape, seed):
    """Random values with the special ones in front: signed zeros, infinities, NaN, the integer
    type's extremes."""
    g = torch.Generator().manual_seed(seed)
    if dtype.startswith("int"):
        info = torch.iinfo(TORCH[dtype])
        t = torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(TORCH[dtype])
        flat = t.view(-1)
        flat[:3] = torch.tensor([info.min, info.max, 0], dtype=TORCH[dtype])
        return t
    t = (torch.randn(shape, generator=g) * 100).to(TORCH[dtype])
    flat = t.view(-1)
    flat[:5] = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan")]).to(TORCH[dtype])
    return t


def upload(t):
    if t.dtype == torch.bfloat16:
        return cannon.from_numpy(t.view(torch.int16).numpy().view(np.uint16), cannon.bfloat16)
    return cannon.from_numpy(t.numpy())


def download(a, dtype):
    raw = a.numpy(copy=True)
    if dtype == "bfloat16":
        return torch.from_numpy(raw.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(raw)


def bits(t):
    return t.contiguous().view(torch.uint8 if t.element_size() == 1 else
                               {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def same(a, b):
    """Bit-identical, but any NaN equals any NaN (bf16 stores write one canonical quiet NaN)."""
    if a.dtype.is_floating_point:
        na, nb = torch.isnan(a), torch.isnan(b)
        if not torch.equal(na, nb):
            return False
        a, b = a.masked_fill(na, 0), b.masked_fill(nb, 0)
    return torch.equal(bits(a), bits(b))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int8", "int32", "int64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_neg(tier, dtype, layout):
    x = sample(dtype, (37, 129), 3)
    X = upload(x)
    if layout == "transposed":  # a strided view of the same storage, as torch's x.t()
        x, X = x.t(), X.T
    out = cannon.empty(tuple(x.shape), getattr(cannon, dtype))
    ops.call("aclnnNeg", X, out, sync=True)
    assert same(download(out, dtype), torch.neg(x)), (tier, dtype, layout)


def test_neg_in_place_view_and_empty():
    x = sample("float32", (6, 8), 4)
    X = upload(x)
    ops.call("aclnnNeg", X, X, sync=True)  # out may be self
    assert same(download(X, "float32"), torch.neg(x))
    E = cannon.empty((0, 5), cannon.float32)
    ops.call("aclnnNeg", E, cannon.empty((0, 5), cannon.float32), sync=True)


@pytest.mark.parametrize("dtype", ["uint8", "bool_", "int16"])
def test_neg_rejects_dtypes_outside_its_table(dtype):
    d = getattr(cannon, dtype)
    with pytest.raises(cannon.AclError) as ei:
        ops.call("aclnnNeg", cannon.empty((3,), d), cannon.empty((3,), d))
    assert ei.value.code == 161002 and "not supported" in ei.value.message


def test_neg_argument_errors():
    a = cannon.empty((2, 3), cannon.float32)
    with pytest.raises(cannon.AclError) as ei:
        ops.call("aclnnNeg", None, a)
    assert ei.value.code == 161001
    for out in (cannon.empty((2, 3), cannon.float16), cannon.empty((3, 2), cannon.float32)):
        with pytest.raises(cannon.AclError) as ei:
            ops.call("aclnnNeg", a, out)
        assert ei.value.code == 161002
