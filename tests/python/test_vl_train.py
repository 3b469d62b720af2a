"""examples/vl_train: the synthetic data, the cannon operator slots against torch's, and the first
training steps of the cannon bf16 path against torch's fp32 path on the tiny config."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "vl_train")
sys.path.insert(0, os.path.abspath(EX))

import backends as bk  # noqa: E402
import data  # noqa: E402
import train  # noqa: E402
from model import TINY, VLModel  # noqa: E402

BF16 = torch.bfloat16


@pytest.fixture(autouse=True)
def _one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ---- data -----------------------------------------------------------------------------------------

def test_data_is_deterministic_and_captions_match():
    a_img, a_cap = data.make_dataset(7, 24, 32)
    b_img, b_cap = data.make_dataset(7, 24, 32)
    assert np.array_equal(a_img, b_img) and np.array_equal(a_cap, b_cap)
    # a sample depends on (seed, index) only, not on the samples generated with it
    c_img, c_cap = data.make_dataset(7, 4, 32, start=20)
    assert np.array_equal(c_img, a_img[20:]) and np.array_equal(c_cap, a_cap[20:])
    d_img, _ = data.make_dataset(8, 24, 32)
    assert not np.array_equal(d_img, a_img)
    assert a_img.dtype == np.float32 and a_img.min() >= 0 and a_img.max() <= 1
    for i in range(24):
        img, cap, (count, colour, shape) = data.make_sample(7, i, 32)
        words = data.decode(cap).split()
        assert words == data.caption_words(count, colour, shape)
        assert cap[0] == data.BOS and cap[-1] == data.EOS
        # the shapes are drawn: pixels close to the colour cover a plausible area for the count
        rgb = np.array(data.RGB[colour], np.float32)[:, None, None]
        near = (np.abs(img - rgb).max(0) < 0.2).sum()
        assert 12 * count <= near <= 130 * count, (i, count, near)


# ---- operators: each cannon slot against torch's ---------------------------------------------------

def _close(got, ref, rtol):
    got, ref = got.double(), ref.double()
    scale = ref.abs().max().item() + 1e-12
    err = (got - ref).abs().max().item() / scale
    assert err <= rtol, f"max error {err:.3e} of max |ref| (tolerance {rtol})"


def _grads(fn, *xs):
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    y = fn(*xs)
    g = torch.randn(y.shape, generator=torch.Generator().manual_seed(5)).to(y.dtype)
    y.backward(g)
    return y.detach(), [x.grad for x in xs]


@pytest.mark.parametrize("causal,N,Nkv,S,D", [(False, 4, 4, 17, 24), (True, 4, 2, 13, 32), (True, 6, 2, 8, 16)])
def test_flash_attention_slot(causal, N, Nkv, S, D):
    g = torch.Generator().manual_seed(1)
    q = torch.randn(2, N, S, D, generator=g).to(BF16)
    k = torch.randn(2, Nkv, S, D, generator=g).to(BF16)
    v = torch.randn(2, Nkv, S, D, generator=g).to(BF16)
    cb = bk.CannonBackend()
    y, gr = _grads(lambda a, b, c: cb.attention(a, b, c, causal=causal), q, k, v)
    # reference: torch in fp64 on the same bf16 inputs
    yr, grr = _grads(lambda a, b, c: bk.TorchBackend.attention(a, b, c, causal=causal), q.double(), k.double(),
                     v.double())
    assert y.dtype == BF16 and y.shape == q.shape
    _close(y, yr, 1e-2)
    for a, b in zip(gr, grr):
        _close(a, b, 2e-2)


def test_rotary_swiglu_linear_norm_slots():
    g = torch.Generator().manual_seed(2)
    cb, tb = bk.CannonBackend(), bk.TorchBackend
    from model import rope_tables
    x = torch.randn(2, 4, 9, 16, generator=g)
    cos, sin = rope_tables(9, 16, 10000.0)
    y, (dx,) = _grads(lambda a: cb.rotary(a, cos, sin), x.to(BF16))
    yr, (dxr,) = _grads(lambda a: tb.rotary(a, cos.double(), sin.double()), x.to(BF16).double())
    _close(y, yr, 1e-2)
    _close(dx, dxr, 1e-2)

    h = torch.randn(3, 5, 24, generator=g)
    y, (dh,) = _grads(cb.swiglu, h.to(BF16))
    yr, (dhr,) = _grads(tb.swiglu, h.to(BF16).double())
    _close(y, yr, 1e-2)
    _close(dh, dhr, 2e-2)

    w, b = torch.randn(20, 24, generator=g) * 0.2, torch.randn(20, generator=g)
    with bk._amp().autocast(dtype=BF16):
        y, (dx, dw, db) = _grads(cb.linear, h, w, b)
    assert y.dtype == BF16
    yr, (dxr, dwr, dbr) = _grads(tb.linear, h.to(BF16).double(), w.to(BF16).double(), b.double())
    assert dx.dtype == torch.float32 and dw.dtype == torch.float32
    for a, r in ((y, yr), (dx, dxr), (dw, dwr), (db, dbr)):
        _close(a, r, 2e-2)

    gamma, beta = 1 + 0.1 * torch.randn(24, generator=g), 0.1 * torch.randn(24, generator=g)
    with bk._amp().autocast(dtype=BF16):
        y, (dh, dg) = _grads(lambda a, c: cb.rms_norm(a, c, 1e-6), h, gamma)
    yr, (dhr, dgr) = _grads(lambda a, c: tb.rms_norm(a, c, 1e-6), h.to(BF16).double(), gamma.to(BF16).double())
    for a, r in ((y, yr), (dh, dhr), (dg, dgr)):
        _close(a, r, 2e-2)
    with bk._amp().autocast(dtype=BF16):
        y, (dh, dg, dbeta) = _grads(lambda a, c, d: cb.layer_norm(a, c, d, 1e-5), h, gamma, beta)
    assert y.dtype == BF16 and dh.dtype == torch.float32 and dg.dtype == torch.float32
    yr, (dhr, dgr, dbr) = _grads(lambda a, c, d: tb.layer_norm(a, c, d, 1e-5), h.to(BF16).double(),
                                 gamma.to(BF16).double(), beta.to(BF16).double())
    for a, r in ((y, yr), (dh, dhr), (dg, dgr), (dbeta, dbr)):
        _close(a, r, 3e-2)


# ---- training steps --------------------------------------------------------------------------------

class _Args:
    tiny, seed, lr, wd, warmup, steps, batch = True, 0, 2e-3, 0.01, 5, 30, 16


def _first_steps(mode, steps=3, slots=()):
    a = _Args()
    imgs, caps = data.make_dataset(3, 64, TINY.image)
    imgs, caps = torch.from_numpy(imgs), torch.from_numpy(caps)
    model, opt, scaler, ctx = train.build(mode, TINY, a.seed, a.lr, a.wd, slots=slots)
    init = [p.detach().clone() for p in model.parameters()]
    losses = []
    for step, idx in enumerate(train.batches(len(imgs), a.batch, steps, a.seed)):
        train.set_lr(opt, train.lr_at(step, a.steps, a.lr, a.warmup))
        losses.append(train.train_step(model, opt, scaler, ctx, imgs[idx], caps[idx]))
    return losses, init, [_drop_key_bias(n, p.detach().clone()) for n, p in model.named_parameters()], scaler


def _drop_key_bias(name, p):
    """The key third of a qkv bias has no gradient but rounding noise (softmax ignores a shift of the
    scores that is the same for every key), which AdamW turns into full-size steps of random sign:
    left out of the comparisons."""
    if name.endswith("qkv.bias"):
        n = p.numel() // 3
        return torch.cat([p[:n], p[2 * n:]])
    return p


def test_cannon_slots_filled_with_torch_equal_torch_bitwise():
    """The backend table: with torch's functions in every cannon slot the cannon mode's model is
    torch's (only the optimizer and the loss scaler are cannon's): the first loss is torch's bit for
    bit, and the parameters after two steps agree to fp32 rounding."""
    ref, _, pref, _ = _first_steps("fp32", steps=2)
    got, _, pgot, scaler = _first_steps("cannon", steps=2, slots="torch")
    assert got[0] == ref[0]  # same weights and batch, torch operators: the same first loss
    assert scaler.skipped == 0
    for a, r in zip(pgot, pref):
        _close(a, r, 1e-5)  # one fused AdamW step against torch.optim.AdamW's


def test_first_steps_cannon_bf16_match_torch_fp32():
    ref, init, pref, _ = _first_steps("fp32")
    got, _, pgot, scaler = _first_steps("cannon")
    init = [i if i.numel() == r.numel() else torch.cat([i[:r.numel() // 2], i[-(r.numel() // 2):]])
            for i, r in zip(init, pref)]
    assert scaler.skipped == 0 and scaler.get_scale() == 2.0 ** 16
    for a, r in zip(got, ref):
        assert np.isfinite(a) and abs(a - r) <= 1e-2 * abs(r), (got, ref)
    # the weight updates of the three steps agree (measured: 3% of the update norm)
    num = sum(float((a - r).double().pow(2).sum()) for a, r in zip(pgot, pref))
    den = sum(float((r - i).double().pow(2).sum()) for r, i in zip(pref, init))
    assert num <= 0.1 ** 2 * den, (num / den) ** 0.5


def test_loss_scaler_skips_an_overflowing_step():
    model, opt, scaler, ctx = train.build("cannon", TINY, 0, 1e-3, 0.0)
    params = list(model.parameters())
    before = [p.detach().clone() for p in params]
    scaler.scale(torch.ones(()))  # the scale exists from the first scale()
    for p in params:
        p.grad = torch.zeros_like(p)
    params[1].grad[0] = float("inf")
    assert scaler.step() is False
    assert scaler.skipped == 1 and scaler.get_scale() == 2.0 ** 15
    assert all(torch.equal(p, b) for p, b in zip(params, before))


def test_quick_run_gives_finite_loss(tmp_path):
    out = tmp_path / "res.json"
    r = subprocess.run([sys.executable, os.path.join(EX, "train.py"), "--quick", "--steps", "6", "--modes", "cannon",
                        "--no-profile", "--no-compare", "--json", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    import json
    res = json.loads(out.read_text())
    assert len(res) == 1 and np.isfinite(res[0]["final_loss"]) and res[0]["final_loss"] < 4.0
