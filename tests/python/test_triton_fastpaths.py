"""cannon.triton's compiled fast paths against float64 and numpy: the polynomial exp/exp2 (within
2 ulp over the whole fp32 range, specials exact), fp32 division of a tile by one scalar (the
reciprocal-and-correction path gives numpy's bits, in and out of its range), max/min reductions
(NaN wins, first of ties), masks computed from affine lanes (full, partial and wrapping tiles) and
chains of elementwise ops fused into one loop (the same bits as the interpreter)."""
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


def _ulps(got, want64):
    """|got - want| in units of the last place of fp32 at want (subnormal spacing below)."""
    want = want64.astype(np.float64)
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


@triton.jit
def _unary(x_ptr, y_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if OP == 0:
        y = tl.exp(x)
    else:
        y = tl.exp2(x)
    tl.store(y_ptr + offs, y, mask=m)


@pytest.mark.parametrize("op", [0, 1])
def test_exp_within_2_ulp(op):
    rng = np.random.default_rng(1)
    lo, hi = (-104.0, 88.7) if op == 0 else (-150.0, 127.99)
    x = np.concatenate([rng.uniform(lo, hi, 200_000), rng.uniform(-1, 1, 50_000),
                        np.linspace(lo, hi, 50_001)]).astype(np.float32)
    y = torch.empty(len(x))
    _unary[(triton.cdiv(len(x), 1024),)](torch.from_numpy(x), y, len(x), OP=op, BLOCK=1024)
    assert _unary.last_mode == "compiled"
    x64 = x.astype(np.float64)
    want = np.exp(x64) if op == 0 else np.exp2(x64)
    assert _ulps(y.numpy(), want).max() <= 2.0


@pytest.mark.parametrize("op", [0, 1])
def test_exp_specials(op):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 89.0, 128.5, -200.0, 1e30, -1e30, 88.72, -103.9, -87.5,
                  -149.5, 1e-30], np.float32)
    y = torch.empty(len(x))
    _unary[(1,)](torch.from_numpy(x), y, len(x), OP=op, BLOCK=16)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x.astype(np.float64)) if op == 0 else np.exp2(x.astype(np.float64))
    got = y.numpy()
    assert np.isnan(got[0])
    fin = ~np.isnan(want)
    with np.errstate(over="ignore"):
        w32 = want[fin].astype(np.float32)
    # infinities and zeros exact, the rest within 2 ulp (subnormal results within 2 of their spacing)
    assert np.all(np.isinf(got[fin]) == np.isinf(w32))
    ok = ~np.isinf(w32)
    assert _ulps(got[fin][ok], want[fin][ok]).max() <= 2.0


@triton.jit
def _div_row(x_ptr, y_ptr, s_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=m, other=1.0)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + row * n + cols, x / s, mask=m)


def test_division_by_scalar_is_exact():
    rng = np.random.default_rng(2)
    rows, n = 512, 1000
    x = (rng.standard_normal((rows, n)) * np.exp2(rng.integers(-30, 30, (rows, 1)))).astype(np.float32)
    s = (rng.standard_normal(rows) * np.exp2(rng.integers(-30, 30, rows))).astype(np.float32)
    # rows out of the fast path's range: tiny, huge and special divisors and dividends
    s[:8] = [0.0, -0.0, np.inf, np.nan, 1e-39, 3e38, 1e-20, 1e20]
    x[8, :5] = [0.0, -0.0, np.inf, np.nan, 1e-40]
    x[9, 0] = 3e38
    x[10, :] = 0.0
    x[10, 1::2] = -0.0
    y = torch.empty(rows, n)
    _div_row[(rows,)](torch.from_numpy(x), y, torch.from_numpy(s), n, BLOCK=1024)
    assert _div_row.last_mode == "compiled"
    with np.errstate(all="ignore"):
        want = x / s[:, None]
    got = y.numpy()
    assert np.array_equal(got.view(np.uint32)[~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
    assert np.array_equal(np.isnan(got), np.isnan(want))


@triton.jit
def _rowmax(x_ptr, y_ptr, n, MAX: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=float("-inf") if MAX else float("inf"))
    if MAX:
        r = tl.max(x, axis=0)
    else:
        r = tl.min(x, axis=0)
    tl.store(y_ptr + row, r)


@pytest.mark.parametrize("is_max", [True, False])
def test_max_min_nan_and_zeros(is_max):
    rng = np.random.default_rng(3)
    rows, n = 16, 300
    x = rng.standard_normal((rows, n)).astype(np.float32)
    x[1, 17] = np.nan
    x[2, 299] = np.nan
    x[3, 0] = np.nan
    x[4, :] = 0.0
    x[4, 5] = -0.0
    x[5, :] = np.inf if is_max else -np.inf
    y = torch.empty(rows)
    _rowmax[(rows,)](torch.from_numpy(x), y, n, MAX=is_max, BLOCK=512)
    want = x.max(axis=1) if is_max else x.min(axis=1)
    got = y.numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(got[ok], want[ok])


@triton.jit
def _axpy(x_ptr, y_ptr, o_ptr, a, n, start, BLOCK: tl.constexpr):
    offs = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(o_ptr + offs, tl.exp(x * a + y) - y / a, mask=m)


@pytest.mark.parametrize("n", [4096, 5000, 100, 1])
def test_fused_chain_and_affine_masks(n):
    rng = np.random.default_rng(4)
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    out = torch.full((n + 64,), 7.0)
    _axpy[(triton.cdiv(n, 1024),)](x, y, out, 0.75, n, 0, BLOCK=1024)
    assert _axpy.last_mode == "compiled"
    x64, y64 = x.double().numpy(), y.double().numpy()
    want = np.exp((x.numpy() * np.float32(0.75) + y.numpy()).astype(np.float64)) - (y.numpy() / np.float32(0.75))
    assert np.allclose(out[:n].numpy(), want, rtol=3e-7, atol=1e-6)
    assert torch.all(out[n:] == 7.0)  # masked lanes never written
    del x64, y64


@triton.jit
def _wrapmask(x_ptr, o_ptr, start, n, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    m = start + lanes < n
    x = tl.load(x_ptr + lanes, mask=m, other=-1.0)
    tl.store(o_ptr + lanes, x)


def test_mask_with_wrapping_offsets():
    # start + lane wraps past INT32_MAX inside the block: both end lanes are on but lane 7 (== n)
    # is off, so "every lane on" must not be concluded from the end lanes
    x = torch.arange(16, dtype=torch.float32)
    out = torch.empty(16)
    _wrapmask[(1,)](x, out, 2**31 - 8, 2**31 - 1, BLOCK=16)
    want = x.clone()
    want[7] = -1.0
    assert torch.equal(out, want)
    _wrapmask[(1,)](x, out, 0, 16, BLOCK=16)
    assert torch.equal(out, x)
    _wrapmask[(1,)](x, out, 0, 9, BLOCK=16)
    assert torch.equal(out[:9], x[:9]) and torch.all(out[9:] == -1.0)


@triton.jit
def _chain(x_ptr, y_ptr, o_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(o_ptr + offs, tl.where(x > 0, (x * a + y) * x - y / a, -x), mask=m)


def test_fused_chain_matches_interpreter(monkeypatch):
    rng = np.random.default_rng(5)
    n = 3000
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32))
    a = torch.empty(n)
    _chain[(triton.cdiv(n, 512),)](x, y, a, 1.5, n, BLOCK=512)
    assert _chain.last_mode == "compiled"
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    b = torch.empty(n)
    _chain[(triton.cdiv(n, 512),)](x, y, b, 1.5, n, BLOCK=512)
    assert torch.equal(a, b)  # IEEE operations only: the same bits


@triton.jit
def _mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("isa", ["", "avx2", "scalar", "mask:0x3f"])
@pytest.mark.parametrize("bm", [32, 4])
def test_bf16_dot_tiers_against_float64(isa, bm, monkeypatch):
    """bf16 tiles through the bf16 dot-product instruction (where the CPU has it: pairs of exact
    products, fp32 sums) and through the widening fp32 kernel of the lower tiers: both close to
    float64, specials (inf, NaN) propagated."""
    if isa.startswith("mask:"):
        monkeypatch.setenv("CANNON_CPU_ISA", isa[5:])  # every bit but AVX512BF16
    elif isa:
        monkeypatch.setenv("CANNON_ISA", isa)
    g = torch.Generator().manual_seed(7)
    M, N, K = 70, 96, 200
    a = torch.randn(M, K, generator=g).bfloat16()
    b = torch.randn(K, N, generator=g).bfloat16()
    a[3, 5] = float("inf")
    b[9, 40] = float("nan")
    c = torch.empty(M, N)
    _mm[(triton.cdiv(M, bm), triton.cdiv(N, 32))](a, b, c, M, N, K, BM=bm, BN=32, BK=32)
    assert _mm.last_mode == "compiled", _mm.fallback_reason
    ref = a.double() @ b.double()
    assert torch.equal(torch.isnan(c), torch.isnan(ref)) and torch.equal(torch.isinf(c), torch.isinf(ref))
    fin = torch.isfinite(ref)
    err = (c.double() - ref).abs()[fin]
    bound = (a.double().abs() @ b.double().abs())[fin] * 2.0 ** -22 * K
    assert torch.all(err <= bound)


@triton.jit
def _mm16(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=rk[None, :] < K, other=0.0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=rk[:, None] < K, other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@pytest.mark.parametrize("bm,bn", [(32, 64), (16, 16)])
def test_fp16_dot_accumulates_in_k_order(bm, bn):
    """fp16 tiles into an fp32 accumulator: every product (exact in fp32) is added in k order to
    the accumulator itself across the K blocks, then rounded once to fp16; the same bits as the
    k-order fp32 sum and as `python -m cannon.triton`'s fp16 torch.matmul stand-in."""
    from cannon.triton.__main__ import _half_matmul_fp32
    g = torch.Generator().manual_seed(8)
    M, N, K = 64, 64, 200
    a = torch.randn(M, K, generator=g).half()
    b = torch.randn(K, N, generator=g).half()
    c = torch.empty(M, N, dtype=torch.float16)
    _mm16[(M // bm, N // bn)](a, b, c, M, N, K, BM=bm, BN=bn, BK=32)
    assert _mm16.last_mode == "compiled", _mm16.fallback_reason
    acc = np.zeros((M, N), np.float32)
    A, B = a.float().numpy(), b.float().numpy()
    for k in range(K):
        acc += np.outer(A[:, k], B[k, :]).astype(np.float32)
    assert torch.equal(c, torch.from_numpy(acc).half())
    assert torch.equal(c, _half_matmul_fp32(torch, torch.matmul, a, b).half())


@triton.jit
def _as_desc(d, shape, strides, block_shape):
    if isinstance(d, tl.tensor_descriptor):
        return d
    else:
        return tl.make_tensor_descriptor(d, shape, strides, block_shape)


@triton.jit
def _desc_axpb(xd, yd, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = _as_desc(xd, [M, N], [N, 1], [BM, BN])
    yd = _as_desc(yd, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    yd.store([pm * BM, pn * BN], xd.load([pm * BM, pn * BN]) * 2.0 + 1.0)


@pytest.mark.parametrize("interpret", [False, True])
@pytest.mark.parametrize("host", [True, False])
def test_host_tensor_descriptor(interpret, host, monkeypatch):
    """triton.tools.tensor_descriptor.TensorDescriptor made on the host is a tl.tensor_descriptor
    in the kernel (compiled: its base, shape and strides travel as arguments); edge blocks read
    zeros and write nothing outside."""
    from cannon.triton.tools.tensor_descriptor import TensorDescriptor
    if interpret:
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    M, N = 50, 70
    x = torch.randn(M, N)
    big = torch.full((M + 2, N), -5.0)
    y = big[1:M + 1]
    if host:
        a, b = TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor(y, [M, N], [N, 1], [16, 32])
    else:
        a, b = x, y
    _desc_axpb[(triton.cdiv(M, 16), triton.cdiv(N, 32))](a, b, M, N, BM=16, BN=32)
    assert _desc_axpb.last_mode == ("interpreter" if interpret else "compiled"), _desc_axpb.fallback_reason
    assert torch.equal(y, x * 2 + 1)
    assert torch.all(big[0] == -5.0) and torch.all(big[-1] == -5.0)
    with pytest.raises(ValueError):
        TensorDescriptor(x, [M, N], [1, M], [16, 32])


@triton.jit
def _shift_store(p, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(p + offs, mask=offs < n)
    tl.store(p + SHIFT + offs, x * 2.0 + 1.0, mask=offs < n)


@pytest.mark.parametrize("shift", [1, -3, 0, 4096])
@pytest.mark.parametrize("n", [1024, 1000])
def test_fused_store_over_its_own_input(shift, n):
    """A store whose fused value reads memory it overwrites (an in-place shifted update) sees the
    values loaded before it, as the program order says."""
    buf = torch.arange(8000, dtype=torch.float32)
    base = 2000
    want = buf.clone()
    want[base + shift:base + shift + n] = buf[base:base + n] * 2.0 + 1.0
    _shift_store[(1,)](buf[base:], n, SHIFT=shift, BLOCK=1024)
    assert _shift_store.last_mode == "compiled", _shift_store.fallback_reason
    assert torch.equal(buf, want)
