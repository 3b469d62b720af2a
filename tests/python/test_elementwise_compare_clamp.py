"""Golden tests of aclnnGtScalar, aclnnEqTensor, aclnnClamp, aclnnClampMin and
aclnnInplaceClampMax against torch 1.13 (its type promotion: a scalar only raises the category,
the scalar converted to the compute type first; broadcasting), on every instruction-set tier,
every dtype the manifest lists, several out dtypes, strided / transposed views, empty tensors,
NaN and signed zeros, in-place forms and the argument errors. Every result is exact (comparisons
and clamps round nothing), so the tests assert bit equality with torch (any NaN equal to any NaN).
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.ops import Scalar

SHAPE = (23, 41)
REAL = H.DTYPE_ALL


def tensor(dt, shape, seed, **kw):
    s, x = H.sample(dt, shape, seed, **kw)
    return s, golden.from_storage(s, dt)


def torch_scalar(sc):
    v = sc.value
    return bool(v) if sc.dtype.name == "bool" else (int(v) if sc.dtype.np.kind in "iu" else float(np.float32(v))
                                                     if sc.dtype.name in ("float32", "float16", "bfloat16")
                                                     else float(v))


def same(ours, ref, what):
    ref = ref.double().numpy()
    assert np.array_equal(ours, ref, equal_nan=True), f"{what}: {np.argwhere(~((ours == ref) | np.isnan(ref)))[:5]}"


SCALARS = [Scalar(0), Scalar(3), Scalar(-2), Scalar(0.5), Scalar(-1.25, "float64"), Scalar(True), Scalar(100, "int8")]


@pytest.mark.parametrize("dt", REAL)
def test_gt_scalar(isa, dt):
    s, t = tensor(dt, SHAPE, seed=1, lo=(-5 if dt not in ("uint8", "bool") and not H.is_float(dt) else None),
                  hi=(5 if dt not in ("uint8", "bool") and not H.is_float(dt) else None))
    for k, sc in enumerate(SCALARS):
        for out_dt in ("bool", "float32", "int32") if k < 2 else ("bool",):
            layout = H.layouts(SHAPE)[k % 4]
            O = H.out_like(SHAPE, H.dt_obj(out_dt), layout)
            golden.call("aclnnGtScalar", golden.array(s, dt, layout=layout), sc, O)
            same(H.read(O), torch.gt(t, torch_scalar(sc)).to(golden.torch_dtype(out_dt)), f"gt {dt} {sc.value} {out_dt}")


def test_gt_scalar_conversion_rules():
    """The scalar converted to the compute type as torch converts it: rounded to fp16, wrapped to
    a narrower integer type; an integral tensor against a float scalar compares in FLOAT."""
    x16 = np.array([0.0999, 0.1, 0.10004, 0.1001, np.nan, -0.0], np.float16)
    O = golden.empty((6,), "bool")
    golden.call("aclnnGtScalar", golden.array(x16), Scalar(0.1), O)
    same(H.read(O), torch.gt(torch.from_numpy(x16), 0.1), "fp16 scalar rounding")
    xi = np.array([16777216, 16777217, -3, 2], np.int32)
    golden.call("aclnnGtScalar", golden.array(xi), Scalar(16777216.0), O2 := golden.empty((4,), "bool"))
    same(H.read(O2), torch.gt(torch.from_numpy(xi), 16777216.0), "int32 vs float: compared in FLOAT")
    xi8 = np.array([-128, 0, 43, 44, 45, 127], np.int8)
    golden.call("aclnnGtScalar", golden.array(xi8), Scalar(300), O3 := golden.empty((6,), "bool"))
    assert np.array_equal(H.read(O3), (xi8 > 44).astype(np.float64))  # 300 wrapped to int8 is 44


@pytest.mark.parametrize("pair", [("float32", "float32"), ("float16", "float16"), ("bfloat16", "bfloat16"),
                                  ("float64", "float64"), ("int8", "int8"), ("int16", "int16"), ("int32", "int32"),
                                  ("int64", "int64"), ("uint8", "uint8"), ("bool", "bool"), ("float16", "float32"),
                                  ("int32", "float32"), ("uint8", "int8"), ("bool", "int64"), ("bfloat16", "float16")])
def test_eq_tensor(isa, pair):
    a_dt, b_dt = pair
    kw = {} if H.is_float(a_dt) and H.is_float(b_dt) else {"lo": 0, "hi": 3}
    if a_dt == "bool" or b_dt == "bool":
        kw = {"lo": 0, "hi": 1}
    sa, ta = tensor(a_dt, SHAPE, seed=2, **({"scale": 1.0} if not kw else kw))
    # other: a copy of self with a third of the entries changed, and NaN against NaN
    tb = ta.to(golden.torch_dtype(b_dt)).clone()
    flat = tb.view(-1)
    flat[::3] = (flat[::3].double() + 1).to(flat.dtype) if b_dt != "bool" else ~flat[::3]
    sb = golden.to_storage(tb, b_dt)
    for k, layout in enumerate(H.layouts(SHAPE)):
        for out_dt in ("bool", "float16") if k == 0 else ("bool",):
            O = H.out_like(SHAPE, H.dt_obj(out_dt), layout)
            golden.call("aclnnEqTensor", golden.array(sa, a_dt, layout=layout), golden.array(sb, b_dt), O)
            same(H.read(O), torch.eq(ta, tb).to(golden.torch_dtype(out_dt)), f"eq {pair} {layout} {out_dt}")
    # broadcasting: a row against the whole tensor, a column against a row
    row = ta[3:4, :]
    O = golden.empty(SHAPE, "bool")
    golden.call("aclnnEqTensor", golden.array(sa, a_dt), golden.array(golden.to_storage(row, a_dt), a_dt), O)
    same(H.read(O), torch.eq(ta, row), f"eq broadcast {pair}")
    col = ta[:, 5:6]
    O = golden.empty(SHAPE, "bool")
    golden.call("aclnnEqTensor", golden.array(golden.to_storage(col, a_dt), a_dt),
                golden.array(golden.to_storage(row, a_dt), a_dt), O)
    same(H.read(O), torch.eq(col, row), f"eq column x row {pair}")


def test_eq_nan_and_zeros():
    a = np.array([np.nan, 0.0, -0.0, np.inf, 1.0], np.float32)
    b = np.array([np.nan, -0.0, 0.0, np.inf, np.nan], np.float32)
    O = golden.empty((5,), "bool")
    golden.call("aclnnEqTensor", golden.array(a), golden.array(b), O)
    assert H.read(O).tolist() == [0, 1, 1, 1, 0]


CLAMP_DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8"]


def clamp_cases(dt):
    if H.is_float(dt):
        return [(Scalar(-1.0), Scalar(2.0)), (Scalar(-0.0), None), (None, Scalar(0.0)),
                (Scalar(0.5, "float64"), Scalar(0.75, "float64")), (Scalar(3.0), Scalar(1.0)), (Scalar(-2), Scalar(1))]
    return [(Scalar(-3 if dt != "uint8" else 3), Scalar(4)), (Scalar(0), None), (None, Scalar(2)),
            (Scalar(5), Scalar(1)), (Scalar(1, "int8"), Scalar(3, "int16"))]


def torch_clamp(t, lo, hi):
    lo = None if lo is None else torch_scalar(lo)
    hi = None if hi is None else torch_scalar(hi)
    if t.dtype == torch.float16:  # torch 1.13 has no CPU clamp for Half: in FLOAT with Half bounds (exact)
        r = lambda v: None if v is None else float(torch.tensor(v, dtype=torch.float16))
        return torch.clamp(t.float(), r(lo), r(hi)).half()
    return torch.clamp(t, lo, hi)


@pytest.mark.parametrize("dt", CLAMP_DTYPES)
def test_clamp(isa, dt):
    kw = {} if H.is_float(dt) else {"lo": 0 if dt == "uint8" else -6, "hi": 6}
    s, t = tensor(dt, SHAPE, seed=5, **kw)
    for k, (lo, hi) in enumerate(clamp_cases(dt)):
        layout = H.layouts(SHAPE)[k % 4]
        O = H.out_like(SHAPE, dt, layout)
        golden.call("aclnnClamp", golden.array(s, dt, layout=layout), lo, hi, O)
        ref = torch_clamp(t, lo, hi)
        same(H.read(O), ref, f"clamp {dt} {lo and lo.value} {hi and hi.value} {layout}")
        if H.is_float(dt):  # signed zeros as torch's
            z = ref.double().numpy() == 0
            assert np.array_equal(np.signbit(H.read(O)[z]), np.signbit(ref.double().numpy()[z])), "signed zero"
        if lo is not None:
            O = H.out_like(SHAPE, dt, layout)
            golden.call("aclnnClampMin", golden.array(s, dt, layout=layout), lo, O)
            same(H.read(O), torch_clamp(t, lo, None), f"clamp_min {dt} {lo.value}")
        if hi is not None:
            X = golden.array(s, dt, layout=layout)
            golden.call("aclnnInplaceClampMax", X, hi)
            same(H.read(X), torch_clamp(t, None, hi), f"clamp_max_ {dt} {hi.value}")


def test_clamp_promotion_and_nan_bounds():
    xi = np.arange(-4, 5, dtype=np.int32)
    O = golden.empty((9,), "float32")
    golden.call("aclnnClamp", golden.array(xi), Scalar(-1.5), Scalar(2.5), O)  # INT32 with FLOAT bounds: FLOAT
    same(H.read(O), torch.clamp(torch.from_numpy(xi), -1.5, 2.5), "int32 with float bounds")
    H.raises(161002, "cannot be cast", "aclnnClamp", golden.array(xi), Scalar(-1.5), Scalar(2.5),
             golden.empty((9,), "int32"))
    H.raises(161002, "cannot be cast", "aclnnInplaceClampMax", golden.array(xi), Scalar(2.5))
    H.raises(161002, "overflow", "aclnnClamp", golden.array(xi.astype(np.int8)), Scalar(-1), Scalar(300),
             golden.empty((9,), "int8"))
    H.raises(161002, "overflow", "aclnnClampMin", golden.array(xi.astype(np.uint8)), Scalar(-3),
             golden.empty((9,), "uint8"))
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -7.0], np.float32)
    for lo, hi in ((Scalar(float("nan")), Scalar(1.0)), (Scalar(0.0), Scalar(float("nan"))),
                   (Scalar(float("nan")), None)):
        O = golden.empty((7,), "float32")
        golden.call("aclnnClamp", golden.array(x), lo, hi, O)
        assert np.isnan(H.read(O)).all()  # a NaN bound makes every element NaN
    O = golden.empty((7,), "float32")
    golden.call("aclnnClamp", golden.array(x), Scalar(-1.0), Scalar(0.5), O)
    assert np.array_equal(H.read(O), [np.nan, -1.0, 0.5, -0.0, 0.0, 0.5, -1.0], equal_nan=True)
    assert np.signbit(H.read(O)[3])


def test_compare_clamp_empty():
    for shape in H.EMPTY_SHAPES:
        e = lambda dt="float32": golden.empty(shape, dt)
        golden.call("aclnnGtScalar", e(), Scalar(1.0), e("bool"))
        golden.call("aclnnEqTensor", e(), e(), e("bool"))
        golden.call("aclnnClamp", e(), Scalar(0.0), Scalar(1.0), e())
        golden.call("aclnnClampMin", e(), Scalar(0.0), e())
        golden.call("aclnnInplaceClampMax", e(), Scalar(1.0))


def test_compare_clamp_errors():
    f = lambda shape=(3,), dt="float32": golden.empty(shape, dt)
    one = Scalar(1.0)
    H.raises(161001, "self", "aclnnGtScalar", None, one, f())
    H.raises(161001, "other", "aclnnGtScalar", f(), None, f())
    H.raises(161001, "out", "aclnnGtScalar", f(), one, None)
    H.raises(161002, "shape", "aclnnGtScalar", f(), one, f((4,), "bool"))
    H.raises(161002, "not supported", "aclnnGtScalar", f(), Scalar(5, "uint64"), f((3,), "bool"))
    H.raises(161001, "other", "aclnnEqTensor", f(), None, f((3,), "bool"))
    H.raises(161002, "broadcast", "aclnnEqTensor", f(), f((4,)), f((3,), "bool"))
    H.raises(161002, "shape", "aclnnEqTensor", f(), f(), f((2, 3), "bool"))
    H.raises(161002, "not supported", "aclnnEqTensor", f(), f((3,), "uint16"), f((3,), "bool"))
    H.raises(161001, "NULL", "aclnnClamp", f(), None, None, f())
    H.raises(161001, "self", "aclnnClamp", None, one, one, f())
    H.raises(161001, "out", "aclnnClamp", f(), one, one, None)
    H.raises(161001, "clipValueMin", "aclnnClampMin", f(), None, f())
    H.raises(161001, "clipValueMax", "aclnnInplaceClampMax", f(), None)
    H.raises(161001, "selfRef", "aclnnInplaceClampMax", None, one)
    H.raises(161002, "shape", "aclnnClamp", f(), one, one, f((4,)))
    H.raises(161002, "not supported", "aclnnClamp", f((3,), "bool"), one, one, f((3,), "bool"))
    H.raises(161002, "not supported", "aclnnClampMin", f((3,), "uint16"), Scalar(1), f((3,), "uint16"))
