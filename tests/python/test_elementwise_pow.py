"""Golden tests of aclnnPowScalarTensor (out = self ** exponent, self a scalar) and
aclnnInplacePowTensorTensor (self = self ** exponent, exponent broadcast) against float64 pow on
the stored inputs and torch 1.13's type promotion, on every instruction-set tier, every dtype the
manifest lists, strided / transposed views, empty tensors, special values (0, 1, -1, NaN, inf
bases and exponents, negative bases with fractional exponents) and the argument errors.

Pass criteria: floating results within one ulp of the float64 power rounded to the result type
(fp32 2^-20 relative asserted, fp16 2^-10, bf16 2^-7, fp64 2^-50), NaN and infinities exactly;
integral results exact, wrapping as torch's (a negative exponent gives 0 except for the bases 1
and -1).
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.ops import Scalar

SHAPE = (17, 31)
FLOATS = golden.FLOATS
INTS = ["int8", "int16", "int32", "int64", "uint8"]


def ipow(b, e, dt):
    """b ** e in the wrapping arithmetic of integral type @dt."""
    bits = np.dtype(golden.dtype(dt).np).itemsize * 8
    if e < 0:
        return 1 if b == 1 else ((-1 if e & 1 else 1) if b == -1 else 0)
    r = pow(int(b), int(e), 1 << bits)
    lo, hi = H.IRANGE[dt]
    return r - (1 << bits) if r > hi else r


def fpow(b, e):
    with np.errstate(all="ignore"):
        return np.power(np.float64(b), e)


@pytest.mark.parametrize("dt", FLOATS + INTS)
def test_pow_scalar_tensor(isa, dt):
    if H.is_float(dt):
        s, e = H.sample(dt, SHAPE, 1, scale=3.0)
        bases = [Scalar(2.0), Scalar(0.5), Scalar(-2.0), Scalar(0.0), Scalar(1.0), Scalar(float("nan")),
                 Scalar(3, "int64"), Scalar(1.0625, "float64")]
    else:
        s, e = H.sample(dt, SHAPE, 1, lo=0 if dt == "uint8" else -4, hi=40)
        bases = [Scalar(2), Scalar(-3), Scalar(1), Scalar(-1), Scalar(0), Scalar(7, "int8")]
    for k, b in enumerate(bases):
        layout = H.layouts(SHAPE)[k % 4]
        O = H.out_like(SHAPE, dt, layout)
        golden.call("aclnnPowScalarTensor", b, golden.array(s, dt, layout=layout), O)
        ours = H.read(O)
        if H.is_float(dt):
            bv = golden.rounded(np.float64(np.float32(b.value)) if b.dtype.name == "float32" else float(b.value), dt)
            ref = golden.rounded(fpow(bv, e), dt)
            H.check(ours, ref, dt, what=f"pow({b.value}, {dt}) {layout} {isa}")
        else:
            bv = int(b.value)
            lo, hi = H.IRANGE[dt]
            bits = np.dtype(golden.dtype(dt).np).itemsize * 8
            bw = ((bv - lo) % (1 << bits)) + lo  # the base converted (wrapped) to the exponent's type
            ref = np.array([ipow(bw, int(v), dt) for v in e.reshape(-1)], np.float64).reshape(SHAPE)
            assert np.array_equal(ours, ref), (dt, bv, layout)


def test_pow_scalar_tensor_promotion():
    """A float base with an integral exponent computes in FLOAT (the scalar raises the category);
    the ALiBi form (FLOAT base, FLOAT exponents 1..n)."""
    e = np.arange(-5, 20, dtype=np.int32)
    O = golden.empty(e.shape, "float32")
    golden.call("aclnnPowScalarTensor", Scalar(0.5), golden.array(e), O)
    ref = torch.pow(0.5, torch.from_numpy(e)).double().numpy()
    assert np.array_equal(H.read(O), ref)
    H.raises(161002, "cannot be cast", "aclnnPowScalarTensor", Scalar(0.5), golden.array(e), golden.empty(e.shape, "int32"))
    ef = np.arange(1, 33, dtype=np.float32)
    O = golden.empty(ef.shape, "float32")
    m0 = np.float32(2.0 ** (-8.0 / 32))
    golden.call("aclnnPowScalarTensor", Scalar(float(m0)), golden.array(ef), O)
    H.check(H.read(O), golden.rounded(np.power(np.float64(m0), ef.astype(np.float64)), "float32"), "float32")
    # a 16-bit exponent with a double-typed base: computed in the exponent's type, base rounded to it
    eh = np.linspace(-3, 3, 25).astype(np.float16)
    O = golden.empty(eh.shape, "float16")
    golden.call("aclnnPowScalarTensor", Scalar(1.1, "float64"), golden.array(eh), O)
    H.check(H.read(O), golden.rounded(fpow(golden.rounded(1.1, "float16"), eh.astype(np.float64)), "float16"),
            "float16")


def test_pow_special_values():
    specials = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 3.0, -3.0])
    bs, es = np.meshgrid(specials, specials, indexing="ij")
    for dt in ("float32", "float64"):
        B = golden.array(bs.astype(golden.dtype(dt).np), dt)
        golden.call("aclnnInplacePowTensorTensor", B, golden.array(es.astype(golden.dtype(dt).np), dt))
        ref = golden.rounded(fpow(bs, es), dt)  # C's pow: pow(x, 0) = 1 and pow(1, y) = 1 even for NaN
        H.check(H.read(B), ref, dt, what=f"specials {dt}", signed_zero=True)
        tt = golden.torch_dtype(dt)
        H.check(H.read(B), torch.pow(torch.from_numpy(bs).to(tt), torch.from_numpy(es).to(tt)).double().numpy(), dt,
                what=f"specials {dt} vs torch", signed_zero=True)


@pytest.mark.parametrize("pair", [(d, d) for d in FLOATS + INTS] +
                         [("float32", "float16"), ("float16", "bfloat16"), ("float32", "int32"), ("float64", "float32"),
                          ("int64", "int8"), ("float16", "uint8")])
def test_inplace_pow_tensor_tensor(isa, pair):
    sdt, edt = pair
    if H.is_float(sdt):
        sb, b = H.sample(sdt, SHAPE, 2, scale=2.0)
    else:
        sb, b = H.sample(sdt, SHAPE, 2, lo=0 if sdt == "uint8" else -5, hi=5)
    if H.is_float(edt):
        se, e = H.sample(edt, SHAPE, 3, scale=3.0)
    else:
        se, e = H.sample(edt, SHAPE, 3, lo=0 if edt == "uint8" else -3, hi=30)
    ct = golden.dtype(torch_promote(sdt, edt)).name
    for k, layout in enumerate(H.layouts(SHAPE)):
        X = golden.array(sb, sdt, layout=layout, fill=1)
        golden.call("aclnnInplacePowTensorTensor", X, golden.array(se, edt, layout=H.layouts(SHAPE)[3 - k]))
        ours = H.read(X)
        if H.is_float(ct):
            ref = golden.rounded(golden.rounded(fpow(golden.rounded(b, ct), golden.rounded(e, ct)), ct), sdt)
            H.check(ours, ref, ct, what=f"pow_ {pair} {layout} {isa}")
        else:
            ref = np.array([ipow(int(x), int(y), ct) for x, y in zip(b.reshape(-1), e.reshape(-1))],
                           np.float64).reshape(SHAPE)
            ref = golden.rounded(ref, sdt)  # the result cast back to self's type (wraps)
            tref = torch.pow(golden.from_storage(sb, sdt), golden.from_storage(se, edt).clamp(min=0)
                             if edt != "uint8" else golden.from_storage(se, edt))
            nonneg = e >= 0
            assert np.array_equal(ours, ref), (pair, layout)
            assert np.array_equal(ours[nonneg], tref.to(golden.torch_dtype(sdt)).double().numpy()[nonneg]), pair


def torch_promote(a, b):
    return {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
            torch.float64: "float64", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
            torch.int64: "int64", torch.uint8: "uint8"}[torch.promote_types(golden.torch_dtype(a),
                                                                            golden.torch_dtype(b))]


def test_pow_broadcast_and_empty():
    b = np.random.default_rng(4).uniform(0.5, 2, (6, 7)).astype(np.float32)
    e = np.linspace(-2, 2, 7).astype(np.float32)
    X = golden.array(b)
    golden.call("aclnnInplacePowTensorTensor", X, golden.array(e))
    H.check(H.read(X), golden.rounded(np.power(b.astype(np.float64), e.astype(np.float64)), "float32"), "float32")
    for shape in H.EMPTY_SHAPES:
        golden.call("aclnnInplacePowTensorTensor", golden.empty(shape, "float32"), golden.empty(shape, "float32"))
        golden.call("aclnnPowScalarTensor", Scalar(2.0), golden.empty(shape, "float32"), golden.empty(shape, "float32"))


def test_pow_errors():
    f = lambda shape=(3,), dt="float32": golden.empty(shape, dt)
    H.raises(161001, "self", "aclnnPowScalarTensor", None, f(), f())
    H.raises(161001, "exponent", "aclnnPowScalarTensor", Scalar(2.0), None, f())
    H.raises(161001, "out", "aclnnPowScalarTensor", Scalar(2.0), f(), None)
    H.raises(161002, "shape", "aclnnPowScalarTensor", Scalar(2.0), f(), f((4,)))
    H.raises(161002, "not supported", "aclnnPowScalarTensor", Scalar(2.0), f((3,), "bool"), f())
    H.raises(161002, "not supported", "aclnnPowScalarTensor", Scalar(True), f(), f())
    H.raises(161001, "self", "aclnnInplacePowTensorTensor", None, f())
    H.raises(161001, "exponent", "aclnnInplacePowTensorTensor", f(), None)
    H.raises(161002, "cannot be cast", "aclnnInplacePowTensorTensor", f((3,), "int32"), f())
    H.raises(161002, "shape", "aclnnInplacePowTensorTensor", f((3,)), f((2, 3)))
    H.raises(161002, "not supported", "aclnnInplacePowTensorTensor", f((3,), "bool"), f((3,), "bool"))
