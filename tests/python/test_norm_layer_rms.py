"""LayerNorm / RmsNorm kernel paths not reached by test_norm.py's shapes: the backward's whole
4-row blocks with and without weight, rows whose length leaves a tail after the vector steps,
a last partial block, outputMask subsets (no gradInput: the general loop; gradWeight alone),
several units and groups of column partials, and rows far from 0 or with outliers. Same
precision standard as test_norm.py (CANN's mixed tolerance against float64 references from the
quantised inputs), every tier, every dtype; and the same bits for 1 and 2 workers."""
import numpy as np
import pytest

from golden import outputs_per_thread_count
from norm_helpers import DTYPES, call, check_layer_norm_backward, close, empty, float32, read, rounded, tensor


def ln_case(rows, R, dt, use_w, use_b, mask, rng):
    x = rounded(rng.normal(0.5, 2, (rows, R)), dt)
    w = rounded(rng.uniform(0.5, 1.5, R), dt) if use_w else None
    b = rounded(rng.normal(0, 1, R), dt) if use_b else None
    out, mean, rstd = empty((rows, R), dt), empty((rows, 1)), empty((rows, 1))
    call("aclnnLayerNorm", tensor(x, dt), [R], tensor(w, dt) if use_w else None,
         tensor(b, dt) if use_b else None, 1e-5, out, mean, rstd)
    m = x.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    wv = w if use_w else np.ones(R)
    bv = b if use_b else np.zeros(R)
    close(read(out), (x - m) * r * wv + bv, dt, "y")
    close(read(mean), m, float32, "mean")
    close(read(rstd), r, float32, "rstd")
    dy = rounded(rng.normal(0, 1, (rows, R)), dt)
    gi = empty((rows, R), dt) if mask[0] else None
    gw = empty((R,)) if mask[1] else None
    gb = empty((R,)) if mask[2] else None
    call("aclnnLayerNormBackward", tensor(dy, dt), tensor(x, dt), [R], mean, rstd,
         tensor(w, dt) if use_w else None, tensor(b, dt) if use_b else None, mask, gi, gw, gb)
    ms, rs = read(mean), read(rstd)
    xh = (x - ms) * rs
    gdw = dy * wv
    if mask[0]:
        dx = rs * (gdw - gdw.mean(axis=1, keepdims=True) - xh * (gdw * xh).mean(axis=1, keepdims=True))
        close(read(gi), dx, dt, "dx")
    if mask[1]:
        close(read(gw), (dy * xh).sum(axis=0), float32, "dw")
    if mask[2]:
        close(read(gb), dy.sum(axis=0), float32, "db")


# R = 2053: a tail after the vector steps on every tier; 37 rows: units of 32 rows, the last
# block of each unit partial. R = 512, 300 rows: whole blocks only, several units.
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("rows,R", [(37, 2053), (300, 512)])
def test_layer_norm_blocks(rows, R, dt, isa):
    rng = np.random.default_rng(31)
    ln_case(rows, R, dt, True, True, [True, True, True], rng)


@pytest.mark.parametrize("use_w,use_b,mask", [(False, False, [True, True, True]), (True, False, [True, True, False]),
                                              (False, True, [True, False, True]), (True, True, [False, True, True]),
                                              (True, True, [True, False, False]), (True, True, [False, True, False])])
def test_layer_norm_optional(use_w, use_b, mask, isa):
    rng = np.random.default_rng(37)
    ln_case(21, 1040, float32, use_w, use_b, mask, rng)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("rows,R", [(37, 2053), (300, 512)])
def test_rms_norm_blocks(rows, R, dt, isa):
    rng = np.random.default_rng(41)
    x = rounded(rng.normal(0.2, 1.5, (rows, R)), dt)
    g = rounded(rng.uniform(0.5, 1.5, R), dt)
    y, rstd = empty((rows, R), dt), empty((rows, 1))
    call("aclnnRmsNorm", tensor(x, dt), tensor(g, dt), 1e-6, y, rstd)
    r = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)
    close(read(y), x * r * g, dt, "y")
    close(read(rstd), r, float32, "rstd")
    dy = rounded(rng.normal(0, 1, (rows, R)), dt)
    dx, dg = empty((rows, R), dt), empty((R,))
    call("aclnnRmsNormGrad", tensor(dy, dt), tensor(x, dt), rstd, tensor(g, dt), dx, dg)
    rs = read(rstd)
    close(read(dx), rs * dy * g - x * rs ** 3 * (dy * g * x).mean(axis=1, keepdims=True), dt, "dx")
    close(read(dg), (dy * x * rs).sum(axis=0), float32, "dgamma")


# Rows far from 0 (a spread of 1e-3 of their offset) and rows with an outlier among the first
# elements (the forward's sums are shifted by the first element; the backward's c1, c2 are fp32
# runs of x - mean added to fp64) must still meet the standard, forward and backward.
@pytest.mark.parametrize("mu,sd", [(1000.0, 1.0), (3.0, 1e-3), (0.0, 1.0)])
def test_layer_norm_offset_rows(mu, sd, isa):
    rng = np.random.default_rng(43)
    rows, R = 12, 4160
    x = rng.normal(mu, sd, (rows, R))
    x[1, 0] = mu + 1000 * sd
    x[2, 5] = mu - 300 * sd
    x = rounded(x, float32)
    w = rounded(rng.uniform(0.5, 1.5, R), float32)
    b = rounded(rng.normal(0, 1, R), float32)
    out, mean, rstd = empty((rows, R)), empty((rows, 1)), empty((rows, 1))
    call("aclnnLayerNorm", tensor(x, float32), [R], tensor(w, float32), tensor(b, float32),
         1e-5, out, mean, rstd)
    m = x.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    close(read(out), (x - m) * r * w + b, float32, "y")
    close(read(rstd), r, float32, "rstd")
    dy = rounded(rng.normal(0, 1, (rows, R)), float32)
    gi, gw, gb = empty((rows, R)), empty((R,)), empty((R,))
    call("aclnnLayerNormBackward", tensor(dy, float32), tensor(x, float32), [R], mean, rstd,
         tensor(w, float32), tensor(b, float32), [True, True, True], gi, gw, gb)
    check_layer_norm_backward(gi, gw, gb, x, dy, w, mean, rstd)
    y2, r2 = empty((rows, R)), empty((rows, 1))
    call("aclnnRmsNorm", tensor(x, float32), tensor(w, float32), 1e-6, y2, r2)
    rr = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)
    close(read(y2), x * rr * w, float32, "rms y")
    close(read(r2), rr, float32, "rms rstd")


# The forward's row sums run in fp64 with exact squares around a shift (the row's first element;
# docs/norm-kernels.md). Mean and rstd must stay within a few fp32 ulps of the float64 values (far
# tighter than the standard) for rows whose first elements are far from the mean: a ramp, outliers
# among the first 16, a large offset, and rows shorter than 16 and than a vector; RmsNorm's rstd
# likewise.
@pytest.mark.parametrize("R", [5, 13, 40, 4160])
def test_forward_stats_tight(R, isa):
    rng = np.random.default_rng(53)
    rows = 6
    x = rng.normal(0.0, 1.0, (rows, R))
    x[0] = np.linspace(-50.0, 150.0, R)       # the first elements are 1.7 std below the mean
    x[1, :min(R, 16)] += 1000.0                # outliers among the first 16
    x[2] = 1e4 + rng.normal(0.0, 1e-2, R)      # |mean| / std = 1e6
    x[3] = rng.uniform(-1.0, 1.0, R) * 1e-3 + 7.0
    x[4, 0] = -300.0
    x = rounded(x, float32)
    out, mean, rstd = empty((rows, R)), empty((rows, 1)), empty((rows, 1))
    call("aclnnLayerNorm", tensor(x, float32), [R], None, None, 1e-5, out, mean, rstd)
    m = x.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    ulp = 2.0 ** -23
    assert np.all(np.abs(read(mean) - m) <= 2 * ulp * np.abs(m) + 1e-6 / r), (read(mean) - m).ravel()
    assert np.all(np.abs(read(rstd) / r - 1) <= 4 * ulp), (read(rstd) / r - 1).ravel()
    y, r2 = empty((rows, R)), empty((rows, 1))
    call("aclnnRmsNorm", tensor(x, float32), tensor(np.ones(R), float32), 1e-6, y, r2)
    rr = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)
    assert np.all(np.abs(read(r2) / rr - 1) <= 4 * ulp), (read(r2) / rr - 1).ravel()


DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import cannon
from norm_helpers import call, empty, rounded, tensor
h = hashlib.sha256()
for isa in ("avx512", "avx2", "scalar"):
    os.environ["CANNON_ISA"] = isa
    rng = np.random.default_rng(7)
    for rows, R in ((300, 512), (37, 2053)):
        shape = (rows, R)
        x = tensor(rounded(rng.normal(1.0, 2.0, shape), cannon.float32))
        dy = tensor(rounded(rng.normal(0, 1, shape), cannon.float32))
        g, bb = tensor(rng.uniform(0.5, 1.5, R)), tensor(rng.normal(0, 1, R))
        y, mean, rstd = empty(shape), empty((rows, 1)), empty((rows, 1))
        call("aclnnLayerNorm", x, [R], g, bb, 1e-5, y, mean, rstd)
        dx, dw, db = empty(shape), empty((R,)), empty((R,))
        call("aclnnLayerNormBackward", dy, x, [R], mean, rstd, g, bb, [True, True, True],
             dx, dw, db)
        dxr, dg = empty(shape), empty((R,))
        call("aclnnRmsNormGrad", dy, x, rstd, g, dxr, dg)
        for t in (y, mean, rstd, dx, dw, db, dxr, dg):
            h.update(np.ascontiguousarray(t.storage()).tobytes())
print(h.hexdigest())
"""


def test_blocks_deterministic_across_threads():
    digests = set(outputs_per_thread_count(DET_SCRIPT, ("1", "2"), 300, drop_isa=True))
    assert len(digests) == 1, digests
