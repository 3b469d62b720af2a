"""Golden tests of the shape family's indexed copies: aclnnGatherV2, aclnnIndexSelect and
aclnnInplaceIndexCopy, against numpy (np.take, sequential assignment) and torch.

Pass criteria: bit-exact on random bit patterns of every listed dtype; INT32 and INT64 indices,
strided / transposed / offset views of every tensor, negative dims, ranks 0 to 8, empty index
and empty tensors. Indices out of range are found at run time: the call raises 507015
(ACL_ERROR_RT_AICORE_EXCEPTION) at synchronize naming the first one, nothing outside the views
is written, a gather zeroes the bad slices and an index copy skips them. Repeated indices in an
index copy: the last position wins, for every CANNON_CPU_THREADS.
"""
import numpy as np
import pytest
import torch

import golden
import shape_helpers as sh

NULL, INVALID, AICORE = golden.PARAM_NULLPTR, golden.PARAM_INVALID, golden.ACL_AICORE_EXCEPTION
GATHER_DTS = ["float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "float64", "bfloat16"]
SELECT_DTS = GATHER_DTS + ["uint16", "uint32", "uint64"]
COPY_DTS = ["float32", "bfloat16", "float16", "int32", "uint32", "int64", "uint64", "int16", "int8", "uint8",
            "float64", "bool"]


# ---- GatherV2 / IndexSelect ---------------------------------------------------------------------

@pytest.mark.parametrize("dt", GATHER_DTS)
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided"),
                                               ("padded", "contig")])
def test_gather_v2(dt, idt, layout, out_layout):
    rng = np.random.default_rng(1)
    x = sh.rand((4, 5, 3), dt, rng)
    for dim, ishape in ((0, (2, 3)), (1, (7,)), (-1, ()), (2, (2, 2))):
        idx = rng.integers(0, x.shape[dim], size=ishape).astype(idt)
        ref = np.take(x, idx, axis=dim)
        xi = golden.array(x, dt, layout=layout)
        ii = golden.array(idx, idt, layout=layout)
        out = golden.empty(ref.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnGatherV2", xi, dim, ii, out)
        assert sh.same_bits(golden.read(out), ref), (dim, ishape)
        sh.check_gaps(out, dt)


@pytest.mark.parametrize("dt", SELECT_DTS)
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_index_select(dt, idt, layout, out_layout):
    rng = np.random.default_rng(2)
    x = sh.rand((4, 6, 3), dt, rng)
    for dim in (0, 1, -1):
        idx = rng.integers(0, x.shape[dim], size=(9,)).astype(idt)
        ref = np.take(x, idx, axis=dim)
        xi = golden.array(x, dt, layout=layout)
        out = golden.empty(ref.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnIndexSelect", xi, dim, golden.array(idx, idt, layout="strided"), out)
        assert sh.same_bits(golden.read(out), ref), dim
        sh.check_gaps(out, dt)


def test_gather_shapes():
    rng = np.random.default_rng(3)
    # rank 8, rows of a table (ggml's GET_ROWS: dim 0 of a 2-D view), empty index, 0-D self
    x = sh.rand((2, 1, 3, 2, 1, 2, 3, 2), "float32", rng)
    idx = np.array([2, 0, 1, 1], np.int64)
    ref = np.take(x, idx, axis=2)
    out = golden.empty(ref.shape, "float32")
    golden.call("aclnnGatherV2", golden.array(x), 2, golden.array(idx), out)
    assert sh.same_bits(golden.read(out), ref)
    t = sh.rand((50, 64), "float16", rng)
    rows = rng.integers(0, 50, size=33).astype(np.int32)
    out = golden.empty((33, 64), "float16")
    golden.call("aclnnGatherV2", golden.array(t), 0, golden.array(rows), out)
    assert sh.same_bits(golden.read(out), t[rows])
    assert sh.same_bits(golden.read(out), torch.from_numpy(t).index_select(0, torch.from_numpy(rows).long()).numpy())
    out = golden.empty((0, 64), "float16")
    golden.call("aclnnGatherV2", golden.array(t), 0, golden.array(np.zeros(0, np.int64)), out)
    out = golden.empty((50, 0), "float16")
    golden.call("aclnnIndexSelect", golden.array(t), 1, golden.array(np.zeros(0, np.int64)), out)
    s = golden.array(np.array(2.5, np.float32))
    out = golden.empty((3,), "float32")
    golden.call("aclnnGatherV2", s, 0, golden.array(np.zeros(3, np.int64)), out)
    assert np.all(golden.read(out) == 2.5)
    out = golden.empty((), "float32")
    golden.call("aclnnIndexSelect", s, 0, golden.array(np.zeros(1, np.int64)), out)
    assert golden.read(out) == 2.5
    # a 0-D index to IndexSelect counts as [1]
    out = golden.empty((1, 64), "float16")
    golden.call("aclnnIndexSelect", golden.array(t), 0, golden.array(np.array(7, np.int32)), out)
    assert sh.same_bits(golden.read(out), t[7:8])


@pytest.mark.parametrize("name,bad", [("aclnnGatherV2", -6), ("aclnnGatherV2", 5), ("aclnnGatherV2", 1 << 40),
                                      ("aclnnGatherV2", -(1 << 40)), ("aclnnIndexSelect", -1),
                                      ("aclnnIndexSelect", 5), ("aclnnIndexSelect", 1 << 40)])
def test_gather_bad_index(name, bad):
    """GatherV2's valid range is [-n, n) (a negative index counts from the end), IndexSelect's [0, n)."""
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    idx = np.array([1, 4, bad, 0, bad], np.int64)
    out = golden.empty((5, 3), "float32", layout="padded", fill=9.0)
    with pytest.raises(golden.AclError) as ei:
        golden.call(name, golden.array(x), 0, golden.array(idx), out)
    assert ei.value.code == AICORE
    assert f"index[2] = {bad} is out of range [{-5 if name == 'aclnnGatherV2' else 0}, 5)" in ei.value.message
    got = golden.read(out)
    assert np.array_equal(got[[0, 1, 3]], x[[1, 4, 0]])
    assert np.all(got[[2, 4]] == 0)
    st = out.storage()
    assert np.count_nonzero(st == 9.0) == st.size - 15  # nothing outside the view written
    golden.call(name, golden.array(x), 0, golden.array(np.array([0, 1, 2, 3, 4], np.int64)), out)


@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_v2_negative_index(idt, dim):
    """CANN's aclnnGatherV2 counts an index in [-n, 0) from the end (its calling example gathers rows
    {-2, -1, 0, 1} of a 2x2 tensor), like np.take."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    n = x.shape[dim]
    idx = np.array([[-n, -1, 0], [n - 1, -2, 1]], dtype=golden.dtype(idt).np)
    shape = list(x.shape)
    shape[dim:dim + 1 if dim != -1 else None] = idx.shape
    out = golden.empty(tuple(shape), "float32", layout="padded", fill=7.0)
    golden.call("aclnnGatherV2", golden.array(x, layout="transposed"), dim, golden.array(idx), out)
    assert np.array_equal(golden.read(out), np.take(x, idx.astype(np.int64), axis=dim))
    ex = np.array([0, 1, 2, 3], np.float32).reshape(2, 2)
    o2 = golden.empty((2, 2, 2), "float32")
    golden.call("aclnnGatherV2", golden.array(ex), 0, golden.array(np.array([[-2, -1], [0, 1]], np.int64)), o2)
    assert golden.read(o2).reshape(-1).tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_gather_errors():
    for name in ("aclnnGatherV2", "aclnnIndexSelect"):
        x = golden.array(np.zeros((4, 3), np.float32))
        i = golden.array(np.zeros(2, np.int64))
        o = golden.empty((2, 3), "float32")
        assert golden.phase1_status(name, None, 0, i, o) == NULL
        assert golden.phase1_status(name, x, 0, None, o) == NULL
        assert golden.phase1_status(name, x, 0, i, None) == NULL
        assert golden.phase1_status(name, x, 2, i, o) == INVALID
        assert "dim" in golden.recent_error()
        assert golden.phase1_status(name, x, 0, golden.array(np.zeros(2, np.float32)), o) == INVALID
        assert "index dtype FLOAT" in golden.recent_error()
        assert golden.phase1_status(name, x, 0, i, golden.empty((3, 3), "float32")) == INVALID
        assert golden.phase1_status(name, x, 0, i, golden.empty((2, 3), "float16")) == INVALID
    x = golden.array(np.zeros((4, 3), np.float32))
    assert golden.phase1_status("aclnnIndexSelect", x, 0, golden.array(np.zeros((2, 1), np.int64)),
                                golden.empty((2, 3), "float32")) == INVALID
    big = golden.array(np.zeros((2,) * 8, np.float32))
    assert golden.phase1_status("aclnnGatherV2", big, 0, golden.array(np.zeros((2, 2), np.int64)),
                                golden.empty((2,) * 9, "float32")) == INVALID


# ---- InplaceIndexCopy ---------------------------------------------------------------------------

def index_copy_ref(self_np, dim, idx, src):
    out = self_np.copy()
    for j, k in enumerate(np.asarray(idx).reshape(-1)):
        sl = [slice(None)] * out.ndim
        ss = [slice(None)] * out.ndim
        sl[dim], ss[dim] = k, j
        out[tuple(sl)] = src[tuple(ss)]
    return out


@pytest.mark.parametrize("dt", COPY_DTS)
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("layout,src_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided"),
                                               ("padded", "transposed")])
def test_index_copy(dt, idt, layout, src_layout):
    rng = np.random.default_rng(4)
    base = sh.rand((5, 6, 4), dt, rng)
    for dim in (0, 1, -1):
        n = 3
        idx = rng.permutation(base.shape[dim])[:n].astype(idt)
        sshape = list(base.shape)
        sshape[dim] = n
        src = sh.rand(sshape, dt, rng)
        ref = index_copy_ref(base, dim % 3, idx, src)
        s = golden.array(base, dt, layout=layout, fill=sh.fill_value(dt))
        golden.call("aclnnInplaceIndexCopy", s, dim, golden.array(idx, idt), golden.array(src, dt, layout=src_layout))
        assert sh.same_bits(golden.read(s), ref), dim
        sh.check_gaps(s, dt)


@pytest.mark.parametrize("dt", COPY_DTS)
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_index_copy_out_of_place(dt, layout, out_layout):
    """aclnnIndexCopy: outRef = selfRef with source's slices at the indices (repeated: the last one
    wins); selfRef unchanged, nothing outside outRef's view written."""
    rng = np.random.default_rng(6)
    base = sh.rand((5, 6, 4), dt, rng)
    for dim in (0, 1, -1):
        idx = np.array([2, 0, 2], np.int64)
        sshape = list(base.shape)
        sshape[dim] = 3
        src = sh.rand(sshape, dt, rng)
        s = golden.array(base, dt, layout=layout, fill=sh.fill_value(dt))
        o = golden.empty(base.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnIndexCopy", s, dim, golden.array(idx), golden.array(src, dt), o)
        assert sh.same_bits(golden.read(o), index_copy_ref(base, dim % 3, idx, src)), dim
        assert sh.same_bits(golden.read(s), base)
        sh.check_gaps(o, dt)


def test_index_copy_out_of_place_errors():
    x = golden.array(np.zeros((4, 3), np.float32))
    src = golden.array(np.ones((2, 3), np.float32))
    idx = golden.array(np.array([0, 1], np.int64))
    assert golden.phase1_status("aclnnIndexCopy", x, 0, idx, src, None) == NULL
    assert golden.phase1_status("aclnnIndexCopy", None, 0, idx, src, golden.empty((4, 3), "float32")) == NULL
    assert golden.phase1_status("aclnnIndexCopy", x, 0, idx, src, golden.empty((4, 2), "float32")) == INVALID
    assert golden.phase1_status("aclnnIndexCopy", x, 0, idx, src, golden.empty((4, 3), "float16")) == INVALID
    o = golden.empty((4, 3), "float32")
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnIndexCopy", x, 0, golden.array(np.array([0, 4], np.int64)), src, o)
    assert ei.value.code == AICORE and "aclnnIndexCopy: index[1] = 4" in ei.value.message


def test_index_copy_kv_cache():
    """ggml's SET_ROWS: rows of a [cache, D] fp16 view written at positions given by INT64."""
    rng = np.random.default_rng(5)
    cache = sh.rand((64, 128), "float16", rng)
    rows = sh.rand((4, 128), "float16", rng)
    pos = np.array([10, 11, 12, 63], np.int64)
    s = golden.array(cache)
    golden.call("aclnnInplaceIndexCopy", s, 0, golden.array(pos), golden.array(rows))
    ref = torch.from_numpy(cache.copy()).index_copy_(0, torch.from_numpy(pos), torch.from_numpy(rows)).numpy()
    assert sh.same_bits(golden.read(s), ref)


def test_index_copy_repeated():
    """Repeated indices: the last position naming a slice writes it, for any thread count."""
    script = """
import hashlib, numpy as np, golden
rng = np.random.default_rng(6)
base = rng.standard_normal((40, 300)).astype(np.float32)
idx = rng.integers(0, 40, size=500).astype(np.int64)
src = rng.standard_normal((500, 300)).astype(np.float32)
s = golden.array(base)
golden.call("aclnnInplaceIndexCopy", s, 0, golden.array(idx), golden.array(src))
got = golden.read(s)
ref = base.copy()
for j, k in enumerate(idx):
    ref[k] = src[j]
assert np.array_equal(got, ref)
print(hashlib.sha256(got.tobytes()).hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 2, 8], timeout=120)
    assert len(set(outs)) == 1


def test_index_copy_shapes():
    rng = np.random.default_rng(7)
    base = sh.rand((2, 1, 3, 2, 1, 2, 3, 2), "int8", rng)
    src = sh.rand((2, 1, 3, 2, 1, 2, 2, 2), "int8", rng)
    idx = np.array([2, 0], np.int32)
    s = golden.array(base, layout="padded")
    golden.call("aclnnInplaceIndexCopy", s, -2, golden.array(idx), golden.array(src, layout="transposed"))
    assert sh.same_bits(golden.read(s), index_copy_ref(base, 6, idx, src))
    # 0-D self and source, one index; empty index
    z = golden.array(np.array(1.0, np.float32))
    golden.call("aclnnInplaceIndexCopy", z, 0, golden.array(np.array([0], np.int64)),
                golden.array(np.array(4.0, np.float32)))
    assert golden.read(z) == 4.0
    s = golden.array(base)
    golden.call("aclnnInplaceIndexCopy", s, 0, golden.array(np.zeros(0, np.int64)),
                golden.array(np.zeros((0, 1, 3, 2, 1, 2, 3, 2), np.int8)))
    assert sh.same_bits(golden.read(s), base)


@pytest.mark.parametrize("bad", [-1, 4, 1 << 33])
def test_index_copy_bad_index(bad):
    base = np.zeros((4, 3), np.float32)
    src = np.arange(9, dtype=np.float32).reshape(3, 3) + 100
    s = golden.array(base, layout="padded", fill=9.0)
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnInplaceIndexCopy", s, 0, golden.array(np.array([3, bad, 0], np.int64)), golden.array(src))
    assert ei.value.code == AICORE
    assert f"index[1] = {bad}" in ei.value.message
    got = golden.read(s)
    assert np.array_equal(got[3], src[0]) and np.array_equal(got[0], src[2])
    assert np.all(got[1:3] == 0)
    st = s.storage()
    assert np.count_nonzero(st == 9.0) == st.size - 12


def test_index_copy_errors():
    name = "aclnnInplaceIndexCopy"
    s = golden.array(np.zeros((4, 3), np.float32))
    i = golden.array(np.zeros(2, np.int64))
    c = golden.array(np.zeros((2, 3), np.float32))
    assert golden.phase1_status(name, None, 0, i, c) == NULL
    assert golden.phase1_status(name, s, 0, None, c) == NULL
    assert golden.phase1_status(name, s, 0, i, None) == NULL
    assert golden.phase1_status(name, s, 2, i, c) == INVALID
    assert golden.phase1_status(name, s, 0, i, golden.array(np.zeros((3, 3), np.float32))) == INVALID
    assert "source shape" in golden.recent_error()
    assert golden.phase1_status(name, s, 0, i, golden.array(np.zeros((2, 3), np.float16))) == INVALID
    assert golden.phase1_status(name, s, 0, golden.array(np.zeros((2, 1), np.int64)), c) == INVALID
    assert golden.phase1_status(name, s, 0, golden.array(np.zeros(2, np.int16)), c) == INVALID
    assert golden.phase1_status(name, s, 0, i, golden.array(np.zeros((2, 3, 1), np.float32))) == INVALID
    assert golden.phase1_status(name, s, 0, i, golden.array(np.array(1.0, np.float32))) == INVALID
