"""Golden tests of aclnnRelu / InplaceRelu / ThresholdBackward / Gelu / GeluV2 / GeluBackward /
Silu / SiluBackward against float64 references (torch in double) and against torch's own result
in the tested dtype, on every instruction-set tier.

Pass criteria: fp32: |ours - ref| <= 4e-6 |ref| (1 + cond) + atol, cond the relative condition number of the
function at x (the error of x's own last bit, amplified), (atol = 1e-6 * |gradOutput| for the
backward ops, whose derivative crosses zero; 1e-37 otherwise), i.e. a few ulp; fp16/bf16: within
the dtype's rounding of the fp64 reference (tolerances of golden.rounding_tol, doubled); fp64:
1e-12 relative. Relu / ThresholdBackward are exact. Special values follow torch.
"""
import pytest
import torch
import torch.nn.functional as F

import golden
from golden import torch_dtype
from cannon.ops import Scalar


def inputs(dtype, n=3000, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.cat([torch.randn(n, generator=g, dtype=torch.float64) * 3,
                   torch.linspace(-12, 12, 1001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, 1e-30, -1e-30, 30.0, -30.0, 100.0, -100.0], dtype=torch.float64)])
    return x.to(torch_dtype(dtype))


def cond(f, x):
    """Relative condition number |x f'(x) / f(x)| of f at x (float64, central differences): an
    error of a few ulp of x is unavoidable in fp32 wherever f amplifies it (e.g. gelu for x < -5)."""
    x = x.double()
    hstep = 1e-6
    with torch.no_grad():
        d = (f(x * (1 + hstep)) - f(x * (1 - hstep))) / (2 * hstep)
        fx = f(x)
    c = (d / fx).abs()
    return torch.nan_to_num(c, nan=0.0, posinf=0.0)


def check(ours, ref, dtype, atol=None, what="", c=None):
    ours, ref = ours.double(), ref.double()
    assert torch.equal(torch.isnan(ours), torch.isnan(ref)), what
    m = ~torch.isnan(ref)
    if dtype == "float32":
        rtol, a = 4e-6, 1e-37
    elif dtype == "float64":
        rtol, a = 1e-12, 1e-300
    else:
        rtol, a = golden.rounding_tol(dtype)
        rtol, a = 2 * rtol, a * 1e-3
    scale = ref[m].abs() * (1 + (c[m] if c is not None else 0))
    bound = rtol * scale + (a if atol is None else atol[m] + a)
    err = (ours[m] - ref[m]).abs()
    assert bool((err <= bound).all()), f"{what}: worst {err.max().item():.3g} at {int((err - bound).argmax())}"


# float64 references in forms that do not cancel (torch's 0.5 x (1 + tanh/erf) loses all
# relative accuracy for x < -5 even in double)
C1 = 2 * (2 / torch.pi) ** 0.5
C2 = C1 * 0.044715


def GELU_T(x):
    if x.dtype != torch.float64:
        return F.gelu(x, approximate="tanh")
    return x * torch.sigmoid(x * (C1 + C2 * x * x))


def GELU_E(x):
    if x.dtype != torch.float64:
        return F.gelu(x)
    return x * 0.5 * torch.special.erfc(-x / 2 ** 0.5)


def GELU_BWD(g, x):
    y = x * (C1 + C2 * x * x)
    s, oms = torch.sigmoid(y), torch.sigmoid(-y)
    return g * (s + x * s * oms * (C1 + 3 * C2 * x * x))


def SILU_BWD(g, x):
    return g * torch.sigmoid(x) * (1 + x * torch.sigmoid(-x))

UNARY = {"gelu": ("aclnnGelu", None, GELU_T), "gelu_v2_none": ("aclnnGeluV2", 0, GELU_E),
         "gelu_v2_tanh": ("aclnnGeluV2", 1, GELU_T), "silu": ("aclnnSilu", None, F.silu)}


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("dtype", golden.FLOATS)
def test_unary(isa, op, dtype):
    name, approx, f = UNARY[op]
    x = inputs(dtype)
    for layout in ("contig", "strided"):
        X = golden.upload(x, dtype, layout)
        O = golden.empty([x.numel()], dtype)
        args = [X] + ([approx] if approx is not None else []) + [O]
        golden.call(name, *args)
        ours = golden.download(O, dtype)
        ref = f(x.double())
        if dtype in ("float16", "bfloat16"):
            ref = ref.to(torch_dtype(dtype))
        check(ours, ref, dtype, what=f"{op} {dtype} {layout}", c=cond(f, x) if dtype in ("float32", "float64") else None)
        if dtype == "float32":
            # and against torch's own fp32 result (looser: torch's erf-based gelu cancels for x < 0)
            t = f(x)
            m = x > -5
            assert torch.allclose(ours[m], t[m], rtol=1e-5, atol=1e-6)


BWD = {"gelu_bwd": ("aclnnGeluBackward", GELU_BWD, lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate="tanh")),
       "silu_bwd": ("aclnnSiluBackward", SILU_BWD, lambda g, x: torch.ops.aten.silu_backward(g, x))}


@pytest.mark.parametrize("op", list(BWD))
@pytest.mark.parametrize("dtype", golden.FLOATS)
def test_backward(isa, op, dtype):
    name, f, tf = BWD[op]
    x = inputs(dtype, seed=1)
    g = (torch.rand(x.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64) * 4 - 2).to(x.dtype)
    G, X = golden.upload(g, dtype), golden.upload(x, dtype, "strided")
    O = golden.empty([x.numel()], dtype)
    golden.call(name, G, X, O)
    ref = f(g.double(), x.double())
    if dtype in ("float16", "bfloat16"):
        ref = ref.to(torch_dtype(dtype))
    atol = {"float32": 1e-6, "float64": 1e-13}.get(dtype, golden.rounding_tol(dtype)[0]) * g.double().abs()
    ours = golden.download(O, dtype)
    check(ours, ref, dtype, atol=atol, what=f"{op} {dtype}")
    if dtype == "float32":
        # torch's fp32 derivative cancels for large |x|; compare where it is meaningful
        m = x.abs() < 6
        assert torch.allclose(ours[m], tf(g, x)[m], rtol=1e-4, atol=1e-5)


def test_backward_broadcast():
    g = torch.randn(4, 1, 9, dtype=torch.float64).float()
    x = torch.randn(5, 1, dtype=torch.float64).float()
    O = golden.empty([4, 5, 9], "float32")
    golden.call("aclnnSiluBackward", golden.upload(g, "float32"), golden.upload(x, "float32"), O)
    ref = SILU_BWD(g.double().expand(4, 5, 9), x.double().expand(4, 5, 9))
    check(golden.download(O, "float32"), ref, "float32", atol=1e-6 * g.double().abs().expand(4, 5, 9))


@pytest.mark.parametrize("dtype", golden.FLOATS + ["int8", "int32", "int64", "uint8", "int16"])
def test_relu_threshold(isa, dtype):
    gen = torch.Generator().manual_seed(3)
    if dtype in golden.FLOATS:
        x = torch.cat([torch.randn(500, generator=gen, dtype=torch.float64),
                       torch.tensor([0.0, -0.0, float("nan"), float("inf"), -float("inf")], dtype=torch.float64)])
        x = x.to(torch_dtype(dtype))
    else:
        x = torch.randint(0 if dtype == "uint8" else -100, 100, (505,), generator=gen).to(torch_dtype(dtype))
    O = golden.empty([505], dtype)
    golden.call("aclnnRelu", golden.upload(x, dtype, "strided"), O)
    ours = golden.download(O, dtype)
    ref = torch.relu(x.double()).to(x.dtype) if dtype in golden.FLOATS else (torch.relu(x) if dtype != "uint8" else x)
    assert torch.equal(torch.isnan(ours.double()), torch.isnan(ref.double()))
    m = ~torch.isnan(ref.double())
    assert torch.equal(ours[m], ref[m])
    S = golden.upload(x, dtype)
    golden.call("aclnnInplaceRelu", S)
    assert torch.equal(golden.download(S, dtype)[m], ref[m])
    # threshold backward: 0 where self <= threshold (NaN self keeps the gradient, as torch)
    g = (torch.arange(505) if dtype in golden.FLOATS else torch.arange(505) % 100).to(torch_dtype(dtype))
    thr = 0.25 if dtype in golden.FLOATS else 3
    O = golden.empty([505], dtype)
    golden.call("aclnnThresholdBackward", golden.upload(g, dtype), golden.upload(x, dtype),
                Scalar(thr, "float32" if dtype in golden.FLOATS else "int64"), O)
    ref = torch.ops.aten.threshold_backward(g.double(), x.double(), thr).to(g.dtype)
    assert torch.equal(golden.download(O, dtype), ref), dtype


def test_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    assert golden.status("aclnnGelu", f((3,), "int32"), f((3,))) == 161002
    assert golden.status("aclnnGelu", f((3,)), f((4,))) == 161002
    assert golden.status("aclnnGeluV2", f((3,)), 2, f((3,))) == 161002
    assert golden.status("aclnnGeluV2", None, 0, f((3,))) == 161001
    assert golden.status("aclnnSilu", f((3,)), None) == 161001
    assert golden.status("aclnnRelu", f((3,)), f((3,), "float16")) == 161002
    assert golden.status("aclnnRelu", f((3,), "bool"), f((3,), "bool")) == 161002
    assert golden.status("aclnnGeluBackward", f((3,)), f((4,)), f((3,))) == 161002
    assert golden.status("aclnnThresholdBackward", f((3,)), f((3,)), None, f((3,))) == 161001
    assert golden.status("aclnnSiluBackward", f((3,)), f((3,)), f((3,), "int32")) == 161002


@pytest.mark.parametrize("gdt,xdt,odt", [("int32", "float32", "float32"), ("float32", "int64", "float32"),
                                         ("int8", "float16", "float16"), ("bool", "bfloat16", "bfloat16"),
                                         ("float16", "float32", "float32"), ("int32", "float16", "float32")])
def test_gelu_backward_promotion(isa, gdt, xdt, odt):
    """CANN's GeluBackward checks the promoted type of gradOutput and self (FLOAT, FLOAT16, BFLOAT16),
    not each input: an integer gradient with a floating input computes in the floating type, then
    casts to gradInput's dtype."""
    gen = torch.Generator().manual_seed(5)
    g = torch.randint(-3, 4, (257,), generator=gen).to(torch_dtype(gdt))
    x = torch.randn(257, generator=gen, dtype=torch.float64) * 3
    x = (x.round() if xdt.startswith("int") else x).to(torch_dtype(xdt))
    O = golden.empty([257], odt)
    golden.call("aclnnGeluBackward", golden.upload(g, gdt), golden.upload(x, xdt, "strided"), O)
    pt = torch.promote_types(g.dtype, x.dtype)
    ref = GELU_BWD(g.to(pt).double(), x.to(pt).double())
    if pt != torch.float32 or odt != "float32":
        ref = ref.to(pt).to(torch_dtype(odt)).double()
    ours = golden.download(O, odt).double()
    tol = {"float32": 1e-5, "float16": 2.0 ** -9, "bfloat16": 2.0 ** -6}[odt]
    assert torch.all((ours - ref).abs() <= tol * ref.abs() + tol * g.double().abs() + 1e-6), (gdt, xdt, odt)


def test_gelu_backward_promotion_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    # promoted type integral: not one of GeluBackward's dtypes
    assert golden.phase1_status("aclnnGeluBackward", f((3,), "int32"), f((3,), "int32"), f((3,))) == 161002
    assert "aclnnGeluBackward: promoted type INT32 of gradOutput dtype INT32 and self dtype INT32 is not supported" \
        in golden.recent_error()
    assert golden.status("aclnnGeluBackward", f((3,), "int32"), f((3,), "bool"), f((3,))) == 161002
    # the promoted FLOAT cannot be written to an integer gradInput
    assert golden.status("aclnnGeluBackward", f((3,), "int32"), f((3,)), f((3,), "int32")) == 161002
    # SiluBackward keeps checking each input (as CANN's does)
    assert golden.status("aclnnSiluBackward", f((3,), "int32"), f((3,)), f((3,))) == 161002
