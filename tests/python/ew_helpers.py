"""Helpers of the elementwise golden tests (test_elementwise_math.py, _activation, _compare_clamp,
_fill_copy, _pow): sample values with the special ones in front, float64 references on the
quantised inputs, and the accuracy check every file states.

Accuracy (relative to the float64 result g of the function on the stored inputs, mixed with an
absolute floor near the type's smallest normal): |ours - g| <= RTOL[dt] * |g| + ATOL[dt] with
RTOL = 2^-20 (fp32, computed in fp32: a few ulp), 2^-10 (fp16: the result computed in fp32 and
rounded once to fp16 is within half an ulp), 2^-8 (bf16, likewise), 2^-50 (fp64); NaN exactly where
g is NaN, infinities exactly.
"""
import numpy as np

import golden
import cannon

RTOL = {"float32": 2.0 ** -20, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -8, "float64": 2.0 ** -50}
ATOL = {"float32": 2.0 ** -126, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -126, "float64": 2.0 ** -1022}
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan]
IRANGE = {"int8": (-128, 127), "int16": (-32768, 32767), "int32": (-2 ** 31, 2 ** 31 - 1),
          "int64": (-2 ** 63, 2 ** 63 - 1), "uint8": (0, 255), "bool": (0, 1)}


def is_float(dt):
    return (dt if isinstance(dt, str) else golden.dtype(dt).name) in RTOL


def sample(dt, shape, seed, scale=3.0, specials=True, lo=None, hi=None):
    """(storage, float64 values stored): normal(0, scale) floats (specials first), or integers
    spread over the type's range (its extremes first) or over [lo, hi]."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    name = golden.dtype(dt).name
    if is_float(dt):
        x = rng.standard_normal(n) * scale
        if lo is not None:
            x = rng.uniform(lo, hi, n)
        if specials and n >= len(SPECIALS):
            x[:len(SPECIALS)] = SPECIALS
    else:
        a, b = IRANGE[name] if lo is None else (lo, hi)
        x = rng.integers(a, b, n, endpoint=True, dtype=np.int64)
        if specials and n >= 3 and lo is None:
            x[:3] = [a, b, 0]
        if name == "bool":
            x = x.astype(bool)
    s, v = golden.quantize(x.reshape(shape), dt)
    return s, v


def check(ours, ref, dt, what="", rtol=None, atol=None, signed_zero=False):
    """ours (float64 decoded) against the float64 reference ref, with dt's tolerances."""
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    assert ours.shape == ref.shape, what
    name = golden.dtype(dt).name
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(ours), nan), f"{what}: NaN at {np.argwhere(np.isnan(ours) != nan)[:5].tolist()}"
    inf = np.isinf(ref)
    assert np.array_equal(ours[inf], ref[inf]), f"{what}: infinities differ"
    if not is_float(dt):
        assert np.array_equal(ours[~nan], ref[~nan]), f"{what}: {np.argwhere(ours != ref)[:5].tolist()}"
        return
    m = ~nan & ~inf
    r = RTOL[name] if rtol is None else rtol
    a = ATOL[name] if atol is None else atol
    r = np.broadcast_to(r, ref.shape)[m] if np.ndim(r) else r  # per-element bounds
    err = np.abs(ours[m] - ref[m])
    bound = r * np.abs(ref[m]) + a
    if err.size:
        k = int(np.argmax(err - bound))
        assert (err <= bound).all(), f"{what}: |{ours[m][k]!r} - {ref[m][k]!r}| > {bound[k]:.3g}"
    if signed_zero:
        z = ref == 0
        assert np.array_equal(np.signbit(ours[z]), np.signbit(ref[z])), f"{what}: sign of zero"


def rel_err(ours, ref):
    """Largest |ours - ref| / |ref| over the finite nonzero references (the figure docs/ops.md gives)."""
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    m = np.isfinite(ref) & (ref != 0)
    return float(np.max(np.abs(ours[m] - ref[m]) / np.abs(ref[m]))) if m.any() else 0.0


def raises(code, text, name, *args):
    """Phase 1 of @name fails with @code and a message containing @text."""
    st = golden.phase1_status(name, *args)
    msg = golden.recent_error()
    assert st == code, (name, st, msg)
    assert text.lower() in msg.lower(), (name, msg)


def layouts(shape):
    """The view layouts every operator is run on."""
    return ["contig", "strided", "transposed", "padded"] if len(shape) >= 2 else ["contig", "strided"]


def out_like(shape, dt, layout):
    return golden.empty(shape, dt, layout=layout, fill=7)


def read(a):
    return golden.read_float(a)


EMPTY_SHAPES = [(0,), (3, 0), (0, 4, 2)]
DTYPE_ALL = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def dt_obj(name):
    return cannon.bool_ if name == "bool" else golden.dtype(name)
