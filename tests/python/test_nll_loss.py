"""Golden tests of aclnnNLLLoss and aclnnNLLLossBackward against float64 torch (nll_loss_forward /
nll_loss_backward on the quantised inputs): reductions none/mean/sum, class weights, ignoreIndex
(outside and inside [0, C)), 1-D and 2-D self, target dtypes, strided views, out-of-range targets
reported at synchronize, argument errors, and cross-entropy through aclnnLogSoftmax.

Pass criteria: fp32 within 1e-6 relative to the sum of |terms| (2^-10 / 2^-7 + that for fp16 /
bf16, whose results are rounded once from fp32).
"""
import numpy as np
import pytest
import torch

import cannon_testlib as ct
import train_helpers_a as th

REL = {"float32": 1e-6, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


@pytest.fixture(scope="session")
def L():
    return ct.lib()


def make(rng, N, C, dtype, ignore, tdt="int64"):
    x = torch.log_softmax(torch.from_numpy(rng.standard_normal((N, C)) * 2), dim=1).numpy()
    xq, x64 = th.quantize(x, dtype)
    wq, w64 = th.quantize(rng.uniform(0.2, 2.0, C), dtype)
    t = rng.integers(0, C, N)
    t[::5] = ignore if (ignore >= 0 or tdt != "uint8") else 0
    return xq, x64, wq, w64, t.astype(tdt)


def torch_fwd(x64, t, w64, reduction, ignore):
    out, tw = torch.ops.aten.nll_loss_forward(torch.from_numpy(x64), torch.from_numpy(t.astype(np.int64)),
                                              torch.from_numpy(w64), reduction, ignore)
    return out.numpy(), tw.numpy()


def close(ours, ref, mag, dtype):
    tol = REL[dtype] * (np.abs(ref) + mag) + 1e-6 * mag + 1e-30
    assert np.all(np.abs(ours - ref) <= tol), (ours, ref)


def forward(L, xq, t, tdt, wq, reduction, ignore, dtype, strided=False):
    N = xq.shape[0] if xq.ndim == 2 else 1
    ts, tt, tw = th.tensor(L, xq, dtype, strided), th.tensor(L, t, tdt, strided), th.tensor(L, wq, dtype, strided)
    oshape = (N,) if reduction == 0 and xq.ndim == 2 else ()
    to = th.empty(L, oshape, dtype, strided=strided, fill=0)
    ttw = th.empty(L, (1,), dtype, fill=0)
    L.call("aclnnNLLLoss", ts, tt, tw, reduction, ignore, to, ttw)
    r = th.decode(to.view(), dtype), th.decode(ttw.view(), dtype)
    for x in (ts, tt, tw, to, ttw):
        x.destroy()
    return r


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("ignore", [-100, 3])
@pytest.mark.parametrize("tdt", ["int64", "int32", "uint8"])
def test_forward(L, dtype, reduction, ignore, tdt):
    if tdt == "uint8" and ignore < 0:
        pytest.skip("uint8 targets cannot hold a negative ignoreIndex")
    rng = np.random.default_rng(21)
    xq, x64, wq, w64, t = make(rng, 37, 11, dtype, ignore, tdt)
    out, tw = forward(L, xq, t, tdt, wq, reduction, ignore, dtype)
    rout, rtw = torch_fwd(x64, t, w64, reduction, ignore)
    keep = t.astype(np.int64) != ignore
    mag = np.abs(w64[t[keep]] * x64[keep, t[keep]]).sum()
    close(out, rout, np.abs(rout) if reduction == 0 else mag / (rtw if reduction == 1 else 1), dtype)
    close(tw, rtw.reshape(1), np.abs(rtw), dtype)


def test_forward_1d_and_strided(L):
    rng = np.random.default_rng(22)
    xq, x64, wq, w64, t = make(rng, 19, 7, "float32", -100)
    for reduction in (0, 1, 2):
        out, tw = forward(L, xq, t, "int64", wq, reduction, -100, "float32", strided=True)
        rout, rtw = torch_fwd(x64, t, w64, reduction, -100)
        close(out, rout, np.abs(rout).sum(), "float32")
        close(tw, rtw.reshape(1), np.abs(rtw), "float32")
        # 1-D self (C) with a 0-d target: one element for every reduction
        out1, tw1 = forward(L, xq[1], np.array(t[1]), "int64", wq, reduction, -100, "float32")
        r1, rt1 = torch_fwd(x64[1], np.array(t[1]), w64, reduction, -100)
        close(out1.reshape(()), r1, np.abs(r1), "float32")
        close(tw1, rt1.reshape(1), np.abs(rt1), "float32")


def test_forward_all_ignored_mean_is_nan(L):
    xq = np.zeros((3, 4), np.float32)
    out, tw = forward(L, xq, np.full(3, -100, np.int64), "int64", np.ones(4, np.float32), 1, -100, "float32")
    assert np.isnan(out) and tw[0] == 0


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("strided", [False, True])
def test_backward(L, dtype, reduction, strided):
    rng = np.random.default_rng(23)
    N, C, ignore = 29, 13, 2
    xq, x64, wq, w64, t = make(rng, N, C, dtype, ignore)
    _, rtw = torch_fwd(x64, t, w64, reduction, ignore)
    gshape = (N,) if reduction == 0 else ()
    gq, g64 = th.quantize(rng.standard_normal(gshape), dtype)
    twq, tw64 = th.quantize(np.asarray(rtw).reshape(1), dtype)
    ref = torch.ops.aten.nll_loss_backward(torch.from_numpy(np.asarray(g64)), torch.from_numpy(x64),
                                           torch.from_numpy(t), torch.from_numpy(w64), reduction, ignore,
                                           torch.from_numpy(tw64.reshape(()))).numpy()
    tg, ts = th.tensor(L, gq, dtype, strided), th.tensor(L, xq, dtype, strided)
    tt, tw = th.tensor(L, t, "int64", strided), th.tensor(L, wq, dtype, strided)
    ttw = th.tensor(L, twq, dtype)
    to = th.empty(L, (N, C), dtype, strided=strided, fill=7)
    L.call("aclnnNLLLossBackward", tg, ts, tt, tw, reduction, ignore, ttw, to)
    ours = th.decode(to.view(), dtype)
    close(ours, ref, np.abs(ref), dtype)
    assert np.count_nonzero(ours) == np.count_nonzero(ref)
    for x in (tg, ts, tt, tw, ttw, to):
        x.destroy()


def test_cross_entropy(L):
    """log_softmax (aclnnLogSoftmax) + NLLLoss = torch's cross_entropy."""
    rng = np.random.default_rng(24)
    N, C = 64, 1000
    logits = (rng.standard_normal((N, C)) * 3).astype(np.float32)
    t = rng.integers(0, C, N)
    w = np.ones(C, np.float32)
    tx = th.tensor(L, logits, "float32")
    tl = th.empty(L, (N, C), "float32")
    L.call("aclnnLogSoftmax", tx, 1, tl)
    tt, tw = th.tensor(L, t, "int64"), th.tensor(L, w, "float32")
    to, ttw = th.empty(L, (), "float32"), th.empty(L, (1,), "float32")
    L.call("aclnnNLLLoss", tl, tt, tw, 1, -100, to, ttw)
    ref = torch.nn.functional.cross_entropy(torch.from_numpy(logits.astype(np.float64)), torch.from_numpy(t)).item()
    assert abs(to.view() - ref) <= 1e-5 * abs(ref)
    for x in (tx, tl, tt, tw, to, ttw):
        x.destroy()


@pytest.mark.parametrize("bad", [-1, 11])
def test_bad_target(L, bad):
    C = 11
    xq = np.full((4, C), -1.0, np.float32)
    t = np.array([0, 1, bad, 3], np.int64)
    ts, tt, tw = th.tensor(L, xq, "float32"), th.tensor(L, t, "int64"), th.tensor(L, np.ones(C, np.float32), "float32")
    to, ttw = L.empty((4,), ct.ACL_FLOAT, storage_elems=12, fill=9.0), th.empty(L, (1,), "float32")
    with pytest.raises(ct.AclError) as ei:
        L.call("aclnnNLLLoss", ts, tt, tw, 0, -100, to, ttw)
    assert ei.value.code == th.ACL_AICORE_EXCEPTION and f"target[2] = {bad}" in ei.value.msg
    st = to.storage()
    assert np.all(st[4:] == 9.0) and np.array_equal(st[:4], [1, 1, 0, 1])
    tg = th.tensor(L, np.ones(4, np.float32), "float32")
    ttw2 = th.tensor(L, np.ones(1, np.float32), "float32")
    tb = L.empty((4, C), ct.ACL_FLOAT, storage_elems=4 * C + 8, fill=9.0)
    with pytest.raises(ct.AclError) as ei:
        L.call("aclnnNLLLossBackward", tg, ts, tt, tw, 0, -100, ttw2, tb)
    assert ei.value.code == th.ACL_AICORE_EXCEPTION and f"target[2] = {bad}" in ei.value.msg
    st = tb.storage()
    assert np.all(st[4 * C:] == 9.0) and np.all(st[2 * C:3 * C] == 0)
    for x in (ts, tt, tw, to, ttw, tg, ttw2, tb):
        x.destroy()


def test_errors(L):
    f32 = "float32"
    s, t, w = th.tensor(L, np.zeros((4, 5), np.float32), f32), th.tensor(L, np.zeros(4, np.int64), "int64"), \
        th.tensor(L, np.ones(5, np.float32), f32)
    o, tw, on = th.empty(L, (), f32), th.empty(L, (1,), f32), th.empty(L, (4,), f32)
    F = "aclnnNLLLoss"
    assert L.phase1_status(F, s, t, w, 1, -100, o, tw) == 0
    assert L.phase1_status(F, s, t, None, 1, -100, o, tw) == th.PARAM_NULLPTR
    assert L.phase1_status(F, None, t, w, 1, -100, o, tw) == th.PARAM_NULLPTR
    assert L.phase1_status(F, s, t, w, 1, -100, o, None) == th.PARAM_NULLPTR
    assert L.phase1_status(F, s, t, w, 3, -100, o, tw) == th.PARAM_INVALID
    assert L.phase1_status(F, s, t, w, -1, -100, o, tw) == th.PARAM_INVALID
    assert L.phase1_status(F, s, t, w, 0, -100, o, tw) == th.PARAM_INVALID  # none needs (N)
    assert L.phase1_status(F, s, t, w, 0, -100, on, tw) == 0
    t3 = th.tensor(L, np.zeros(3, np.int64), "int64")
    assert L.phase1_status(F, s, t3, w, 1, -100, o, tw) == th.PARAM_INVALID
    tf = th.tensor(L, np.zeros(4, np.float32), f32)
    assert L.phase1_status(F, s, tf, w, 1, -100, o, tw) == th.PARAM_INVALID
    assert "aclnnNLLLoss: target dtype FLOAT is not supported" in L.errmsg()
    w6 = th.tensor(L, np.ones(6, np.float32), f32)
    assert L.phase1_status(F, s, t, w6, 1, -100, o, tw) == th.PARAM_INVALID
    wd = th.tensor(L, np.ones(5, np.float16), "float16")
    assert L.phase1_status(F, s, t, wd, 1, -100, o, tw) == th.PARAM_INVALID
    B = "aclnnNLLLossBackward"
    g = th.tensor(L, np.ones(1, np.float32), f32)
    ob = th.empty(L, (4, 5), f32)
    assert L.phase1_status(B, g, s, t, w, 1, -100, tw, ob) == 0
    assert L.phase1_status(B, g, s, t, w, 1, -100, None, ob) == th.PARAM_NULLPTR
    assert L.phase1_status(B, g, s, t, w, 0, -100, tw, ob) == th.PARAM_INVALID  # none needs gradOutput (N)
    assert L.phase1_status(B, g, s, t, w, 1, -100, tw, on) == th.PARAM_INVALID
    for x in (s, t, w, o, tw, on, t3, tf, w6, wd, g, ob):
        x.destroy()
