"""Golden tests of aclnnMm / aclnnBatchMatMul / aclnnMatmul (and aclnnMv, which refuses them) with operands of different
dtypes, as CANN accepts them: self and mat2 need a common type under CANN's promotion (FLOAT16 or
BFLOAT16 with FLOAT -> FLOAT; FLOAT16 with BFLOAT16 -> FLOAT), and out any floating dtype that type
casts to. The product is computed in fp32 from the exactly widened operands, rounded to the
promoted type, then cast to out's dtype.

Pass criteria, against the float64 product of the operands' exact values: |ours - ref| <= 2^-20 *
sum_k |a_ik b_kj| (the fp32 accumulation, as in test_matmul.py) + |ref| * (u(promoted) + u(out))
(one rounding to each narrower type, u = 2^-11 for fp16, 2^-8 for bf16, 0 for fp32) + 2^-24 where a
16-bit rounding happens (fp16's subnormal spacing). Where the promoted type is 16-bit, every
result is also checked to be a value of that type (the rounding to it happens before the cast).
Layouts include mat2 as a transposed view of [n, k] storage (how ggml passes its weights),
strided, offset and padded views, transposed outputs, broadcast batches, and every ISA tier.
"""
import pytest
import torch

import golden
from golden import torch_dtype

FLOATS = ["float32", "float16", "bfloat16"]
MIXED = [(a, b) for a in FLOATS for b in FLOATS if a != b]
U = {"float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def promoted(da, db):
    return da if da == db else "float32"


def check(ours, a, b, da, db, dout, what=""):
    a64, b64 = a.double(), b.double()
    ref = torch.matmul(a64, b64)
    mag = torch.matmul(a64.abs(), b64.abs())
    dp = promoted(da, db)
    u = U[dp] + U[dout]
    bound = 2.0 ** -20 * mag + ref.abs() * u * 1.001 + (2.0 ** -24 if u else 1e-30)
    assert ours.shape == ref.shape, what
    err = (ours.double() - ref).abs()
    assert bool((err <= bound).all()), f"{what}: worst {(err - bound).max().item():.3g}"
    if dp != "float32" and dout != dp:
        # the product is rounded to the promoted type before the cast to out's dtype
        back = ours.to(torch_dtype(dp)).to(ours.dtype)
        assert bool((back == ours).all()), f"{what}: not values of {dp}"


def rand(shape, dt, gen):
    return torch.randn(shape, generator=gen).to(torch_dtype(dt))


@pytest.mark.parametrize("da,db", MIXED)
@pytest.mark.parametrize("dout", FLOATS)
def test_mm_ggml_layout(isa, da, db, dout):
    """aclnnMm(self [m, k], mat2 = transposed view of [n, k] storage, out [m, n]) as ggml calls it
    (cubeMathType 2), and other views of both operands and of out."""
    gen = torch.Generator().manual_seed(3)
    for m, k, n in ((5, 7, 3), (33, 64, 65), (1, 128, 40), (70, 17, 1), (8, 1000, 300), (6, 1, 50), (300, 77, 7)):
        a, b = rand((m, k), da, gen), rand((k, n), db, gen)
        for la, lb, lo in (("contig", "transposed", "contig"), ("strided", "transposed", "transposed"),
                           ("offset", "contig", "contig"), ("transposed", "padded", "strided")):
            O = golden.empty([m, n], dout, layout=lo)
            golden.call("aclnnMm", golden.upload(a, da, la), golden.upload(b, db, lb), O, 2)
            check(golden.download(O, dout), a, b, da, db, dout, f"mm {da}x{db}->{dout} {m},{k},{n} {la} {lb} {lo}")


@pytest.mark.parametrize("da,db", MIXED)
@pytest.mark.parametrize("dout", FLOATS)
def test_bmm(isa, da, db, dout):
    gen = torch.Generator().manual_seed(4)
    for bsz, m, k, n in ((3, 9, 21, 13), (1, 16, 32, 8), (4, 1, 5, 30)):
        a, b = rand((bsz, m, k), da, gen), rand((bsz, k, n), db, gen)
        for la, lb in (("contig", "transposed"), ("strided", "offset"), ("transposed", "contig")):
            O = golden.empty([bsz, m, n], dout)
            golden.call("aclnnBatchMatMul", golden.upload(a, da, la), golden.upload(b, db, lb), O, 2)
            check(golden.download(O, dout), a, b, da, db, dout, f"bmm {da}x{db}->{dout} {bsz},{m},{k},{n} {la} {lb}")
    # a broadcast batch of 1 in mat2
    a, b = rand((4, 6, 11), da, gen), rand((1, 11, 7), db, gen)
    O = golden.empty([4, 6, 7], dout)
    golden.call("aclnnBatchMatMul", golden.upload(a, da), golden.upload(b, db, "transposed"), O, 0)
    check(golden.download(O, dout), a, b, da, db, dout, "bmm broadcast")


CASES = [((7,), (7,)), ((7,), (7, 5)), ((4, 7), (7,)), ((2, 3, 9, 10), (10, 11)), ((9, 10), (2, 10, 11)),
         ((3, 1, 5, 6), (4, 6, 7)), ((5,), (2, 5, 3)), ((2, 3, 4), (4,)), ((130, 70), (70, 33))]


@pytest.mark.parametrize("da,db", MIXED)
@pytest.mark.parametrize("dout", FLOATS)
def test_matmul_broadcast(isa, da, db, dout):
    """aclnnMatmul (torch.matmul semantics, broadcast batches) with cubeMathType 1, as ggml's
    OUT_PROD calls it."""
    gen = torch.Generator().manual_seed(5)
    for sa, sb in CASES:
        for la, lb in (("contig", "contig"), ("transposed", "strided"), ("offset", "transposed")):
            a, b = rand(sa, da, gen), rand(sb, db, gen)
            oshape = list(torch.matmul(a.double(), b.double()).shape)
            O = golden.empty(oshape, dout)
            golden.call("aclnnMatmul", golden.upload(a, da, la), golden.upload(b, db, lb), O, 1)
            check(golden.download(O, dout), a, b, da, db, dout, f"matmul {da}x{db}->{dout} {sa} {sb} {la} {lb}")


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("dout", FLOATS)
def test_same_inputs_other_out(isa, dt, dout):
    """Equal input dtypes with another out dtype: the product in the input type, cast to out's."""
    if dt == dout:
        pytest.skip("the same-dtype paths: test_matmul.py")
    gen = torch.Generator().manual_seed(6)
    a, b = rand((2, 19, 40), dt, gen), rand((40, 23), dt, gen)
    O = golden.empty([2, 19, 23], dout)
    golden.call("aclnnMatmul", golden.upload(a, dt), golden.upload(b, dt, "transposed"), O, 0)
    check(golden.download(O, dout), a, b, dt, dt, dout, f"{dt}->{dout}")


@pytest.mark.parametrize("da,db", MIXED)
def test_mv_needs_one_dtype(da, db):
    """Mv is the exception: CANN's page gives vec and out self's dtype (161002 when they differ)."""
    gen = torch.Generator().manual_seed(7)
    a, x = rand((21, 37), da, gen), rand((37,), db, gen)
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnMv", golden.upload(a, da, "transposed"), golden.upload(x, db, "strided"),
                    golden.empty([21], da), 0)
    assert ei.value.code == 161002
    assert "dtypes differ" in ei.value.message
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnMv", golden.upload(a, da), golden.upload(a[0], da), golden.empty([21], db), 0)
    assert "dtypes differ" in ei.value.message


def test_mixed_matches_widened_fp32(isa):
    """FLOAT x FLOAT16 is the fp32 product of the exactly widened operand: the same values as the
    all-FLOAT call on that operand, within fp32's accumulation bound."""
    gen = torch.Generator().manual_seed(8)
    a, b = rand((48, 96), "float32", gen), rand((96, 40), "float16", gen)
    O1, O2 = golden.empty([48, 40], "float32"), golden.empty([48, 40], "float32")
    golden.call("aclnnMm", golden.upload(a, "float32"), golden.upload(b, "float16", "transposed"), O1, 2)
    golden.call("aclnnMm", golden.upload(a, "float32"), golden.upload(b.float(), "float32", "transposed"), O2, 2)
    r1, r2 = golden.download(O1, "float32").double(), golden.download(O2, "float32").double()
    mag = torch.matmul(a.double().abs(), b.double().abs())
    assert bool(((r1 - r2).abs() <= 2.0 ** -19 * mag).all())


def test_empty_mixed():
    O = golden.empty([3, 5], "float16", fill=7.0)
    golden.call("aclnnMm", golden.empty([3, 0], "float32"), golden.empty([0, 5], "float16"), O, 0)
    assert bool((golden.download(O, "float16") == 0).all())
    O = golden.empty([0, 5], "float32")
    golden.call("aclnnMm", golden.empty([0, 4], "bfloat16"), golden.empty([4, 5], "float32"), O, 0)


def test_rejected_pairs():
    f = lambda s, dt: golden.empty(list(s), dt)
    for api, sa, sb, so in (("aclnnMm", (3, 4), (4, 6), (3, 6)), ("aclnnBatchMatMul", (2, 3, 4), (2, 4, 6), (2, 3, 6)),
                            ("aclnnMatmul", (2, 3, 4), (4, 6), (2, 3, 6)), ("aclnnMv", (3, 4), (4,), (3,))):
        for da, db, do in (("float32", "int8", "float32"), ("float16", "int32", "float16"),
                           ("int8", "bfloat16", "bfloat16"), ("float32", "double", "float32"),
                           ("float32", "float16", "int32")):
            with pytest.raises(golden.AclError) as ei:
                golden.call(api, f(sa, da), f(sb, db), f(so, do), 0)
            assert ei.value.code == 161002, (api, da, db, do)
            assert "is not supported" in ei.value.message, ei.value.message


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_skinny_16bit_narrow_is_widened_exactly(isa, dt):
    """A skinny product (a side of at most 8 vectors) with 16-bit narrow vectors widens them to fp32
    once before the dot kernel: every product is bit-identical to the same call with the narrow
    operand passed as FLOAT (the mixed path reads the fp32 values directly), for both sides narrow,
    batched with a broadcast narrow batch, and rounded to dt either way."""
    gen = torch.Generator().manual_seed(9)
    for n, k, m in ((1, 300, 70), (3, 1000, 33), (8, 64, 200)):
        x, w = rand((n, k), dt, gen), rand((m, k), dt, gen)
        for side in ("x-left", "x-right"):
            O1, O2 = golden.empty([n, m] if side == "x-left" else [m, n], dt), golden.empty(
                [n, m] if side == "x-left" else [m, n], dt)
            if side == "x-left":
                golden.call("aclnnMm", golden.upload(x, dt), golden.upload(w.t(), dt, "transposed"), O1, 2)
                golden.call("aclnnMm", golden.upload(x.float(), "float32"), golden.upload(w.t(), dt, "transposed"),
                            O2, 2)
            else:
                golden.call("aclnnMm", golden.upload(w, dt), golden.upload(x.t(), dt, "transposed"), O1, 2)
                golden.call("aclnnMm", golden.upload(w, dt), golden.upload(x.t().float(), "float32", "transposed"),
                            O2, 2)
            r1, r2 = golden.download(O1, dt), golden.download(O2, dt)
            assert torch.equal(r1.view(torch.int16), r2.view(torch.int16)), f"{side} {n},{k},{m}"
    # batched, the narrow operand broadcast over the batch
    x, w = rand((1, 2, 40), dt, gen), rand((3, 50, 40), dt, gen)
    O1, O2 = golden.empty([3, 2, 50], dt), golden.empty([3, 2, 50], dt)
    golden.call("aclnnMatmul", golden.upload(x, dt), golden.upload(w.transpose(1, 2), dt), O1, 1)
    golden.call("aclnnMatmul", golden.upload(x.float(), "float32"), golden.upload(w.transpose(1, 2), dt), O2, 1)
    assert torch.equal(golden.download(O1, dt).view(torch.int16), golden.download(O2, dt).view(torch.int16))


@pytest.mark.parametrize("da,db", [("float32", "float16"), ("float16", "float16"), ("bfloat16", "bfloat16"),
                                   ("float32", "float32")])
def test_skinny_shared_wide_matrix(isa, da, db):
    """Output batches that share one wide matrix (broadcast along their batch dims) are computed
    together from one read of it: every batch's product has the bits of its own aclnnMm call."""
    gen = torch.Generator().manual_seed(10)
    for bsz, n, k, m in ((4, 2, 70, 90), (3, 1, 128, 300), (2, 4, 33, 65), (9, 1, 16, 40)):
        x, w = rand((bsz, n, k), da, gen), rand((m, k), db, gen)
        dout = db if da == db else "float32"
        O = golden.empty([bsz, n, m], dout)
        golden.call("aclnnMatmul", golden.upload(x, da), golden.upload(w.t(), db, "transposed"), O, 1)
        got = golden.download(O, dout)
        for i in range(bsz):
            Oi = golden.empty([n, m], dout)
            golden.call("aclnnMm", golden.upload(x[i], da), golden.upload(w.t(), db, "transposed"), Oi, 1)
            assert torch.equal(got[i], golden.download(Oi, dout)), f"{da}x{db} batch {i} of {bsz},{n},{k},{m}"
        check(got, x, w.t().expand(bsz, k, m), da, db, dout, f"shared {da}x{db} {bsz},{n},{k},{m}")


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_skinny_rows_independent_of_neighbours(isa, n):
    """Wide vectors run two at a time where the tier has the registers: each result has the bits of
    the same wide vector computed alone."""
    gen = torch.Generator().manual_seed(11)
    k, m = 301, 67
    x, w = rand((n, k), "float16", gen), rand((m, k), "float16", gen)
    O = golden.empty([n, m], "float16")
    golden.call("aclnnMm", golden.upload(x, "float16"), golden.upload(w.t(), "float16", "transposed"), O, 1)
    full = golden.download(O, "float16")
    for i in (0, 1, 2, 33, 66):
        Oi = golden.empty([n, 1], "float16")
        golden.call("aclnnMm", golden.upload(x, "float16"), golden.upload(w[i:i + 1].t(), "float16", "transposed"),
                    Oi, 1)
        assert torch.equal(full[:, i:i + 1], golden.download(Oi, "float16")), f"column {i}"
