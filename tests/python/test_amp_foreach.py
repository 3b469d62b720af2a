"""Golden tests of the Foreach operators (src/ops/amp) against float64 numpy references.

Pass criteria, per element, with the inputs taken as the values stored in their dtype and m the
magnitude of the operation's terms (|x| + |s x2 x3| ...): |y - ref| <= 2^-21 m for FLOAT (a few fp32
roundings), plus half an ulp of the output type for FLOAT16 (2^-11 |ref|) and BFLOAT16 (2^-8 |ref|)
and the type's smallest subnormal. Lists mix sizes (empty tensors, one element, several chunks of
the engine), ranks and strided views, run on every instruction-set tier (the operators have no
tier of their own: the results must not change). ForeachNorm's sums are fp64, so its bound is the
fp32 input rounding and the output rounding only. Errors: NULL -> 161001; dtype, length, shape,
scalar-size mismatches -> 161002, with the offending argument named in the message.
"""
import zlib

import numpy as np
import pytest

import cannon
import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
DTS = ["float32", "float16", "bfloat16"]
SHAPES = [(3,), (5, 7), (2, 3, 4), (0,), (1,), (40000,), (4, 0, 2), ()]
LAYOUTS = ["contig", "strided", "contig", "contig", "contig", "contig", "contig", "contig"]
ULP = {"float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float32": 2.0 ** -149, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}


def check(got, ref, mag, dt):
    bound = 2.0 ** -21 * mag + ULP[dt] * np.abs(ref) + TINY[dt]
    err = np.abs(got - ref)
    same_nan = np.isnan(got) & np.isnan(ref)
    same_inf = np.isinf(ref) & (got == ref)
    ok = same_nan | same_inf | (err <= bound)
    assert np.all(ok), f"max excess {np.nanmax(np.where(ok, 0, err - bound))}"


def values(rng, shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape)


def upload_list(vals, dt, layouts=None):
    """(device arrays, the stored values as float64)"""
    layouts = layouts or ["contig"] * len(vals)
    arrs = [golden.array(v, dt, layout=(lay if len(v.shape) >= 1 and v.size else None))
            for v, lay in zip(vals, layouts)]
    return arrs, [golden.rounded(v, dt) for v in vals]


def device_scalar(v, dt="float32"):
    return golden.array(np.array([v]), dt), float(golden.rounded(np.array([v]), dt)[0])


# name -> (input lists, scalar kind: None / "t" (device tensor) / "s" (aclScalar), reference, magnitude)
OPS = {
    "aclnnForeachMulScalar": (1, "t", lambda x, s: x[0] * s, lambda x, s: np.abs(x[0] * s)),
    "aclnnForeachMulScalarV2": (1, "s", lambda x, s: x[0] * s, lambda x, s: np.abs(x[0] * s)),
    "aclnnForeachAddScalar": (1, "t", lambda x, s: x[0] + s, lambda x, s: np.abs(x[0]) + abs(s)),
    "aclnnForeachAddScalarV2": (1, "s", lambda x, s: x[0] + s, lambda x, s: np.abs(x[0]) + abs(s)),
    "aclnnForeachDivScalar": (1, "t", lambda x, s: x[0] / s, lambda x, s: np.abs(x[0] / s)),
    "aclnnForeachDivScalarV2": (1, "s", lambda x, s: x[0] / s, lambda x, s: np.abs(x[0] / s)),
    "aclnnForeachMulList": (2, None, lambda x, s: x[0] * x[1], lambda x, s: np.abs(x[0] * x[1])),
    "aclnnForeachAddList": (2, "t", lambda x, s: x[0] + x[1] * s, lambda x, s: np.abs(x[0]) + np.abs(x[1] * s)),
    "aclnnForeachAddListV2": (2, "s", lambda x, s: x[0] + x[1] * s, lambda x, s: np.abs(x[0]) + np.abs(x[1] * s)),
    "aclnnForeachSqrt": (1, None, lambda x, s: np.sqrt(np.abs(x[0])), lambda x, s: np.sqrt(np.abs(x[0]))),
    "aclnnForeachAddcmulScalar": (3, "t", lambda x, s: x[0] + s * x[1] * x[2],
                                  lambda x, s: np.abs(x[0]) + 2 * np.abs(s * x[1] * x[2])),
    "aclnnForeachAddcmulScalarV2": (3, "s", lambda x, s: x[0] + s * x[1] * x[2],
                                    lambda x, s: np.abs(x[0]) + 2 * np.abs(s * x[1] * x[2])),
    "aclnnForeachAddcdivScalar": (3, "t", lambda x, s: x[0] + s * x[1] / x[2],
                                  lambda x, s: np.abs(x[0]) + 2 * np.abs(s * x[1] / x[2])),
    "aclnnForeachAddcdivScalarV2": (3, "s", lambda x, s: x[0] + s * x[1] / x[2],
                                    lambda x, s: np.abs(x[0]) + 2 * np.abs(s * x[1] / x[2])),
    "aclnnForeachLerpScalar": (2, "s", lambda x, s: x[0] + s * (x[1] - x[0]),
                               lambda x, s: np.abs(x[0]) + 2 * np.abs(s) * (np.abs(x[1]) + np.abs(x[0]))),
}


def run_op(name, dt, shapes, layouts, rng, inplace=False):
    nin, skind, ref_fn, mag_fn = OPS[name]
    layouts = layouts or ["contig"] * len(shapes)
    ins, refs = [], []
    for k in range(nin):
        lo = 0.5 if (name.startswith("aclnnForeachAddcdiv") and k == 2) else -3.0
        vals = [values(rng, s, lo, 3.0) for s in shapes]
        if name == "aclnnForeachSqrt":
            vals = [np.abs(v) for v in vals]
        a, r = upload_list(vals, dt, layouts)
        ins.append(a)
        refs.append(r)
    args = list(ins)
    s = 0.0
    if skind == "t":
        st, s = device_scalar(rng.uniform(0.5, 2.0) * (1 if rng.random() < 0.5 else -1))
        args.append(st)
    elif skind == "s":
        s = float(np.float32(rng.uniform(-2.0, 2.0)))
        args.append(cannon.ops.Scalar(s))
    if inplace:
        out = ins[0]
    else:
        out = [golden.empty(sh, dt, layout=(lay if len(sh) >= 1 and int(np.prod(sh)) else None), fill=77)
               for sh, lay in zip(shapes, layouts)]
    args.append(out)
    golden.call(name, *args)
    for i in range(len(shapes)):
        x = [refs[k][i] for k in range(nin)]
        check(golden.read_float(out[i]), ref_fn(x, s), mag_fn(x, s), dt)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dt", DTS)
def test_foreach_ops(name, dt, isa):
    rng = np.random.default_rng(zlib.crc32((name + dt).encode()))
    run_op(name, dt, SHAPES, LAYOUTS, rng)


@pytest.mark.parametrize("name", ["aclnnForeachMulScalar", "aclnnForeachAddListV2", "aclnnForeachAddcdivScalar",
                                  "aclnnForeachLerpScalar", "aclnnForeachSqrt"])
def test_foreach_inplace(name):
    """out is the first input list itself (AMP's in-place updates)."""
    rng = np.random.default_rng(5)
    run_op(name, "float32", SHAPES, LAYOUTS, rng, inplace=True)
    run_op(name, "bfloat16", [(33,), (17000,)], ["strided", "contig"], rng, inplace=True)


def test_foreach_many_tensors():
    """Hundreds of tensors of mixed sizes in one call."""
    rng = np.random.default_rng(6)
    shapes = [(int(n),) for n in rng.integers(0, 3000, size=300)]
    run_op("aclnnForeachAddcmulScalarV2", "float16", shapes, None, rng)
    run_op("aclnnForeachMulScalar", "float32", shapes, None, rng)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("p", [2.0, 1.0, float("inf"), 3.0, 0.0, 2])
def test_foreach_norm(dt, p, isa):
    rng = np.random.default_rng(7)
    shapes = SHAPES + [(20000,) if dt == "float16" else (70000,)]  # fp16: sums below its 65504
    vals = [values(rng, s) for s in shapes]
    if shapes[2]:
        vals[2].flat[3] = 0.0
    xs, ref = upload_list(vals, dt, LAYOUTS + ["contig"])
    out = [golden.empty((1,), dt, fill=77) for _ in shapes]
    golden.call("aclnnForeachNorm", xs, cannon.ops.Scalar(p), out)
    for i, r in enumerate(ref):
        a = np.abs(r.ravel())
        if np.isinf(p):
            want = a.max() if a.size else 0.0
        elif p == 0:
            want = float(np.count_nonzero(a))
        else:
            want = (a ** p).sum() ** (1.0 / p)
        got = golden.read_float(out[i])[0]
        assert abs(got - want) <= 2.0 ** -22 * want + ULP[dt] * want + TINY[dt], (i, got, want)


def test_foreach_norm_nan_and_threads():
    """NaN propagates into the max norm; the norm is the same for any worker count."""
    xs = [golden.array(np.array([1.0, np.nan, 3.0]), "float32")]
    out = [golden.empty((1,), "float32")]
    golden.call("aclnnForeachNorm", xs, cannon.ops.Scalar(float("inf")), out)
    assert np.isnan(golden.read_float(out[0])[0])
    script = """
import numpy as np, cannon, golden
rng = np.random.default_rng(3)
xs = [golden.array(rng.standard_normal(n), "float32") for n in (100000, 5, 33000)]
out = [golden.empty((1,), "float32") for _ in xs]
golden.call("aclnnForeachNorm", xs, cannon.ops.Scalar(2.0), out)
print([golden.read(o).tobytes().hex() for o in out])
"""
    outs = golden.outputs_per_thread_count(script, [1, 3], timeout=60)
    assert len(set(outs)) == 1


@pytest.mark.parametrize("dt", ["float32", "bfloat16", "int32", "int8", "float64"])
def test_foreach_copy_zero(dt):
    rng = np.random.default_rng(8)
    shapes = [(5,), (3, 4), (0,), (20000,)]
    vals = [rng.integers(-50, 50, size=s).astype(np.float64) for s in shapes]
    xs = [golden.array(v, dt, layout=lay) for v, lay in zip(vals, ["strided", "contig", "contig", "contig"])]
    out = [golden.empty(s, dt, layout=lay, fill=7) for s, lay in zip(shapes, ["contig", "transposed", "contig",
                                                                               "contig"])]
    golden.call("aclnnForeachCopy", xs, out)
    for v, o in zip(vals, out):
        np.testing.assert_array_equal(golden.read_float(o), v)
    golden.call("aclnnForeachZeroInplace", xs)
    for v, x in zip(vals, xs):
        np.testing.assert_array_equal(golden.read_float(x), np.zeros_like(v))
        if x.shape[0]:
            st = golden.read_float(x)  # the view only; the gaps of a strided view keep their values
            assert st.shape == v.shape


def test_foreach_empty_list():
    golden.call("aclnnForeachMulScalarV2", [], cannon.ops.Scalar(2.0), [])
    golden.call("aclnnForeachNorm", [], cannon.ops.Scalar(2.0), [])
    golden.call("aclnnForeachZeroInplace", [])


def f32(shape, v=1.0, dt="float32"):
    return golden.array(np.full(shape, v), dt)


def test_foreach_errors():
    x = [f32((3,)), f32((4,))]
    out = [f32((3,)), f32((4,))]
    s = f32((1,))
    ps = golden.phase1_status
    assert ps("aclnnForeachMulScalar", None, s, out) == NULL
    assert "x" in golden.recent_error()
    assert ps("aclnnForeachMulScalar", x, None, out) == NULL
    assert "scalar" in golden.recent_error()
    assert ps("aclnnForeachMulScalar", x, s, None) == NULL
    assert ps("aclnnForeachMulScalar", [f32((3,)), None], s, out) == NULL
    assert "x[1]" in golden.recent_error()
    # dtypes differing within a list, between lists, out
    assert ps("aclnnForeachMulScalar", [f32((3,)), f32((4,), dt="float16")], s, out) == INVALID
    assert "x[1]" in golden.recent_error()
    assert ps("aclnnForeachMulList", x, [f32((3,), dt="float16"), f32((4,), dt="float16")], out) == INVALID
    assert "x2" in golden.recent_error()
    assert ps("aclnnForeachMulScalar", x, s, [f32((3,), dt="bfloat16"), f32((4,), dt="bfloat16")]) == INVALID
    assert "out" in golden.recent_error()
    # lengths, shapes
    assert ps("aclnnForeachAddListV2", x, [f32((3,))], cannon.ops.Scalar(1.0), out) == INVALID
    assert "x2" in golden.recent_error()
    assert ps("aclnnForeachMulScalar", x, s, [f32((3,))]) == INVALID
    assert "out" in golden.recent_error()
    assert ps("aclnnForeachAddcmulScalarV2", x, x, [f32((3,)), f32((5,))], cannon.ops.Scalar(1.0), out) == INVALID
    assert "x3[1]" in golden.recent_error()
    # a scalar tensor of two elements; an unsupported dtype
    assert ps("aclnnForeachAddList", x, x, f32((2,)), out) == INVALID
    assert "alpha" in golden.recent_error()
    xi = [golden.array(np.ones(3), "int32")]
    assert ps("aclnnForeachSqrt", xi, xi) == INVALID
    # norm: out entries of one element, p >= 0
    assert ps("aclnnForeachNorm", x, cannon.ops.Scalar(2.0), out) == INVALID
    assert ps("aclnnForeachNorm", x, cannon.ops.Scalar(-1.0), [f32((1,)), f32((1,))]) == INVALID
    assert ps("aclnnForeachZeroInplace", None) == NULL
    assert ps("aclnnForeachCopy", x, [golden.array(np.ones(3), "int32"), golden.array(np.ones(4), "int32")]) \
        == INVALID
