"""Golden tests of aclnnConvolution against torch's conv1d/conv2d/conv3d and conv_transpose1d/2d
run in float64 on the values the inputs hold.

Pass criterion per output element: |y - ref| <= u * |ref| + 2^-40 * (|x| conv |w| + |bias|), u =
2^-24 / 2^-11 / 2^-8 for a FLOAT / FLOAT16 / BFLOAT16 output (products and sums in double, one
rounding). Forward and transposed, 1-D, 2-D (and 3-D forward), stride, padding (symmetric and
begin/end pairs), dilation, output padding, groups (depthwise too), with and without bias, mixed
input/weight dtypes, strided views, empty batches, ggml's CONV_TRANSPOSE_1D and SSM_CONV calls,
determinism across thread counts. Errors: NULL -> 161001; bad dtype, rank, arrays, groups,
channels, bias, output shape -> 161002 with a message. No instruction-set tiers.
"""
import numpy as np
import pytest
import torch

import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
F = torch.nn.functional
DTS = ["float32", "float16", "bfloat16"]
U = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float32": 2.0 ** -149, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}
OP = "aclnnConvolution"


def torch_conv(x, w, b, s, p, d, transposed, op, groups):
    sp = x.ndim - 2
    if transposed:
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[sp]
        return fn(x, w, b, s, p, op, groups, d)
    if isinstance(p, tuple) and len(p) == 2 * sp:  # (begin, end) pairs: pad first
        pads = []
        for k in reversed(range(sp)):
            pads += [p[2 * k], p[2 * k + 1]]
        x = F.pad(x, pads)
        p = 0
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[sp]
    return fn(x, w, b, s, p, d, groups)


def run(xs, ws, bs, s, p, d, transposed, op, groups, xdt, wdt, odt, lx=None, lw=None, lo=None, bdt=None):
    rng = np.random.default_rng(abs(hash((xs, ws, transposed))) % 2 ** 32)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    b = rng.standard_normal(bs) if bs else None
    xr, wr = golden.rounded(x, xdt), golden.rounded(w, wdt)
    br = golden.rounded(b, bdt or xdt) if b is not None else None
    tb = torch.from_numpy(br) if br is not None else None
    ref = torch_conv(torch.from_numpy(xr), torch.from_numpy(wr), tb, s, p, d, transposed, op, groups).numpy()
    mag = torch_conv(torch.from_numpy(np.abs(xr)), torch.from_numpy(np.abs(wr)),
                     torch.from_numpy(np.abs(br)) if br is not None else None, s, p, d, transposed, op, groups).numpy()
    xa = golden.array(x, xdt, layout=lx)
    wa = golden.array(w, wdt, layout=lw)
    ba = golden.array(b, bdt or xdt) if b is not None else None
    out = golden.empty(ref.shape, odt, layout=lo, fill=77)
    sp = len(xs) - 2
    pl = list(p) if isinstance(p, tuple) else [p] * sp
    golden.call(OP, xa, wa, ba, [s] * sp if isinstance(s, int) else list(s), pl,
                [d] * sp if isinstance(d, int) else list(d), transposed,
                [op] * sp if isinstance(op, int) else list(op), groups, out, 0)
    got = golden.read_float(out)
    assert got.shape == ref.shape
    err = np.abs(got - ref)
    bound = U[odt] * np.abs(ref) + 2.0 ** -40 * mag + TINY[odt]
    assert np.all(err <= bound), f"max excess {np.max(err - bound)}"
    return got


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("bias", [False, True])
def test_conv1d(dt, bias):
    for xs, ws, s, p, d, g in [((2, 4, 20), (6, 4, 3), 1, 0, 1, 1), ((1, 6, 17), (6, 2, 5), 2, 2, 2, 3),
                               ((3, 3, 9), (3, 1, 4), 1, 3, 1, 3), ((2, 2, 8), (4, 2, 1), 3, 0, 1, 1)]:
        run(xs, ws, (ws[0],) if bias else None, s, p, d, False, 0, g, dt, dt, dt)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("bias", [False, True])
def test_conv2d(dt, bias):
    for xs, ws, s, p, d, g in [((2, 3, 9, 8), (4, 3, 3, 3), 1, 1, 1, 1), ((1, 4, 11, 7), (6, 2, 3, 2), (2, 1), (1, 0),
                                                                         (1, 2), 2),
                               ((1, 2, 5, 5), (2, 1, 5, 5), 1, 2, 1, 2)]:
        run(xs, ws, (ws[0],) if bias else None, s, p, d, False, 0, g, dt, dt, dt)


@pytest.mark.parametrize("dt", DTS)
def test_conv_transposed(dt):
    for xs, ws, s, p, d, op, g in [((2, 4, 10), (4, 3, 3), 1, 0, 1, 0, 1), ((1, 4, 7), (4, 2, 4), 3, 1, 1, 2, 2),
                                   ((2, 3, 6), (3, 2, 5), 2, 2, 2, 1, 1), ((1, 2, 5, 4), (2, 3, 3, 2), (2, 1), (1, 0),
                                                                           (1, 2), (1, 0), 1)]:
        run(xs, ws, (ws[1] * g,), s, p, d, True, op, g, dt, dt, dt)
        run(xs, ws, None, s, p, d, True, op, g, dt, dt, dt, lx="transposed", lw="offset", lo="strided")


def test_conv3d_pairs_views_and_mixed_dtypes():
    run((1, 2, 4, 5, 6), (3, 2, 2, 3, 2), None, (1, 2, 1), (1, 0, 1), 1, False, 0, 1, "float32", "float32", "float32")
    run((2, 3, 12), (4, 3, 3), (4,), 2, (2, 1), 1, False, 0, 1, "float32", "float32", "float32")  # begin/end
    run((1, 2, 7, 6), (3, 2, 3, 3), None, 1, (0, 2, 1, 0), 1, False, 0, 1, "float16", "float16", "float16")
    run((2, 4, 6, 7), (4, 4, 2, 3), (4,), 1, 1, 1, False, 0, 1, "float32", "float32", "float32",
        lx="transposed", lw="padded", lo="offset")
    # mixed: f16 weight with f32 input (ggml's CONV_TRANSPOSE_1D with an F16 kernel), bf16 x f16
    run((1, 4, 9), (4, 2, 3), None, 1, 0, 1, True, 0, 1, "float32", "float16", "float32")
    run((1, 4, 9), (2, 4, 3), (2,), 1, 1, 1, False, 0, 1, "bfloat16", "float16", "float16", bdt="bfloat16")
    run((1, 4, 9), (2, 4, 3), None, 1, 1, 1, False, 0, 1, "float16", "float16", "float32")


def test_ggml_calls():
    """CONV_TRANSPOSE_1D: (1, IC, L) with (IC, OC, K), stride s0, padding 0, dilation 1, NCL; SSM_CONV:
    a depthwise 1-D convolution, groups = channels, weight (C, 1, K)."""
    run((1, 16, 33), (16, 8, 4), None, 2, 0, 1, True, 0, 1, "float32", "float16", "float32")
    run((1, 32, 20), (32, 1, 4), None, 1, 0, 1, False, 0, 32, "float32", "float32", "float32")


def test_empty_batch_and_zero_channels():
    out = golden.empty((0, 3, 6), "float32")
    golden.call(OP, golden.array(np.zeros((0, 2, 8), np.float32)), golden.array(np.ones((3, 2, 3), np.float32)), None,
                [1], [0], [1], False, [0], 1, out, 0)
    out = golden.empty((2, 3, 6), "float32", fill=5)
    golden.call(OP, golden.array(np.zeros((2, 0, 8), np.float32)), golden.array(np.ones((3, 0, 3), np.float32)),
                golden.array(np.array([1.0, 2.0, 3.0], np.float32)), [1], [0], [1], False, [0], 1, out, 0)
    assert np.array_equal(golden.read(out), np.broadcast_to(np.array([1.0, 2.0, 3.0], np.float32)[:, None], (2, 3, 6)))


def test_deterministic_across_threads():
    script = (
        "import numpy as np, hashlib, golden\n"
        "rng = np.random.default_rng(9)\n"
        "x = golden.array(rng.standard_normal((2, 8, 40, 30)), 'float32')\n"
        "w = golden.array(rng.standard_normal((6, 4, 3, 3)), 'float32')\n"
        "o = golden.empty((2, 6, 40, 30), 'float16')\n"
        "golden.call('aclnnConvolution', x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2, o, 0)\n"
        "print(hashlib.sha256(golden.read(o).tobytes()).hexdigest())\n")
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=120)
    assert len(set(outs)) == 1


def test_errors():
    x = golden.array(np.zeros((1, 4, 8), np.float32))
    w = golden.array(np.zeros((6, 2, 3), np.float32))
    b = golden.array(np.zeros(6, np.float32))
    o = golden.empty((1, 6, 6), "float32")
    ok = [x, w, b, [1], [0], [1], False, [0], 2, o, 0]
    assert golden.phase1_status(OP, *ok) == 0
    for i in (0, 1, 3, 4, 5, 9):
        args = list(ok)
        args[i] = None
        assert golden.phase1_status(OP, *args) == NULL
    args = list(ok)
    args[2] = None
    assert golden.phase1_status(OP, *args) == 0  # bias is optional
    args[7] = None
    assert golden.phase1_status(OP, *args) == 0  # outputPadding only matters transposed

    def bad(i, v, word):
        args = list(ok)
        args[i] = v
        assert golden.phase1_status(OP, *args) == INVALID, (i, v)
        assert word in golden.recent_error(), golden.recent_error()
    bad(3, [1, 1], "stride")
    bad(3, [0], "stride")
    bad(4, [-1], "padding")
    bad(4, [0, 0, 0], "padding")
    bad(5, [0], "dilation")
    bad(8, 3, "groups")
    bad(8, 0, "groups")
    bad(10, 4, "cubeMathType")
    bad(2, golden.array(np.zeros(5, np.float32)), "bias")
    bad(9, golden.empty((1, 6, 7), "float32"), "shape")
    bad(1, golden.array(np.zeros((6, 2, 9), np.float32)), "kernel")
    bad(1, golden.array(np.zeros((6, 2, 3, 1), np.float32)), "dims")
    bad(0, golden.array(np.zeros((1, 4, 8), np.int32)), "INT32")
    bad(0, golden.array(np.zeros((4, 8), np.float32)), "dims")
    bad(1, golden.array(np.zeros((5, 2, 3), np.float32)), "groups")
    # transposed: output dtype is the promoted one, outputPadding below stride or dilation
    t = [x, golden.array(np.zeros((4, 3, 3), np.float32)), None, [2], [0], [1], True, [1], 1,
         golden.empty((1, 3, 18), "float32"), 0]
    assert golden.phase1_status(OP, *t) == 0
    t2 = list(t)
    t2[9] = golden.empty((1, 3, 18), "float16")
    assert golden.phase1_status(OP, *t2) == INVALID
    t2 = list(t)
    t2[7] = [2]
    assert golden.phase1_status(OP, *t2) == INVALID
    assert "outputPadding" in golden.recent_error()
    t2 = list(t)
    t2[7] = None
    assert golden.phase1_status(OP, *t2) == NULL
    t2 = list(t)
    t2[4] = [1, 1]
    assert golden.phase1_status(OP, *t2) == INVALID
