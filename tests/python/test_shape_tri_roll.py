"""Golden tests of aclnnTril, aclnnTriu, aclnnInplaceTriu, aclnnRoll, aclnnReflectionPad1d and
aclnnInplaceIndexFillTensor against numpy and torch.

Pass criteria: bit-exact on random bit patterns of every listed dtype; output storage outside the
view untouched; strided / transposed / offset views in and out, ranks up to 8, empty tensors,
negative dims and diagonals. Error paths: NULL -> 161001; bad dtype, rank, dims, padding, index
-> 161002.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
TRI_DTS = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "bool"]
ROLL_DTS = ["bfloat16", "float16", "float32", "int8", "uint8", "int32", "int64", "uint32", "bool", "int16"]
REFL_DTS = sh.ALL
FILL_DTS = ["float16", "float32", "int32", "int64", "bool", "bfloat16"]


def zero_of(dt):
    return golden.storage_of(0.0, dt)


# ---- Tril / Triu --------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", TRI_DTS)
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided"),
                                               ("padded", "transposed")])
def test_tril_triu(dt, layout, out_layout):
    rng = np.random.default_rng(1)
    x = sh.rand((2, 5, 7), dt, rng)
    z = zero_of(dt)
    for diag in (0, 2, -1, -10, 10):
        for name, fn in (("aclnnTril", np.tril), ("aclnnTriu", np.triu)):
            mask = fn(np.ones(x.shape[-2:], bool), diag)
            ref = np.where(mask, x, z)
            out = golden.empty(x.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
            golden.call(name, golden.array(x, dt, layout=layout), diag, out)
            assert sh.same_bits(golden.read(out), ref), (name, diag)
            sh.check_gaps(out, dt)
        s = golden.array(x, dt, layout=layout, fill=sh.fill_value(dt))
        golden.call("aclnnInplaceTriu", s, diag)
        assert sh.same_bits(golden.read(s), np.where(np.triu(np.ones(x.shape[-2:], bool), diag), x, z))
        sh.check_gaps(s, dt)


def test_tri_shapes():
    rng = np.random.default_rng(2)
    x = sh.rand((2, 1, 2, 1, 2, 1, 3, 4), "float32", rng)
    out = golden.empty(x.shape, "float32")
    golden.call("aclnnTril", golden.array(x), 1, out)
    assert sh.same_bits(golden.read(out), torch.from_numpy(x.view(np.int32)).tril(1).numpy())
    golden.call("aclnnTriu", golden.array(x), -1, out)
    assert sh.same_bits(golden.read(out), torch.from_numpy(x.view(np.int32)).triu(-1).numpy())
    for shape in ((0, 3), (3, 0), (2, 0, 4)):
        e = golden.array(np.zeros(shape, np.float32))
        golden.call("aclnnTril", e, 0, golden.empty(shape, "float32"))
        golden.call("aclnnInplaceTriu", e, 0)
    s = golden.array(np.array(3.0, np.float32))
    out = golden.empty((), "float32")
    golden.call("aclnnTriu", s, 0, out)
    assert golden.read(out) == 3.0
    big = 1 << 62
    golden.call("aclnnTril", golden.array(x), big, out := golden.empty(x.shape, "float32"))
    assert sh.same_bits(golden.read(out), x)
    golden.call("aclnnTril", golden.array(x), -big, out)
    assert np.all(golden.read(out) == 0)


def test_tri_errors():
    x = golden.array(np.zeros((3, 3), np.float32))
    o = golden.empty((3, 3), "float32")
    for name in ("aclnnTril", "aclnnTriu"):
        assert golden.phase1_status(name, None, 0, o) == NULL
        assert golden.phase1_status(name, x, 0, None) == NULL
        assert golden.phase1_status(name, x, 0, golden.empty((3, 4), "float32")) == INVALID
        assert golden.phase1_status(name, x, 0, golden.empty((3, 3), "float16")) == INVALID
        assert golden.phase1_status(name, golden.array(np.zeros(3, np.float32)), 0, golden.empty((3,), "float32")) \
            == INVALID
        assert "dims" in golden.recent_error()
    assert golden.phase1_status("aclnnInplaceTriu", None, 0) == NULL
    assert golden.phase1_status("aclnnInplaceTriu", golden.array(np.zeros(3, np.float32)), 0) == INVALID


# ---- Roll ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ROLL_DTS)
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_roll(dt, layout, out_layout):
    rng = np.random.default_rng(3)
    x = sh.rand((3, 4, 5), dt, rng)
    for shifts, dims in (([1], [0]), ([2, -7], [-1, 1]), ([3, 1, 2], [0, 1, 2]), ([2, 3], [2, 2]), ([0], [1]),
                         ([4], []), ([-13], [])):
        ref = np.roll(x, shifts, axis=tuple(dims)) if dims else np.roll(x, shifts[0])
        out = golden.empty(x.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnRoll", golden.array(x, dt, layout=layout), shifts, dims, out)
        assert sh.same_bits(golden.read(out), ref), (shifts, dims)
        sh.check_gaps(out, dt)


def test_roll_shapes():
    rng = np.random.default_rng(4)
    x = sh.rand((2, 1, 3, 2, 1, 2, 3, 2), "int64", rng)
    shifts, dims = [1, 5, -1, 2, 1, 1, 1, 1], [0, 1, 2, 3, 4, 5, 6, 7]
    out = golden.empty(x.shape, "int64")
    golden.call("aclnnRoll", golden.array(x, layout="padded"), shifts, dims, out)
    assert sh.same_bits(golden.read(out), torch.roll(torch.from_numpy(x), shifts, dims).numpy())
    e = golden.array(np.zeros((0, 3), np.float32))
    golden.call("aclnnRoll", e, [1], [0], golden.empty((0, 3), "float32"))
    golden.call("aclnnRoll", e, [1], None, golden.empty((0, 3), "float32"))
    s = golden.array(np.array(5, np.int32))
    out = golden.empty((), "int32")
    golden.call("aclnnRoll", s, [3], [0], out)
    assert golden.read(out) == 5


def test_roll_errors():
    x = golden.array(np.zeros((3, 4), np.float32))
    o = golden.empty((3, 4), "float32")
    assert golden.phase1_status("aclnnRoll", None, [1], [0], o) == NULL
    assert golden.phase1_status("aclnnRoll", x, None, [0], o) == NULL
    assert golden.phase1_status("aclnnRoll", x, [1], [0], None) == NULL
    assert golden.phase1_status("aclnnRoll", x, [1, 2], [0], o) == INVALID
    assert golden.phase1_status("aclnnRoll", x, [1, 2], [], o) == INVALID
    assert golden.phase1_status("aclnnRoll", x, [1], [2], o) == INVALID
    assert golden.phase1_status("aclnnRoll", x, [1], [0], golden.empty((4, 3), "float32")) == INVALID
    d = golden.array(np.zeros((3, 4), np.float64))
    assert golden.phase1_status("aclnnRoll", d, [1], [0], golden.empty((3, 4), "float64")) == INVALID


# ---- ReflectionPad1d ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", REFL_DTS)
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_reflection_pad1d(dt, layout, out_layout):
    rng = np.random.default_rng(5)
    for shape, pad in (((3, 6), (2, 5)), ((2, 3, 4), (3, 0)), ((2, 3, 4), (0, 0)), ((1, 2, 7), (6, 6))):
        x = sh.rand(shape, dt, rng)
        ref = np.pad(x, [(0, 0)] * (x.ndim - 1) + [pad], mode="reflect")
        out = golden.empty(ref.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnReflectionPad1d", golden.array(x, dt, layout=layout), list(pad), out)
        assert sh.same_bits(golden.read(out), ref), (shape, pad)
        sh.check_gaps(out, dt)


def test_reflection_pad1d_torch():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3, 16)).astype(np.float32)
    out = golden.empty((4, 3, 27), "float32")
    golden.call("aclnnReflectionPad1d", golden.array(x), [4, 7], out)
    ref = torch.nn.functional.pad(torch.from_numpy(x), (4, 7), mode="reflect").numpy()
    assert sh.same_bits(golden.read(out), ref)
    out = golden.empty((0, 3, 6), "float32")
    golden.call("aclnnReflectionPad1d", golden.array(np.zeros((0, 3, 4), np.float32)), [1, 1], out)


def test_reflection_pad1d_errors():
    name = "aclnnReflectionPad1d"
    x = golden.array(np.zeros((2, 4), np.float32))
    o = golden.empty((2, 6), "float32")
    assert golden.phase1_status(name, None, [1, 1], o) == NULL
    assert golden.phase1_status(name, x, None, o) == NULL
    assert golden.phase1_status(name, x, [1, 1], None) == NULL
    assert golden.phase1_status(name, x, [4, 0], golden.empty((2, 8), "float32")) == INVALID
    assert "padding" in golden.recent_error()
    assert golden.phase1_status(name, x, [-1, 3], o) == INVALID
    assert golden.phase1_status(name, x, [1], o) == INVALID
    assert golden.phase1_status(name, x, [1, 1], golden.empty((2, 7), "float32")) == INVALID
    assert golden.phase1_status(name, golden.array(np.zeros(4, np.float32)), [1, 1], golden.empty((6,), "float32")) \
        == INVALID
    assert golden.phase1_status(name, golden.array(np.zeros((0, 4), np.float32)), [1, 1],
                                golden.empty((0, 6), "float32")) == INVALID


# ---- InplaceIndexFillTensor ---------------------------------------------------------------------

@pytest.mark.parametrize("dt", FILL_DTS)
@pytest.mark.parametrize("layout", ["contig", "transposed", "offset", "padded"])
def test_index_fill(dt, layout):
    rng = np.random.default_rng(7)
    x = sh.rand((4, 5, 3), dt, rng)
    value = True if dt == "bool" else 2
    v = golden.storage_of(float(value), dt)
    for dim, idx in ((0, [0, 3, 3]), (1, [-1, 1]), (-1, [2]), (2, [])):
        ref = x.copy()
        sl = [slice(None)] * 3
        sl[dim] = [i % x.shape[dim] for i in idx]
        ref[tuple(sl)] = v
        s = golden.array(x, dt, layout=layout, fill=sh.fill_value(dt))
        golden.call("aclnnInplaceIndexFillTensor", s, dim, idx, value)
        assert sh.same_bits(golden.read(s), ref), (dim, idx)
        sh.check_gaps(s, dt)


def test_index_fill_torch():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    s = golden.upload(x, "float32", "transposed")
    golden.call("aclnnInplaceIndexFillTensor", s, 1, [0, -1], cannon.ops.Scalar(-2.5, "float64"))
    assert sh.same_bits(golden.read(s), x.index_fill(1, torch.tensor([0, 3]), -2.5).numpy())


def test_index_fill_errors():
    name = "aclnnInplaceIndexFillTensor"
    x = golden.array(np.zeros((3, 4), np.float32))
    assert golden.phase1_status(name, None, 0, [0], 1.0) == NULL
    assert golden.phase1_status(name, x, 0, None, 1.0) == NULL
    assert golden.phase1_status(name, x, 0, [0], None) == NULL
    assert golden.phase1_status(name, x, 2, [0], 1.0) == INVALID
    assert golden.phase1_status(name, x, 0, [3], 1.0) == INVALID
    assert "index[0] = 3" in golden.recent_error()
    assert golden.phase1_status(name, x, 0, [-4], 1.0) == INVALID
    d = golden.array(np.zeros((3, 4), np.float64))
    assert golden.phase1_status(name, d, 0, [0], 1.0) == INVALID
