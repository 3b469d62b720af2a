"""Golden tests of aclnnInplaceFillScalar, aclnnInplaceZero, aclnnInplaceCopy and
aclnnInplaceThreshold against torch 1.13 (fill_, zero_, copy_, threshold), on every
instruction-set tier, every dtype the manifest lists (the unsigned and complex types of the
byte-moving operators too), strided / transposed / offset views (the elements outside the view
must stay untouched), broadcast sources, empty tensors, NaN and signed zeros and the argument
errors. Every result is exact: the tests assert bit equality (any NaN equal to any NaN).
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
import cannon
from cannon.array import DType
from cannon.ops import Scalar

SHAPE = (19, 27)
complex64 = DType("complex64", 16, np.complex64, None)
complex128 = DType("complex128", 17, np.complex128, None)
BYTE_DTYPES = H.DTYPE_ALL + ["uint16", "uint32", "uint64"]


def dtype_of(name):
    return {"complex64": complex64, "complex128": complex128}.get(name) or H.dt_obj(name)


def values(name, n, seed):
    rng = np.random.default_rng(seed)
    d = dtype_of(name)
    if name.startswith("complex"):
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(d.np)
    if name in ("uint16", "uint32", "uint64"):
        return rng.integers(0, np.iinfo(d.np).max, n, dtype=d.np, endpoint=True)
    s, _ = H.sample(name, (n,), seed)
    return s


def view_array(storage_vals, name, shape, layout, fill=0):
    """golden.array, and for the complex types (which the cannon package does not convert) the
    same view built from its storage bytes."""
    d = dtype_of(name)
    if not name.startswith("complex"):
        return golden.array(storage_vals.reshape(shape), d, layout=layout, fill=fill)
    a = golden.empty(shape, d, layout=layout)
    store = np.full(a.buffer.nbytes // d.itemsize, fill, d.np)
    np.lib.stride_tricks.as_strided(store[a.offset:], shape=shape, strides=[s * d.itemsize for s in a.strides])[...] = \
        storage_vals.reshape(shape)
    a.buffer.copy_from_host(store)
    return a


def view_values(a):
    """The elements of view @a, from its storage."""
    st = a.storage()
    return np.lib.stride_tricks.as_strided(st[a.offset:], shape=a.shape, strides=[s * st.itemsize for s in a.strides])


def untouched(before, after, inside):
    """Storage elements outside the view keep their values."""
    return np.array_equal(before[~inside], after[~inside])


def view_mask(a):
    """Which storage elements view @a covers."""
    st = a.storage()
    m = np.zeros(st.shape[0], bool)
    idx = np.zeros(a.shape, np.int64) + a.offset
    for d, (n, s) in enumerate(zip(a.shape, a.strides)):
        sh = [1] * len(a.shape)
        sh[d] = n
        idx = idx + (np.arange(n) * s).reshape(sh)
    m[idx.reshape(-1)] = True
    return m


@pytest.mark.parametrize("name", H.DTYPE_ALL + ["uint16", "complex64", "complex128"])
def test_zero(isa, name):
    for layout in H.layouts(SHAPE):
        v = values(name, int(np.prod(SHAPE)), 1)
        X = view_array(v, name, SHAPE, layout, fill=1)
        before = X.storage().copy()
        golden.call("aclnnInplaceZero", X)
        after = X.storage()
        inside = view_mask(X)
        assert not after[inside].view(np.uint8).any(), (name, layout)  # all-zero bytes: +0
        assert untouched(before, after, inside), (name, layout)


FILLS = {"float32": [Scalar(1.5), Scalar(-0.0), Scalar(float("nan")), Scalar(3, "int32"), Scalar(1e30, "float64")],
         "float16": [Scalar(0.1), Scalar(65504.0), Scalar(1e6), Scalar(-2, "int8"), Scalar(True)],
         "bfloat16": [Scalar(0.1), Scalar(-3.0e38, "float64"), Scalar(7, "int64")],
         "float64": [Scalar(0.1, "float64"), Scalar(float("-inf")), Scalar(2 ** 53 + 1, "int64")],
         "int8": [Scalar(-128, "int64"), Scalar(127, "int32"), Scalar(True)],
         "int16": [Scalar(-5)], "int32": [Scalar(2 ** 31 - 1)], "int64": [Scalar(-2 ** 63)],
         "uint8": [Scalar(255), Scalar(0, "int8")], "bool": [Scalar(True), Scalar(False)],
         "uint16": [Scalar(65535)], "uint32": [Scalar(2 ** 32 - 1)], "uint64": [Scalar(2 ** 62)]}


def torch_fill(name, n, sc):
    """The expected storage values of a fill of @n elements of @name with scalar @sc."""
    d = dtype_of(name)
    v = torch_scalar_value(sc)
    if name == "bfloat16":
        return golden.to_storage(torch.full((n,), float(v), dtype=torch.float64), "bfloat16")
    if name in ("uint16", "uint32", "uint64"):
        return np.full(n, v, dtype=d.np)
    t = torch.full((n,), v, dtype=torch.float64 if isinstance(v, float) else torch.int64)
    return golden.to_storage(t, name) if name != "bool" else np.full(n, bool(v))


def torch_scalar_value(sc):
    if sc.dtype.name == "bool":
        return bool(sc.value)
    if sc.dtype.np.kind in "iu":
        return int(sc.value)
    return float(np.float32(sc.value)) if sc.dtype.name == "float32" else float(sc.value)


@pytest.mark.parametrize("name", BYTE_DTYPES)
def test_fill_scalar(isa, name):
    n = int(np.prod(SHAPE))
    for k, sc in enumerate(FILLS[name]):
        layout = H.layouts(SHAPE)[k % 4]
        X = golden.array(values(name, n, k).reshape(SHAPE), dtype_of(name), layout=layout, fill=1)
        before = X.storage().copy()
        golden.call("aclnnInplaceFillScalar", X, sc)
        got = X.numpy(copy=True).reshape(-1)
        exp = torch_fill(name, n, sc)
        if name in ("float32", "float16", "float64"):
            assert np.array_equal(got, exp, equal_nan=True), (name, sc.value)
            assert np.array_equal(np.signbit(got), np.signbit(exp)), (name, sc.value)
        else:
            assert np.array_equal(got.view(np.uint8), exp.view(np.uint8)), (name, sc.value)
        assert untouched(before, X.storage(), view_mask(X)), (name, layout)


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_fill_scalar_complex(name):
    X = view_array(values(name, 40, 2), name, (5, 8), "transposed")
    golden.call("aclnnInplaceFillScalar", X, Scalar(2.5))
    assert np.array_equal(view_values(X), np.full((5, 8), 2.5 + 0j, dtype_of(name).np))


def test_fill_scalar_rejections():
    f = lambda dt: golden.empty((3,), dt)
    H.raises(161002, "cannot be cast", "aclnnInplaceFillScalar", f("int32"), Scalar(1.5))
    H.raises(161002, "cannot be cast", "aclnnInplaceFillScalar", f("bool"), Scalar(2))
    H.raises(161002, "does not fit", "aclnnInplaceFillScalar", f("int8"), Scalar(300))
    H.raises(161002, "does not fit", "aclnnInplaceFillScalar", f("uint8"), Scalar(-1))
    H.raises(161001, "value", "aclnnInplaceFillScalar", f("float32"), None)
    H.raises(161001, "selfRef", "aclnnInplaceFillScalar", None, Scalar(1.0))
    H.raises(161001, "selfRef", "aclnnInplaceZero", None)


COPY_PAIRS = [(d, d) for d in BYTE_DTYPES + ["complex64", "complex128"]] + [
    ("float32", "float16"), ("float16", "float32"), ("float32", "bfloat16"), ("bfloat16", "float16"),
    ("float64", "float32"), ("float32", "float64"), ("int32", "float32"), ("float32", "int32"), ("int64", "int8"),
    ("bool", "float16"), ("float16", "bool"), ("uint8", "int64"), ("float64", "int16"), ("int8", "bfloat16")]


def torch_cast(storage, src, dst):
    t = golden.from_storage(storage, src)
    if H.is_float(src) and not H.is_float(dst) and dst != "bool":
        t = torch.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0)  # only finite values in range are compared
    return golden.to_storage(t.to(golden.torch_dtype(dst)), dst)


@pytest.mark.parametrize("pair", COPY_PAIRS)
def test_copy(isa, pair):
    src, dst = pair
    n = int(np.prod(SHAPE))
    v = values(src, n, 3)
    if H.is_float(src) and not H.is_float(dst) and dst != "bool":  # finite, in dst's range
        v, _ = H.sample(src, (n,), 3, specials=False, lo=-100, hi=100)
    for k, (ls, ld) in enumerate((("contig", "contig"), ("transposed", "strided"), ("padded", "transposed"),
                                  ("strided", "padded"))):
        S = view_array(v, src, SHAPE, ls)
        D = view_array(values(dst, n, 4), dst, SHAPE, ld, fill=1)
        before = D.storage().copy()
        golden.call("aclnnInplaceCopy", D, S)
        got = np.ascontiguousarray(view_values(D)).reshape(-1)
        exp = v if src == dst else torch_cast(v, src, dst).reshape(-1)
        if src != dst and H.is_float(dst):  # NaN: any NaN (torch's bf16 NaN is 0xffff); else bit for bit
            g, e = golden.decode(got, dst), golden.decode(exp, dst)
            assert np.array_equal(g, e, equal_nan=True), (pair, ls, ld)
            assert np.array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(e[~np.isnan(e)])), (pair, ls, ld)
        else:
            assert np.array_equal(np.asarray(got).view(np.uint8), np.asarray(exp).view(np.uint8)), (pair, ls, ld)
        assert untouched(before, D.storage(), view_mask(D)), (pair, ld)


def test_copy_broadcast_and_overlap():
    row = np.arange(27, dtype=np.float32)
    D = golden.empty(SHAPE, "float32", layout="transposed")
    golden.call("aclnnInplaceCopy", D, golden.array(row))
    assert np.array_equal(D.numpy(copy=True), np.broadcast_to(row, SHAPE))
    col = np.arange(19, dtype=np.int64).reshape(19, 1)
    D = golden.empty(SHAPE, "float16")
    golden.call("aclnnInplaceCopy", D, golden.array(col))
    assert np.array_equal(H.read(D), np.broadcast_to(col, SHAPE).astype(np.float64))
    one = np.array(7.5, dtype=np.float64)  # a 0-d source
    golden.call("aclnnInplaceCopy", D, golden.array(one))
    assert (H.read(D) == 7.5).all()
    # a view copied onto itself
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    X = golden.array(x)
    golden.call("aclnnInplaceCopy", X, X)
    assert np.array_equal(X.numpy(copy=True), x)
    # NaN into an integer type gives 0 (as aclnnCast)
    D = golden.empty((3,), "int32")
    golden.call("aclnnInplaceCopy", D, golden.array(np.array([np.nan, 2.7, -2.7], np.float32)))
    assert H.read(D).tolist() == [0, 2, -2]


def test_copy_errors():
    f = lambda shape=(3,), dt="float32": golden.empty(shape, dt)
    H.raises(161001, "selfRef", "aclnnInplaceCopy", None, f())
    H.raises(161001, "src", "aclnnInplaceCopy", f(), None)
    H.raises(161002, "broadcast", "aclnnInplaceCopy", f(), f((4,)))
    H.raises(161002, "broadcast", "aclnnInplaceCopy", f((3,)), f((2, 3)))
    H.raises(161002, "cannot be copied", "aclnnInplaceCopy", f(), golden.empty((3,), complex64))
    H.raises(161002, "cannot be copied", "aclnnInplaceCopy", golden.empty((3,), complex128), f((3,), "float64"))


THR_DTYPES = ["float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dt", THR_DTYPES)
def test_threshold(isa, dt):
    kw = {} if H.is_float(dt) else {"lo": 0 if dt == "uint8" else -9, "hi": 9}
    s, x = H.sample(dt, SHAPE, 6, **kw)
    cases = ([(Scalar(0.0), Scalar(-1.0)), (Scalar(0.5), Scalar(float("nan"))), (Scalar(-0.0), Scalar(2, "int32")),
              (Scalar(1, "int64"), Scalar(0.25, "float16"))] if H.is_float(dt)
             else [(Scalar(2), Scalar(-1 if dt != "uint8" else 1)), (Scalar(0, "int8"), Scalar(5, "int16")),
                   (Scalar(1, "uint8"), Scalar(3))])
    t = golden.from_storage(s, dt)
    for k, (thr, val) in enumerate(cases):
        layout = H.layouts(SHAPE)[k % 4]
        X = golden.array(s, dt, layout=layout, fill=1)
        before = X.storage().copy()
        golden.call("aclnnInplaceThreshold", X, thr, val)
        if t.dtype == torch.float16:  # torch 1.13 has no CPU threshold for Half: in FLOAT (the scalars are exact)
            ref = torch.threshold(t.float(), torch_scalar_value(thr), torch_scalar_value(val)).half()
        else:
            ref = torch.threshold(t, torch_scalar_value(thr), torch_scalar_value(val))
        assert np.array_equal(H.read(X), ref.double().numpy(), equal_nan=True), (dt, thr.value, val.value, layout)
        assert untouched(before, X.storage(), view_mask(X)), (dt, layout)


def test_threshold_rules():
    x = np.array([np.nan, -0.0, 0.0, 1.0, -1.0], np.float32)
    X = golden.array(x)
    golden.call("aclnnInplaceThreshold", X, Scalar(0.0), Scalar(9.0))
    assert np.array_equal(H.read(X), [np.nan, 9.0, 9.0, 1.0, 9.0], equal_nan=True)  # NaN stays NaN
    xi = golden.array(np.array([1, 2, 3], np.int32))
    H.raises(161002, "cannot be cast", "aclnnInplaceThreshold", xi, Scalar(1.5), Scalar(0))
    H.raises(161002, "overflow", "aclnnInplaceThreshold", golden.array(np.array([1], np.int8)), Scalar(1), Scalar(999))
    H.raises(161001, "selfRef", "aclnnInplaceThreshold", None, Scalar(1.0), Scalar(0.0))
    H.raises(161001, "threshold", "aclnnInplaceThreshold", X, None, Scalar(0.0))
    H.raises(161001, "value", "aclnnInplaceThreshold", X, Scalar(1.0), None)
    H.raises(161002, "not supported", "aclnnInplaceThreshold", golden.empty((2,), "float64"), Scalar(1.0), Scalar(0.0))
    H.raises(161002, "not supported", "aclnnInplaceThreshold", golden.empty((2,), "bool"), Scalar(1), Scalar(0))
    # the scalars take selfRef's table too (no DOUBLE, no BOOL)
    H.raises(161002, "not supported", "aclnnInplaceThreshold", X, Scalar(1.0, "float64"), Scalar(0.0))
    H.raises(161002, "not supported", "aclnnInplaceThreshold", X, Scalar(1.0), Scalar(True))


def test_fill_copy_empty():
    for shape in H.EMPTY_SHAPES:
        e = lambda dt="float32": golden.empty(shape, dt)
        golden.call("aclnnInplaceZero", e())
        golden.call("aclnnInplaceFillScalar", e(), Scalar(1.0))
        golden.call("aclnnInplaceCopy", e(), e("float16"))
        golden.call("aclnnInplaceThreshold", e(), Scalar(0.0), Scalar(1.0))
