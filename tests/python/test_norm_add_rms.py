"""Golden tests of aclnnAddRmsNorm: xOut = x1 + x2 rounded to the dtype, yOut = RmsNorm(xOut) * gamma,
rstdOut per row. Against float64 references from the quantised inputs with CANN's mixed precision
standard (norm_helpers.close), every ISA tier, every dtype the page lists (FLOAT, FLOAT16,
BFLOAT16), gamma over one or several trailing dims or CANN's [1, D] form, the optional outputs,
strided views, empty tensors; bit for bit equal to aclnnAdd followed by aclnnRmsNorm; the error
paths."""
import numpy as np
import pytest

import golden
from cannon.ops import Scalar
from golden import PARAM_INVALID, PARAM_NULLPTR, phase1_status as status
from norm_helpers import DTYPES, call, close, empty, float32, read, rounded, tensor


def reference(x1, x2, g, k, dt, eps):
    x = rounded(x1 + x2, dt)
    axes = tuple(range(x.ndim - k, x.ndim))
    r = 1 / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return x, x * r * g, r


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,gshape", [((2, 16), (16,)), ((3, 4, 40), (4, 40)), ((5, 7, 64), (1, 64)),
                                          ((37, 2053), (2053,)), ((2, 1, 3, 8), (8,))])
def test_add_rms_norm(dt, shape, gshape, isa):
    rng = np.random.default_rng(11)
    x1 = rounded(rng.normal(0.2, 1.5, shape), dt)
    x2 = rounded(rng.normal(-0.1, 1.0, shape), dt)
    g = rounded(rng.uniform(0.5, 1.5, gshape), dt)
    k = len(gshape) - (1 if gshape[0] == 1 and len(gshape) > 1 else 0)
    rshape = shape[:len(shape) - k] + (1,) * k
    y, rstd, xo = empty(shape, dt), empty(rshape), empty(shape, dt)
    call("aclnnAddRmsNorm", tensor(x1, dt), tensor(x2, dt), tensor(g, dt), 1e-6, y, rstd, xo)
    x, yr, r = reference(x1, x2, g.reshape(gshape[-k:]), k, dt, 1e-6)
    assert np.array_equal(read(xo), x)
    close(read(y), yr, dt, "y")
    close(read(rstd), r, float32, "rstd")


@pytest.mark.parametrize("dt", DTYPES)
def test_same_as_add_then_rms_norm(dt, isa):
    rng = np.random.default_rng(13)
    shape = (9, 300)
    x1 = tensor(rounded(rng.normal(0, 3, shape), dt), dt)
    x2 = tensor(rounded(rng.normal(0, 3, shape), dt), dt)
    g = tensor(rounded(rng.uniform(0.5, 1.5, 300), dt), dt)
    y, rstd, xo = empty(shape, dt), empty((9, 1)), empty(shape, dt)
    call("aclnnAddRmsNorm", x1, x2, g, 1e-5, y, rstd, xo)
    s, y2, r2 = empty(shape, dt), empty(shape, dt), empty((9, 1))
    call("aclnnAdd", x1, x2, Scalar(1.0, "float32"), s)
    call("aclnnRmsNorm", s, g, 1e-5, y2, r2)
    for a, b in ((xo, s), (y, y2), (rstd, r2)):
        assert np.array_equal(golden.read(a), golden.read(b))


@pytest.mark.parametrize("with_xout", [True, False])
def test_optional_outputs(with_xout, isa):
    rng = np.random.default_rng(17)
    shape = (6, 33)
    x1, x2 = rng.normal(0, 1, shape), rng.normal(0, 1, shape)
    g = rng.uniform(0.5, 1.5, 33)
    y = empty(shape)
    xo = empty(shape) if with_xout else None
    call("aclnnAddRmsNorm", tensor(x1), tensor(x2), tensor(g), 1e-6, y, None, xo)
    x, yr, _ = reference(rounded(x1, float32), rounded(x2, float32), rounded(g, float32), 1, float32, 1e-6)
    close(read(y), yr, float32, "y")
    if with_xout:
        assert np.array_equal(read(xo), x)


@pytest.mark.parametrize("dt", DTYPES)
def test_strided_views(dt, isa):
    rng = np.random.default_rng(19)
    shape = (5, 24)
    x1 = rounded(rng.normal(0, 2, shape), dt)
    x2 = rounded(rng.normal(0, 2, shape), dt)
    g = rounded(rng.uniform(0.5, 1.5, 24), dt)
    y = golden.empty(shape, dt, layout="strided", fill=7.0)
    xo = golden.empty(shape, dt, layout="padded", fill=7.0)
    rstd = golden.empty((5, 1), "float32", layout="offset", fill=7.0)
    call("aclnnAddRmsNorm", golden.array(x1, dt, layout="transposed"), golden.array(x2, dt, layout="offset"),
         golden.array(g, dt, layout="strided"), 1e-6, y, rstd, xo)
    x, yr, r = reference(x1, x2, g, 1, dt, 1e-6)
    assert np.array_equal(read(xo), x)
    close(read(y), yr, dt, "y")
    close(read(rstd), r, float32, "rstd")


def test_empty():
    y, xo, rstd = empty((0, 8)), empty((0, 8)), empty((0, 1))
    z = tensor(np.zeros((0, 8)))
    assert call("aclnnAddRmsNorm", z, z, tensor(np.ones(8)), 1e-6, y, rstd, xo) == 0


def test_errors():
    x = tensor(np.ones((4, 8)))
    g = tensor(np.ones(8))
    y, r, xo = empty((4, 8)), empty((4, 1)), empty((4, 8))
    assert status("aclnnAddRmsNorm", None, x, g, 1e-6, y, r, xo) == PARAM_NULLPTR
    assert status("aclnnAddRmsNorm", x, x, None, 1e-6, y, r, xo) == PARAM_NULLPTR
    assert status("aclnnAddRmsNorm", x, x, g, 1e-6, None, r, xo) == PARAM_NULLPTR
    assert status("aclnnAddRmsNorm", x, x, g, 1e-6, y, r, None) == PARAM_NULLPTR
    assert "xOut" in golden.recent_error()
    x16 = tensor(np.ones((4, 8)), golden.dtype("float16"))
    assert status("aclnnAddRmsNorm", x, x16, g, 1e-6, y, r, xo) == PARAM_INVALID
    assert "x2" in golden.recent_error()
    x64 = golden.array(np.ones((4, 8)), "float64")
    assert status("aclnnAddRmsNorm", x64, x64, g, 1e-6, empty((4, 8), "float64"), r, empty((4, 8), "float64")) \
        == PARAM_INVALID
    assert status("aclnnAddRmsNorm", x, tensor(np.ones((4, 7))), g, 1e-6, y, r, xo) == PARAM_INVALID
    assert status("aclnnAddRmsNorm", x, x, tensor(np.ones(7)), 1e-6, y, r, xo) == PARAM_INVALID
    assert "gamma" in golden.recent_error()
    assert status("aclnnAddRmsNorm", x, x, g, -1.0, y, r, xo) == PARAM_INVALID
    assert status("aclnnAddRmsNorm", x, x, g, 1e-6, y, empty((3, 1)), xo) == PARAM_INVALID
    assert "rstdOut" in golden.recent_error()
    assert status("aclnnAddRmsNorm", x, x, g, 1e-6, y, r, empty((4, 8), "float16")) == PARAM_INVALID
