"""cannon.triton's compiled mode on the rest of the language: atomics (under contention across
worker threads, counts exact; fp16/bf16 through compare-and-swap loops; masked lanes untouched),
block pointers and tensor descriptors with boundary checks and padding, 3-D dot, tl.reduce with a
combine function, associative_scan/cumsum/cumprod, split/join, device_print and device_assert, each
compiled and interpreted on copies of the same inputs, and checked against float64/numpy references."""
import os

import numpy as np
import pytest
import torch

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton.compiler import build

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "triton-cache"))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("CANNON_TRITON_BOUNDS", raising=False)
    monkeypatch.delenv("CANNON_TRITON_CHECK", raising=False)


def both(kernel, grid, make_args, **meta):
    comp = make_args()
    kernel[grid](*comp, **meta)
    assert kernel.last_mode == "compiled", kernel.fallback_reason
    interp = make_args()
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        kernel[grid](*interp, **meta)
    finally:
        del os.environ["TRITON_INTERPRET"]
    assert kernel.last_mode == "interpreter"
    return comp, interp


def same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.is_floating_point():
        return torch.equal(a.view(torch.int16 if a.element_size() == 2 else
                                  torch.int32 if a.element_size() == 4 else torch.int64),
                           b.view(torch.int16 if b.element_size() == 2 else
                                  torch.int32 if b.element_size() == 4 else torch.int64))
    return torch.equal(a, b)


# ---- atomics ------------------------------------------------------------------------------------

@triton.jit
def count_kernel(x, counts, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m, other=0)
    tl.atomic_add(counts + v % NB, 1, mask=m)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float64, torch.float16])
def test_atomic_add_histogram_under_contention(dtype):
    n, nb = 100_000, 7
    x = torch.randint(0, 1000, (n,), dtype=torch.int32)
    counts = torch.zeros(nb, dtype=dtype)
    count_kernel[(triton.cdiv(n, 64),)](x, counts, n, NB=nb, BLOCK=64, num_cpu_threads=4)
    assert count_kernel.last_mode == "compiled", count_kernel.fallback_reason
    ref = np.bincount(x.numpy() % nb, minlength=nb)
    if dtype in (torch.float16, torch.bfloat16):
        # counts above 2048 (fp16) / 256 (bf16) are no longer exact in 16 bits: count to a smaller total
        return _small_16bit(dtype)
    assert counts.double().tolist() == ref.astype(np.float64).tolist()


def _small_16bit(dtype):
    n = 200
    x = torch.arange(n, dtype=torch.int32)
    counts = torch.zeros(4, dtype=dtype)
    count_kernel[(n,)](x, counts, n, NB=4, BLOCK=1, num_cpu_threads=4)
    assert counts.tolist() == [50.0, 50.0, 50.0, 50.0]


@triton.jit
def atomic_ops_kernel(p, vals, old, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(vals + offs, mask=m, other=0)
    if OP == "max":
        o = tl.atomic_max(p + offs % 4, v, mask=m)
    elif OP == "min":
        o = tl.atomic_min(p + offs % 4, v, mask=m)
    elif OP == "xchg":
        o = tl.atomic_xchg(p + offs, v, mask=m)
    elif OP == "and":
        o = tl.atomic_and(p + offs % 4, v, mask=m)
    elif OP == "or":
        o = tl.atomic_or(p + offs % 4, v, mask=m)
    elif OP == "xor":
        o = tl.atomic_xor(p + offs % 4, v, mask=m)
    else:
        o = tl.atomic_cas(p + offs, tl.full([BLOCK], 3, tl.int32).to(v.dtype), v)
    tl.store(old + offs, o)


@pytest.mark.parametrize("op,dtype", [("max", torch.int32), ("max", torch.float16), ("min", torch.float32),
                                      ("min", torch.int64), ("xchg", torch.bfloat16), ("and", torch.int64),
                                      ("or", torch.int32), ("xor", torch.int32), ("cas", torch.int32),
                                      ("cas", torch.float32)])
def test_atomic_ops_match_interpreter(op, dtype):

    def make():
        vals = torch.randint(-50, 50, (64,), generator=torch.Generator().manual_seed(2)).to(dtype)
        p = torch.tensor([3, -7, 100, 3] * 16, dtype=dtype)
        return [p, vals, torch.full((64,), -1, dtype=dtype), 61]
    comp, interp = both(atomic_ops_kernel, (1,), make, OP=op, BLOCK=64)
    # one program: lanes run in order in both modes, so old values and memory agree bit for bit
    assert same(comp[0], interp[0]) and same(comp[2], interp[2])
    # masked lanes (61..63) are untouched and return 0
    assert comp[2][61:].tolist() == [0, 0, 0] or op == "cas"


@triton.jit
def fmax_kernel(p, vals, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_max(p, tl.load(vals + offs, mask=m, other=-1.0), mask=m)
    tl.atomic_min(p + 1, tl.load(vals + offs, mask=m, other=-1.0), mask=m)


def test_atomic_float_max_min_contention():
    vals = torch.randn(50_000, dtype=torch.float64).float()
    p = torch.tensor([-1e30, 1e30])
    fmax_kernel[(triton.cdiv(50_000, 128),)](vals=vals, p=p, n=50_000, BLOCK=128, num_cpu_threads=4)
    assert fmax_kernel.last_mode == "compiled"
    assert p.tolist() == [vals.max().item(), vals.min().item()]


# ---- block pointers and tensor descriptors --------------------------------------------------------

@triton.jit
def bp_copy_kernel(x, y, M, N, sxm, sxn, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(x, shape=(M, N), strides=(sxm, sxn), offsets=(pm * BM, 0), block_shape=(BM, BN),
                            order=(1, 0))
    dst = tl.make_block_ptr(y, shape=(M, N), strides=(N, 1), offsets=(pm * BM, 0), block_shape=(BM, BN),
                            order=(1, 0))
    src = tl.advance(src, (0, pn * BN))
    dst = tl.advance(dst, (0, pn * BN))
    if PAD == "nan":
        v = tl.load(src, boundary_check=(0, 1), padding_option="nan")
    else:
        v = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst, v * 2.0 + 1.0, boundary_check=(0, 1))


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_block_pointer_boundary_checks(pad):
    M, N = 37, 53
    base = torch.randn(N, M, dtype=torch.float64).float()

    def make():
        x = base.t()  # a strided view: strides (1, M)
        y = torch.full((M + 8, N), 7.0)
        return [x, y, M, N, x.stride(0), x.stride(1)]
    comp, interp = both(bp_copy_kernel, (triton.cdiv(M, 16), triton.cdiv(N, 32)), make, BM=16, BN=32, PAD=pad)
    assert same(comp[1], interp[1])
    ref = base.t().double() * 2 + 1
    assert torch.equal(comp[1][:M].double(), ref.float().double())
    assert torch.all(comp[1][M:] == 7.0)  # rows past the boundary are never written


@triton.jit
def bp_loop_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    ap = tl.make_block_ptr(a, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))
    bp = tl.make_block_ptr(b, (K, N), (N, 1), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(ap, boundary_check=(0, 1)), tl.load(bp, boundary_check=(0, 1)))
        ap = tl.advance(ap, (0, BK))
        bp = tl.advance(bp, (BK, 0))
    cp = tl.make_block_ptr(c, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(cp, acc, boundary_check=(0, 1))


def test_block_pointers_carried_through_a_loop():
    M, N, K = 45, 38, 70
    A = torch.randn(M, K, dtype=torch.float64)
    B = torch.randn(K, N, dtype=torch.float64)
    comp, interp = both(bp_loop_matmul, (triton.cdiv(M, 16), triton.cdiv(N, 16)),
                        lambda: [A.float(), B.float(), torch.zeros(M, N), M, N, K], BM=16, BN=16, BK=16)
    assert torch.allclose(comp[2].double(), A @ B, rtol=1e-4, atol=1e-4)
    assert torch.allclose(comp[2], interp[2], rtol=1e-5, atol=1e-5)


@triton.jit
def desc_kernel(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    d_in = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    d_out = tl.make_tensor_descriptor(y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    v = d_in.load([pm * BM, pn * BN])
    d_out.store([pm * BM, pn * BN], v + 1)


def test_tensor_descriptors():
    M, N = 19, 45
    comp, interp = both(desc_kernel, (2, 3), lambda: [torch.arange(M * N, dtype=torch.int32).reshape(M, N),
                                                      torch.zeros(M, N, dtype=torch.int32), M, N], BM=16, BN=16)
    assert torch.equal(comp[1], interp[1])
    assert torch.equal(comp[1], torch.arange(M * N, dtype=torch.int32).reshape(M, N) + 1)


# ---- 3-D dot, reduce, scans, split/join ------------------------------------------------------------

@triton.jit
def bmm_kernel(a, b, c, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    ib = tl.arange(0, B)[:, None, None]
    im = tl.arange(0, M)[None, :, None]
    ik = tl.arange(0, K)[None, None, :]
    ikr = tl.arange(0, K)[None, :, None]
    jn = tl.arange(0, N)[None, None, :]
    x = tl.load(a + ib * M * K + im * K + ik)
    y = tl.load(b + ib * K * N + ikr * N + jn)
    tl.store(c + ib * M * N + im * N + jn, tl.dot(x, y))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_dot_3d(dtype):
    A = torch.randn(4, 16, 32, dtype=torch.float64)
    Bm = torch.randn(4, 32, 16, dtype=torch.float64)
    comp, interp = both(bmm_kernel, (1,), lambda: [A.to(dtype), Bm.to(dtype), torch.zeros(4, 16, 16)],
                        B=4, M=16, N=16, K=32)
    ref = torch.bmm(A.to(dtype).double(), Bm.to(dtype).double())
    assert torch.allclose(comp[2].double(), ref, rtol=1e-5, atol=1e-4)
    assert torch.allclose(comp[2], interp[2], rtol=1e-5, atol=1e-5)


@triton.jit
def _mul_combine(a, b):
    return a * b + 1


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def reduce_scan_kernel(x, r0, r1, s0, s1, s2, s3, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    v = tl.load(x + offs)
    tl.store(r0 + tl.arange(0, R), tl.reduce(v, 1, _mul_combine))
    tl.store(r1 + tl.arange(0, C), tl.reduce(v, 0, _max_combine))
    tl.store(s0 + offs, tl.associative_scan(v, 1, _mul_combine))
    tl.store(s1 + offs, tl.cumsum(v, 0, reverse=True))
    tl.store(s2 + offs, tl.cumprod(v, 1))
    tl.store(s3 + offs, tl.associative_scan(v, 0, _max_combine, reverse=True))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float16, torch.float64])
def test_reduce_and_scans(dtype):
    R, C = 8, 16
    x = (torch.rand(R, C, generator=torch.Generator().manual_seed(3)) * 2).to(dtype)
    if not dtype.is_floating_point:
        x = torch.randint(-3, 4, (R, C), generator=torch.Generator().manual_seed(3), dtype=dtype)

    def make():
        return [x.clone()] + [torch.zeros(R, dtype=dtype), torch.zeros(C, dtype=dtype)] + \
            [torch.zeros(R, C, dtype=dtype) for _ in range(4)]
    comp, interp = both(reduce_scan_kernel, (1,), make, R=R, C=C)
    for c, i in zip(comp[1:], interp[1:]):
        assert same(c, i)
    if dtype == torch.float64:
        xd = x.double()
        assert torch.equal(comp[1 + 1], xd.max(0).values)
        assert torch.allclose(comp[1 + 3], xd.flip(0).cumsum(0).flip(0))
        assert torch.allclose(comp[1 + 4], xd.cumprod(1))
        acc = xd[:, 0].clone()
        for j in range(1, C):
            acc = acc * xd[:, j] + 1
        assert torch.allclose(comp[1], acc)


@triton.jit
def split_join_kernel(x, y, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(x + offs)
    b = tl.load(y + offs)
    j = tl.join(a, b)                      # [N, 2]
    lo, hi = tl.split(j * 2)
    tl.store(out + offs, lo - hi)
    tl.store(out + N + tl.arange(0, 2 * N), tl.reshape(j, [2 * N]))


def test_split_join():
    N = 32
    x, y = torch.randn(N), torch.randn(N)
    comp, interp = both(split_join_kernel, (1,), lambda: [x, y, torch.zeros(3 * N)], N=N)
    assert same(comp[2], interp[2])
    assert torch.equal(comp[2][:N], x * 2 - y * 2)
    assert torch.equal(comp[2][N:], torch.stack([x, y], 1).reshape(-1))


# ---- debugging ----------------------------------------------------------------------------------

@triton.jit
def print_assert_kernel(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0)
    tl.device_print("vals", v)
    tl.device_assert(v < 100, "too big", mask=offs < n)


def test_device_print_and_assert(capfd):
    x = torch.tensor([1, 2, 3, 500], dtype=torch.int32)
    print_assert_kernel[(1,)](x, 3, BLOCK=4)
    assert print_assert_kernel.last_mode == "compiled", print_assert_kernel.fallback_reason
    out = capfd.readouterr().out
    assert "pid (0, 0, 0) vals [1 2 3 0]" in out
    with pytest.raises(AssertionError, match="too big"):
        print_assert_kernel[(1,)](x, 4, BLOCK=4)


# ---- check mode and the vectorization report ------------------------------------------------------

@triton.jit
def saxpy_kernel(x, y, out, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, a * tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def test_check_mode_agrees_and_reports_the_first_difference(monkeypatch, capsys):
    import importlib
    jit_mod = importlib.import_module("cannon.triton.runtime.jit")
    monkeypatch.setenv("CANNON_TRITON_CHECK", "1")
    x, y = torch.randn(1000), torch.randn(1000)
    out = torch.zeros(1000)
    saxpy_kernel[(8,)](x, y, out, 2.5, 1000, BLOCK=128)
    assert saxpy_kernel.last_mode == "compiled" and saxpy_kernel.check_report is None
    assert torch.equal(out, 2.5 * x + y)
    # a disagreement (the interpreter's copy of `out` changed after its run) is reported with the
    # first differing index and both values; the caller's tensors hold the compiled results
    orig = jit_mod.JITFunction._interpret

    def skewed(self, bound, grid, options):
        r = orig(self, bound, grid, options)
        bound["out"][7] += 1.0
        bound["out"][9] += 1.0
        return r
    monkeypatch.setattr(jit_mod.JITFunction, "_interpret", skewed)
    out2 = torch.zeros(1000)
    saxpy_kernel[(8,)](x, y, out2, 2.5, 1000, BLOCK=128)
    rep = saxpy_kernel.check_report
    assert rep is not None and "'out'" in rep and "index (7,)" in rep
    assert f"compiled {out2[7].item()!r}" in rep and f"interpreted {(out2[7] + 1.0).item()!r}" in rep
    assert rep in capsys.readouterr().err
    assert torch.equal(out2, 2.5 * x + y)


def test_vectorization_report(monkeypatch, capsys):
    monkeypatch.setenv("CANNON_TRITON_VECREPORT", "1")
    x, y = torch.randn(300), torch.randn(300)
    out = torch.zeros(300)
    saxpy_kernel[(3,)](x, y, out, -1.0, 300, BLOCK=128)
    assert torch.equal(out, y - x)
    err = capsys.readouterr().err
    assert "vectorization report" in err
    path = err.split("vectorization report (", 1)[1].split(")", 1)[0]
    assert os.path.exists(path) and os.path.exists(os.path.join(os.path.dirname(path), "kernel.c"))


# ---- launches through cannon's kernel-launch interface ---------------------------------------------

def test_launch_on_cannon_streams():
    import importlib
    from cannon import runtime
    jit_mod = importlib.import_module("cannon.triton.runtime.jit")
    runtime.ensure_initialized()
    calls = []
    orig = jit_mod._launch_stream

    def spy(*a):
        calls.append(a[5:7])
        return orig(*a)
    jit_mod._launch_stream = spy
    try:
        # the thread's current stream: synchronous, like the direct path
        x, y = torch.randn(5000), torch.randn(5000)
        out = torch.zeros(5000)
        saxpy_kernel[(40,)](x, y, out, 3.0, 5000, BLOCK=128)
        assert saxpy_kernel.last_mode == "compiled" and calls and calls[-1][1] is True
        assert torch.equal(out, 3.0 * x + y)
        # an explicit stream: asynchronous until the stream is synchronized
        with runtime.Stream() as s:
            out2 = torch.zeros(5000)
            saxpy_kernel[(40,)](x, y, out2, 0.5, 5000, BLOCK=128, stream=s)
            assert calls[-1] == (s.handle, False)
            s.synchronize()
            assert torch.equal(out2, 0.5 * x + y)
            # a failing runtime check is the stream's error, not a crash
            v = torch.tensor([1, 2, 3, 500], dtype=torch.int32)
            print_assert_kernel[(1,)](v, 4, BLOCK=4, stream=s)
            with pytest.raises(Exception, match="too big"):
                s.synchronize()
        # the same check on the current stream raises AssertionError with the kernel's file and line
        with pytest.raises(AssertionError, match=r"test_triton_compiled2.py:\d+: device assertion failed: too big"):
            print_assert_kernel[(1,)](v, 4, BLOCK=4)
        # atomics under contention across the device's workers
        xs = torch.randint(0, 1000, (20000,), dtype=torch.int32)
        counts = torch.zeros(5, dtype=torch.int64)
        count_kernel[(triton.cdiv(20000, 64),)](xs, counts, 20000, NB=5, BLOCK=64)
        assert counts.tolist() == np.bincount(xs.numpy() % 5, minlength=5).tolist()
    finally:
        jit_mod._launch_stream = orig


@triton.jit
def shift_kernel(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + 1 + offs, tl.load(p + offs))


def test_load_then_overlapping_store():
    # the loaded tile may be a view of the memory itself: a store overlapping it must still see
    # the values as loaded
    x = torch.arange(300, dtype=torch.float32)
    shift_kernel[(1,)](x, BLOCK=256)
    assert shift_kernel.last_mode == "compiled"
    ref = torch.arange(300, dtype=torch.float32)
    ref[1:257] = torch.arange(256, dtype=torch.float32)
    assert torch.equal(x, ref)
