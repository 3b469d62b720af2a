"""Golden tests of aclnnAddcdiv and aclnnInplaceAddcdiv (out = self + value * tensor1 / tensor2)
against a float64 reference on the stored input values (and torch's addcdiv for the specials), on
every instruction-set tier, every dtype of CANN's page (FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64),
mixed dtypes (torch's promotion), broadcasting, strided / transposed / offset views, the in-place
form, empty tensors and the argument errors.

Bounds, relative to the float64 result r of the stored inputs s, a, b and value v: fp32 and the
16-bit types compute in fp32, so |ours - r| <= e16 |r| + 2^-22 (|s| + |v a / b|) with e16 the
result type's rounding (2^-24 for fp32, 2^-11 fp16, 2^-8 bf16); DOUBLE the same with 2^-52 / 2^-51.
INT64 is exact (truncating quotient).
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.ops import Scalar

FLOATS = ["float32", "float16", "bfloat16", "float64"]
DTS = FLOATS + ["int64"]
HALF_ULP = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float64": 2.0 ** -53}
INVALID, NULLPTR = golden.PARAM_INVALID, golden.PARAM_NULLPTR


def operands(dt, shapes, seed):
    """(storage, values) of self, tensor1 and tensor2 (tensor2 kept away from 0)."""
    rng = np.random.default_rng(seed)
    if dt == "int64":
        s = rng.integers(-1000, 1000, shapes[0], endpoint=True)
        a = rng.integers(-1000, 1000, shapes[1], endpoint=True)
        b = rng.integers(1, 9, shapes[2], endpoint=True) * rng.choice([-1, 1], shapes[2])
        return [golden.quantize(x, dt) for x in (s, a, b)]
    s = rng.standard_normal(shapes[0]) * 3
    a = rng.standard_normal(shapes[1]) * 3
    b = rng.uniform(0.25, 4.0, shapes[2]) * rng.choice([-1, 1], shapes[2])
    return [golden.quantize(x, dt) for x in (s, a, b)]


def reference(sv, av, bv, v, ct):
    if ct == "int64":
        q = np.trunc(av / bv)
        return sv + v * q, None
    with np.errstate(all="ignore"):
        t = v * (av / bv)
        return sv + t, np.abs(sv) + np.abs(t)


def check(ours, ref, scale, ct, out_dt, what):
    if ct == "int64" and not H.is_float(out_dt):
        assert np.array_equal(ours, ref), what
        return
    e = 2.0 ** -51 if ct == "float64" else 2.0 ** -22
    half = max(HALF_ULP.get(ct, 0), HALF_ULP.get(out_dt, 0))
    bound = half * np.abs(ref) + (e * scale if scale is not None else 0) + 1e-300
    err = np.abs(ours - ref)
    assert (err <= bound).all(), f"{what}: worst {np.max(err - bound)} at {np.argmax(err - bound)}"


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("shapes", [((7, 33), (7, 33), (7, 33)), ((5, 1, 9), (4, 1), (1, 9)), ((), (3,), (2, 1))])
def test_addcdiv(isa, dt, shapes):
    (s, sv), (a, av), (b, bv) = operands(dt, shapes, 1)
    v = 3 if dt == "int64" else -1.75
    ref, scale = reference(sv, av, bv, v, dt)
    for lay in (["contig", "strided", "transposed"] if len(ref.shape) >= 2 else ["contig", "strided"]):
        out = H.out_like(ref.shape, dt, lay)
        golden.call("aclnnAddcdiv", golden.array(s, dt, layout=lay), golden.array(a, dt, layout="strided"),
                    golden.array(b, dt, layout=lay), Scalar(v), out)
        check(H.read(out), ref, scale, dt, dt, f"{dt} {shapes} {lay}")


@pytest.mark.parametrize("dt", DTS)
def test_inplace_addcdiv(isa, dt):
    (s, sv), (a, av), (b, bv) = operands(dt, [(6, 40), (40,), (6, 1)], 2)
    v = -2 if dt == "int64" else 0.5
    ref, scale = reference(sv, av, bv, v, dt)
    for lay in ("contig", "padded", "transposed"):
        x = golden.array(s, dt, layout=lay)
        golden.call("aclnnInplaceAddcdiv", x, golden.array(a, dt), golden.array(b, dt, layout="strided"), Scalar(v))
        check(H.read(x), ref, scale, dt, dt, f"{dt} {lay}")


@pytest.mark.parametrize("dts", [("float16", "float32", "float16", "float32"),
                                 ("bfloat16", "float16", "bfloat16", "float32"),
                                 ("int64", "float16", "float16", "float16"), ("int64", "int64", "float32", "float64"),
                                 ("float64", "float32", "bfloat16", "float64"), ("int64", "int64", "int64", "float32")])
def test_addcdiv_promotion(isa, dts):
    """Mixed dtypes compute in torch's promoted type (an input of another dtype rounded to it first),
    then cast to out."""
    ds, da, db, do = dts
    tds = [golden.torch_dtype(d) for d in (ds, da, db)]
    ct = str(torch.promote_types(torch.promote_types(tds[0], tds[1]), tds[2])).replace("torch.", "")
    (s, sv), _, _ = operands(ds, [(4, 17)] * 3, 3)
    _, (a, av), _ = operands(da, [(4, 17)] * 3, 4)
    _, _, (b, bv) = operands(db, [(4, 17)] * 3, 5)
    sv, av, bv = (golden.rounded(x, ct) for x in (sv, av, bv))
    v = 2 if ct == "int64" else 0.75
    ref, scale = reference(sv, av, bv, v, ct)
    if ct != "float64" and ct != "int64":
        ref = golden.rounded(ref, ct)  # computed in the promoted type, then cast
    out = golden.empty((4, 17), do)
    golden.call("aclnnAddcdiv", golden.array(s, ds), golden.array(a, da), golden.array(b, db), Scalar(v), out)
    check(H.read(out), ref, scale, ct, do, str(dts))


def test_addcdiv_specials(isa):
    """Division by zero, infinities and NaN as torch gives them (fp32)."""
    s = np.array([1, 2, -3, np.nan, 0, np.inf, 5, 1], np.float32)
    a = np.array([1, 0, 2, 1, np.inf, 1, -1, 0], np.float32)
    b = np.array([0, 0, -0.0, 1, 2, 1, np.inf, 3], np.float32)
    ref = torch.addcdiv(torch.from_numpy(s), torch.from_numpy(a), torch.from_numpy(b), value=2.0).numpy()
    out = golden.empty((8,), "float32")
    golden.call("aclnnAddcdiv", golden.array(s), golden.array(a), golden.array(b), Scalar(2.0), out)
    got = golden.read(out)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    m = ~np.isnan(ref)
    assert np.array_equal(got[m], ref[m])


def test_addcdiv_int_zero_divisor():
    s = np.array([5, -7, 9], np.int64)
    a = np.array([3, 4, -9], np.int64)
    b = np.array([0, -3, 2], np.int64)
    out = golden.empty((3,), "int64")
    golden.call("aclnnAddcdiv", golden.array(s), golden.array(a), golden.array(b), Scalar(2), out)
    assert golden.read(out).tolist() == [5, -7 + 2 * -1, 9 + 2 * -4]


def test_addcdiv_empty():
    for shape in H.EMPTY_SHAPES:
        z = golden.array(np.zeros(shape, np.float32))
        out = golden.empty(shape, "float32")
        golden.call("aclnnAddcdiv", z, z, golden.array(np.ones((1,), np.float32)), Scalar(1.0), out)
        golden.call("aclnnInplaceAddcdiv", z, z, z, Scalar(1.0))


def test_addcdiv_errors():
    f = golden.array(np.ones((2, 3), np.float32))
    out = golden.empty((2, 3), "float32")
    for k in range(5):
        args = [f, f, f, Scalar(1.0), out]
        args[k] = None
        assert golden.phase1_status("aclnnAddcdiv", *args) == NULLPTR
    assert golden.phase1_status("aclnnInplaceAddcdiv", f, None, f, Scalar(1.0)) == NULLPTR
    i32 = golden.array(np.ones((2, 3), np.int32))
    H.raises(INVALID, "INT32", "aclnnAddcdiv", i32, f, f, Scalar(1.0), out)
    i64 = golden.array(np.ones((2, 3), np.int64))
    H.raises(INVALID, "cannot be cast", "aclnnAddcdiv", i64, i64, i64, Scalar(1.5), golden.empty((2, 3), "int64"))
    H.raises(INVALID, "cannot be cast", "aclnnAddcdiv", f, f, f, Scalar(1.0), golden.empty((2, 3), "int64"))
    H.raises(INVALID, "broadcast", "aclnnAddcdiv", f, golden.array(np.ones((4,), np.float32)), f, Scalar(1.0), out)
    H.raises(INVALID, "broadcast shape", "aclnnAddcdiv", f, f, f, Scalar(1.0), golden.empty((3, 2), "float32"))
    H.raises(INVALID, "broadcast shape", "aclnnInplaceAddcdiv", golden.array(np.ones((3,), np.float32)), f, f,
             Scalar(1.0))
    H.raises(INVALID, "cannot be cast", "aclnnInplaceAddcdiv", i64, f, f, Scalar(1.0))
    big = golden.array(np.ones((1,) * 9, np.float32))
    assert golden.phase1_status("aclnnAddcdiv", big, f, f, Scalar(1.0), out) == INVALID


def test_multi_operand_thread_invariance():
    """Addcdiv, Ger and Sum (the multi-operand walk) give the same bits for 1, 3 and 8 workers, over
    several blocks and broadcast, strided operands."""
    script = """
import hashlib, numpy as np, golden
from cannon.ops import Scalar
rng = np.random.default_rng(3)
s = rng.standard_normal((70, 1500)).astype(np.float32)
a = rng.standard_normal((1500,)).astype(np.float16)
b = rng.uniform(1, 2, (70, 1)).astype(np.float32)
o1 = golden.empty((70, 1500), "float32")
golden.call("aclnnAddcdiv", golden.array(s, layout="transposed"), golden.array(a), golden.array(b), Scalar(0.3), o1)
o2 = golden.empty((300, 400), "bfloat16")
golden.call("aclnnGer", golden.array(rng.standard_normal(300).astype(np.float32), "bfloat16"),
            golden.array(rng.standard_normal(400).astype(np.float32), "bfloat16", layout="strided"), o2)
o3 = golden.empty((70, 1500), "float16")
xs = [golden.array(rng.standard_normal(sh).astype(np.float16)) for sh in ((70, 1500), (1500,), (70, 1))]
golden.call("aclnnSum", xs, o3)
print(hashlib.sha256(b"".join(golden.read(o).tobytes() for o in (o1, o2, o3))).hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=120)
    assert len(set(outs)) == 1
