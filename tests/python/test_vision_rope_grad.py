"""Golden tests of aclnnRotaryPositionEmbeddingGrad, aclnnApplyRotaryPosEmb and aclnnApplyRotaryPosEmbV2.

References: the forward written from CANN's formulas (x_rotate by cat / stack, per mode) in float64
torch, differentiated by autograd for dx, dcos and dsin (autograd sums over the broadcast dims).
Pass criteria per element, with m the sum of the magnitudes of the terms (|dy c| + |dy s| for dx,
the sum of |dy x| for dcos / dsin): |got - ref| <= 2^-21 m, plus for FLOAT16 / BFLOAT16 half an ulp
of the result (2^-11 / 2^-8 |ref|) and the smallest subnormal. Every mode, cos / sin broadcast
layouts, rank 3 and 4, strided views, in place, empty tensors; a few cases on every instruction-set
tier (the operators have no tier of their own). Errors: NULL -> 161001; dtype, shapes, layout,
rotaryMode -> 161002; the grad's mode and broadcast errors -> 561002 as the forward's.
"""
import numpy as np
import pytest
import torch

import golden

NULL, INVALID, TILING = golden.PARAM_NULLPTR, golden.PARAM_INVALID, 561002
DTS = ["float32", "float16", "bfloat16"]
ULP = {"float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float32": 2.0 ** -149, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -133}


def rotate(x, mode):
    d = x.shape[-1]
    if mode == 0:
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x, torch.cat([-x2, x1], dim=-1)
    if mode == 1:
        x1, x2 = x[..., ::2], x[..., 1::2]
        return x, torch.stack([-x2, x1], dim=-1).reshape(x.shape)
    if mode == 2:
        q = d // 4
        x1, x2, x3, x4 = x[..., :q], x[..., q:2 * q], x[..., 2 * q:3 * q], x[..., 3 * q:]
        return x, torch.cat([-x2, x1, -x4, x3], dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.cat([x1, x2], dim=-1), torch.cat([-x2, x1], dim=-1)


def forward(x, c, s, mode):
    p1, xr = rotate(x, mode)
    return p1 * c + xr * s


def check(got, ref, mag, dt):
    bound = 2.0 ** -21 * mag + ULP[dt] * np.abs(ref) + TINY[dt]
    err = np.abs(got - ref)
    assert np.all(err <= bound), f"max excess {np.max(err - bound)}"


def grads(x, c, s, dy, mode):
    xt, ct, st = (torch.tensor(v, requires_grad=True) for v in (x, c, s))
    forward(xt, ct, st, mode).backward(torch.tensor(dy))
    # magnitudes: the same sums with absolute values
    xa, ca, sa = (torch.tensor(np.abs(v), requires_grad=True) for v in (x, c, s))
    p1, xr = rotate(xa, mode)
    (p1 * ca + xr.abs() * sa).backward(torch.tensor(np.abs(dy)))
    return [t.grad.numpy() for t in (xt, ct, st)], [t.grad.numpy() for t in (xa, ca, sa)]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("cshape", ["11SD", "1S1D", "B1SD", "BNSD", "rank3"])
def test_rope_grad(dt, mode, cshape):
    rng = np.random.default_rng(20 + mode)
    B, N, S, D = 2, 3, 5, 16
    xshape = (N, S, D) if cshape == "rank3" else (B, N, S, D)
    shape = {"11SD": (1, 1, S, D), "1S1D": (1, N, 1, D), "B1SD": (B, 1, S, D), "BNSD": (B, N, S, D),
             "rank3": (1, S, D)}[cshape]
    x = golden.rounded(rng.standard_normal(xshape), dt)
    dy = golden.rounded(rng.standard_normal(xshape), dt)
    ang = rng.uniform(-4, 4, size=shape)
    c, s = golden.rounded(np.cos(ang), dt), golden.rounded(np.sin(ang), dt)
    (gx, gc, gs), (mx, mc, ms) = grads(x, c, s, dy, mode)
    dx = golden.empty(xshape, dt, fill=77)
    dc = golden.empty(shape, dt, layout="strided" if cshape == "BNSD" else None, fill=77)
    ds = golden.empty(shape, dt, fill=77)
    golden.call("aclnnRotaryPositionEmbeddingGrad", golden.array(dy, dt, layout="strided"), golden.array(c, dt),
                golden.array(s, dt), golden.array(x, dt, layout="transposed"), mode, dx, dc, ds)
    check(golden.read_float(dx), gx, mx, dt)
    check(golden.read_float(dc), gc, mc, dt)
    check(golden.read_float(ds), gs, ms, dt)


@pytest.mark.parametrize("mode", [0, 3])
def test_rope_grad_tiers(mode, isa):
    """The same results on every instruction-set tier."""
    test_rope_grad("bfloat16", mode, "1S1D")


def test_rope_grad_no_x_inplace():
    """Without x only dx is computed (dcos / dsin untouched); dx may be dy itself."""
    rng = np.random.default_rng(30)
    x, dy = rng.standard_normal((2, 2, 3, 8)), rng.standard_normal((2, 2, 3, 8))
    ang = rng.uniform(-4, 4, size=(1, 1, 3, 8))
    c, s = np.cos(ang), np.sin(ang)
    (gx, _, _), (mx, _, _) = grads(x, c, s, dy, 0)
    dya = golden.array(dy, "float32")
    dc = golden.empty((1, 1, 3, 8), "float32", fill=5)
    golden.call("aclnnRotaryPositionEmbeddingGrad", dya, golden.array(c, "float32"), golden.array(s, "float32"),
                None, 0, dya, dc, None)
    check(golden.read_float(dya), gx, mx + 1e-30, "float32")
    assert np.all(golden.read_float(dc) == 5)
    # empty tensor
    e = golden.array(np.zeros((0, 2, 3, 8)), "float32")
    golden.call("aclnnRotaryPositionEmbeddingGrad", e, golden.array(c, "float32"), golden.array(s, "float32"),
                None, 0, e, None, None)


def test_rope_grad_errors():
    x = golden.array(np.ones((1, 2, 3, 8)), "float32")
    c = golden.array(np.ones((1, 1, 3, 8)), "float32")
    ps = golden.phase1_status
    assert ps("aclnnRotaryPositionEmbeddingGrad", None, c, c, None, 0, x, None, None) == NULL
    assert ps("aclnnRotaryPositionEmbeddingGrad", x, c, c, None, 4, x, None, None) == TILING
    assert ps("aclnnRotaryPositionEmbeddingGrad", x, golden.array(np.ones((1, 2, 2, 8)), "float32"), c, None, 0, x,
              None, None) == TILING
    assert ps("aclnnRotaryPositionEmbeddingGrad", x, c, c, golden.array(np.ones((1, 2, 3, 8)), "float16"), 0, x, c,
              c) == INVALID
    assert "xOptional" in golden.recent_error()
    assert ps("aclnnRotaryPositionEmbeddingGrad", x, c, c, x, 0, x, x, c) == INVALID
    assert "dcosOut" in golden.recent_error()


# ---- ApplyRotaryPosEmb ----------------------------------------------------------------------------

LAYOUTS = {1: ("BSND", lambda B, S, N, D: (B, S, N, D), lambda B, S, D: (B, S, 1, D)),
           2: ("SBND", lambda B, S, N, D: (S, B, N, D), lambda B, S, D: (S, B, 1, D)),
           3: ("BNSD", lambda B, S, N, D: (B, N, S, D), lambda B, S, D: (B, 1, S, D)),
           4: ("TND", lambda B, S, N, D: (B * S, N, D), lambda B, S, D: (B * S, 1, D))}


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("layout", [1, 2, 3, 4])
@pytest.mark.parametrize("mode", [None, "half", "interleave", "quarter"])
def test_apply_rope(dt, layout, mode):
    rng = np.random.default_rng(40 + layout)
    B, S, Nq, Nk, D = 2, 5, 4, 2, 32
    _, qs, cs = LAYOUTS[layout]
    q = golden.rounded(rng.standard_normal(qs(B, S, Nq, D)), dt)
    k = golden.rounded(rng.standard_normal(qs(B, S, Nk, D)), dt)
    ang = rng.uniform(-4, 4, size=cs(B, S, D))
    c, s = golden.rounded(np.cos(ang), dt), golden.rounded(np.sin(ang), dt)
    qa, ka = golden.array(q, dt, layout="strided"), golden.array(k, dt)
    if mode is None:
        golden.call("aclnnApplyRotaryPosEmb", qa, ka, golden.array(c, dt), golden.array(s, dt), layout)
    else:
        golden.call("aclnnApplyRotaryPosEmbV2", qa, ka, golden.array(c, dt), golden.array(s, dt), layout, mode)
    m = {None: 0, "half": 0, "interleave": 1, "quarter": 2}[mode]
    for got, x in ((qa, q), (ka, k)):
        t = [torch.tensor(v) for v in (x, c, s)]
        ref = forward(*t, m).numpy()
        p1, xr = rotate(torch.tensor(np.abs(x)), m)
        mag = (p1 * t[1].abs() + xr.abs() * t[2].abs()).numpy()
        check(golden.read_float(got), ref, mag, dt)


def test_apply_rope_tiers(isa):
    test_apply_rope("float16", 1, "interleave")


def test_apply_rope_errors():
    q = golden.array(np.ones((1, 3, 2, 8)), "float32")
    c = golden.array(np.ones((1, 3, 1, 8)), "float32")
    ps = golden.phase1_status
    assert ps("aclnnApplyRotaryPosEmb", q, q, c, c, 1) == 0
    assert ps("aclnnApplyRotaryPosEmb", None, q, c, c, 1) == NULL
    assert ps("aclnnApplyRotaryPosEmb", q, q, c, c, 5) == INVALID
    assert "layout" in golden.recent_error()
    assert ps("aclnnApplyRotaryPosEmb", q, q, c, c, 4) == INVALID
    assert ps("aclnnApplyRotaryPosEmbV2", q, q, c, c, 1, "full") == INVALID
    assert "rotaryMode" in golden.recent_error()
    assert ps("aclnnApplyRotaryPosEmb", q, golden.array(np.ones((1, 3, 2, 8)), "float16"), c, c, 1) == INVALID
    assert "keyRef" in golden.recent_error()
    assert ps("aclnnApplyRotaryPosEmb", q, golden.array(np.ones((1, 4, 2, 8)), "float32"), c, c, 1) == INVALID
    assert ps("aclnnApplyRotaryPosEmbV2", golden.array(np.ones((1, 3, 2, 6)), "float32"),
              golden.array(np.ones((1, 3, 2, 6)), "float32"), golden.array(np.ones((1, 3, 1, 6)), "float32"),
              golden.array(np.ones((1, 3, 1, 6)), "float32"), 1, "quarter") == INVALID
