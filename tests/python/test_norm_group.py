"""Golden tests of aclnnGroupNorm against float64 references from the quantised inputs and against
torch.nn.functional.group_norm: CANN's mixed precision standard (norm_helpers.close), every ISA
tier, every dtype the page lists (FLOAT, FLOAT16, BFLOAT16), ranks 2 to 5, NULL gamma / beta /
statistics (as ggml passes them), strided views, rows far from 0, empty tensors, determinism
across worker counts, and the error paths."""
import numpy as np
import pytest

import golden
from golden import PARAM_INVALID, PARAM_NULLPTR, phase1_status as status
from norm_helpers import DTYPES, call, close, empty, float32, read, rounded, tensor

torch = pytest.importorskip("torch")


def reference(x, g, b, group, eps):
    N, C = x.shape[:2]
    xr = x.reshape(N, group, -1)
    m = xr.mean(axis=2)
    r = 1 / np.sqrt(xr.var(axis=2) + eps)
    y = ((xr - m[..., None]) * r[..., None]).reshape(x.shape)
    bshape = (1, C) + (1,) * (x.ndim - 2)
    if g is not None:
        y = y * g.reshape(bshape)
    if b is not None:
        y = y + b.reshape(bshape)
    return y, m, r


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,group", [((2, 6, 5, 4), 3), ((3, 8), 4), ((2, 4, 3, 2, 5), 2), ((1, 32, 300), 1),
                                         ((4, 6, 7), 6)])
def test_group_norm(dt, shape, group, isa):
    rng = np.random.default_rng(3)
    N, C = shape[:2]
    hw = int(np.prod(shape[2:], dtype=np.int64))
    x = rounded(rng.normal(0.3, 2.0, shape), dt)
    g = rounded(rng.uniform(0.5, 1.5, C), dt)
    b = rounded(rng.normal(0, 1, C), dt)
    out, mean, rstd = empty(shape, dt), empty((N, group), dt), empty((N, group), dt)
    call("aclnnGroupNorm", tensor(x, dt), tensor(g, dt), tensor(b, dt), N, C, hw, group, 1e-5, out, mean, rstd)
    y, m, r = reference(x, g, b, group, 1e-5)
    close(read(out), y, dt, "out")
    close(read(mean), m, dt, "mean")
    close(read(rstd), r, dt, "rstd")
    if dt == float32:
        t = torch.nn.functional.group_norm(torch.from_numpy(x), group, torch.from_numpy(g), torch.from_numpy(b), 1e-5)
        close(read(out), t.numpy(), float32, "torch")


def test_null_params(isa):
    rng = np.random.default_rng(5)
    shape = (3, 4, 10)
    x = rounded(rng.normal(0, 1, shape), float32)
    out = empty(shape)
    call("aclnnGroupNorm", tensor(x), None, None, 3, 4, 10, 2, 1e-6, out, None, None)
    close(read(out), reference(x, None, None, 2, 1e-6)[0], float32, "out")


@pytest.mark.parametrize("dt", DTYPES)
def test_strided(dt, isa):
    rng = np.random.default_rng(7)
    shape = (3, 4, 9)
    x = rounded(rng.normal(0, 1, shape), dt)
    g = rounded(rng.uniform(0.5, 1.5, 4), dt)
    b = rounded(rng.normal(0, 1, 4), dt)
    out = golden.empty(shape, dt, layout="padded", fill=7.0)
    mean = golden.empty((3, 2), "float32", layout="transposed", fill=7.0)
    rstd = golden.empty((3, 2), "float32", layout="strided", fill=7.0)
    call("aclnnGroupNorm", golden.array(x, dt, layout="transposed"), golden.array(g, dt, layout="strided"),
         golden.array(b, dt, layout="offset"), 3, 4, 9, 2, 1e-5, out, mean, rstd)
    y, m, r = reference(x, g, b, 2, 1e-5)
    close(read(out), y, dt, "out")
    close(read(mean), m, float32, "mean")
    close(read(rstd), r, float32, "rstd")


def test_offset_rows(isa):
    rng = np.random.default_rng(9)
    shape = (2, 4, 1000)
    x = rounded(1e4 + rng.normal(0, 1e-1, shape), float32)
    out, mean, rstd = empty(shape), empty((2, 2)), empty((2, 2))
    call("aclnnGroupNorm", tensor(x), None, None, 2, 4, 1000, 2, 1e-5, out, mean, rstd)
    y, m, r = reference(x, None, None, 2, 1e-5)
    close(read(out), y, float32, "out")
    assert np.all(np.abs(read(rstd) / r - 1) <= 2.0 ** -22)


def test_empty():
    assert call("aclnnGroupNorm", tensor(np.zeros((0, 4, 3))), None, None, 0, 4, 3, 2, 1e-5, empty((0, 4, 3)),
                empty((0, 2)), empty((0, 2))) == 0
    mean = empty((2, 2))
    call("aclnnGroupNorm", tensor(np.zeros((2, 4, 0))), None, None, 2, 4, 0, 2, 1e-5, empty((2, 4, 0)), mean, None)
    assert np.isnan(read(mean)).all()
    # C = 0 admits any group: nothing to compute without statistics
    assert call("aclnnGroupNorm", tensor(np.zeros((2, 0, 3))), None, None, 2, 0, 3, 1 << 40, 1e-5,
                empty((2, 0, 3)), None, None) == 0


def test_errors():
    x = tensor(np.ones((2, 4, 3)))
    o, m, r = empty((2, 4, 3)), empty((2, 2)), empty((2, 2))
    assert status("aclnnGroupNorm", None, None, None, 2, 4, 3, 2, 1e-5, o, m, r) == PARAM_NULLPTR
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 2, 1e-5, None, m, r) == PARAM_NULLPTR
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 3, 1e-5, o, m, r) == PARAM_INVALID
    assert "group" in golden.recent_error()
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 0, 1e-5, o, m, r) == PARAM_INVALID
    z = tensor(np.zeros((3, 0)))
    assert status("aclnnGroupNorm", z, None, None, 3, 0, 1, 1 << 62, 1e-5, empty((3, 0)), None, None) == PARAM_INVALID
    assert "overflows" in golden.recent_error()
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 4, 2, 1e-5, o, m, r) == PARAM_INVALID
    assert "HxW" in golden.recent_error()
    assert status("aclnnGroupNorm", x, None, None, 3, 4, 3, 2, 1e-5, o, m, r) == PARAM_INVALID
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 2, 0.0, o, m, r) == PARAM_INVALID
    assert "eps" in golden.recent_error()
    assert status("aclnnGroupNorm", x, tensor(np.ones(3)), None, 2, 4, 3, 2, 1e-5, o, m, r) == PARAM_INVALID
    assert "gamma" in golden.recent_error()
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 2, 1e-5, o, empty((2, 3)), r) == PARAM_INVALID
    assert "meanOut" in golden.recent_error()
    assert status("aclnnGroupNorm", x, None, None, 2, 4, 3, 2, 1e-5, empty((2, 4, 3), "float16"), m, r) \
        == PARAM_INVALID
    assert status("aclnnGroupNorm", tensor(np.ones(4)), None, None, 1, 4, 1, 2, 1e-5, empty((4,)), None, None) \
        == PARAM_INVALID
    assert "rank" in golden.recent_error()
    x64 = golden.array(np.ones((2, 4, 3)), "float64")
    assert status("aclnnGroupNorm", x64, None, None, 2, 4, 3, 2, 1e-5, empty((2, 4, 3), "float64"), None, None) \
        == PARAM_INVALID


DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import golden
h = hashlib.sha256()
rng = np.random.default_rng(5)
for dt in ("float32", "bfloat16"):
    x = golden.array(rng.normal(0, 2, (4, 32, 4000)), dt)
    o, m, r = golden.empty((4, 32, 4000), dt), golden.empty((4, 8), "float32"), golden.empty((4, 8), "float32")
    golden.call("aclnnGroupNorm", x, None, None, 4, 32, 4000, 8, 1e-5, o, m, r)
    for t in (o, m, r):
        h.update(golden.read(t).tobytes())
print(h.hexdigest())
"""


def test_deterministic_across_threads():
    digests = set(golden.outputs_per_thread_count(DET_SCRIPT, ("1", "3"), 300))
    assert len(digests) == 1, digests
