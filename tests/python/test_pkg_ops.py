"""The `cannon` Python package: aclnn op wrappers (python/cannon/ops.py) against numpy/torch."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

import cannon  # noqa: E402
from cannon import ops  # noqa: E402

torch = pytest.importorskip("torch")
rng = np.random.default_rng(7)
F = torch.nn.functional


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def close(a, b, tol=1e-4):
    a = a.numpy() if isinstance(a, cannon.DeviceArray) else a
    b = b.numpy() if isinstance(b, cannon.DeviceArray) else b
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else b
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


def needs(op):
    return pytest.mark.skipif(not ops.available(op), reason=f"aclnn{op} not in this libopapi build")


def test_softmax_family():
    x, g = r(4, 7), r(4, 7)
    xt = torch.tensor(x, requires_grad=True)
    y = ops.softmax(cannon.from_numpy(x), dim=1)
    yt = torch.softmax(xt, 1)
    close(y, yt)
    (gt,) = torch.autograd.grad(yt, xt, torch.tensor(g))
    close(ops.softmax_backward(cannon.from_numpy(g), y, dim=1), gt)
    ly = ops.log_softmax(x, dim=-1)  # numpy input is uploaded
    lyt = torch.log_softmax(xt, -1)
    close(ly, lyt)
    (lgt,) = torch.autograd.grad(lyt, xt, torch.tensor(g))
    close(ops.log_softmax_backward(g, ly, dim=-1), lgt)


def test_softmax_fp16_bf16():
    x = r(3, 16)
    y = ops.softmax(cannon.from_numpy(x, dtype="float16"))
    assert y.dtype == cannon.float16
    close(y.to_float(), torch.softmax(torch.tensor(x).half().float(), -1), 2e-3)
    yb = ops.softmax(cannon.from_numpy(x, dtype="bfloat16"))
    assert yb.dtype == cannon.bfloat16
    close(yb.to_float(), torch.softmax(torch.tensor(x).bfloat16().float(), -1), 1e-2)


def test_elementwise_and_cast():
    a, b = r(3, 4), r(4)
    A, B = cannon.from_numpy(a), cannon.from_numpy(b)
    close(ops.add(A, B), a + b)
    close(ops.add(A, B, alpha=2.0), a + 2 * b)
    close(ops.sub(A, B), a - b)
    close(ops.mul(A, B), a * b)
    close(ops.div(A, cannon.from_numpy(np.abs(b) + 1)), a / (np.abs(b) + 1))
    close(ops.add(A, 1.5), a + 1.5)
    close(ops.mul(A, 3.0), a * 3)
    close(ops.div(A, 2.0), a / 2)
    close(ops.sub(A, 0.5), a - 0.5)
    c = ops.cast(A, "float16")
    assert c.dtype == cannon.float16 and np.array_equal(c.numpy(), a.astype(np.float16))
    ci = ops.cast(A, cannon.int32)
    assert np.array_equal(ci.numpy(), torch.tensor(a).int().numpy())
    out = cannon.empty((3, 4))
    assert ops.add(A, B, out=out) is out


def test_activations():
    x, g = r(5, 6), r(5, 6)
    X = cannon.from_numpy(x)
    xt = torch.tensor(x, requires_grad=True)
    close(ops.relu(X), np.maximum(x, 0))
    close(ops.gelu(X), F.gelu(xt, approximate="tanh"), 1e-3)
    close(ops.gelu(X, approximate="none"), F.gelu(xt), 1e-3)
    close(ops.silu(X), F.silu(xt))
    close(ops.relu_backward(g, X), g * (x > 0))
    (gg,) = torch.autograd.grad(F.gelu(xt, approximate="tanh"), xt, torch.tensor(g))
    close(ops.gelu_backward(g, X), gg, 1e-3)
    (gs,) = torch.autograd.grad(F.silu(xt), xt, torch.tensor(g))
    close(ops.silu_backward(g, X), gs)


def test_matmul():
    a, b = r(5, 7), r(7, 3)
    close(ops.matmul(a, b), a @ b)
    A3, B3 = r(2, 5, 7), r(2, 7, 3)
    close(ops.matmul(A3, B3), A3 @ B3)
    At = cannon.from_numpy(a.T.copy()).T  # a strided (transposed) view
    close(ops.matmul(At.T, cannon.from_numpy(r(5, 2))).numpy().shape, (7, 2))
    close(ops.matmul(At, b), a @ b)
    v = r(7)
    close(ops.matmul(a, v), a @ v)


def test_batch_norm_family():
    N, C, H, W = 4, 3, 2, 5
    x, g = r(N, C, H, W), r(N, C, H, W)
    w, b = r(C) + 2, r(C)
    rm, rv = np.zeros(C, np.float32), np.ones(C, np.float32)
    RM, RV = cannon.from_numpy(rm), cannon.from_numpy(rv)
    X, Wd, Bd = cannon.from_numpy(x), cannon.from_numpy(w), cannon.from_numpy(b)
    out, sm, si = ops.batch_norm(X, Wd, Bd, RM, RV, training=True, momentum=0.1, eps=1e-5)
    xt, wt, bt = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    rmt, rvt = torch.tensor(rm), torch.tensor(rv)
    ot = F.batch_norm(xt, rmt, rvt, wt, bt, True, 0.1, 1e-5)
    close(out, ot)
    close(RM, rmt)
    close(RV, rvt)
    close(sm, x.mean(axis=(0, 2, 3)))
    gi, gw, gb = ops.batch_norm_backward(cannon.from_numpy(g), X, Wd, RM, RV, sm, si, True, 1e-5)
    gti, gtw, gtb = torch.autograd.grad(ot, (xt, wt, bt), torch.tensor(g))
    close(gi, gti, 1e-3)
    close(gw, gtw, 1e-3)
    close(gb, gtb, 1e-3)

    # the SyncBatchNorm decomposition (two "ranks": the two halves of the batch)
    parts = [x[:2], x[2:]]
    stats = [ops.batch_norm_stats(p, 1e-5) for p in parts]
    means = cannon.from_numpy(np.stack([m.numpy() for m, _ in stats]))
    invs = cannon.from_numpy(np.stack([i.numpy() for _, i in stats]))
    counts = cannon.from_numpy(np.array([2 * H * W, 2 * H * W], np.float32))
    RM2, RV2 = cannon.from_numpy(rm), cannon.from_numpy(rv)
    ma, ia = ops.batch_norm_gather_stats_with_counts(cannon.from_numpy(parts[0]), means, invs, RM2, RV2, 0.1,
                                                     1e-5, counts)
    close(ma, sm)
    close(ia, si)
    close(RM2, rmt)
    outs = [ops.batch_norm_elemt(p, Wd, Bd, ma, ia, 1e-5) for p in parts]
    close(np.concatenate([o.numpy() for o in outs]), ot)
    gparts = [g[:2], g[2:]]
    red = [ops.batch_norm_backward_reduce(gp, p, ma, ia, Wd) for gp, p in zip(gparts, parts)]
    sum_dy = cannon.from_numpy(red[0][0].numpy() + red[1][0].numpy())
    sum_dy_xmu = cannon.from_numpy(red[0][1].numpy() + red[1][1].numpy())
    close(red[0][2].numpy() + red[1][2].numpy(), gtw, 1e-3)
    close(red[0][3].numpy() + red[1][3].numpy(), gtb, 1e-3)
    cnt = cannon.from_numpy(np.array([2 * H * W, 2 * H * W], np.int32))
    gis = [ops.batch_norm_elemt_backward(gp, p, ma, ia, Wd, sum_dy, sum_dy_xmu, cnt) for gp, p in zip(gparts, parts)]
    close(np.concatenate([o.numpy() for o in gis]), gti, 1e-3)


def test_layer_norm_rms_norm():
    x, g = r(3, 4, 8), r(3, 4, 8)
    w, b = r(8), r(8)
    xt, wt, bt = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    out, mean, rstd = ops.layer_norm(x, [8], cannon.from_numpy(w), cannon.from_numpy(b), 1e-5)
    assert mean.shape == (3, 4, 1) and mean.dtype == cannon.float32
    ot = F.layer_norm(xt, [8], wt, bt, 1e-5)
    close(out, ot)
    gi, gw, gb = ops.layer_norm_backward(g, x, [8], mean, rstd, cannon.from_numpy(w), cannon.from_numpy(b))
    for mine, ref in zip((gi, gw, gb), torch.autograd.grad(ot, (xt, wt, bt), torch.tensor(g))):
        close(mine, ref, 1e-3)

    y, rs = ops.rms_norm(x, w, 1e-6)
    xt2, wt2 = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    rst = torch.rsqrt(xt2.pow(2).mean(-1, keepdim=True) + 1e-6)
    yt = xt2 * rst * wt2
    close(y, yt)
    close(rs, rst)
    dx, dg = ops.rms_norm_grad(g, x, rs, w)
    gx, gw2 = torch.autograd.grad(yt, (xt2, wt2), torch.tensor(g))
    close(dx, gx, 1e-3)
    close(dg, gw2, 1e-3)


@needs("Embedding")
def test_embedding():
    w = r(10, 4)
    idx = np.array([[1, 3], [9, 0]], np.int64)
    out = ops.embedding(w, idx)
    assert out.shape == (2, 2, 4)
    close(out, w[idx])


@needs("EmbeddingDenseBackward")
def test_embedding_dense_backward():
    g = r(5, 4)
    idx = np.array([1, 3, 1, 0, 2], np.int64)
    ref = np.zeros((6, 4), np.float32)
    np.add.at(ref, idx, g)
    close(ops.embedding_dense_backward(g, idx, 6), ref)
    ref[1] = 0
    close(ops.embedding_dense_backward(g, idx, 6, padding_idx=1), ref)


@needs("NLLLoss")
def test_nll_loss():
    x = np.log(np.abs(r(6, 5)) + 0.1)
    t = np.array([0, 4, 2, -100, 1, 3], np.int64)
    w = np.abs(r(5)) + 0.5
    xt = torch.tensor(x, requires_grad=True)
    for red in ("none", "mean", "sum"):
        out, tw = ops.nll_loss(x, t, cannon.from_numpy(w), red)
        ot = F.nll_loss(xt, torch.tensor(t), torch.tensor(w), reduction=red)
        close(out, ot)
        if ops.available("NLLLossBackward"):
            go = r(6) if red == "none" else np.float32(1.5)
            gi = ops.nll_loss_backward(cannon.from_numpy(go), x, t, cannon.from_numpy(w), red, -100, tw)
            (gt,) = torch.autograd.grad(ot, xt, torch.tensor(go))
            close(gi, gt)
    out, _ = ops.nll_loss(x, t)  # weight None = ones
    close(out, F.nll_loss(xt, torch.tensor(t)))


@needs("ReduceSum")
def test_reduce_sum():
    x = r(3, 4, 5)
    close(ops.reduce_sum(x, [1]), x.sum(1))
    close(ops.reduce_sum(x, [0, 2], keepdim=True), x.sum((0, 2), keepdims=True))
    close(ops.reduce_sum(x), x.sum(), 1e-3)


@needs("Mean")
def test_mean():
    x = r(3, 4, 5)
    close(ops.mean(x, -1), x.mean(-1))
    close(ops.mean(x, [0, 1], keepdim=True), x.mean((0, 1), keepdims=True))


def test_error_paths():
    A = cannon.from_numpy(r(3, 4))
    with pytest.raises(cannon.AclError) as ei:  # shape mismatch (explicit out)
        ops.matmul(A, cannon.from_numpy(r(4, 2)), out=cannon.empty((3, 3)))
    assert ei.value.code == 161002
    with pytest.raises(ValueError):
        ops.matmul(r(3, 4), r(5, 6))
    with pytest.raises(cannon.AclError) as ei:  # wrong dtype: matmul of int32
        ops.matmul(cannon.from_numpy(np.ones((2, 2), np.int32)), cannon.from_numpy(np.ones((2, 2), np.int32)))
    assert ei.value.code == 161002 and ei.value.func == "aclnnMatmulGetWorkspaceSize" and ei.value.message
    with pytest.raises(cannon.AclError) as ei:  # wrong output shape
        ops.softmax(A, out=cannon.empty((4, 3)))
    assert ei.value.code == 161002 and ei.value.message
    with pytest.raises(cannon.AclError) as ei:  # NULL input
        ops.call("aclnnSoftmax", None, 0, A)
    assert ei.value.code == 161001
    with pytest.raises(cannon.OpUnavailableError, match="aclnnNoSuchOp"):
        ops.call("aclnnNoSuchOp", A)
    assert not ops.available("NoSuchOp")
    with pytest.raises(TypeError):
        ops.call("aclnnSoftmax", A, "dim", A)
    freed = cannon.from_numpy(r(2))
    freed.free()
    with pytest.raises(cannon.AclError):
        ops.relu(freed)


def test_call_checks_arguments_against_the_manifest():
    A, O = cannon.from_numpy(r(3, 4)), cannon.empty((3, 4))
    # extra arguments were passed to C as garbage (a crash); now a TypeError naming the signature
    with pytest.raises(TypeError, match=r"takes 3 arguments \(const aclTensor \*self, int64_t dim"):
        ops.call("aclnnSoftmax", A, 0, O, 1, 2, 3, 4)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        ops.call("aclnnSoftmax", A, 0)
    # an integer beyond int64 silently became 0 (truncated); now OverflowError
    with pytest.raises(OverflowError, match="'dim'"):
        ops.call("aclnnSoftmax", A, 2**70, O)
    with pytest.raises(OverflowError):
        ops.call("aclnnMatmul", A, cannon.from_numpy(r(4, 2)), cannon.empty((3, 2)), 300)  # int8_t
    with pytest.raises(TypeError, match="'dim'"):
        ops.call("aclnnSoftmax", A, 0.5, O)
    with pytest.raises(TypeError, match="'self'"):
        ops.call("aclnnSoftmax", np.zeros((3, 4), np.float32), 0, O)
    # what the manifest says: every operator, with parameters the binding can convert
    m = ops.manifest()
    assert len(m) >= 49 and m["aclnnSoftmax"][1] == "aclnnop/aclnn_softmax.h"
    assert [p[0] for p in m["aclnnSoftmax"][3]] == ["self", "dim", "out"]
    # lists convert to IntArray, Python numbers to scalars
    x = r(2, 3)
    y = cannon.empty((2,))
    ops.call("aclnnReduceSum", cannon.from_numpy(x), [1], False, cannon.float32, y, sync=True)
    close(y.numpy(), x.sum(1))


def test_phase1_status_and_recent_error():
    x, o = cannon.from_numpy(r(2, 3)), cannon.empty((2, 3))
    cannon.recent_error()  # start from an empty message
    assert ops.phase1_status("aclnnSoftmax", x, 1, o) == 0
    assert ops.phase1_status("aclnnSoftmax", x, 1, cannon.empty((3, 2))) == 161002
    assert "aclnnSoftmax: out shape [3,2] differs from self shape [2,3]" in cannon.recent_error()
    assert cannon.recent_error() == ""  # reading cleared it
    assert ops.phase1_status("aclnnSoftmax", None, 1, o) == 161001
    assert ops.phase1_status("aclnnSoftmax", x, 1, o, null_workspace_size=True) == 161001
    assert ops.phase1_status("aclnnSoftmax", x, 1, o, null_executor=True) == 161001
    assert "executor is NULL" in cannon.recent_error()
    with pytest.raises(TypeError, match="takes 3 arguments"):
        ops.phase1_status("aclnnSoftmax", x, 1)
    with pytest.raises(OverflowError):
        ops.phase1_status("aclnnSoftmax", x, 2**64, o)
    # phase 1 alone wrote nothing: o is still what it was
    o.copy_from_numpy(np.full((2, 3), 5.0))
    assert ops.phase1_status("aclnnSoftmax", x, 1, o) == 0
    assert np.all(o.numpy() == 5.0)


def test_formats_reach_the_descriptor():
    # the same memory as NCHW (channel axis 1) and as NHWC (channel axis 3) gives different statistics
    x = r(2, 3, 4, 5)
    for fmt, axes, C in ((cannon.FORMAT_NCHW, (0, 2, 3), 3), (cannon.FORMAT_NHWC, (0, 1, 2), 5)):
        m, i = cannon.empty((C,)), cannon.empty((C,))
        ops.call("aclnnBatchNormStats", cannon.from_numpy(x, format=fmt), 1e-5, m, i, sync=True)
        close(m.numpy(), x.mean(axis=axes), 1e-5)
        close(i.numpy(), 1 / np.sqrt(x.var(axis=axes) + 1e-5), 1e-4)


def test_dtype_arguments_by_name():
    x = r(3, 4)
    for dt in ("float32", cannon.float32, np.float32, np.dtype(np.float32)):
        y = cannon.empty((3,))
        ops.call("aclnnReduceSum", cannon.from_numpy(x), [1], False, dt, y, sync=True)
        close(y.numpy(), x.sum(1))
    with pytest.raises(TypeError):
        ops.call("aclnnReduceSum", cannon.from_numpy(x), [1], False, "float128x", cannon.empty((3,)))


def test_call_refuses_lossy_list_and_scalar_items():
    """List items and scalars are converted only when they are what the parameter takes: nothing
    is rounded (1.7 as a dim), parsed ('1'), truncated (2**70) or made real (a complex)."""
    x, y = cannon.from_numpy(r(2, 3)), cannon.empty((2,))
    for dims, err in (([1.7], TypeError), ([np.float64(1.0)], TypeError), (["1"], TypeError), ([None], TypeError),
                      ([float("nan")], TypeError), ([True], TypeError), ([2**70], OverflowError),
                      ([-2**63 - 1], OverflowError), ([np.uint64(2**64 - 1)], OverflowError)):
        with pytest.raises(err, match="IntArray"):
            ops.call("aclnnReduceSum", x, dims, False, cannon.float32, y)
    ops.call("aclnnReduceSum", x, [np.int64(1)], False, cannon.float32, y, sync=True)  # numpy integers are integers
    close(y.numpy(), x.numpy().sum(1))
    g = cannon.from_numpy(r(2, 3))
    for mask in ([True, "x", True], [None, True, True], [np.array([1, 2]), True, True], [1.0, True, True]):
        with pytest.raises(TypeError, match="BoolArray"):
            ops.call("aclnnLayerNormBackward", g, g, [3], None, None, None, None, mask, None, None, None)
    O = cannon.empty((2, 3))
    for v, err in ((np.datetime64("2020"), TypeError), (np.complex64(1j), TypeError), (1j, TypeError),
                   (np.str_("3"), TypeError), (2**70, OverflowError), (np.uint64(2**64 - 1), OverflowError)):
        with pytest.raises(err):
            ops.call("aclnnAdds", x, v, 1.0, O)
    with pytest.raises(OverflowError, match="int8"):
        ops.Scalar(1000, "int8")
    ops.call("aclnnAdds", x, np.float32(2.0), np.int64(1), O, sync=True)
    close(O.numpy(), x.numpy() + 2.0)


def test_streams_async_and_generic_call():
    with cannon.Stream() as s:
        x = cannon.from_numpy(r(8, 8))
        y = cannon.empty((8, 8))
        ws = ops.call("aclnnSoftmax", x, 1, y, stream=s)
        assert ws >= 0
        close(y.numpy(stream=s), torch.softmax(torch.tensor(x.numpy()), 1))
        z = ops.relu(x, stream=s)
        s.synchronize()
        close(z.numpy(stream=s), np.maximum(x.numpy(), 0))
