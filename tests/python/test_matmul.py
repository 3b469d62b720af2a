"""Golden tests of aclnnMatmul / aclnnMm / aclnnBatchMatMul against float64 references and torch.

Pass criteria: fp32: |ours - ref| <= 2^-20 * sum_k |a_ik b_kj| + tiny (the error bound of an fp32
dot product of length K is about K ulp of that sum; 2^-20 allows K up to ~16 with room, and the
BLAS's blocked summation stays well inside it for the sizes here); fp16 / bf16: within one
rounding of the output type of the fp32-accumulated exact product, plus the accumulation bound.
Shapes cover every torch.matmul rank case (1-D x 1-D, 1-D x N-D, N-D x 1-D, broadcast batches),
transposed, strided and offset operands and outputs, and the tail sizes of the bf16 tiles.
"""
import numpy as np
import pytest
import torch

import cannon_testlib as ct
import train_helpers_b as h

DTYPES = ["float32", "float16", "bfloat16"]


def check(ours, a, b, dtype, what=""):
    a64, b64 = a.double(), b.double()
    ref = torch.matmul(a64, b64)
    mag = torch.matmul(a64.abs(), b64.abs())
    u = {"float32": 2.0 ** -20, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    bound = u * mag + 1e-30 + (ref.abs() * u if dtype != "float32" else 0)
    if ref.dim() == 0:
        ours = ours.reshape(())  # the testlib reads a 0-d view back as one element
    assert ours.shape == ref.shape, what
    err = (ours.double() - ref).abs()
    assert bool((err <= bound).all()), f"{what}: worst {(err - bound).max().item():.3g}"


CASES = [((5, 7), (7, 3)), ((64, 100), (100, 48)), ((7,), (7,)), ((7,), (7, 5)), ((4, 7), (7,)),
         ((2, 3, 9, 10), (10, 11)), ((9, 10), (2, 10, 11)), ((3, 1, 5, 6), (4, 6, 7)), ((5,), (2, 5, 3)),
         ((2, 3, 4), (4,)), ((1, 33), (33, 65)), ((17, 1), (1, 9)), ((130, 70), (70, 33))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_shapes(L, isa, dtype):
    gen = torch.Generator().manual_seed(0)
    for sa, sb in CASES:
        for la, lb in (("contig", "contig"), ("transposed", "strided"), ("offset", "transposed")):
            a = torch.randn(sa, generator=gen).to(h.TORCH[dtype])
            b = torch.randn(sb, generator=gen).to(h.TORCH[dtype])
            oshape = list(torch.matmul(a.double(), b.double()).shape)
            A, B = h.upload(L, a, dtype, la), h.upload(L, b, dtype, lb)
            O = L.empty(oshape, h.DT[dtype])
            h.call(L, "aclnnMatmul", A, B, O, ("i8", 0))
            check(h.download(O, dtype), a, b, dtype, f"{dtype} {sa} {sb} {la} {lb}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_bmm_and_outputs(L, isa, dtype):
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(37, 21, generator=gen).to(h.TORCH[dtype])
    b = torch.randn(21, 45, generator=gen).to(h.TORCH[dtype])
    # transposed output view
    O = L.empty([37, 45], h.DT[dtype], strides=[1, 37])
    h.call(L, "aclnnMm", h.upload(L, a, dtype, "transposed"), h.upload(L, b, dtype), O, ("i8", 1))
    check(h.download(O, dtype), a, b, dtype, "mm transposed out")
    # batch matmul with a broadcast batch of 1
    a3 = torch.randn(4, 9, 21, generator=gen).to(h.TORCH[dtype])
    b3 = torch.randn(1, 21, 13, generator=gen).to(h.TORCH[dtype])
    O = L.empty([4, 9, 13], h.DT[dtype])
    h.call(L, "aclnnBatchMatMul", h.upload(L, a3, dtype, "strided"), h.upload(L, b3, dtype, "transposed"), O, ("i8", 0))
    check(h.download(O, dtype), a3, b3, dtype, "bmm")
    # against torch's own result
    if dtype == "float32":
        assert torch.allclose(h.download(O, dtype), torch.matmul(a3, b3), rtol=1e-5, atol=1e-5)


def test_large_vs_torch(L, isa):
    gen = torch.Generator().manual_seed(2)
    for dtype in DTYPES:
        a = torch.randn(96, 300, generator=gen).to(h.TORCH[dtype])
        b = torch.randn(300, 129, generator=gen).to(h.TORCH[dtype])
        O = L.empty([96, 129], h.DT[dtype])
        h.call(L, "aclnnMatmul", h.upload(L, a, dtype), h.upload(L, b, dtype), O, ("i8", 0))
        ours = h.download(O, dtype)
        check(ours, a, b, dtype, f"large {dtype}")
        t = torch.matmul(a.float(), b.float()).to(h.TORCH[dtype])
        rtol = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
        assert torch.allclose(ours.float(), t.float(), rtol=rtol, atol=rtol * 4)


def test_empty(L):
    O = L.empty([3, 0], ct.ACL_FLOAT)
    h.call(L, "aclnnMm", L.empty([3, 4], ct.ACL_FLOAT), L.empty([4, 0], ct.ACL_FLOAT), O, ("i8", 0))
    O = L.empty([3, 5], ct.ACL_FLOAT, fill=7.0)
    h.call(L, "aclnnMm", L.empty([3, 0], ct.ACL_FLOAT), L.empty([0, 5], ct.ACL_FLOAT), O, ("i8", 0))
    assert bool((h.download(O, "float32") == 0).all())


def test_errors(L):
    f = lambda s, dt="float32": L.empty(list(s), h.DT[dt])
    i8 = ("i8", 0)
    assert h.status(L, "aclnnMatmul", f((3, 4)), f((5, 6)), f((3, 6)), i8) == 161002
    assert h.status(L, "aclnnMatmul", f((2, 3, 4)), f((3, 4, 6)), f((3, 3, 6)), i8) == 161002
    assert h.status(L, "aclnnMm", f((3, 4)), f((2, 4, 6)), f((2, 3, 6)), i8) == 161002
    assert h.status(L, "aclnnBatchMatMul", f((3, 4)), f((4, 6)), f((3, 6)), i8) == 161002
    assert h.status(L, "aclnnMm", f((3, 4)), f((4, 6)), f((3, 5)), i8) == 161002
    assert h.status(L, "aclnnMm", f((3, 4)), f((4, 6), "float16"), f((3, 6)), i8) == 161002
    with pytest.raises(ct.AclError) as ei:
        h.call(L, "aclnnMm", f((3, 4), "int32"), f((4, 6), "int32"), f((3, 6), "int32"), i8)
    assert ei.value.code == 161002 and "aclnnMm: self dtype INT32 is not supported" in ei.value.msg
    assert h.status(L, "aclnnMm", None, f((4, 6)), f((3, 6)), i8) == 161001
    assert h.status(L, "aclnnMm", f((3, 4)), f((4, 6)), None, i8) == 161001
    assert h.status(L, "aclnnMm", f((3, 4)), f((4, 6)), f((3, 6)), ("i8", 9)) == 161002


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
def test_tiles_and_layouts(L, isa, dtype):
    gen = torch.Generator().manual_seed(3)
    for m, n, k in TILE_SHAPES:
        a = torch.randn(m, k, generator=gen).to(h.TORCH[dtype])
        b = torch.randn(k, n, generator=gen).to(h.TORCH[dtype])
        for la, lb, tout in (("contig", "contig", False), ("transposed", "transposed", False),
                             ("strided", "offset", True)):
            O = L.empty([m, n], h.DT[dtype], strides=[1, m] if tout else None)
            h.call(L, "aclnnMm", h.upload(L, a, dtype, la), h.upload(L, b, dtype, lb), O, ("i8", 0))
            ours = h.download(O, dtype)
            what = f"{dtype} {m}x{n}x{k} {la} {lb} tout={tout}"
            check(ours, a, b, dtype, what)
            if dtype == "bfloat16":
                bf16_close_to_torch(ours, a, b, what)


def expanded(L, t, dtype, n):
    """View of @t (2-D) as [n, *t.shape] with a stride-0 batch dim (torch's expand)."""
    st = h.to_storage(t, dtype)
    strides = [0, t.shape[1], 1]
    return L.tensor_from(np.zeros([n] + list(t.shape)), h.DT[dtype], strides=strides, storage=st.reshape(-1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_batches_packed_once(L, isa, dtype):
    """Broadcast operands (size-1 batch dims, missing batch dims, stride-0 expanded dims) are
    packed once and shared by the batches that use them."""
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(2, 1, 30, 70, generator=gen).to(h.TORCH[dtype])
    b = torch.randn(3, 70, 45, generator=gen).to(h.TORCH[dtype])
    O = L.empty([2, 3, 30, 45], h.DT[dtype])
    h.call(L, "aclnnMatmul", h.upload(L, a, dtype), h.upload(L, b, dtype, "transposed"), O, ("i8", 0))
    check(h.download(O, dtype), a, b, dtype, f"{dtype} broadcast both")
    w = torch.randn(70, 40, generator=gen).to(h.TORCH[dtype])
    x = torch.randn(4, 26, 70, generator=gen).to(h.TORCH[dtype])
    O = L.empty([4, 26, 40], h.DT[dtype])
    h.call(L, "aclnnBatchMatMul", h.upload(L, x, dtype), expanded(L, w, dtype, 4), O, ("i8", 0))
    check(h.download(O, dtype), x, w.expand(4, 70, 40), dtype, f"{dtype} expanded B")


DET_SCRIPT = r"""
import hashlib, os
import numpy as np, torch
import cannon_testlib as ct
import train_helpers_b as h
L = ct.lib()
out = []
for isa in ("scalar", "avx2", "avx512"):
    os.environ["CANNON_ISA"] = isa
    for dtype in ("float32", "bfloat16", "float16"):
        gen = torch.Generator().manual_seed(5)
        a = torch.randn(3, 130, 150, generator=gen).to(h.TORCH[dtype])
        b = torch.randn(150, 300, generator=gen).to(h.TORCH[dtype])
        O = L.empty([3, 130, 300], h.DT[dtype])
        h.call(L, "aclnnMatmul", h.upload(L, a, dtype), h.upload(L, b, dtype, "transposed"), O, ("i8", 0))
        out.append(isa + dtype + ":" + hashlib.sha1(np.ascontiguousarray(O.view()).tobytes()).hexdigest()[:12])
print(" ".join(out))
"""


def test_deterministic_across_threads():
    import train_helpers_a as th
    res = th.run_in_subprocesses(DET_SCRIPT, (1, 2, 3))
    assert res[1] == res[2] == res[3]
