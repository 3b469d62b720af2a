"""Golden tests of the elementwise math operators: aclnnExp / InplaceExp, aclnnLog, aclnnSqrt,
aclnnSin / InplaceSin, aclnnCos / InplaceCos, aclnnTanh, aclnnSigmoid, aclnnSoftplus, aclnnAbs,
aclnnSign. Each against a float64 reference computed from the stored inputs (integral inputs
converted to FLOAT first, as the operators compute them), on every instruction-set tier, every
dtype its manifest entry lists, contiguous / strided / transposed / padded views, empty tensors,
special values (signed zeros, infinities, NaN, huge sin/cos arguments) and the argument errors.

Pass criteria (ew_helpers.check, relative to the float64 result rounded to the result type):
fp32 2^-20 relative (times 1 + the condition number where the operator rounds an intermediate:
Softplus's beta * self), fp16 2^-10, bf16 2^-7 (one ulp), fp64 2^-50; NaN and infinities exactly;
Abs and Sign exact, the sign of zero results as torch's.
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.ops import Scalar

SHAPE = (37, 129)


def sigmoid64(x):
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def softplus64(x, beta, thr):
    z = x * beta
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.logaddexp(0.0, z) / beta
    return np.where(z > thr, x, y)


# name -> (operator, float64 function, input dtypes, in-place operator, domain (lo, hi) or None)
REAL = golden.FLOATS + ["int8", "int16", "int32", "int64", "uint8", "bool"]
MATH = {
    "exp": ("aclnnExp", np.exp, golden.FLOATS + ["bool", "int64"], "aclnnInplaceExp", None),
    "log": ("aclnnLog", np.log, REAL, None, None),
    "sqrt": ("aclnnSqrt", np.sqrt, REAL, None, None),
    "sin": ("aclnnSin", np.sin, REAL, "aclnnInplaceSin", None),
    "cos": ("aclnnCos", np.cos, REAL, "aclnnInplaceCos", None),
    "tanh": ("aclnnTanh", np.tanh, ["float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
                                    "bool"], None, None),
    "sigmoid": ("aclnnSigmoid", sigmoid64, ["float32", "float16", "bfloat16"], None, None),
}
INPLACE_DTYPES = {"aclnnInplaceExp": golden.FLOATS, "aclnnInplaceSin": ["float32", "float16", "bfloat16"],
                  "aclnnInplaceCos": golden.FLOATS}


def compute_type(dt):
    return dt if H.is_float(dt) else "float32"


def special_inputs(dt):
    """Values on the hard paths: large and tiny magnitudes, overflow and underflow edges, large
    sin/cos arguments (beyond 2^24 the Payne-Hanek reduction), near multiples of pi/2."""
    if not H.is_float(dt):
        return None
    v = [1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5, 1.0, -1.0, 10.0, -10.0, 20.0, -20.0, 80.0, -80.0, 88.0, -88.0,
         100.0, -100.0, -104.0, 1e4, -1e4, 65504.0, 3.0e5, 1.6777216e7, 1.6777218e7, 1e8, 1e10, -1e15, 1e20,
         3.0e38, -3.0e38, 1.5707963267948966, 3.141592653589793, 6.283185307179586, 1e22, 1.7e38,
         2.0 ** -126, 2.0 ** -149, -(2.0 ** -140)]
    return np.array(v, dtype=np.float64)


def run_unary(name, X, out_dt, shape, layout):
    O = H.out_like(shape, out_dt, layout)
    golden.call(name, X, O)
    return H.read(O)


@pytest.mark.parametrize("op", list(MATH))
def test_math(isa, op):
    name, f, dts, _, _ = MATH[op]
    for dt in dts:
        ct = compute_type(dt)
        for k, layout in enumerate(H.layouts(SHAPE)):
            s, x = H.sample(dt, SHAPE, seed=k + 11, scale=4.0)
            X = golden.array(s, dt, layout=layout)
            ours = run_unary(name, X, ct, SHAPE, layout)
            xin = golden.rounded(x, ct)  # integral inputs computed as FLOAT
            with np.errstate(all="ignore"):
                ref = golden.rounded(f(xin), ct)
            H.check(ours, ref, ct, what=f"{op} {dt} {layout} {isa}", signed_zero=op in ("sqrt", "sin", "tanh"))
        sp = special_inputs(dt)
        if sp is not None:
            s, x = golden.quantize(sp, dt)
            ours = run_unary(name, golden.array(s, dt), ct, sp.shape, "contig")
            with np.errstate(all="ignore"):
                ref = golden.rounded(f(x), ct)
            H.check(ours, ref, ct, what=f"{op} {dt} specials {isa}", signed_zero=op in ("sqrt", "sin", "tanh"))


@pytest.mark.parametrize("op", ["exp", "sin", "cos", "log", "sqrt", "tanh", "sigmoid"])
def test_math_out_dtype_differs(op):
    """A 16-bit input into a FLOAT out: the result rounded to the input's type first (torch's
    type promotion), then widened; an integral input into a 16-bit out."""
    name, f, dts, _, _ = MATH[op]
    s, x = H.sample("float16", (300,), seed=5)
    ours = run_unary(name, golden.array(s, "float16"), "float32", (300,), "contig")
    with np.errstate(all="ignore"):
        ref = golden.rounded(f(x), "float16")
    H.check(ours, ref, "float16", what=op)
    if "int32" in dts:
        s, x = H.sample("int32", (300,), seed=6, lo=-50, hi=50)
        ours = run_unary(name, golden.array(s, "int32"), "bfloat16", (300,), "contig")
        with np.errstate(all="ignore"):
            ref = golden.rounded(golden.rounded(f(golden.rounded(x, "float32")), "float32"), "bfloat16")
        H.check(ours, ref, "bfloat16", what=op + " int32->bf16")


@pytest.mark.parametrize("name", list(INPLACE_DTYPES))
def test_math_in_place(isa, name):
    f = {"aclnnInplaceExp": np.exp, "aclnnInplaceSin": np.sin, "aclnnInplaceCos": np.cos}[name]
    for dt in INPLACE_DTYPES[name]:
        for layout in ("contig", "transposed"):
            s, x = H.sample(dt, SHAPE, seed=21)
            X = golden.array(s, dt, layout=layout)
            golden.call(name, X)
            with np.errstate(all="ignore"):
                ref = golden.rounded(f(x), dt)
            H.check(H.read(X), ref, dt, what=f"{name} {dt} {layout}")
    for shape in H.EMPTY_SHAPES:
        golden.call(name, golden.empty(shape, "float32"))


def test_sin_cos_large_arguments_all_tiers_agree(isa):
    """Every float32 exponent from 2^-10 to 2^127 (and their negatives), against float64 libm
    (exact range reduction): one rounding of an accurate result on every tier."""
    rng = np.random.default_rng(8)
    e = rng.integers(-10, 128, 4000)
    x = np.ldexp(rng.uniform(1, 2, 4000), e) * np.where(rng.random(4000) < 0.5, -1, 1)
    s, x = golden.quantize(x, "float32")
    for name, f in (("aclnnSin", np.sin), ("aclnnCos", np.cos)):
        ours = run_unary(name, golden.array(s, "float32"), "float32", x.shape, "contig")
        ref = golden.rounded(f(x), "float32")
        H.check(ours, ref, "float32", what=f"{name} {isa}")
        assert H.rel_err(ours, f(x)) < 2.0 ** -23, name


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_softplus(isa, dt):
    for beta, thr in ((1.0, 20.0), (2.0, 10.0), (0.5, 5.0), (-1.5, 3.0)):
        for k, layout in enumerate(H.layouts(SHAPE)):
            s, x = H.sample(dt, SHAPE, seed=31 + k, scale=8.0)
            O = H.out_like(SHAPE, dt, layout)
            golden.call("aclnnSoftplus", golden.array(s, dt, layout=layout), Scalar(beta), Scalar(thr), O)
            ref = softplus64(x, beta, thr)
            # z = beta * self is rounded in fp32: its error, amplified by the function's condition number
            with np.errstate(all="ignore"):
                c = np.nan_to_num(np.abs(x * beta * sigmoid64(x * beta) / (beta * ref)), nan=0.0, posinf=0.0)
            rtol = H.RTOL[dt] if dt != "float32" else H.RTOL[dt] * (1 + c)
            H.check(H.read(O), golden.rounded(ref, dt), dt, what=f"softplus {dt} {beta} {thr} {layout}", rtol=rtol)
    # float64 scalars and an integral one take the same values
    s, x = H.sample(dt, (64,), seed=3)
    O = golden.empty((64,), dt)
    golden.call("aclnnSoftplus", golden.array(s, dt), Scalar(2, "int32"), Scalar(20.0, "float64"), O)
    H.check(H.read(O), golden.rounded(softplus64(x, 2.0, 20.0), dt), dt, what="softplus scalars",
            rtol=None if dt != "float32" else 2.0 ** -18)


def abs_ref(x, dt):
    if dt == "bool":
        return x
    if H.is_float(dt):
        return np.abs(x)
    lo, hi = H.IRANGE[dt]
    return np.where(x == lo, lo, np.abs(x))  # |INT_MIN| wraps to INT_MIN


@pytest.mark.parametrize("op", ["abs", "sign"])
def test_abs_sign(isa, op):
    name = {"abs": "aclnnAbs", "sign": "aclnnSign"}[op]
    dts = H.DTYPE_ALL if op == "abs" else golden.FLOATS + ["int32", "int64", "bool"]
    for dt in dts:
        for k, layout in enumerate(H.layouts(SHAPE)):
            s, x = H.sample(dt, SHAPE, seed=41 + k)
            X = golden.array(s, dt, layout=layout)
            ours = run_unary(name, X, dt, SHAPE, layout)
            if op == "abs":
                ref = abs_ref(x, dt)
            else:  # torch.sign: 0 for +-0 and NaN (the (x > 0) - (x < 0) form), BOOL unchanged
                ref = x if dt == "bool" else (x > 0).astype(np.float64) - (x < 0)
                tref = torch.sign(golden.from_storage(s, dt)).double().numpy()
                assert np.array_equal(ref, tref), (dt, "the reference is torch.sign's")
            assert np.array_equal(ours, ref, equal_nan=True), (op, dt, layout)
            if H.is_float(dt):  # the sign bit of zeros and NaN payload aside, bit for bit
                assert np.array_equal(np.signbit(ours[ref == 0]), np.zeros(int((ref == 0).sum()), bool)), (op, dt)
        # in place (out is self)
        s, x = H.sample(dt, (50,), seed=7)
        X = golden.array(s, dt)
        golden.call(name, X, X)
        ref = abs_ref(x, dt) if op == "abs" else (x if dt == "bool" else (x > 0).astype(np.float64) - (x < 0))
        assert np.array_equal(H.read(X), ref, equal_nan=True), (op, dt, "in place")


@pytest.mark.parametrize("name", ["aclnnExp", "aclnnLog", "aclnnSqrt", "aclnnSin", "aclnnCos", "aclnnTanh",
                                  "aclnnSigmoid", "aclnnAbs", "aclnnSign", "aclnnSoftplus", "aclnnInplaceExp",
                                  "aclnnInplaceSin", "aclnnInplaceCos"])
def test_math_empty(name):
    for shape in H.EMPTY_SHAPES:
        X = golden.empty(shape, "float32")
        if name.startswith("aclnnInplace"):
            golden.call(name, X)
        elif name == "aclnnSoftplus":
            golden.call(name, X, Scalar(1.0), Scalar(20.0), golden.empty(shape, "float32"))
        else:
            golden.call(name, X, golden.empty(shape, "float32"))


def test_math_errors():
    f = lambda shape, dt="float32": golden.empty(shape, dt)
    for name in ("aclnnExp", "aclnnLog", "aclnnSqrt", "aclnnSin", "aclnnCos", "aclnnTanh", "aclnnSigmoid",
                 "aclnnAbs", "aclnnSign"):
        H.raises(161001, "self" if name != "aclnnCos" else "input", name, None, f((3,)))
        H.raises(161001, "NULL", name, f((3,)), None)
        H.raises(161002, "shape", name, f((3,)), f((4,)))
        H.raises(161002, "not supported", name, f((3,), "uint16"), f((3,)))
    # dtypes outside an operator's table
    H.raises(161002, "not supported", "aclnnExp", f((3,), "int32"), f((3,)))
    H.raises(161002, "not supported", "aclnnSigmoid", f((3,), "float64"), f((3,), "float64"))
    H.raises(161002, "not supported", "aclnnTanh", f((3,), "float64"), f((3,), "float64"))
    H.raises(161002, "not supported", "aclnnSign", f((3,), "int8"), f((3,), "int8"))
    # a floating result cannot go to an integral out; Abs / Sign keep self's dtype
    H.raises(161002, "not supported", "aclnnExp", f((3,)), f((3,), "int64"))
    H.raises(161002, "not supported", "aclnnLog", f((3,), "int32"), f((3,), "int32"))
    H.raises(161002, "dtype", "aclnnAbs", f((3,)), f((3,), "float16"))
    H.raises(161002, "dtype", "aclnnSign", f((3,), "int32"), f((3,), "int64"))
    # a FLOAT result does not narrow implicitly into... (any floating out is a legal cast)
    assert golden.status("aclnnSqrt", f((3,)), f((3,), "float16")) == 0
    H.raises(161001, "selfRef", "aclnnInplaceExp", None)
    H.raises(161001, "inputRef", "aclnnInplaceCos", None)
    H.raises(161002, "not supported", "aclnnInplaceSin", f((3,), "float64"))
    H.raises(161002, "not supported", "aclnnInplaceExp", f((3,), "int64"))
    H.raises(161001, "beta", "aclnnSoftplus", f((3,)), None, Scalar(20.0), f((3,)))
    H.raises(161001, "threshold", "aclnnSoftplus", f((3,)), Scalar(1.0), None, f((3,)))
    H.raises(161002, "shape", "aclnnSoftplus", f((3,)), Scalar(1.0), Scalar(20.0), f((2, 3)))
    H.raises(161002, "not supported", "aclnnSoftplus", f((3,), "float64"), Scalar(1.0), Scalar(20.0), f((3,)))
    # rank above 8
    H.raises(161002, "", "aclnnExp", f((1,) * 9), f((1,) * 9))


def test_math_deterministic_across_threads():
    script = (
        "import numpy as np, golden, hashlib\n"
        "x = np.random.default_rng(1).standard_normal(300000).astype(np.float32) * 30\n"
        "out = []\n"
        "for n in ('aclnnExp', 'aclnnSin', 'aclnnTanh', 'aclnnSigmoid', 'aclnnLog'):\n"
        "    O = golden.empty(x.shape, 'float32')\n"
        "    golden.call(n, golden.array(x), O)\n"
        "    out.append(hashlib.sha1(golden.read(O).tobytes()).hexdigest())\n"
        "print(' '.join(out))\n")
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=120)
    assert len(set(outs)) == 1, outs
