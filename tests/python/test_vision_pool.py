"""Golden tests of aclnnAvgPool2d (against torch's avg_pool2d in float64) and aclnnMaxPool
(against torch's max_pool2d, and a direct numpy reference for integers and asymmetric pads).

Pass criteria: AvgPool2d: the double mean rounded once, so |y - ref| <= 2^-24 / 2^-11 / 2^-8 *
|ref| (FLOAT / FLOAT16 / BFLOAT16) plus 2^-40 times the window's sum of magnitudes; MaxPool:
bit-exact (the winning element is copied), NaN propagating. Every listed dtype, rank 3 and 4,
ceilMode, countIncludePad, divisorOverride, strided views in and out, empty batches where allowed.
Errors: NULL -> 161001; bad dtype, rank, format, arrays, out shape -> 161002 with a message.
The operators have no instruction-set tiers.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
F = torch.nn.functional
AVG_DTS = ["float32", "float16", "bfloat16"]
MAX_DTS = ["float32", "float16", "bfloat16", "int32", "int64", "uint8", "int16", "int8", "uint16"]
U = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float32": 2.0 ** -149, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}  # the smallest subnormal


# ---- AvgPool2d ----------------------------------------------------------------------------------

def run_avg(x, dt, k, s, p, ceil=False, incl=True, div=0, lx=None, lo=None, cube=0):
    xr = golden.rounded(x, dt)
    t = torch.from_numpy(xr if xr.ndim == 4 else xr[None])
    ref = F.avg_pool2d(t, k, s if s else None, p, ceil, incl, div if div else None).numpy()
    mag = F.avg_pool2d(t.abs(), k, s if s else None, p, ceil, True, 1).numpy()
    if xr.ndim == 3:
        ref, mag = ref[0], mag[0]
    a = golden.array(x, dt, layout=lx, format=cannon.FORMAT_NCHW)
    out = golden.empty(ref.shape, dt, layout=lo, fill=77, format=cannon.FORMAT_NCHW)
    golden.call("aclnnAvgPool2d", a, list(k), list(s), list(p), ceil, incl, div, cube, out)
    sh.check_gaps(out, dt)
    got = golden.read_float(out)
    assert np.all(np.abs(got - ref) <= U[dt] * np.abs(ref) + 2.0 ** -40 * mag + TINY[dt])
    return got


@pytest.mark.parametrize("dt", AVG_DTS)
@pytest.mark.parametrize("lx,lo", [("contig", "contig"), ("transposed", "strided"), ("offset", "padded")])
def test_avgpool(dt, lx, lo):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 7, 9))
    for k, s, p in [((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (1, 1)),
                    ((4, 5), (3, 2), (2, 2)), ((1, 1), (1, 1), (0, 0))]:
        for ceil in (False, True):
            for incl in (True, False):
                run_avg(x, dt, k, s, p, ceil, incl, lx=lx, lo=lo)


@pytest.mark.parametrize("dt", AVG_DTS)
def test_avgpool_divisor_rank3_and_defaults(dt):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 5))
    run_avg(x, dt, (2, 3), (2, 2), (1, 1), div=5)
    run_avg(x, dt, (3, 3), (2, 2), (1, 0), ceil=True, incl=False, div=-2)
    run_avg(x, dt, (2,), (1,), (1,))  # one value for both axes
    run_avg(x, dt, (2, 2), (), (0, 0))  # no strides: the kernel size
    x = rng.standard_normal((1, 2, 40, 33)) * 100
    for cube in (0, 1, 2, 3):
        run_avg(x, dt, (5, 4), (3, 3), (2, 1), cube=cube)
    # ggml's call: kernel (k1, k0), stride, padding, ceil false, countIncludePad true
    run_avg(rng.standard_normal((1, 8, 16, 16)), dt, (3, 3), (2, 2), (1, 1))


def test_avgpool_errors():
    op = "aclnnAvgPool2d"
    x = golden.array(np.zeros((1, 2, 4, 4), np.float32))
    o = golden.empty((1, 2, 2, 2), "float32")
    k, s, p = [2, 2], [2, 2], [0, 0]
    assert golden.phase1_status(op, x, k, s, p, False, True, 0, 0, o) == 0
    assert golden.phase1_status(op, None, k, s, p, False, True, 0, 0, o) == NULL
    assert golden.phase1_status(op, x, None, s, p, False, True, 0, 0, o) == NULL
    assert golden.phase1_status(op, x, k, None, p, False, True, 0, 0, o) == NULL
    assert golden.phase1_status(op, x, k, s, None, False, True, 0, 0, o) == NULL
    assert golden.phase1_status(op, x, k, s, p, False, True, 0, 0, None) == NULL
    assert golden.phase1_status(op, x, [0, 2], s, p, False, True, 0, 0, o) == INVALID
    assert "kernelSize" in golden.recent_error()
    assert golden.phase1_status(op, x, [2, 2, 2], s, p, False, True, 0, 0, o) == INVALID
    assert golden.phase1_status(op, x, k, [2, -1], p, False, True, 0, 0, o) == INVALID
    assert "strides" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, [2, 0], False, True, 0, 0, o) == INVALID
    assert "half" in golden.recent_error()
    # padding near 2^62: "at most half of kernelSize" is decided without overflowing 2 * padding
    assert golden.phase1_status(op, x, k, s, [6109623405325956144, 0], False, True, 0, 0, o) == INVALID
    assert "half" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, [0, 2**63 - 1], False, True, 0, 0, o) == INVALID
    assert golden.phase1_status(op, x, k, s, [], False, True, 0, 0, o) == INVALID
    assert golden.phase1_status(op, x, k, s, p, False, True, 0, 4, o) == INVALID
    assert "cubeMathType" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, p, False, True, 0, 0, golden.empty((1, 2, 3, 2), "float32")) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, p, False, True, 0, 0, golden.empty((1, 2, 2, 2), "float16")) == INVALID
    x64 = golden.array(np.zeros((1, 2, 4, 4), np.float64))
    assert golden.phase1_status(op, x64, k, s, p, False, True, 0, 0, golden.empty((1, 2, 2, 2), "float64")) == INVALID
    assert "DOUBLE" in golden.recent_error()
    x2 = golden.array(np.zeros((4, 4), np.float32))
    assert golden.phase1_status(op, x2, k, s, p, False, True, 0, 0, golden.empty((2, 2), "float32")) == INVALID
    e = golden.array(np.zeros((0, 2, 4, 4), np.float32))
    assert golden.phase1_status(op, e, k, s, p, False, True, 0, 0, golden.empty((0, 2, 2, 2), "float32")) == INVALID
    assert "empty" in golden.recent_error()
    xh = golden.array(np.zeros((1, 2, 4, 4), np.float32), format=cannon.FORMAT_NHWC)
    assert golden.phase1_status(op, xh, k, s, p, False, True, 0, 0, o) == INVALID
    assert "format" in golden.recent_error()


# ---- MaxPool ------------------------------------------------------------------------------------

def max_ref(x, k, s, pads, ceil):
    """Direct max pooling of storage values @x ((N, C, H, W) or (C, H, W)): pads (top, left, bottom,
    right); returns the winners' storage values (NaN propagating for floats)."""
    x4 = x if x.ndim == 4 else x[None]
    n, c, h, w = x4.shape
    (kh, kw), (sh_, sw), (pt, pl, pb, pr) = k, s, pads

    def size(i, kk, ss, a, b):
        num = i + a + b - kk + (ss - 1 if ceil else 0)
        o = num // ss + 1
        if ceil and (o - 1) * ss >= i + a:
            o -= 1
        return o
    oh, ow = size(h, kh, sh_, pt, pb), size(w, kw, sw, pl, pr)
    ref = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = max(i * sh_ - pt, 0), max(j * sw - pl, 0)
            h1, w1 = min(i * sh_ - pt + kh, h), min(j * sw - pl + kw, w)
            win = x4[:, :, h0:h1, w0:w1].reshape(n, c, -1)
            if win.shape[-1] == 0:  # wholly in the end padding: the lowest value
                ref[:, :, i, j] = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
                continue
            key = win
            if win.dtype.kind == "f":  # NaN above +inf above every number
                key = win.astype(np.float64)
                key = np.where(np.isnan(key), np.inf, np.where(key == np.inf, np.finfo(np.float64).max, key))
            ref[:, :, i, j] = np.take_along_axis(win, np.argmax(key, axis=-1)[..., None], -1)[..., 0]
    return ref if x.ndim == 4 else ref[0]


def run_max(x, dt, k, s, pads, ceil, lx=None, lo=None, host=None):
    """@x storage values of @dt; @pads as passed (0, 1, 2 or 4 values)."""
    pads = tuple(pads)
    p4 = pads * 4 if len(pads) == 1 else pads * 2 if len(pads) == 2 else pads if pads else (0, 0, 0, 0)
    ref = max_ref(host if host is not None else x, k if len(k) == 2 else (k[0], k[0]),
                  (s if len(s) == 2 else (s[0], s[0])) if s else (1, 1), p4, ceil)
    a = golden.array(x, dt, layout=lx)
    out = golden.empty(ref.shape, dt, layout=lo, fill=sh.fill_value(dt))
    golden.call("aclnnMaxPool", a, list(k), list(s), 0, list(pads), [1, 1], 1 if ceil else 0, out)
    sh.check_gaps(out, dt)
    return golden.read(out), ref


def rand_vals(shape, dt, rng):
    """Storage values of @dt: distinct-ish random numbers (floats with a NaN and infinities)."""
    if dt in ("float32", "float16", "bfloat16"):
        v = rng.standard_normal(shape) * 10
        v.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
        return golden.quantize(v, dt)[0]
    info = np.iinfo(golden.dtype(dt).np)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=golden.dtype(dt).np)


def host_values(x, dt):
    """Storage values as comparable host numbers (bf16 bit patterns decoded to float32)."""
    return golden.decode(x, dt).astype(np.float32) if dt == "bfloat16" else x


@pytest.mark.parametrize("dt", MAX_DTS)
@pytest.mark.parametrize("lx,lo", [("contig", "contig"), ("transposed", "strided"), ("offset", "padded")])
def test_maxpool(dt, lx, lo):
    rng = np.random.default_rng(3)
    x = rand_vals((2, 3, 7, 8), dt, rng)
    hv = host_values(x, dt)
    for k, s, pads in [((2, 2), (2, 2), ()), ((3, 3), (1, 1), (1,)), ((3, 2), (2, 1), (1, 1)),
                       ((4, 3), (3, 2), (1, 0, 2, 3)), ((1, 1), (), ())]:
        for ceil in (False, True):
            got, ref = run_max(x, dt, k, s, pads, ceil, lx, lo, host=hv)
            if dt == "bfloat16":
                got = golden.decode(got, dt).astype(np.float32)
            assert np.array_equal(got, ref, equal_nan=dt.startswith(("float", "bfloat"))), (k, s, pads, ceil)


def test_maxpool_torch_and_ggml_call():
    """Against torch's max_pool2d (symmetric pads), and ggml's call: pre-padded input, pads
    (0, 0, 0, 0), dilations (1, 1), ceilMode 0."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 9, 10)).astype(np.float32)
    for k, s, p, ceil in [((3, 3), (2, 2), (1, 1), False), ((2, 3), (1, 2), (1, 1), True), ((4, 4), (3, 3), (2, 1), True)]:
        ref = F.max_pool2d(torch.from_numpy(x), k, s, p, ceil_mode=ceil).numpy()
        out = golden.empty(ref.shape, "float32")
        golden.call("aclnnMaxPool", golden.array(x), list(k), list(s), 0, list(p), [], 1 if ceil else 0, out)
        assert np.array_equal(golden.read(out), ref)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.finfo(np.float32).max)
    ref = F.max_pool2d(torch.from_numpy(x), (3, 3), (2, 2), (1, 1)).numpy()
    out = golden.empty(ref.shape, "float32", format=cannon.FORMAT_NCHW)
    golden.call("aclnnMaxPool", golden.array(xp, format=cannon.FORMAT_NCHW), [3, 3], [2, 2], 0, [0, 0, 0, 0],
                [1, 1], 0, out)
    assert np.array_equal(golden.read(out), ref)


def test_maxpool_rank3_empty_batch_and_padding_windows():
    rng = np.random.default_rng(5)
    x = rand_vals((3, 5, 6), "int16", rng)
    got, ref = run_max(x, "int16", (2, 2), (2, 2), (1, 1), True)
    assert np.array_equal(got, ref)
    e = golden.array(np.zeros((0, 2, 4, 4), np.float32))
    out = golden.empty((0, 2, 2, 2), "float32")
    golden.call("aclnnMaxPool", e, [2, 2], [2, 2], 0, [0], [1], 0, out)
    # pads adding up to the kernel: a window wholly in the end padding takes the lowest value
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    out = golden.empty((1, 1, 3, 3), "float32")
    golden.call("aclnnMaxPool", golden.array(x), [1, 1], [1, 1], 0, [0, 0, 1, 1], [1, 1], 0, out)
    got = golden.read(out)
    assert np.array_equal(got[0, 0, :2, :2], x[0, 0]) and np.all(got[0, 0, 2, :] == -np.inf)


def test_maxpool_errors():
    op = "aclnnMaxPool"
    x = golden.array(np.zeros((1, 2, 4, 4), np.float32))
    o = golden.empty((1, 2, 2, 2), "float32")
    k, s, p, d = [2, 2], [2, 2], [0, 0], [1, 1]
    assert golden.phase1_status(op, x, k, s, 0, p, d, 0, o) == 0
    for i in (0, 1, 2, 4, 5, 7):
        args = [x, k, s, 0, p, d, 0, o]
        args[i] = None
        assert golden.phase1_status(op, *args) == NULL
    assert golden.phase1_status(op, x, [2, 2, 2], s, 0, p, d, 0, o) == INVALID
    assert "kernelShape" in golden.recent_error()
    assert golden.phase1_status(op, x, k, [0], 0, p, d, 0, o) == INVALID
    assert golden.phase1_status(op, x, k, s, 1, p, d, 0, o) == INVALID
    assert "autoPad" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, 0, [0, 0, 0], d, 0, o) == INVALID
    assert "pads" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, 0, [2, 1], d, 0, o) == INVALID
    assert "kernel size" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, 0, p, [2, 1], 0, o) == INVALID
    assert "dilations" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, 0, p, d, 0, golden.empty((1, 2, 3, 2), "float32")) == INVALID
    assert "shape" in golden.recent_error()
    assert golden.phase1_status(op, x, k, s, 0, p, d, 0, golden.empty((1, 2, 2, 2), "int32")) == INVALID
    xb = golden.array(np.zeros((1, 2, 4, 4), np.bool_))
    assert golden.phase1_status(op, xb, k, s, 0, p, d, 0, golden.empty((1, 2, 2, 2), "bool")) == INVALID
    assert "BOOL" in golden.recent_error()
    xf = golden.array(np.zeros((1, 2, 4, 4), np.float32), format=cannon.FORMAT_NCHW)
    assert golden.phase1_status(op, xf, k, s, 0, p, d, 0, o) == INVALID
    assert "format" in golden.recent_error()
    e = golden.array(np.zeros((1, 0, 4, 4), np.float32))
    assert golden.phase1_status(op, e, k, s, 0, p, d, 0, golden.empty((1, 0, 2, 2), "float32")) == INVALID
    assert "empty" in golden.recent_error()
