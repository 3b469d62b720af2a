"""Golden tests of aclnnRotaryPositionEmbedding against a float64 numpy reference written from the
formulas of CANN's page (x_rotate built with cat / stack as the page writes it).

Pass criteria, per element, with x, cos, sin the values stored in the dtype:
- FLOAT: |y - ref| <= 2^-22 * (|x*cos| + |x_rotate*sin|) (fp32 products and sum);
- FLOAT16 / BFLOAT16: |y - ref| <= 2^-10 / 2^-7 * |ref| + that fp32 bound + the smallest subnormal
  (fp32 result rounded once to the type).
Every mode (0 half, 1 interleave, 2 quarter, 3 interleave-half), cos/sin broadcast layouts (11SD,
1S1D, B1SD, full), rank 3 and 4, strided/transposed/offset views of every tensor, in place, empty
tensors. Errors: NULL -> 161001; dtype, rank -> 161002; mode, shapes, odd D -> 561002 (CANN's
tiling error). The operator has no instruction-set tiers.
"""
import numpy as np
import pytest

import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
TILING = 561002
DTS = ["float32", "float16", "bfloat16"]
OP = "aclnnRotaryPositionEmbedding"


def rotate(x, mode):
    """(x_part1, x_rotate) of the page's formula for @mode (x_part1 is x except in mode 3)."""
    d = x.shape[-1]
    if mode == 0:
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x, np.concatenate([-x2, x1], axis=-1)
    if mode == 1:
        x1, x2 = x[..., ::2], x[..., 1::2]
        return x, np.stack([-x2, x1], axis=-1).reshape(x.shape)
    if mode == 2:
        q = d // 4
        x1, x2, x3, x4 = x[..., :q], x[..., q:2 * q], x[..., 2 * q:3 * q], x[..., 3 * q:]
        return x, np.concatenate([-x2, x1, -x4, x3], axis=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return np.concatenate([x1, x2], axis=-1), np.concatenate([-x2, x1], axis=-1)


def reference(x, c, s, mode):
    p1, xr = rotate(x, mode)
    return p1 * c + xr * s, np.abs(p1 * c) + np.abs(xr * s)


def check(got, ref, mag, dt):
    bound = 2.0 ** -22 * mag
    if dt == "float16":
        bound = bound + 2.0 ** -10 * np.abs(ref) + 2.0 ** -24
    elif dt == "bfloat16":
        bound = bound + 2.0 ** -7 * np.abs(ref) + 2.0 ** -133
    err = np.abs(got - ref)
    assert np.all(err <= bound), f"max excess {np.max(err - bound)}"


def run(x, c, s, mode, dt, lx=None, lc=None, lo=None):
    """Upload (rounded to @dt), run, return (result, reference, magnitudes)."""
    xa = golden.array(x, dt, layout=lx)
    ca = golden.array(c, dt, layout=lc)
    sa = golden.array(s, dt, layout=lc)
    out = golden.empty(x.shape, dt, layout=lo, fill=77)
    golden.call(OP, xa, ca, sa, mode, out)
    ref, mag = reference(golden.rounded(x, dt), golden.rounded(c, dt), golden.rounded(s, dt), mode)
    return golden.read_float(out), ref, mag


def tables(rng, shape):
    ang = rng.uniform(-4, 4, size=shape)
    return np.cos(ang), np.sin(ang)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("cshape", ["11SD", "1S1D", "B1SD", "BNSD"])
def test_rope_modes(dt, mode, cshape):
    rng = np.random.default_rng(10 + mode)
    B, N, S, D = 2, 3, 5, 16
    x = rng.standard_normal((B, N, S, D)) * 3
    shape = {"11SD": (1, 1, S, D), "1S1D": (1, N, 1, D), "B1SD": (B, 1, S, D), "BNSD": (B, N, S, D)}[cshape]
    c, s = tables(rng, shape)
    got, ref, mag = run(x, c, s, mode, dt)
    check(got, ref, mag, dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_rope_tiers(dt, isa):
    """16-bit rows go through each tier's bulk converters: the same values on every tier."""
    test_rope_modes(dt, 0, "1S1D")
    test_rope_modes(dt, 3, "BNSD")


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode", [0, 1, 3])
@pytest.mark.parametrize("lx,lc,lo", [("transposed", "contig", "contig"), ("offset", "padded", "strided"),
                                      ("padded", "transposed", "padded"), ("contig", "strided", "transposed")])
def test_rope_layouts(dt, mode, lx, lc, lo):
    rng = np.random.default_rng(20)
    x = rng.standard_normal((2, 4, 3, 8))
    c, s = tables(rng, (1, 4, 1, 8))
    got, ref, mag = run(x, c, s, mode, dt, lx, lc, lo)
    check(got, ref, mag, dt)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_rope_rank3_and_ggml_shape(dt, mode):
    """TND (rank 3) with T1D tables, and ggml's call: x (B, S, N, D) with (1, S, 1, D) tables."""
    rng = np.random.default_rng(30)
    x = rng.standard_normal((7, 2, 12))
    c, s = tables(rng, (7, 1, 12))
    got, ref, mag = run(x, c, s, mode, dt)
    check(got, ref, mag, dt)
    x = rng.standard_normal((1, 9, 4, 128))
    c, s = tables(rng, (1, 9, 1, 128))
    got, ref, mag = run(x, c, s, mode, dt)
    check(got, ref, mag, dt)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_rope_in_place(dt, mode):
    rng = np.random.default_rng(40)
    x = rng.standard_normal((2, 3, 4, 8))
    c, s = tables(rng, (1, 1, 4, 8))
    for lay in ("contig", "transposed"):
        xa = golden.array(x, dt, layout=lay)
        golden.call(OP, xa, golden.array(c, dt), golden.array(s, dt), mode, xa)
        ref, mag = reference(golden.rounded(x, dt), golden.rounded(c, dt), golden.rounded(s, dt), mode)
        check(golden.read_float(xa), ref, mag, dt)


def test_rope_special_and_large_rows():
    """inf/NaN propagate as in the formula; a row longer than a block; many rows."""
    rng = np.random.default_rng(50)
    x = rng.standard_normal((1, 3, 2, 4096))
    x[0, 0, 0, :4] = [np.inf, -np.inf, np.nan, 0.0]
    c, s = tables(rng, (1, 3, 1, 4096))
    with np.errstate(invalid="ignore"):
        got, ref, mag = run(x, c, s, 0, "float32")
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])
        fin = np.isfinite(ref)
        assert np.all(np.abs(got - ref)[fin] <= 2.0 ** -22 * mag[fin])
    x = rng.standard_normal((3, 700, 2, 64))
    c, s = tables(rng, (1, 700, 1, 64))
    got, ref, mag = run(x, c, s, 1, "float32")
    check(got, ref, mag, "float32")


def test_rope_empty():
    x = np.zeros((2, 0, 3, 8))
    c = np.zeros((1, 1, 3, 8))
    got, _, _ = run(x, c, c, 0, "float32")
    assert got.shape == (2, 0, 3, 8)
    x = np.zeros((2, 1, 3, 0))
    c = np.zeros((1, 1, 3, 0))
    got, _, _ = run(x, c, c, 1, "float16")
    assert got.shape == (2, 1, 3, 0)


def test_rope_deterministic_across_threads():
    script = (
        "import numpy as np, hashlib, golden\n"
        "rng = np.random.default_rng(7)\n"
        "x = golden.array(rng.standard_normal((4, 300, 2, 96)), 'float16')\n"
        "a = rng.uniform(-3, 3, (1, 300, 1, 96))\n"
        "o = golden.empty((4, 300, 2, 96), 'float16')\n"
        "golden.call('aclnnRotaryPositionEmbedding', x, golden.array(np.cos(a), 'float16'),"
        " golden.array(np.sin(a), 'float16'), 0, o)\n"
        "print(hashlib.sha256(golden.read(o).tobytes()).hexdigest())\n")
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=120)
    assert len(set(outs)) == 1


def test_rope_errors():
    x = golden.array(np.zeros((1, 2, 3, 8), np.float32))
    c = golden.array(np.zeros((1, 1, 3, 8), np.float32))
    o = golden.empty((1, 2, 3, 8), "float32")
    assert golden.phase1_status(OP, None, c, c, 0, o) == NULL
    assert golden.phase1_status(OP, x, None, c, 0, o) == NULL
    assert golden.phase1_status(OP, x, c, None, 0, o) == NULL
    assert golden.phase1_status(OP, x, c, c, 0, None) == NULL
    assert golden.phase1_status(OP, x, c, c, 0, o, null_executor=True) == NULL
    c16 = golden.array(np.zeros((1, 1, 3, 8)), "float16")
    assert golden.phase1_status(OP, x, c16, c, 0, o) == INVALID
    assert "dtype" in golden.recent_error()
    xi = golden.array(np.zeros((1, 2, 3, 8), np.int32))
    assert golden.phase1_status(OP, xi, c, c, 0, golden.empty((1, 2, 3, 8), "int32")) == INVALID
    assert "INT32" in golden.recent_error()
    x2 = golden.array(np.zeros((3, 8), np.float32))
    assert golden.phase1_status(OP, x2, x2, x2, 0, golden.empty((3, 8), "float32")) == INVALID
    assert "dims" in golden.recent_error()
    assert golden.phase1_status(OP, x, c, c, 4, o) == TILING
    assert "mode" in golden.recent_error()
    assert golden.phase1_status(OP, x, c, c, -1, o) == TILING
    bad = golden.array(np.zeros((1, 2, 2, 8), np.float32))
    assert golden.phase1_status(OP, x, bad, bad, 0, o) == TILING
    assert "cos" in golden.recent_error()
    assert golden.phase1_status(OP, x, c, golden.array(np.zeros((1, 2, 3, 8), np.float32)), 0, o) == TILING
    assert "sin" in golden.recent_error()
    assert golden.phase1_status(OP, x, c, c, 0, golden.empty((1, 2, 3, 6), "float32")) == TILING
    assert "out" in golden.recent_error()
    x6 = golden.array(np.zeros((1, 2, 3, 6), np.float32))
    c6 = golden.array(np.zeros((1, 1, 3, 6), np.float32))
    assert golden.phase1_status(OP, x6, c6, c6, 2, golden.empty((1, 2, 3, 6), "float32")) == TILING
    assert "multiple of 4" in golden.recent_error()
    x5 = golden.array(np.zeros((1, 2, 3, 5), np.float32))
    c5 = golden.array(np.zeros((1, 1, 3, 5), np.float32))
    assert golden.phase1_status(OP, x5, c5, c5, 0, golden.empty((1, 2, 3, 5), "float32")) == TILING
    assert golden.phase1_status(OP, x6, c6, c6, 0, golden.empty((1, 2, 3, 6), "float32")) == 0
