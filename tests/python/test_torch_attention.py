"""cannon.torch.flash_attention and rotary_embedding: values and gradients against float64
matmul-softmax-matmul / rotate-and-add references computed by torch on the same input values."""
import math
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

import cannon.torch as ct  # noqa: E402
from cannon import AclError  # noqa: E402

# per dtype: tolerance of the outputs and of the gradients, relative to the reference's scale
TOL = {torch.float32: (2e-5, 5e-5), torch.float16: (2e-3, 4e-3), torch.bfloat16: (1.6e-2, 3e-2)}
DTYPES = list(TOL)


def rn(*shape, seed=0, dtype=torch.float32):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def close(got, ref, tol):
    """|got - ref| <= tol · (|ref| + max|ref|·0.1 + 1e-3): relative, with a floor at the tensor's scale."""
    got, ref = got.double(), ref.double()
    scale = ref.abs().max().item() if ref.numel() else 0.0
    bound = tol * (ref.abs() + 0.1 * scale + 1e-3)
    err = (got - ref).abs()
    assert torch.all(err <= bound), f"max err {err.max().item():.3g}, worst ratio {(err / bound).max().item():.3g}"


def to_bnsd(t, layout, n):
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, n, h // n).transpose(1, 2)
    s, b, h = t.shape  # SBH
    return t.reshape(s, b, n, h // n).permute(1, 2, 0, 3)


def from_bnsd(t, layout):
    b, n, s, d = t.shape
    if layout == "BNSD":
        return t.clone()
    if layout == "BSND":
        return t.transpose(1, 2).contiguous()
    if layout == "BSH":
        return t.transpose(1, 2).reshape(b, s, n * d).contiguous()
    return t.permute(2, 0, 1, 3).reshape(s, b, n * d).contiguous()


def ref_attention(q, k, v, causal=False, bool_mask=None, add_mask=None, scale=None, keep=None, keep_prob=1.0):
    """float64 reference on BNSD tensors (k/v with Nkv heads); rows that see no key give 0."""
    q, k, v = q.double(), k.double(), v.double()
    n, nkv = q.shape[1], k.shape[1]
    if nkv != n:
        k = k.repeat_interleave(n // nkv, 1)
        v = v.repeat_interleave(n // nkv, 1)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-1, -2) * scale
    if add_mask is not None:
        s = s + add_mask.double()
    S, Skv = s.shape[-2:]
    masked = torch.zeros(S, Skv, dtype=torch.bool)
    if causal:
        masked = masked | torch.ones(S, Skv, dtype=torch.bool).triu(1)
    if bool_mask is not None:
        masked = masked | bool_mask.bool()
    s = s.masked_fill(masked, float("-inf"))
    p = torch.softmax(s, -1)
    p = torch.nan_to_num(p, nan=0.0)   # rows that see no key
    if keep is not None:
        p = p * keep.double() / keep_prob
    return p @ v


def run_case(layout, dtype, B=2, N=4, Nkv=2, S=13, Skv=17, D=64, causal=False, bool_mask=None, add_mask=None,
             scale=None, seed=0):
    q = rn(B, N, S, D, seed=seed, dtype=dtype)
    k = rn(B, Nkv, Skv, D, seed=seed + 1, dtype=dtype)
    v = rn(B, Nkv, Skv, D, seed=seed + 2, dtype=dtype)
    go = rn(B, N, S, D, seed=seed + 3, dtype=dtype)
    ql, kl, vl = (from_bnsd(t, layout).requires_grad_() for t in (q, k, v))
    out = ct.flash_attention(ql, kl, vl, causal=causal, mask=bool_mask if bool_mask is not None else add_mask,
                             scale=scale, layout=layout, num_heads=N if layout in ("BSH", "SBH") else None)
    assert out.dtype == dtype and out.shape == ql.shape
    out.backward(from_bnsd(go, layout))
    qr, kr, vr = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = ref_attention(qr, kr, vr, causal, bool_mask, add_mask, scale)
    ref.backward(go.double())
    ot, gt = TOL[dtype]
    close(to_bnsd(out.detach(), layout, N), ref.detach(), ot)
    close(to_bnsd(ql.grad, layout, N), qr.grad, gt)
    close(to_bnsd(kl.grad, layout, Nkv), kr.grad, gt)
    close(to_bnsd(vl.grad, layout, Nkv), vr.grad, gt)


@pytest.mark.parametrize("layout", ["BNSD", "BSND", "BSH", "SBH"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
def test_layouts_dtypes_gqa(layout, dtype):
    run_case(layout, dtype, causal=(layout in ("BSND", "SBH")))


@pytest.mark.parametrize("nkv", [1, 2, 4])
@pytest.mark.parametrize("causal", [False, True])
def test_causal_gqa_fp32(nkv, causal):
    run_case("BNSD", torch.float32, N=4, Nkv=nkv, S=19, Skv=19, D=80, causal=causal, scale=0.2)


@pytest.mark.parametrize("isa", ["avx512", "avx2", "scalar"])
def test_isa_tiers(isa, monkeypatch):
    # libopapi reads CANNON_ISA when it plans each operator, so one process tests every tier
    monkeypatch.setenv("CANNON_ISA", isa)
    run_case("BSND", torch.float32, S=9, Skv=12, D=32, causal=True)
    run_case("BNSD", torch.bfloat16, S=5, Skv=7, D=16)


@pytest.mark.parametrize("D", [64, 128])
def test_seq_one_and_head_dims(D):
    run_case("BNSD", torch.float32, B=1, N=2, Nkv=1, S=1, Skv=9, D=D)
    run_case("BSND", torch.bfloat16, B=1, N=2, Nkv=2, S=7, Skv=1, D=D)


@pytest.mark.parametrize("shape", ["2d", "b1", "bn", "11"])
def test_bool_mask(shape):
    B, N, S, Skv = 2, 4, 11, 15
    m = torch.rand(B, N, S, Skv, generator=torch.Generator().manual_seed(5)) < 0.3
    m = {"2d": m[0, 0], "b1": m[:, :1], "bn": m, "11": m[:1, :1]}[shape]
    run_case("BNSD", torch.float32, B=B, N=N, Nkv=2, S=S, Skv=Skv, bool_mask=m)


def test_bool_mask_with_causal_and_masked_rows():
    S = Skv = 12
    m = torch.zeros(S, Skv, dtype=torch.bool)
    m[3] = True                       # row 3 sees nothing: output 0, gradients 0
    m[:, 0] = True
    run_case("BNSD", torch.float32, S=S, Skv=Skv, causal=True, bool_mask=m)
    q, k, v = rn(1, 2, S, 16, seed=1), rn(1, 2, S, 16, seed=2), rn(1, 2, S, 16, seed=3)
    o = ct.flash_attention(q, k, v, mask=m)
    assert torch.all(o[:, :, 3] == 0) and torch.all(torch.isfinite(o))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_additive_mask_and_its_gradient(dtype):
    B, N, S, Skv, D = 2, 4, 9, 10, 32
    add = rn(B, N, S, Skv, seed=9) * 2
    run_case("BNSD", dtype, B=B, N=N, Nkv=4, S=S, Skv=Skv, D=D, add_mask=add.to(dtype))
    # broadcast additive mask ([S, Skv], a padding row of -inf), gradient summed back to its shape
    am = rn(S, Skv, seed=4).to(dtype)
    am[:, -2:] = float("-inf")
    am.requires_grad_()
    q, k, v = (rn(B, N, S if i == 0 else Skv, D, seed=i, dtype=dtype).requires_grad_() for i in range(3))
    out = ct.flash_attention(q, k, v, mask=am)
    go = rn(B, N, S, D, seed=7, dtype=dtype)
    out.backward(go)
    amr = am.detach().double().requires_grad_()
    ref = ref_attention(q.detach(), k.detach(), v.detach(), add_mask=amr)
    ref.backward(go.double())
    ot, gt = TOL[dtype]
    close(out.detach(), ref.detach(), ot)
    assert am.grad.shape == am.shape
    close(am.grad, amr.grad, gt)


def test_dropout_reproducible_and_matches_reference():
    B, N, S, Skv, D, p = 1, 2, 8, 12, 16, 0.25
    q, k, v = (rn(B, N, S if i == 0 else Skv, D, seed=i).requires_grad_() for i in range(3))
    out = ct.flash_attention(q, k, v, dropout_p=p, generator=torch.Generator().manual_seed(42))
    keep = torch.rand((B, N, S, Skv), generator=torch.Generator().manual_seed(42)) < 1 - p
    go = rn(B, N, S, D, seed=5)
    out.backward(go)
    qr, kr, vr = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = ref_attention(qr, kr, vr, keep=keep, keep_prob=1 - p)
    ref.backward(go.double())
    close(out.detach(), ref.detach(), 2e-5)
    for a, b in ((q, qr), (k, kr), (v, vr)):
        close(a.grad, b.grad, 5e-5)
    again = ct.flash_attention(q, k, v, dropout_p=p, generator=torch.Generator().manual_seed(42))
    assert torch.equal(again, out)


def test_dropout_mask_packing_over_several_draws(monkeypatch):
    """The packed keep mask equals numpy's little-endian packbits of torch.rand(shape) < keep_prob, also
    when it is drawn in several pieces and for sizes that end inside a byte."""
    from cannon.torch import attention as A
    np = pytest.importorskip("numpy")
    monkeypatch.setattr(A, "_DRAW_SCORES", 64)    # a few heads per draw
    for shape in [(2, 8, 4, 8), (1, 7, 3, 5), (2, 3, 5, 7), (1, 1, 1, 1)]:
        got = A._dropout_mask(shape, 0.7, torch.Generator().manual_seed(9))
        keep = torch.rand(shape, generator=torch.Generator().manual_seed(9)) < 0.7
        assert np.array_equal(got.numpy(), np.packbits(keep.numpy().reshape(-1), bitorder="little"))


def test_finite_differences_fp64_reference_free():
    """The analytic gradient of a small fp32 case against central differences of the forward."""
    torch.manual_seed(0)
    q, k, v = rn(1, 2, 5, 8, seed=1), rn(1, 1, 6, 8, seed=2), rn(1, 1, 6, 8, seed=3)
    w = rn(1, 2, 5, 8, seed=4)
    q.requires_grad_()
    (ct.flash_attention(q, k, v, causal=True) * w).sum().backward()
    eps = 1e-2
    fd = torch.zeros_like(q)
    with torch.no_grad():
        for idx in [(0, 0, 0, 0), (0, 1, 4, 7), (0, 0, 2, 3), (0, 1, 1, 5)]:
            qp, qm = q.detach().clone(), q.detach().clone()
            qp[idx] += eps
            qm[idx] -= eps
            fp = (ct.flash_attention(qp, k, v, causal=True) * w).sum()
            fm = (ct.flash_attention(qm, k, v, causal=True) * w).sum()
            fd[idx] = (fp - fm) / (2 * eps)
            assert abs(fd[idx].item() - q.grad[idx].item()) <= 2e-3 * (1 + abs(fd[idx].item()))


def test_strided_views_of_a_fused_projection():
    """q, k, v as views of one [B, S, (N + 2 Nkv) D] projection (BSND, no copies), gradients flowing
    back into the fused tensor."""
    B, S, N, Nkv, D = 2, 10, 4, 2, 16
    h = rn(B, S, (N + 2 * Nkv) * D, seed=3).requires_grad_()
    q, k, v = h.split([N * D, Nkv * D, Nkv * D], -1)
    q, k, v = q.reshape(B, S, N, D), k.reshape(B, S, Nkv, D), v.reshape(B, S, Nkv, D)
    assert not q.is_contiguous()
    out = ct.flash_attention(q, k, v, causal=True, layout="BSND")
    g = rn(B, S, N, D, seed=4)
    out.backward(g)
    hr = h.detach().double().requires_grad_()
    qr, kr, vr = hr.split([N * D, Nkv * D, Nkv * D], -1)
    ref = ref_attention(qr.reshape(B, S, N, D).transpose(1, 2), kr.reshape(B, S, Nkv, D).transpose(1, 2),
                        vr.reshape(B, S, Nkv, D).transpose(1, 2), causal=True)
    ref.transpose(1, 2).backward(g.double())
    close(out.detach(), ref.transpose(1, 2).detach(), 2e-5)
    close(h.grad, hr.grad, 5e-5)


def test_errors():
    q, k = rn(1, 4, 5, 8), rn(1, 3, 5, 8)
    with pytest.raises(ValueError, match="divide"):
        ct.flash_attention(q, k, k)
    with pytest.raises(ValueError, match="layout"):
        ct.flash_attention(q, q, q, layout="NSD")
    with pytest.raises(TypeError, match="share"):
        ct.flash_attention(q, q.double(), q)
    with pytest.raises(ValueError, match="num_heads"):
        ct.flash_attention(rn(1, 5, 32), rn(1, 5, 32), rn(1, 5, 32), layout="BSH")
    with pytest.raises(ValueError, match="mask"):
        ct.flash_attention(q, q, q, mask=torch.zeros(3, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="v "):
        ct.flash_attention(q, q, rn(1, 4, 6, 8))


# ---- rotary ------------------------------------------------------------------------------------

def rotate(x, mode):
    if mode == "half":
        x1, x2 = x.chunk(2, -1)
        return torch.cat([-x2, x1], -1)
    xe, xo = x[..., 0::2], x[..., 1::2]
    return torch.stack([-xo, xe], -1).flatten(-2)


@pytest.mark.parametrize("mode", ["half", "interleave"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f16", "bf16"])
def test_rotary_values_and_grads(mode, dtype):
    B, N, S, D = 2, 3, 7, 16
    x = rn(B, N, S, D, seed=1, dtype=dtype).requires_grad_()
    ang = torch.arange(S).double()[:, None] * torch.linspace(0.1, 1.0, D // 2).double()[None]
    if mode == "half":
        ang = torch.cat([ang, ang], -1)
    else:
        ang = ang.repeat_interleave(2, -1)
    cos = ang.cos().to(dtype).reshape(1, 1, S, D).requires_grad_()
    sin = ang.sin().to(dtype).reshape(1, 1, S, D).requires_grad_()
    y = ct.rotary_embedding(x, cos, sin, mode=mode)
    assert y.dtype == dtype and y.shape == x.shape
    g = rn(B, N, S, D, seed=2, dtype=dtype)
    y.backward(g)
    xr, cr, sr = (t.detach().double().requires_grad_() for t in (x, cos, sin))
    ref = xr * cr + rotate(xr, mode) * sr
    ref.backward(g.double())
    ot, gt = TOL[dtype]
    close(y.detach(), ref.detach(), ot)
    close(x.grad, xr.grad, gt)
    close(cos.grad, cr.grad, gt)
    close(sin.grad, sr.grad, gt)


def test_rotary_2d_cos_bsnd_and_errors():
    B, S, N, D = 2, 5, 3, 8
    x = rn(B, S, N, D).requires_grad_()
    ang = rn(S, D, seed=3)
    c, s = ang.cos(), ang.sin()
    y = ct.rotary_embedding(x, c.reshape(1, S, 1, D), s.reshape(1, S, 1, D))
    ref = x.double() * c.double().reshape(1, S, 1, D) + rotate(x.double(), "half") * s.double().reshape(1, S, 1, D)
    close(y.detach(), ref.detach(), 2e-6)
    x4 = rn(B, N, S, D)
    y2 = ct.rotary_embedding(x4, c, s)     # [S, D] cos taken as [1, 1, S, D]
    ref2 = x4.double() * c.double() + rotate(x4.double(), "half") * s.double()
    close(y2, ref2, 2e-6)
    with pytest.raises(ValueError, match="mode"):
        ct.rotary_embedding(x4, c, s, mode="full")
    with pytest.raises(ValueError, match="rank"):
        ct.rotary_embedding(x4, c[None], s[None])
    with pytest.raises(AclError):
        ct.rotary_embedding(rn(B, N, S, 7), rn(1, 1, S, 7), rn(1, 1, S, 7))


def test_autocast_attention_and_rotary_bf16():
    q, k, v = rn(1, 2, 6, 16, seed=1), rn(1, 2, 6, 16, seed=2), rn(1, 2, 6, 16, seed=3)
    q.requires_grad_()
    with ct.amp.autocast(dtype=torch.bfloat16):
        o = ct.flash_attention(q, k, v, causal=True)
        r = ct.rotary_embedding(q, torch.ones(6, 16), torch.zeros(6, 16))
    assert o.dtype == torch.bfloat16 and r.dtype == torch.bfloat16
    o.float().sum().backward()
    assert q.grad.dtype == torch.float32
    ref = ref_attention(q.detach().bfloat16(), k.bfloat16(), v.bfloat16(), causal=True)
    close(o.detach(), ref, TOL[torch.bfloat16][0])
