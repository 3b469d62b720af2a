"""Golden tests of aclnnFusedInferAttentionScoreV2 against a float64 numpy reference,
softmax(scale * Q K^T + pse, masked) V per batch and head, written from CANN's page.

Pass criteria, per output element, with the inputs' values as stored in the dtype and mag =
sum_j p_j |v_j| (the reference's weights):
- FLOAT16: |y - ref| <= 2^-10 |ref| + 2^-14 mag + 2^-24 (fp32 arithmetic, one rounding to fp16);
- BFLOAT16: |y - ref| <= 2^-7 |ref| + 2^-14 mag + 2^-133.
A row that sees no key is exactly 0. softmaxLse (fp32): |lse - ref| <= 2^-16 (1 + |ref|) + 2^-16 * the
row's largest |score|. Every layout (BSH, BSND, BNSD, BNSD_BSND), grouped-query ratios 1, 2, 4, head
dims 64, 80, 128 (and odd ones), decode (S = 1) and prefill, key lengths off the kernel's block,
masks of every dtype and shape, pseShift (with ggml's stride-0 head broadcast and -inf entries),
sparseMode 0-4 with preTokens / nextTokens, actual sequence lengths, strided views, every
instruction-set tier, determinism over worker counts, and the error paths (NULL -> 161001,
unsupported or bad arguments -> 161002).
"""
import hashlib

import numpy as np
import pytest

import golden

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
OP = "aclnnFusedInferAttentionScoreV2"
DTS = ["float16", "bfloat16"]
LAYOUTS = ["BSH", "BSND", "BNSD", "BNSD_BSND"]
BIG = 2147483647
NEG_INF = float("-inf")


# ---- reference -----------------------------------------------------------------------------------

def visible(S, Skv, sparse, pre, nxt, has_mask, qlen=None, kvlen=None):
    """[S, Skv] bool: keys row i may see under sparseMode / pre / next tokens (CANN's rules)."""
    qlen = S if qlen is None else qlen
    kvlen = Skv if kvlen is None else kvlen
    i = np.arange(S)[:, None]
    j = np.arange(Skv)[None, :]
    ok = (j < kvlen) & (i < qlen)
    if S == 1:
        return ok
    shift = kvlen - qlen
    if sparse == 0 and has_mask:
        ok &= (j - i >= -pre) & (j - i <= nxt)
    elif sparse == 2:
        ok &= j <= i
    elif sparse == 3:
        ok &= j - i <= shift
    elif sparse == 4:
        ok &= (j - i - shift >= -pre) & (j - i - shift <= nxt)
    return ok


def reference(q, k, v, scale, pse=None, masked=None, vis=None):
    """q [B,N,S,D], k/v [B,Nkv,Skv,D] float64; pse [B|1,N,S,Skv] additive; masked [B,N,S,Skv] bool
    (True = masked); vis [B,S,Skv] bool (visible). -> out [B,N,S,D], lse [B,N,S], mag, maxabs."""
    B, N, S, D = q.shape
    Nkv, Skv = k.shape[1], k.shape[2]
    G = N // Nkv
    kk = np.repeat(k, G, axis=1)
    vv = np.repeat(v, G, axis=1)
    s = np.einsum("bnsd,bnjd->bnsj", q, kk) * scale
    if pse is not None:
        s = s + pse[:, :, :S, :Skv]
    keep = np.ones(s.shape, dtype=bool)
    if masked is not None:
        keep &= ~masked
    if vis is not None:
        keep &= vis[:, None, :, :]
    s = np.where(keep, s, NEG_INF)
    mx = np.max(s, axis=-1, keepdims=True) if Skv else np.full(s.shape[:-1] + (1,), NEG_INF)
    empty = ~np.isfinite(mx)
    p = np.where(empty, 0.0, np.exp(s - np.where(empty, 0.0, mx)))
    l = p.sum(axis=-1, keepdims=True)
    w = np.where(l > 0, p / np.where(l > 0, l, 1.0), 0.0)
    out = np.einsum("bnsj,bnjd->bnsd", w, vv)
    mag = np.einsum("bnsj,bnjd->bnsd", w, np.abs(vv))
    with np.errstate(divide="ignore"):
        lse = np.where(l[..., 0] > 0, mx[..., 0] + np.log(np.where(l[..., 0] > 0, l[..., 0], 1.0)), NEG_INF)
    maxabs = np.max(np.where(keep, np.abs(s), 0.0), axis=-1) if Skv else np.zeros(s.shape[:-1])
    return out, lse, mag, maxabs


def check_out(got, ref, mag, dt, what=""):
    u, tiny = (2.0 ** -10, 2.0 ** -24) if dt == "float16" else (2.0 ** -7, 2.0 ** -133)
    bound = u * np.abs(ref) + 2.0 ** -14 * mag + tiny
    assert not np.any(np.isnan(got)), f"NaN in the output {what}"
    err = np.abs(got - ref)
    assert np.all(err <= bound), f"{what}: max excess {np.max(err - bound)} at {np.unravel_index(np.argmax(err - bound), err.shape)}"


def check_lse(got, ref, maxabs):
    fin = np.isfinite(ref)
    assert np.array_equal(np.isfinite(got), fin)
    assert np.all(got[~fin] == NEG_INF)
    bound = 2.0 ** -16 * (1 + np.abs(ref[fin])) + 2.0 ** -16 * maxabs[fin]
    assert np.all(np.abs(got[fin] - ref[fin]) <= bound), np.max(np.abs(got[fin] - ref[fin]) - bound)


# ---- layouts -------------------------------------------------------------------------------------

def to_layout(x, layout):
    """canonical [B,N,S,D] -> the layout's logical array."""
    if layout in ("BNSD", "BNSD_BSND"):
        return x
    bsnd = np.transpose(x, (0, 2, 1, 3))
    if layout == "BSND":
        return bsnd
    return bsnd.reshape(bsnd.shape[0], bsnd.shape[1], -1)


def from_layout(y, layout, N):
    """the output's logical array -> canonical [B,N,S,D]."""
    if layout == "BNSD":
        return y
    if layout == "BSH":
        y = y.reshape(y.shape[0], y.shape[1], N, -1)
    return np.transpose(y, (0, 2, 1, 3))


def out_shape(layout, B, N, S, D):
    return {"BSH": (B, S, N * D), "BSND": (B, S, N, D), "BNSD": (B, N, S, D), "BNSD_BSND": (B, S, N, D)}[layout]


def args(q, k, v, out, N, scale, layout="BSND", nkv=0, pse=None, mask=None, aseq=None, aseqkv=None, pre=BIG,
         nxt=BIG, sparse=0, inner=0, lse_flag=False, lse=None, extra=None):
    """The operator's 39 arguments; @extra: {index in the 17 unsupported optionals: value}."""
    opt = [None] * 17
    for i, x in (extra or {}).items():
        opt[i] = x
    kl = k if isinstance(k, list) or k is None else [k]
    vl = v if isinstance(v, list) or v is None else [v]
    return ([q, kl, vl, pse, mask, aseq, aseqkv] + opt +
            [N, scale, pre, nxt, layout, nkv, sparse, inner, 0, 0, lse_flag, 0, 0, out, lse])


def make(rng, B, N, Nkv, S, Skv, D, amp=1.0):
    q = rng.standard_normal((B, N, S, D)) * amp
    k = rng.standard_normal((B, Nkv, Skv, D)) * amp
    v = rng.standard_normal((B, Nkv, Skv, D))
    return q, k, v


def run(q, k, v, dt, layout="BSND", scale=None, pse=None, pse_dev=None, mask_dev=None, **kw):
    """Upload (rounded to @dt), call, return (canonical output, rounded q, k, v)."""
    B, N, S, D = q.shape
    Nkv = k.shape[1]
    scale = 1.0 / np.sqrt(D) if scale is None else scale
    qr, kr, vr = golden.rounded(q, dt), golden.rounded(k, dt), golden.rounded(v, dt)
    qa = golden.array(to_layout(q, layout), dt)
    ka = golden.array(to_layout(k, layout), dt)
    va = golden.array(to_layout(v, layout), dt)
    out = golden.empty(out_shape(layout, B, N, S, D), dt, fill=77)
    if pse is not None and pse_dev is None:
        pse_dev = golden.array(pse, dt)
    golden.call(OP, *args(qa, ka, va, out, N, scale, layout, Nkv if Nkv != N else 0, pse=pse_dev, mask=mask_dev,
                          **kw))
    return from_layout(golden.read_float(out), layout, N), qr, kr, vr, scale


# ---- tests ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("group", [1, 2, 4])
def test_layouts_gqa(isa, dt, layout, group):
    rng = np.random.default_rng(group)
    B, Nkv, S, Skv, D = 2, 2, 5, 70, 64
    q, k, v = make(rng, B, Nkv * group, Nkv, S, Skv, D)
    got, qr, kr, vr, scale = run(q, k, v, dt, layout)
    ref, _, mag, _ = reference(qr, kr, vr, scale)
    check_out(got, ref, mag, dt, f"{layout} G={group} {isa}")


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("D", [64, 80, 128, 40, 72, 7])
@pytest.mark.parametrize("S,Skv", [(1, 130), (33, 130), (70, 64), (3, 1)])
def test_head_dims_and_lengths(isa, dt, D, S, Skv):
    rng = np.random.default_rng(D + S)
    q, k, v = make(rng, 1, 4, 2, S, Skv, D)
    got, qr, kr, vr, scale = run(q, k, v, dt, "BNSD")
    ref, _, mag, _ = reference(qr, kr, vr, scale)
    check_out(got, ref, mag, dt, f"D={D} S={S} Skv={Skv} {isa}")


@pytest.mark.parametrize("group", [1, 8, 64])
def test_decode_many_groups(isa, group):
    rng = np.random.default_rng(group)
    q, k, v = make(rng, 3, group, 1, 1, 300, 128)
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BSND")
    ref, _, mag, _ = reference(qr, kr, vr, scale)
    check_out(got, ref, mag, "float16", f"G={group} {isa}")


MASK_SHAPES = {"SK": lambda B, N, S, K: (S, K), "BSK": lambda B, N, S, K: (B, S, K),
               "1SK": lambda B, N, S, K: (1, S, K), "B1SK": lambda B, N, S, K: (B, 1, S, K),
               "11SK": lambda B, N, S, K: (1, 1, S, K), "BNSK": lambda B, N, S, K: (B, N, S, K),
               "padded": lambda B, N, S, K: (B, 1, S + 3, K + 5)}


@pytest.mark.parametrize("mdt", ["bool", "int8", "uint8"])
@pytest.mark.parametrize("shape", list(MASK_SHAPES))
def test_masks(isa, mdt, shape):
    rng = np.random.default_rng(7)
    B, N, Nkv, S, Skv, D = 2, 4, 2, 6, 75, 64
    q, k, v = make(rng, B, N, Nkv, S, Skv, D)
    ms = MASK_SHAPES[shape](B, N, S, Skv)
    m = rng.random(ms) < 0.4
    if shape != "padded":
        m[..., 1, :] = True  # a fully masked row (every batch and head it reaches)
    mask_dev = golden.array(m.astype(np.uint8) if mdt != "bool" else m, mdt)
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BSND", mask_dev=mask_dev)
    full = (m[:, None] if m.ndim == 3 else m.reshape((1,) * (4 - m.ndim) + m.shape))[:, :, :S, :Skv]
    ref, _, mag, _ = reference(qr, kr, vr, scale, masked=np.broadcast_to(full, (B, N, S, Skv)))
    check_out(got, ref, mag, "float16", f"{mdt} {shape} {isa}")
    if shape != "padded":
        assert np.all(got[:, :, 1, :] == 0)


@pytest.mark.parametrize("shape", ["B,K", "B,1,K", "B,1,1,K"])
def test_decode_masks(isa, shape):
    rng = np.random.default_rng(3)
    B, N, Skv, D = 3, 4, 90, 64
    q, k, v = make(rng, B, N, N, 1, Skv, D)
    m = rng.random((B, Skv)) < 0.5
    m[1] = True  # batch 1 sees nothing: zeros
    dev = golden.array(m.reshape({"B,K": (B, Skv), "B,1,K": (B, 1, Skv), "B,1,1,K": (B, 1, 1, Skv)}[shape]), "bool")
    got, qr, kr, vr, scale = run(q, k, v, "bfloat16", "BNSD", mask_dev=dev)
    ref, _, mag, _ = reference(qr, kr, vr, scale, masked=np.broadcast_to(m[:, None, None, :], (B, N, 1, Skv)))
    check_out(got, ref, mag, "bfloat16", f"{shape} {isa}")
    assert np.all(got[1] == 0)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("form", ["BNSK", "1NSK", "ggml"])
def test_pse_shift(isa, dt, form):
    rng = np.random.default_rng(11)
    B, N, Nkv, S, Skv, D = 2, 4, 1, 9, 67, 80
    q, k, v = make(rng, B, N, Nkv, S, Skv, D)
    if form == "ggml":
        # ggml: one [S_pad, Skv] f16 mask (0 / -inf, causal) broadcast over heads with stride 0,
        # rows padded beyond S
        Sp = 16
        base = np.where(np.arange(Skv)[None, :] <= np.arange(Sp)[:, None] + (Skv - S), 0.0, NEG_INF)
        base[3, :] = NEG_INF  # a row that sees nothing
        store = golden.array(np.broadcast_to(base, (B, 1, Sp, Skv)).copy(), dt)
        pse_dev = store.view((B, N, Sp, Skv), [Sp * Skv, 0, Skv, 1], 0)
        pse = np.broadcast_to(base, (B, N, Sp, Skv))
    else:
        pse = rng.standard_normal((B if form == "BNSK" else 1, N, S, Skv))
        pse_dev = golden.array(pse, dt)
    pr = golden.rounded(pse, dt)
    got, qr, kr, vr, scale = run(q, k, v, dt, "BSND", pse_dev=pse_dev)
    ref, _, mag, _ = reference(qr, kr, vr, scale, pse=np.broadcast_to(pr, (B, N) + pr.shape[2:]))
    check_out(got, ref, mag, dt, f"{form} {isa}")
    if form == "ggml":
        assert np.all(got[:, :, 3, :] == 0)


@pytest.mark.parametrize("sparse,pre,nxt", [(0, 3, 0), (0, BIG, 2), (0, -1, 4), (1, 0, 0), (2, 0, 0), (3, 0, 0),
                                            (4, 5, 1), (4, 2, -1)])
@pytest.mark.parametrize("S,Skv", [(20, 20), (12, 40), (40, 12)])
def test_sparse_modes(isa, sparse, pre, nxt, S, Skv):
    rng = np.random.default_rng(sparse * 7 + S)
    B, N, D = 2, 2, 64
    q, k, v = make(rng, B, N, N, S, Skv, D)
    if sparse >= 2:
        m = np.triu(np.ones((2048, 2048), dtype=bool), 1)
        mdev = golden.array(m, "bool")
        masked = None
    else:
        m = rng.random((B, 1, S, Skv)) < 0.3
        mdev = golden.array(m, "bool")
        masked = np.broadcast_to(m, (B, N, S, Skv))
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", mask_dev=mdev, sparse=sparse, pre=pre, nxt=nxt)
    vis = np.broadcast_to(visible(S, Skv, sparse, pre, nxt, True), (B, S, Skv))
    ref, _, mag, _ = reference(qr, kr, vr, scale, masked=masked, vis=vis)
    check_out(got, ref, mag, "float16", f"sparse={sparse} pre={pre} next={nxt} {isa}")


def test_pre_next_ignored_without_mask_and_for_decode():
    rng = np.random.default_rng(5)
    q, k, v = make(rng, 1, 2, 2, 6, 30, 64)
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", pre=0, nxt=0)  # no mask: no band
    ref, _, mag, _ = reference(qr, kr, vr, scale)
    check_out(got, ref, mag, "float16")
    q, k, v = make(rng, 1, 2, 2, 1, 30, 64)
    m = golden.array(np.zeros((1, 30), dtype=bool), "bool")
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", mask_dev=m, pre=0, nxt=-5, sparse=9)
    ref, _, mag, _ = reference(qr, kr, vr, scale)
    check_out(got, ref, mag, "float16")


def test_softmax_lse(isa):
    rng = np.random.default_rng(8)
    B, N, Nkv, S, Skv, D = 2, 4, 2, 7, 100, 64
    q, k, v = make(rng, B, N, Nkv, S, Skv, D, amp=2.0)
    m = rng.random((B, 1, S, Skv)) < 0.3
    m[:, :, 2, :] = True
    lse = golden.empty((B, N, S, 1), "float32", fill=5)
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BSND", mask_dev=golden.array(m, "bool"), lse_flag=True,
                                 lse=lse)
    ref, rlse, mag, maxabs = reference(qr, kr, vr, scale, masked=np.broadcast_to(m, (B, N, S, Skv)))
    check_out(got, ref, mag, "float16")
    check_lse(golden.read_float(lse)[..., 0], rlse, maxabs)
    # without the flag a given softmaxLse is left as it is
    lse2 = golden.empty((B, N, S, 1), "float32", fill=5)
    run(q, k, v, "float16", "BSND", lse_flag=False, lse=lse2)
    assert np.all(golden.read_float(lse2) == 5)


def test_actual_seq_lengths(isa):
    rng = np.random.default_rng(9)
    B, N, S, Skv, D = 3, 2, 10, 50, 64
    q, k, v = make(rng, B, N, N, S, Skv, D)
    qlen, kvlen = [10, 4, 0], [50, 17, 30]
    got, qr, kr, vr, scale = run(q, k, v, "bfloat16", "BSND", aseq=qlen, aseqkv=kvlen)
    vis = np.stack([visible(S, Skv, 0, BIG, BIG, False, ql, kl) for ql, kl in zip(qlen, kvlen)])
    ref, _, mag, _ = reference(qr, kr, vr, scale, vis=vis)
    check_out(got, ref, mag, "bfloat16")
    # one value for every batch; sparseMode 3 counts from the actual lengths' corner
    m = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool")
    got, qr, kr, vr, scale = run(q, k, v, "bfloat16", "BSND", aseqkv=[20], mask_dev=m, sparse=3)
    vis = np.broadcast_to(visible(S, Skv, 3, 0, 0, True, S, 20), (B, S, Skv))
    ref, _, mag, _ = reference(qr, kr, vr, scale, vis=vis)
    check_out(got, ref, mag, "bfloat16")


def test_strided_views(isa):
    """ggml's views: q of a permuted [B,N,S,D] storage seen as BSND, k/v from a cache [B,Skv_cap,Nkv,D]
    holding more keys than used, an output with gaps."""
    rng = np.random.default_rng(12)
    B, N, Nkv, S, Skv, D, cap = 2, 4, 2, 5, 37, 64, 48
    q, k, v = make(rng, B, N, Nkv, S, Skv, D)
    dt = "float16"
    qa = golden.array(q, dt)  # contiguous BNSD storage, viewed as BSND
    qv = qa.view((B, S, N, D), [N * S * D, D, S * D, 1], 0)
    kc = np.zeros((B, cap, Nkv, D))
    vc = np.zeros((B, cap, Nkv, D))
    kc[:, :Skv] = np.transpose(k, (0, 2, 1, 3))
    vc[:, :Skv] = np.transpose(v, (0, 2, 1, 3))
    ka = golden.array(kc, dt).view((B, Skv, Nkv, D), [cap * Nkv * D, Nkv * D, D, 1], 0)
    va = golden.array(vc, dt).view((B, Skv, Nkv, D), [cap * Nkv * D, Nkv * D, D, 1], 0)
    out = golden.empty((B, S, N, D), dt, layout="strided", fill=3)
    golden.call(OP, *args(qv, ka, va, out, N, 0.125, "BSND", Nkv))
    got = np.transpose(golden.read_float(out), (0, 2, 1, 3))
    ref, _, mag, _ = reference(golden.rounded(q, dt), golden.rounded(k, dt), golden.rounded(v, dt), 0.125)
    check_out(got, ref, mag, dt)


def test_empty_keys_and_empty_output():
    rng = np.random.default_rng(1)
    q, k, v = make(rng, 2, 2, 2, 3, 0, 64)
    got, *_ = run(q, k, v, "float16", "BNSD")
    assert np.all(got == 0)
    q, k, v = make(rng, 0, 2, 2, 3, 5, 64)
    got, *_ = run(q, k, v, "float16", "BNSD")
    assert got.size == 0


def test_extreme_scores_no_overflow(isa):
    """Large logits (fp16 q, k near 100) stay finite: the running max keeps exp in range."""
    rng = np.random.default_rng(2)
    q, k, v = make(rng, 1, 2, 2, 4, 150, 64, amp=10.0)
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", scale=1.0)
    ref, _, mag, _ = reference(qr, kr, vr, 1.0)
    check_out(got, ref, mag, "float16")


def test_nan_propagates(isa):
    """A NaN in a query row makes that row NaN; a NaN key makes every row that sees it NaN; a row
    that does not see it stays exact."""
    rng = np.random.default_rng(6)
    B, N, S, Skv, D = 1, 2, 6, 40, 64
    q, k, v = make(rng, B, N, N, S, Skv, D)
    q[0, 0, 1, 5] = np.nan
    k[0, 1, 30, 7] = np.nan
    m = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool")
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", mask_dev=m, sparse=3)  # row i sees j <= i + 34
    assert np.all(np.isnan(got[0, 0, 1]))
    assert np.all(np.isnan(got[0, 1, 0:]))  # every row of head 1 sees key 30
    qr[0, 0, 1, 5] = 0.0
    kr[0, 1, 30, 7] = 0.0
    vis = np.broadcast_to(visible(S, Skv, 3, 0, 0, True), (B, S, Skv))
    ref, _, mag, _ = reference(qr, kr, vr, scale, vis=vis)
    rows = [0, 2, 3, 4, 5]
    check_out(got[0, 0, rows], ref[0, 0, rows], mag[0, 0, rows], "float16")


@pytest.mark.parametrize("case", ["decode_gqa", "prefill_causal", "masked_chunk"])
def test_key_split(isa, case):
    """Few units and long keys: the keys are cut into chunks combined afterwards."""
    rng = np.random.default_rng(13)
    if case == "decode_gqa":  # 1 unit, 8 query heads on one key/value head, 5000 keys
        B, N, Nkv, S, Skv, D, dt = 1, 8, 1, 1, 5000, 128, "float16"
    elif case == "prefill_causal":
        B, N, Nkv, S, Skv, D, dt = 2, 2, 2, 3, 1500, 64, "bfloat16"
    else:
        B, N, Nkv, S, Skv, D, dt = 1, 4, 2, 1, 2100, 80, "float16"
    q, k, v = make(rng, B, N, Nkv, S, Skv, D)
    lse = golden.empty((B, N, S, 1), "float32")
    kw = dict(lse_flag=True, lse=lse)
    masked = vis = None
    if case == "prefill_causal":
        kw.update(mask_dev=golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool"), sparse=3)
        vis = np.broadcast_to(visible(S, Skv, 3, 0, 0, True), (B, S, Skv))
    if case == "masked_chunk":
        m = np.zeros((B, Skv), dtype=bool)
        m[:, :1400] = True  # whole chunks see nothing
        kw.update(mask_dev=golden.array(m, "bool"))
        masked = np.broadcast_to(m[:, None, None, :], (B, N, S, Skv))
    got, qr, kr, vr, scale = run(q, k, v, dt, "BSND", **kw)
    ref, rlse, mag, maxabs = reference(qr, kr, vr, scale, masked=masked, vis=vis)
    check_out(got, ref, mag, dt, f"{case} {isa}")
    check_lse(golden.read_float(lse)[..., 0], rlse, maxabs)


def test_key_split_nan_and_empty_rows():
    rng = np.random.default_rng(14)
    B, N, S, Skv, D = 1, 2, 1, 3000, 64
    q, k, v = make(rng, B, N, N, S, Skv, D)
    k[0, 0, 2500, 3] = np.nan
    m = np.zeros((B, Skv), dtype=bool)
    m[0, :] = True
    m[0, 2400:2600] = False  # head 0 sees the NaN key, only the last chunks see anything
    got, qr, kr, vr, scale = run(q, k, v, "float16", "BNSD", mask_dev=golden.array(m, "bool"))
    assert np.all(np.isnan(got[0, 0]))
    kr[0, 0, 2500, 3] = 0.0
    ref, _, mag, _ = reference(qr, kr, vr, scale, masked=np.broadcast_to(m[:, None, None, :], (B, N, S, Skv)))
    check_out(got[0, 1], ref[0, 1], mag[0, 1], "float16")
    m[0, :] = True
    got, *_ = run(q, k, v, "float16", "BNSD", mask_dev=golden.array(m, "bool"))
    assert np.all(got == 0)


@pytest.mark.parametrize("shape", [(2, 8, 2, 40, 300, 64), (1, 4, 1, 1, 3000, 64)])
def test_deterministic_over_worker_counts(shape):
    script = f"""
import hashlib, numpy as np, golden
rng = np.random.default_rng(4)
B, N, Nkv, S, Skv, D = {shape}
q = golden.array(rng.standard_normal((B, S, N, D)), "bfloat16")
k = golden.array(rng.standard_normal((B, Skv, Nkv, D)), "bfloat16")
v = golden.array(rng.standard_normal((B, Skv, Nkv, D)), "bfloat16")
o = golden.empty((B, S, N, D), "bfloat16")
golden.call("aclnnFusedInferAttentionScoreV2", q, [k], [v], None, None, None, None, *([None] * 17), N, 0.125,
            2147483647, 2147483647, "BSND", Nkv, 0, 0, 0, 0, False, 0, 0, o, None)
print(hashlib.sha256(golden.read(o).tobytes()).hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 2, 3, 8], timeout=120)
    assert len(set(outs)) == 1, outs


# ---- errors --------------------------------------------------------------------------------------

def _base(dt="float16", layout="BSND", B=1, N=2, Nkv=2, S=3, Skv=5, D=16):
    shp = {"BSND": lambda n, s: (B, s, n, D), "BNSD": lambda n, s: (B, n, s, D), "BSH": lambda n, s: (B, s, n * D),
           "BNSD_BSND": lambda n, s: (B, n, s, D)}[layout]
    q = golden.array(np.zeros(shp(N, S)), dt)
    k = golden.array(np.zeros(shp(Nkv, Skv)), dt)
    v = golden.array(np.zeros(shp(Nkv, Skv)), dt)
    o = golden.empty(out_shape(layout, B, N, S, D), dt)
    return q, k, v, o


def test_null_arguments():
    q, k, v, o = _base()
    for i in (0, 1, 2):
        a = args(q, k, v, o, 2, 1.0)
        a[i] = None
        assert golden.status(OP, *a) == NULL
    a = args(q, k, v, None, 2, 1.0)
    assert golden.status(OP, *a) == NULL
    assert golden.status(OP, *args(q, [None], v, o, 2, 1.0)) == NULL
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, lse_flag=True, lse=None)) == NULL
    assert golden.phase1_status(OP, *args(q, k, v, o, 2, 1.0), null_executor=True) == NULL


def test_unsupported_optionals():
    q, k, v, o = _base()
    t = golden.array(np.zeros(4), "float32")
    for i in range(16):
        assert golden.phase1_status(OP, *args(q, k, v, o, 2, 1.0, extra={i: t})) == INVALID, i
        assert "not supported" in golden.recent_error()
    assert golden.phase1_status(OP, *args(q, k, v, o, 2, 1.0, extra={16: [1]})) == INVALID
    assert "actualSharedPrefixLenOptional is not supported" in golden.recent_error()


def test_bad_dtypes():
    for dt in ("float32", "int8", "float64"):
        q, k, v, o = _base(dt)
        assert golden.status(OP, *args(q, k, v, o, 2, 1.0)) == INVALID
    q, k, v, o = _base()
    _, kb, vb, ob = _base("bfloat16")
    assert golden.status(OP, *args(q, kb, v, o, 2, 1.0)) == INVALID
    assert golden.status(OP, *args(q, k, vb, o, 2, 1.0)) == INVALID
    assert golden.status(OP, *args(q, k, v, ob, 2, 1.0)) == INVALID
    pse = golden.array(np.zeros((1, 2, 3, 5)), "bfloat16")
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, pse=pse)) == INVALID
    m = golden.array(np.zeros((3, 5)), "float16")
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, mask=m)) == INVALID
    lse = golden.empty((1, 2, 3, 1), "float16")
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, lse_flag=True, lse=lse)) == INVALID


def test_bad_shapes_and_values():
    q, k, v, o = _base()
    bad = [
        dict(layout="TND"), dict(layout="bsnd"), dict(layout=""),
        dict(N=3), dict(N=0), dict(nkv=3), dict(nkv=-1),
        dict(sparse=5), dict(sparse=9), dict(sparse=-1), dict(inner=4),
        dict(sparse=1),  # needs a mask
        dict(aseq=[4]), dict(aseqkv=[6]), dict(aseq=[-1]),
    ]
    for kw in bad:
        n = kw.pop("N", 2)
        lay = kw.pop("layout", "BSND")
        assert golden.status(OP, *args(q, k, v, o, n, 1.0, lay, **kw)) == INVALID, (n, lay, kw)
    assert golden.phase1_status(OP, *args(q, k, v, o, 2, 1.0, "TND")) == INVALID
    assert "inputLayout \"TND\" is not supported" in golden.recent_error()
    assert golden.phase1_status(OP, *args(q, k, v, o, 2, 1.0, sparse=6)) == INVALID
    assert "sparseMode 6" in golden.recent_error()
    # layout / rank disagreement, key heads, batch, out shape, lists of two tensors
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, "BSH")) == INVALID
    _, k1, v1, _ = _base(Nkv=1)
    assert golden.status(OP, *args(q, k1, v1, o, 2, 1.0, "BSND", 2)) == INVALID
    assert golden.status(OP, *args(q, k1, v, o, 2, 1.0, "BSND", 1)) == INVALID
    _, kB, vB, _ = _base(B=2)
    assert golden.status(OP, *args(q, kB, vB, o, 2, 1.0)) == INVALID
    o2 = golden.empty((1, 3, 2, 8), "float16")
    assert golden.status(OP, *args(q, k, v, o2, 2, 1.0)) == INVALID
    assert golden.status(OP, *args(q, [k, k], [v, v], o, 2, 1.0)) == INVALID
    # pse / mask / lse shapes
    for shp in [(1, 1, 3, 5), (2, 2, 3, 5), (1, 2, 2, 5), (1, 2, 3, 4), (2, 3, 5)]:
        pse = golden.array(np.zeros(shp), "float16")
        assert golden.status(OP, *args(q, k, v, o, 2, 1.0, pse=pse)) == INVALID, shp
    for shp in [(2, 5), (3, 4), (2, 3, 5), (1, 3, 3, 5), (5,), (1, 1, 1, 3, 5)]:
        m = golden.array(np.zeros(shp, dtype=bool), "bool")
        assert golden.status(OP, *args(q, k, v, o, 2, 1.0, mask=m)) == INVALID, shp
    m = golden.array(np.zeros((3, 5), dtype=bool), "bool")
    assert golden.status(OP, *args(q, k, v, o, 2, 1.0, mask=m, sparse=2)) == INVALID  # not the 2048 mask
    for shp in [(1, 2, 3), (1, 2, 3, 2), (1, 3, 2, 1)]:
        lse = golden.empty(shp, "float32")
        assert golden.status(OP, *args(q, k, v, o, 2, 1.0, lse_flag=True, lse=lse)) == INVALID, shp
    # BSH: H not a multiple of numHeads; D above 512
    qh, kh, vh, oh = _base(layout="BSH")
    assert golden.status(OP, *args(qh, kh, vh, oh, 2, 1.0, "BSH")) == 0
    assert golden.status(OP, *args(qh, kh, vh, oh, 3, 1.0, "BSH")) == INVALID
    qd, kd, vd, od = _base(D=520)
    assert golden.status(OP, *args(qd, kd, vd, od, 2, 1.0)) == INVALID
