"""cannon.torch: torch.ops.cannon.* against torch's own CPU kernels (forward, autograd, errors),
and cannon.torch.SyncBatchNorm in one process."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

import cannon  # noqa: E402
import cannon.torch as ct  # noqa: E402
from cannon.torch import ops as cops  # noqa: E402

F = torch.nn.functional
C = torch.ops.cannon
TIERS = ["avx512", "avx2", "scalar"]


@pytest.fixture(params=TIERS)
def isa(request, monkeypatch):
    # libopapi reads CANNON_ISA when it plans each operator, so one process can test every tier
    monkeypatch.setenv("CANNON_ISA", request.param)
    return request.param


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rn(*shape, seed=0, dtype=torch.float32, grad=False):
    t = torch.randn(shape, generator=gen(seed)).to(dtype)
    return t.requires_grad_() if grad else t


def close(a, b, tol=1e-5):
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    torch.testing.assert_close(a.double(), b.double(), rtol=tol, atol=tol)


def grads(y, inputs, g):
    return torch.autograd.grad(y, inputs, g, allow_unused=True)


# ---- registration ----------------------------------------------------------------------------

def test_registered_ops():
    expected = {"softmax", "log_softmax", "softmax_backward", "log_softmax_backward", "batch_norm",
                "native_batch_norm", "native_batch_norm_backward", "batch_norm_stats",
                "batch_norm_gather_stats_with_counts", "batch_norm_elemt", "batch_norm_backward_reduce",
                "batch_norm_backward_elemt", "layer_norm", "native_layer_norm", "native_layer_norm_backward",
                "rms_norm", "native_rms_norm", "rms_norm_backward", "embedding", "embedding_dense_backward", "add",
                "mul", "relu", "gelu", "gelu_backward", "silu", "silu_backward", "matmul", "nll_loss",
                "nll_loss_forward", "nll_loss_backward"}
    assert expected <= set(ct.OPS)
    for name in expected:
        assert callable(getattr(C, name))
    # registering again (as a second import of the package would) changes nothing
    assert ct.ops.register() is ct.ops.register()
    assert C.softmax(torch.zeros(1, 2), 1).tolist() == [[0.5, 0.5]]


# ---- softmax ---------------------------------------------------------------------------------

@pytest.mark.parametrize("log", [False, True])
def test_softmax_fwd_bwd(isa, log):
    x = rn(6, 37, grad=True)
    f, ft = (C.log_softmax, F.log_softmax) if log else (C.softmax, F.softmax)
    for dim in (1, -1, 0):
        y, yt = f(x, dim), ft(x, dim)
        close(y, yt, 2e-6)
        g = rn(6, 37, seed=1)
        close(grads(y, x, g)[0], grads(yt, x, g)[0], 2e-6)


def test_softmax_strided_out_and_dtypes():
    x = rn(16, 12).t()  # non-contiguous input
    close(C.softmax(x, 1), torch.softmax(x, 1), 1e-6)
    out = torch.empty(12, 16)
    r = C.softmax.out(x, 1, out=out)
    assert r.data_ptr() == out.data_ptr()
    close(out, torch.softmax(x, 1), 1e-6)
    out2 = torch.empty(0)
    C.log_softmax.out(x, 0, out=out2)  # an empty out is resized
    close(out2, torch.log_softmax(x, 0), 1e-6)
    xb = rn(4, 50, dtype=torch.bfloat16)
    yb = C.softmax(xb, -1)
    assert yb.dtype == torch.bfloat16
    close(yb.float(), torch.softmax(xb.float(), -1).bfloat16().float(), 1e-2)
    xh = rn(4, 50, dtype=torch.float16)  # torch 1.13 has no CPU fp16 softmax; cannon does
    close(C.softmax(xh, -1).float(), torch.softmax(xh.float(), -1).half().float(), 1e-3)
    xd = rn(3, 9, dtype=torch.float64)
    close(C.softmax(xd, 1), torch.softmax(xd, 1), 1e-12)
    e = torch.empty(0, 5)
    assert C.softmax(e, 1).shape == (0, 5)


def test_softmax_errors():
    x = rn(3, 4)
    with pytest.raises(IndexError, match="out of range"):
        C.softmax(x, 2)
    with pytest.raises(cannon.AclError) as ei:
        C.softmax(torch.ones(3, 4, dtype=torch.int32), 1)
    assert ei.value.code == 161002
    with pytest.raises(TypeError, match="dtype"):
        C.softmax.out(x, 1, out=torch.empty(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="shape"):
        C.softmax.out(x, 1, out=torch.empty(2, 4))
    with pytest.raises(TypeError):
        cops.softmax_cpu([1.0, 2.0], 0)
    with pytest.raises(TypeError, match="complex|dense real"):
        C.softmax(torch.ones(2, dtype=torch.complex64), 0)


# ---- batch norm ------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["nchw", "channels_last", "nc", "ncl"])
def test_batch_norm_training_and_eval(isa, layout):
    shape = {"nchw": (4, 6, 5, 3), "channels_last": (4, 6, 5, 3), "nc": (9, 6), "ncl": (3, 6, 7)}[layout]
    x0 = rn(*shape, seed=2) * 3 + 1
    if layout == "channels_last":
        x0 = x0.contiguous(memory_format=torch.channels_last)
    x = x0.clone().requires_grad_()
    xt = x0.clone().requires_grad_()
    w, b = rn(6, seed=3, grad=True), rn(6, seed=4, grad=True)
    rm, rv = torch.zeros(6), torch.ones(6)
    rmt, rvt = rm.clone(), rv.clone()
    g = rn(*shape, seed=5)
    for training in (True, False):
        y = C.batch_norm(x, w, b, rm, rv, training, 0.3, 1e-5)
        yt = F.batch_norm(xt, rmt, rvt, w, b, training, 0.3, 1e-5)
        close(y, yt, 1e-5)
        close(rm, rmt, 1e-6)
        close(rv, rvt, 1e-6)
        if layout == "channels_last":
            assert y.is_contiguous(memory_format=torch.channels_last)
        gi, gw, gb = grads(y, (x, w, b), g)
        git, gwt, gbt = grads(yt, (xt, w, b), g)
        close(gi, git, 1e-5)
        close(gw, gwt, 5e-5)
        close(gb, gbt, 5e-5)


def test_batch_norm_options():
    x = rn(5, 4, 3, seed=6, grad=True)
    # no affine, no running stats (training only)
    y = C.batch_norm(x, None, None, None, None, True, 0.1, 1e-3)
    close(y, F.batch_norm(x, None, None, None, None, True, 0.1, 1e-3), 1e-5)
    (gi,) = grads(y.sum() * 0 + (y * y).sum(), (x,), None)
    (git,) = grads((F.batch_norm(x, None, None, None, None, True, 0.1, 1e-3) ** 2).sum(), (x,), None)
    close(gi, git, 1e-4)
    # native forms and the backward masks
    out, sm, si = C.native_batch_norm(x.detach(), None, None, None, None, True, 0.1, 1e-5)
    _, smt, sit = torch.native_batch_norm(x.detach(), None, None, None, None, True, 0.1, 1e-5)
    close(sm, smt, 1e-6)
    close(si, sit, 1e-5)
    g = rn(5, 4, 3, seed=7)
    w = torch.ones(4)
    r = C.native_batch_norm_backward(g, x.detach(), w, None, None, sm, si, True, 1e-5, [True, False, True])
    rt = torch.ops.aten.native_batch_norm_backward(g, x.detach(), w, None, None, smt, sit, True, 1e-5,
                                                   [True, False, True])
    close(r[0], rt[0], 1e-5)
    assert r[1] is None
    close(r[2], rt[2], 1e-5)
    # bf16 data with fp32 statistics
    xb = rn(6, 4, 5, seed=8).bfloat16()
    yb = C.batch_norm(xb, None, None, None, None, True, 0.1, 1e-5)
    assert yb.dtype == torch.bfloat16
    close(yb.float(), F.batch_norm(xb.float(), None, None, None, None, True, 0.1, 1e-5).bfloat16().float(), 2e-2)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="eval mode needs running"):
        C.batch_norm(rn(3, 4), None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(ValueError, match="at least 2 dims"):
        C.batch_norm(rn(4), None, None, None, None, True, 0.1, 1e-5)
    with pytest.raises(cannon.AclError) as ei:
        C.batch_norm(rn(3, 4), torch.ones(5), None, None, None, True, 0.1, 1e-5)  # weight of the wrong length
    assert ei.value.code == 161002
    with pytest.raises(cannon.AclError):
        C.batch_norm(rn(3, 4), None, None, None, None, True, 0.1, -1.0)  # eps < 0


def test_syncbn_ops_split_equals_whole(isa):
    """The SyncBN set over 3 uneven parts equals one full-batch batch norm (what SyncBatchNorm relies
    on). torch 1.13 has these ops for CUDA only, so the references are torch's full-batch batch norm
    and the defining sums in float64."""
    x = rn(7, 5, 4, 3, seed=9) * 2 + 0.5
    parts = [x[:1], x[1:4], x[4:]]
    stats = [C.batch_norm_stats(p, 1e-5) for p in parts]
    for p, (m, i) in zip(parts, stats):
        pd = p.double()
        close(m, pd.mean((0, 2, 3)).float(), 1e-6)
        close(i, (pd.var((0, 2, 3), unbiased=False) + 1e-5).rsqrt().float(), 1e-5)
    means = torch.stack([s[0] for s in stats])
    invs = torch.stack([s[1] for s in stats])
    counts = torch.tensor([float(p.shape[0] * 12) for p in parts])
    rm, rv = torch.zeros(5), torch.ones(5)
    gm, gi = C.batch_norm_gather_stats_with_counts(x, means, invs, rm, rv, 0.1, 1e-5, counts)
    rmt, rvt = torch.zeros(5), torch.ones(5)
    F.batch_norm(x, rmt, rvt, None, None, True, 0.1, 1e-5)
    _, smt, sit = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    close(gm, smt, 1e-6)
    close(gi, sit, 1e-5)
    close(rm, rmt, 1e-6)
    close(rv, rvt, 1e-6)
    w, b = rn(5, seed=10), rn(5, seed=11)
    ys = torch.cat([C.batch_norm_elemt(p, w, b, gm, gi, 1e-5) for p in parts])
    close(ys, F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5), 1e-5)
    g = rn(7, 5, 4, 3, seed=12)
    gparts = [g[:1], g[1:4], g[4:]]
    red = [C.batch_norm_backward_reduce(gp, p, gm, gi, w, True, True, True) for gp, p in zip(gparts, parts)]
    for (sdy, sdx, gw, gb), gp, p in zip(red, gparts, parts):
        gd, xmu = gp.double(), p.double() - gm.double()[None, :, None, None]
        close(sdy, gd.sum((0, 2, 3)).float(), 1e-5)
        close(sdx, (gd * xmu).sum((0, 2, 3)).float(), 1e-4)
        close(gw, ((gd * xmu).sum((0, 2, 3)) * gi.double()).float(), 1e-4)
        close(gb, gd.sum((0, 2, 3)).float(), 1e-5)
    sum_dy = sum(r[0] for r in red)
    sum_dy_xmu = sum(r[1] for r in red)
    gx = torch.cat([C.batch_norm_backward_elemt(gp, p, gm, gi, w, sum_dy, sum_dy_xmu, counts.int())
                    for gp, p in zip(gparts, parts)])
    xr = x.clone().requires_grad_()
    (gxt,) = torch.autograd.grad(F.batch_norm(xr, None, None, w, b, True, 0.1, 1e-5), xr, g)
    close(gx, gxt, 1e-5)
    # gated outputs come back empty, as torch's
    r = C.batch_norm_backward_reduce(g, x, gm, gi, None, False, False, False)
    assert all(t.numel() == 0 for t in r)
    with pytest.raises(cannon.AclError):
        C.batch_norm_gather_stats_with_counts(x, means, invs, None, None, 0.1, 1e-5, torch.zeros(3))  # no samples


# ---- layer norm, rms norm --------------------------------------------------------------------

def test_layer_norm(isa):
    x = rn(3, 5, 24, seed=13, grad=True)
    w, b = rn(24, seed=14, grad=True), rn(24, seed=15, grad=True)
    g = rn(3, 5, 24, seed=16)
    for args in ((w, b), (None, None)):
        y = C.layer_norm(x, [24], *args, eps=1e-5)
        yt = F.layer_norm(x, [24], *args, eps=1e-5)
        close(y, yt, 1e-5)
        ins = (x,) + tuple(a for a in args if a is not None)
        for a, e in zip(grads(y, ins, g), grads(yt, ins, g)):
            close(a, e, 5e-5)
    y = C.layer_norm(x, [5, 24], None, None)  # defaults, two normalized dims
    close(y, F.layer_norm(x, [5, 24]), 1e-5)
    o, m, r = C.native_layer_norm(x.detach(), [24], w.detach(), b.detach(), 1e-5)
    ot, mt, rt = torch.native_layer_norm(x.detach(), [24], w.detach(), b.detach(), 1e-5)
    close(m, mt, 1e-6)
    close(r, rt, 1e-5)
    with pytest.raises(ValueError, match="normalized_shape"):
        C.layer_norm(x, [23])


def test_rms_norm(isa):
    x = rn(4, 7, 32, seed=17, grad=True)
    gam = rn(32, seed=18, grad=True)
    y = C.rms_norm(x, gam, 1e-6)
    yt = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gam
    close(y, yt, 1e-5)
    g = rn(4, 7, 32, seed=19)
    for a, e in zip(grads(y, (x, gam), g), grads(yt, (x, gam), g)):
        close(a, e, 5e-5)
    close(C.rms_norm(x, gam), y, 0)  # the default eps is 1e-6
    with pytest.raises(ValueError, match="gamma"):
        C.rms_norm(x, torch.ones(31))


# ---- embedding -------------------------------------------------------------------------------

def test_embedding(isa):
    W = rn(50, 16, seed=20, grad=True)
    idx = torch.randint(0, 50, (4, 9), generator=gen(21))
    idx[0, :3] = 7
    g = rn(4, 9, 16, seed=22)
    y = C.embedding(W, idx)
    close(y, F.embedding(idx, W), 0)
    close(grads(y, W, g)[0], grads(F.embedding(idx, W), W, g)[0], 1e-5)
    for pad, scale in ((7, False), (None, True), (-1, False), (3, True)):
        e = C.embedding_dense_backward(g, idx, 50, -1 if pad is None else pad, scale)
        et = torch.ops.aten.embedding_dense_backward(g, idx, 50, -1 if pad is None else pad, scale)
        close(e, et, 1e-5)
    close(C.embedding(W.detach(), idx.int()), F.embedding(idx, W.detach()), 0)


def test_embedding_errors():
    W = rn(10, 4)
    with pytest.raises(cannon.AclError) as ei:
        C.embedding(W, torch.tensor([1, 10]))
    assert ei.value.code == 507015 and "10" in ei.value.message
    with pytest.raises(TypeError, match="int64 or int32"):
        C.embedding(W, torch.tensor([1.0]))
    with pytest.raises(ValueError, match="2-D"):
        C.embedding(rn(10), torch.tensor([1]))
    with pytest.raises(cannon.AclError):
        C.embedding_dense_backward(rn(2, 4), torch.tensor([0, 12]), 10, -1, False)
    # the stream is usable again after a kernel-side error
    close(C.embedding(W, torch.tensor([9])), W[9:10], 0)


# ---- elementwise, activations, matmul, nll ---------------------------------------------------

def test_elementwise_and_activations(isa):
    a, b = rn(5, 6, seed=23, grad=True), rn(6, seed=24, grad=True)
    g = rn(5, 6, seed=25)
    for y, yt in ((C.add(a, b, alpha=2.5), torch.add(a, b, alpha=2.5)), (C.add(a, b), a + b),
                  (C.mul(a, b), a * b)):
        close(y, yt, 1e-6)
        for p, q in zip(grads(y, (a, b), g), grads(yt, (a, b), g)):
            close(p, q, 1e-5)
    for f, ft in ((C.relu, F.relu), (C.silu, F.silu), (C.gelu, F.gelu),
                  (lambda x: C.gelu(x, approximate="tanh"), lambda x: F.gelu(x, approximate="tanh"))):
        y, yt = f(a), ft(a)
        close(y, yt, 2e-6)
        close(grads(y, a, g)[0], grads(yt, a, g)[0], 2e-6)
    close(C.add(torch.ones(3, dtype=torch.int32), torch.ones(3, dtype=torch.int64)), torch.full((3,), 2), 0)
    with pytest.raises(ValueError, match="approximate"):
        C.gelu(a, approximate="fast")
    with pytest.raises(RuntimeError):
        C.add(rn(3), rn(4))  # shapes do not broadcast


def test_matmul(isa):
    cases = [((5, 7), (7, 3)), ((2, 5, 7), (7, 3)), ((2, 5, 7), (2, 7, 3)), ((7,), (7, 3)), ((5, 7), (7,)),
             ((1, 5, 7), (3, 7, 2))]
    for sa, sb in cases:
        a, b = rn(*sa, seed=26, grad=True), rn(*sb, seed=27, grad=True)
        y, yt = C.matmul(a, b), torch.matmul(a, b)
        close(y, yt, 1e-5)
        g = rn(*yt.shape, seed=28)
        for p, q in zip(grads(y, (a, b), g), grads(yt, (a, b), g)):
            close(p, q, 1e-5)
    close(C.matmul(rn(6, 4).t(), rn(6, 3)), rn(6, 4).t() @ rn(6, 3), 1e-5)  # transposed operand, no copy
    with pytest.raises(ValueError, match="inner dimensions"):
        C.matmul(rn(3, 4), rn(5, 2))


def test_matmul_empty_inner_dim():
    # an empty inner dimension gives zeros, as torch does; the empty operands have no storage
    for sa, sb in (((4, 0), (0, 5)), ((2, 4, 0), (2, 0, 5)), ((0,), (0, 3))):
        a, b = torch.zeros(sa), torch.zeros(sb)
        y = C.matmul(a, b)
        assert y.shape == torch.matmul(a, b).shape
        assert torch.count_nonzero(y) == 0


def test_nll_loss(isa):
    lp = torch.log_softmax(rn(8, 5, seed=29), 1).requires_grad_()
    t = torch.tensor([0, 1, 4, 2, -100, 3, 3, 0])
    w = torch.rand(5, generator=gen(30))
    for red, name in ((0, "none"), (1, "mean"), (2, "sum")):
        for weight in (None, w):
            y = C.nll_loss(lp, t, weight, red, -100)
            yt = F.nll_loss(lp, t, weight, reduction=name)
            close(y, yt, 1e-6)
            g = rn(*yt.shape, seed=31)
            close(grads(y, lp, g)[0], grads(yt, lp, g)[0], 1e-6)
    close(C.nll_loss(lp, t), F.nll_loss(lp, t), 1e-6)  # defaults: mean, ignore -100
    with pytest.raises(ValueError, match="reduction"):
        C.nll_loss(lp, t, None, 3)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        C.nll_loss(rn(2, 3, 4), t)


# ---- how tensors are passed ------------------------------------------------------------------

def test_zero_copy_inputs_and_output_allocation():
    x = rn(64, 1024, seed=32)  # 256 KiB: outputs come from cannon's caching allocator
    y1 = C.softmax(x, 1)
    assert y1._base is None and y1.is_contiguous()
    p1 = y1.data_ptr()
    del y1
    y2 = C.softmax(x, 1)  # the freed block is reused (no new page faults)
    assert y2.data_ptr() == p1
    y2.relu_()  # outputs are ordinary tensors: in-place ops work, also on autograd outputs
    z = C.softmax(x.clone().requires_grad_(), 1)
    z.mul_(2)
    ct.set_device_alloc(False)
    try:
        y3 = C.softmax(x, 1)
    finally:
        ct.set_device_alloc(True)
    close(y3, torch.softmax(x, 1), 1e-6)
    # a view into a larger tensor is read in place, through its offset and strides
    big = rn(10, 40, seed=33)
    v = big[2:7, 5:30]
    close(C.softmax(v, 1), torch.softmax(v, 1), 1e-6)


def test_descriptor_pool_reuse_and_bound():
    from cannon.torch import _bridge
    # same layout, different memory: a pooled descriptor must follow the new address
    xs = [rn(16, 48, seed=40 + i) for i in range(3)]
    outs = [torch.empty(16, 48) for _ in xs]
    for x, o in zip(xs, outs):
        C.softmax.out(x, 1, out=o)  # x and out share a layout: two descriptors in one call
    for x, o in zip(xs, outs):
        close(o, torch.softmax(x, 1), 1e-6)
    # a failed call (aclnn rejects a float64 weight for an fp32 input) does not poison the pool
    with pytest.raises(Exception):
        C.layer_norm(xs[0], [48], torch.ones(48, dtype=torch.float64), None)
    close(C.layer_norm(xs[0], [48], torch.ones(48), None), F.layer_norm(xs[0], [48], torch.ones(48)), 1e-5)
    # many layouts and int arrays: the pool stays bounded (it is emptied between calls, never
    # during one) and results stay right
    for n in range(1, 300):
        x = rn(2, n, seed=n)
        close(C.softmax(x, 1), torch.softmax(x, 1), 1e-6)
        close(C.layer_norm(x, [n]), F.layer_norm(x, [n]), 1e-5)
    assert _bridge._thread().count <= _bridge._POOL_MAX + 8


def test_determinism_across_calls():
    x = rn(33, 517, seed=34)
    a, b = C.log_softmax(x, 1), C.log_softmax(x, 1)
    assert torch.equal(a, b)


# ---- SyncBatchNorm in one process (world size 1: the batch_norm path) ------------------------

def test_syncbatchnorm_single_process_matches_batchnorm():
    torch.manual_seed(0)
    ref = torch.nn.BatchNorm2d(4, momentum=0.2)
    m = ct.SyncBatchNorm(4, momentum=0.2)
    m.load_state_dict(ref.state_dict())
    assert set(m.state_dict()) == set(torch.nn.SyncBatchNorm(4).state_dict())
    # a _BatchNorm but not a torch SyncBatchNorm, which DistributedDataParallel rejects on CPU
    assert isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and not isinstance(m, torch.nn.SyncBatchNorm)
    assert m.process_group is None and ct.SyncBatchNorm(4, process_group="g").process_group == "g"
    for step in range(3):
        x = rn(6, 4, 3, 3, seed=40 + step)
        xr, xm = x.clone().requires_grad_(), x.clone().requires_grad_()
        yr, ym = ref(xr), m(xm)
        close(ym, yr, 1e-5)
        g = rn(6, 4, 3, 3, seed=50 + step)
        yr.backward(g)
        ym.backward(g)
        close(xm.grad, xr.grad, 1e-5)
        close(m.weight.grad, ref.weight.grad, 5e-5)
        close(m.bias.grad, ref.bias.grad, 5e-5)
    close(m.running_mean, ref.running_mean, 1e-6)
    close(m.running_var, ref.running_var, 1e-6)
    assert int(m.num_batches_tracked) == 3
    m.eval()
    ref.eval()
    x = rn(2, 4, 3, 3, seed=60)
    close(m(x), ref(x), 1e-5)


def test_syncbatchnorm_options_and_convert():
    # momentum None: cumulative moving average; no affine; no tracked stats
    for kw in ({"momentum": None}, {"affine": False}, {"track_running_stats": False}):
        ref, m = torch.nn.BatchNorm1d(3, **kw), ct.SyncBatchNorm(3, **kw)
        for step in range(2):
            x = rn(5, 3, 4, seed=70 + step)
            close(m(x), ref(x), 1e-5)
        if ref.running_mean is not None:
            close(m.running_mean, ref.running_mean, 1e-6)
            close(m.running_var, ref.running_var, 1e-6)
        m.eval()
        ref.eval()
        close(m(rn(2, 3, 4, seed=80)), ref(rn(2, 3, 4, seed=80)), 1e-5)
    net = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3),
                              torch.nn.Sequential(torch.nn.BatchNorm1d(3)), torch.nn.SyncBatchNorm(3))
    net[1].running_mean.fill_(0.5)
    keys = set(net.state_dict())
    conv = ct.SyncBatchNorm.convert_sync_batchnorm(net, process_group=None)
    assert type(conv[1]) is ct.SyncBatchNorm and type(conv[2][0]) is ct.SyncBatchNorm
    assert type(conv[3]) is ct.SyncBatchNorm and type(conv[0]) is torch.nn.Conv2d
    assert conv[1].weight is net[1].weight and float(conv[1].running_mean[0]) == 0.5
    assert set(conv.state_dict()) == keys
    with pytest.raises(ValueError, match="expected at least 2D input"):
        ct.SyncBatchNorm(3)(rn(3))
    with pytest.raises(ValueError, match="should be non-zero"):
        ct.SyncBatchNorm(0)(rn(2, 0))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        torch.nn.functional.batch_norm(rn(1, 3), None, None, training=True)  # torch's rule we mirror below
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        from cannon.torch.nn import _SyncBN
        _SyncBN.apply(rn(1, 3), None, None, None, None, 1e-5, 0.1, None, 1)
