"""Golden tests of aclnnScatter, aclnnScatterValue, aclnnInplaceScatter and
aclnnInplaceScatterValue against torch's scatter / scatter_ (reduce none, add, multiply) and a
sequential numpy loop (repeated targets: the last position in index's row-major order wins, sums
and products round in that order), on every instruction-set tier, every dtype of CANN's page
(the real ones and COMPLEX64 / COMPLEX128), INT32 and INT64 indices, every dim (negative too),
index smaller than src and self, strided / transposed views, 0-D and empty tensors, out-of-range
indices (507015 at synchronize, nothing written through them) and the argument errors.
"""
import itertools

import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.array import DType
from cannon.ops import Scalar

INVALID, NULLPTR, AICORE = golden.PARAM_INVALID, golden.PARAM_NULLPTR, golden.ACL_AICORE_EXCEPTION
complex64 = DType("complex64", 16, np.complex64, None)
complex128 = DType("complex128", 17, np.complex128, None)


def seq_scatter(self_v, dim, idx, src, reduce, dt):
    """The sequential reference on values (see vals): every position of idx in row-major order,
    each update rounded as the kernel rounds it (16-bit floats: fp32, then the type)."""
    out = self_v.copy()
    for p in itertools.product(*[range(n) for n in idx.shape]):
        t = list(p)
        t[dim] = idx[p]
        t = tuple(t)
        s = src[p] if isinstance(src, np.ndarray) else src
        if reduce == 0:
            out[t] = s
        elif dt == "bool":
            out[t] = (out[t] or s) if reduce == 1 else (out[t] and s)
        else:
            with np.errstate(over="ignore"):  # integers wrap at their width
                r = out[t] + s if reduce == 1 else out[t] * s
            if dt in ("float16", "bfloat16", "float32"):
                r = golden.rounded(golden.rounded(r, "float32"), dt)[()]
            out[t] = r
    return out


def vals(st, dt):
    """Storage -> the values the reference works on: float64 for the floating types (exact),
    the storage itself for integers (wrapping in their numpy type), BOOL and complex."""
    return golden.decode(st, dt) if dt in ("float16", "bfloat16", "float32") else st


def values(dt, shape, seed):
    if dt.startswith("complex"):
        rng = np.random.default_rng(seed)
        d = complex64 if dt == "complex64" else complex128
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d.np)
    small = dt in H.IRANGE and dt not in ("bool", "uint8")
    s, v = H.sample(dt, shape, seed, specials=False, **({"lo": -9, "hi": 9} if small else {}))
    return s


def dev(a, dt, layout=None):
    if dt.startswith("complex"):
        d = complex64 if dt == "complex64" else complex128
        x = golden.empty(a.shape, d, layout=layout)
        store = np.zeros(x.buffer.nbytes // d.itemsize, d.np)
        np.lib.stride_tricks.as_strided(store[x.offset:], shape=a.shape,
                                        strides=[s * d.itemsize for s in x.strides])[...] = a
        x.buffer.copy_from_host(store)
        return x
    return golden.array(a, dt, layout=layout)


def fetch(x, dt):
    """The view's values as vals() gives them."""
    if dt.startswith("complex"):
        st = x.storage()
        return np.lib.stride_tricks.as_strided(st[x.offset:], shape=x.shape,
                                               strides=[s * st.itemsize for s in x.strides]).copy()
    return vals(golden.read(x), dt)


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def out_dt(dt):
    return {"complex64": complex64, "complex128": complex128}.get(dt, dt)


DTS = H.DTYPE_ALL + ["complex64", "complex128"]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("reduce", [0, 1, 2])
def test_scatter(isa, dt, reduce):
    rng = np.random.default_rng(3)
    shape, ishape = (6, 9, 5), (4, 7, 3)
    for dim in (0, 1, -1):
        d = dim % 3
        idx = rng.integers(0, shape[d], ishape)
        s = values(dt, shape, 1)
        src = values(dt, (5, 8, 4), 2)  # larger than index
        ref = seq_scatter(vals(s, dt), d, idx, vals(src, dt), reduce, dt)
        for idt, lay in (("int64", "contig"), ("int32", "strided"), ("int64", "transposed")):
            out = golden.empty(shape, out_dt(dt), layout=lay)
            golden.call("aclnnScatter", dev(s, dt, lay), dim, golden.array(idx.astype(idt), idt, layout=lay),
                        dev(src, dt, "strided"), reduce, out)
            assert same(fetch(out, dt), ref), (dim, idt, lay)
            x = dev(s, dt, lay)
            golden.call("aclnnInplaceScatter", x, dim, golden.array(idx.astype(idt), idt), dev(src, dt), reduce)
            assert same(fetch(x, dt), ref), (dim, idt, lay, "inplace")


@pytest.mark.parametrize("dt", H.DTYPE_ALL)
def test_scatter_torch(isa, dt):
    """Distinct targets (a permutation per row): torch's scatter / scatter_ with reduce."""
    rng = np.random.default_rng(4)
    s = values(dt, (8, 12), 5)
    src = values(dt, (8, 12), 6)
    idx = np.stack([rng.permutation(12)[:10] for _ in range(8)])
    ts, tsrc, ti = golden.from_storage(s, dt), golden.from_storage(src, dt), torch.from_numpy(idx)
    for reduce, name in ((0, None), (1, "add"), (2, "multiply")):
        if dt == "bool" and reduce:
            continue
        ref = ts.scatter(1, ti, tsrc[:, :10]) if name is None else ts.scatter(1, ti, tsrc[:, :10], reduce=name)
        out = golden.empty((8, 12), dt)
        golden.call("aclnnScatter", golden.array(s, dt), 1, golden.array(idx), golden.array(src, dt, layout="strided"),
                    reduce, out)
        assert np.array_equal(golden.read(out), golden.to_storage(ref, dt)), name


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int32", "bool", "complex64"])
def test_scatter_value(isa, dt):
    rng = np.random.default_rng(5)
    s = values(dt, (7, 6), 7)
    idx = rng.integers(0, 7, (5, 4))
    val = True if dt == "bool" else 3
    sval = np.complex64(val) if dt == "complex64" else val if dt == "bool" else golden.dtype(dt).np.type(val) \
        if dt == "int32" else float(val)
    for reduce in (0, 1, 2):
        ref = seq_scatter(vals(s, dt), 0, idx, sval, reduce, dt)
        out = golden.empty((7, 6), out_dt(dt))
        golden.call("aclnnScatterValue", dev(s, dt), 0, golden.array(idx), Scalar(val), reduce, out)
        assert same(fetch(out, dt), ref), reduce
        x = dev(s, dt, "strided")
        golden.call("aclnnInplaceScatterValue", x, -2, golden.array(idx.astype(np.int32)), Scalar(val), reduce)
        assert same(fetch(x, dt), ref), reduce


def test_scatter_repeated_and_threads():
    """Repeated targets along dim 0: the last position wins; the same bits for 1, 3 and 8 workers."""
    script = """
import numpy as np, hashlib, golden
rng = np.random.default_rng(1)
s = rng.standard_normal((300, 40)).astype(np.float32)
idx = rng.integers(0, 300, (900, 40))
src = rng.standard_normal((900, 40)).astype(np.float32)
out = golden.empty((300, 40), "float32")
golden.call("aclnnScatter", golden.array(s), 0, golden.array(idx), golden.array(src), 1, out)
o2 = golden.empty((40, 300), "float32")
golden.call("aclnnScatter", golden.array(s.T.copy()), 1, golden.array(idx.T.copy()), golden.array(src.T.copy()), 0, o2)
print(hashlib.sha256(golden.read(out).tobytes() + golden.read(o2).tobytes()).hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=120)
    assert len(set(outs)) == 1
    rng = np.random.default_rng(2)
    idx = np.array([[1, 1, 1, 0]]).T
    src = np.array([[5, 6, 7, 8]], np.float32).T
    out = golden.empty((2, 1), "float32")
    golden.call("aclnnScatter", golden.array(np.zeros((2, 1), np.float32)), 0, golden.array(idx), golden.array(src),
                0, out)
    assert golden.read(out).ravel().tolist() == [8, 7]


def test_scatter_zero_d_and_empty():
    out = golden.empty((), "float32")
    golden.call("aclnnScatter", golden.array(np.array(1.0, np.float32)), 0, golden.array(np.array(0)),
                golden.array(np.array(4.0, np.float32)), 1, out)
    assert golden.read(out).tolist() == 5.0
    s = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = golden.empty((2, 3), "float32")
    golden.call("aclnnScatter", golden.array(s), 1, golden.array(np.zeros((2, 0), np.int64)),
                golden.array(np.zeros((2, 0), np.float32)), 0, out)
    assert np.array_equal(golden.read(out), s)
    z = golden.array(np.zeros((0, 3), np.float32))
    golden.call("aclnnInplaceScatter", z, 0, golden.array(np.zeros((0, 3), np.int64)), z, 0)


@pytest.mark.parametrize("bad", [6, -1, 2 ** 40])
def test_scatter_bad_index(bad):
    s = np.arange(12, dtype=np.float32).reshape(6, 2)
    x = golden.array(s)
    with pytest.raises(golden.AclError) as e:
        golden.call("aclnnInplaceScatter", x, 0, golden.array(np.array([[1, 0], [bad, 2]])),
                    golden.array(np.full((2, 2), 9, np.float32)), 0)
    assert e.value.code == AICORE
    assert "out of range" in str(e.value)
    want = s.copy()  # every valid position written, the bad one skipped
    want[1, 0] = want[0, 1] = want[2, 1] = 9
    assert np.array_equal(golden.read(x), want)


def test_scatter_errors():
    s = golden.array(np.zeros((4, 5), np.float32))
    i = golden.array(np.zeros((2, 3), np.int64))
    src = golden.array(np.ones((2, 3), np.float32))
    out = golden.empty((4, 5), "float32")
    for k, n in enumerate([0, 2, 3, 5]):
        args = [s, 0, i, src, 0, out]
        args[n] = None
        assert golden.phase1_status("aclnnScatter", *args) == NULLPTR, k
    assert golden.phase1_status("aclnnInplaceScatter", s, 0, i, None, 0) == NULLPTR
    assert golden.phase1_status("aclnnScatterValue", s, 0, i, None, 0, out) == NULLPTR
    assert golden.phase1_status("aclnnInplaceScatterValue", s, 0, None, Scalar(1.0), 0) == NULLPTR
    H.raises(INVALID, "INT16", "aclnnScatter", s, 0, golden.array(np.zeros((2, 3), np.int16)), src, 0, out)
    H.raises(INVALID, "dtype", "aclnnScatter", s, 0, i, golden.array(np.ones((2, 3), np.float16)), 0, out)
    H.raises(INVALID, "dtype", "aclnnScatter", s, 0, i, src, 0, golden.empty((4, 5), "float16"))
    H.raises(INVALID, "shape", "aclnnScatter", s, 0, i, src, 0, golden.empty((4, 6), "float32"))
    H.raises(INVALID, "rank", "aclnnScatter", s, 0, golden.array(np.zeros((2,), np.int64)), src, 0, out)
    H.raises(INVALID, "dim", "aclnnScatter", s, 2, i, src, 0, out)
    H.raises(INVALID, "dim", "aclnnScatter", s, -3, i, src, 0, out)
    H.raises(INVALID, "reduce", "aclnnScatter", s, 0, i, src, 3, out)
    H.raises(INVALID, "src.size", "aclnnScatter", s, 0, golden.array(np.zeros((3, 3), np.int64)), src, 0, out)
    H.raises(INVALID, "self.size", "aclnnScatter", s, 0, golden.array(np.zeros((2, 6), np.int64)),
             golden.array(np.ones((2, 6), np.float32)), 0, out)
    H.raises(INVALID, "selfRef.size", "aclnnInplaceScatterValue", s, 1, golden.array(np.zeros((5, 1), np.int64)),
             Scalar(1.0), 0)
