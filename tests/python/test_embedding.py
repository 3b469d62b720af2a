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

import golden

U64_NONE = (1 << 64) - 1


# ---- Embedding --------------------------------------------------------------------------------

@pytest.mark.parametrize("wdt", ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8"])
@pytest.mark.parametrize("idt", ["int32", "int64"])
@pytest.mark.parametrize("ishape", [(5,), (3, 4), ()])
def test_embedding_forward(wdt, idt, ishape):
    rng = np.random.default_rng(1)
    m, n = 13, 7
    w, _ = golden.quantize(rng.standard_normal((m, n)) * 20, wdt)
    idx = rng.integers(0, m, size=ishape).astype(idt)
    tw, ti = golden.array(w, wdt), golden.array(idx, idt)
    to = golden.empty(ishape + (n,), wdt)
    golden.call("aclnnEmbedding", tw, ti, to)
    assert np.array_equal(golden.read(to), w[idx])


def test_embedding_forward_strided():
    rng = np.random.default_rng(2)
    m, n = 9, 6
    w = rng.standard_normal((m, n)).astype(np.float32)
    # a transposed table: view (m, n) with strides (1, m) over an (n, m) buffer
    tw = golden.array(w, "float32", strides=[1, m])
    idx = rng.integers(0, m, size=(4, 3)).astype(np.int64)
    ti = golden.array(idx, "int64", layout="padded")
    to = golden.empty((4, 3, n), "float32", layout="padded", fill=-7.0)
    golden.call("aclnnEmbedding", tw, ti, to)
    assert np.array_equal(golden.read(to), w[idx])
    st = to.storage()
    assert np.count_nonzero(st == -7.0) == st.size - idx.size * n  # gaps untouched


@pytest.mark.parametrize("bad", [-1, 9, 1 << 40])
def test_embedding_forward_bad_index(bad):
    w = np.arange(18, dtype=np.float32).reshape(9, 2)
    idx = np.array([1, 2, bad, 3], dtype=np.int64)
    tw, ti = golden.array(w, "float32"), golden.array(idx, "int64")
    to = golden.empty((4, 2), "float32", storage_elems=8 + 16, fill=5.0)
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnEmbedding", tw, ti, to)
    assert ei.value.code == golden.ACL_AICORE_EXCEPTION
    assert f"indices[2] = {bad}" in ei.value.message
    st = to.storage()
    assert np.all(st[8:] == 5.0)  # nothing written past the output
    assert np.array_equal(st[:8].reshape(4, 2)[[0, 1, 3]], w[[1, 2, 3]])
    # the stream is usable again afterwards
    idx2 = golden.array(np.array([0, 8, 1, 2], dtype=np.int64), "int64")
    golden.call("aclnnEmbedding", tw, idx2, to)


def test_embedding_errors():
    w = golden.array(np.zeros((4, 3), np.float32), "float32")
    i = golden.array(np.zeros(5, np.int64), "int64")
    o = golden.empty((5, 3), "float32")
    assert golden.phase1_status("aclnnEmbedding", None, i, o) == golden.PARAM_NULLPTR
    assert golden.phase1_status("aclnnEmbedding", w, i, None) == golden.PARAM_NULLPTR
    assert golden.phase1_status("aclnnEmbedding", w, i, o, null_workspace_size=True) == golden.PARAM_NULLPTR
    bad_o = golden.empty((5, 4), "float32")
    assert golden.phase1_status("aclnnEmbedding", w, i, bad_o) == golden.PARAM_INVALID
    f16_o = golden.empty((5, 3), "float16")
    assert golden.phase1_status("aclnnEmbedding", w, i, f16_o) == golden.PARAM_INVALID
    fi = golden.array(np.zeros(5, np.float32), "float32")
    assert golden.phase1_status("aclnnEmbedding", w, fi, o) == golden.PARAM_INVALID
    assert "aclnnEmbedding: indices dtype FLOAT is not supported" in golden.recent_error()
    w1 = golden.array(np.zeros(4, np.float32), "float32")
    assert golden.phase1_status("aclnnEmbedding", w1, i, o) == golden.PARAM_INVALID


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


def run_backward(gq, idx, idt, V, pad, scale, dtype, strided=False):
    tg = golden.array(gq, dtype, layout="padded" if strided else None)
    ti = golden.array(idx.astype(idt), idt, layout="padded" if strided else None)
    to = golden.empty((V, gq.shape[-1]), dtype, layout="padded" if strided else None, fill=0)
    golden.call("aclnnEmbeddingDenseBackward", tg, ti, V, pad, 1 if scale else 0, to)
    return golden.read_float(to)


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
def test_backward_golden(isa, dtype, idt, scale):
    rng = np.random.default_rng(3)
    V, D = 37, 45  # D not a multiple of any vector width: tiles plus a masked tail
    idx = golden.zipf_indices(rng, 300, V).reshape(20, 15)
    g, g64 = golden.quantize(rng.standard_normal((20, 15, D)), dtype)
    for pad in (U64_NONE, int(idx.reshape(-1)[0]), V + 5):
        ours = run_backward(g, idx, idt, V, pad, scale, dtype)
        ref, mag, cnt = ref_backward(g64, idx, V, pad if pad < V else -1, scale)
        check_backward(ours, ref, mag, cnt, dtype)
        if pad < V:
            assert np.all(ours[pad] == 0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("scale", [False, True])
def test_backward_against_torch(dtype, scale):
    rng = np.random.default_rng(4)
    V, D, N = 300, 256, 2000
    idx = golden.zipf_indices(rng, N, V)
    g, g64 = golden.quantize(rng.standard_normal((N, D)), dtype)
    pad = int(idx[5])
    ours = run_backward(g, idx, "int64", V, pad, scale, dtype)
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
def test_backward_strided(dtype):
    rng = np.random.default_rng(5)
    V, D = 23, 40
    idx = rng.integers(0, V, size=(6, 7))
    g, g64 = golden.quantize(rng.standard_normal((6, 7, D)), dtype)
    ours = run_backward(g, idx, "int32", V, U64_NONE, True, dtype, strided=True)
    ref, mag, cnt = ref_backward(g64, idx, V, -1, True)
    check_backward(ours, ref, mag, cnt, dtype)


def test_backward_large_nt():
    """Output above the non-temporal threshold (16 MiB), rows of 64-byte multiples."""
    rng = np.random.default_rng(6)
    V, D, N = 20000, 256, 3000
    idx = golden.zipf_indices(rng, N, V)
    g = rng.standard_normal((N, D)).astype(np.float32)
    ours = run_backward(g, idx, "int64", V, int(idx[0]), True, "float32")
    ref, mag, cnt = ref_backward(g.astype(np.float64), idx, V, int(idx[0]), True)
    check_backward(ours, ref, mag, cnt, "float32")


def test_backward_empty():
    tg = golden.empty((0, 8), "float32")
    ti = golden.empty((0,), "int64")
    to = golden.empty((5, 8), "float32", fill=3.0)
    golden.call("aclnnEmbeddingDenseBackward", tg, ti, 5, U64_NONE, 0, to)
    assert np.all(golden.read(to) == 0)


@pytest.mark.parametrize("bad", [-3, 10])
def test_backward_bad_index(bad):
    V, D = 10, 16
    idx = np.array([1, 2, bad, 2, 9], dtype=np.int64)
    g = np.ones((5, D), np.float32)
    tg, ti = golden.array(g, "float32"), golden.array(idx, "int64")
    to = golden.empty((V, D), "float32", storage_elems=V * D + 64, fill=5.0)
    with pytest.raises(golden.AclError) as ei:
        golden.call("aclnnEmbeddingDenseBackward", tg, ti, V, U64_NONE, 0, to)
    assert ei.value.code == golden.ACL_AICORE_EXCEPTION
    assert f"indices[2] = {bad}" in ei.value.message
    st = to.storage()
    assert np.all(st[V * D:] == 5.0)
    out = st[:V * D].reshape(V, D)
    assert np.all(out[2] == 2) and np.all(out[1] == 1) and np.all(out[9] == 1) and np.all(out[0] == 0)


def test_backward_errors():
    g = golden.array(np.zeros((6, 4), np.float32), "float32")
    i = golden.array(np.zeros(6, np.int64), "int64")
    o = golden.empty((10, 4), "float32")
    f = "aclnnEmbeddingDenseBackward"
    assert golden.phase1_status(f, g, i, 10, U64_NONE, 0, o) == 0
    assert golden.phase1_status(f, None, i, 10, U64_NONE, 0, o) == golden.PARAM_NULLPTR
    assert golden.phase1_status(f, g, None, 10, U64_NONE, 0, o) == golden.PARAM_NULLPTR
    assert golden.phase1_status(f, g, i, 10, U64_NONE, 0, None) == golden.PARAM_NULLPTR
    assert golden.phase1_status(f, g, i, 11, U64_NONE, 0, o) == golden.PARAM_INVALID  # numWeights != out rows
    i5 = golden.array(np.zeros(5, np.int64), "int64")
    assert golden.phase1_status(f, g, i5, 10, U64_NONE, 0, o) == golden.PARAM_INVALID  # count mismatch
    o16 = golden.empty((10, 4), "float16")
    assert golden.phase1_status(f, g, i, 10, U64_NONE, 0, o16) == golden.PARAM_INVALID
    gd = golden.array(np.zeros((6, 4), np.float64), "float64")
    od = golden.empty((10, 4), "float64")
    assert golden.phase1_status(f, gd, i, 10, U64_NONE, 0, od) == golden.PARAM_INVALID
    assert "grad dtype DOUBLE is not supported" in golden.recent_error()
    fi = golden.array(np.zeros(6, np.float32), "float32")
    assert golden.phase1_status(f, g, fi, 10, U64_NONE, 0, o) == golden.PARAM_INVALID


DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import cannon
import golden
rng = np.random.default_rng(7)
V, D, N = 4000, 160, 20000
idx = golden.zipf_indices(rng, N, V)
out = []
for dtype in ("float32", "bfloat16"):
    g = rng.standard_normal((N, D)).astype(np.float32)
    if dtype == "bfloat16":
        g = cannon.float_to_bf16(g)
    for isa in ("scalar", "avx2", "avx512"):
        os.environ["CANNON_ISA"] = isa
        for scale in (0, 1):
            tg, ti = golden.array(g, dtype), golden.array(idx, "int64")
            to = golden.empty((V, D), dtype)
            golden.call("aclnnEmbeddingDenseBackward", tg, ti, V, int(idx[3]), scale, to)
            out.append(dtype + str(scale) + ":" + hashlib.sha256(to.storage().tobytes()).hexdigest())
print(" ".join(out))
"""


def test_backward_deterministic_across_threads():
    res = golden.outputs_per_thread_count(DET_SCRIPT, (1, 2, 8), 120)
    assert res[0] == res[1] == res[2]
    # every tier gives the same bits too (per dtype and scale)
    items = res[0].split()
    by_key = {}
    for it in items:
        k, h = it.split(":")
        by_key.setdefault(k, set()).add(h)
    assert all(len(v) == 1 for v in by_key.values()), by_key
