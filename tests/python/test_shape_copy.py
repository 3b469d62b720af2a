"""Golden tests of the shape family's copy operators: aclnnPermute, aclnnSlice, aclnnRepeat,
aclnnRepeatInterleaveIntWithDim, aclnnCat and aclnnConstantPadNd, against numpy (and torch for
Cat's dtype promotion and ConstantPadNd).

Pass criteria: bit-exact (byte for byte, random bit patterns of every listed dtype, NaN payloads
included); output storage outside the view untouched; every layout of golden.LAYOUTS in and out,
ranks 0 to 8, empty tensors, negative dims. Error paths: NULL -> 161001; bad dtype, shape, dim,
argument -> 161002 with a message naming it. These operators use no instruction-set tier.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
PERMUTE_DTS = sh.ALL
SLICE_DTS = ["float32", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool"]
REPEAT_DTS = sh.ALL
RINT_DTS = ["uint8", "int8", "int16", "int32", "int64", "bool", "float16", "bfloat16", "float32"]
CAT_DTS = sh.ALL
PAD_DTS = sh.ALL


def run(name, x_np, dt, layout, out_shape, out_layout, *args, before=None):
    """Upload x_np in @layout, run @name(x, *args, out) (or (before..., x, args..., out)), return
    (result, out array)."""
    x = golden.array(x_np, dt, layout=layout)
    out = golden.empty(out_shape, dt, layout=out_layout, fill=sh.fill_value(dt))
    golden.call(name, x, *args, out)
    sh.check_gaps(out, dt)
    return golden.read(out), out


# ---- Permute ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", PERMUTE_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_permute(dt, layout, out_layout):
    rng = np.random.default_rng(1)
    x = sh.rand((3, 4, 5), dt, rng)
    perm = (2, 0, -2)
    ref = np.transpose(x, (2, 0, 1))
    got, _ = run("aclnnPermute", x, dt, layout, ref.shape, out_layout, list(perm))
    assert sh.same_bits(got, ref)


@pytest.mark.parametrize("shape,perm", [((), []), ((0, 3), [1, 0]), ((5,), [0]), ((2, 1, 3, 2, 1, 2, 3, 2),
                                                                                    [7, 2, 0, 5, 1, 3, 6, 4]),
                                        ((64, 48), [1, 0]), ((4, 3, 2, 5), [3, 2, 1, 0])])
def test_permute_shapes(shape, perm):
    rng = np.random.default_rng(2)
    x = sh.rand(shape, "float32", rng)
    ref = np.transpose(x, perm)
    for lay in ("contig", "padded"):
        got, _ = run("aclnnPermute", x, "float32", lay, ref.shape, lay, perm)
        assert sh.same_bits(got, ref)


def test_permute_errors():
    x = golden.array(np.zeros((2, 3), np.float32))
    o = golden.empty((3, 2), "float32")
    assert golden.phase1_status("aclnnPermute", None, [1, 0], o) == NULL
    assert golden.phase1_status("aclnnPermute", x, None, o) == NULL
    assert golden.phase1_status("aclnnPermute", x, [1, 0], None) == NULL
    assert golden.phase1_status("aclnnPermute", x, [1, 0], o, null_executor=True) == NULL
    assert golden.phase1_status("aclnnPermute", x, [0, 0], o) == INVALID
    assert "permutation" in golden.recent_error()
    assert golden.phase1_status("aclnnPermute", x, [1], o) == INVALID
    assert golden.phase1_status("aclnnPermute", x, [2, 0], o) == INVALID
    assert "dims[0] = 2" in golden.recent_error()
    assert golden.phase1_status("aclnnPermute", x, [0, 1], o) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status("aclnnPermute", x, [1, 0], golden.empty((3, 2), "float16")) == INVALID
    c = golden.array(np.zeros((2, 3), np.complex64).view(np.int64), "int64")
    assert golden.phase1_status("aclnnPermute", c, [1, 0], golden.empty((3, 2), "int32")) == INVALID


# ---- Slice --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", SLICE_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_slice(dt, layout, out_layout):
    rng = np.random.default_rng(3)
    x = sh.rand((4, 9, 3), dt, rng)
    ref = x[:, 1:8:3, :]
    got, _ = run("aclnnSlice", x, dt, layout, ref.shape, out_layout, -2, 1, 8, 3)
    assert sh.same_bits(got, ref)


@pytest.mark.parametrize("start,end,step", [(0, 9, 1), (-3, 100, 2), (-100, -2, 1), (5, 2, 1), (9, 12, 1),
                                            (2, -100, 1), (-9, -8, 4), (3, 3, 1), (1, 9, 100), (-1, 9, 1),
                                            (0, -9, 1), (20, 30, 2)])
def test_slice_bounds(start, end, step):
    rng = np.random.default_rng(4)
    x = sh.rand((2, 9), "int32", rng)
    ref = x[:, start:end:step]
    got, _ = run("aclnnSlice", x, "int32", "padded", ref.shape, "strided", 1, start, end, step)
    assert sh.same_bits(got, ref)


def test_slice_shapes():
    rng = np.random.default_rng(5)
    x = sh.rand((2, 1, 3, 2, 1, 2, 3, 4), "float16", rng)
    ref = x[..., 1:4:2]
    got, _ = run("aclnnSlice", x, "float16", "transposed", ref.shape, "padded", 7, 1, 4, 2)
    assert sh.same_bits(got, ref)
    e = sh.rand((0, 5), "float32", rng)
    got, _ = run("aclnnSlice", e, "float32", None, (0, 2), None, 1, 1, 3, 1)
    assert got.shape == (0, 2)
    got, _ = run("aclnnSlice", e, "float32", None, (0, 5), None, 0, 0, 7, 1)
    assert got.shape == (0, 5)


def test_slice_errors():
    x = golden.array(np.zeros((4, 6), np.float32))
    o = golden.empty((4, 2), "float32")
    assert golden.phase1_status("aclnnSlice", None, 1, 0, 2, 1, o) == NULL
    assert golden.phase1_status("aclnnSlice", x, 1, 0, 2, 1, None) == NULL
    assert golden.phase1_status("aclnnSlice", x, 1, 0, 2, 0, o) == INVALID
    assert "step" in golden.recent_error()
    assert golden.phase1_status("aclnnSlice", x, 2, 0, 2, 1, o) == INVALID
    assert "dim" in golden.recent_error()
    assert golden.phase1_status("aclnnSlice", x, 1, 0, 3, 1, o) == INVALID
    assert golden.phase1_status("aclnnSlice", x, 1, 0, 2, 1, golden.empty((4, 2), "int32")) == INVALID
    z = golden.array(np.zeros((), np.float32))
    assert golden.phase1_status("aclnnSlice", z, 0, 0, 1, 1, golden.empty((), "float32")) == INVALID
    d = golden.array(np.zeros((4, 6), np.float64))
    assert golden.phase1_status("aclnnSlice", d, 1, 0, 2, 1, golden.empty((4, 2), "float64")) == INVALID
    assert "DOUBLE" in golden.recent_error()


# ---- Repeat -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", REPEAT_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_repeat(dt, layout, out_layout):
    rng = np.random.default_rng(6)
    x = sh.rand((2, 3, 4), dt, rng)
    reps = [2, 1, 3, 2]
    ref = np.tile(x, reps)
    got, _ = run("aclnnRepeat", x, dt, layout, ref.shape, out_layout, reps)
    assert sh.same_bits(got, ref)


@pytest.mark.parametrize("shape,reps", [((), []), ((), [3, 2]), ((3,), [0]), ((0, 2), [2, 3]), ((1, 4), [3, 1]),
                                        ((2, 1, 2, 1, 2, 1, 2, 1), [2, 2, 2, 2, 2, 1, 2, 3]), ((5, 7), [1, 1]),
                                        ((1, 1), [4, 100])])
def test_repeat_shapes(shape, reps):
    rng = np.random.default_rng(7)
    x = sh.rand(shape, "bfloat16", rng)
    ref = np.tile(x, reps) if reps else x.copy()
    got, _ = run("aclnnRepeat", x, "bfloat16", "padded", ref.shape, "strided", reps)
    assert sh.same_bits(got, ref)
    t = torch.from_numpy(x.view(np.int16)).repeat(*reps) if reps else torch.from_numpy(x.view(np.int16))
    assert sh.same_bits(got, t.numpy())


def test_repeat_errors():
    x = golden.array(np.zeros((2, 3), np.float32))
    o = golden.empty((4, 3), "float32")
    assert golden.phase1_status("aclnnRepeat", None, [2, 1], o) == NULL
    assert golden.phase1_status("aclnnRepeat", x, None, o) == NULL
    assert golden.phase1_status("aclnnRepeat", x, [2, 1], None) == NULL
    assert golden.phase1_status("aclnnRepeat", x, [2], o) == INVALID
    assert "fewer" in golden.recent_error()
    assert golden.phase1_status("aclnnRepeat", x, [2, -1], o) == INVALID
    assert "negative" in golden.recent_error()
    assert golden.phase1_status("aclnnRepeat", x, [1] * 9, o) == INVALID
    assert golden.phase1_status("aclnnRepeat", x, [2, 2], o) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status("aclnnRepeat", x, [2, 1], golden.empty((4, 3), "float16")) == INVALID


# ---- RepeatInterleaveIntWithDim -----------------------------------------------------------------

@pytest.mark.parametrize("dt", RINT_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_repeat_interleave(dt, layout, out_layout):
    rng = np.random.default_rng(8)
    x = sh.rand((3, 4, 2), dt, rng)
    for dim in (0, 1, -1):
        ref = np.repeat(x, 3, axis=dim)
        got, _ = run("aclnnRepeatInterleaveIntWithDim", x, dt, layout, ref.shape, out_layout, 3, dim,
                     ref.shape[dim])
        assert sh.same_bits(got, ref)


@pytest.mark.parametrize("dt", ["float32", "float16", "int8", "int64"])
@pytest.mark.parametrize("shape,r,dim", [((3, 517, 40), 2, 2), ((1000, 77), 3, 1), ((9, 6001, 5), 2, 1),
                                         ((40000, 1), 16, 1), ((700, 3, 2), 5, 1)])
def test_repeat_interleave_short_rows(dt, shape, r, dim):
    """Inner rows of at most 16 elements are copied a block of rows at a time; several blocks of
    the copy (256 KiB each) start in the middle of a row, a row of the next dim and of the one above."""
    rng = np.random.default_rng(10)
    x = sh.rand(shape, dt, rng)
    ref = np.repeat(x, r, axis=dim)
    for layout in ("contig", sh.IN_LAYOUTS[-1]):
        got, _ = run("aclnnRepeatInterleaveIntWithDim", x, dt, layout, ref.shape, "contig", r, dim, ref.shape[dim])
        assert sh.same_bits(got, ref)


@pytest.mark.parametrize("shape,r,dim", [((5,), 0, 0), ((0, 3), 2, 1), ((4,), 1, -1), ((2, 1, 2, 1, 3, 1, 2, 2), 2, 4),
                                         ((1, 1, 32, 64), 2, 3)])
def test_repeat_interleave_shapes(shape, r, dim):
    rng = np.random.default_rng(9)
    x = sh.rand(shape, "float32", rng)
    ref = np.repeat(x, r, axis=dim)
    got, _ = run("aclnnRepeatInterleaveIntWithDim", x, "float32", "contig", ref.shape, "contig", r, dim,
                 ref.shape[dim])
    assert sh.same_bits(got, ref)
    t = torch.from_numpy(x.view(np.int32)).repeat_interleave(r, dim=dim)
    assert sh.same_bits(got, t.numpy())


def test_repeat_interleave_errors():
    name = "aclnnRepeatInterleaveIntWithDim"
    x = golden.array(np.zeros((2, 3), np.float32))
    o = golden.empty((4, 3), "float32")
    assert golden.phase1_status(name, None, 2, 0, 4, o) == NULL
    assert golden.phase1_status(name, x, 2, 0, 4, None) == NULL
    assert golden.phase1_status(name, x, -1, 0, 4, o) == INVALID
    assert "repeats" in golden.recent_error()
    assert golden.phase1_status(name, x, 2, 2, 4, o) == INVALID
    assert golden.phase1_status(name, x, 2, 0, 5, o) == INVALID
    assert "outputSize" in golden.recent_error()
    assert golden.phase1_status(name, x, 2, 1, 6, o) == INVALID
    assert golden.phase1_status(name, x, 2, 0, 4, golden.empty((4, 3), "int32")) == INVALID
    d = golden.array(np.zeros((2, 3), np.float64))
    assert golden.phase1_status(name, d, 2, 0, 4, golden.empty((4, 3), "float64")) == INVALID
    z = golden.array(np.zeros((), np.float32))
    assert golden.phase1_status(name, z, 2, 0, 2, golden.empty((2,), "float32")) == INVALID


# ---- Cat ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", CAT_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_cat(dt, layout, out_layout):
    rng = np.random.default_rng(10)
    parts = [sh.rand((3, k, 4), dt, rng) for k in (2, 1, 3)]
    for dim in (1, -2):
        ref = np.concatenate(parts, axis=dim)
        xs = [golden.array(p, dt, layout=layout) for p in parts]
        out = golden.empty(ref.shape, dt, layout=out_layout, fill=sh.fill_value(dt))
        golden.call("aclnnCat", xs, dim, out)
        assert sh.same_bits(golden.read(out), ref)
        sh.check_gaps(out, dt)


def test_cat_shapes():
    rng = np.random.default_rng(11)
    # rank 8, along the first and last dims
    a, b = sh.rand((1, 2, 1, 2, 1, 2, 1, 3), "int64", rng), sh.rand((1, 2, 1, 2, 1, 2, 1, 2), "int64", rng)
    out = golden.empty((1, 2, 1, 2, 1, 2, 1, 5), "int64")
    golden.call("aclnnCat", [golden.array(a), golden.array(b)], 7, out)
    assert sh.same_bits(golden.read(out), np.concatenate([a, b], 7))
    # empty parts, and torch's legacy 1-D [0] tensors, skipped whatever the rank
    e = sh.rand((2, 0), "float32", rng)
    f = sh.rand((2, 3), "float32", rng)
    legacy = golden.array(np.zeros((0,), np.float32))
    out = golden.empty((2, 3), "float32")
    golden.call("aclnnCat", [golden.array(e), legacy, golden.array(f)], 1, out)
    assert sh.same_bits(golden.read(out), f)
    out = golden.empty((0,), "float32")
    golden.call("aclnnCat", [legacy, legacy], 0, out)
    # one tensor
    out = golden.empty((2, 3), "float32", layout="transposed")
    golden.call("aclnnCat", [golden.array(f)], 0, out)
    assert sh.same_bits(golden.read(out), f)


@pytest.mark.parametrize("dts,out_dt", [(("float32", "float16"), "float32"), (("int32", "float16"), "float16"),
                                        (("int8", "uint8"), "int16"), (("bool", "int64"), "int64"),
                                        (("bfloat16", "float16"), "float32"), (("float32", "float32"), "float16"),
                                        (("int64", "bool"), "float64"), (("bool", "bool"), "int8")])
def test_cat_promotion(dts, out_dt):
    rng = np.random.default_rng(12)
    parts = []
    for dt in dts:
        v = rng.integers(-50, 50, size=(2, 3)) if dt != "bool" else rng.integers(0, 2, size=(2, 3))
        if "float" in dt:
            v = v + 0.25
        parts.append(torch.from_numpy(np.asarray(v)).to(golden.torch_dtype(dt)))
    ref = torch.cat(parts, 1).to(golden.torch_dtype(out_dt))
    out = golden.empty((2, 6), out_dt, layout="padded")
    golden.call("aclnnCat", [golden.upload(p, dt, "transposed") for p, dt in zip(parts, dts)], 1, out)
    assert sh.same_bits(golden.read(out), golden.to_storage(ref, out_dt))


def test_cat_errors():
    a = golden.array(np.zeros((2, 3), np.float32))
    b = golden.array(np.zeros((2, 2), np.float32))
    o = golden.empty((2, 5), "float32")
    assert golden.phase1_status("aclnnCat", None, 1, o) == NULL
    assert golden.phase1_status("aclnnCat", [a, b], 1, None) == NULL
    assert golden.phase1_status("aclnnCat", [a, None], 1, o) == NULL
    assert golden.phase1_status("aclnnCat", [], 1, o) == INVALID
    assert golden.phase1_status("aclnnCat", [a, b], 0, o) == INVALID
    assert "dim 1" in golden.recent_error()
    assert golden.phase1_status("aclnnCat", [a, b], 2, o) == INVALID
    assert golden.phase1_status("aclnnCat", [a, golden.array(np.zeros((2, 2, 1), np.float32))], 1, o) == INVALID
    assert golden.phase1_status("aclnnCat", [a, b], 1, golden.empty((2, 6), "float32")) == INVALID
    assert "shape" in golden.recent_error()
    # float into an integer out: not castable
    assert golden.phase1_status("aclnnCat", [a, b], 1, golden.empty((2, 5), "int32")) == INVALID
    assert "cannot be cast" in golden.recent_error()
    z = golden.array(np.zeros((), np.float32))
    assert golden.phase1_status("aclnnCat", [z, z], 0, golden.empty((2,), "float32")) == INVALID


# ---- ConstantPadNd ------------------------------------------------------------------------------

def pad_ref(x, pad, value):
    """numpy constant padding with negative pads cropping (torch's constant_pad_nd)."""
    nd = x.ndim
    pairs = [(0, 0)] * nd
    for k in range(len(pad) // 2):
        pairs[nd - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    oshape = tuple(x.shape[d] + pairs[d][0] + pairs[d][1] for d in range(nd))
    out = np.full(oshape, value, dtype=x.dtype)
    src, dst = [], []
    for d in range(nd):
        b = pairs[d][0]
        lo, hi = max(0, b), min(oshape[d], x.shape[d] + b)
        hi = max(hi, lo)
        dst.append(slice(lo, hi))
        src.append(slice(lo - b, hi - b))
    out[tuple(dst)] = x[tuple(src)]
    return out


@pytest.mark.parametrize("dt", PAD_DTS)
@pytest.mark.parametrize("layout", sh.IN_LAYOUTS)
@pytest.mark.parametrize("out_layout", sh.OUT_LAYOUTS)
def test_constant_pad(dt, layout, out_layout):
    rng = np.random.default_rng(13)
    x = sh.rand((3, 4, 5), dt, rng)
    pad = [1, 2, 0, 3, -1, 1]
    value = True if dt == "bool" else 3
    fill = golden.storage_of(float(value), dt)
    ref = pad_ref(x, pad, fill.item() if hasattr(fill, "item") else fill)
    got, _ = run("aclnnConstantPadNd", x, dt, layout, ref.shape, out_layout, pad, value)
    assert sh.same_bits(got, ref)


@pytest.mark.parametrize("shape,pad", [((), []), ((4,), [2, 3]), ((4,), [-1, -2]), ((2, 3), [-3, 0]),
                                       ((2, 3), [-5, 4]), ((2, 3), [0, 0, 0, 0]), ((0, 3), [-1, 0]), ((2, 3), [-1, -1]),
                                       ((2, 1, 2, 1, 2, 1, 2, 1), [1, 1, 0, 2, 1, 0, 0, 0, 1, 1, 0, 0, 2, 0, 0, 1]),
                                       ((1, 2, 40, 80), [0, 48])])
def test_constant_pad_shapes(shape, pad):
    rng = np.random.default_rng(14)
    x = sh.rand(shape, "float32", rng)
    ref = pad_ref(x, pad, np.float32(-1.5))
    got, _ = run("aclnnConstantPadNd", x, "float32", "padded" if x.ndim else None, ref.shape, "strided", pad, -1.5)
    assert sh.same_bits(got, ref)
    if pad and all(x.shape[x.ndim - 1 - k // 2] + min(pad[k], 0) >= 0 for k in range(len(pad))):
        t = torch.nn.functional.pad(torch.from_numpy(x), pad, value=-1.5)  # torch cannot crop beyond a dim
        assert sh.same_bits(got, t.numpy())


@pytest.mark.parametrize("dt,value,expect", [("float16", 1e-8, 0x0000), ("float16", 65520.0, 0x7c00),
                                             ("float16", -0.1, None), ("bfloat16", 1.00390625, 0x3f80),
                                             ("int8", 300, 44), ("int32", -2.9, -2), ("uint8", -1, 255),
                                             ("bool", 0.5, True), ("float32", float("-inf"), None)])
def test_constant_pad_value(dt, value, expect):
    """The value is converted once to self's dtype (double scalars round directly, integers wrap,
    floats truncate toward zero into integers)."""
    x = golden.array(np.zeros((1,), golden.dtype(dt).np), dt)
    out = golden.empty((2,), dt)
    golden.call("aclnnConstantPadNd", x, [1, 0], cannon_scalar(value), out)
    got = golden.read(out)[:1]
    if expect is None:
        ref = golden.storage_of(np.array([value], np.float64), dt)
        assert sh.same_bits(got, ref)
    elif dt in ("float16", "bfloat16"):
        assert got.view(np.uint16)[0] == expect
    else:
        assert got[0] == expect


def cannon_scalar(value):
    if isinstance(value, float):
        return cannon.ops.Scalar(value, "float64")
    return cannon.ops.Scalar(value)


def test_constant_pad_errors():
    name = "aclnnConstantPadNd"
    x = golden.array(np.zeros((2, 3), np.float32))
    o = golden.empty((2, 5), "float32")
    assert golden.phase1_status(name, None, [1, 1], 0.0, o) == NULL
    assert golden.phase1_status(name, x, None, 0.0, o) == NULL
    assert golden.phase1_status(name, x, [1, 1], None, o) == NULL
    assert golden.phase1_status(name, x, [1, 1], 0.0, None) == NULL
    assert golden.phase1_status(name, x, [1], 0.0, o) == INVALID
    assert "even" in golden.recent_error()
    assert golden.phase1_status(name, x, [1, 1, 0, 0, 0, 0], 0.0, o) == INVALID
    assert golden.phase1_status(name, x, [-2, -2], 0.0, o) == INVALID
    assert "negative" in golden.recent_error()
    assert golden.phase1_status(name, x, [1, 1], 0.0, golden.empty((2, 6), "float32")) == INVALID
    assert golden.phase1_status(name, x, [1, 1], 0.0, golden.empty((2, 5), "int32")) == INVALID
    assert golden.phase1_status(name, x, [1, 1, -2, 0], 0.0, golden.empty((0, 5), "float32")) == INVALID
    assert "empty" in golden.recent_error()


def test_huge_arguments():
    """Sizes and steps near the int64 range where no element is moved: nothing overflows (the
    sanitizer builds check it) and the results are the exact ones."""
    x = golden.array(np.arange(6, dtype=np.int32).reshape(2, 3))
    e = golden.array(np.zeros((0, 3), np.int32))
    golden.call("aclnnRepeatInterleaveIntWithDim", e, 1 << 62, 0, 0, golden.empty((0, 3), "int32"))
    golden.call("aclnnRepeat", x, [0, 1 << 40], golden.empty((0, 3 << 40), "int32", storage_elems=1))
    out = golden.empty((2, 1), "int32")
    golden.call("aclnnSlice", x, 1, 1, 3, 1 << 62, out)
    assert np.array_equal(golden.read(out), [[1], [4]])
    out = golden.empty((2, 3), "int32")
    golden.call("aclnnConstantPadNd", x, [-(1 << 40), 1 << 40], 7, out)
    assert np.all(golden.read(out) == 7)
    wide = golden.empty((0, 1 << 47), "int8", storage_elems=1)
    assert golden.phase1_status("aclnnCat", [wide, wide, wide], 1, golden.empty((0, 3), "int8")) == INVALID
    assert "2^48" in golden.recent_error()
