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

import cannon_testlib as ct
import train_helpers_a as th

SHAPE = (4, 5, 6)
DIMS = [[], [0], [1], [2], [-1], [0, 2], [2, 0], [1, 2], [0, 1], [0, 1, 2]]
ULP = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float64": 1e-14}
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
         "bool": torch.bool}


@pytest.fixture(scope="session")
def L():
    return ct.lib()


def out_shape(shape, dims, keep):
    r = len(shape)
    red = {d % r for d in dims} if dims else set(range(r))
    return tuple(1 if i in red else s for i, s in enumerate(shape) if keep or i not in red)


def run(L, name, xq, xdt, dims, keep, dtype, odt, strided_in=False, strided_out=False):
    tx = th.tensor(L, xq, xdt, strided=strided_in)
    oshape = out_shape(xq.shape, dims, keep) if xq.ndim else ()
    to = th.empty(L, oshape, odt, strided=strided_out, fill=0)
    arr = th.IntArray(L, dims)
    L.call(name, tx, arr.arg, 1 if keep else 0, th.ACL[dtype], to)
    r = to.view()
    for t in (tx, to):
        t.destroy()
    arr.destroy()
    return r


def torch_ref(x64, xdt, dims, keep, dtype, mean):
    """torch on the quantised input (the reference for the value; computed in float64)."""
    t = torch.from_numpy(np.asarray(x64))
    if xdt in ("float16", "bfloat16", "float32"):
        t = t.to(TORCH[xdt])
    elif xdt != "float64":
        t = t.to(TORCH[xdt])
    t = t.to(TORCH[dtype]).to(torch.float64) if dtype in th.FLOATS else t.to(TORCH[dtype])
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
def test_float(L, dims, keep, dtype, mean):
    rng = np.random.default_rng(11)
    xq, x64 = th.quantize(rng.standard_normal(SHAPE) * 3, dtype)
    name = "aclnnMean" if mean else "aclnnReduceSum"
    ours = th.decode(run(L, name, xq, dtype, dims, keep, dtype, dtype), dtype)
    ref = torch_ref(x64, dtype, dims, keep, dtype, mean)
    d = tuple(dims) if dims else None
    mag = np.abs(x64).sum(axis=d, keepdims=keep) if dims or keep else np.abs(x64).sum()
    n = x64.size // max(np.asarray(ref).size, 1)
    if mean:
        mag = mag / n
    check_float(ours, ref, mag, n, dtype)


@pytest.mark.parametrize("xdt,dtype", [("float32", "float16"), ("float16", "float32"), ("bfloat16", "float32"),
                                       ("float32", "float64"), ("int32", "float32"), ("float64", "bfloat16")])
def test_dtype_conversion(L, xdt, dtype):
    """self is converted to `dtype` before summing; ReduceSum writes `dtype`, Mean too."""
    rng = np.random.default_rng(12)
    raw = rng.standard_normal(SHAPE) * 50
    xq, x64 = th.quantize(np.round(raw) if xdt.startswith("int") else raw, xdt)
    for mean in (False, True):
        name = "aclnnMean" if mean else "aclnnReduceSum"
        ours = th.decode(run(L, name, xq, xdt, [1], False, dtype, dtype), dtype)
        ref = torch_ref(x64, xdt, [1], False, dtype, mean)
        mag = np.abs(x64).sum(axis=1) / (5 if mean else 1)
        check_float(ours, ref, mag * 1.01 + 0.5 * ULP[dtype] * np.abs(ref) * 5, 5, dtype)


def test_mean_out_dtype_differs(L):
    rng = np.random.default_rng(13)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    ours = th.decode(run(L, "aclnnMean", x, "float32", [2], True, "float32", "float16"), "float16")
    ref = x.astype(np.float64).mean(axis=2, keepdims=True)
    assert np.all(np.abs(ours - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-6)


@pytest.mark.parametrize("xdt,dtype", [("int32", "int32"), ("int64", "int64"), ("int8", "int64"), ("bool", "int64"),
                                       ("uint8", "uint8"), ("int16", "int32"), ("float32", "int32")])
@pytest.mark.parametrize("dims", [[], [1], [0, 2]])
def test_integer(L, xdt, dtype, dims):
    rng = np.random.default_rng(14)
    if xdt == "float32":
        raw = rng.standard_normal(SHAPE) * 100
    elif xdt == "bool":
        raw = rng.integers(0, 2, SHAPE)
    else:
        info = np.iinfo(xdt)
        raw = rng.integers(max(info.min, -100000), min(info.max, 100000), SHAPE)
    xq, _ = th.quantize(raw, xdt)
    ours = run(L, "aclnnReduceSum", xq, xdt, dims, False, dtype, dtype)
    t = torch.from_numpy(np.asarray(xq))
    if xdt == "bool":
        t = t.to(torch.bool)
    ref = t.sum(dim=dims if dims else list(range(3)), dtype=TORCH[dtype]).numpy()
    assert np.array_equal(ours, ref)


@pytest.mark.parametrize("strided_in,strided_out", [(True, False), (False, True), (True, True)])
def test_strided(L, strided_in, strided_out):
    rng = np.random.default_rng(15)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    for dims in ([0], [2], [0, 2]):
        ours = run(L, "aclnnReduceSum", x, "float32", dims, True, "float32", "float32", strided_in, strided_out)
        ref = x.astype(np.float64).sum(axis=tuple(dims), keepdims=True)
        check_float(ours, ref, np.abs(x).sum(axis=tuple(dims), keepdims=True), x.size, "float32")


@pytest.mark.parametrize("shape,dims", [((2000, 600, 3), [0, 1]), ((300, 3, 4000), [0, 2]), ((4, 1 << 20), [1]),
                                        ((1 << 21,), [])])
def test_large_split(L, shape, dims):
    rng = np.random.default_rng(16)
    x = (rng.standard_normal(shape) + 0.5).astype(np.float32)
    ours = run(L, "aclnnReduceSum", x, "float32", dims, False, "float32", "float32")
    ref = x.astype(np.float64).sum(axis=tuple(dims) if dims else None)
    mag = np.abs(x).astype(np.float64).sum(axis=tuple(dims) if dims else None)
    # fp32 lanes over blocks of <= 4096 elements: error ~ 256 * 2^-24 * sum|x| at worst
    assert np.all(np.abs(ours - ref) <= 300 * 2.0 ** -24 * mag)
    ours_m = run(L, "aclnnMean", x, "float32", dims, False, "float32", "float32")
    n = x.size // max(np.asarray(ref).size, 1)
    assert np.all(np.abs(ours_m - ref / n) <= 300 * 2.0 ** -24 * mag / n + 2.0 ** -23 * np.abs(ref / n))


def test_scalar_and_size_one(L):
    x = np.array(3.5, dtype=np.float32)
    for dims in ([], [0], [-1]):
        assert run(L, "aclnnReduceSum", x, "float32", dims, False, "float32", "float32") == 3.5
    y = np.arange(6, dtype=np.float32).reshape(1, 6, 1)
    assert np.array_equal(run(L, "aclnnReduceSum", y, "float32", [0, 2], False, "float32", "float32"), y[0, :, 0])


def test_empty(L):
    x = np.zeros((3, 0, 2), np.float32)
    assert np.all(run(L, "aclnnReduceSum", x, "float32", [1], False, "float32", "float32") == 0)
    assert np.all(np.isnan(run(L, "aclnnMean", x, "float32", [1], False, "float32", "float32")))
    assert run(L, "aclnnReduceSum", x, "float32", [0, 2], False, "float32", "float32").shape == (0,)


def test_errors(L):
    x = th.tensor(L, np.zeros(SHAPE, np.float32), "float32")
    o = L.empty((4, 6), ct.ACL_FLOAT)
    d1 = th.IntArray(L, [1])
    for name in ("aclnnReduceSum", "aclnnMean"):
        assert L.phase1_status(name, x, d1.arg, 0, ct.ACL_FLOAT, o) == 0
        assert L.phase1_status(name, None, d1.arg, 0, ct.ACL_FLOAT, o) == th.PARAM_NULLPTR
        assert L.phase1_status(name, x, None, 0, ct.ACL_FLOAT, o) == th.PARAM_NULLPTR
        assert L.phase1_status(name, x, d1.arg, 0, ct.ACL_FLOAT, None) == th.PARAM_NULLPTR
        for bad in ([1, 1], [3], [-4], [1, -2]):
            a = th.IntArray(L, bad)
            assert L.phase1_status(name, x, a.arg, 0, ct.ACL_FLOAT, o) == th.PARAM_INVALID, bad
            a.destroy()
        assert L.phase1_status(name, x, d1.arg, 1, ct.ACL_FLOAT, o) == th.PARAM_INVALID  # keepdim shape
    assert L.phase1_status("aclnnReduceSum", x, d1.arg, 0, ct.ACL_FLOAT16, o) == th.PARAM_INVALID
    assert "aclnnReduceSum: dtype FLOAT16 differs from out dtype FLOAT" in L.errmsg()
    assert L.phase1_status("aclnnMean", x, d1.arg, 0, ct.ACL_INT32, o) == th.PARAM_INVALID
    assert "aclnnMean: dtype INT32 is not supported" in L.errmsg()
    assert L.phase1_status("aclnnMean", x, d1.arg, 0, ct.ACL_FLOAT16, o) == 0  # dtype castable to out
    for t in (x, o):
        t.destroy()
    d1.destroy()


DET_SCRIPT = r"""
import hashlib
import numpy as np
import cannon_testlib as ct
import train_helpers_a as th
L = ct.lib()
rng = np.random.default_rng(17)
out = []
for shape, dims in (((2000, 600, 3), [0, 1]), ((300, 3, 4000), [0, 2]), ((64, 50000), [1]), ((1 << 21,), [])):
    x = rng.standard_normal(shape).astype(np.float32)
    tx = th.tensor(L, x, "float32")
    oshape = tuple(s for i, s in enumerate(shape) if dims and i not in dims)
    to = th.empty(L, oshape, "float32")
    a = th.IntArray(L, dims)
    L.call("aclnnReduceSum", tx, a.arg, 0, ct.ACL_FLOAT, to)
    out.append(hashlib.sha256(to.storage().tobytes()).hexdigest()[:16])
print(" ".join(out))
"""


def test_deterministic_across_threads():
    res = th.run_in_subprocesses(DET_SCRIPT, (1, 2, 8))
    assert res[1] == res[2] == res[8]
