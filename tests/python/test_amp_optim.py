"""Golden tests of the loss-scaling and AdamW operators (src/ops/amp).

- aclnnForeachNonFiniteCheckAndUnscale: a float64 numpy reference (torch 1.13 has no CPU kernel of
  _amp_foreach_non_finite_check_and_unscale_): g * invScale within one fp32 rounding plus the
  output type's half ulp; foundInf exactly 1.0 after an inf or NaN anywhere in the list (one
  element among hundreds of tensors, in a strided view, in the last chunk), otherwise unchanged.
- aclnnAmpUpdateScale: torch's _amp_update_scale_ rule (no CPU kernel in torch 1.13 either) written
  in numpy, over a sequence of steps, with outputs aliasing the inputs; values must be exact (one
  fp32 product each).
- aclnnApplyAdamWV2: several steps of torch.optim.AdamW (float32, foreach=False) with and without
  amsgrad and maximize, the state read back and compared within 2^-18 relative (fp32 vs fp32 with
  a different evaluation order) for FLOAT; FLOAT16 / BFLOAT16 against a float64 reference of one
  step within the output's ulp.
- aclnnApplyAdamW: the page's formula (beta powers of the previous step, amsgrad keeping
  max(v, maxGradNorm) in vRef) in float64, and without amsgrad torch.optim.AdamW's step.
Every case runs on every instruction-set tier. Errors: NULL -> 161001; dtype, shape, element
count -> 161002, naming the argument.
"""
import numpy as np
import pytest
import torch

import cannon
import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
DTS = ["float32", "float16", "bfloat16"]
ULP = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
Scalar = cannon.ops.Scalar


def one(v, dt="float32"):
    return golden.array(np.array([v]), dt)


# ---- ForeachNonFiniteCheckAndUnscale -------------------------------------------------------------

@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("bad", [None, "inf", "nan", "-inf"])
def test_unscale(dt, bad, isa):
    rng = np.random.default_rng(11)
    shapes = [(7,), (3, 5), (0,), (40000,), (1,)]
    vals = [rng.uniform(-100, 100, size=s) for s in shapes]
    if bad:
        vals[3][39000] = float(bad)  # in the last chunk of the largest tensor
    grads = [golden.array(v, dt, layout="strided" if i == 1 else None) for i, v in enumerate(vals)]
    ref = [golden.rounded(v, dt) for v in vals]
    found = one(0.0)
    inv = 1.0 / 1024.0 * 3
    golden.call("aclnnForeachNonFiniteCheckAndUnscale", grads, found, one(inv))
    assert golden.read_float(found)[0] == (1.0 if bad else 0.0)
    inv32 = float(np.float32(inv))
    for g, r in zip(grads, ref):
        want = r * inv32
        got = golden.read_float(g)
        fin = np.isfinite(want)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.all(got[np.isinf(want)] == want[np.isinf(want)])
        assert np.all(np.abs(got[fin] - want[fin]) <= (2.0 ** -24 + ULP[dt] / 2) * np.abs(want[fin]) + 2.0 ** -25)


def test_unscale_many_and_sticky():
    """300 tensors, one NaN in a strided one; foundInf already 1.0 stays 1.0 on a finite list."""
    rng = np.random.default_rng(12)
    sizes = rng.integers(1, 2000, size=300)
    grads = [golden.array(rng.standard_normal(int(n)), "float16") for n in sizes]
    bad = np.ones(9)
    bad[4] = np.nan
    grads[177] = golden.array(bad, "float16", layout="strided")
    found = one(0.0)
    golden.call("aclnnForeachNonFiniteCheckAndUnscale", grads, found, one(0.5))
    assert golden.read_float(found)[0] == 1.0
    assert golden.read_float(grads[177])[0] == 0.5
    found = one(1.0)
    golden.call("aclnnForeachNonFiniteCheckAndUnscale", [golden.array(np.ones(4), "float32")], found, one(0.5))
    assert golden.read_float(found)[0] == 1.0
    golden.call("aclnnForeachNonFiniteCheckAndUnscale", [], found, one(0.5))


def test_unscale_errors():
    ps = golden.phase1_status
    g = [one(1.0), one(2.0)]
    assert ps("aclnnForeachNonFiniteCheckAndUnscale", None, one(0.0), one(1.0)) == NULL
    assert "scaledGrads" in golden.recent_error()
    assert ps("aclnnForeachNonFiniteCheckAndUnscale", g, None, one(1.0)) == NULL
    assert "foundInf" in golden.recent_error()
    assert ps("aclnnForeachNonFiniteCheckAndUnscale", [one(1.0), one(1.0, "float16")], one(0.0), one(1.0)) == INVALID
    assert "scaledGrads[1]" in golden.recent_error()
    assert ps("aclnnForeachNonFiniteCheckAndUnscale", g, one(0.0, "float16"), one(1.0)) == INVALID
    assert "foundInf" in golden.recent_error()
    assert ps("aclnnForeachNonFiniteCheckAndUnscale", g, one(0.0), golden.array(np.ones(2), "float32")) == INVALID
    assert "invScale" in golden.recent_error()


# ---- AmpUpdateScale ------------------------------------------------------------------------------

def update_ref(scale, tracker, found, growth, backoff, interval):
    if found:
        return float(np.float32(scale * backoff)), 0
    if tracker + 1 >= interval:
        g = np.float32(scale * growth)
        return (float(g) if np.isfinite(g) else scale), 0
    return scale, tracker + 1


@pytest.mark.parametrize("alias", [False, True])
def test_amp_update_scale(alias, isa):
    rng = np.random.default_rng(13)
    scale, tracker = 65536.0, 0
    s_dev = one(scale)
    t_dev = golden.array(np.array([tracker]), "int32")
    for step in range(40):
        found = float(rng.random() < 0.2)
        s_out = s_dev if alias else golden.empty((1,), "float32")
        t_out = t_dev if alias else golden.empty((1,), "int32")
        golden.call("aclnnAmpUpdateScale", s_dev, t_dev, one(found), 2.0, 0.5, 3, s_out, t_out)
        scale, tracker = update_ref(scale, tracker, found, 2.0, 0.5, 3)
        assert golden.read_float(s_out)[0] == scale, step
        assert int(golden.read(t_out)[0]) == tracker, step
        s_dev, t_dev = s_out, t_out
    # growth past fp32's range keeps the scale
    s = one(3e38)
    golden.call("aclnnAmpUpdateScale", s, golden.array(np.array([0]), "int32"), one(0.0), 2.0, 0.5, 1, s,
                golden.array(np.array([5]), "int32"))
    assert golden.read_float(s)[0] == float(np.float32(3e38))


def test_amp_update_scale_errors():
    ps = golden.phase1_status
    t = golden.array(np.array([0]), "int32")
    assert ps("aclnnAmpUpdateScale", None, t, one(0.0), 2.0, 0.5, 3, one(1.0), t) == NULL
    assert "currentScale" in golden.recent_error()
    assert ps("aclnnAmpUpdateScale", one(1.0), one(0.0), one(0.0), 2.0, 0.5, 3, one(1.0), t) == INVALID
    assert "growthTracker" in golden.recent_error()
    assert ps("aclnnAmpUpdateScale", one(1.0), t, one(0.0), 2.0, 0.5, 0, one(1.0), t) == INVALID
    assert "growthInterval" in golden.recent_error()


# ---- ApplyAdamWV2 ---------------------------------------------------------------------------------

HP = dict(lr=1e-2, b1=0.9, b2=0.99, wd=0.05, eps=1e-6)


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("maximize", [False, True])
def test_adamw_v2_torch(amsgrad, maximize, isa):
    torch.manual_seed(1)
    shape = (37, 41)  # 1517 elements
    p = torch.randn(shape)
    opt_p = torch.nn.Parameter(p.clone())
    opt = torch.optim.AdamW([opt_p], lr=HP["lr"], betas=(HP["b1"], HP["b2"]), eps=HP["eps"],
                            weight_decay=HP["wd"], amsgrad=amsgrad, maximize=maximize, foreach=False)
    var = golden.array(p.numpy().astype(np.float64), "float32", layout="transposed")
    m = golden.array(np.zeros(shape), "float32")
    v = golden.array(np.zeros(shape), "float32")
    mx = golden.array(np.zeros(shape), "float32") if amsgrad else None
    for step in range(1, 6):
        g = torch.randn(shape) * (10.0 if step == 3 else 1.0)
        opt_p.grad = g.clone()
        opt.step()
        golden.call("aclnnApplyAdamWV2", var, m, v, mx, golden.array(g.numpy().astype(np.float64), "float32"),
                    golden.array(np.array([step]), "int64" if step % 2 else "float32"),
                    HP["lr"], HP["b1"], HP["b2"], HP["wd"], HP["eps"], amsgrad, maximize)
    st = opt.state[opt_p]
    np.testing.assert_allclose(golden.read_float(var), opt_p.detach().numpy(), rtol=2 ** -16, atol=2 ** -20)
    np.testing.assert_allclose(golden.read_float(m), st["exp_avg"].numpy(), rtol=2 ** -18, atol=2 ** -24)
    np.testing.assert_allclose(golden.read_float(v), st["exp_avg_sq"].numpy(), rtol=2 ** -18, atol=2 ** -30)
    if amsgrad:
        np.testing.assert_allclose(golden.read_float(mx), st["max_exp_avg_sq"].numpy(), rtol=2 ** -18,
                                   atol=2 ** -30)


def adamw_v2_ref(var, m, v, mx, g, t, amsgrad, maximize, lr, b1, b2, wd, eps):
    g = -g if maximize else g
    var = var * (1 - lr * wd)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    d = v
    if amsgrad:
        mx = np.maximum(mx, v)
        d = mx
    var = var - lr / (1 - b1 ** t) * m / (np.sqrt(d) / np.sqrt(1 - b2 ** t) + eps)
    return var, m, v, mx


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_adamw_v2_half(dt, isa):
    rng = np.random.default_rng(14)
    shape = (3, 20000)
    vals = [rng.standard_normal(shape), rng.standard_normal(shape) * 0.1, rng.uniform(0, 0.1, shape),
            rng.uniform(0, 0.2, shape), rng.standard_normal(shape)]
    arrs = [golden.array(x, dt) for x in vals]
    r = [golden.rounded(x, dt) for x in vals]
    hp = {k: float(np.float32(x)) for k, x in HP.items()}
    golden.call("aclnnApplyAdamWV2", arrs[0], arrs[1], arrs[2], arrs[3], arrs[4], one(7.0), HP["lr"], HP["b1"],
                HP["b2"], HP["wd"], HP["eps"], True, False)
    want = adamw_v2_ref(r[0], r[1], r[2], r[3], r[4], 7, True, False, hp["lr"], hp["b1"], hp["b2"], hp["wd"],
                        hp["eps"])
    for k, (a, w) in enumerate(zip([arrs[0], arrs[1], arrs[2], arrs[3]], want)):
        got = golden.read_float(a)
        assert np.all(np.abs(got - w) <= ULP[dt] * np.abs(w) + 2.0 ** -18 * (np.abs(w) + 1e-3) + 2.0 ** -24), k


# ---- ApplyAdamW ---------------------------------------------------------------------------------------

def adamw_ref(var, m, v, g, mgn, b1p, b2p, lr, wd, b1, b2, eps, amsgrad, maximize):
    g = -g if maximize else g
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    if amsgrad:
        v = np.maximum(mgn, v)
    b1t, b2t = b1p * b1, b2p * b2
    var = var - lr * (m / (1 - b1t)) / (np.sqrt(v / (1 - b2t)) + eps) - lr * wd * var
    return var, m, v


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("maximize", [False, True])
def test_adamw(dt, amsgrad, maximize, isa):
    rng = np.random.default_rng(15)
    shape = (5, 7, 300)
    vals = [rng.standard_normal(shape), rng.standard_normal(shape) * 0.1, rng.uniform(0, 0.1, shape),
            rng.standard_normal(shape), rng.uniform(0, 0.2, shape)]
    arrs = [golden.array(x, dt, layout="strided" if k == 1 else None) for k, x in enumerate(vals)]
    r = [golden.rounded(x, dt) for x in vals]
    sc = dict(b1p=0.9 ** 3, b2p=0.99 ** 3, lr=1e-2, wd=0.05, b1=0.9, b2=0.99, eps=1e-6)
    dev = {k: one(x, dt) for k, x in sc.items()}
    sr = {k: float(golden.rounded(np.array([x]), dt)[0]) for k, x in sc.items()}
    golden.call("aclnnApplyAdamW", arrs[0], arrs[1], arrs[2], dev["b1p"], dev["b2p"], dev["lr"], dev["wd"],
                dev["b1"], dev["b2"], dev["eps"], arrs[3], arrs[4] if amsgrad else None, amsgrad, maximize)
    want = adamw_ref(r[0], r[1], r[2], r[3], r[4], sr["b1p"], sr["b2p"], sr["lr"], sr["wd"], sr["b1"], sr["b2"],
                     sr["eps"], amsgrad, maximize)
    for k in range(3):
        got, w = golden.read_float(arrs[k]), want[k]
        bound = (ULP[dt] + 2.0 ** -16) * np.abs(w) + 2.0 ** -16 * sr["lr"] + 2.0 ** -24
        assert np.all(np.abs(got - w) <= bound), (k, np.max(np.abs(got - w) - bound))


def test_adamw_torch_step():
    """Without amsgrad, ApplyAdamW with beta powers of the previous step is torch.optim.AdamW's step."""
    torch.manual_seed(2)
    p = torch.randn(1000)
    opt_p = torch.nn.Parameter(p.clone())
    opt = torch.optim.AdamW([opt_p], lr=1e-2, betas=(0.9, 0.99), eps=1e-6, weight_decay=0.05, foreach=False)
    var = golden.array(p.numpy().astype(np.float64), "float32")
    m = golden.array(np.zeros(1000), "float32")
    v = golden.array(np.zeros(1000), "float32")
    for t in range(1, 5):
        g = torch.randn(1000)
        opt_p.grad = g.clone()
        opt.step()
        golden.call("aclnnApplyAdamW", var, m, v, one(0.9 ** (t - 1)), one(0.99 ** (t - 1)), one(1e-2), one(0.05),
                    one(0.9), one(0.99), one(1e-6), golden.array(g.numpy().astype(np.float64), "float32"), None,
                    False, False)
    np.testing.assert_allclose(golden.read_float(var), opt_p.detach().numpy(), rtol=2 ** -16, atol=2 ** -20)


def test_adamw_errors():
    ps = golden.phase1_status
    x = golden.array(np.ones((2, 3)), "float32")
    y = golden.array(np.ones((2, 3)), "float32")
    s = one(0.5)
    args = [x, y, y, s, s, s, s, s, s, s, y, None, False, False]
    assert ps("aclnnApplyAdamW", *args) == 0
    bad = list(args)
    bad[11], bad[12] = None, True
    assert ps("aclnnApplyAdamW", *bad) == NULL
    assert "maxGradNorm" in golden.recent_error()
    bad = list(args)
    bad[10] = golden.array(np.ones((3, 2)), "float32")
    assert ps("aclnnApplyAdamW", *bad) == INVALID
    assert "grad" in golden.recent_error()
    bad = list(args)
    bad[1] = golden.array(np.ones((2, 3)), "float16")
    assert ps("aclnnApplyAdamW", *bad) == INVALID
    assert "mRef" in golden.recent_error()
    bad = list(args)
    bad[5] = golden.array(np.ones(2), "float32")
    assert ps("aclnnApplyAdamW", *bad) == INVALID
    assert "lr" in golden.recent_error()
    v2 = [x, y, y, None, y, one(1.0), 1e-3, 0.9, 0.999, 0.01, 1e-8, False, False]
    assert ps("aclnnApplyAdamWV2", *v2) == 0
    bad = list(v2)
    bad[11] = True
    assert ps("aclnnApplyAdamWV2", *bad) == NULL
    bad = list(v2)
    bad[5] = golden.array(np.array([1]), "int32")
    assert ps("aclnnApplyAdamWV2", *bad) == INVALID
    assert "step" in golden.recent_error()
    bad = list(v2)
    bad[0] = golden.array(np.ones((2, 3)), "float64")
    assert ps("aclnnApplyAdamWV2", *bad) == INVALID
