"""Golden tests of aclnnAdd / Adds / Sub / Subs / Mul / Muls / Div / Divs (and in-place forms) and
aclnnCast against float64 references and torch (1.13), on every instruction-set tier.

Pass criteria:
  float results: |ours - ref| <= rtol * scale + atol, scale = |ref| for Mul/Div and |a| + |alpha b|
  for Add/Sub (the size of the operands: cancellation is the inputs' rounding, not ours), with
  rtol about one ulp of the output type (train_helpers_b.tol), ref computed in float64 from the
  exact input values (after promotion to the common type as torch does);
  integer and bool results, casts: bit-exact with torch.
"""
import numpy as np
import pytest
import torch

import cannon_testlib as ct
import train_helpers_b as h


def rnd(shape, dtype, gen, lo=-4.0, hi=4.0):
    if dtype == "bool":
        return torch.rand(shape, generator=gen) > 0.5
    if dtype in h.INTS:
        lo_i = 0 if dtype == "uint8" else -50
        return torch.randint(lo_i, 50, shape, generator=gen).to(h.TORCH[dtype])
    return (torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(h.TORCH[dtype])


def close(ours, ref, dtype, scale=None, what=""):
    ours = ours.to(torch.float64)
    ref = ref.to(torch.float64)
    rtol, atol = h.tol(dtype)
    if scale is None:
        scale = ref.abs()
    fin = torch.isfinite(ref)
    assert torch.equal(torch.isnan(ours), torch.isnan(ref)), what
    assert torch.equal(ours[~fin & ~torch.isnan(ref)], ref[~fin & ~torch.isnan(ref)]), what
    err = (ours - ref).abs()[fin]
    bound = (rtol * scale[fin] + atol)
    assert bool((err <= bound).all()), f"{what}: max err {err.max().item()} ({(err - bound).argmax().item()})"


OPS = {"add": ("aclnnAdd", True), "sub": ("aclnnSub", True), "mul": ("aclnnMul", False), "div": ("aclnnDiv", False)}
BCAST = [((4, 37), (4, 37)), ((5, 33), (33,)), ((6, 1, 7), (1, 5, 7)), ((3, 17), (3, 1)), ((2, 3, 4), ()),
         ((1000,), (1000,)), ((4, 1, 19), (19,))]


def ref_arith(op, a, b, alpha):
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    if op == "add":
        return a64 + alpha * b64, a64.abs() + abs(alpha) * b64.abs()
    if op == "sub":
        return a64 - alpha * b64, a64.abs() + abs(alpha) * b64.abs()
    if op == "mul":
        return a64 * b64, None
    return a64 / b64, None


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", h.FLOATS)
def test_float_broadcast(L, isa, op, dtype):
    gen = torch.Generator().manual_seed(1)
    name, has_alpha = OPS[op]
    for sa, sb in BCAST:
        for layout in ("contig", "strided", "transposed"):
            a = rnd(sa, dtype, gen)
            b = rnd(sb, dtype, gen)
            if op == "div":
                b = torch.where(b.abs() < 0.25, torch.full_like(b, 0.5), b)
            alpha = 1.5 if has_alpha else 1.0
            out_shape = torch.broadcast_shapes(sa, sb)
            A, B = h.upload(L, a, dtype, layout), h.upload(L, b, dtype, "offset" if layout == "strided" else "contig")
            O = L.empty(list(out_shape), h.DT[dtype])
            args = [A, B] + ([h.Scalar(L, alpha, "float32")] if has_alpha else []) + [O]
            h.call(L, name, *args)
            ref, scale = ref_arith(op, a, b, alpha)
            close(h.download(O, dtype), ref.to(h.TORCH[dtype]).to(torch.float64) if dtype != "float64" else ref,
                  dtype, None if scale is None else scale, f"{op} {dtype} {sa} {sb} {layout}")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_strided_output_and_inplace(L, isa, dtype):
    gen = torch.Generator().manual_seed(2)
    a = rnd((7, 45), dtype, gen)
    b = rnd((45,), dtype, gen)
    # output written through a transposed view
    A, B = h.upload(L, a, dtype), h.upload(L, b, dtype)
    O = L.empty([7, 45], h.DT[dtype], strides=[1, 7])
    h.call(L, "aclnnMul", A, B, O)
    close(h.download(O, dtype), (a.double() * b.double()).to(h.TORCH[dtype]).double(), dtype)
    # in-place forms
    for name, alpha, f in (("aclnnInplaceAdd", 2.0, lambda x, y: x + 2 * y), ("aclnnInplaceMul", None, lambda x, y: x * y),
                           ("aclnnInplaceSub", 0.5, lambda x, y: x - 0.5 * y),
                           ("aclnnInplaceDiv", None, lambda x, y: x / y)):
        S = h.upload(L, a, dtype, "strided")
        args = [S, B] + ([h.Scalar(L, alpha, "float32")] if alpha is not None else [])
        h.call(L, name, *args)
        ref = f(a.double(), b.double())
        scale = a.double().abs() + 2 * b.double().abs()
        close(h.download(S, dtype), ref.to(h.TORCH[dtype]).double(), dtype, scale, name)


PAIRS = [("float16", "float32"), ("bfloat16", "float16"), ("int32", "float16"), ("int64", "float32"),
         ("uint8", "int8"), ("bool", "int32"), ("int16", "float64"), ("bool", "bfloat16"), ("int8", "int64"),
         ("bool", "bool"), ("uint8", "uint8")]


@pytest.mark.parametrize("ta,tb", PAIRS)
@pytest.mark.parametrize("op", ["add", "mul", "div", "sub"])
def test_promotion_vs_torch(L, op, ta, tb):
    gen = torch.Generator().manual_seed(3)
    a, b = rnd((6, 11), ta, gen), rnd((11,), tb, gen)
    if op == "div" and tb != "bool":
        b = torch.where(b == 0, torch.ones_like(b), b)
    name, has_alpha = OPS[op]
    kw = {}
    if op == "sub" and "bool" in (ta, tb):
        # torch refuses subtraction with a bool tensor; so do we
        assert h.status(L, name, h.upload(L, a, ta), h.upload(L, b, tb), h.Scalar(L, 1, "int64"),
                        L.empty([6, 11], h.DT["int32"])) == 161002
        return
    alpha = 2 if has_alpha else None
    if has_alpha:
        kw["alpha"] = alpha if (ta, tb) != ("bool", "bool") else True
    tref = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}[op](a, b, **kw)
    rdt = [k for k, v in h.TORCH.items() if v == tref.dtype][0]
    O = L.empty([6, 11], h.DT[rdt])
    args = [h.upload(L, a, ta), h.upload(L, b, tb)]
    if has_alpha:
        args.append(h.Scalar(L, kw["alpha"], "bool" if kw["alpha"] is True else "int64"))
    h.call(L, name, *args, O)
    ours = h.download(O, rdt)
    if rdt in h.FLOATS:
        rtol, atol = h.tol(rdt)
        assert torch.allclose(ours.double(), tref.double(), rtol=2 * rtol, atol=atol, equal_nan=True), (op, ta, tb)
    else:
        assert torch.equal(ours, tref), (op, ta, tb)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "uint8"])
def test_scalar_forms(L, isa, dtype):
    gen = torch.Generator().manual_seed(4)
    a = rnd((5, 23), dtype, gen)
    for name, sval, sdt, alpha, f in (
            ("aclnnAdds", 3, "int64", 2, lambda x, s, al: torch.add(x, s, alpha=al)),
            ("aclnnSubs", 1.25, "float32", 2, lambda x, s, al: torch.sub(x, s, alpha=al)),
            ("aclnnMuls", 0.5, "float64", None, lambda x, s, al: torch.mul(x, s)),
            ("aclnnMuls", 3, "int32", None, lambda x, s, al: torch.mul(x, s)),
            ("aclnnDivs", 3, "int64", None, lambda x, s, al: torch.div(x, s)),
            ("aclnnDivs", 0.3, "float32", None, lambda x, s, al: torch.div(x, s))):
        # the reference uses the scalar's value as stored in its dtype
        tref = f(a, float(np.float32(sval)) if sdt == "float32" else sval, alpha)
        rdt = [k for k, v in h.TORCH.items() if v == tref.dtype][0]
        O = L.empty([5, 23], h.DT[rdt])
        args = [h.upload(L, a, dtype), h.Scalar(L, sval, sdt)]
        if alpha is not None:
            args.append(h.Scalar(L, alpha, "int64"))
        h.call(L, name, *args, O)
        ours = h.download(O, rdt)
        if rdt in h.FLOATS:
            rtol, atol = h.tol(rdt)
            assert torch.allclose(ours.double(), tref.double(), rtol=2 * rtol, atol=atol, equal_nan=True), (name, dtype, rdt)
        else:
            assert torch.equal(ours, tref), (name, dtype)
    # in-place scalar forms, through a strided view, against torch in the tensor's dtype
    if dtype in h.FLOATS:
        S = h.upload(L, a, dtype, "strided")
        h.call(L, "aclnnInplaceMuls", S, h.Scalar(L, 2.0, "float32"))
        assert torch.equal(h.download(S, dtype), a * 2)
        for name, sval, alpha, f in (("aclnnInplaceAdds", 0.75, 2, lambda x: x + 2 * 0.75),
                                     ("aclnnInplaceSubs", 1.25, 2, lambda x: x - 2 * 1.25),
                                     ("aclnnInplaceDivs", 0.3, None, lambda x: x / float(np.float32(0.3)))):
            S = h.upload(L, a, dtype, "strided")
            args = [S, h.Scalar(L, sval, "float32")] + ([h.Scalar(L, alpha, "int64")] if alpha else [])
            h.call(L, name, *args)
            ref = f(a.double())
            rtol, atol = h.tol(dtype)
            assert torch.allclose(h.download(S, dtype).double(), ref.to(h.TORCH[dtype]).double(), rtol=2 * rtol,
                                  atol=atol), (name, dtype)


CAST_TYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("src", CAST_TYPES)
def test_cast_all_pairs(L, isa, src):
    gen = torch.Generator().manual_seed(5)
    if src in h.FLOATS:
        base = torch.cat([torch.randn(300, generator=gen, dtype=torch.float64) * 50,
                          torch.tensor([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 65504.0, 70000.0, 1e-6, 3.0e-8, 1e-40])])
        x = base.to(h.TORCH[src])
    else:
        x = rnd((311,), src, gen)
    for dst in CAST_TYPES:
        xx = x
        if src in h.FLOATS and dst in h.INTS + ["bool"]:
            # float -> integer outside the target's range is undefined in torch: stay inside it
            lim = {"int8": 127, "uint8": 255, "int16": 32767}.get(dst, 6e4)
            xx = x.double().clamp(0 if dst == "uint8" else -lim, lim).to(h.TORCH[src])
        if src in h.INTS and dst == "uint8":
            xx = x.abs()
        X = h.upload(L, xx, src, "strided")
        O = L.empty([311], h.DT[dst])
        h.call(L, "aclnnCast", X, ("i32", h.DT[dst]), O)
        ours = h.download(O, dst)
        tref = xx.to(h.TORCH[dst])
        if dst in h.FLOATS:
            assert torch.equal(torch.isnan(ours), torch.isnan(tref))
            assert torch.equal(ours[~torch.isnan(tref)], tref[~torch.isnan(tref)]), (src, dst)
        else:
            assert torch.equal(ours, tref), (src, dst)


def test_cast_nan_inf(L):
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3.4e38], dtype=torch.float64)
    for dst, exp in (("float16", x.to(torch.float16)), ("bfloat16", x.to(torch.bfloat16)),
                     ("float32", x.to(torch.float32)), ("bool", x.to(torch.bool))):
        O = L.empty([6], h.DT[dst])
        h.call(L, "aclnnCast", h.upload(L, x, "float64"), ("i32", h.DT[dst]), O)
        ours = h.download(O, dst)
        assert torch.equal(torch.isnan(ours.double()), torch.isnan(exp.double()))
        m = ~torch.isnan(exp.double())
        assert torch.equal(ours[m], exp[m]), dst
    O = L.empty([6], h.DT["int32"])
    h.call(L, "aclnnCast", h.upload(L, x, "float32"), ("i32", h.DT["int32"]), O)
    assert h.download(O, "int32")[0].item() == 0  # NaN -> 0, as CANN documents


def test_large_streaming(L, isa):
    """Above the non-temporal threshold, with an unaligned output start (offset view)."""
    gen = torch.Generator().manual_seed(6)
    n = (5 << 20) + 13
    a = torch.rand(n, generator=gen)
    b = torch.rand(n, generator=gen)
    A, B = h.upload(L, a, "float32"), h.upload(L, b, "float32")
    store = np.zeros(n + 5, dtype=np.float32)
    O = L.tensor_from(np.zeros(n, dtype=np.float32), ct.ACL_FLOAT, strides=[1], offset=5, storage=store)
    h.call(L, "aclnnAdd", A, B, h.Scalar(L, 1.0, "float32"), O)
    assert torch.equal(h.download(O, "float32"), a + b)
    O2 = L.empty([n], ct.ACL_FLOAT16)
    h.call(L, "aclnnMul", h.upload(L, a, "float16"), h.upload(L, b[:1], "float16"), O2)
    assert torch.equal(h.download(O2, "float16"), (a.half().float() * b[:1].half().float()).half())


def test_empty_and_0d(L):
    E = L.empty([0, 3], ct.ACL_FLOAT)
    h.call(L, "aclnnAdd", L.empty([0, 3], ct.ACL_FLOAT), L.empty([3], ct.ACL_FLOAT), h.Scalar(L, 1.0, "float32"), E)
    a = torch.tensor(2.5)
    O = L.empty([], ct.ACL_FLOAT)
    h.call(L, "aclnnMul", h.upload(L, a, "float32"), h.upload(L, a, "float32"), O)
    assert h.download(O, "float32").item() == 6.25


def test_errors(L):
    f = lambda s, dt="float32": L.empty(list(s), h.DT[dt])
    one = h.Scalar(L, 1.0, "float32")
    ione = h.Scalar(L, 1, "int64")
    # shapes that do not broadcast, out of the wrong shape
    assert h.status(L, "aclnnAdd", f((3, 4)), f((5,)), one, f((3, 4))) == 161002
    assert h.status(L, "aclnnMul", f((3, 4)), f((4,)), f((3, 5))) == 161002
    assert h.status(L, "aclnnInplaceMul", f((1, 4)), f((3, 4))) == 161002
    # NULL arguments
    assert h.status(L, "aclnnAdd", None, f((3,)), one, f((3,))) == 161001
    assert h.status(L, "aclnnAdd", f((3,)), f((3,)), None, f((3,))) == 161001
    assert h.status(L, "aclnnMul", f((3,)), f((3,)), None) == 161001
    assert L.phase1_status("aclnnDiv", f((3,)), f((3,)), f((3,)), null_ws=True) == 161001
    # dtype rules
    assert h.status(L, "aclnnAdd", f((3,), "int32"), f((3,), "int32"), one, f((3,), "int32")) == 161002  # float alpha
    assert h.status(L, "aclnnAdd", f((3,)), f((3,)), ione, f((3,), "int32")) == 161002  # float -> int out
    assert h.status(L, "aclnnDiv", f((3,), "int32"), f((3,), "int32"), f((3,), "int32")) == 161002
    assert h.status(L, "aclnnSub", f((3,), "bool"), f((3,), "bool"), ione, f((3,), "bool")) == 161002
    assert h.status(L, "aclnnMul", f((3,), "int32"), f((3,), "int32"), f((3,), "bool")) == 161002
    assert h.status(L, "aclnnInplaceAdd", f((3,), "int32"), f((3,)), ione) == 161002
    assert h.status(L, "aclnnCast", f((3,)), ("i32", h.DT["int32"]), f((3,), "int64")) == 161002
    assert h.status(L, "aclnnAdd", f((1,) * 9), f((1,)), one, f((1,) * 9)) == 161002
    with pytest.raises(ct.AclError) as ei:
        h.call(L, "aclnnAdd", f((3, 4)), f((5,)), one, f((3, 4)))
    assert ei.value.code == 161002 and "cannot broadcast" in ei.value.msg
