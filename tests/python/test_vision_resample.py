"""Golden tests of the vision family's data-movement operators, aclnnUpsampleNearest2d and
aclnnIm2col, against torch (interpolate(mode="nearest") and unfold).

The references are built from torch run on element indices (so torch picks the source of every
output element, 0 marking padding) and applied to random bit patterns of each dtype: results must
be bit-exact, NaN payloads included, with output storage outside the view untouched. Every dtype
the pages list that the Python package can hold, NCHW / NHWC / ND formats, rank 3 and 4, strided
views in and out, empty tensors where allowed. Errors: NULL -> 161001; bad dtype, rank, format,
array or out shape -> 161002 with a message. Neither operator has instruction-set tiers.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
UP_DTS = ["float32", "float16", "bfloat16", "float64", "uint8"]
IM_DTS = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool"]
F = torch.nn.functional


# ---- UpsampleNearest2d --------------------------------------------------------------------------

def nearest_ref(x, oh, ow):
    """torch's nearest resize of (N, C, H, W) storage values @x (any dtype), bit for bit."""
    n, c, h, w = x.shape
    idx = torch.arange(h * w, dtype=torch.float64).reshape(1, 1, h, w)
    src = F.interpolate(idx, size=(oh, ow), mode="nearest").reshape(-1).long().numpy()
    return x.reshape(n, c, h * w)[:, :, src].reshape(n, c, oh, ow)


def run_up(x, dt, size, lx=None, lo=None, nhwc=False):
    fmt = cannon.FORMAT_NHWC if nhwc else cannon.FORMAT_NCHW
    xs = np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1))) if nhwc else x
    a = golden.array(xs, dt, layout=lx, format=fmt)
    oshape = (x.shape[0], size[0], size[1], x.shape[1]) if nhwc else (x.shape[0], x.shape[1]) + tuple(size)
    out = golden.empty(oshape, dt, layout=lo, fill=sh.fill_value(dt), format=fmt)
    golden.call("aclnnUpsampleNearest2d", a, list(size), out)
    sh.check_gaps(out, dt)
    got = golden.read(out)
    return np.transpose(got, (0, 3, 1, 2)) if nhwc else got


@pytest.mark.parametrize("dt", UP_DTS)
@pytest.mark.parametrize("lx,lo", [("contig", "contig"), ("transposed", "strided"), ("offset", "padded")])
def test_upsample(dt, lx, lo):
    rng = np.random.default_rng(1)
    x = sh.rand((2, 3, 4, 5), dt, rng)
    for size in [(8, 10), (4, 5), (7, 3), (3, 13), (1, 1), (9, 11)]:
        got = run_up(x, dt, size, lx, lo)
        assert sh.same_bits(got, nearest_ref(x, *size)), size


@pytest.mark.parametrize("dt", ["float32", "uint8"])
def test_upsample_nhwc_and_odd_ratios(dt):
    rng = np.random.default_rng(2)
    x = sh.rand((1, 4, 3, 7), dt, rng)
    for size in [(6, 14), (5, 9), (2, 2), (30, 49)]:
        assert sh.same_bits(run_up(x, dt, size, nhwc=True), nearest_ref(x, *size)), size
    x = sh.rand((2, 2, 37, 61), dt, rng)
    for size in [(100, 7), (37, 127), (53, 61)]:
        assert sh.same_bits(run_up(x, dt, size, "padded", "strided"), nearest_ref(x, *size)), size


def test_upsample_format_nd_and_empty_batch_error():
    rng = np.random.default_rng(3)
    x = sh.rand((1, 2, 3, 3), "float32", rng)
    a = golden.array(x, "float32")  # ND: handled as NCHW
    out = golden.empty((1, 2, 6, 6), "float32")
    golden.call("aclnnUpsampleNearest2d", a, [6, 6], out)
    assert sh.same_bits(golden.read(out), nearest_ref(x, 6, 6))
    e = golden.array(np.zeros((0, 2, 3, 3), np.float32))
    assert golden.phase1_status("aclnnUpsampleNearest2d", e, [6, 6], golden.empty((0, 2, 6, 6), "float32")) == INVALID
    assert "empty" in golden.recent_error()


def test_upsample_errors():
    op = "aclnnUpsampleNearest2d"
    x = golden.array(np.zeros((1, 2, 3, 4), np.float32))
    o = golden.empty((1, 2, 6, 8), "float32")
    assert golden.phase1_status(op, None, [6, 8], o) == NULL
    assert golden.phase1_status(op, x, None, o) == NULL
    assert golden.phase1_status(op, x, [6, 8], None) == NULL
    assert golden.phase1_status(op, x, [6, 8], o) == 0
    assert golden.phase1_status(op, x, [6], o) == INVALID
    assert "outputSize" in golden.recent_error()
    assert golden.phase1_status(op, x, [0, 8], o) == INVALID
    assert golden.phase1_status(op, x, [6, -8], o) == INVALID
    assert golden.phase1_status(op, x, [6, 9], o) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status(op, x, [6, 8], golden.empty((1, 3, 6, 8), "float32")) == INVALID
    assert golden.phase1_status(op, x, [6, 8], golden.empty((1, 2, 6, 8), "float16")) == INVALID
    xi = golden.array(np.zeros((1, 2, 3, 4), np.int32))
    assert golden.phase1_status(op, xi, [6, 8], golden.empty((1, 2, 6, 8), "int32")) == INVALID
    assert "INT32" in golden.recent_error()
    x3 = golden.array(np.zeros((2, 3, 4), np.float32))
    assert golden.phase1_status(op, x3, [6, 8], golden.empty((2, 6, 8), "float32")) == INVALID
    assert "4 dims" in golden.recent_error()
    xh = golden.array(np.zeros((1, 3, 4, 2), np.float32), format=cannon.FORMAT_NHWC)
    assert golden.phase1_status(op, xh, [6, 8], golden.empty((1, 2, 6, 8), "float32")) == INVALID
    assert "format" in golden.recent_error()
    xn = golden.array(np.zeros((1, 2, 3, 4), np.float32), format=cannon.FORMAT_NCDHW)
    assert golden.phase1_status(op, xn, [6, 8], o) == INVALID


# ---- Im2col -------------------------------------------------------------------------------------

def im2col_ref(x, k, d, p, s):
    """torch.unfold of storage values @x ((N, C, H, W) or (C, H, W), any dtype), bit for bit;
    padding positions hold zero bytes."""
    x4 = x if x.ndim == 4 else x[None]
    n, c, h, w = x4.shape
    idx = torch.arange(1, c * h * w + 1, dtype=torch.float64).reshape(1, c, h, w)
    src = F.unfold(idx, kernel_size=k, dilation=d, padding=p, stride=s)[0].long().numpy()
    flat = x4.reshape(n, c * h * w)
    ref = np.zeros((n,) + src.shape, dtype=x.dtype)
    ref[:, src > 0] = flat[:, src[src > 0] - 1]
    return ref if x.ndim == 4 else ref[0]


def run_im(x, dt, k, d, p, s, lx=None, lo=None):
    ref = im2col_ref(x, k, d, p, s)
    a = golden.array(x, dt, layout=lx)
    out = golden.empty(ref.shape, dt, layout=lo, fill=sh.fill_value(dt))
    golden.call("aclnnIm2col", a, list(k), list(d), list(p), list(s), out)
    sh.check_gaps(out, dt)
    return golden.read(out), ref


@pytest.mark.parametrize("dt", IM_DTS)
@pytest.mark.parametrize("lx,lo", [("contig", "contig"), ("transposed", "strided"), ("offset", "padded")])
def test_im2col(dt, lx, lo):
    rng = np.random.default_rng(4)
    x = sh.rand((2, 3, 6, 7), dt, rng)
    for k, d, p, s in [((3, 3), (1, 1), (1, 1), (1, 1)), ((2, 3), (2, 1), (0, 2), (2, 3)),
                       ((1, 1), (1, 1), (0, 0), (1, 1)), ((3, 2), (1, 3), (2, 1), (1, 2))]:
        got, ref = run_im(x, dt, k, d, p, s, lx, lo)
        assert sh.same_bits(got, ref), (k, d, p, s)


@pytest.mark.parametrize("dt", ["float32", "bfloat16", "int64"])
def test_im2col_rank3_and_big_padding(dt):
    rng = np.random.default_rng(5)
    x = sh.rand((4, 5, 3), dt, rng)
    for k, d, p, s in [((2, 2), (1, 1), (1, 1), (2, 2)), ((3, 1), (1, 1), (4, 3), (3, 1)),
                       ((5, 3), (1, 1), (0, 0), (1, 1)), ((2, 2), (3, 2), (3, 3), (1, 4))]:
        got, ref = run_im(x, dt, k, d, p, s, "transposed", "padded")
        assert sh.same_bits(got, ref), (k, d, p, s)
    # ggml's 1-D use: (N, C, 1, L) with a (1, K) kernel
    x = sh.rand((2, 4, 1, 50), dt, rng)
    got, ref = run_im(x, dt, (1, 5), (1, 2), (0, 3), (1, 2))
    assert sh.same_bits(got, ref)


def test_im2col_page_example_and_empty():
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    got, ref = run_im(x, "float32", (2, 2), (1, 1), (1, 1), (2, 2))
    assert got.shape == (8, 4) and sh.same_bits(got, ref)
    e = np.zeros((0, 2, 4, 4), np.float32)
    got, ref = run_im(e, "float32", (2, 2), (1, 1), (0, 0), (1, 1))
    assert got.shape == (0, 8, 9)
    out = golden.empty((1, 0, 9), "float16")
    golden.call("aclnnIm2col", golden.array(np.zeros((1, 0, 4, 4), np.float16)), [2, 2], [1, 1], [0, 0], [1, 1], out)
    assert golden.read(out).shape == (1, 0, 9)


def test_im2col_errors():
    op = "aclnnIm2col"
    x = golden.array(np.zeros((1, 2, 4, 4), np.float32))
    o = golden.empty((1, 8, 9), "float32")
    k, d, p, s = [2, 2], [1, 1], [0, 0], [1, 1]
    assert golden.phase1_status(op, x, k, d, p, s, o) == 0
    for i in range(6):
        args = [x, k, d, p, s, o]
        args[i] = None
        assert golden.phase1_status(op, *args) == NULL
    assert golden.phase1_status(op, x, [2], d, p, s, o) == INVALID
    assert "kernelSize" in golden.recent_error()
    assert golden.phase1_status(op, x, k, [1, 0], p, s, o) == INVALID
    assert "dilation" in golden.recent_error()
    assert golden.phase1_status(op, x, k, d, [0, -1], s, o) == INVALID
    assert "padding" in golden.recent_error()
    assert golden.phase1_status(op, x, k, d, p, [0, 1], o) == INVALID
    assert "stride" in golden.recent_error()
    assert golden.phase1_status(op, x, k, d, p, s, golden.empty((1, 8, 8), "float32")) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status(op, x, k, d, p, s, golden.empty((8, 9), "float32")) == INVALID
    assert golden.phase1_status(op, x, k, d, p, s, golden.empty((1, 8, 9), "float16")) == INVALID
    assert golden.phase1_status(op, x, [5, 5], d, p, s, o) == INVALID
    assert "no sliding block" in golden.recent_error()
    x2 = golden.array(np.zeros((4, 4), np.float32))
    assert golden.phase1_status(op, x2, k, d, p, s, golden.empty((4, 9), "float32")) == INVALID
    assert "3 or 4 dims" in golden.recent_error()
