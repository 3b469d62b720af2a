"""Golden tests of aclnnNorm (the p-norm ggml's L2_NORM uses): against float64 numpy and torch.norm,
every ISA tier, every dtype the page lists (FLOAT, FLOAT16, BFLOAT16; out any of them), p = 0, 1,
2, 3, 0.5, inf, -inf, any set of axes (empty: all), keepdim, 0-d and empty tensors, strided views,
NaN, and the error paths.

Accuracy asserted: the reduction runs in fp64 and is rounded once, so fp32 results are within
2^-22 relative of the float64 value and fp16 / bf16 within one ulp of the type (2^-10 / 2^-7)."""
import numpy as np
import pytest

import golden
from cannon.ops import Scalar
from golden import PARAM_INVALID, PARAM_NULLPTR, call, phase1_status as status

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float16", "bfloat16"]
REL = {"float32": 2.0 ** -22, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def pnorm(x, p, axes, keep):
    ax = tuple(axes) if axes else tuple(range(x.ndim))
    a = np.abs(x)
    if p == 0:
        r = (x != 0).sum(axis=ax, keepdims=keep).astype(np.float64)
    elif p == np.inf:
        r = a.max(axis=ax, keepdims=keep)
    elif p == -np.inf:
        r = a.min(axis=ax, keepdims=keep)
    else:
        r = (a ** p).sum(axis=ax, keepdims=keep) ** (1.0 / p)
    return np.asarray(r, np.float64)


def check(got, want, dt):
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
        bad = ~same & ~(np.abs(got - want) <= REL[dt] * np.abs(want) + 1e-30)
    assert not bad.any(), f"{bad.sum()} of {bad.size} off: {got[bad][:4]} vs {want[bad][:4]}"


def out_shape(shape, axes, keep):
    ax = [a % len(shape) for a in axes] if axes else list(range(len(shape)))
    return tuple(1 if i in ax else s for i, s in enumerate(shape) if keep or i not in ax)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, 0.5, np.inf, -np.inf])
@pytest.mark.parametrize("shape,axes,keep", [((4, 5, 6), [-1], True), ((4, 5, 6), [0, 2], False),
                                             ((4, 5, 6), [], False), ((3, 2000), [1], True), ((7,), [0], False)])
def test_norm(dt, p, shape, axes, keep, isa):
    rng = np.random.default_rng(1)
    x = golden.rounded(rng.normal(0, 2, shape), dt)
    x.flat[::7] = 0.0
    os_ = out_shape(shape, axes, keep)
    out = golden.empty(os_, dt, fill=np.nan)
    call("aclnnNorm", golden.array(x, dt), Scalar(float(p), "float32"), axes, keep, out)
    with np.errstate(over="ignore"):  # p = 0.5 over 2000 elements exceeds fp16's range: inf
        want = golden.rounded(pnorm(x, p, axes, keep), dt)
    check(golden.read_float(out), want, dt)


@pytest.mark.parametrize("odt", DTYPES)
def test_against_torch_and_out_dtype(odt, isa):
    rng = np.random.default_rng(2)
    x = golden.rounded(rng.normal(0, 1, (6, 33)), "float32")
    out = golden.empty((6,), odt)
    call("aclnnNorm", golden.array(x, "float32"), Scalar(2.0), [1], False, out)
    t = torch.norm(torch.from_numpy(x), p=2, dim=1).numpy()
    check(golden.read_float(out), golden.rounded(t, odt), odt)


@pytest.mark.parametrize("dt", DTYPES)
def test_strided(dt, isa):
    rng = np.random.default_rng(3)
    x = golden.rounded(rng.normal(0, 1, (5, 8)), dt)
    out = golden.empty((5, 1), dt, layout="strided", fill=7.0)
    call("aclnnNorm", golden.array(x, dt, layout="transposed"), Scalar(2.0), [-1], True, out)
    check(golden.read_float(out), pnorm(x, 2.0, [-1], True), dt)


def test_special_and_small():
    x = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, -np.inf]])
    for p in (2.0, 1.0, np.inf, -np.inf, 0.0):
        out = golden.empty((2,), "float32")
        call("aclnnNorm", golden.array(x, "float32"), Scalar(float(p)), [1], False, out)
        got = golden.read_float(out)
        assert np.isnan(got[0]) or p == 0.0, (p, got)
        want = pnorm(x[1:], p, [1], False)[0]
        assert got[1] == want, (p, got, want)
    # 0-d self, dim [] or [0]
    out = golden.empty((), "float32")
    call("aclnnNorm", golden.array(np.float32(-3.0)), Scalar(2.0), [], False, out)
    assert golden.read_float(out) == 3.0
    call("aclnnNorm", golden.array(np.float32(-3.0)), Scalar(1.0), [0], True, out)
    assert golden.read_float(out) == 3.0
    # empty reduction: sums of nothing
    out = golden.empty((3,), "float32", fill=7.0)
    call("aclnnNorm", golden.array(np.zeros((3, 0), np.float32)), Scalar(2.0), [1], False, out)
    assert (golden.read_float(out) == 0).all()
    assert call("aclnnNorm", golden.array(np.zeros((0, 4), np.float32)), Scalar(2.0), [1], False,
                golden.empty((0,), "float32")) == 0


def test_errors():
    x = golden.array(np.ones((3, 4), np.float32))
    o = golden.empty((3,), "float32")
    assert status("aclnnNorm", None, Scalar(2.0), [1], False, o) == PARAM_NULLPTR
    assert status("aclnnNorm", x, None, [1], False, o) == PARAM_NULLPTR
    assert "pScalar" in golden.recent_error()
    assert status("aclnnNorm", x, Scalar(2.0), None, False, o) == PARAM_NULLPTR
    assert status("aclnnNorm", x, Scalar(2.0), [1], False, None) == PARAM_NULLPTR
    assert status("aclnnNorm", x, Scalar(2.0), [2], False, o) == PARAM_INVALID
    assert "dim" in golden.recent_error()
    assert status("aclnnNorm", x, Scalar(2.0), [1, -1], False, o) == PARAM_INVALID
    assert "twice" in golden.recent_error()
    assert status("aclnnNorm", x, Scalar(2.0), [1], True, o) == PARAM_INVALID
    assert "out shape" in golden.recent_error()
    x64 = golden.array(np.ones((3, 4)), "float64")
    assert status("aclnnNorm", x64, Scalar(2.0), [1], False, o) == PARAM_INVALID
    assert status("aclnnNorm", x, Scalar(2.0), [1], False, golden.empty((3,), "int32")) == PARAM_INVALID
