"""Golden tests of the gated linear units aclnnSwiGlu and aclnnGeGluV3: float64 references from
torch (silu, erf and tanh GELU of the halves of the quantised input), every ISA tier, every dtype
the pages list (FLOAT, FLOAT16, BFLOAT16), any split dim, strided and offset views in and out,
runs longer than a kernel block, empty tensors, NaN, determinism across worker counts, and the
error paths.

Accuracy asserted: fp32 within 2^-17 (1 + A^2) of |result| plus 2^-21 |B| (the activation's few
fp32 ulps, amplified by its condition number where it is tiny, and scaled by the other half); fp16 and bf16 within one ulp of the type (2^-10, 2^-7 relative, plus the
smallest normal), since they are computed in fp32 and rounded once."""
import numpy as np
import pytest

import golden
from golden import PARAM_INVALID, PARAM_NULLPTR, call, phase1_status as status

torch = pytest.importorskip("torch")
F = torch.nn.functional

DTYPES = ["float32", "float16", "bfloat16"]
REL = {"float32": 2.0 ** -17, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
TINY = {"float32": 2.0 ** -120, "float16": 2.0 ** -14, "bfloat16": 2.0 ** -120}


def act64(x, kind):
    """The activation in float64, in forms that keep their relative accuracy for large negative x
    (torch's 0.5 x (1 + erf(x / sqrt 2)) cancels there even in double)."""
    t = torch.from_numpy(np.asarray(x, np.float64))
    if kind == "silu":
        r = t * torch.sigmoid(t)
    elif kind == "tanh":
        c1 = 2 * (2 / np.pi) ** 0.5
        r = t * torch.sigmoid(t * (c1 + c1 * 0.044715 * t * t))
    else:
        r = t * 0.5 * torch.special.erfc(-t / 2 ** 0.5)
    return r.numpy()


def halves(x, dim):
    h = x.shape[dim] // 2
    return np.take(x, range(h), axis=dim), np.take(x, range(h, 2 * h), axis=dim)


def check(got, want, other, dt, a=None):
    """@a: the activated half, whose fp32 rounding error the activation amplifies by its condition
    number (at most 1 + a^2 for these functions) where the result is tiny."""
    got = np.asarray(got, np.float64)
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    cond = 1.0 if a is None or dt != "float32" else 1.0 + np.nan_to_num(a * a, posinf=0.0)
    tol = REL[dt] * np.abs(want) * cond + TINY[dt]
    if dt == "float32":
        tol = tol + 2.0 ** -21 * np.abs(other)
    with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
        bad = ~same & ~(np.abs(got - want) <= tol)
    assert not bad.any(), f"{bad.sum()} of {bad.size} off, e.g. got {got[bad][:4]} want {want[bad][:4]}"


def sample(shape, dt, seed):
    rng = np.random.default_rng(seed)
    return golden.rounded(rng.normal(0.0, 2.5, shape), dt)


def out_shape(shape, dim):
    s = list(shape)
    s[dim] //= 2
    return tuple(s)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,dim", [((4, 6, 10), -1), ((4, 6, 10), 1), ((4, 6, 10), 0), ((70, 1030), 1),
                                       ((3, 2, 1100), -2), ((8,), 0)])
def test_swiglu(dt, shape, dim, isa):
    x = sample(shape, dt, 1)
    out = golden.empty(out_shape(shape, dim), dt, fill=np.nan)
    call("aclnnSwiGlu", golden.array(x, dt), dim, out)
    a, b = halves(x, dim)
    check(golden.read_float(out), act64(a, "silu") * b, b, dt, a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("approximate,kind", [(0, "erf"), (1, "tanh")])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("shape,dim", [((4, 6, 10), -1), ((5, 4, 3), 1), ((70, 1030), -1)])
def test_geglu_v3(dt, approximate, kind, left, shape, dim, isa):
    x = sample(shape, dt, 2)
    os_ = out_shape(shape, dim)
    out, gelu = golden.empty(os_, dt, fill=np.nan), golden.empty(os_, dt, fill=np.nan)
    call("aclnnGeGluV3", golden.array(x, dt), dim, approximate, left, out, gelu)
    a, b = halves(x, dim)
    if not left:
        a, b = b, a
    g = act64(a, kind)
    check(golden.read_float(gelu), g, np.zeros_like(b), dt, a)
    check(golden.read_float(out), g * b, b, dt, a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("xl,ol", [("strided", "contig"), ("offset", "strided"), ("transposed", "padded")])
def test_strided_views(dt, xl, ol, isa):
    shape, dim = (6, 12), 0
    x = sample(shape, dt, 3)
    os_ = out_shape(shape, dim)
    out = golden.empty(os_, dt, layout=ol, fill=7.0)
    call("aclnnSwiGlu", golden.array(x, dt, layout=xl), dim, out)
    a, b = halves(x, dim)
    check(golden.read_float(out), act64(a, "silu") * b, b, dt, a)
    out2, gelu = golden.empty(os_, dt, layout=ol, fill=7.0), golden.empty(os_, dt, layout=ol, fill=7.0)
    call("aclnnGeGluV3", golden.array(x, dt, layout=xl), dim, 0, True, out2, gelu)
    g = act64(a, "erf")
    check(golden.read_float(gelu), g, np.zeros_like(b), dt, a)
    check(golden.read_float(out2), g * b, b, dt, a)


def test_nan_and_zero_rank(isa):
    x = np.array([[np.nan, 1.0, 2.0, np.nan], [0.5, -0.0, np.inf, -3.0]])
    out = golden.empty((2, 2), "float32")
    call("aclnnSwiGlu", golden.array(x, "float32"), -1, out)
    got = golden.read_float(out)
    assert np.isnan(got[0, 0]) and np.isnan(got[0, 1])
    a, b = halves(x, 1)
    check(got[1], (act64(a, "silu") * b)[1], b[1], "float32")
    # A 0-d self cannot be cut in halves (GeGluV3 accepts rank 0, with dim in [-1, 0]).
    out0, g0 = golden.empty((), "float32"), golden.empty((), "float32")
    assert status("aclnnGeGluV3", golden.array(np.float32(1.0)), 0, 0, True, out0, g0) == PARAM_INVALID
    assert "even" in golden.recent_error()


@pytest.mark.parametrize("shape,dim", [((0, 4), 1), ((3, 0), 1), ((2, 0, 4), 2)])
def test_empty(shape, dim):
    x = golden.array(np.zeros(shape, np.float32))
    os_ = out_shape(shape, dim)
    assert call("aclnnSwiGlu", x, dim, golden.empty(os_, "float32")) == 0
    assert call("aclnnGeGluV3", x, dim, 1, False, golden.empty(os_, "float32"), golden.empty(os_, "float32")) == 0


def test_errors():
    x = golden.array(np.ones((4, 6), np.float32))
    o = golden.empty((4, 3), "float32")
    assert status("aclnnSwiGlu", None, -1, o) == PARAM_NULLPTR
    assert status("aclnnSwiGlu", x, -1, None) == PARAM_NULLPTR
    assert status("aclnnGeGluV3", x, -1, 0, True, o, None) == PARAM_NULLPTR
    assert "outGelu" in golden.recent_error()
    x64 = golden.array(np.ones((4, 6), np.float64))
    assert status("aclnnSwiGlu", x64, -1, golden.empty((4, 3), "float64")) == PARAM_INVALID
    assert "DOUBLE" in golden.recent_error()
    assert status("aclnnSwiGlu", x, 2, o) == PARAM_INVALID
    assert "dim" in golden.recent_error()
    assert status("aclnnSwiGlu", x, -3, o) == PARAM_INVALID
    assert status("aclnnSwiGlu", x, 0, o) == PARAM_INVALID  # 4 rows: out would be (2, 6)
    assert "half" in golden.recent_error()
    assert status("aclnnSwiGlu", golden.array(np.ones((4, 5), np.float32)), -1, golden.empty((4, 2), "float32")) \
        == PARAM_INVALID
    assert "even" in golden.recent_error()
    assert status("aclnnSwiGlu", x, -1, golden.empty((4, 3), "float16")) == PARAM_INVALID
    assert status("aclnnSwiGlu", golden.array(np.float32(1.0)), 0, golden.empty((), "float32")) == PARAM_INVALID
    assert "rank" in golden.recent_error()
    g = golden.empty((4, 3), "float32")
    assert status("aclnnGeGluV3", x, -1, 2, True, o, g) == PARAM_INVALID
    assert "approximate" in golden.recent_error()
    assert status("aclnnGeGluV3", x, -1, 0, True, o, golden.empty((4, 6), "float32")) == PARAM_INVALID
    assert "outGelu" in golden.recent_error()
    assert status("aclnnGeGluV3", x, -1, 0, True, o, golden.empty((4, 3), "bfloat16")) == PARAM_INVALID


DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import golden
h = hashlib.sha256()
for isa in ("avx512", "avx2", "scalar"):
    os.environ["CANNON_ISA"] = isa
    rng = np.random.default_rng(5)
    for dt in ("float32", "bfloat16"):
        x = golden.array(rng.normal(0, 2, (90, 1030)), dt)
        o, g = golden.empty((90, 515), dt), golden.empty((90, 515), dt)
        golden.call("aclnnSwiGlu", x, -1, o)
        h.update(golden.read(o).tobytes())
        golden.call("aclnnGeGluV3", x, -1, 1, False, o, g)
        h.update(golden.read(o).tobytes())
        h.update(golden.read(g).tobytes())
print(h.hexdigest())
"""


def test_deterministic_across_threads():
    digests = set(golden.outputs_per_thread_count(DET_SCRIPT, ("1", "3"), 300, drop_isa=True))
    assert len(digests) == 1, digests
