"""Golden tests of aclnnRecurrentGatedDeltaRule against a float64 reference written from CANN's page.

Reference, per value head h (key head h // (Nv / Nk)) and sequence i (its L_i tokens following the
earlier sequences'): S starts as the stored state at ssmStateIndices[start + numAcceptedTokens[i] - 1]
(as stored: rounded to stateRef's dtype); for each token t
    S = S * exp(g[t, h]) * exp(gk[t, h, :])  (broadcast over S's rows; absent g / gk: factor 1)
    S = S + beta[t, h] * outer(v[t, h] - S @ k[t], k[t])
    out[t, h] = S @ (scaleValue * q[t]);  stateRef[ssmStateIndices[t], h] = S (rounded)
with S carried unrounded through the sequence. cannon computes in fp32.

Pass criteria: out (BFLOAT16): |o - ref| <= 2^-7 |ref| + 2^-12 mag, mag = |S| @ |scale q| (the fp32
dot product's error scale, inflated for the state's fp32 carry over up to 8 tokens); the state:
|s - ref| <= u |ref| + 2^-14 (1 + |ref|), u = 2^-7 for BFLOAT16 and 2^-20 for FLOAT. Inputs inside
the page's ranges (q, k in [-1, 1], beta in (0, 1), g and gk negative). Several sequences with
numAcceptedTokens > 1, shared and permuted state indices, grouped heads, g / gk absent or given,
strided views, every ISA tier, run-time index errors (507015) and argument errors.
"""
import numpy as np
import pytest

import golden

NULL, INVALID, RUNTIME = golden.PARAM_NULLPTR, golden.PARAM_INVALID, golden.ACL_AICORE_EXCEPTION
API = "aclnnRecurrentGatedDeltaRule"


def reference(q, k, v, beta, state, lens, idx, nat, g, gk, scale, state_dt):
    T, Nk, Dk = q.shape
    Nv, Dv = v.shape[1], v.shape[2]
    st = state.copy()
    out = np.zeros((T, Nv, Dv))
    mag = np.zeros((T, Nv, Dv))
    start = 0
    for i, L in enumerate(lens):
        if L == 0:
            continue
        init = idx[start + nat[i] - 1]
        for h in range(Nv):
            kh = h // (Nv // Nk)
            S = st[init, h].copy()
            for t in range(start, start + L):
                if g is not None:
                    S = S * np.exp(g[t, h])
                if gk is not None:
                    S = S * np.exp(gk[t, h])[None, :]
                S = S + beta[t, h] * np.outer(v[t, h] - S @ k[t, kh], k[t, kh])
                qs = scale * q[t, kh]
                out[t, h] = S @ qs
                mag[t, h] = np.abs(S) @ np.abs(qs)
                st[idx[t], h] = golden.rounded(S, state_dt)
        start += L
    return out, mag, st


def make_case(rng, lens, Nk, Nv, Dk, Dv, nblk, state_dt, with_g, with_gk, nat=None, idx=None, layout=None):
    T = sum(lens)
    bf = "bfloat16"
    qs, q = golden.quantize(rng.uniform(-1, 1, (T, Nk, Dk)), bf)
    ks, k = golden.quantize(rng.uniform(-1, 1, (T, Nk, Dk)) / np.sqrt(Dk), bf)
    vs, v = golden.quantize(rng.uniform(-1, 1, (T, Nv, Dv)), bf)
    bs, b = golden.quantize(rng.uniform(0.05, 0.95, (T, Nv)), bf)
    ss, s = golden.quantize(rng.normal(0, 0.5, (nblk, Nv, Dv, Dk)), state_dt)
    g = rng.uniform(-1.0, -0.01, (T, Nv)).astype(np.float32) if with_g else None
    gk = rng.uniform(-0.5, -0.01, (T, Nv, Dk)).astype(np.float32) if with_gk else None
    if idx is None:
        idx = rng.permutation(nblk)[:T].astype(np.int32)
    if nat is None:
        nat = np.array([rng.integers(1, L + 1) if L else 1 for L in lens], dtype=np.int32)
    dev = dict(
        q=golden.array(qs, bf, layout=layout), k=golden.array(ks, bf), v=golden.array(vs, bf, layout=layout),
        beta=golden.array(bs, bf, layout=layout), state=golden.array(ss, state_dt),
        lens=golden.array(np.asarray(lens, np.int32), "int32"), idx=golden.array(np.asarray(idx, np.int32), "int32"),
        g=None if g is None else golden.array(g, "float32", layout=layout),
        gk=None if gk is None else golden.array(gk, "float32"),
        nat=golden.array(np.asarray(nat, np.int32), "int32"),
        out=golden.empty((T, Nv, Dv), bf, layout=layout))
    host = dict(q=q, k=k, v=v, beta=b, state=s, lens=list(lens), idx=np.asarray(idx), nat=np.asarray(nat),
                g=None if g is None else g.astype(np.float64), gk=None if gk is None else gk.astype(np.float64))
    return dev, host


def args(dev, scale):
    return [dev["q"], dev["k"], dev["v"], dev["beta"], dev["state"], dev["lens"], dev["idx"], dev["g"], dev["gk"],
            dev["nat"], scale, dev["out"]]


def run_and_check(dev, host, scale, state_dt):
    golden.call(API, *args(dev, scale))
    ref, mag, st = reference(host["q"], host["k"], host["v"], host["beta"], host["state"], host["lens"],
                             host["idx"], host["nat"], host["g"], host["gk"], scale, state_dt)
    got = golden.read_float(dev["out"])
    err = np.abs(got - ref)
    tol = 2.0 ** -7 * np.abs(ref) + 2.0 ** -12 * mag + 1e-30
    assert (err <= tol).all(), "out: worst err %g (tol %g)" % (err.max(), tol.flat[np.argmax(err - tol)])
    u = 2.0 ** -7 if state_dt == "bfloat16" else 2.0 ** -20
    gs = golden.read_float(dev["state"])
    serr = np.abs(gs - st)
    stol = u * np.abs(st) + 2.0 ** -14 * (1 + np.abs(st))
    assert (serr <= stol).all(), "state: worst err %g" % serr.max()


@pytest.mark.parametrize("state_dt", ["bfloat16", "float32"])
@pytest.mark.parametrize("gates", ["none", "g", "g+gk", "gk"])
def test_recurrence(state_dt, gates):
    rng = np.random.default_rng(1)
    dev, host = make_case(rng, [3, 1, 8, 2], Nk=2, Nv=4, Dk=16, Dv=8, nblk=20, state_dt=state_dt,
                          with_g="g" in gates.split("+"), with_gk="gk" in gates)
    run_and_check(dev, host, 0.25, state_dt)


def test_page_example_shapes():
    # the page's example: batch 2 x 2 tokens, 4 key heads, 8 value heads, Dk = Dv = 32, states
    # indexed by token, one accepted token
    rng = np.random.default_rng(2)
    dev, host = make_case(rng, [2, 2], Nk=4, Nv=8, Dk=32, Dv=32, nblk=4, state_dt="bfloat16", with_g=True,
                          with_gk=False, nat=[1, 1], idx=np.arange(4))
    run_and_check(dev, host, 32 ** -0.5, "bfloat16")


def test_sequences_share_state_slots():
    # the second sequence starts from a slot the first one wrote: sequences run in order
    rng = np.random.default_rng(3)
    idx = np.array([0, 1, 2, 1, 3, 0], np.int32)
    dev, host = make_case(rng, [3, 3], Nk=1, Nv=2, Dk=8, Dv=4, nblk=6, state_dt="float32", with_g=True,
                          with_gk=True, nat=[2, 1], idx=idx)
    run_and_check(dev, host, 0.5, "float32")


def test_strided_views_and_large_dims():
    rng = np.random.default_rng(4)
    dev, host = make_case(rng, [5, 4], Nk=2, Nv=6, Dk=130, Dv=70, nblk=12, state_dt="bfloat16", with_g=True,
                          with_gk=True, layout="strided")
    run_and_check(dev, host, 130 ** -0.5, "bfloat16")


def test_every_isa_tier(isa):
    rng = np.random.default_rng(5)
    dev, host = make_case(rng, [2, 3], Nk=2, Nv=4, Dk=24, Dv=16, nblk=8, state_dt="bfloat16", with_g=True,
                          with_gk=True)
    run_and_check(dev, host, 0.2, "bfloat16")


def test_same_bits_for_any_thread_count():
    script = r"""
import numpy as np, golden, test_attention_gated_delta as m
dev, host = m.make_case(np.random.default_rng(6), [4, 2, 3], 2, 8, 32, 16, 12, "bfloat16", True, True)
golden.call(m.API, *m.args(dev, 0.25))
print(golden.read(dev["out"]).tobytes().hex(), golden.read(dev["state"]).tobytes().hex())
"""
    outs = golden.outputs_per_thread_count(script, [1, 3, 8], timeout=300)
    assert len(set(outs)) == 1


# ---- run-time errors ------------------------------------------------------------------------------

def small(rng, **kw):
    p = dict(lens=[2, 1], Nk=1, Nv=2, Dk=4, Dv=4, nblk=4, state_dt="bfloat16", with_g=True, with_gk=False,
             nat=[1, 1], idx=np.array([0, 1, 2]))
    p.update(kw)
    return make_case(rng, **p)


@pytest.mark.parametrize("case", ["index high", "index negative", "lengths sum", "length negative", "nat zero",
                                  "nat past length"])
def test_runtime_errors(case):
    rng = np.random.default_rng(7)
    dev, host = small(rng)
    if case == "index high":
        dev["idx"] = golden.array(np.array([0, 4, 2], np.int32), "int32")
    elif case == "index negative":
        dev["idx"] = golden.array(np.array([0, 1, -1], np.int32), "int32")
    elif case == "lengths sum":
        dev["lens"] = golden.array(np.array([2, 2], np.int32), "int32")
    elif case == "length negative":
        dev["lens"] = golden.array(np.array([-1, 4], np.int32), "int32")
    elif case == "nat zero":
        dev["nat"] = golden.array(np.array([0, 1], np.int32), "int32")
    else:
        dev["nat"] = golden.array(np.array([3, 1], np.int32), "int32")
    with pytest.raises(golden.AclError) as ei:
        golden.call(API, *args(dev, 1.0))
    assert ei.value.code == RUNTIME
    assert API in ei.value.message
    assert golden.read_float(dev["state"]).tolist() == host["state"].tolist()  # nothing written


# ---- argument errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["q", "k", "v", "beta", "state", "lens", "idx", "nat", "out"])
def test_null_arguments(name):
    dev, _ = small(np.random.default_rng(8))
    dev[name] = None
    assert golden.phase1_status(API, *args(dev, 1.0)) == NULL


def test_small_case_is_sound():
    dev, host = small(np.random.default_rng(8))
    run_and_check(dev, host, 1.0, "bfloat16")


def bad_cases():
    f = lambda shape, dt="bfloat16": golden.array(np.zeros(shape, np.float32), dt)  # noqa: E731
    i32 = lambda shape: golden.array(np.zeros(shape, np.int32), "int32")  # noqa: E731
    return {
        "q float16": dict(q=f((3, 1, 4), "float16")),
        "v float32": dict(v=f((3, 2, 4), "float32")),
        "beta float32": dict(beta=f((3, 2), "float32")),
        "state float16": dict(state=f((4, 2, 4, 4), "float16")),
        "g bfloat16": dict(g=f((3, 2))),
        "gk float16": dict(gk=f((3, 2, 4), "float16")),
        "lens int64": dict(lens=golden.array(np.array([2, 1], np.int64), "int64")),
        "out float32": dict(out=golden.empty((3, 2, 4), "float32")),
        "q 2-D": dict(q=f((3, 4))),
        "k shape": dict(k=f((3, 1, 5))),
        "v heads not a multiple": dict(q=f((3, 2, 4)), k=f((3, 2, 4)), v=f((3, 3, 4)), beta=f((3, 3)), out=golden.empty((3, 3, 4), "bfloat16"),
                                       state=f((4, 3, 4, 4)), g=golden.array(np.zeros((3, 3), np.float32))),
        "state shape": dict(state=f((4, 2, 4, 5))),
        "state fewer than T": dict(state=f((2, 2, 4, 4))),
        "idx length": dict(idx=i32((4,))),
        "nat length": dict(nat=i32((3,))),
        "g shape": dict(g=golden.array(np.zeros((3, 3), np.float32))),
        "gk shape": dict(gk=golden.array(np.zeros((3, 2, 5), np.float32))),
        "out shape": dict(out=golden.empty((3, 2, 5), "bfloat16")),
        "Dk too large": dict(q=f((3, 1, 513)), k=f((3, 1, 513)), state=f((4, 2, 4, 513))),
        "empty T": dict(q=f((0, 1, 4))),
    }


@pytest.mark.parametrize("case", sorted(bad_cases()))
def test_invalid_arguments(case):
    dev, _ = small(np.random.default_rng(9))
    dev.update(bad_cases()[case])
    assert golden.phase1_status(API, *args(dev, 1.0)) == INVALID, case
    assert API in golden.recent_error()
