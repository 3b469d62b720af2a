"""Golden tests of the variable-length flash attention operators (aclnnFlashAttentionVarLenScore(V2),
aclnnFlashAttentionUnpaddingScoreGrad(V2): inputLayout TND with cumulative sequence lengths), of
sparseMode 5-8 (prefix and split-causal masks) and of the generated pse of pseType 2 and 3, against
the float64 references of test_attention_fas.py, with the same pass criteria.

References written from CANN's pages: each sequence b of a TND batch attends to its own keys only,
rows q0_b .. q0_b + Sq_b against keys kv0_b .. kv0_b + Skv_b, with masks and sparse rules applied
within the sequence; sparseMode 5 / 6: right-down causal plus the first prefix[b] keys of every
row; 7: every sequence right-down causal but the last non-empty one, a right-down band of
preTokens / nextTokens; 8: every sequence left-up causal but the first non-empty one, the band;
pseType 2: pse_ij = -slope_n |j - i + kvStartIdx - qStartIdx| added after the scale, 3: its square
root.
"""
import numpy as np
import pytest

import golden
from test_attention_fas import (BIG, DTS, GRAD_E, NEG_INF, backward_ref, check_grad, check_out, check_stats,
                                forward_ref, pack_keep)

VFWD, VBWD = "aclnnFlashAttentionVarLenScore", "aclnnFlashAttentionUnpaddingScoreGrad"
VFWD2, VBWD2 = "aclnnFlashAttentionVarLenScoreV2", "aclnnFlashAttentionUnpaddingScoreGradV2"
FWD2, BWD2 = "aclnnFlashAttentionScoreV2", "aclnnFlashAttentionScoreGradV2"
INVALID, NULL = golden.PARAM_INVALID, golden.PARAM_NULLPTR
OPT = np.triu(np.ones((2048, 2048), dtype=bool), 1)


def seen(Sq, Skv, mode, pre=BIG, nxt=BIG, prefix=0):
    """[Sq, Skv] bool: the keys row i sees in one sequence under a per-sequence rule (0, 1, 2, 3, 4,
    or 'prefix': right-down causal plus the first @prefix keys)."""
    i = np.arange(Sq)[:, None]
    j = np.arange(Skv)[None, :]
    d = j - i
    sh = Skv - Sq
    if mode == 1:
        return np.ones((Sq, Skv), dtype=bool)
    if mode == 0:
        return (d >= -pre) & (d <= nxt)
    if mode == 2:
        return d <= 0
    if mode == 3:
        return d - sh <= 0
    if mode == 4:
        return (d - sh >= -pre) & (d - sh <= nxt)
    return (d - sh <= 0) | (j < prefix)


def alibi(Sq, Skv, slope, typ, off):
    pos = np.abs(np.arange(Skv)[None, :] + off - np.arange(Sq)[:, None]).astype(np.float32)
    if typ == 3:
        pos = np.sqrt(pos)
    return (pos * np.float32(-slope)).astype(np.float64)


class VarCase:
    """B packed sequences in TND: canonical per-sequence float64 inputs and their packed device copies."""

    def __init__(self, rng, qlens, kvlens, N, Nkv, D, dt):
        self.qlens, self.kvlens, self.N, self.Nkv, self.D, self.dt = list(qlens), list(kvlens), N, Nkv, D, dt
        self.B = len(qlens)
        self.cq, self.ck = np.cumsum(qlens).tolist(), np.cumsum(kvlens).tolist()
        self.T, self.Tkv = int(sum(qlens)), int(sum(kvlens))
        r = lambda *s: golden.rounded(rng.standard_normal(s), dt)
        self.q, self.k, self.v, self.dy = r(self.T, N, D), r(self.Tkv, Nkv, D), r(self.Tkv, Nkv, D), r(self.T, N, D)
        self.scale = 1.0 / np.sqrt(D)

    def seq(self, b):
        q0, k0 = self.cq[b] - self.qlens[b], self.ck[b] - self.kvlens[b]
        return slice(q0, self.cq[b]), slice(k0, self.ck[b])

    def canon(self, x):  # [S, N, D] -> [1, N, S, D]
        return np.transpose(x, (1, 0, 2))[None]

    def run(self, fwd, bwd, pre=BIG, nxt=BIG, sparse=0, mask=None, prefix=None, pse=None, pse_type=None,
            qstart=None, kvstart=None, drop=None, kp=1.0):
        N, Nkv, D, dt = self.N, self.Nkv, self.D, self.dt
        out = golden.empty((self.T, N, D), dt, fill=77)
        mx = golden.empty((self.T, N, 8), "float32", fill=5)
        sm = golden.empty((self.T, N, 8), "float32", fill=5)
        qa, ka, va = golden.array(self.q, dt), golden.array(self.k, dt), golden.array(self.v, dt)
        v2 = pse_type is not None
        head = [qa, ka, va, pse, drop, None, mask, prefix, self.cq, self.ck]
        tail = [self.scale, kp, pre, nxt, N, "TND", 0, sparse]
        if v2:
            golden.call(fwd, *head, qstart, kvstart, *tail, pse_type, mx, sm, None, out)
        else:
            golden.call(fwd, *head, *tail, mx, sm, None, out)
        dq = golden.empty((self.T, N, D), dt, fill=77)
        dk = golden.empty((self.Tkv, Nkv, D), dt, fill=77)
        dv = golden.empty((self.Tkv, Nkv, D), dt, fill=77)
        bh = [qa, ka, va, golden.array(self.dy, dt), pse, drop, None, mask, mx, sm, None, out, prefix, self.cq,
              self.ck]
        if v2:
            golden.call(bwd, *bh, qstart, kvstart, *tail, pse_type, dq, dk, dv, None)
        else:
            golden.call(bwd, *bh, *tail, dq, dk, dv, None)
        return [golden.read_float(t) for t in (out, mx, sm, dq, dk, dv)]

    def check(self, got, what, hidden_of, pse_of=None, keep_of=None, kp=1.0):
        """@hidden_of(b) -> [N or 1, Sq, Skv] bool per sequence; @pse_of(b) -> [N, Sq, Skv] (after the
        scale); @keep_of(b) -> [N, Sq, Skv] keep bits."""
        out, mx, sm, dq, dk, dv = got
        for b in range(self.B):
            qs, ks = self.seq(b)
            Sq, Skv = self.qlens[b], self.kvlens[b]
            if Sq == 0:
                assert np.all(dk[ks] == 0) and np.all(dv[ks] == 0), f"{what} b={b}: keys no row sees"
                continue
            q, k, v, dy = self.canon(self.q[qs]), self.canon(self.k[ks]), self.canon(self.v[ks]), self.canon(self.dy[qs])
            hid = hidden_of(b)[None] if hidden_of else None
            if hid is not None:
                hid = np.broadcast_to(hid, (1, self.N, Sq, Skv))
            pse = pse_of(b)[None] if pse_of else None
            keep = keep_of(b)[None] if keep_of else None
            f = forward_ref(q, k, v, self.scale, pse, False, hid, keep, kp)
            w = f"{what} b={b}"
            check_out(self.canon(out[qs]), f, self.dt, w)
            check_stats(np.transpose(mx[qs], (1, 0, 2))[None], np.transpose(sm[qs], (1, 0, 2))[None], f, w)
            g = backward_ref(q, k, v, dy, f, self.scale, False)
            for name, x in (("dq", dq[qs]), ("dk", dk[ks]), ("dv", dv[ks])):
                check_grad(self.canon(x), g[name], g["mag"][name], self.dt, f"{name} {w}")


LENS = [([3, 1, 0, 7, 5, 64], [4, 1, 2, 7, 9, 70]), ([1], [1]), ([33, 2], [33, 97])]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("lens", LENS)
def test_varlen_full(isa, dt, lens):
    rng = np.random.default_rng(len(lens[0]))
    c = VarCase(rng, lens[0], lens[1], 4, 2, 64, dt)
    c.check(c.run(VFWD, VBWD), f"TND {dt} {isa}", None)


@pytest.mark.parametrize("sparse", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("D", [20, 128])
def test_varlen_sparse_modes(isa, sparse, D):
    rng = np.random.default_rng(sparse + D)
    qlens, kvlens = [5, 0, 9, 1, 12], [7, 3, 9, 4, 10]
    c = VarCase(rng, qlens, kvlens, 2, 1, D, "float32")
    pre, nxt = (3, 1) if sparse in (0, 4) else (BIG, BIG)
    if sparse in (0, 1):
        S, Skv = max(qlens), max(kvlens)
        m = rng.random((S, Skv)) < 0.3
        if sparse == 0:
            m |= ~seen(S, Skv, 0, pre, nxt)
        mask = golden.array(m, "bool")
        hid = lambda b: m[:qlens[b], :kvlens[b]][None]
    else:
        mask = golden.array(OPT, "bool")
        hid = lambda b: ~seen(qlens[b], kvlens[b], sparse, pre, nxt)[None]
    c.check(c.run(VFWD, VBWD, pre=pre, nxt=nxt, sparse=sparse, mask=mask), f"TND sparse {sparse} {isa}", hid)


def test_varlen_split_causal_modes():
    """sparseMode 7 (the last non-empty sequence a band) and 8 (the first), CANN's examples among them."""
    rng = np.random.default_rng(7)
    mask = golden.array(OPT, "bool")
    for sparse, qlens, kvlens, pre, nxt in ((7, [3, 2], [3, 6], 6, -2), (7, [2, 5, 4, 0], [6, 5, 4, 3], 4, -1),
                                             (8, [3, 3, 4], [4, 5, 4], 4, 1), (8, [0, 2, 5], [3, 3, 6], 3, 1)):
        c = VarCase(rng, qlens, kvlens, 2, 2, 32, "float32")
        live = [b for b in range(len(qlens)) if qlens[b] > 0]
        band = live[-1] if sparse == 7 else live[0]

        def hid(b):
            rule = 4 if b == band else (3 if sparse == 7 else 2)
            return ~seen(qlens[b], kvlens[b], rule, pre, nxt)[None]
        c.check(c.run(VFWD, VBWD, pre=pre, nxt=nxt, sparse=sparse, mask=mask), f"sparse {sparse} {qlens}", hid)


def test_varlen_prefix_mode6_gqa_bf16():
    rng = np.random.default_rng(6)
    qlens, kvlens, prefix = [4, 6, 1], [9, 6, 5], [6, 3, 4]
    c = VarCase(rng, qlens, kvlens, 4, 1, 64, "bfloat16")
    mask = golden.array(np.zeros((3072, 2048), dtype=bool), "bool")
    hid = lambda b: ~seen(qlens[b], kvlens[b], "prefix", prefix=prefix[b])[None]
    c.check(c.run(VFWD, VBWD, sparse=6, mask=mask, prefix=prefix), "TND prefix", hid)


@pytest.mark.parametrize("pse_type", [2, 3])
def test_varlen_generated_pse_and_dropout(pse_type):
    rng = np.random.default_rng(pse_type)
    qlens, kvlens = [6, 9, 3], [6, 9, 3]
    N = 4
    c = VarCase(rng, qlens, kvlens, N, 2, 64, "float32")
    slopes = rng.random((len(qlens), N)).astype(np.float32)
    keep = [rng.random((N, qlens[b], kvlens[b])) < 0.8 for b in range(len(qlens))]
    drop = golden.array(pack_keep(np.concatenate([k.reshape(-1) for k in keep])), "uint8")
    mask = golden.array(OPT, "bool")
    got = c.run(VFWD2, VBWD2, sparse=3, mask=mask, pse=golden.array(slopes, "float32"), pse_type=pse_type,
                qstart=[2], kvstart=[5], drop=drop, kp=0.8)
    pse_of = lambda b: np.stack([alibi(qlens[b], kvlens[b], slopes[b, n], pse_type, 3) for n in range(N)])
    c.check(got, f"TND pseType {pse_type}", lambda b: ~seen(qlens[b], kvlens[b], 3)[None], pse_of,
            lambda b: keep[b], 0.8)


def _bsnd_run(rng, B, N, S, Skv, D, sparse, mask, prefix=None, pse=None, pse_type=1, qstart=None, kvstart=None,
              pre=BIG, nxt=BIG):
    dt = "float32"
    r = lambda *s: golden.rounded(rng.standard_normal(s), dt)
    q, k, v, dy = r(B, S, N, D), r(B, Skv, N, D), r(B, Skv, N, D), r(B, S, N, D)
    out = golden.empty((B, S, N, D), dt)
    mx, sm = golden.empty((B, N, S, 8), "float32"), golden.empty((B, N, S, 8), "float32")
    scale = 1.0 / np.sqrt(D)
    qa, ka, va = golden.array(q, dt), golden.array(k, dt), golden.array(v, dt)
    golden.call(FWD2, qa, ka, va, pse, None, None, mask, prefix, qstart, kvstart, scale, 1.0, pre, nxt, N, "BSND", 0,
                sparse, pse_type, mx, sm, None, out)
    dq, dk, dv = golden.empty((B, S, N, D), dt), golden.empty((B, Skv, N, D), dt), golden.empty((B, Skv, N, D), dt)
    golden.call(BWD2, qa, ka, va, golden.array(dy, dt), pse, None, None, mask, mx, sm, None, out, prefix, qstart,
                kvstart, scale, 1.0, pre, nxt, N, "BSND", 0, sparse, pse_type, dq, dk, dv, None)
    t = lambda x: np.transpose(x, (0, 2, 1, 3))
    return (t(q), t(k), t(v), t(dy), scale), [golden.read_float(x) for x in (out, mx, sm, dq, dk, dv)]


def _bsnd_check(inp, got, hidden, pse, what):
    q, k, v, dy, scale = inp
    out, mx, sm, dq, dk, dv = got
    t = lambda x: np.transpose(x, (0, 2, 1, 3))
    f = forward_ref(q, k, v, scale, pse, False, hidden)
    check_out(t(out), f, "float32", what)
    check_stats(mx, sm, f, what)
    g = backward_ref(q, k, v, dy, f, scale, False)
    for name, x in (("dq", dq), ("dk", dk), ("dv", dv)):
        check_grad(t(x), g[name], g["mag"][name], "float32", f"{name} {what}")


@pytest.mark.parametrize("sparse", [5, 6])
def test_prefix_modes_bsnd(isa, sparse):
    rng = np.random.default_rng(sparse)
    B, N, S, Skv, D = 2, 2, 9, 13, 64
    prefix = [5, 11]
    rule = np.stack([seen(S, Skv, "prefix", prefix=p) for p in prefix])[:, None]  # [B,1,S,Skv]
    if sparse == 5:  # the full mask [B,1,S,Skv] is read as well: it hides a few more keys
        m = ~rule | (rng.random((B, 1, S, Skv)) < 0.2)
        mask, hidden = golden.array(m, "bool"), np.broadcast_to(m, (B, N, S, Skv))
    else:
        mask, hidden = golden.array(np.zeros((3072, 2048), dtype=bool), "bool"), np.broadcast_to(~rule, (B, N, S, Skv))
    inp, got = _bsnd_run(rng, B, N, S, Skv, D, sparse, mask, prefix)
    _bsnd_check(inp, got, hidden, None, f"sparse {sparse} {isa}")


@pytest.mark.parametrize("pse_type", [2, 3])
@pytest.mark.parametrize("form", ["N", "BN"])
def test_generated_pse_bsnd(isa, pse_type, form):
    rng = np.random.default_rng(pse_type)
    B, N, S, D = 2, 4, 17, 80
    slopes = (rng.random((B, N)) if form == "BN" else np.broadcast_to(rng.random(N), (B, N))).astype(np.float32)
    dev = golden.array(slopes if form == "BN" else slopes[0].copy(), "float32")
    inp, got = _bsnd_run(rng, B, N, S, S, D, 0, None, pse=dev, pse_type=pse_type, qstart=[4], kvstart=[1])
    pse = np.stack([np.stack([alibi(S, S, slopes[b, n], pse_type, -3) for n in range(N)]) for b in range(B)])
    _bsnd_check(inp, got, None, pse, f"pseType {pse_type} {form} {isa}")


def test_errors():
    rng = np.random.default_rng(0)
    c = VarCase(rng, [2, 3], [2, 4], 2, 2, 16, "float32")
    f32 = lambda x: golden.array(x, "float32")
    q, k, v = f32(c.q), f32(c.k), f32(c.v)
    mx, sm, out = golden.empty((5, 2, 8), "float32"), golden.empty((5, 2, 8), "float32"), golden.empty((5, 2, 16), "float32")

    def st(name, *args):
        code = golden.phase1_status(name, *args)
        return code, golden.recent_error()

    def fwd(layout="TND", cq=(2, 5), ck=(2, 6), sparse=0, mask=None, prefix=None, mxo=mx, api=VFWD):
        return st(api, q, k, v, None, None, None, mask, prefix, None if cq is None else list(cq),
                  None if ck is None else list(ck), 0.25, 1.0, BIG, BIG, 2, layout, 0, sparse, mxo, sm, None, out)

    assert fwd()[0] == 0
    code, msg = fwd(layout="BSND")
    assert code == INVALID and "TND" in msg
    code, msg = fwd(cq=None)
    assert code == NULL and "actualSeqQLenOptional" in msg
    code, msg = fwd(cq=(2, 4))
    assert code == INVALID and "actualSeqQLenOptional" in msg
    code, msg = fwd(ck=(3, 2))
    assert code == INVALID and "actualSeqKvLenOptional" in msg
    code, msg = fwd(ck=(2,))
    assert code == INVALID and "actualSeqKvLenOptional" in msg
    code, msg = fwd(mxo=golden.empty((2, 5, 8), "float32"))
    assert code == INVALID and "softmaxMaxOut" in msg
    code, msg = fwd(sparse=5, mask=golden.array(np.zeros((3, 4), dtype=bool), "bool"), prefix=[2, 4])
    assert code == INVALID and "sparseMode 5" in msg
    code, msg = fwd(sparse=6, mask=golden.array(np.zeros((3072, 2048), dtype=bool), "bool"))
    assert code == NULL and "prefixOptional" in msg
    code, msg = fwd(sparse=6, mask=golden.array(np.zeros((3072, 2048), dtype=bool), "bool"), prefix=[0, 0])
    assert code == INVALID and "prefixOptional[1]" in msg
    code, msg = fwd(sparse=7, mask=golden.array(np.zeros((2048, 2048), dtype=bool), "bool"))
    assert code == 0
    # TND through the fixed-length entry, sparseMode 7 without TND
    code, msg = st(FWD2, q, k, v, None, None, None, None, None, None, None, 0.25, 1.0, BIG, BIG, 2, "TND", 0, 0, 1,
                   mx, sm, None, out)
    assert code == INVALID and "VarLen" in msg
    b4 = lambda *s: golden.array(np.zeros(s), "float32")
    code, msg = st(FWD2, b4(1, 3, 2, 16), b4(1, 3, 2, 16), b4(1, 3, 2, 16), None, None, None,
                   golden.array(OPT, "bool"), None, None, None, 0.25, 1.0, BIG, BIG, 2, "BSND", 0, 7, 1,
                   golden.empty((1, 2, 3, 8), "float32"), golden.empty((1, 2, 3, 8), "float32"), None,
                   golden.empty((1, 3, 2, 16), "float32"))
    assert code == INVALID and "TND" in msg
    # slopes of the wrong shape or dtype
    code, msg = st(FWD2, b4(1, 3, 2, 16), b4(1, 3, 2, 16), b4(1, 3, 2, 16), b4(3), None, None, None, None, None, None,
                   0.25, 1.0, BIG, BIG, 2, "BSND", 0, 0, 2, golden.empty((1, 2, 3, 8), "float32"),
                   golden.empty((1, 2, 3, 8), "float32"), None, golden.empty((1, 3, 2, 16), "float32"))
    assert code == INVALID and "realShiftOptional" in msg


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_fused_gradient_same_bits_as_two_kernels(isa, dt):
    """B * Nkv >= 8 runs the fused gradient kernel (dQ accumulated with dK / dV); asking for dpse
    runs the key and query kernels instead: dq, dk, dv must be the same bits, and right."""
    rng = np.random.default_rng(11)
    B, N, Nkv, S, Skv, D = 4, 4, 2, 37, 70, 64
    r = lambda *s: golden.rounded(rng.standard_normal(s), dt)
    q, k, v, dy = r(B, S, N, D), r(B, Skv, Nkv, D), r(B, Skv, Nkv, D), r(B, S, N, D)
    pse = r(B, N, S, Skv)
    dev = lambda x: golden.array(x, dt)
    qa, ka, va, ya, pa = dev(q), dev(k), dev(v), dev(dy), dev(pse)
    out = golden.empty((B, S, N, D), dt)
    mx, sm = golden.empty((B, N, S, 8), "float32"), golden.empty((B, N, S, 8), "float32")
    mask = golden.array(OPT, "bool")
    golden.call("aclnnFlashAttentionScore", qa, ka, va, pa, None, None, mask, None, 0.125, 1.0, BIG, BIG, N, "BSND",
                0, 3, mx, sm, None, out)
    res = []
    for want_dpse in (False, True):
        dq, dk, dv = golden.empty((B, S, N, D), dt), golden.empty((B, Skv, Nkv, D), dt), golden.empty((B, Skv, Nkv, D), dt)
        dpse = golden.empty((B, N, S, Skv), dt) if want_dpse else None
        golden.call("aclnnFlashAttentionScoreGrad", qa, ka, va, ya, pa, None, None, mask, mx, sm, None, out, None,
                    0.125, 1.0, BIG, BIG, N, "BSND", 0, 3, dq, dk, dv, dpse)
        res.append([golden.read(t).tobytes() for t in (dq, dk, dv)])
    assert res[0] == res[1]
    t = lambda x: np.transpose(x, (0, 2, 1, 3))
    f = forward_ref(t(q), t(k), t(v), 0.125, pse, True,
                    np.broadcast_to(~seen(S, Skv, 3), (B, N, S, Skv)))
    g = backward_ref(t(q), t(k), t(v), t(dy), f, 0.125, True)
    check_grad(t(golden.read_float(dq)), g["dq"], g["mag"]["dq"], dt, "dq")
    check_grad(t(golden.read_float(dk)), g["dk"], g["mag"]["dk"], dt, "dk")


def test_varlen_empty_sequences():
    """T = 0 (nothing to do), and query rows without any key (0 output, max -inf, sum 0, dq 0)."""
    N, D = 2, 16
    for cq, ck in (([0, 0], [0, 0]), ([0, 3], [0, 0]), ([2, 2], [0, 5])):
        T, Tk = cq[-1], ck[-1]
        f = lambda *s: golden.array(np.ones(s), "float32")
        q, k, v = f(T, N, D), f(Tk, N, D), f(Tk, N, D)
        o = golden.empty((T, N, D), "float32", fill=7)
        mx, sm = golden.empty((T, N, 8), "float32", fill=7), golden.empty((T, N, 8), "float32", fill=7)
        golden.call(VFWD, q, k, v, None, None, None, None, None, cq, ck, 0.25, 1.0, BIG, BIG, N, "TND", 0, 0, mx, sm,
                    None, o)
        dq = golden.empty((T, N, D), "float32", fill=7)
        dk, dv = golden.empty((Tk, N, D), "float32", fill=7), golden.empty((Tk, N, D), "float32", fill=7)
        golden.call(VBWD, q, k, v, q, None, None, None, None, mx, sm, None, o, None, cq, ck, 0.25, 1.0, BIG, BIG, N,
                    "TND", 0, 0, dq, dk, dv, None)
        if T:
            assert np.all(golden.read_float(o) == 0) and np.all(golden.read_float(mx) == NEG_INF)
            assert np.all(golden.read_float(sm) == 0) and np.all(golden.read_float(dq) == 0)
        if Tk:
            assert np.all(golden.read_float(dk) == 0) and np.all(golden.read_float(dv) == 0)


def test_varlen_deterministic_over_worker_counts():
    script = f"""
import hashlib
import numpy as np
import golden
rng = np.random.default_rng(5)
cq, ck, N, Nkv, D = [37, 37, 40, 140, 141, 200, 260, 261, 300], [50, 64, 64, 190, 250, 250, 330, 400, 400], 4, 2, 64
T, Tk = cq[-1], ck[-1]
arr = lambda *s: golden.array(rng.standard_normal(s), "bfloat16")
q, k, v, dy = arr(T, N, D), arr(Tk, Nkv, D), arr(Tk, Nkv, D), arr(T, N, D)
o = golden.empty((T, N, D), "bfloat16")
mx, sm = golden.empty((T, N, 8), "float32"), golden.empty((T, N, 8), "float32")
m = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool")
golden.call("{VFWD}", q, k, v, None, None, None, m, None, cq, ck, 0.125, 1.0, {BIG}, {BIG}, N, "TND", 0, 3, mx, sm,
            None, o)
dq, dk, dv = golden.empty((T, N, D), "bfloat16"), golden.empty((Tk, Nkv, D), "bfloat16"), golden.empty((Tk, Nkv, D), "bfloat16")
golden.call("{VBWD}", q, k, v, dy, None, None, None, m, mx, sm, None, o, None, cq, ck, 0.125, 1.0, {BIG}, {BIG}, N,
            "TND", 0, 3, dq, dk, dv, None)
h = hashlib.sha256()
for t in (o, mx, sm, dq, dk, dv):
    h.update(golden.read(t).tobytes())
print(h.hexdigest())
"""
    outs = golden.outputs_per_thread_count(script, [1, 2, 3, 8], timeout=120)
    assert len(set(outs)) == 1, outs
