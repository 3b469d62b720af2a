"""Golden tests of aclnnReduceSum and aclnnMean against float64 numpy and torch: every dims
pattern (inner, outer, middle, several, all, none of size > 1), keepDims, float and integer
dtypes, dtype conversion, strided views, the split (partial-sum) path, empty tensors, argument
errors, and thread-count determinism.

Pass criteria: float results within n * 2^-24 * sum|x| (fp32 lanes, fp64 block totals) plus the
final rounding to the output type (half an ulp; one ulp allowed); DOUBLE within 1e-12 relative;
integers exact (with wrap-around to the output width).
"""
import numpy as np
import pytest
import torch

import golden
from golden import torch_dtype

SHAPE = (4, 5, 6)
DIMS = [[], [0], [1], [2], [-1], [0, 2], [2, 0], [1, 2], [0, 1], [0, 1, 2]]
ULP = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float64": 1e-14}


def out_shape(shape, dims, keep):
    r = len(shape)
    red = {d % r for d in dims} if dims else set(range(r))
    return tuple(1 if i in red else s for i, s in enumerate(shape) if keep or i not in red)


def run(name, xq, xdt, dims, keep, dtype, odt, strided_in=False, strided_out=False):
    tx = golden.array(xq, xdt, layout="padded" if strided_in else None)
    oshape = out_shape(xq.shape, dims, keep) if xq.ndim else ()
    to = golden.empty(oshape, odt, layout="padded" if strided_out else None, fill=0)
    golden.call(name, tx, dims, 1 if keep else 0, dtype, to)
    return golden.read(to)


def torch_ref(x64, xdt, dims, keep, dtype, mean):
    """torch on the quantised input (the reference for the value; computed in float64)."""
    t = torch.from_numpy(np.asarray(x64))
    if xdt in ("float16", "bfloat16", "float32"):
        t = t.to(torch_dtype(xdt))
    elif xdt != "float64":
        t = t.to(torch_dtype(xdt))
    t = t.to(torch_dtype(dtype)).to(torch.float64) if dtype in golden.FLOATS else t.to(torch_dtype(dtype))
    d = dims if dims else list(range(max(t.dim(), 1)))
    if t.dim() == 0:
        return (t.mean() if mean else t.sum()).numpy()
    r = t.mean(dim=d, keepdim=keep) if mean else t.sum(dim=d, keepdim=keep, dtype=t.dtype)
    return r.numpy()


def check_float(ours, ref, mag, n, odt):
    tol = n * 2.0 ** -24 * mag + ULP[odt] * np.abs(ref) + 1e-30
    if odt == "float64":
        tol = 1e-12 * mag + 1e-300
    err = np.abs(ours - ref)
    assert np.all(err <= tol), f"max err {np.max(err)} tol {np.max(tol)}"


@pytest.mark.parametrize("dims", DIMS)
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("mean", [False, True])
def test_float(dims, keep, dtype, mean):
    rng = np.random.default_rng(11)
    xq, x64 = golden.quantize(rng.standard_normal(SHAPE) * 3, dtype)
    name = "aclnnMean" if mean else "aclnnReduceSum"
    ours = golden.decode(run(name, xq, dtype, dims, keep, dtype, dtype), dtype)
    ref = torch_ref(x64, dtype, dims, keep, dtype, mean)
    d = tuple(dims) if dims else None
    mag = np.abs(x64).sum(axis=d, keepdims=keep) if dims or keep else np.abs(x64).sum()
    n = x64.size // max(np.asarray(ref).size, 1)
    if mean:
        mag = mag / n
    check_float(ours, ref, mag, n, dtype)


@pytest.mark.parametrize("xdt,dtype", [("float32", "float16"), ("float16", "float32"), ("bfloat16", "float32"),
                                       ("float32", "float64"), ("int32", "float32"), ("float64", "bfloat16")])
def test_dtype_conversion(xdt, dtype):
    """self is converted to `dtype` before summing; ReduceSum writes `dtype`, Mean too."""
    rng = np.random.default_rng(12)
    raw = rng.standard_normal(SHAPE) * 50
    xq, x64 = golden.quantize(np.round(raw) if xdt.startswith("int") else raw, xdt)
    for mean in (False, True):
        name = "aclnnMean" if mean else "aclnnReduceSum"
        ours = golden.decode(run(name, xq, xdt, [1], False, dtype, dtype), dtype)
        ref = torch_ref(x64, xdt, [1], False, dtype, mean)
        mag = np.abs(x64).sum(axis=1) / (5 if mean else 1)
        check_float(ours, ref, mag * 1.01 + 0.5 * ULP[dtype] * np.abs(ref) * 5, 5, dtype)


def test_mean_out_dtype_differs():
    rng = np.random.default_rng(13)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    ours = golden.decode(run("aclnnMean", x, "float32", [2], True, "float32", "float16"), "float16")
    ref = x.astype(np.float64).mean(axis=2, keepdims=True)
    assert np.all(np.abs(ours - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-6)


@pytest.mark.parametrize("xdt,dtype", [("int32", "int32"), ("int64", "int64"), ("int8", "int64"), ("bool", "int64"),
                                       ("uint8", "uint8"), ("int16", "int32"), ("float32", "int32")])
@pytest.mark.parametrize("dims", [[], [1], [0, 2]])
def test_integer(xdt, dtype, dims):
    rng = np.random.default_rng(14)
    if xdt == "float32":
        raw = rng.standard_normal(SHAPE) * 100
    elif xdt == "bool":
        raw = rng.integers(0, 2, SHAPE)
    else:
        info = np.iinfo(xdt)
        raw = rng.integers(max(info.min, -100000), min(info.max, 100000), SHAPE)
    xq, _ = golden.quantize(raw, xdt)
    ours = run("aclnnReduceSum", xq, xdt, dims, False, dtype, dtype)
    t = torch.from_numpy(np.asarray(xq))
    if xdt == "bool":
        t = t.to(torch.bool)
    ref = t.sum(dim=dims if dims else list(range(3)), dtype=torch_dtype(dtype)).numpy()
    assert np.array_equal(ours, ref)


@pytest.mark.parametrize("strided_in,strided_out", [(True, False), (False, True), (True, True)])
def test_strided(strided_in, strided_out):
    rng = np.random.default_rng(15)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    for dims in ([0], [2], [0, 2]):
        ours = run("aclnnReduceSum", x, "float32", dims, True, "float32", "float32", strided_in, strided_out)
        ref = x.astype(np.float64).sum(axis=tuple(dims), keepdims=True)
        check_float(ours, ref, np.abs(x).sum(axis=tuple(dims), keepdims=True), x.size, "float32")


@pytest.mark.parametrize("shape,dims", [((2000, 600, 3), [0, 1]), ((300, 3, 4000), [0, 2]), ((4, 1 << 20), [1]),
                                        ((1 << 21,), [])])
def test_large_split(shape, dims):
    rng = np.random.default_rng(16)
    x = (rng.standard_normal(shape) + 0.5).astype(np.float32)
    ours = run("aclnnReduceSum", x, "float32", dims, False, "float32", "float32")
    ref = x.astype(np.float64).sum(axis=tuple(dims) if dims else None)
    mag = np.abs(x).astype(np.float64).sum(axis=tuple(dims) if dims else None)
    # fp32 lanes over blocks of <= 4096 elements: error ~ 256 * 2^-24 * sum|x| at worst
    assert np.all(np.abs(ours - ref) <= 300 * 2.0 ** -24 * mag)
    ours_m = run("aclnnMean", x, "float32", dims, False, "float32", "float32")
    n = x.size // max(np.asarray(ref).size, 1)
    assert np.all(np.abs(ours_m - ref / n) <= 300 * 2.0 ** -24 * mag / n + 2.0 ** -23 * np.abs(ref / n))


def test_scalar_and_size_one():
    x = np.array(3.5, dtype=np.float32)
    for dims in ([], [0], [-1]):
        assert run("aclnnReduceSum", x, "float32", dims, False, "float32", "float32") == 3.5
    y = np.arange(6, dtype=np.float32).reshape(1, 6, 1)
    assert np.array_equal(run("aclnnReduceSum", y, "float32", [0, 2], False, "float32", "float32"), y[0, :, 0])


def test_single_element_out_of_another_shape():
    """ReduceSum writes a one-element result into any one-element out ([] into [1] or [1, 1], [1] into []),
    as CANN does; other shape differences and Mean keep the exact-shape rule."""
    x = np.arange(1, 8, dtype=np.float32)
    for oshape in ((1,), (1, 1)):
        to = golden.empty(oshape, "float32", fill=0)
        golden.call("aclnnReduceSum", golden.array(x, "float32"), [0], 0, "float32", to)
        assert golden.read(to).shape == oshape and golden.read(to).ravel()[0] == 28.0
    to = golden.empty((), "float32", fill=0)
    golden.call("aclnnReduceSum", golden.array(x, "float32"), [0], 1, "float32", to)
    assert golden.read(to) == 28.0
    y = golden.array(np.ones((2, 3), np.float32), "float32")
    assert golden.phase1_status("aclnnReduceSum", y, [0, 1], 0, "float32", golden.empty((2,), "float32")) == \
        golden.PARAM_INVALID
    assert "aclnnReduceSum: out shape [2] differs from the reduced self shape []" in golden.recent_error()
    assert golden.phase1_status("aclnnMean", golden.array(x, "float32"), [0], 0, "float32",
                                golden.empty((1,), "float32")) == golden.PARAM_INVALID


def test_empty():
    x = np.zeros((3, 0, 2), np.float32)
    assert np.all(run("aclnnReduceSum", x, "float32", [1], False, "float32", "float32") == 0)
    assert np.all(np.isnan(run("aclnnMean", x, "float32", [1], False, "float32", "float32")))
    assert run("aclnnReduceSum", x, "float32", [0, 2], False, "float32", "float32").shape == (0,)


def test_errors():
    x = golden.array(np.zeros(SHAPE, np.float32), "float32")
    o = golden.empty((4, 6), "float32")
    d1 = [1]
    for name in ("aclnnReduceSum", "aclnnMean"):
        assert golden.phase1_status(name, x, d1, 0, "float32", o) == 0
        assert golden.phase1_status(name, None, d1, 0, "float32", o) == golden.PARAM_NULLPTR
        assert golden.phase1_status(name, x, None, 0, "float32", o) == golden.PARAM_NULLPTR
        assert golden.phase1_status(name, x, d1, 0, "float32", None) == golden.PARAM_NULLPTR
        for bad in ([1, 1], [3], [-4], [1, -2]):
            assert golden.phase1_status(name, x, bad, 0, "float32", o) == golden.PARAM_INVALID, bad
        assert golden.phase1_status(name, x, d1, 1, "float32", o) == golden.PARAM_INVALID  # keepdim shape
    assert golden.phase1_status("aclnnReduceSum", x, d1, 0, "float16", o) == golden.PARAM_INVALID
    assert "aclnnReduceSum: dtype FLOAT16 differs from out dtype FLOAT" in golden.recent_error()
    # Mean: self -> dtype -> out, each a conversion CANN allows (no floating -> integer); no BOOL dtype
    assert golden.phase1_status("aclnnMean", x, d1, 0, "int32", o) == golden.PARAM_INVALID
    assert "aclnnMean: self dtype FLOAT cannot be converted to dtype INT32" in golden.recent_error()
    assert golden.phase1_status("aclnnMean", x, d1, 0, "bool", o) == golden.PARAM_INVALID
    assert "aclnnMean: dtype BOOL is not supported" in golden.recent_error()
    assert golden.phase1_status("aclnnMean", x, d1, 0, "float16", o) == 0  # dtype castable to out
    xi = golden.array(np.zeros(SHAPE, np.int32), "int32")
    oi = golden.empty((4, 6), "int32")
    assert golden.phase1_status("aclnnMean", xi, d1, 0, "float32", oi) == golden.PARAM_INVALID
    assert "aclnnMean: dtype FLOAT cannot be converted to out dtype INT32" in golden.recent_error()
    assert golden.phase1_status("aclnnMean", xi, d1, 0, "int32", golden.empty((4, 6), "bool")) == \
        golden.PARAM_INVALID


@pytest.mark.parametrize("xdt,dtype,odt", [("int64", "int64", "int64"), ("int32", "int32", "int32"),
                                           ("int8", "int64", "int64"), ("uint8", "int16", "int16"),
                                           ("bool", "int32", "int32"), ("int16", "int8", "int8"),
                                           ("int64", "int64", "float32"), ("int32", "int64", "float64"),
                                           ("int32", "int32", "float16")])
@pytest.mark.parametrize("dims", [[1, 2], [0], [], [-1]])
def test_mean_integer(xdt, dtype, odt, dims):
    """Mean in an integer dtype (CANN's table lists INT8/16/32/64 and UINT8 for dtype and out): self
    converted to dtype, summed exactly, divided by the reduced count truncating toward zero, the
    mean wrapped to dtype's width and converted to out's dtype. Exact."""
    rng = np.random.default_rng(14)
    lo = 0 if xdt in ("uint8", "bool") else -100
    x = rng.integers(lo, 100, size=SHAPE).astype(golden.dtype(xdt).np)
    if xdt == "bool":
        x = x % 2 == 0
    xc = x.astype(golden.dtype(dtype).np).astype(np.int64)
    d = tuple(dims) if dims else tuple(range(3))
    s = xc.sum(axis=d)
    n = int(np.prod([SHAPE[k] for k in d]))
    q = (np.abs(s) // n) * np.sign(s)
    ref = q.astype(golden.dtype(dtype).np).astype(np.float64 if odt.startswith("float") else np.int64)
    ours = run("aclnnMean", x, xdt, dims, False, dtype, odt)
    ours = golden.decode(ours, odt) if odt.startswith("float") else ours.astype(np.int64)
    assert np.array_equal(ours, ref), (xdt, dtype, odt, dims)


def test_mean_integer_example():
    """The calling example of CANN's aclnnMean page: INT64 self {2,3,5,8,4,12,6,7} of shape (2,2,2),
    dims {1,2}, dtype and out INT64: means 4.5 and 7.25 give 4 and 7."""
    x = np.array([2, 3, 5, 8, 4, 12, 6, 7], np.int64).reshape(2, 2, 2)
    assert run("aclnnMean", x, "int64", [1, 2], False, "int64", "int64").tolist() == [4, 7]
    y = np.array([-5, -6, 7], np.int32)  # truncation toward zero: -11/2 -> -5, and a positive mean
    assert run("aclnnMean", y[:2], "int32", [0], False, "int32", "int32").tolist() == -5
    assert run("aclnnMean", y, "int32", [0], False, "int32", "int32").tolist() == -1


@pytest.mark.parametrize("odt", ["float32", "float16", "bfloat16", "float64", "int8", "int32", "int64"])
def test_mean_integer_empty(odt):
    """An empty integer Mean writes 0 in out's dtype, and only out's elements: a floating out of an
    integer mean is stored at its own width (the storage after the view keeps its fill)."""
    x = np.zeros((3, 0), np.int32)
    to = golden.empty((3,), odt, storage_elems=8, fill=5)
    golden.call("aclnnMean", golden.array(x, "int32"), [1], 0, "int32", to)
    assert golden.decode(to.storage(), odt).tolist() == [0.0] * 3 + [5.0] * 5


DET_SCRIPT = r"""
import hashlib
import numpy as np
import golden
rng = np.random.default_rng(17)
out = []
for shape, dims in (((2000, 600, 3), [0, 1]), ((300, 3, 4000), [0, 2]), ((64, 50000), [1]), ((1 << 21,), [])):
    x = rng.standard_normal(shape).astype(np.float32)
    tx = golden.array(x, "float32")
    oshape = tuple(s for i, s in enumerate(shape) if dims and i not in dims)
    to = golden.empty(oshape, "float32")
    golden.call("aclnnReduceSum", tx, dims, 0, "float32", to)
    out.append(hashlib.sha256(to.storage().tobytes()).hexdigest()[:16])
print(" ".join(out))
"""


def test_deterministic_across_threads():
    res = golden.outputs_per_thread_count(DET_SCRIPT, (1, 2, 8), 120)
    assert res[0] == res[1] == res[2]
