"""cannon.torch.amp (autocast, GradScaler), cannon.torch.optim.AdamW and the transformer modules /
functional ops: values and gradients against torch float64, the AMP bookkeeping against the rules
of torch's GradScaler, AdamW against torch.optim.AdamW."""
import math
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

import cannon.torch as ct  # noqa: E402
import cannon.torch.functional as CF  # noqa: E402

F = torch.nn.functional
BF = torch.bfloat16


def rn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def close(got, ref, tol):
    got, ref = got.double(), ref.double()
    scale = ref.abs().max().item() if ref.numel() else 0.0
    err = (got - ref).abs()
    bound = tol * (ref.abs() + 0.1 * scale + 1e-6)
    assert torch.all(err <= bound), f"max err {err.max().item():.3g}, worst ratio {(err / bound).max().item():.3g}"


def twin(module_cls, torch_cls, *args, **kw):
    torch.manual_seed(0)
    m = module_cls(*args, **kw)
    r = torch_cls(*args, **kw).double()
    r.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    return m, r


# ---- modules and functional ops in fp32 against torch float64 ---------------------------------

def check_module(m, r, x, tol=2e-5, xr=None):
    if x.is_floating_point():
        x = x.clone().requires_grad_()
        xr = x.detach().double().requires_grad_()
    y, yr = m(x), r(xr)
    assert y.dtype == torch.float32
    close(y.detach(), yr.detach(), tol)
    g = rn(*y.shape, seed=11)
    y.backward(g)
    yr.backward(g.double())
    if x.is_floating_point():
        close(x.grad, xr.grad, tol)
    for (n, p), (_, pr) in zip(m.named_parameters(), r.named_parameters()):
        assert p.grad is not None, n
        close(p.grad, pr.grad, tol)


def test_linear_layernorm_gelu_silu_fp32():
    m, r = twin(ct.Linear, torch.nn.Linear, 24, 16)
    check_module(m, r, rn(3, 5, 24))
    m, r = twin(ct.Linear, torch.nn.Linear, 24, 16, bias=False)
    check_module(m, r, rn(7, 24))
    m, r = twin(ct.LayerNorm, torch.nn.LayerNorm, 32)
    with torch.no_grad():
        m.weight.normal_()
        m.bias.normal_()
    r.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    check_module(m, r, rn(4, 6, 32))
    check_module(ct.GELU(), torch.nn.GELU(), rn(5, 9))
    check_module(ct.GELU("tanh"), torch.nn.GELU("tanh"), rn(5, 9), tol=1e-4)
    check_module(ct.SiLU(), torch.nn.SiLU(), rn(5, 9))


class RefRMSNorm(torch.nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(n))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class RefSwiGLU(torch.nn.Module):
    def __init__(self, i, h, o=None, bias=False):
        super().__init__()
        self.w1 = torch.nn.Linear(i, 2 * h, bias=bias)
        self.w2 = torch.nn.Linear(h, o or i, bias=bias)

    def forward(self, x):
        a, b = self.w1(x).chunk(2, -1)
        return self.w2(F.silu(a) * b)


def test_rmsnorm_swiglu_embedding_fp32():
    m, r = twin(ct.RMSNorm, RefRMSNorm, 32)
    with torch.no_grad():
        m.weight.normal_()
    r.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    check_module(m, r, rn(3, 4, 32))
    m, r = twin(ct.SwiGLU, RefSwiGLU, 16, 24)
    check_module(m, r, rn(2, 5, 16), tol=5e-5)
    m, r = twin(ct.Embedding, torch.nn.Embedding, 20, 8)
    idx = torch.tensor([[1, 3, 3, 19], [0, 5, 1, 1]])
    check_module(m, r, idx, xr=idx)
    x = rn(4, 10, seed=3)
    close(CF.swiglu(x), F.silu(x.double()[:, :5]) * x.double()[:, 5:], 2e-6)
    close(CF.silu_mul(x, x), F.silu(x.double()) * x.double(), 2e-6)
    logits, tgt = rn(6, 7), torch.tensor([0, 3, 6, 2, -100, 1])
    close(CF.cross_entropy(logits, tgt), F.cross_entropy(logits.double(), tgt), 1e-6)
    close(CF.softmax(logits, -1), torch.softmax(logits.double(), -1), 1e-6)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 2e-6), (BF, 2e-2)], ids=["f32", "bf16"])
def test_swiglu_grad_any_dim(dtype, tol):
    x = rn(6, 5, 3, seed=8, dtype=dtype).requires_grad_()
    y = CF.swiglu(x, dim=0)
    assert y.shape == (3, 5, 3) and y.dtype == dtype
    g = rn(3, 5, 3, seed=9, dtype=dtype)
    y.backward(g)
    xr = x.detach().double().requires_grad_()
    a, b = xr.chunk(2, 0)
    ref = F.silu(a) * b
    ref.backward(g.double())
    close(y.detach(), ref.detach(), tol)
    close(x.grad, xr.grad, tol)


# ---- autocast ---------------------------------------------------------------------------------

def test_autocast_dtypes():
    x = rn(4, 8)
    lin, ln, rms = ct.Linear(8, 6), ct.LayerNorm(8), ct.RMSNorm(8)
    emb = ct.Embedding(10, 8)
    idx = torch.tensor([1, 2])
    assert ct.amp.get_autocast_dtype() is None
    with ct.amp.autocast(dtype=BF):
        assert ct.amp.is_autocast_enabled()
        assert lin(x).dtype == BF
        assert CF.matmul(x, x.t()).dtype == BF
        assert ln(x).dtype == BF and rms(x).dtype == BF
        assert CF.softmax(x).dtype == BF and CF.gelu(x).dtype == BF and CF.silu(x).dtype == BF
        assert CF.swiglu(x).dtype == BF
        assert CF.log_softmax(x.bfloat16()).dtype == torch.float32          # fp32 ops
        assert CF.cross_entropy(x.bfloat16(), torch.tensor([0, 1, 2, 3])).dtype == torch.float32
        assert emb(idx).dtype == torch.float32                              # left alone
        with ct.amp.autocast(enabled=False):
            assert lin(x).dtype == torch.float32
        with ct.amp.autocast(dtype=torch.float16):
            assert lin(x).dtype == torch.float16
    assert lin(x).dtype == torch.float32
    with torch.autocast("cpu", dtype=BF):          # torch's own CPU autocast state is honoured
        assert lin(x).dtype == BF

    @ct.amp.autocast(dtype=BF)
    def f(t):
        return lin(t)
    assert f(x).dtype == BF
    with pytest.raises(ValueError):
        ct.amp.autocast(dtype=torch.float32)


def test_autocast_linear_values_and_master_grads():
    torch.manual_seed(1)
    lin = ct.Linear(32, 16)
    x = rn(8, 32, seed=2).requires_grad_()
    with ct.amp.autocast(dtype=BF):
        y = lin(x)
    y.float().sum().backward()
    # reference: the same bf16 operands, float64 product (cannon rounds the fp32 result once)
    ref = x.detach().bfloat16().double() @ lin.weight.detach().bfloat16().double().t() + \
        lin.bias.detach().bfloat16().double()
    close(y.detach(), ref, 2e-2)
    assert lin.weight.grad.dtype == torch.float32 and x.grad.dtype == torch.float32
    close(lin.weight.grad, torch.ones(8, 16).double().t() @ x.detach().bfloat16().double(), 2e-2)


# ---- GradScaler ---------------------------------------------------------------------------------

def make_model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(ct.Linear(6, 8), ct.GELU(), ct.Linear(8, 3))


def test_gradscaler_unscale_values():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = ct.amp.GradScaler(init_scale=1024.0)
    x = rn(5, 6)
    loss = model(x).square().sum()
    scaled = scaler.scale(loss)
    assert scaled.shape == loss.shape
    assert scaled.item() == pytest.approx(loss.item() * 1024.0, rel=1e-6)
    scaled.backward()
    raw = [p.grad.clone() for p in model.parameters()]
    scaler.unscale_(opt)
    for g, p in zip(raw, model.parameters()):
        assert torch.equal(p.grad, g / 1024.0)   # a power-of-two scale unscales exactly
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    before = [p.detach().clone() for p in model.parameters()]
    scaler.step(opt)
    for b, p in zip(before, model.parameters()):
        assert torch.allclose(p.detach(), b - 0.1 * p.grad)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 1024.0 and scaler._get_growth_tracker() == 1


def test_gradscaler_skip_on_overflow_backoff_and_growth():
    model = make_model()
    opt = ct.optim.AdamW(model.parameters(), lr=0.01)
    scaler = ct.amp.GradScaler(init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5, growth_interval=3)
    x = rn(4, 6)

    def one_step(poison=None):
        opt.zero_grad()
        with ct.amp.autocast(dtype=BF):
            loss = model(x).float().square().mean()
        scaler.scale(loss).backward()
        if poison is not None:
            model[0].weight.grad[0, 0] = poison
        before = [p.detach().clone() for p in model.parameters()]
        scaler.step(opt)
        scaler.update()
        return all(torch.equal(b, p.detach()) for b, p in zip(before, model.parameters()))

    assert one_step(float("inf"))            # skipped, scale halved
    assert scaler.get_scale() == 2.0 ** 9 and scaler._get_growth_tracker() == 0
    assert len(opt.state) == 0                # the optimizer never stepped
    assert one_step(float("nan"))
    assert scaler.get_scale() == 2.0 ** 8
    assert not one_step() and not one_step()  # two clean steps: same scale, tracker 2
    assert scaler.get_scale() == 2.0 ** 8 and scaler._get_growth_tracker() == 2
    assert not one_step()                     # third clean step: grown, tracker reset
    assert scaler.get_scale() == 2.0 ** 9 and scaler._get_growth_tracker() == 0
    sd = scaler.state_dict()
    assert sd == {"scale": 512.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 3,
                  "_growth_tracker": 0}
    other = ct.amp.GradScaler()
    other.load_state_dict(sd)
    assert other.state_dict() == sd
    scaler.update(new_scale=64.0)
    assert scaler.get_scale() == 64.0


def test_gradscaler_bf16_grads_and_disabled():
    p = torch.nn.Parameter(rn(5, dtype=BF))
    q = torch.nn.Parameter(rn(3))
    opt = torch.optim.SGD([p, q], lr=1.0)
    s = ct.amp.GradScaler(init_scale=4.0)
    s.scale((p.float().sum() + q.sum()))   # initialises the scale
    p.grad = torch.full((5,), 8.0, dtype=BF)
    q.grad = torch.full((3,), 8.0)
    s.unscale_(opt)
    assert torch.equal(p.grad, torch.full((5,), 2.0, dtype=BF)) and torch.equal(q.grad, torch.full((3,), 2.0))
    d = ct.amp.GradScaler(enabled=False)
    loss = q.sum()
    assert d.scale(loss) is loss and d.get_scale() == 1.0 and d.state_dict() == {}
    with pytest.raises(ValueError):
        ct.amp.GradScaler(growth_factor=0.5)


# ---- AdamW ------------------------------------------------------------------------------------

@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("maximize", [False, True])
def test_adamw_matches_torch(amsgrad, maximize):
    torch.manual_seed(3)
    ps = [rn(7, 5, seed=1), rn(5, seed=2), rn(3, 4, 2, seed=3)]
    mine = [torch.nn.Parameter(p.clone()) for p in ps]
    theirs = [torch.nn.Parameter(p.clone()) for p in ps]
    kw = dict(lr=3e-3, betas=(0.85, 0.99), eps=1e-6, weight_decay=0.05, amsgrad=amsgrad, maximize=maximize)
    o1, o2 = ct.optim.AdamW(mine, **kw), torch.optim.AdamW(theirs, **kw)
    for step in range(6):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            g = rn(*a.shape, seed=100 + 10 * step + i) * (1 + step)
            a.grad, b.grad = g.clone(), g.clone()
        o1.step()
        o2.step()
        for a, b in zip(mine, theirs):
            torch.testing.assert_close(a.detach(), b.detach(), rtol=2e-6, atol=2e-6)
    for a, b in zip(mine, theirs):
        for k in ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ()):
            torch.testing.assert_close(o1.state[a][k], o2.state[b][k], rtol=1e-5, atol=1e-7)
        assert float(o1.state[a]["step"]) == 6.0
    # state dicts are interchangeable
    o3 = torch.optim.AdamW([torch.nn.Parameter(p.detach().clone()) for p in mine], **kw)
    o3.load_state_dict(o1.state_dict())


def test_training_loop_bf16_tracks_fp32_torch():
    """A tiny regression trained 30 steps: cannon modules in bf16 autocast + GradScaler + AdamW against
    torch's fp32 modules + torch.optim.AdamW; the losses agree within bf16 accuracy and both fall."""
    torch.manual_seed(0)
    m1 = torch.nn.Sequential(ct.Linear(16, 32), ct.GELU(), ct.LayerNorm(32), ct.Linear(32, 4))
    m2 = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4))
    m2.load_state_dict(m1.state_dict())
    o1, o2 = ct.optim.AdamW(m1.parameters(), lr=1e-2), torch.optim.AdamW(m2.parameters(), lr=1e-2)
    scaler = ct.amp.GradScaler(init_scale=2.0 ** 12)
    x, y = rn(64, 16, seed=1), rn(64, 4, seed=2)
    l1s, l2s = [], []
    for _ in range(30):
        o1.zero_grad()
        o2.zero_grad()
        with ct.amp.autocast(dtype=BF):
            out = m1(x)
        l1 = (out.float() - y).square().mean()
        scaler.scale(l1).backward()
        scaler.step(o1)
        scaler.update()
        l2 = (m2(x) - y).square().mean()
        l2.backward()
        o2.step()
        l1s.append(l1.item())
        l2s.append(l2.item())
    assert l1s[-1] < 0.5 * l1s[0] and l2s[-1] < 0.5 * l2s[0]
    assert all(math.isfinite(v) for v in l1s)
    assert abs(l1s[-1] - l2s[-1]) <= 0.05 * l2s[0]
