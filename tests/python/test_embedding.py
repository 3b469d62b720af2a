"""Golden tests of aclnnEmbedding and aclnnEmbeddingDenseBackward against float64 / exact numpy
references and against torch, on every instruction-set tier, with strided views, bad indices
(reported at synchronize) and thread-count determinism on Zipf-distributed indices.

Pass criteria:
  Embedding: bit-exact copy of the table rows.
  EmbeddingDenseBackward, per element with k contributions g_1..g_k (S = sum |g_j| / count):
    fp32: |ours - ref| <= k * 2^-23 * S   (sequential fp32 sums; ref in float64)
    fp16 / bf16: the same plus one ulp of the type at ref (the single final rounding).
  Determinism: the output bytes are identical for CANNON_CPU_THREADS = 1, 2, 8 and all tiers.
"""

import numpy as np
import pytest
import torch

import cannon_testlib as ct
import train_helpers_a as th

U64_NONE = (1 << 64) - 1


# ---- Embedding --------------------------------------------------------------------------------

@pytest.mark.parametrize("wdt", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8"])
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("ishape", [(5,), (3, 4), ()])
def test_embedding_forward(L, wdt, idt, ishape):
    rng = np.random.default_rng(1)
    m, n = 13, 7
    w, _ = th.quantize(rng.standard_normal((m, n)) * 20, wdt)
    idx = rng.integers(0, m, size=ishape).astype(idt)
    tw, ti = th.tensor(L, w, wdt), th.tensor(L, idx, idt)
    to = th.empty(L, ishape + (n,), wdt)
    L.call("aclnnEmbedding", tw, ti, to)
    assert np.array_equal(to.view(), w[idx])
    for t in (tw, ti, to):
        t.destroy()


def test_embedding_forward_strided(L):
    rng = np.random.default_rng(2)
    m, n = 9, 6
    w = rng.standard_normal((m, n)).astype(np.float32)
    # a transposed table: view (m, n) with strides (1, m) over an (n, m) buffer
    tw = L.tensor_from(w, ct.ACL_FLOAT, strides=[1, m], offset=0, storage=np.ascontiguousarray(w.T))
    idx = rng.integers(0, m, size=(4, 3)).astype(np.int64)
    ti = th.tensor(L, idx, "int64", strided=True)
    to = th.empty(L, (4, 3, n), "float32", strided=True, fill=-7.0)
    L.call("aclnnEmbedding", tw, ti, to)
    assert np.array_equal(to.view(), w[idx])
    st = to.storage()
    assert np.count_nonzero(st == -7.0) == st.size - idx.size * n  # gaps untouched
    for t in (tw, ti, to):
        t.destroy()


@pytest.mark.parametrize("bad", [-1, 9, 1 << 40])
def test_embedding_forward_bad_index(L, bad):
    w = np.arange(18, dtype=np.float32).reshape(9, 2)
    idx = np.array([1, 2, bad, 3], dtype=np.int64)
    tw, ti = th.tensor(L, w, "float32"), th.tensor(L, idx, "int64")
    to = L.empty((4, 2), ct.ACL_FLOAT, storage_elems=8 + 16, fill=5.0)
    with pytest.raises(ct.AclError) as ei:
        L.call("aclnnEmbedding", tw, ti, to)
    assert ei.value.code == th.ACL_AICORE_EXCEPTION
    assert f"indices[2] = {bad}" in ei.value.msg
    st = to.storage()
    assert np.all(st[8:] == 5.0)  # nothing written past the output
    assert np.array_equal(st[:8].reshape(4, 2)[[0, 1, 3]], w[[1, 2, 3]])
    # the stream is usable again afterwards
    idx2 = th.tensor(L, np.array([0, 8, 1, 2], dtype=np.int64), "int64")
    L.call("aclnnEmbedding", tw, idx2, to)
    for t in (tw, ti, to, idx2):
        t.destroy()


def test_embedding_errors(L):
    w = th.tensor(L, np.zeros((4, 3), np.float32), "float32")
    i = th.tensor(L, np.zeros(5, np.int64), "int64")
    o = L.empty((5, 3), ct.ACL_FLOAT)
    assert L.phase1_status("aclnnEmbedding", None, i, o) == th.PARAM_NULLPTR
    assert L.phase1_status("aclnnEmbedding", w, i, None) == th.PARAM_NULLPTR
    assert L.phase1_status("aclnnEmbedding", w, i, o, null_ws=True) == th.PARAM_NULLPTR
    bad_o = L.empty((5, 4), ct.ACL_FLOAT)
    assert L.phase1_status("aclnnEmbedding", w, i, bad_o) == th.PARAM_INVALID
    f16_o = L.empty((5, 3), ct.ACL_FLOAT16)
    assert L.phase1_status("aclnnEmbedding", w, i, f16_o) == th.PARAM_INVALID
    fi = th.tensor(L, np.zeros(5, np.float32), "float32")
    assert L.phase1_status("aclnnEmbedding", w, fi, o) == th.PARAM_INVALID
    assert "aclnnEmbedding: indices dtype FLOAT is not supported" in L.errmsg()
    w1 = th.tensor(L, np.zeros(4, np.float32), "float32")
    assert L.phase1_status("aclnnEmbedding", w1, i, o) == th.PARAM_INVALID
    for t in (w, i, o, bad_o, f16_o, fi, w1):
        t.destroy()


# ---- EmbeddingDenseBackward -------------------------------------------------------------------

def ref_backward(g64, idx, V, pad, scale):
    """float64 reference plus the per-element error scale (sum of |terms| and contribution count)."""
    D = g64.shape[-1]
    g2 = g64.reshape(-1, D)
    flat = idx.reshape(-1)
    out = np.zeros((V, D))
    mag = np.zeros((V, D))
    cnt = np.bincount(flat, minlength=V).astype(np.float64)
    keep = flat != pad
    np.add.at(out, flat[keep], g2[keep])
    np.add.at(mag, flat[keep], np.abs(g2[keep]))
    if scale:
        c = np.where(cnt > 0, cnt, 1)[:, None]
        out /= c
        mag /= c
    return out, mag, cnt


def run_backward(L, gq, idx, idt, V, pad, scale, dtype, strided=False):
    tg = th.tensor(L, gq, dtype, strided=strided)
    ti = th.tensor(L, idx.astype(idt), idt, strided=strided)
    to = th.empty(L, (V, gq.shape[-1]), dtype, strided=strided, fill=0)
    L.call("aclnnEmbeddingDenseBackward", tg, ti, V, pad, 1 if scale else 0, to)
    r = th.decode(to.view(), dtype)
    for t in (tg, ti, to):
        t.destroy()
    return r


def check_backward(ours, ref, mag, cnt, dtype):
    k = np.maximum(cnt, 1)[:, None]
    tol = k * 2.0 ** -23 * mag * 1.01 + 1e-30
    if dtype != "float32":
        ulp = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
        tol = tol + ulp * np.abs(ref) + 1e-7
    err = np.abs(ours - ref)
    assert np.all(err <= tol), f"max err {err.max()} at {np.unravel_index(np.argmax(err - tol), err.shape)}"


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("scale", [False, True])
def test_backward_golden(L, isa, dtype, idt, scale):
    rng = np.random.default_rng(3)
    V, D = 37, 45  # D not a multiple of any vector width: tiles plus a masked tail
    idx = th.zipf_indices(rng, 300, V).reshape(20, 15)
    g, g64 = th.quantize(rng.standard_normal((20, 15, D)), dtype)
    for pad in (U64_NONE, int(idx.reshape(-1)[0]), V + 5):
        ours = run_backward(L, g, idx, idt, V, pad, scale, dtype)
        ref, mag, cnt = ref_backward(g64, idx, V, pad if pad < V else -1, scale)
        check_backward(ours, ref, mag, cnt, dtype)
        if pad < V:
            assert np.all(ours[pad] == 0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("scale", [False, True])
def test_backward_against_torch(L, dtype, scale):
    rng = np.random.default_rng(4)
    V, D, N = 300, 256, 2000
    idx = th.zipf_indices(rng, N, V)
    g, g64 = th.quantize(rng.standard_normal((N, D)), dtype)
    pad = int(idx[5])
    ours = run_backward(L, g, idx, "int64", V, pad, scale, dtype)
    tdt = torch.float32 if dtype == "float32" else torch.bfloat16
    gt = torch.from_numpy(g64.astype(np.float32)).to(tdt)
    ref = torch.ops.aten.embedding_dense_backward(gt, torch.from_numpy(idx), V, pad, scale)
    ref = ref.to(torch.float64).numpy()
    if dtype == "float32":
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-4)
    else:
        # torch accumulates bf16 gradients in bf16; ours in fp32: compare against float64 instead
        r64, mag, cnt = ref_backward(g64, idx, V, pad, scale)
        check_backward(ours, r64, mag, cnt, dtype)
        assert np.abs(ours - ref).max() <= np.abs(r64 - ref).max() + 1e-2


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_backward_strided(L, dtype):
    rng = np.random.default_rng(5)
    V, D = 23, 40
    idx = rng.integers(0, V, size=(6, 7))
    g, g64 = th.quantize(rng.standard_normal((6, 7, D)), dtype)
    ours = run_backward(L, g, idx, "int32", V, U64_NONE, True, dtype, strided=True)
    ref, mag, cnt = ref_backward(g64, idx, V, -1, True)
    check_backward(ours, ref, mag, cnt, dtype)


def test_backward_large_nt(L):
    """Output above the non-temporal threshold (16 MiB), rows of 64-byte multiples."""
    rng = np.random.default_rng(6)
    V, D, N = 20000, 256, 3000
    idx = th.zipf_indices(rng, N, V)
    g = rng.standard_normal((N, D)).astype(np.float32)
    ours = run_backward(L, g, idx, "int64", V, int(idx[0]), True, "float32")
    ref, mag, cnt = ref_backward(g.astype(np.float64), idx, V, int(idx[0]), True)
    check_backward(ours, ref, mag, cnt, "float32")


def test_backward_empty(L):
    tg = L.empty((0, 8), ct.ACL_FLOAT)
    ti = L.empty((0,), th.ACL_INT64)
    to = L.empty((5, 8), ct.ACL_FLOAT, fill=3.0)
    L.call("aclnnEmbeddingDenseBackward", tg, ti, 5, U64_NONE, 0, to)
    assert np.all(to.view() == 0)
    for t in (tg, ti, to):
        t.destroy()


@pytest.mark.parametrize("bad", [-3, 10])
def test_backward_bad_index(L, bad):
    V, D = 10, 16
    idx = np.array([1, 2, bad, 2, 9], dtype=np.int64)
    g = np.ones((5, D), np.float32)
    tg, ti = th.tensor(L, g, "float32"), th.tensor(L, idx, "int64")
    to = L.empty((V, D), ct.ACL_FLOAT, storage_elems=V * D + 64, fill=5.0)
    with pytest.raises(ct.AclError) as ei:
        L.call("aclnnEmbeddingDenseBackward", tg, ti, V, U64_NONE, 0, to)
    assert ei.value.code == th.ACL_AICORE_EXCEPTION
    assert f"indices[2] = {bad}" in ei.value.msg
    st = to.storage()
    assert np.all(st[V * D:] == 5.0)
    out = st[:V * D].reshape(V, D)
    assert np.all(out[2] == 2) and np.all(out[1] == 1) and np.all(out[9] == 1) and np.all(out[0] == 0)
    for t in (tg, ti, to):
        t.destroy()


def test_backward_errors(L):
    g = th.tensor(L, np.zeros((6, 4), np.float32), "float32")
    i = th.tensor(L, np.zeros(6, np.int64), "int64")
    o = L.empty((10, 4), ct.ACL_FLOAT)
    f = "aclnnEmbeddingDenseBackward"
    assert L.phase1_status(f, g, i, 10, U64_NONE, 0, o) == 0
    assert L.phase1_status(f, None, i, 10, U64_NONE, 0, o) == th.PARAM_NULLPTR
    assert L.phase1_status(f, g, None, 10, U64_NONE, 0, o) == th.PARAM_NULLPTR
    assert L.phase1_status(f, g, i, 10, U64_NONE, 0, None) == th.PARAM_NULLPTR
    assert L.phase1_status(f, g, i, 11, U64_NONE, 0, o) == th.PARAM_INVALID  # numWeights != out rows
    i5 = th.tensor(L, np.zeros(5, np.int64), "int64")
    assert L.phase1_status(f, g, i5, 10, U64_NONE, 0, o) == th.PARAM_INVALID  # count mismatch
    o16 = L.empty((10, 4), ct.ACL_FLOAT16)
    assert L.phase1_status(f, g, i, 10, U64_NONE, 0, o16) == th.PARAM_INVALID
    gd = th.tensor(L, np.zeros((6, 4), np.float64), "float64")
    od = L.empty((10, 4), ct.ACL_DOUBLE)
    assert L.phase1_status(f, gd, i, 10, U64_NONE, 0, od) == th.PARAM_INVALID
    assert "grad dtype DOUBLE is not supported" in L.errmsg()
    fi = th.tensor(L, np.zeros(6, np.float32), "float32")
    assert L.phase1_status(f, g, fi, 10, U64_NONE, 0, o) == th.PARAM_INVALID
    for t in (g, i, o, i5, o16, gd, od, fi):
        t.destroy()


DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import cannon_testlib as ct
import train_helpers_a as th
L = ct.lib()
rng = np.random.default_rng(7)
V, D, N = 4000, 160, 20000
idx = th.zipf_indices(rng, N, V)
out = []
for dtype in ("float32", "bfloat16"):
    g = rng.standard_normal((N, D)).astype(np.float32)
    if dtype == "bfloat16":
        g = th.bf16_bits_np(g)
    for isa in ("scalar", "avx2", "avx512"):
        os.environ["CANNON_ISA"] = isa
        for scale in (0, 1):
            tg, ti = th.tensor(L, g, dtype), th.tensor(L, idx, "int64")
            to = th.empty(L, (V, D), dtype)
            L.call("aclnnEmbeddingDenseBackward", tg, ti, V, int(idx[3]), scale, to)
            out.append(dtype + str(scale) + ":" + hashlib.sha256(to.storage().tobytes()).hexdigest())
            for t in (tg, ti, to):
                t.destroy()
print(" ".join(out))
"""


def test_backward_deterministic_across_threads():
    res = th.run_in_subprocesses(DET_SCRIPT, (1, 2, 8))
    assert res[1] == res[2] == res[8]
    # every tier gives the same bits too (per dtype and scale)
    items = res[1].split()
    by_key = {}
    for it in items:
        k, h = it.split(":")
        by_key.setdefault(k, set()).add(h)
    assert all(len(v) == 1 for v in by_key.values()), by_key
