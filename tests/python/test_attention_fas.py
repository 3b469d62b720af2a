"""Golden tests of aclnnFlashAttentionScore(V2) and aclnnFlashAttentionScoreGrad(V2) against float64
numpy references written from CANN's pages:
  out = Dropout(Softmax(Mask(scale (pse + q k^T))), keepProb) v   (V2 pseType 0: scale q k^T + pse)
and its gradient dq, dk, dv, dpse given dy, the forward's output and its [B,N,S,8] row max / sum.

Pass criteria (inputs as stored in the dtype, u the dtype's unit roundoff: 2^-24 FLOAT, 2^-11
FLOAT16, 2^-8 BFLOAT16):
- forward output: |y - ref| <= 2u |ref| + 2^-14 mag + tiny, mag = sum_j p_j z_j |v_j|; a row that sees
  no key is exactly 0;
- softmax max: |m - ref| <= 2^-20 (1 + |ref|) (the max of fp32 scores); sum: relative 2^-16; a row
  that sees no key has max -inf and sum 0;
- gradients (fp32 arithmetic, one rounding): |g - ref| <= 2u |ref| + e mag, mag the same sums over
  absolute values, e = 2^-14 FLOAT, 2^-10 FLOAT16, 2^-7 BFLOAT16 (each bound + half the dtype's
  smallest subnormal);
- finite differences (FLOAT, small shapes): the analytic gradient within 1e-3 of central
  differences of the forward.
Every layout (BSH, SBH, BSND, BNSD), grouped-query ratios 1, 2, 4, head dims 64, 80, 128 and odd
ones, sequence lengths 1 and odd, sparseMode 0-4 with preTokens / nextTokens, mask shapes and fully
masked rows, pse forms and pseType, dropout (the same keep bits forward and backward), every
instruction-set tier, determinism over worker counts, and the error paths.
"""
import hashlib

import numpy as np
import pytest

import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
FWD, BWD = "aclnnFlashAttentionScore", "aclnnFlashAttentionScoreGrad"
FWD2, BWD2 = "aclnnFlashAttentionScoreV2", "aclnnFlashAttentionScoreGradV2"
DTS = ["float32", "float16", "bfloat16"]
LAYOUTS = ["BSH", "SBH", "BSND", "BNSD"]
BIG = 2147483647
NEG_INF = float("-inf")
U = {"float32": 2.0 ** -24, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}
TINY = {"float32": 2.0 ** -150, "float16": 2.0 ** -25, "bfloat16": 2.0 ** -134}  # half the smallest subnormal
GRAD_E = {"float32": 2.0 ** -14, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


# ---- reference -----------------------------------------------------------------------------------

def visible(S, Skv, sparse, pre, nxt, has_mask):
    """[S, Skv] bool: keys row i may see under sparseMode / preTokens / nextTokens (no mask: all)."""
    i = np.arange(S)[:, None]
    j = np.arange(Skv)[None, :]
    ok = np.ones((S, Skv), dtype=bool)
    if not has_mask:
        return ok
    shift = Skv - S
    if sparse == 0:
        ok &= (j - i >= -pre) & (j - i <= nxt)
    elif sparse == 2:
        ok &= j <= i
    elif sparse == 3:
        ok &= j - i <= shift
    elif sparse == 4:
        ok &= (j - i - shift >= -pre) & (j - i - shift <= nxt)
    return ok


def forward_ref(q, k, v, scale, pse=None, pse_first=True, hidden=None, keep=None, kp=1.0):
    """q [B,N,S,D], k/v [B,Nkv,Skv,D] float64; pse [B,N,S,Skv] (broadcast); hidden [B,N,S,Skv] bool
    (True: the key is not seen); keep [B,N,S,Skv] bool. -> dict of out, max, sum, P, Pz, mag."""
    G = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, G, axis=1), np.repeat(v, G, axis=1)
    s = np.einsum("bnsd,bnjd->bnsj", q, kk)
    if pse is not None:
        s = (s + pse) * scale if pse_first else s * scale + pse
    else:
        s = s * scale
    if hidden is not None:
        s = np.where(hidden, NEG_INF, s)
    mx = np.max(s, axis=-1, keepdims=True) if s.shape[-1] else np.full(s.shape[:-1] + (1,), NEG_INF)
    empty = ~np.isfinite(mx)
    p = np.where(empty, 0.0, np.exp(s - np.where(empty, 0.0, mx)))
    l = p.sum(axis=-1, keepdims=True)
    P = np.where(l > 0, p / np.where(l > 0, l, 1.0), 0.0)
    z = np.ones_like(P) if keep is None else keep / kp
    Pz = P * z
    return dict(out=np.einsum("bnsj,bnjd->bnsd", Pz, vv), mag=np.einsum("bnsj,bnjd->bnsd", Pz, np.abs(vv)),
                max=np.where(empty, NEG_INF, mx)[..., 0], sum=l[..., 0], P=P, z=z, Pz=Pz, s=s)


def backward_ref(q, k, v, dy, f, scale, pse_first=True):
    """float64 gradients from forward_ref's dict @f: dq, dk, dv, dpse."""
    B, N, S, D = q.shape
    Nkv = k.shape[1]
    G = N // Nkv
    kk, vv = np.repeat(k, G, axis=1), np.repeat(v, G, axis=1)
    dv = np.einsum("bnsj,bnsd->bnjd", f["Pz"], dy).reshape(B, Nkv, G, -1, D).sum(axis=2)
    dP = np.einsum("bnsd,bnjd->bnsj", dy, vv) * f["z"]
    Di = np.sum(dy * f["out"], axis=-1, keepdims=True)
    dS = f["P"] * (dP - Di)
    dq = scale * np.einsum("bnsj,bnjd->bnsd", dS, kk)
    dk = (scale * np.einsum("bnsj,bnsd->bnjd", dS, q)).reshape(B, Nkv, G, -1, D).sum(axis=2)
    # magnitudes: the same sums over absolute values (the scale of each result's rounding errors)
    dSm = f["P"] * (np.einsum("bnsd,bnjd->bnsj", np.abs(dy), np.abs(vv)) * f["z"] +
                    np.sum(np.abs(dy) * f["mag"], axis=-1, keepdims=True))
    mag = dict(dq=scale * np.einsum("bnsj,bnjd->bnsd", dSm, np.abs(kk)),
               dk=(scale * np.einsum("bnsj,bnsd->bnjd", dSm, np.abs(q))).reshape(B, Nkv, G, -1, D).sum(axis=2),
               dv=np.einsum("bnsj,bnsd->bnjd", f["Pz"], np.abs(dy)).reshape(B, Nkv, G, -1, D).sum(axis=2),
               dpse=scale * dSm if pse_first else dSm)
    return dict(dq=dq, dk=dk, dv=dv, dpse=scale * dS if pse_first else dS, mag=mag)


def check_out(got, f, dt, what=""):
    ref = f["out"]
    bound = 2 * U[dt] * np.abs(ref) + 2.0 ** -14 * f["mag"] + TINY[dt]
    assert not np.any(np.isnan(got)), f"NaN {what}"
    err = np.abs(got - ref)
    assert np.all(err <= bound), f"out {what}: max excess {np.max(err - bound)}"


def check_stats(mx, sm, f, what=""):
    assert np.all(mx == mx[..., :1]) and np.all(sm == sm[..., :1]), "the 8 copies differ"
    rm, rs = f["max"], f["sum"]
    fin = np.isfinite(rm)
    assert np.all(mx[..., 0][~fin] == NEG_INF) and np.all(sm[..., 0][~fin] == 0), what
    assert np.all(np.abs(mx[..., 0][fin] - rm[fin]) <= 2.0 ** -20 * (1 + np.abs(rm[fin]))), what
    assert np.all(np.abs(sm[..., 0][fin] - rs[fin]) <= 2.0 ** -16 * rs[fin]), what


def check_grad(got, ref, mag, dt, what="", e=None):
    assert not np.any(np.isnan(got)), f"NaN {what}"
    bound = 2 * U[dt] * np.abs(ref) + (GRAD_E[dt] if e is None else e) * mag + TINY[dt]
    err = np.abs(got - ref)
    assert np.all(err <= bound), f"{what}: max excess {np.max(err - bound)} at {np.unravel_index(np.argmax(err - bound), err.shape)}"


# ---- layouts -------------------------------------------------------------------------------------

def to_layout(x, layout):
    """canonical [B,N,S,D] -> the layout's logical array."""
    if layout == "BNSD":
        return x
    bsnd = np.transpose(x, (0, 2, 1, 3))
    if layout == "BSND":
        return bsnd
    if layout == "BSH":
        return bsnd.reshape(bsnd.shape[0], bsnd.shape[1], -1)
    sbnd = np.transpose(x, (2, 0, 1, 3))
    return sbnd.reshape(sbnd.shape[0], sbnd.shape[1], -1)


def from_layout(y, layout, N):
    """the layout's logical array -> canonical [B,N,S,D]."""
    if layout == "BNSD":
        return y
    if layout == "BSND":
        return np.transpose(y, (0, 2, 1, 3))
    if layout == "BSH":
        return np.transpose(y.reshape(y.shape[0], y.shape[1], N, -1), (0, 2, 1, 3))
    return np.transpose(y.reshape(y.shape[0], y.shape[1], N, -1), (1, 2, 0, 3))


def lshape(layout, B, N, S, D):
    return {"BSH": (B, S, N * D), "SBH": (S, B, N * D), "BSND": (B, S, N, D), "BNSD": (B, N, S, D)}[layout]


def pack_keep(keep):
    """[B,N,S,Skv] bool -> CANN's keep bits: bit f % 8 of byte f / 8 (LSB first)."""
    return np.packbits(keep.reshape(-1).astype(np.uint8), bitorder="little")


class Case:
    """One problem: canonical float64 inputs, rounded copies, device arrays, and both operators."""

    def __init__(self, rng, B, N, Nkv, S, Skv, D, dt, layout="BSND", amp=1.0):
        self.B, self.N, self.Nkv, self.S, self.Skv, self.D, self.dt, self.layout = B, N, Nkv, S, Skv, D, dt, layout
        self.q = golden.rounded(rng.standard_normal((B, N, S, D)) * amp, dt)
        self.k = golden.rounded(rng.standard_normal((B, Nkv, Skv, D)) * amp, dt)
        self.v = golden.rounded(rng.standard_normal((B, Nkv, Skv, D)), dt)
        self.dy = golden.rounded(rng.standard_normal((B, N, S, D)), dt)
        self.scale = 1.0 / np.sqrt(D) if D else 1.0

    def dev(self, x):
        return golden.array(to_layout(x, self.layout), self.dt)

    def forward(self, pse_dev=None, drop_dev=None, mask_dev=None, kp=1.0, pre=BIG, nxt=BIG, sparse=0, pse_type=None,
                q=None, k=None, v=None):
        B, N, S, D = self.B, self.N, self.S, self.D
        out = golden.empty(lshape(self.layout, B, N, S, D), self.dt, fill=77)
        mx = golden.empty((B, N, S, 8), "float32", fill=5)
        sm = golden.empty((B, N, S, 8), "float32", fill=5)
        qa = self.dev(self.q if q is None else q)
        ka = self.dev(self.k if k is None else k)
        va = self.dev(self.v if v is None else v)
        if pse_type is None:
            golden.call(FWD, qa, ka, va, pse_dev, drop_dev, None, mask_dev, None, self.scale, kp, pre, nxt, N,
                        self.layout, 0, sparse, mx, sm, None, out)
        else:
            golden.call(FWD2, qa, ka, va, pse_dev, drop_dev, None, mask_dev, None, None, None, self.scale, kp, pre,
                        nxt, N, self.layout, 0, sparse, pse_type, mx, sm, None, out)
        self.out_dev, self.mx_dev, self.sm_dev = out, mx, sm
        return from_layout(golden.read_float(out), self.layout, N), golden.read_float(mx), golden.read_float(sm)

    def backward(self, pse_dev=None, drop_dev=None, mask_dev=None, kp=1.0, pre=BIG, nxt=BIG, sparse=0,
                 pse_type=None, dpse_dev=None):
        B, N, Nkv, S, Skv, D = self.B, self.N, self.Nkv, self.S, self.Skv, self.D
        dq = golden.empty(lshape(self.layout, B, N, S, D), self.dt, fill=77)
        dk = golden.empty(lshape(self.layout, B, Nkv, Skv, D), self.dt, fill=77)
        dv = golden.empty(lshape(self.layout, B, Nkv, Skv, D), self.dt, fill=77)
        a = [self.dev(self.q), self.dev(self.k), self.dev(self.v), self.dev(self.dy), pse_dev, drop_dev, None,
             mask_dev, self.mx_dev, self.sm_dev, None, self.out_dev, None]
        if pse_type is None:
            golden.call(BWD, *a, self.scale, kp, pre, nxt, N, self.layout, 0, sparse, dq, dk, dv, dpse_dev)
        else:
            golden.call(BWD2, *a, None, None, self.scale, kp, pre, nxt, N, self.layout, 0, sparse, pse_type, dq, dk,
                        dv, dpse_dev)
        return (from_layout(golden.read_float(dq), self.layout, N), from_layout(golden.read_float(dk), self.layout, Nkv),
                from_layout(golden.read_float(dv), self.layout, Nkv))

    def check(self, what, hidden=None, pse=None, pse_first=True, keep=None, kp=1.0, dpse_dev=None, grad_e=None,
              **kw):
        """Forward and backward against the references."""
        f = forward_ref(self.q, self.k, self.v, self.scale, pse, pse_first, hidden, keep, kp)
        got, mx, sm = self.forward(kp=kp, **kw)
        check_out(got, f, self.dt, what)
        check_stats(mx, sm, f, what)
        if hidden is not None:
            empty = ~np.isfinite(f["max"])
            assert np.all(got[empty] == 0), what
        g = backward_ref(self.q, self.k, self.v, self.dy, f, self.scale, pse_first)
        dq, dk, dv = self.backward(kp=kp, dpse_dev=dpse_dev, **kw)
        for name, x in (("dq", dq), ("dk", dk), ("dv", dv)):
            check_grad(x, g[name], g["mag"][name], self.dt, f"{name} {what}", grad_e)
        return f, g


# ---- tests ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("group", [1, 2, 4])
def test_layouts_gqa(isa, dt, layout, group):
    rng = np.random.default_rng(group)
    c = Case(rng, 2, 2 * group, 2, 5, 70, 64, dt, layout)
    c.check(f"{layout} G={group} {dt} {isa}")


@pytest.mark.parametrize("D,dt", [(64, "float32"), (80, "float16"), (128, "bfloat16"), (128, "float16"),
                                  (7, "float32")])
@pytest.mark.parametrize("S,Skv", [(1, 1), (1, 67), (33, 130), (67, 5)])
def test_head_dims_and_lengths(isa, dt, D, S, Skv):
    rng = np.random.default_rng(D + S)
    c = Case(rng, 1, 2, 1, S, Skv, D, dt, "BNSD")
    c.check(f"D={D} S={S} Skv={Skv} {dt} {isa}")


MASK_SHAPES = {"SK": lambda B, N, S, K: (S, K), "B1SK": lambda B, N, S, K: (B, 1, S, K),
               "11SK": lambda B, N, S, K: (1, 1, S, K), "BNSK": lambda B, N, S, K: (B, N, S, K)}


@pytest.mark.parametrize("mdt", ["bool", "uint8"])
@pytest.mark.parametrize("shape", list(MASK_SHAPES))
def test_masks(isa, mdt, shape):
    rng = np.random.default_rng(7)
    B, N, Nkv, S, Skv, D = 2, 4, 2, 6, 75, 64
    c = Case(rng, B, N, Nkv, S, Skv, D, "float16", "BSND")
    m = rng.random(MASK_SHAPES[shape](B, N, S, Skv)) < 0.4
    m[..., 1, :] = True  # a fully masked row
    dev = golden.array(m.astype(np.uint8) if mdt == "uint8" else m, mdt)
    hidden = np.broadcast_to(m.reshape((1,) * (4 - m.ndim) + m.shape), (B, N, S, Skv))
    c.check(f"{mdt} {shape} {isa}", hidden=hidden, mask_dev=dev, sparse=1)


@pytest.mark.parametrize("sparse,pre,nxt", [(0, 3, 0), (0, BIG, 2), (0, -1, 4), (0, 4, -2), (1, 0, 0), (2, 0, 0),
                                            (3, 0, 0), (4, 5, 1), (4, 2, -1)])
@pytest.mark.parametrize("S,Skv", [(20, 20), (13, 70), (70, 13)])
def test_sparse_modes(isa, sparse, pre, nxt, S, Skv):
    rng = np.random.default_rng(sparse * 7 + S)
    B, N, D = 1, 2, 64
    c = Case(rng, B, N, N, S, Skv, D, "bfloat16", "BNSD")
    if sparse >= 2:
        mdev = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool")
        masked = np.zeros((B, N, S, Skv), dtype=bool)
    else:
        m = rng.random((B, 1, S, Skv)) < 0.3
        mdev = golden.array(m, "bool")
        masked = np.broadcast_to(m, (B, N, S, Skv))
    hidden = masked | ~visible(S, Skv, sparse, pre, nxt, True)[None, None]
    c.check(f"sparse={sparse} pre={pre} next={nxt} {isa}", hidden=hidden, mask_dev=mdev, sparse=sparse, pre=pre,
            nxt=nxt)


def test_no_mask_means_full_attention():
    """Without attenMask, sparseMode, preTokens and nextTokens do not apply."""
    rng = np.random.default_rng(5)
    c = Case(rng, 1, 2, 2, 6, 30, 64, "float16", "BNSD")
    c.check("sparse 3 without a mask", sparse=3, pre=0, nxt=0)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("form,pse_type", [("BNSK", None), ("BN1K", None), ("1NSK", None), ("BNSK", 0),
                                           ("BNSK", 1)])
def test_pse(isa, dt, form, pse_type):
    rng = np.random.default_rng(11)
    B, N, Nkv, S, Skv, D = 2, 4, 2, 9, 67, 80
    c = Case(rng, B, N, Nkv, S, Skv, D, dt, "BSND")
    shp = {"BNSK": (B, N, S, Skv), "BN1K": (B, N, 1, Skv), "1NSK": (1, N, S, Skv)}[form]
    pse = golden.rounded(rng.standard_normal(shp), dt)
    pse_dev = golden.array(pse, dt)
    dpse_dev = golden.empty(shp, dt, fill=77) if form == "BNSK" else None
    pse_first = pse_type != 0
    f, g = c.check(f"{form} pseType={pse_type} {dt} {isa}", pse=np.broadcast_to(pse, (B, N, S, Skv)),
                   pse_first=pse_first, pse_dev=pse_dev, pse_type=pse_type, dpse_dev=dpse_dev)
    if dpse_dev is not None:
        check_grad(golden.read_float(dpse_dev), g["dpse"], g["mag"]["dpse"], dt, "dpse")


@pytest.mark.parametrize("dt", DTS)
def test_dropout(isa, dt):
    """The keep bits are an input: forward and backward see the same ones, and the result is
    reproducible; kept probabilities are scaled by 1 / keepProb."""
    rng = np.random.default_rng(21)
    B, N, Nkv, S, Skv, D, kp = 2, 2, 1, 11, 45, 64, 0.8
    c = Case(rng, B, N, Nkv, S, Skv, D, dt, "BSH")
    keep = rng.random((B, N, S, Skv)) < kp
    drop = golden.array(pack_keep(keep), "uint8")
    m = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool")
    hidden = np.broadcast_to(~visible(S, Skv, 2, 0, 0, True), (B, N, S, Skv))
    c.check(f"dropout {dt} {isa}", hidden=hidden, keep=keep, kp=kp, drop_dev=drop, mask_dev=m, sparse=2)
    first = golden.read(c.out_dev).tobytes()
    c.forward(drop_dev=drop, mask_dev=m, kp=kp, sparse=2)
    assert golden.read(c.out_dev).tobytes() == first
    # keepProb 1 ignores the mask
    c.check(f"keepProb 1 {dt} {isa}", hidden=hidden, drop_dev=drop, mask_dev=m, sparse=2)


def test_finite_differences():
    """FLOAT, small shapes: dq, dk, dv, dpse against central differences of the forward's loss
    sum(out * dy), with GQA, a band mask, a pse and dropout."""
    rng = np.random.default_rng(31)
    B, N, Nkv, S, Skv, D, kp = 1, 2, 1, 5, 7, 8, 0.75
    c = Case(rng, B, N, Nkv, S, Skv, D, "float32", "BNSD")
    c.scale = 0.5
    keep = rng.random((B, N, S, Skv)) < kp
    drop = golden.array(pack_keep(keep), "uint8")
    m = rng.random((1, 1, S, Skv)) < 0.2
    mdev = golden.array(m, "bool")
    pse = rng.standard_normal((B, N, S, Skv))
    kw = dict(drop_dev=drop, mask_dev=mdev, kp=kp, pre=2, nxt=3, sparse=0)

    def loss(q=None, k=None, v=None, p=None):
        out, _, _ = c.forward(pse_dev=golden.array(pse if p is None else p, "float32"), q=q, k=k, v=v, **kw)
        return float(np.sum(out * c.dy))

    c.forward(pse_dev=golden.array(pse, "float32"), **kw)
    dpse = golden.empty((B, N, S, Skv), "float32")
    dq, dk, dv = c.backward(pse_dev=golden.array(pse, "float32"), dpse_dev=dpse, **kw)
    grads = {"q": dq, "k": dk, "v": dv, "p": golden.read_float(dpse)}
    h = 1e-2
    for name, base in (("q", c.q), ("k", c.k), ("v", c.v), ("p", pse)):
        for idx in np.ndindex(base.shape):
            if name == "p" and rng.random() > 0.3:
                continue
            plus, minus = base.copy(), base.copy()
            plus[idx] += h
            minus[idx] -= h
            fd = (loss(**{name: plus}) - loss(**{name: minus})) / (2 * h)
            an = grads[name][idx]
            assert abs(fd - an) <= 1e-3 * (1 + abs(fd)), f"d{name}{idx}: analytic {an}, finite difference {fd}"


def test_extreme_scores_no_overflow(isa):
    rng = np.random.default_rng(2)
    c = Case(rng, 1, 2, 2, 4, 150, 64, "float16", "BNSD", amp=10.0)
    c.scale = 1.0
    # scores near 1000: the fp32 score's own rounding (2^-24 * 1000) moves each probability by
    # about 6e-5 of itself, which the gradients' bound takes as e = 2^-8
    c.check(f"large scores {isa}", grad_e=2.0 ** -8)


def test_empty_shapes():
    rng = np.random.default_rng(1)
    c = Case(rng, 1, 2, 2, 3, 0, 16, "float16", "BNSD")
    got, mx, sm = c.forward()
    assert np.all(got == 0) and np.all(mx == NEG_INF) and np.all(sm == 0)
    dq, dk, dv = c.backward()
    assert np.all(dq == 0) and dk.size == 0
    c = Case(rng, 0, 2, 2, 3, 5, 16, "float16", "BNSD")
    got, _, _ = c.forward()
    assert got.size == 0


@pytest.mark.parametrize("shape", [(2, 4, 2, 70, 150, 64)])
def test_deterministic_over_worker_counts(shape):
    script = f"""
import hashlib, numpy as np, golden
rng = np.random.default_rng(4)
B, N, Nkv, S, Skv, D = {shape}
arr = lambda *s: golden.array(rng.standard_normal(s), "bfloat16")
q, k, v, dy = arr(B, S, N, D), arr(B, Skv, Nkv, D), arr(B, Skv, Nkv, D), arr(B, S, N, D)
o = golden.empty((B, S, N, D), "bfloat16")
mx = golden.empty((B, N, S, 8), "float32")
sm = golden.empty((B, N, S, 8), "float32")
golden.call("aclnnFlashAttentionScore", q, k, v, None, None, None, None, None, 0.125, 1.0, {BIG}, {BIG}, N, "BSND",
            0, 0, mx, sm, None, o)
dq, dk, dv = golden.empty((B, S, N, D), "bfloat16"), golden.empty((B, Skv, Nkv, D), "bfloat16"), golden.empty((B, Skv, Nkv, D), "bfloat16")
golden.call("aclnnFlashAttentionScoreGrad", q, k, v, dy, None, None, None, None, mx, sm, None, o, None, 0.125, 1.0,
            {BIG}, {BIG}, N, "BSND", 0, 0, dq, dk, dv, None)
h = hashlib.sha256()
for t in (o, mx, sm, dq, dk, dv):
    h.update(golden.read(t).tobytes())
print(h.hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 2, 3, 8], timeout=120)
    assert len(set(outs)) == 1, outs


# ---- errors --------------------------------------------------------------------------------------

def _fwd_args(layout="BSND", dt="float16", B=1, N=2, Nkv=2, S=3, Skv=5, D=16, **over):
    a = dict(q=golden.array(np.zeros(lshape(layout, B, N, S, D)), dt),
             k=golden.array(np.zeros(lshape(layout, B, Nkv, Skv, D)), dt),
             v=golden.array(np.zeros(lshape(layout, B, Nkv, Skv, D)), dt), pse=None, drop=None, pad=None, mask=None,
             prefix=None, scale=1.0, kp=1.0, pre=BIG, nxt=BIG, heads=N, lay_str=layout, inner=0, sparse=0,
             mx=golden.empty((B, N, S, 8), "float32"), sm=golden.empty((B, N, S, 8), "float32"), so=None,
             out=golden.empty(lshape(layout, B, N, S, D), dt))
    a.update(over)
    return list(a.values())


def _err(args, code, words, op=FWD):
    assert golden.phase1_status(op, *args) == code
    msg = golden.recent_error()
    for w in words:
        assert w in msg, (w, msg)


def test_errors_forward():
    _err(_fwd_args(q=None), NULL, ["query"])
    _err(_fwd_args(mx=None), NULL, ["softmaxMaxOut"])
    _err(_fwd_args(out=None), NULL, ["attentionOutOut"])
    _err(_fwd_args(lay_str="TND"), INVALID, ["inputLayout"])
    _err(_fwd_args(heads=3), INVALID, ["headNum"])
    _err(_fwd_args(k=golden.array(np.zeros((1, 5, 3, 16)), "float16")), INVALID, ["key"])  # 3 heads do not divide 2
    _err(_fwd_args(v=golden.array(np.zeros((1, 6, 2, 16)), "float16")), INVALID, ["value"])
    _err(_fwd_args(k=golden.array(np.zeros((1, 5, 2, 16)), "float32")), INVALID, ["key"])  # dtype
    _err(_fwd_args(out=golden.empty((1, 3, 2, 8), "float16")), INVALID, ["attentionOutOut"])
    _err(_fwd_args(mx=golden.empty((1, 2, 3, 1), "float32")), INVALID, ["softmaxMaxOut"])
    _err(_fwd_args(mask=golden.array(np.zeros((3, 4), dtype=bool), "bool")), INVALID, ["attenMaskOptional"])
    _err(_fwd_args(mask=golden.array(np.zeros((3, 5), dtype=bool), "bool"), sparse=2), INVALID,
         ["attenMaskOptional", "2048"])
    _err(_fwd_args(mask=golden.array(np.zeros((3, 5), dtype=bool), "bool"), sparse=5), NULL, ["prefixOptional"])
    _err(_fwd_args(sparse=9), INVALID, ["sparseMode"])
    _err(_fwd_args(kp=0.0), INVALID, ["keepProb"])
    _err(_fwd_args(kp=0.5), NULL, ["dropMaskOptional"])
    _err(_fwd_args(kp=0.5, drop=golden.array(np.zeros(2), "uint8")), INVALID, ["dropMaskOptional"])
    _err(_fwd_args(pse=golden.array(np.zeros((1, 2, 3, 4)), "float16")), INVALID, ["pse"])
    _err(_fwd_args(mask=golden.array(np.zeros((3, 5), dtype=bool), "bool"), pre=-3, nxt=1), INVALID,
         ["preTokens"])
    a = _fwd_args(pse=golden.array(np.zeros((1, 2, 3, 5)), "float16"))
    a2 = a[:8] + [None, None] + a[8:16] + [2] + a[16:]
    _err(a2, INVALID, ["realShiftOptional", "FLOAT"], op=FWD2)  # pseType 2 takes FLOAT slopes
    a2 = a[:8] + [None, None] + a[8:16] + [4] + a[16:]
    _err(a2, INVALID, ["pseType"], op=FWD2)


def test_errors_backward():
    B, N, S, Skv, D = 1, 2, 3, 5, 16
    q = golden.array(np.zeros((B, S, N, D)), "float16")
    k = golden.array(np.zeros((B, Skv, N, D)), "float16")
    mx = golden.empty((B, N, S, 8), "float32")

    def args(**over):
        a = dict(q=q, k=k, v=k, dy=q, pse=None, drop=None, pad=None, mask=None, mx=mx, sm=mx, sin=None, o=q,
                 prefix=None, scale=1.0, kp=1.0, pre=BIG, nxt=BIG, heads=N, layout="BSND", inner=0, sparse=0,
                 dq=golden.empty((B, S, N, D), "float16"), dk=golden.empty((B, Skv, N, D), "float16"),
                 dv=golden.empty((B, Skv, N, D), "float16"), dpse=None)
        a.update(over)
        return list(a.values())
    assert golden.phase1_status(BWD, *args()) == 0
    _err(args(mx=None), NULL, ["softmaxMaxOptional"], BWD)
    _err(args(o=None), NULL, ["attentionInOptional"], BWD)
    _err(args(dk=golden.empty((B, Skv, N, 8), "float16")), INVALID, ["dkOut"], BWD)
    _err(args(dq=golden.empty((B, S, N, D), "float32")), INVALID, ["dqOut"], BWD)
    _err(args(dy=golden.array(np.zeros((B, S + 1, N, D)), "float16")), INVALID, ["dy"], BWD)
    pse = golden.array(np.zeros((1, N, S, Skv)), "float16")
    assert golden.phase1_status(BWD, *args(q=golden.array(np.zeros((2, S, N, D)), "float16"))) == INVALID
    _err(args(pse=golden.array(np.zeros((B, N, 1, Skv)), "float16"),
              dpse=golden.empty((B, N, 1, Skv), "float16")), INVALID, ["dpseOut"], BWD)
    assert golden.phase1_status(BWD, *args(pse=pse, dpse=golden.empty((1, N, S, Skv), "float16"))) == 0
