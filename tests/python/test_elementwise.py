"""Golden tests of aclnnAdd / Adds / Sub / Subs / Mul / Muls / Div / Divs (and in-place forms) and
aclnnCast against float64 references and torch (1.13), on every instruction-set tier.

Pass criteria:
  float results: |ours - ref| <= rtol * scale + atol, scale = |ref| for Mul/Div and |a| + |alpha b|
  for Add/Sub (the size of the operands: cancellation is the inputs' rounding, not ours), with
  rtol about one ulp of the output type (golden.rounding_tol), ref computed in float64 from the
  exact input values (after promotion to the common type as torch does);
  integer and bool results, casts: bit-exact with torch.
"""
import numpy as np
import pytest
import torch

import golden
from golden import torch_dtype
from cannon.ops import Scalar


def rnd(shape, dtype, gen, lo=-4.0, hi=4.0):
    if dtype == "bool":
        return torch.rand(shape, generator=gen) > 0.5
    if dtype in golden.INTS:
        lo_i = 0 if dtype == "uint8" else -50
        return torch.randint(lo_i, 50, shape, generator=gen).to(torch_dtype(dtype))
    return (torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo).to(torch_dtype(dtype))


def close(ours, ref, dtype, scale=None, what=""):
    ours = ours.to(torch.float64)
    ref = ref.to(torch.float64)
    rtol, atol = golden.rounding_tol(dtype)
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
@pytest.mark.parametrize("dtype", golden.FLOATS)
def test_float_broadcast(isa, op, dtype):
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
            A = golden.upload(a, dtype, layout)
            B = golden.upload(b, dtype, "offset" if layout == "strided" else "contig")
            O = golden.empty(list(out_shape), dtype)
            args = [A, B] + ([Scalar(alpha, "float32")] if has_alpha else []) + [O]
            golden.call(name, *args)
            ref, scale = ref_arith(op, a, b, alpha)
            close(golden.download(O, dtype), ref.to(torch_dtype(dtype)).double() if dtype != "float64" else ref,
                  dtype, None if scale is None else scale, f"{op} {dtype} {sa} {sb} {layout}")


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_strided_output_and_inplace(isa, dtype):
    gen = torch.Generator().manual_seed(2)
    a = rnd((7, 45), dtype, gen)
    b = rnd((45,), dtype, gen)
    # output written through a transposed view
    A, B = golden.upload(a, dtype), golden.upload(b, dtype)
    O = golden.empty([7, 45], dtype, strides=[1, 7])
    golden.call("aclnnMul", A, B, O)
    close(golden.download(O, dtype), (a.double() * b.double()).to(torch_dtype(dtype)).double(), dtype)
    # in-place forms
    for name, alpha, f in (("aclnnInplaceAdd", 2.0, lambda x, y: x + 2 * y), ("aclnnInplaceMul", None, lambda x, y: x * y),
                           ("aclnnInplaceSub", 0.5, lambda x, y: x - 0.5 * y),
                           ("aclnnInplaceDiv", None, lambda x, y: x / y)):
        S = golden.upload(a, dtype, "strided")
        args = [S, B] + ([Scalar(alpha, "float32")] if alpha is not None else [])
        golden.call(name, *args)
        ref = f(a.double(), b.double())
        scale = a.double().abs() + 2 * b.double().abs()
        close(golden.download(S, dtype), ref.to(torch_dtype(dtype)).double(), dtype, scale, name)


PAIRS = [("float16", "float32"), ("bfloat16", "float16"), ("int32", "float16"), ("int64", "float32"),
         ("uint8", "int8"), ("bool", "int32"), ("int16", "float64"), ("bool", "bfloat16"), ("int8", "int64"),
         ("bool", "bool"), ("uint8", "uint8")]


@pytest.mark.parametrize("ta,tb", PAIRS)
@pytest.mark.parametrize("op", ["add", "mul", "div", "sub"])
def test_promotion_vs_torch(op, ta, tb):
    gen = torch.Generator().manual_seed(3)
    a, b = rnd((6, 11), ta, gen), rnd((11,), tb, gen)
    if op == "div" and tb != "bool":
        b = torch.where(b == 0, torch.ones_like(b), b)
    name, has_alpha = OPS[op]
    kw = {}
    if op == "sub" and "bool" in (ta, tb):
        # torch refuses subtraction with a bool tensor; so do we
        assert golden.status(name, golden.upload(a, ta), golden.upload(b, tb), Scalar(1, "int64"),
                             golden.empty([6, 11], "int32")) == 161002
        return
    alpha = 2 if has_alpha else None
    if has_alpha:
        kw["alpha"] = alpha if (ta, tb) != ("bool", "bool") else True
    tref = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}[op](a, b, **kw)
    rdt = str(tref.dtype).replace("torch.", "")
    O = golden.empty([6, 11], rdt)
    args = [golden.upload(a, ta), golden.upload(b, tb)]
    if has_alpha:
        args.append(Scalar(kw["alpha"], "bool" if kw["alpha"] is True else "int64"))
    golden.call(name, *args, O)
    ours = golden.download(O, rdt)
    if rdt in golden.FLOATS:
        rtol, atol = golden.rounding_tol(rdt)
        assert torch.allclose(ours.double(), tref.double(), rtol=2 * rtol, atol=atol, equal_nan=True), (op, ta, tb)
    else:
        assert torch.equal(ours, tref), (op, ta, tb)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "uint8"])
def test_scalar_forms(isa, dtype):
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
        rdt = str(tref.dtype).replace("torch.", "")
        O = golden.empty([5, 23], rdt)
        args = [golden.upload(a, dtype), Scalar(sval, sdt)]
        if alpha is not None:
            args.append(Scalar(alpha, "int64"))
        golden.call(name, *args, O)
        ours = golden.download(O, rdt)
        if rdt in golden.FLOATS:
            rtol, atol = golden.rounding_tol(rdt)
            assert torch.allclose(ours.double(), tref.double(), rtol=2 * rtol, atol=atol, equal_nan=True), (name, dtype, rdt)
        else:
            assert torch.equal(ours, tref), (name, dtype)
    # in-place scalar forms, through a strided view, against torch in the tensor's dtype
    if dtype in golden.FLOATS:
        S = golden.upload(a, dtype, "strided")
        golden.call("aclnnInplaceMuls", S, Scalar(2.0, "float32"))
        assert torch.equal(golden.download(S, dtype), a * 2)
        for name, sval, alpha, f in (("aclnnInplaceAdds", 0.75, 2, lambda x: x + 2 * 0.75),
                                     ("aclnnInplaceSubs", 1.25, 2, lambda x: x - 2 * 1.25),
                                     ("aclnnInplaceDivs", 0.3, None, lambda x: x / float(np.float32(0.3)))):
            S = golden.upload(a, dtype, "strided")
            args = [S, Scalar(sval, "float32")] + ([Scalar(alpha, "int64")] if alpha else [])
            golden.call(name, *args)
            ref = f(a.double())
            rtol, atol = golden.rounding_tol(dtype)
            assert torch.allclose(golden.download(S, dtype).double(), ref.to(torch_dtype(dtype)).double(),
                                  rtol=2 * rtol,
                                  atol=atol), (name, dtype)


CAST_TYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("src", CAST_TYPES)
def test_cast_all_pairs(isa, src):
    gen = torch.Generator().manual_seed(5)
    if src in golden.FLOATS:
        base = torch.cat([torch.randn(300, generator=gen, dtype=torch.float64) * 50,
                          torch.tensor([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 65504.0, 70000.0, 1e-6, 3.0e-8, 1e-40])])
        x = base.to(torch_dtype(src))
    else:
        x = rnd((311,), src, gen)
    for dst in CAST_TYPES:
        xx = x
        if src in golden.FLOATS and dst in golden.INTS + ["bool"]:
            # float -> integer outside the target's range is undefined in torch: stay inside it
            lim = {"int8": 127, "uint8": 255, "int16": 32767}.get(dst, 6e4)
            xx = x.double().clamp(0 if dst == "uint8" else -lim, lim).to(torch_dtype(src))
        if src in golden.INTS and dst == "uint8":
            xx = x.abs()
        X = golden.upload(xx, src, "strided")
        O = golden.empty([311], dst)
        golden.call("aclnnCast", X, dst, O)
        ours = golden.download(O, dst)
        tref = xx.to(torch_dtype(dst))
        if dst in golden.FLOATS:
            assert torch.equal(torch.isnan(ours), torch.isnan(tref))
            assert torch.equal(ours[~torch.isnan(tref)], tref[~torch.isnan(tref)]), (src, dst)
        else:
            assert torch.equal(ours, tref), (src, dst)


def test_cast_nan_inf():
    x = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3.4e38], dtype=torch.float64)
    for dst, exp in (("float16", x.to(torch.float16)), ("bfloat16", x.to(torch.bfloat16)),
                     ("float32", x.to(torch.float32)), ("bool", x.to(torch.bool))):
        O = golden.empty([6], dst)
        golden.call("aclnnCast", golden.upload(x, "float64"), dst, O)
        ours = golden.download(O, dst)
        assert torch.equal(torch.isnan(ours.double()), torch.isnan(exp.double()))
        m = ~torch.isnan(exp.double())
        assert torch.equal(ours[m], exp[m]), dst
    O = golden.empty([6], "int32")
    golden.call("aclnnCast", golden.upload(x, "float32"), "int32", O)
    assert golden.download(O, "int32")[0].item() == 0  # NaN -> 0, as CANN documents


def test_large_streaming(isa):
    """Above the non-temporal threshold, with an unaligned output start (offset view)."""
    gen = torch.Generator().manual_seed(6)
    n = (5 << 20) + 13
    a = torch.rand(n, generator=gen)
    b = torch.rand(n, generator=gen)
    A, B = golden.upload(a, "float32"), golden.upload(b, "float32")
    O = golden.empty([n], "float32", offset=5, fill=0)
    golden.call("aclnnAdd", A, B, Scalar(1.0, "float32"), O)
    assert torch.equal(golden.download(O, "float32"), a + b)
    O2 = golden.empty([n], "float16")
    golden.call("aclnnMul", golden.upload(a, "float16"), golden.upload(b[:1], "float16"), O2)
    assert torch.equal(golden.download(O2, "float16"), (a.half().float() * b[:1].half().float()).half())


def test_empty_and_0d():
    E = golden.empty([0, 3], "float32")
    golden.call("aclnnAdd", golden.empty([0, 3], "float32"), golden.empty([3], "float32"), Scalar(1.0, "float32"), E)
    a = torch.tensor(2.5)
    O = golden.empty([], "float32")
    golden.call("aclnnMul", golden.upload(a, "float32"), golden.upload(a, "float32"), O)
    assert golden.download(O, "float32").item() == 6.25


def test_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    one = Scalar(1.0, "float32")
    ione = Scalar(1, "int64")
    # shapes that do not broadcast, out of the wrong shape
    assert golden.status("aclnnAdd", f((3, 4)), f((5,)), one, f((3, 4))) == 161002
    assert golden.status("aclnnMul", f((3, 4)), f((4,)), f((3, 5))) == 161002
    assert golden.status("aclnnInplaceMul", f((1, 4)), f((3, 4))) == 161002
    # NULL arguments
    assert golden.status("aclnnAdd", None, f((3,)), one, f((3,))) == 161001
    assert golden.status("aclnnAdd", f((3,)), f((3,)), None, f((3,))) == 161001
    assert golden.status("aclnnMul", f((3,)), f((3,)), None) == 161001
    assert golden.phase1_status("aclnnDiv", f((3,)), f((3,)), f((3,)), null_workspace_size=True) == 161001
    # dtype rules
    assert golden.status("aclnnAdd", f((3,), "int32"), f((3,), "int32"), one, f((3,), "int32")) == 161002  # float alpha
    assert golden.status("aclnnAdd", f((3,)), f((3,)), ione, f((3,), "int32")) == 161002  # float -> int out
    assert golden.status("aclnnDiv", f((3,), "int32"), f((3,), "int32"), f((3,), "int32")) == 161002
    assert golden.status("aclnnSub", f((3,), "bool"), f((3,), "bool"), ione, f((3,), "bool")) == 161002
    assert golden.status("aclnnMul", f((3,), "int32"), f((3,), "int32"), f((3,), "bool")) == 161002
    assert golden.status("aclnnInplaceAdd", f((3,), "int32"), f((3,)), ione) == 161002
    assert golden.status("aclnnCast", f((3,)), "int32", f((3,), "int64")) == 161002
    assert golden.status("aclnnAdd", f((1,) * 9), f((1,)), one, f((1,) * 9)) == 161002
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnAdd", f((3, 4)), f((5,)), one, f((3, 4)))
    assert ei.value.code == 161002 and "cannot broadcast" in ei.value.message
