"""Golden tests of aclnnMatmul / aclnnMm / aclnnBatchMatMul against float64 references and torch.

Pass criteria: fp32: |ours - ref| <= 2^-20 * sum_k |a_ik b_kj| + tiny (the error bound of an fp32
dot product of length K is about K ulp of that sum; 2^-20 allows K up to ~16 with room, and the
BLAS's blocked summation stays well inside it for the sizes here); fp16 / bf16: within one
rounding of the output type of the fp32-accumulated exact product, plus the accumulation bound.
Shapes cover every torch.matmul rank case (1-D x 1-D, 1-D x N-D, N-D x 1-D, broadcast batches),
transposed, strided and offset operands and outputs, and the tail sizes of the bf16 tiles.
"""
import pytest
import torch

import cannon
import golden
from golden import torch_dtype

DTYPES = ["float32", "float16", "bfloat16"]


def check(ours, a, b, dtype, what=""):
    a64, b64 = a.double(), b.double()
    ref = torch.matmul(a64, b64)
    mag = torch.matmul(a64.abs(), b64.abs())
    u = {"float32": 2.0 ** -20, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    bound = u * mag + 1e-30 + (ref.abs() * u if dtype != "float32" else 0)
    assert ours.shape == ref.shape, what
    err = (ours.double() - ref).abs()
    assert bool((err <= bound).all()), f"{what}: worst {(err - bound).max().item():.3g}"


CASES = [((5, 7), (7, 3)), ((64, 100), (100, 48)), ((7,), (7,)), ((7,), (7, 5)), ((4, 7), (7,)),
         ((2, 3, 9, 10), (10, 11)), ((9, 10), (2, 10, 11)), ((3, 1, 5, 6), (4, 6, 7)), ((5,), (2, 5, 3)),
         ((2, 3, 4), (4,)), ((1, 33), (33, 65)), ((17, 1), (1, 9)), ((130, 70), (70, 33))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_shapes(isa, dtype):
    gen = torch.Generator().manual_seed(0)
    for sa, sb in CASES:
        for la, lb in (("contig", "contig"), ("transposed", "strided"), ("offset", "transposed")):
            a = torch.randn(sa, generator=gen).to(torch_dtype(dtype))
            b = torch.randn(sb, generator=gen).to(torch_dtype(dtype))
            oshape = list(torch.matmul(a.double(), b.double()).shape)
            A, B = golden.upload(a, dtype, la), golden.upload(b, dtype, lb)
            O = golden.empty(oshape, dtype)
            golden.call("aclnnMatmul", A, B, O, 0)
            check(golden.download(O, dtype), a, b, dtype, f"{dtype} {sa} {sb} {la} {lb}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_bmm_and_outputs(isa, dtype):
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(37, 21, generator=gen).to(torch_dtype(dtype))
    b = torch.randn(21, 45, generator=gen).to(torch_dtype(dtype))
    # transposed output view
    O = golden.empty([37, 45], dtype, strides=[1, 37])
    golden.call("aclnnMm", golden.upload(a, dtype, "transposed"), golden.upload(b, dtype), O, 1)
    check(golden.download(O, dtype), a, b, dtype, "mm transposed out")
    # batch matmul with a broadcast batch of 1
    a3 = torch.randn(4, 9, 21, generator=gen).to(torch_dtype(dtype))
    b3 = torch.randn(1, 21, 13, generator=gen).to(torch_dtype(dtype))
    O = golden.empty([4, 9, 13], dtype)
    golden.call("aclnnBatchMatMul", golden.upload(a3, dtype, "strided"), golden.upload(b3, dtype, "transposed"), O, 0)
    check(golden.download(O, dtype), a3, b3, dtype, "bmm")
    # against torch's own result
    if dtype == "float32":
        assert torch.allclose(golden.download(O, dtype), torch.matmul(a3, b3), rtol=1e-5, atol=1e-5)


def test_large_vs_torch(isa):
    gen = torch.Generator().manual_seed(2)
    for dtype in DTYPES:
        a = torch.randn(96, 300, generator=gen).to(torch_dtype(dtype))
        b = torch.randn(300, 129, generator=gen).to(torch_dtype(dtype))
        O = golden.empty([96, 129], dtype)
        golden.call("aclnnMatmul", golden.upload(a, dtype), golden.upload(b, dtype), O, 0)
        ours = golden.download(O, dtype)
        check(ours, a, b, dtype, f"large {dtype}")
        t = torch.matmul(a.float(), b.float()).to(torch_dtype(dtype))
        rtol = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
        assert torch.allclose(ours.float(), t.float(), rtol=rtol, atol=rtol * 4)


def test_empty():
    O = golden.empty([3, 0], "float32")
    golden.call("aclnnMm", golden.empty([3, 4], "float32"), golden.empty([4, 0], "float32"), O, 0)
    O = golden.empty([3, 5], "float32", fill=7.0)
    golden.call("aclnnMm", golden.empty([3, 0], "float32"), golden.empty([0, 5], "float32"), O, 0)
    assert bool((golden.download(O, "float32") == 0).all())


def test_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    i8 = 0
    assert golden.status("aclnnMatmul", f((3, 4)), f((5, 6)), f((3, 6)), i8) == 161002
    assert golden.status("aclnnMatmul", f((2, 3, 4)), f((3, 4, 6)), f((3, 3, 6)), i8) == 161002
    assert golden.status("aclnnMm", f((3, 4)), f((2, 4, 6)), f((2, 3, 6)), i8) == 161002
    assert golden.status("aclnnBatchMatMul", f((3, 4)), f((4, 6)), f((3, 6)), i8) == 161002
    assert golden.status("aclnnMm", f((3, 4)), f((4, 6)), f((3, 5)), i8) == 161002
    assert golden.status("aclnnMm", f((3, 4)), f((4, 6), "int8"), f((3, 6)), i8) == 161002
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnMm", f((3, 4), "int32"), f((4, 6), "int32"), f((3, 6), "int32"), i8)
    assert ei.value.code == 161002 and "aclnnMm: self dtype INT32 is not supported" in ei.value.message
    assert golden.status("aclnnMm", None, f((4, 6)), f((3, 6)), i8) == 161001
    assert golden.status("aclnnMm", f((3, 4)), f((4, 6)), None, i8) == 161001
    assert golden.status("aclnnMm", f((3, 4)), f((4, 6)), f((3, 6)), 9) == 161002


# The packed GEMMs (bf16 on AVX512-BF16 CPUs; fp32/fp16 elsewhere) work in tiles of 12 rows x 32
# columns, K pairs, row blocks of up to 8 tiles and column blocks of 8 panels: these shapes hit
# every tail (rows, columns, odd K, K = 1) and several blocks in both directions.
TILE_SHAPES = [(1, 1, 1), (11, 31, 3), (12, 32, 2), (13, 33, 1), (25, 65, 17), (97, 257, 64), (200, 300, 129),
               (3, 520, 40), (150, 5, 33)]


def bf16_close_to_torch(ours, a, b, what):
    """Within one bf16 rounding of torch's fp32-accumulated product (the summation orders differ)."""
    t = torch.matmul(a.float(), b.float())
    ulp = 2.0 ** (torch.floor(torch.log2(t.abs().clamp_min(1e-30))) - 7)
    mag = torch.matmul(a.float().abs(), b.float().abs())
    err = (ours.float() - t).abs()
    assert bool((err <= ulp + 2.0 ** -20 * mag).all()), what


@pytest.mark.parametrize("dtype", DTYPES)
def test_tiles_and_layouts(isa, dtype):
    gen = torch.Generator().manual_seed(3)
    for m, n, k in TILE_SHAPES:
        a = torch.randn(m, k, generator=gen).to(torch_dtype(dtype))
        b = torch.randn(k, n, generator=gen).to(torch_dtype(dtype))
        for la, lb, tout in (("contig", "contig", False), ("transposed", "transposed", False),
                             ("strided", "offset", True)):
            O = golden.empty([m, n], dtype, strides=[1, m] if tout else None)
            golden.call("aclnnMm", golden.upload(a, dtype, la), golden.upload(b, dtype, lb), O, 0)
            ours = golden.download(O, dtype)
            what = f"{dtype} {m}x{n}x{k} {la} {lb} tout={tout}"
            check(ours, a, b, dtype, what)
            if dtype == "bfloat16":
                bf16_close_to_torch(ours, a, b, what)


def expanded(t, dtype, n):
    """View of @t (2-D) as [n, *t.shape] with a stride-0 batch dim (torch's expand)."""
    return cannon.from_storage(golden.to_storage(t, dtype), [n] + list(t.shape), [0, t.shape[1], 1], 0, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_batches_packed_once(isa, dtype):
    """Broadcast operands (size-1 batch dims, missing batch dims, stride-0 expanded dims) are
    packed once and shared by the batches that use them."""
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(2, 1, 30, 70, generator=gen).to(torch_dtype(dtype))
    b = torch.randn(3, 70, 45, generator=gen).to(torch_dtype(dtype))
    O = golden.empty([2, 3, 30, 45], dtype)
    golden.call("aclnnMatmul", golden.upload(a, dtype), golden.upload(b, dtype, "transposed"), O, 0)
    check(golden.download(O, dtype), a, b, dtype, f"{dtype} broadcast both")
    w = torch.randn(70, 40, generator=gen).to(torch_dtype(dtype))
    x = torch.randn(4, 26, 70, generator=gen).to(torch_dtype(dtype))
    O = golden.empty([4, 26, 40], dtype)
    golden.call("aclnnBatchMatMul", golden.upload(x, dtype), expanded(w, dtype, 4), O, 0)
    check(golden.download(O, dtype), x, w.expand(4, 70, 40), dtype, f"{dtype} expanded B")


DET_SCRIPT = r"""
import hashlib, os
import numpy as np, torch
import golden
from golden import torch_dtype
out = []
for isa in ("scalar", "avx2", "avx512"):
    os.environ["CANNON_ISA"] = isa
    for dtype in ("float32", "bfloat16", "float16"):
        gen = torch.Generator().manual_seed(5)
        a = torch.randn(3, 130, 150, generator=gen).to(torch_dtype(dtype))
        b = torch.randn(150, 300, generator=gen).to(torch_dtype(dtype))
        O = golden.empty([3, 130, 300], dtype)
        golden.call("aclnnMatmul", golden.upload(a, dtype), golden.upload(b, dtype, "transposed"), O, 0)
        out.append(isa + dtype + ":" + hashlib.sha1(golden.read(O).tobytes()).hexdigest()[:12])
print(" ".join(out))
"""


def test_deterministic_across_threads():
    res = golden.outputs_per_thread_count(DET_SCRIPT, (1, 2, 3), 120)
    assert res[0] == res[1] == res[2]
