"""Golden tests of the norm operators (BatchNorm family, LayerNorm, RmsNorm) against float64
references and torch. Precision: CANN's mixed-tolerance standard (|a-g| <= T + T|g| with T = 2^-13
fp32, 2^-10 fp16, 2^-7 bf16, for every element) against float64 goldens computed from the
quantised inputs. Every tier (CANNON_ISA scalar, avx2, avx512) is checked, and every operator gives
the same bits for any CANNON_CPU_THREADS."""
import numpy as np
import pytest

import cannon
from golden import ISAS, AclError, outputs_per_thread_count
from norm_helpers import (DTYPES, FORMAT_NC, FORMAT_NCDHW, FORMAT_NCHW, FORMAT_NCL, FORMAT_ND, FORMAT_NHWC, call,
                          check_layer_norm_backward, close, empty, float16, float32, read, rounded, tensor)


def ulps(a, g):
    """Error in fp32 ulps of max(|g|, rms(g)) (BN outputs are O(rms); ulps of values near 0 mean nothing)."""
    scale = np.maximum(np.abs(g), np.sqrt(np.mean(g * g)) + 1e-30).astype(np.float32)
    return float(np.max(np.abs(a - g) / np.spacing(scale)))


# ---- reference batch norm in float64, channel axis ca ----
def bn_ref(x, w, b, rm, rv, mom, eps, ca):
    axes = tuple(i for i in range(x.ndim) if i != ca)
    shp = [1] * x.ndim
    shp[ca] = -1
    n = x.size // x.shape[ca]
    m = x.mean(axis=axes)
    v = x.var(axis=axes)
    inv = 1.0 / np.sqrt(v + eps)
    y = (x - m.reshape(shp)) * inv.reshape(shp) * w.reshape(shp) + b.reshape(shp)
    rm2 = (1 - mom) * rm + mom * m
    rv2 = (1 - mom) * rv + mom * v * n / (n - 1)
    return y, m, inv, rm2, rv2


def bn_bwd_ref(dy, x, w, m, inv, ca):
    axes = tuple(i for i in range(x.ndim) if i != ca)
    shp = [1] * x.ndim
    shp[ca] = -1
    n = x.size // x.shape[ca]
    xh = (x - m.reshape(shp)) * inv.reshape(shp)
    sdy = dy.sum(axis=axes)
    sdx = (dy * xh).sum(axis=axes)
    dx = w.reshape(shp) * inv.reshape(shp) * (dy - sdy.reshape(shp) / n - xh * sdx.reshape(shp) / n)
    return dx, sdx, sdy


LAYOUTS = [
    ("NCHW", (4, 6, 5, 7), FORMAT_NCHW, 1),
    ("NHWC", (4, 5, 7, 6), FORMAT_NHWC, 3),
    ("NHWC70", (3, 5, 7, 70), FORMAT_NHWC, 3),  # groups of 4 channel vectors, then single vectors
    ("NHWC264", (2, 9, 17, 264), FORMAT_NHWC, 3),  # wide rows read row by row: 3 O-ranges, a partial vector
    ("NC", (33, 5), FORMAT_NC, 1),
    ("NCL", (3, 4, 19), FORMAT_NCL, 1),
    ("NCDHW", (2, 3, 3, 4, 5), FORMAT_NCDHW, 1),
    ("ND5", (2, 3, 1, 2, 2), FORMAT_ND, 1),
]


def rand_bn(shape, ca, dt, rng, loc=0.5):
    x = rounded(rng.normal(loc, 2.0, shape), dt)
    C = shape[ca]
    w = rng.uniform(0.5, 1.5, C).astype(np.float32).astype(np.float64)
    b = rng.normal(0, 1, C).astype(np.float32).astype(np.float64)
    return x, w, b


def run_bn(x, w, b, rm, rv, dt, fmt, training=True, mom=0.1, eps=1e-5, xt=None):
    xt = xt or tensor(x, dt, fmt)
    C = len(w)
    out = empty(x.shape, dt, fmt)
    wt, bt = tensor(w), tensor(b)
    rmt, rvt = tensor(rm), tensor(rv)
    sm, si = empty((C,)), empty((C,))
    call("aclnnBatchNorm", xt, wt, bt, rmt, rvt, training, mom, eps, out, sm, si)
    return read(out), read(sm), read(si), read(rmt), read(rvt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name,shape,fmt,ca", LAYOUTS)
def test_batch_norm_training(name, shape, fmt, ca, dt, isa):
    rng = np.random.default_rng(hash((name, dt)) % 2 ** 32)
    x, w, b = rand_bn(shape, ca, dt, rng)
    C = shape[ca]
    rm, rv = rng.normal(0, 1, C).astype(np.float32), rng.uniform(0.5, 2, C).astype(np.float32)
    y, sm, si, rm2, rv2 = run_bn(x, w, b, rm, rv, dt, fmt)
    gy, gm, gi, grm, grv = bn_ref(x, w, b, rm.astype(np.float64), rv.astype(np.float64), 0.1, 1e-5, ca)
    close(y, gy, dt, "y")
    close(sm, gm, float32, "saveMean")
    close(si, gi, float32, "saveInvstd")
    close(rm2, grm, float32, "runningMean")
    close(rv2, grv, float32, "runningVar")
    # backward, training
    dy = rounded(rng.normal(0, 1, shape), dt)
    dyt, xt = tensor(dy, dt, fmt), tensor(x, dt, fmt)
    gi_t, gw_t, gb_t = empty(shape, dt, fmt), empty((C,)), empty((C,))
    call("aclnnBatchNormBackward", dyt, xt, tensor(w), None, None, tensor(sm), tensor(si), True, 1e-5,
         [True, True, True], gi_t, gw_t, gb_t)
    gdx, gsdx, gsdy = bn_bwd_ref(dy, x, w, sm, si, ca)
    close(read(gi_t), gdx, dt, "gradInput")
    close(read(gw_t), gsdx, float32, "gradWeight")
    close(read(gb_t), gsdy, float32, "gradBias")


def test_batch_norm_channels_last_strides_and_torch():
    import torch
    rng = np.random.default_rng(7)
    x, w, b = rand_bn((4, 8, 6, 5), 1, float32, rng)
    # An NCHW view whose memory is NHWC (torch.channels_last).
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    N, C, H, W = x.shape
    xt = cannon.from_storage(nhwc, x.shape, [H * W * C, 1, W * C, C], 0, float32, FORMAT_NCHW)
    rm, rv = np.zeros(C, np.float32), np.ones(C, np.float32)
    y, sm, si, rm2, rv2 = run_bn(x, w, b, rm, rv, float32, FORMAT_NCHW, xt=xt)
    tx = torch.tensor(x, dtype=torch.float32)
    trm, trv = torch.zeros(C), torch.ones(C)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, torch.tensor(w, dtype=torch.float32),
                                        torch.tensor(b, dtype=torch.float32), True, 0.1, 1e-5)
    close(y, ty.double().numpy(), float32, "y vs torch")
    close(rm2, trm.double().numpy(), float32, "rm vs torch")
    close(rv2, trv.double().numpy(), float32, "rv vs torch")
    gy, gm, gi, _, _ = bn_ref(x, w, b, rm.astype(float), rv.astype(float), 0.1, 1e-5, 1)
    assert ulps(y, gy) < 4


def test_batch_norm_large_mean(isa):
    rng = np.random.default_rng(3)
    x = (1e4 + rng.normal(0, 1, (16, 3, 20, 20))).astype(np.float32).astype(np.float64)
    C = 3
    w, b = np.ones(C), np.zeros(C)
    y, sm, si, rm2, rv2 = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), float32, FORMAT_NCHW)
    gy, gm, gi, grm, grv = bn_ref(x, w, b, np.zeros(C), np.ones(C), 0.1, 1e-5, 1)
    assert np.max(np.abs(si - gi) / gi) < 2.5e-7
    assert np.max(np.abs(y - gy)) < 1e-5, np.max(np.abs(y - gy))
    close(y, gy, float32, "y")


def test_batch_norm_eval_and_backward():
    rng = np.random.default_rng(5)
    shape = (3, 4, 5, 6)
    x, w, b = rand_bn(shape, 1, float32, rng)
    rm, rv = rng.normal(0, 1, 4).astype(np.float32), rng.uniform(0.5, 2, 4).astype(np.float32)
    y, _, _, rm2, rv2 = run_bn(x, w, b, rm, rv, float32, FORMAT_NCHW, training=False)
    shp = (1, 4, 1, 1)
    inv = 1 / np.sqrt(rv.astype(float) + 1e-5)
    gy = (x - rm.reshape(shp)) * inv.reshape(shp) * w.reshape(shp) + b.reshape(shp)
    close(y, gy, float32, "eval y")
    assert np.array_equal(rm2, rm) and np.array_equal(rv2, rv)
    dy = rng.normal(0, 1, shape)
    gi_t, gw_t, gb_t = empty(shape), empty((4,)), empty((4,))
    call("aclnnBatchNormBackward", tensor(dy), tensor(x), tensor(w), tensor(rm), tensor(rv), None, None, False,
         1e-5, [True, True, True], gi_t, gw_t, gb_t)
    close(read(gi_t), dy * (w * inv).reshape(shp), float32, "eval dx")
    close(read(gw_t), (dy * (x - rm.reshape(shp)) * inv.reshape(shp)).sum(axis=(0, 2, 3)), float32, "eval dw")
    close(read(gb_t), dy.sum(axis=(0, 2, 3)), float32, "eval db")


def sync_bn(parts, w, b, dys, eps=1e-5, mom=0.1, fmt=FORMAT_NCHW, dt=float32):
    """SyncBatchNorm over parts (list of arrays split on N): forward and backward outputs."""
    C = len(w)
    means, invs, counts = [], [], []
    for p in parts:
        m, i = empty((C,)), empty((C,))
        call("aclnnBatchNormStats", tensor(p, dt, fmt), eps, m, i)
        means.append(read(m))
        invs.append(read(i))
        counts.append(p.size // C)
    ma, ia = empty((C,)), empty((C,))
    rm, rv = tensor(np.zeros(C)), tensor(np.ones(C))
    call("aclnnBatchNormGatherStatsWithCounts", tensor(parts[0], dt, fmt), tensor(np.array(means)),
         tensor(np.array(invs)), rm, rv, mom, eps, tensor(np.array(counts, np.float64)), ma, ia)
    mean_all, inv_all = read(ma), read(ia)
    ys = []
    for p in parts:
        o = empty(p.shape, dt, fmt)
        call("aclnnBatchNormElemt", tensor(p, dt, fmt), tensor(w), tensor(b), tensor(mean_all), tensor(inv_all),
             eps, o)
        ys.append(read(o))
    sdy, sdx = np.zeros(C), np.zeros(C)
    for p, dy in zip(parts, dys):
        a, bb, gw, gb = empty((C,)), empty((C,)), empty((C,)), empty((C,))
        call("aclnnBatchNormReduceBackward", tensor(dy, dt, fmt), tensor(p, dt, fmt), tensor(mean_all),
             tensor(inv_all), tensor(w), True, True, True, a, bb, gw, gb)
        sdy += read(a)
        sdx += read(bb)
    sdy, sdx = sdy.astype(np.float32), sdx.astype(np.float32)  # the all_reduce result, fp32
    dxs = []
    cnt = tensor(np.array(counts, np.int32), cannon.int32)
    for p, dy in zip(parts, dys):
        o = empty(p.shape, dt, fmt)
        call("aclnnBatchNormElemtBackward", tensor(dy, dt, fmt), tensor(p, dt, fmt), tensor(mean_all),
             tensor(inv_all), tensor(w), tensor(sdy), tensor(sdx), cnt, o)
        dxs.append(read(o))
    return ys, dxs, mean_all, inv_all, read(rm), read(rv)


@pytest.mark.parametrize("splits", [[2, 2], [1, 2, 3], [1] * 8, [5, 1, 2]])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_sync_batch_norm_split(splits, layout, isa):
    rng = np.random.default_rng(len(splits) * 10 + sum(splits))
    N = sum(splits)
    fmt = FORMAT_NCHW if layout == "NCHW" else FORMAT_NHWC
    shape = (N, 5, 6, 7) if layout == "NCHW" else (N, 6, 7, 5)
    x = rng.normal(0.3, 1.5, shape).astype(np.float32).astype(np.float64)
    dy = rng.normal(0, 1, shape).astype(np.float32).astype(np.float64)
    C = 5
    w = rng.uniform(0.5, 1.5, C).astype(np.float32).astype(np.float64)
    b = rng.normal(0, 1, C).astype(np.float32).astype(np.float64)
    y, sm, si, rm2, rv2 = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), float32, fmt)
    gi_t = empty(shape, float32, fmt)
    call("aclnnBatchNormBackward", tensor(dy, float32, fmt), tensor(x, float32, fmt), tensor(w), None, None,
         tensor(sm), tensor(si), True, 1e-5, [True, False, False], gi_t, None, None)
    dx = read(gi_t)
    cuts = np.cumsum(splits)[:-1]
    parts = np.split(x, cuts)
    dys = np.split(dy, cuts)
    ys, dxs, ma, ia, rm, rv = sync_bn(parts, w, b, dys, fmt=fmt)
    assert ulps(np.concatenate(ys), y) <= 2
    assert ulps(np.concatenate(dxs), dx) <= 2
    assert np.max(np.abs(ma - sm) / np.abs(sm)) < 3e-7
    assert np.max(np.abs(ia - si) / si) < 3e-7
    close(rm, rm2, float32, "running mean")
    close(rv, rv2, float32, "running var")
    # Against torch: torch 1.13 has batch_norm_stats / gather_stats_with_counts on CUDA only, so the
    # pooled statistics are compared with torch.batch_norm over the whole batch (momentum 1: the
    # running stats become the batch mean and the unbiased variance).
    import torch
    tx = torch.tensor(x, dtype=torch.float32)
    if layout == "NHWC":
        tx = tx.permute(0, 3, 1, 2)
    trm, trv = torch.zeros(C), torch.ones(C)
    torch.nn.functional.batch_norm(tx, trm, trv, None, None, True, 1.0, 1e-5)
    n = x.size // C
    close(ma, trm.double().numpy(), float32, "meanAll vs torch")
    close(1 / ia ** 2 - 1e-5, trv.double().numpy() * (n - 1) / n, float32, "pooled var vs torch")


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,k", [((6, 33), 1), ((2, 3, 4, 40), 2), ((5, 1000), 1)])
def test_layer_norm(shape, k, dt, isa):
    import torch
    rng = np.random.default_rng(11)
    x = rounded(rng.normal(0.5, 2, shape), dt)
    ns = shape[-k:]
    w = rounded(rng.uniform(0.5, 1.5, ns), dt)
    b = rounded(rng.normal(0, 1, ns), dt)
    rows = int(np.prod(shape[:-k]))
    out = empty(shape, dt)
    mean, rstd = empty(shape[:-k] + (1,) * k), empty(shape[:-k] + (1,) * k)
    call("aclnnLayerNorm", tensor(x, dt), list(ns), tensor(w, dt), tensor(b, dt), 1e-5, out, mean, rstd)
    xr = x.reshape(rows, -1)
    m = xr.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(xr.var(axis=1, keepdims=True) + 1e-5)
    gy = ((xr - m) * r * w.reshape(1, -1) + b.reshape(1, -1)).reshape(shape)
    close(read(out), gy, dt, "y")
    close(read(mean).reshape(rows, 1), m, float32, "mean")
    close(read(rstd).reshape(rows, 1), r, float32, "rstd")
    ty = torch.nn.functional.layer_norm(torch.tensor(x), ns, torch.tensor(w), torch.tensor(b), 1e-5)
    close(read(out), ty.numpy(), dt, "y vs torch")
    # backward from the saved statistics
    dy = rounded(rng.normal(0, 1, shape), dt)
    gi, gw, gb = empty(shape, dt), empty(ns), empty(ns)
    call("aclnnLayerNormBackward", tensor(dy, dt), tensor(x, dt), list(ns), mean, rstd, tensor(w, dt),
         tensor(b, dt), [True, True, True], gi, gw, gb)
    ms, rs = read(mean).reshape(rows, 1), read(rstd).reshape(rows, 1)
    dyr = dy.reshape(rows, -1)
    xh = (xr - ms) * rs
    gdw = dyr * w.reshape(1, -1)
    dx = rs * (gdw - gdw.mean(axis=1, keepdims=True) - xh * (gdw * xh).mean(axis=1, keepdims=True))
    close(read(gi), dx.reshape(shape), dt, "dx")
    close(read(gw).reshape(-1), (dyr * xh).sum(axis=0), float32, "dw")
    close(read(gb).reshape(-1), dyr.sum(axis=0), float32, "db")


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(7, 64), (3, 2, 129)])
def test_rms_norm(shape, dt, isa):
    rng = np.random.default_rng(13)
    x = rounded(rng.normal(0.2, 1.5, shape), dt)
    g = rng.uniform(0.5, 1.5, shape[-1:]).astype(np.float32).astype(np.float64)
    rows = int(np.prod(shape[:-1]))
    y, rstd = empty(shape, dt), empty(shape[:-1] + (1,))
    call("aclnnRmsNorm", tensor(x, dt), tensor(g), 1e-6, y, rstd)
    xr = x.reshape(rows, -1)
    r = 1 / np.sqrt((xr * xr).mean(axis=1, keepdims=True) + 1e-6)
    close(read(y), (xr * r * g).reshape(shape), dt, "y")
    close(read(rstd).reshape(rows, 1), r, float32, "rstd")
    dy = rounded(rng.normal(0, 1, shape), dt)
    dx, dg = empty(shape, dt), empty(g.shape)
    call("aclnnRmsNormGrad", tensor(dy, dt), tensor(x, dt), rstd, tensor(g), dx, dg)
    rs = read(rstd).reshape(rows, 1)
    dyr = dy.reshape(rows, -1)
    gdx = rs * dyr * g - xr * rs ** 3 * (dyr * g * xr).mean(axis=1, keepdims=True)
    close(read(dx), gdx.reshape(shape), dt, "dx")
    close(read(dg), (dyr * xr * rs).sum(axis=0), float32, "dgamma")


def test_batch_norm_fused_equals_split(isa):
    """Channel-first BatchNorm / BatchNormBackward run the fused per-channel kernel; the SyncBN
    pieces run the separate reduce / per-channel kernels. Both sum the same ranges in the same
    order, so the statistics and the parameter gradients must be bit-identical."""
    rng = np.random.default_rng(17)
    for dt in DTYPES:
        shape = (5, 9, 6, 7)
        x, w, b = rand_bn(shape, 1, dt, rng, loc=3.0)
        C = shape[1]
        _, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), dt, FORMAT_NCHW)
        dy = rounded(rng.normal(0, 1, shape), dt)
        _, gw_t, gb_t = _bn_backward(x, dy, w, sm, si, dt)
        _bn_sums_equal_pieces(x, dy, w, sm, si, dt, gw_t, gb_t)


def test_batch_norm_channels_last_sums_same_on_every_tier(monkeypatch):
    """Channels-last sums are per channel lane, each adding its rows in order in fp64 (sweeps of
    four vectors down a unit, or, for wide rows on the vector tiers, one row at a time with the
    accumulators kept in the partials): the statistics and parameter gradients must be the same
    bits on every tier, whichever of the two the tier takes."""
    rng = np.random.default_rng(29)
    for dt in (float32, DTYPES[-1]):
        for shape in ((2, 9, 17, 264), (3, 5, 7, 70), (4, 3, 5, 16)):
            x, w, b = rand_bn(shape, 3, dt, rng, loc=3.0)
            C = shape[3]
            dy = rounded(rng.normal(0, 1, shape), dt)
            got = []
            for isa in ISAS:
                monkeypatch.setenv("CANNON_ISA", isa)
                _, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), dt, FORMAT_NHWC)
                gi_t, gw_t, gb_t = empty(shape, dt, FORMAT_NHWC), empty((C,)), empty((C,))
                call("aclnnBatchNormBackward", tensor(dy, dt, FORMAT_NHWC), tensor(x, dt, FORMAT_NHWC), tensor(w), None,
                     None, tensor(sm), tensor(si), True, 1e-5, [True, True, True], gi_t, gw_t,
                     gb_t)
                got.append((sm, si, read(gw_t), read(gb_t)))
            for other in got[1:]:
                for a, g in zip(got[0], other):
                    assert np.array_equal(a, g), (dt, shape)


@pytest.mark.parametrize("case", ["nchw_fused_nt", "nchw_fused_nt_odd", "nchw_split", "nhwc_nt", "ln_nt", "rms_nt"])
def test_large_paths(case, isa):
    """Shapes that take the other kernel paths: outputs of 8 MiB and more are written with
    streaming stores (runs not 64-byte aligned included); a channel-first tensor with few channels
    and more than 1 MiB takes the separate reduce / apply kernels."""
    rng = np.random.default_rng(23)
    if case.startswith("n"):
        # _odd: runs of 2145 elements, so runs start and end inside cache lines and only the
        # whole lines between are streamed.
        shape, fmt, ca = {"nchw_fused_nt": ((8, 16, 128, 129), FORMAT_NCHW, 1),
                          "nchw_fused_nt_odd": ((16, 64, 33, 65), FORMAT_NCHW, 1),
                          "nchw_split": ((4, 2, 256, 260), FORMAT_NCHW, 1),
                          "nhwc_nt": ((8, 128, 129, 16), FORMAT_NHWC, 3)}[case]
        x, w, b = rand_bn(shape, ca, float32, rng)
        C = shape[ca]
        y, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), float32, fmt)
        gy, gm, gi, _, _ = bn_ref(x, w, b, np.zeros(C), np.ones(C), 0.1, 1e-5, ca)
        close(y, gy, float32, "y")
        close(sm, gm, float32, "saveMean")
        close(si, gi, float32, "saveInvstd")
        dy = rounded(rng.normal(0, 1, shape), float32)
        gi_t, gw_t, gb_t = empty(shape, float32, fmt), empty((C,)), empty((C,))
        call("aclnnBatchNormBackward", tensor(dy, float32, fmt), tensor(x, float32, fmt), tensor(w), None, None,
             tensor(sm), tensor(si), True, 1e-5, [True, True, True], gi_t, gw_t, gb_t)
        gdx, gsdx, gsdy = bn_bwd_ref(dy, x, w, sm, si, ca)
        close(read(gi_t), gdx, float32, "gradInput")
        close(read(gw_t), gsdx, float32, "gradWeight")
        close(read(gb_t), gsdy, float32, "gradBias")
        return
    shape = (520, 4096)
    x = rounded(rng.normal(0.5, 2, shape), float32)
    dy = rounded(rng.normal(0, 1, shape), float32)
    g = rng.uniform(0.5, 1.5, shape[-1:]).astype(np.float32).astype(np.float64)
    if case == "rms_nt":
        y, rstd = empty(shape), empty((shape[0], 1))
        call("aclnnRmsNorm", tensor(x), tensor(g), 1e-6, y, rstd)
        r = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)
        close(read(y), x * r * g, float32, "y")
        dx, dg = empty(shape), empty(g.shape)
        call("aclnnRmsNormGrad", tensor(dy), tensor(x), rstd, tensor(g), dx, dg)
        rs = read(rstd)
        close(read(dx), rs * dy * g - x * rs ** 3 * (dy * g * x).mean(axis=1, keepdims=True), float32, "dx")
        close(read(dg), (dy * x * rs).sum(axis=0), float32, "dgamma")
        return
    b = rng.normal(0, 1, shape[-1:]).astype(np.float32).astype(np.float64)
    out, mean, rstd = empty(shape), empty((shape[0], 1)), empty((shape[0], 1))
    call("aclnnLayerNorm", tensor(x), [shape[1]], tensor(g), tensor(b), 1e-5, out, mean, rstd)
    m = x.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    close(read(out), (x - m) * r * g + b, float32, "y")
    gi, gw, gb = empty(shape), empty(g.shape), empty(g.shape)
    call("aclnnLayerNormBackward", tensor(dy), tensor(x), [shape[1]], mean, rstd, tensor(g), tensor(b),
         [True, True, True], gi, gw, gb)
    check_layer_norm_backward(gi, gw, gb, x, dy, g, mean, rstd)


# ---------------------------------------------------------------- determinism
# Every norm operator, on shapes whose work splits into several blocks (fused per-channel, split
# reduce/apply, channels-last rows, layer-norm rows and column partials), for every dtype and
# tier: a digest of all outputs, computed in subprocesses with different worker counts.
DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import cannon
from norm_helpers import FORMAT_NCHW, FORMAT_NHWC, call, empty, read, rounded, tensor
h = hashlib.sha256()
def out(*ts):
    for t in ts:
        h.update(np.ascontiguousarray(t.storage()).tobytes())
# Every dtype on the best tier, fp32 on the others (the blocking does not depend on the tier).
for isa, dts in (("avx512", (cannon.float32, cannon.float16, cannon.bfloat16)), ("avx2", (cannon.float32,)),
                 ("scalar", (cannon.float32,))):
    os.environ["CANNON_ISA"] = isa
    rng = np.random.default_rng(5)
    for dt in dts:
        for shape, fmt, ca in (((2, 40, 32, 32), FORMAT_NCHW, 1), ((4, 2, 128, 260), FORMAT_NCHW, 1),
                               ((4, 16, 16, 72), FORMAT_NHWC, 3)):
            C = shape[ca]
            x = tensor(rounded(rng.normal(2.0, 1.5, shape), dt), dt, fmt)
            dy = tensor(rounded(rng.normal(0, 1, shape), dt), dt, fmt)
            w, b = tensor(rng.uniform(0.5, 1.5, C)), tensor(rng.normal(0, 1, C))
            rm, rv = tensor(np.zeros(C)), tensor(np.ones(C))
            y, sm, si = empty(shape, dt, fmt), empty((C,)), empty((C,))
            call("aclnnBatchNorm", x, w, b, rm, rv, True, 0.1, 1e-5, y, sm, si)
            dx, gw, gb = empty(shape, dt, fmt), empty((C,)), empty((C,))
            call("aclnnBatchNormBackward", dy, x, w, rm, rv, sm, si, True, 1e-5,
                 [True, True, True], dx, gw, gb)
            out(y, sm, si, rm, rv, dx, gw, gb)
            m, i = empty((C,)), empty((C,))
            call("aclnnBatchNormStats", x, 1e-5, m, i)
            ma, ia = empty((C,)), empty((C,))
            m2 = tensor(np.stack([read(m), read(m) + 0.5]))
            i2 = tensor(np.stack([read(i), read(i) * 0.9]))
            call("aclnnBatchNormGatherStatsWithCounts", x, m2, i2, rm, rv, 0.1, 1e-5,
                 tensor(np.array([3.0, 5.0])), ma, ia)
            ye = empty(shape, dt, fmt)
            call("aclnnBatchNormElemt", x, w, b, ma, ia, 1e-5, ye)
            a1, a2, a3, a4 = empty((C,)), empty((C,)), empty((C,)), empty((C,))
            call("aclnnBatchNormReduceBackward", dy, x, ma, ia, w, True, True, True, a1, a2, a3, a4)
            de = empty(shape, dt, fmt)
            call("aclnnBatchNormElemtBackward", dy, x, ma, ia, w, a1, a2,
                 tensor(np.array([4, 4], np.int32), cannon.int32), de)
            out(m, i, ma, ia, rm, rv, ye, a1, a2, a3, a4, de)
        R = 520
        shape = (130, R)
        x = tensor(rounded(rng.normal(1.0, 2.0, shape), dt), dt)
        dy = tensor(rounded(rng.normal(0, 1, shape), dt), dt)
        g, bb = tensor(rng.uniform(0.5, 1.5, R)), tensor(rng.normal(0, 1, R))
        y, mean, rstd = empty(shape, dt), empty((130, 1)), empty((130, 1))
        call("aclnnLayerNorm", x, [R], g, bb, 1e-5, y, mean, rstd)
        dx, dw, db = empty(shape, dt), empty((R,)), empty((R,))
        call("aclnnLayerNormBackward", dy, x, [R], mean, rstd, g, bb, [True, True, True],
             dx, dw, db)
        yr, rr = empty(shape, dt), empty((130, 1))
        call("aclnnRmsNorm", x, g, 1e-6, yr, rr)
        dxr, dg = empty(shape, dt), empty((R,))
        call("aclnnRmsNormGrad", dy, x, rr, g, dxr, dg)
        out(y, mean, rstd, dx, dw, db, yr, rr, dxr, dg)
print(h.hexdigest())
"""


def test_deterministic_across_threads():
    digests = set(outputs_per_thread_count(DET_SCRIPT, ("1", "2", "8"), 600, drop_isa=True))
    assert len(digests) == 1, digests


def test_errors():
    x = tensor(np.ones((2, 3, 4, 4)), float32, FORMAT_NCHW)
    out = empty((2, 3, 4, 4), float32, FORMAT_NCHW)
    sm, si = empty((3,)), empty((3,))
    w4 = tensor(np.ones(4))

    def p1(name, *args):
        with pytest.raises(AclError) as e:
            call(name, *args)
        return e.value.code

    assert p1("aclnnBatchNorm", x, w4, None, None, None, True, 0.1, 1e-5, out, sm, si) == 161002
    assert p1("aclnnBatchNorm", x, None, None, None, None, True, 0.1, -1.0, out, sm, si) == 161002
    assert p1("aclnnBatchNorm", None, None, None, None, None, True, 0.1, 1e-5, out, sm, si) == 161001
    nhwc = empty((2, 3, 4, 4), float32, FORMAT_NHWC)
    assert p1("aclnnBatchNorm", x, None, None, None, None, True, 0.1, 1e-5, nhwc, sm, si) == 161002
    bad_rank = tensor(np.ones((2, 3, 4)), float32, FORMAT_NCHW)
    assert p1("aclnnBatchNormStats", bad_rank, 1e-5, sm, si) == 161002
    emptyx = tensor(np.ones((0, 3, 4, 4)), float32, FORMAT_NCHW)
    assert p1("aclnnBatchNormStats", emptyx, 1e-5, sm, si) == 161002
    # counts summing to zero: refused at run time, nothing written
    ma, ia = empty((3,), fill=7.0), empty((3,), fill=7.0)
    code = p1("aclnnBatchNormGatherStatsWithCounts", x, tensor(np.zeros((2, 3))), tensor(np.ones((2, 3))), None, None,
              0.1, 1e-5, tensor(np.zeros(2)), ma, ia)
    assert code == 161002
    assert np.all(read(ma) == 7.0) and np.all(read(ia) == 7.0)


# The three-kernel path's passes over 1 MiB or more hand units to workers by share (worker w first
# takes the rows, or for channel-first data the O-ranges, of share w, then helps with the rest;
# see nm_bn_add_aff): the bits must not depend on the worker count, including counts that do not
# divide the units and more workers than shares (20 > 16). Channels-last shapes; channel-first
# ones that the fused kernel does not take (fewer than 8 channels): 5 O-ranges of 2, 2, 2, 2 and
# 1 samples with runs of 5325 floats, and 8 O-ranges of 2 samples; and one whose backward the fused
# kernel takes on 1 worker (pipelined, plain stores: fused_nt) and the three kernels take on more
# (bn_bwd_split: streamed output, runs of 377 floats that start inside cache lines, 8 O-ranges of 6
# samples).
CL_AFF_SCRIPT = r"""
import hashlib
import numpy as np
import cannon
from golden import read
from norm_helpers import FORMAT_NCHW, FORMAT_NHWC, call, empty, tensor
h = hashlib.sha256()
rng = np.random.default_rng(11)
for shape, fmt in (((3, 20, 36, 200), FORMAT_NHWC), ((2, 30, 30, 48), FORMAT_NHWC), ((9, 6, 75, 71), FORMAT_NCHW),
                   ((16, 4, 96, 96), FORMAT_NCHW), ((48, 128, 13, 29), FORMAT_NCHW)):
    C = shape[3] if fmt == FORMAT_NHWC else shape[1]
    x = tensor(rng.normal(3.0, 2.0, shape).astype(np.float32), cannon.float32, fmt)
    dy = tensor(rng.normal(0, 1, shape).astype(np.float32), cannon.float32, fmt)
    w, b = tensor(rng.uniform(0.5, 1.5, C)), tensor(rng.normal(0, 1, C))
    rm, rv = tensor(np.zeros(C)), tensor(np.ones(C))
    y, sm, si = empty(shape, cannon.float32, fmt), empty((C,)), empty((C,))
    call("aclnnBatchNorm", x, w, b, rm, rv, True, 0.1, 1e-5, y, sm, si)
    dx, gw, gb = empty(shape, cannon.float32, fmt), empty((C,)), empty((C,))
    call("aclnnBatchNormBackward", dy, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True],
         dx, gw, gb)
    m, i = empty((C,)), empty((C,))
    call("aclnnBatchNormStats", x, 1e-5, m, i)
    a1, a2, a3, a4 = empty((C,)), empty((C,)), empty((C,)), empty((C,))
    call("aclnnBatchNormReduceBackward", dy, x, sm, si, w, True, True, True, a1, a2, a3, a4)
    # The pieces equal the whole operator bit for bit.
    assert read(m).tobytes() == read(sm).tobytes() and read(i).tobytes() == read(si).tobytes()
    assert read(a3).tobytes() == read(gw).tobytes() and read(a4).tobytes() == read(gb).tobytes()
    for t in (y, sm, si, rm, rv, dx, gw, gb):
        h.update(np.ascontiguousarray(t.storage()).tobytes())
print(h.hexdigest())
"""


def test_batch_norm_shared_passes_same_bits_any_workers():
    digests = set(outputs_per_thread_count(CL_AFF_SCRIPT, ("1", "2", "3", "20"), 600))
    assert len(digests) == 1, digests


def test_batch_norm_fused_nt_unaligned_runs(isa):
    """Channel-first, output >= 8 MiB, runs of 130*129 floats, so every run but the first starts
    inside a cache line: on 1 worker the fused kernel writes such runs with plain stores, forward
    and (pipelined) backward (fused_nt); on more, the forward's pipeline writes each run's unaligned
    head first and streams the rest, and the backward goes through the three kernels (bn_bwd_split;
    the per-thread-count digests above show that these give the same bits). Results against the
    reference, and the sums bit for bit equal to the SyncBN pieces'."""
    _bn_train_against_reference((8, 16, 130, 129), 29, 2.0)


# Channel-first, outputs >= 8 MiB, runs that do not fill whole cache lines but 4 of them do: on 1
# worker at AVX-512 width the fused fp32 training forward and backward go group by group
# (fused_groups), each group's output streamed in whole lines across its runs; on 2 the three
# kernels take them (bn_fwd_split, bn_bwd_split). fp32 groups of 4 runs of 900 floats with 210 channels
# (blocks of 16 channels, the last of 2); fp16 and bf16 with runs of 784 elements, which the
# channel-by-channel loop takes on 1 worker. Each worker count's results against the float64
# reference, and the same bits for both.
GROUPS_SCRIPT = r"""
import hashlib
import numpy as np
import cannon
from norm_helpers import FORMAT_NCHW, call, empty, read, rounded, tensor
h = hashlib.sha256()
rng = np.random.default_rng(17)
for shape, dt in (((12, 210, 30, 30), cannon.float32), ((32, 256, 28, 28), cannon.float16),
                  ((32, 256, 28, 28), cannon.bfloat16)):
    C = shape[1]
    tol = 2e-6 if dt == cannon.float32 else 1e-3 if dt == cannon.float16 else 8e-3
    x = tensor(rounded(rng.normal(-4.0, 2.0, shape), dt), dt, FORMAT_NCHW)
    dy = tensor(rounded(rng.normal(0.3, 1.0, shape), dt), dt, FORMAT_NCHW)
    w, b = tensor(rng.uniform(0.5, 1.5, C)), tensor(rng.normal(0, 1, C))
    rm, rv = tensor(np.zeros(C)), tensor(np.ones(C))
    y, sm, si = empty(shape, dt, FORMAT_NCHW), empty((C,)), empty((C,))
    call("aclnnBatchNorm", x, w, b, rm, rv, True, 0.1, 1e-5, y, sm, si)
    dx, gw, gb = empty(shape, dt, FORMAT_NCHW), empty((C,)), empty((C,))
    call("aclnnBatchNormBackward", dy, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True],
         dx, gw, gb)
    xd, gd, wd = read(x).astype(np.float64), read(dy).astype(np.float64), read(w).astype(np.float64)
    mean, var = xd.mean(axis=(0, 2, 3)), xd.var(axis=(0, 2, 3))
    inv = 1.0 / np.sqrt(var + 1e-5)
    xh = (xd - mean[:, None, None]) * inv[:, None, None]
    ref = xh * wd[:, None, None] + read(b)[:, None, None]
    err = np.abs(read(y).astype(np.float64) - ref) / (np.abs(ref) + 1.0)
    assert err.max() < tol, (dt, "y", err.max())
    # dx = w*invstd*(dy - mean(dy) - xhat*mean(dy*xhat)), computed from the saved fp32 statistics
    # as the operator does.
    inv_s = read(si).astype(np.float64)
    xh_s = (xd - read(sm).astype(np.float64)[:, None, None]) * inv_s[:, None, None]
    mdy, mdx = gd.mean(axis=(0, 2, 3)), (gd * xh_s).mean(axis=(0, 2, 3))
    gref = (wd * inv_s)[:, None, None] * (gd - mdy[:, None, None] - xh_s * mdx[:, None, None])
    err = np.abs(read(dx).astype(np.float64) - gref) / (np.abs(gref) + 1.0)
    assert err.max() < tol, (dt, "dx", err.max())
    n = xd.size / C
    assert np.allclose(read(gb), mdy * n, rtol=1e-5, atol=1e-3), dt
    assert np.allclose(read(gw), mdx * n, rtol=1e-5, atol=1e-3), dt
    for t in (y, sm, si, rm, rv, dx, gw, gb):
        h.update(np.ascontiguousarray(t.storage()).tobytes())
print(h.hexdigest())
"""


def test_batch_norm_fused_groups_same_bits_any_workers():
    digests = set(outputs_per_thread_count(GROUPS_SCRIPT, ("1", "2"), 600, drop_isa=True))
    assert len(digests) == 1, digests


def _bn_backward(x, dy, w, sm, si, dt):
    """Training BatchNormBackward (NCHW, every output): gradInput, gradWeight, gradBias read back."""
    C = len(w)
    gi_t, gw_t, gb_t = empty(x.shape, dt, FORMAT_NCHW), empty((C,)), empty((C,))
    call("aclnnBatchNormBackward", tensor(dy, dt, FORMAT_NCHW), tensor(x, dt, FORMAT_NCHW), tensor(w), None, None,
         tensor(sm), tensor(si), True, 1e-5, [True, True, True], gi_t, gw_t, gb_t)
    return read(gi_t), read(gw_t), read(gb_t)


def _bn_backward_against_reference(x, dy, w, sm, si):
    """_bn_backward (fp32) against the float64 reference; its gradWeight and gradBias."""
    gi_t, gw_t, gb_t = _bn_backward(x, dy, w, sm, si, float32)
    gdx, gsdx, gsdy = bn_bwd_ref(dy, x, w, sm, si, 1)
    close(gi_t, gdx, float32, "gradInput")
    close(gw_t, gsdx, float32, "gradWeight")
    close(gb_t, gsdy, float32, "gradBias")
    return gw_t, gb_t


def _bn_sums_equal_pieces(x, dy, w, sm, si, dt, gw_t, gb_t):
    """BatchNormStats' and BatchNormReduceBackward's sums (the three-kernel path's reduction)
    against the whole operators' (saveMean / saveInvstd, gradWeight / gradBias), bit for bit."""
    C = len(w)
    m, i = empty((C,)), empty((C,))
    call("aclnnBatchNormStats", tensor(x, dt, FORMAT_NCHW), 1e-5, m, i)
    assert np.array_equal(read(m), sm) and np.array_equal(read(i), si), dt
    a, bb, gw, gb = empty((C,)), empty((C,)), empty((C,)), empty((C,))
    call("aclnnBatchNormReduceBackward", tensor(dy, dt, FORMAT_NCHW), tensor(x, dt, FORMAT_NCHW), tensor(sm),
         tensor(si), tensor(w), True, True, True, a, bb, gw, gb)
    assert np.array_equal(read(gw), gw_t) and np.array_equal(read(gb), gb_t), dt


def _bn_train_against_reference(shape, seed, loc):
    """Training BatchNorm and its backward (fp32, NCHW) against the float64 reference, and the
    SyncBN pieces' sums bit for bit equal to the whole operators'."""
    rng = np.random.default_rng(seed)
    x, w, b = rand_bn(shape, 1, float32, rng, loc=loc)
    C = shape[1]
    y, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), float32, FORMAT_NCHW)
    gy, gm, gi, _, _ = bn_ref(x, w, b, np.zeros(C), np.ones(C), 0.1, 1e-5, 1)
    close(y, gy, float32, "y")
    close(sm, gm, float32, "saveMean")
    close(si, gi, float32, "saveInvstd")
    dy = rounded(rng.normal(0, 1, shape), float32)
    gw_t, gb_t = _bn_backward_against_reference(x, dy, w, sm, si)
    _bn_sums_equal_pieces(x, dy, w, sm, si, float32, gw_t, gb_t)


def test_batch_norm_plane_order_reduction(isa):
    """The channel-first reduction of the three-kernel path walks each block's channels of an
    O-range in address order (red_plane): here 45 channels (a chunk of 32 and one of 13), runs of
    300 elements (vector tails), 8 O-ranges of 15 runs, and blocks of 22 units that straddle the
    O-ranges. Its sums must have the bits of the fused kernel's, which reads channel by channel.
    The order of the runs must show in those bits, and with N(0,1) data it does not (the fp64 sums
    are exact, or round the same way, and the fp32 results hide the rest): every channel of x and
    dy also holds +H in its first run and -H in the 15th, in the same lane of the first O-range,
    so that the terms in between are added to +-H and rounded (H = 2^50; fp16 cannot hold it and
    keeps plain data). Summing the runs in another order fails this test."""
    rng = np.random.default_rng(31)
    shape = (120, 45, 10, 30)
    C = shape[1]
    for dt in DTYPES:
        def data():
            v = rng.normal(0, 1, shape)
            if dt != float16:
                v[0, :, 0, 5], v[14, :, 0, 5] = 2.0 ** 50, -2.0 ** 50
            return rounded(v, dt)
        x = data()
        w = rng.uniform(0.5, 1.5, C).astype(np.float32).astype(np.float64)
        b = rng.normal(0, 1, C).astype(np.float32).astype(np.float64)
        _, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), dt, FORMAT_NCHW)
        dy = data()
        _, gw_t, gb_t = _bn_backward(x, dy, w, sm, si, dt)
        _bn_sums_equal_pieces(x, dy, w, sm, si, dt, gw_t, gb_t)


def test_batch_norm_shared_nchw_passes(isa):
    """Channel-first data of 1 MiB or more that the fused kernel does not take (6 channels): every
    pass goes by worker share (nm_bn_add_aff; 5 O-ranges of 2, 2, 2, 2 and 1 samples, runs of 5325
    floats, claims of several units). Forward and backward against the float64 reference, and the
    SyncBN pieces bit for bit equal to the whole operators."""
    _bn_train_against_reference((9, 6, 75, 71), 41, 3.0)


def test_batch_norm_backward_split_path(isa):
    """A channel-first backward whose channel slices of x and dy exceed the fused kernel's L2
    budget, with short runs and 51 MB of inputs ([32,64,56,56] fp32), takes the three-kernel path
    (bn_bwd_split): results against the float64 reference, and its sums bit for bit equal to the SyncBN
    pieces' and to the fused forward's statistics."""
    rng = np.random.default_rng(37)
    shape = (32, 64, 56, 56)
    C = shape[1]
    x, w, b = rand_bn(shape, 1, float32, rng, loc=3.0)
    _, sm, si, _, _ = run_bn(x, w, b, np.zeros(C, np.float32), np.ones(C, np.float32), float32, FORMAT_NCHW)
    dy = rounded(rng.normal(0, 1, shape), float32)
    gw_t, gb_t = _bn_backward_against_reference(x, dy, w, sm, si)
    _bn_sums_equal_pieces(x, dy, w, sm, si, float32, gw_t, gb_t)
