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

import golden

REL = {"float32": 1e-6, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def make(rng, N, C, dtype, ignore, tdt="int64"):
    x = torch.log_softmax(torch.from_numpy(rng.standard_normal((N, C)) * 2), dim=1).numpy()
    xq, x64 = golden.quantize(x, dtype)
    wq, w64 = golden.quantize(rng.uniform(0.2, 2.0, C), dtype)
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


def forward(xq, t, tdt, wq, reduction, ignore, dtype, strided=False):
    N = xq.shape[0] if xq.ndim == 2 else 1
    lay = "padded" if strided else None
    ts, tt = golden.array(xq, dtype, layout=lay), golden.array(t, tdt, layout=lay)
    tw = golden.array(wq, dtype, layout=lay)
    oshape = (N,) if reduction == 0 and xq.ndim == 2 else ()
    to = golden.empty(oshape, dtype, layout=lay, fill=0)
    ttw = golden.empty((1,), dtype, fill=0)
    golden.call("aclnnNLLLoss", ts, tt, tw, reduction, ignore, to, ttw)
    return golden.read_float(to), golden.read_float(ttw)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("ignore", [-100, 3])
@pytest.mark.parametrize("tdt", ["int64", "int32", "uint8"])
def test_forward(dtype, reduction, ignore, tdt):
    if tdt == "uint8" and ignore < 0:
        pytest.skip("uint8 targets cannot hold a negative ignoreIndex")
    rng = np.random.default_rng(21)
    xq, x64, wq, w64, t = make(rng, 37, 11, dtype, ignore, tdt)
    out, tw = forward(xq, t, tdt, wq, reduction, ignore, dtype)
    rout, rtw = torch_fwd(x64, t, w64, reduction, ignore)
    keep = t.astype(np.int64) != ignore
    mag = np.abs(w64[t[keep]] * x64[keep, t[keep]]).sum()
    close(out, rout, np.abs(rout) if reduction == 0 else mag / (rtw if reduction == 1 else 1), dtype)
    close(tw, rtw.reshape(1), np.abs(rtw), dtype)


def test_forward_1d_and_strided():
    rng = np.random.default_rng(22)
    xq, x64, wq, w64, t = make(rng, 19, 7, "float32", -100)
    for reduction in (0, 1, 2):
        out, tw = forward(xq, t, "int64", wq, reduction, -100, "float32", strided=True)
        rout, rtw = torch_fwd(x64, t, w64, reduction, -100)
        close(out, rout, np.abs(rout).sum(), "float32")
        close(tw, rtw.reshape(1), np.abs(rtw), "float32")
        # 1-D self (C) with a 0-d target: one element for every reduction
        out1, tw1 = forward(xq[1], np.array(t[1]), "int64", wq, reduction, -100, "float32")
        r1, rt1 = torch_fwd(x64[1], np.array(t[1]), w64, reduction, -100)
        close(out1.reshape(()), r1, np.abs(r1), "float32")
        close(tw1, rt1.reshape(1), np.abs(rt1), "float32")


def test_forward_all_ignored_mean_is_nan():
    xq = np.zeros((3, 4), np.float32)
    out, tw = forward(xq, np.full(3, -100, np.int64), "int64", np.ones(4, np.float32), 1, -100, "float32")
    assert np.isnan(out) and tw[0] == 0


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("strided", [False, True])
def test_backward(dtype, reduction, strided):
    rng = np.random.default_rng(23)
    N, C, ignore = 29, 13, 2
    xq, x64, wq, w64, t = make(rng, N, C, dtype, ignore)
    _, rtw = torch_fwd(x64, t, w64, reduction, ignore)
    gshape = (N,) if reduction == 0 else ()
    gq, g64 = golden.quantize(rng.standard_normal(gshape), dtype)
    twq, tw64 = golden.quantize(np.asarray(rtw).reshape(1), dtype)
    ref = torch.ops.aten.nll_loss_backward(torch.from_numpy(np.asarray(g64)), torch.from_numpy(x64),
                                           torch.from_numpy(t), torch.from_numpy(w64), reduction, ignore,
                                           torch.from_numpy(tw64.reshape(()))).numpy()
    lay = "padded" if strided else None
    tg, ts = golden.array(gq, dtype, layout=lay), golden.array(xq, dtype, layout=lay)
    tt, tw = golden.array(t, "int64", layout=lay), golden.array(wq, dtype, layout=lay)
    ttw = golden.array(twq, dtype)
    to = golden.empty((N, C), dtype, layout=lay, fill=7)
    golden.call("aclnnNLLLossBackward", tg, ts, tt, tw, reduction, ignore, ttw, to)
    ours = golden.decode(golden.read(to), dtype)
    close(ours, ref, np.abs(ref), dtype)
    assert np.count_nonzero(ours) == np.count_nonzero(ref)


def test_cross_entropy():
    """log_softmax (aclnnLogSoftmax) + NLLLoss = torch's cross_entropy."""
    rng = np.random.default_rng(24)
    N, C = 64, 1000
    logits = (rng.standard_normal((N, C)) * 3).astype(np.float32)
    t = rng.integers(0, C, N)
    w = np.ones(C, np.float32)
    tx = golden.array(logits, "float32")
    tl = golden.empty((N, C), "float32")
    golden.call("aclnnLogSoftmax", tx, 1, tl)
    tt, tw = golden.array(t, "int64"), golden.array(w, "float32")
    to, ttw = golden.empty((), "float32"), golden.empty((1,), "float32")
    golden.call("aclnnNLLLoss", tl, tt, tw, 1, -100, to, ttw)
    ref = torch.nn.functional.cross_entropy(torch.from_numpy(logits.astype(np.float64)), torch.from_numpy(t)).item()
    assert abs(golden.read(to) - ref) <= 1e-5 * abs(ref)


@pytest.mark.parametrize("bad", [-1, 11])
def test_bad_target(bad):
    C = 11
    xq = np.full((4, C), -1.0, np.float32)
    t = np.array([0, 1, bad, 3], np.int64)
    ts, tt, tw = golden.array(xq, "float32"), golden.array(t, "int64"), golden.array(np.ones(C, np.float32), "float32")
    to, ttw = golden.empty((4,), "float32", storage_elems=12, fill=9.0), golden.empty((1,), "float32")
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnNLLLoss", ts, tt, tw, 0, -100, to, ttw)
    assert ei.value.code == golden.ACL_AICORE_EXCEPTION and f"target[2] = {bad}" in ei.value.message
    st = to.storage()
    assert np.all(st[4:] == 9.0) and np.array_equal(st[:4], [1, 1, 0, 1])
    tg = golden.array(np.ones(4, np.float32), "float32")
    ttw2 = golden.array(np.ones(1, np.float32), "float32")
    tb = golden.empty((4, C), "float32", storage_elems=4 * C + 8, fill=9.0)
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnNLLLossBackward", tg, ts, tt, tw, 0, -100, ttw2, tb)
    assert ei.value.code == golden.ACL_AICORE_EXCEPTION and f"target[2] = {bad}" in ei.value.message
    st = tb.storage()
    assert np.all(st[4 * C:] == 9.0) and np.all(st[2 * C:3 * C] == 0)


def test_errors():
    f32 = "float32"
    s, t, w = golden.array(np.zeros((4, 5), np.float32), f32), golden.array(np.zeros(4, np.int64), "int64"), \
        golden.array(np.ones(5, np.float32), f32)
    o, tw, on = golden.empty((), f32), golden.empty((1,), f32), golden.empty((4,), f32)
    F = "aclnnNLLLoss"
    assert golden.phase1_status(F, s, t, w, 1, -100, o, tw) == 0
    assert golden.phase1_status(F, s, t, None, 1, -100, o, tw) == golden.PARAM_NULLPTR
    assert golden.phase1_status(F, None, t, w, 1, -100, o, tw) == golden.PARAM_NULLPTR
    assert golden.phase1_status(F, s, t, w, 1, -100, o, None) == golden.PARAM_NULLPTR
    assert golden.phase1_status(F, s, t, w, 3, -100, o, tw) == golden.PARAM_INVALID
    assert golden.phase1_status(F, s, t, w, -1, -100, o, tw) == golden.PARAM_INVALID
    assert golden.phase1_status(F, s, t, w, 0, -100, o, tw) == golden.PARAM_INVALID  # none needs (N)
    assert golden.phase1_status(F, s, t, w, 0, -100, on, tw) == 0
    t3 = golden.array(np.zeros(3, np.int64), "int64")
    assert golden.phase1_status(F, s, t3, w, 1, -100, o, tw) == golden.PARAM_INVALID
    tf = golden.array(np.zeros(4, np.float32), f32)
    assert golden.phase1_status(F, s, tf, w, 1, -100, o, tw) == golden.PARAM_INVALID
    assert "aclnnNLLLoss: target dtype FLOAT is not supported" in golden.recent_error()
    w6 = golden.array(np.ones(6, np.float32), f32)
    assert golden.phase1_status(F, s, t, w6, 1, -100, o, tw) == golden.PARAM_INVALID
    wd = golden.array(np.ones(5, np.float16), "float16")
    assert golden.phase1_status(F, s, t, wd, 1, -100, o, tw) == golden.PARAM_INVALID
    B = "aclnnNLLLossBackward"
    g = golden.array(np.ones(1, np.float32), f32)
    ob = golden.empty((4, 5), f32)
    assert golden.phase1_status(B, g, s, t, w, 1, -100, tw, ob) == 0
    assert golden.phase1_status(B, g, s, t, w, 1, -100, None, ob) == golden.PARAM_NULLPTR
    assert golden.phase1_status(B, g, s, t, w, 0, -100, tw, ob) == golden.PARAM_INVALID  # none needs gradOutput (N)
    assert golden.phase1_status(B, g, s, t, w, 1, -100, tw, on) == golden.PARAM_INVALID
