"""Golden tests of the unsigned types CANN's pages list beside torch's (UINT16, UINT32, UINT64) in
aclnnCast, aclnnEqTensor and aclnnGtScalar, against numpy (torch 1.13 has none of them), on every
instruction-set tier, with strided / transposed / padded views and empty tensors. Every result is
exact; the references state cannon's documented rules:

- Cast: integers to integers keep the low bits (two's complement); integers to a floating type
  round once from the integer's DOUBLE value (exact below 2^53; UINT64 beyond that is rounded to
  DOUBLE first); floats to integers truncate toward zero, NaN -> 0, saturate at the int64 range
  (UINT64: at 2^64 - 1) and then keep the low bits; anything to BOOL is (value != 0).
- EqTensor: UINT32 with an integral / BOOL type compares in INT64, with a floating type in DOUBLE
  (exact both); UINT64 only with UINT64.
- GtScalar: an unsigned self against an integral / BOOL scalar compares exactly (a UINT64 above
  INT64_MAX is greater than every scalar), against a floating scalar in DOUBLE.
"""
import numpy as np
import pytest

import golden
import ew_helpers as H
from cannon.ops import Scalar

UNSIGNED = ["uint16", "uint32", "uint64"]
NP = {"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "int8": np.int8, "int16": np.int16,
      "int32": np.int32, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_, "float32": np.float32,
      "float64": np.float64, "float16": np.float16}
SHAPE = (9, 14)


def uvalues(dt, seed, n=int(np.prod(SHAPE))):
    """@n values of unsigned @dt: the edges (0, 1, powers of two and their neighbours, the maximum)
    then random ones over the whole range."""
    bits = np.iinfo(NP[dt]).bits
    edges = [0, 1, 2, 255, 256, 65535]
    edges += [x for e in range(15, bits) for x in ((1 << e) - 1, 1 << e, (1 << e) + 1)]
    edges = [x for x in edges + [(1 << bits) - 1, (1 << bits) - 2] if x < (1 << bits)]
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, np.iinfo(NP[dt]).max, size=n, dtype=NP[dt], endpoint=True)
    v = np.array(edges[:n], dtype=NP[dt])
    return np.concatenate([v, rand[v.size:]]).reshape(SHAPE)


def f64_to_bf16_bits(d):
    """Correctly rounded bfloat16 bits of float64 @d: rounded to float32 to odd, then to nearest even."""
    d = np.asarray(d, np.float64)
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    back = f.astype(np.float64)
    inexact = (back != d) & ~np.isnan(d)
    f = np.where(inexact & (np.abs(back) > np.abs(d)), np.nextafter(f, np.float32(0)), f).astype(np.float32)
    b = f.view(np.uint32) | inexact.astype(np.uint32)
    r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return np.where(np.isnan(d), 0x7FC0, r).astype(np.uint16)


def cast_ref(x, src, dst):
    """The storage array aclnnCast writes for @x (storage of @src) cast to @dst."""
    if dst == "bool":
        return x != 0
    if dst in ("float32", "float16", "float64", "bfloat16"):
        d = x.astype(np.float64) if src != "bfloat16" else golden.decode(x, golden.dtype("bfloat16"))
        if dst == "bfloat16":
            return f64_to_bf16_bits(d)
        with np.errstate(over="ignore"):
            return d.astype(NP[dst])
    if src in ("float32", "float16", "float64", "bfloat16"):
        d = x.astype(np.float64) if src != "bfloat16" else golden.decode(x, golden.dtype("bfloat16"))
        bits = np.iinfo(NP[dst]).bits
        out = []
        for v in d.reshape(-1):
            if np.isnan(v):
                r = 0
            elif dst == "uint64" and v >= 2.0 ** 63:
                r = 2 ** 64 - 1 if v >= 2.0 ** 64 else int(v)
            else:
                r = -2 ** 63 if v <= -2.0 ** 63 else 2 ** 63 - 1 if v >= 2.0 ** 63 else int(v)  # int() truncates
            r %= 1 << bits  # the low bits
            if dst.startswith("int") and r >= 1 << (bits - 1):
                r -= 1 << bits
            out.append(r)
        return np.array(out, dtype=object).astype(NP[dst]).reshape(x.shape)
    # integer to integer: the low bits
    return x.astype(NP[dst])


def run_cast(x, src, dst, layout="contig"):
    X = golden.array(x, src, layout=layout)
    O = golden.empty(x.shape, dst, layout=layout, fill=3)
    golden.call("aclnnCast", X, dst, O)
    return golden.read(O)


ALL_DST = ["uint16", "uint32", "uint64", "uint8", "int8", "int16", "int32", "int64", "bool", "float16",
           "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("src", UNSIGNED)
def test_cast_from_unsigned(isa, src):
    x = uvalues(src, seed=1)
    for k, dst in enumerate(ALL_DST):
        layout = H.layouts(SHAPE)[k % 4]
        got = run_cast(x, src, dst, layout)
        ref = cast_ref(x, src, dst)
        assert np.array_equal(got.astype(np.float64) if dst == "bool" else got,
                              ref.astype(np.float64) if dst == "bool" else ref), (src, dst, layout)


@pytest.mark.parametrize("dst", UNSIGNED)
def test_cast_to_unsigned(isa, dst):
    rng = np.random.default_rng(2)
    for k, src in enumerate(["uint16", "uint32", "uint64", "uint8", "int8", "int16", "int32", "int64", "bool"]):
        info = np.iinfo(NP[src]) if src != "bool" else None
        x = (rng.integers(0, 2, size=SHAPE).astype(np.bool_) if src == "bool" else
             rng.integers(info.min, info.max, size=SHAPE, dtype=NP[src], endpoint=True))
        if src != "bool":
            x.reshape(-1)[:3] = [info.min, info.max, 0]
        got = run_cast(x, src, dst, H.layouts(SHAPE)[k % 4])
        assert np.array_equal(got, cast_ref(x, src, dst)), (src, dst)
    # from the floating types: truncation, NaN -> 0, saturation, the unsigned range of UINT64
    f = np.array([0.0, -0.0, 0.7, 1.5, -1.5, 255.9, 65535.0, 65536.5, 4294967295.0, 4294967296.0, 2.0 ** 53,
                  2.0 ** 63, 1.5 * 2.0 ** 63, 2.0 ** 64, 1e300, -1e300, np.inf, -np.inf, np.nan, -7.25])
    for src in ("float64", "float32", "float16", "bfloat16"):
        with np.errstate(over="ignore", invalid="ignore"):
            xs = f if src == "float64" else f.astype(np.float32) if src in ("float32", "bfloat16") else f.astype(
                np.float16)
        x_st = golden.storage_of(xs, golden.dtype(src)) if src == "bfloat16" else xs  # bf16: its bit patterns
        got = run_cast(x_st, src, dst)
        assert np.array_equal(got, cast_ref(x_st, src, dst)), (src, dst, got, cast_ref(x_st, src, dst))


def test_cast_unsigned_empty_and_errors():
    for dt in UNSIGNED:
        for shape in H.EMPTY_SHAPES:
            golden.call("aclnnCast", golden.empty(shape, dt), "float32", golden.empty(shape, "float32"))
    H.raises(161002, "differs from out dtype", "aclnnCast", golden.empty((3,), "uint32"), "uint64",
             golden.empty((3,), "uint32"))


def eq_ref(a, b):
    if a.dtype == np.uint64 or b.dtype == np.uint64:
        return a == b
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return a.astype(np.float64) == b.astype(np.float64)
    return a.astype(np.int64) == b.astype(np.int64)


@pytest.mark.parametrize("pair", [("uint32", "uint32"), ("uint64", "uint64"), ("uint32", "int64"),
                                  ("int8", "uint32"), ("uint32", "bool"), ("uint32", "float32"),
                                  ("float64", "uint32"), ("uint32", "float16")])
def test_eq_tensor_unsigned(isa, pair):
    ta, tb = pair
    rng = np.random.default_rng(3)

    def vals(dt, shape):
        if dt in UNSIGNED:
            v = uvalues(dt, 4)[:shape[0], :shape[1]] if shape[0] > 1 else uvalues(dt, 4)[:1, :shape[1]]
            return np.ascontiguousarray(v)
        if dt == "bool":
            return rng.integers(0, 2, size=shape).astype(np.bool_)
        if dt.startswith("float"):
            return rng.integers(0, 5, size=shape).astype(NP[dt])
        return rng.integers(0, 5, size=shape).astype(NP[dt])

    a = vals(ta, SHAPE)
    b = np.array(a[:1, :], copy=True).astype(NP[tb]) if tb in UNSIGNED or ta == tb else vals(tb, (1, SHAPE[1]))
    if tb not in UNSIGNED and ta in UNSIGNED:  # make some elements equal
        b[0, ::2] = (a[0, ::2] % 4).astype(NP[tb])
        a[1, ::3] = b[0, ::3].astype(NP[ta]) if tb != "bool" else a[1, ::3]
    if ta not in UNSIGNED and tb in UNSIGNED:
        b = np.ascontiguousarray(uvalues(tb, 5)[:1, :])
        b[0, ::2] = a[0, ::2].astype(NP[tb]) if ta != "bool" else b[0, ::2]
    for k, out_dt in enumerate(["bool", "uint16", "uint64", "float32"]):
        layout = H.layouts(SHAPE)[k % 4]
        O = golden.empty(SHAPE, out_dt, layout=layout, fill=7)
        golden.call("aclnnEqTensor", golden.array(a, ta, layout=layout), golden.array(b, tb), O)
        ref = eq_ref(a, b)
        assert np.array_equal(golden.read(O).astype(np.float64), ref.astype(np.float64)), (pair, out_dt)
    # a UINT64 above INT64_MAX equals only itself
    if pair == ("uint64", "uint64"):
        x = np.array([2 ** 64 - 1, 2 ** 63, 2 ** 63 - 1, 0], np.uint64)
        y = np.array([2 ** 64 - 1, 2 ** 63 + 1, 2 ** 63 - 1, 2 ** 63], np.uint64)
        O = golden.empty((4,), "bool")
        golden.call("aclnnEqTensor", golden.array(x, "uint64"), golden.array(y, "uint64"), O)
        assert golden.read(O).tolist() == [True, False, True, False]


def test_eq_tensor_unsigned_errors():
    f = lambda dt: golden.empty((3,), dt)
    for a, b in (("uint64", "int64"), ("uint64", "uint32"), ("float32", "uint64"), ("uint64", "bool")):
        H.raises(161002, "do not compare", "aclnnEqTensor", f(a), f(b), f("bool"))
    H.raises(161002, "uint16", "aclnnEqTensor", f("uint16"), f("uint16"), f("bool"))


GT_SCALARS = [Scalar(0), Scalar(3), Scalar(-2), Scalar(2 ** 40), Scalar(0.5), Scalar(-1.25, "float64"),
              Scalar(65535.5, "float64"), Scalar(True), Scalar(100, "int8"), Scalar(2 ** 62)]


def gt_ref(x, sc):
    if sc.dtype.name in ("float32", "float16", "bfloat16", "float64"):
        v = float(np.float32(sc.value)) if sc.dtype.name == "float32" else float(sc.value)
        return x.astype(np.float64) > v
    v = int(bool(sc.value)) if sc.dtype.name == "bool" else int(sc.value)
    return np.array([int(e) > v for e in x.reshape(-1)]).reshape(x.shape)


@pytest.mark.parametrize("dt", UNSIGNED)
def test_gt_scalar_unsigned(isa, dt):
    x = uvalues(dt, seed=6)
    for k, sc in enumerate(GT_SCALARS):
        for out_dt in ("bool", "uint32", "float32") if k < 2 else ("bool",):
            layout = H.layouts(SHAPE)[k % 4]
            O = golden.empty(SHAPE, out_dt, layout=layout, fill=7)
            golden.call("aclnnGtScalar", golden.array(x, dt, layout=layout), sc, O)
            assert np.array_equal(golden.read(O).astype(np.float64), gt_ref(x, sc).astype(np.float64)), \
                (dt, sc.value, sc.dtype.name, out_dt)
    for shape in H.EMPTY_SHAPES:
        golden.call("aclnnGtScalar", golden.empty(shape, dt), Scalar(1), golden.empty(shape, "bool"))


def test_gt_scalar_uint64_above_int64():
    x = np.array([2 ** 64 - 1, 2 ** 63, 2 ** 63 - 1, 5, 0], np.uint64)
    for sc, ref in ((Scalar(2 ** 63 - 1), [1, 1, 0, 0, 0]), (Scalar(-1), [1, 1, 1, 1, 1]),
                    (Scalar(4), [1, 1, 1, 1, 0])):
        O = golden.empty((5,), "bool")
        golden.call("aclnnGtScalar", golden.array(x, "uint64"), sc, O)
        assert golden.read(O).astype(int).tolist() == ref, sc.value
