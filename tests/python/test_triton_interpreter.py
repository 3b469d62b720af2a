"""cannon.triton's interpreter: the project's own kernels against numpy/torch references, float64
where rounding matters (masked loads, integer division, reductions per axis, dot per input dtype,
atomics, block pointers, casts, shape functions, loops, bounds checking and error messages)."""
import numpy as np
import pytest
import torch

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton.errors import OutOfBoundsError

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64,
         "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
         "uint8": torch.uint8}


# ---- loads and stores ---------------------------------------------------------------------------

@triton.jit
def masked_copy(src, dst, n, OTHER: tl.constexpr, USE_OTHER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if USE_OTHER:
        v = tl.load(src + offs, mask=offs < n, other=OTHER)
    else:
        v = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, v)


def test_masked_load_with_other_fills_masked_lanes():
    src = torch.arange(10, dtype=torch.float32)
    dst = torch.full((16,), 7.0)
    masked_copy[(1,)](src, dst, 10, OTHER=-1.5, USE_OTHER=True, BLOCK=16)
    assert dst.tolist() == list(range(10)) + [-1.5] * 6


def test_masked_load_other_is_cast_to_element_type():
    src = torch.arange(10, dtype=torch.int16)
    dst = torch.zeros(16, dtype=torch.int16)
    masked_copy[(1,)](src, dst, 10, OTHER=3.75, USE_OTHER=True, BLOCK=16)
    assert dst.tolist() == list(range(10)) + [3] * 6


def test_masked_lanes_are_never_dereferenced():
    # the source is a 10-element tensor; masked lanes would read past it: bounds checking proves
    # that they are not touched
    src = torch.arange(10, dtype=torch.float32)
    dst = torch.zeros(16)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CANNON_TRITON_BOUNDS", "1")
        masked_copy[(1,)](src, dst, 10, OTHER=0.0, USE_OTHER=False, BLOCK=16)
    assert dst[:10].tolist() == list(range(10))


@triton.jit
def scalar_ptr_kernel(x, out):
    v = tl.load(x + 3)
    tl.store(out, v * 2)
    tl.store(out + 1, tl.load(x))


def test_scalar_pointers():
    x = torch.tensor([1.0, 2.0, 3.0, 4.5])
    out = torch.zeros(2)
    scalar_ptr_kernel[(1,)](x, out)
    assert out.tolist() == [9.0, 1.0]


@triton.jit
def oob_kernel(x, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs))


def test_bounds_check_reports_line_and_lane(monkeypatch):
    monkeypatch.setenv("CANNON_TRITON_BOUNDS", "1")
    x = torch.zeros(12)
    out = torch.zeros(16)
    with pytest.raises(OutOfBoundsError) as e:
        oob_kernel[(1,)](x, out, BLOCK=16)
    msg = str(e.value)
    assert "tl.load(x + offs)" in msg and "lane 12" in msg and "unmasked load" in msg


@triton.jit
def ptr_offsets(x, out, n):
    p = x + n          # pointer + int32 scalar
    q = p - 2          # pointer - int
    tl.store(out, tl.load(q))
    offs = tl.arange(0, 4).to(tl.uint8)
    tl.store(out + 1 + offs, tl.load(x + offs))


def test_pointer_arithmetic_is_in_elements():
    x = torch.arange(8, dtype=torch.float64)
    out = torch.zeros(5, dtype=torch.float64)
    ptr_offsets[(1,)](x, out, 5)
    assert out.tolist() == [3.0, 0.0, 1.0, 2.0, 3.0]


@triton.jit
def ptr_plus_ptr(x, y):
    tl.store(x, tl.load(x + y))


def test_pointer_plus_pointer_is_a_type_error():
    x = torch.zeros(4)
    with pytest.raises(TypeError, match="cannot add pointers"):
        ptr_plus_ptr[(1,)](x, x)


# ---- integer arithmetic --------------------------------------------------------------------------

@triton.jit
def divmod_kernel(a, b, q, r, q2, r2, BLOCK: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(a + offs)
    y = tl.load(b + offs)
    tl.store(q + offs, x // y)
    tl.store(r + offs, x % y)
    tl.store(q2 + offs, x // C)
    tl.store(r2 + offs, x % C)


@pytest.mark.parametrize("dt", [torch.int8, torch.int32, torch.int64])
def test_integer_division_rounds_toward_zero(dt):
    a = torch.tensor([7, -7, 7, -7, 0, 9, -9, 100], dtype=dt)
    b = torch.tensor([2, 2, -2, -2, 3, -4, 4, 7], dtype=dt)
    q, r, q2, r2 = (torch.zeros(8, dtype=dt) for _ in range(4))
    divmod_kernel[(1,)](a, b, q, r, q2, r2, BLOCK=8, C=-3)
    assert q.tolist() == [3, -3, -3, 3, 0, -2, -2, 14]
    assert r.tolist() == [1, -1, 1, -1, 0, 1, -1, 2]
    assert q2.tolist() == [int(x / -3) for x in a.tolist()]
    assert r2.tolist() == [int(np.fmod(x, -3)) for x in a.tolist()]


@triton.jit
def constexpr_math(out, A: tl.constexpr, B: tl.constexpr):
    tl.store(out, A // B)
    tl.store(out + 1, A % B)


def test_constexpr_division_follows_python():
    out = torch.zeros(2, dtype=torch.int32)
    constexpr_math[(1,)](out, A=-7, B=2)
    assert out.tolist() == [-4, 1]


@triton.jit
def promote_kernel(a, b, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(a + offs)
    y = tl.load(b + offs)
    tl.store(out + offs, x + y)


def test_mixed_sign_addition_wraps_as_unsigned():
    a = torch.tensor([-1, -2, 3, 4], dtype=torch.int32)
    b = torch.tensor([0, 1, 2, 3], dtype=torch.int64)
    out = torch.zeros(4, dtype=torch.int64)
    promote_kernel[(1,)](a, b, out, BLOCK=4)
    assert out.tolist() == [-1, -1, 5, 7]


@triton.jit
def scalar_promote(x, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(out + offs, v + 300)   # uint8 + int: stays uint8 and wraps


def test_scalar_does_not_promote_uint8():
    x = torch.tensor([0, 1, 2, 255], dtype=torch.uint8)
    out = torch.zeros(4, dtype=torch.int32)
    scalar_promote[(1,)](x, out, BLOCK=4)
    assert out.tolist() == [(v + 300) % 256 for v in [0, 1, 2, 255]]


@triton.jit
def shifts(x, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(out + offs, (v >> 1) ^ (v << 2) & 0xFF | ~v)


def test_bitwise_and_shift():
    x = torch.tensor([-8, -1, 5, 100], dtype=torch.int32)
    out = torch.zeros(4, dtype=torch.int32)
    shifts[(1,)](x, out, BLOCK=4)
    ref = [(v >> 1) ^ ((v << 2) & 0xFF) | ~v for v in x.tolist()]
    assert out.tolist() == ref


# ---- reductions --------------------------------------------------------------------------------

@triton.jit
def reduce_kernel(x, out_sum, out_max, out_min, out_amax, out_amin, AXIS: tl.constexpr, KEEP: tl.constexpr,
                  R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    v = tl.load(x + offs)
    s = tl.sum(v, axis=AXIS, keep_dims=KEEP)
    m = tl.max(v, axis=AXIS, keep_dims=KEEP)
    n = tl.min(v, axis=AXIS, keep_dims=KEEP)
    am = tl.argmax(v, axis=AXIS, keep_dims=KEEP)
    an = tl.argmin(v, axis=AXIS, keep_dims=KEEP)
    tl.static_assert(am.dtype == tl.int32)
    if KEEP:
        tl.static_assert(len(s.shape) == 2)
        s = tl.reshape(s, [s.numel])
        m = tl.reshape(m, [m.numel])
        n = tl.reshape(n, [n.numel])
        am = tl.reshape(am, [am.numel])
        an = tl.reshape(an, [an.numel])
    else:
        tl.static_assert(len(s.shape) == 1)
    o = tl.arange(0, C if AXIS == 0 else R)
    tl.store(out_sum + o, s)
    tl.store(out_max + o, m)
    tl.store(out_min + o, n)
    tl.store(out_amax + o, am)
    tl.store(out_amin + o, an)


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dt", [torch.float32, torch.int32])
def test_reductions_along_each_axis(axis, keep, dt):
    R, C = 8, 16
    g = torch.Generator().manual_seed(axis * 2 + keep)
    x = torch.randint(-50, 50, (R, C), generator=g).to(dt)
    n = C if axis == 0 else R
    outs = [torch.zeros(n, dtype=torch.float64 if dt.is_floating_point else torch.int64) for _ in range(3)]
    idx = [torch.zeros(n, dtype=torch.int32) for _ in range(2)]
    reduce_kernel[(1,)](x, *outs, *idx, AXIS=axis, KEEP=keep, R=R, C=C)
    xd = x.double()
    assert outs[0].double().tolist() == xd.sum(axis).tolist()
    assert outs[1].double().tolist() == xd.max(axis).values.tolist()
    assert outs[2].double().tolist() == xd.min(axis).values.tolist()
    assert idx[0].tolist() == np.argmax(x.numpy(), axis).tolist()
    assert idx[1].tolist() == np.argmin(x.numpy(), axis).tolist()


@triton.jit
def sum_all(x, out, N: tl.constexpr):
    v = tl.load(x + tl.arange(0, N))
    s = tl.sum(v)
    tl.static_assert(s.dtype == tl.int32)  # int8 widens to int32
    tl.store(out, s)
    m = tl.max(v)
    tl.static_assert(m.dtype == tl.int32)


def test_sum_widens_small_ints():
    x = torch.full((64,), 100, dtype=torch.int8)
    out = torch.zeros(1, dtype=torch.int32)
    sum_all[(1,)](x, out, N=64)
    assert out.item() == 6400


@triton.jit
def combine_max_abs(a, b):
    return tl.where(tl.abs(a) > tl.abs(b), a, b)


@triton.jit
def reduce_fn_kernel(x, out, cs, N: tl.constexpr):
    v = tl.load(x + tl.arange(0, N))
    tl.store(out, tl.reduce(v, 0, combine_max_abs))
    tl.store(cs + tl.arange(0, N), tl.cumsum(v, 0))


def test_reduce_with_combine_function_and_cumsum():
    x = torch.tensor([1.0, -9.0, 3.0, 8.5, 0.0, 2.0, -1.0, 4.0])
    out = torch.zeros(1)
    cs = torch.zeros(8)
    reduce_fn_kernel[(1,)](x, out, cs, N=8)
    assert out.item() == -9.0
    assert cs.tolist() == torch.cumsum(x, 0).tolist()


# ---- dot ----------------------------------------------------------------------------------------

@triton.jit
def dot_kernel(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, ACC: tl.constexpr):
    om = tl.arange(0, M)
    on = tl.arange(0, N)
    ok = tl.arange(0, K)
    x = tl.load(a + om[:, None] * K + ok[None, :])
    y = tl.load(b + ok[:, None] * N + on[None, :])
    if ACC:
        acc = tl.zeros((M, N), dtype=tl.int32 if x.dtype == tl.int8 else tl.float32)
        acc = tl.dot(x, y, acc)
        acc = tl.dot(x, y, acc)
    else:
        acc = tl.dot(x, y)
    tl.store(c + om[:, None] * N + on[None, :], acc)


@pytest.mark.parametrize("acc", [False, True])
@pytest.mark.parametrize("name", ["fp32", "fp16", "bf16", "int8"])
def test_dot_against_float64(name, acc):
    M, N, K = 16, 32, 64
    g = torch.Generator().manual_seed(3)
    if name == "int8":
        a = torch.randint(-128, 128, (M, K), generator=g, dtype=torch.int8)
        b = torch.randint(-128, 128, (K, N), generator=g, dtype=torch.int8)
        c = torch.zeros(M, N, dtype=torch.int32)
    else:
        a = torch.randn(M, K, generator=g).to(TORCH[name])
        b = torch.randn(K, N, generator=g).to(TORCH[name])
        c = torch.zeros(M, N, dtype=torch.float32)
    dot_kernel[(1,)](a, b, c, M=M, N=N, K=K, ACC=acc)
    ref = (a.double() @ b.double()) * (2 if acc else 1)
    if name == "int8":
        assert torch.equal(c.long(), ref.long())
    else:
        assert torch.allclose(c.double(), ref, rtol=1e-5, atol=1e-4), (c.double() - ref).abs().max()


# ---- atomics ------------------------------------------------------------------------------------

@triton.jit
def histogram(x, bins, old_out, N: tl.constexpr):
    v = tl.load(x + tl.program_id(0) * N + tl.arange(0, N))
    old = tl.atomic_add(bins + v, 1)
    tl.store(old_out + tl.program_id(0) * N + tl.arange(0, N), old)


def test_atomic_add_under_contention_is_exact():
    x = torch.tensor([0, 1, 1, 3, 1, 0, 2, 1] * 4, dtype=torch.int32)
    bins = torch.zeros(4, dtype=torch.int32)
    old = torch.zeros(32, dtype=torch.int32)
    histogram[(4,)](x, bins, old, N=8)
    assert bins.tolist() == torch.bincount(x.long(), minlength=4).tolist()
    # the returned old values of one bin are 0, 1, 2, ... in program and lane order
    for b in range(4):
        assert sorted(old[x == b].tolist()) == list(range(int((x == b).sum())))


@triton.jit
def atomics_kernel(p, cmpv, out):
    tl.store(out, tl.atomic_cas(p, cmpv, 42))        # p[0]: 5 -> 42 when cmp == 5
    tl.store(out + 1, tl.atomic_xchg(p + 1, 9))
    tl.store(out + 2, tl.atomic_max(p + 2, 11))
    tl.store(out + 3, tl.atomic_min(p + 3, -4))
    offs = tl.arange(0, 2)
    tl.atomic_add(p + 4 + offs, 10, mask=offs < 1)


def test_atomic_cas_xchg_max_min_masked_add():
    p = torch.tensor([5, 1, 7, 3, 0, 0], dtype=torch.int32)
    out = torch.zeros(4, dtype=torch.int32)
    atomics_kernel[(1,)](p, 5, out)
    assert out.tolist() == [5, 1, 7, 3]
    assert p.tolist() == [42, 9, 11, -4, 10, 0]
    p = torch.tensor([5, 1, 7, 3, 0, 0], dtype=torch.int32)
    atomics_kernel[(1,)](p, 6, out)
    assert p[0].item() == 5 and out[0].item() == 5


# ---- block pointers -----------------------------------------------------------------------------

@triton.jit
def block_copy(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    s = tl.make_block_ptr(src, (M, N), (N, 1), (pm * BM, 0), (BM, BN), (1, 0))
    d = tl.make_block_ptr(dst, (M, N), (N, 1), (pm * BM, 0), (BM, BN), (1, 0))
    s = tl.advance(s, (0, pn * BN))
    d = tl.advance(d, (0, pn * BN))
    v = tl.load(s, boundary_check=(0, 1), padding_option=PAD)
    tl.store(d, v + 1, boundary_check=(0, 1))


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_block_pointers_with_boundary_checks(pad, monkeypatch):
    monkeypatch.setenv("CANNON_TRITON_BOUNDS", "1")
    M, N = 10, 13
    src = torch.arange(M * N, dtype=torch.float32).reshape(M, N)
    dst = torch.zeros(M, N)
    block_copy[(triton.cdiv(M, 4), triton.cdiv(N, 8))](src, dst, M, N, BM=4, BN=8, PAD=pad)
    assert torch.equal(dst, src + 1)


@triton.jit
def block_pad(src, out, PAD: tl.constexpr):
    s = tl.make_block_ptr(src, (3, 3), (3, 1), (1, 1), (4, 4), (1, 0))
    v = tl.load(s, boundary_check=(0, 1), padding_option=PAD)
    o = tl.arange(0, 4)
    tl.store(out + o[:, None] * 4 + o[None, :], v)


def test_block_pointer_padding():
    src = torch.arange(9, dtype=torch.float32).reshape(3, 3)
    out = torch.zeros(4, 4)
    block_pad[(1,)](src, out, PAD="nan")
    assert out[:2, :2].tolist() == [[4.0, 5.0], [7.0, 8.0]]
    assert torch.isnan(out[2:, :]).all() and torch.isnan(out[:, 2:]).all()
    block_pad[(1,)](src, out, PAD="zero")
    assert out[2:, :].abs().sum() == 0


# ---- elementwise math, casts, shapes -----------------------------------------------------------

@triton.jit
def math_kernel(x, out, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    v = tl.load(x + o)
    tl.store(out + 0 * BLOCK + o, tl.exp(v))
    tl.store(out + 1 * BLOCK + o, tl.exp2(v))
    tl.store(out + 2 * BLOCK + o, tl.log(tl.abs(v) + 1))
    tl.store(out + 3 * BLOCK + o, tl.log2(tl.abs(v) + 1))
    tl.store(out + 4 * BLOCK + o, tl.sqrt(tl.abs(v)))
    tl.store(out + 5 * BLOCK + o, tl.rsqrt(tl.abs(v) + 1))
    tl.store(out + 6 * BLOCK + o, tl.sin(v) + tl.cos(v))
    tl.store(out + 7 * BLOCK + o, tl.sigmoid(v))
    tl.store(out + 8 * BLOCK + o, tl.fma(v, v, 1.0))
    tl.store(out + 9 * BLOCK + o, tl.maximum(v, 0.5) + tl.minimum(v, -0.5))
    tl.store(out + 10 * BLOCK + o, tl.softmax(v))
    tl.store(out + 11 * BLOCK + o, tl.where(v > 0, v, -v))


def test_math_functions():
    x = torch.linspace(-3, 3, 16)
    out = torch.zeros(12 * 16)
    math_kernel[(1,)](x, out, BLOCK=16)
    r = out.reshape(12, 16).double()
    xd = x.double()
    refs = [xd.exp(), torch.exp2(xd), (xd.abs() + 1).log(), (xd.abs() + 1).log2(), xd.abs().sqrt(),
            (xd.abs() + 1).rsqrt(), xd.sin() + xd.cos(), torch.sigmoid(xd), xd * xd + 1,
            torch.clamp(xd, min=0.5) + torch.clamp(xd, max=-0.5), torch.softmax(xd, 0), xd.abs()]
    for i, ref in enumerate(refs):
        assert torch.allclose(r[i], ref, rtol=1e-6, atol=1e-6), i


@triton.jit
def exp_half(x, out):
    tl.store(out, tl.exp(tl.load(x)))


def test_math_on_fp16_is_a_value_error():
    x = torch.ones(1, dtype=torch.float16)
    with pytest.raises(ValueError, match=r"Expected dtype \['fp32', 'fp64'\] but got fp16"):
        exp_half[(1,)](x, x)


@triton.jit
def cast_kernel(x, o_bf16, o_fp16, o_i8, o_bits, o_rtz, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    v = tl.load(x + o)
    tl.store(o_bf16 + o, v.to(tl.bfloat16))
    tl.store(o_fp16 + o, tl.cast(v, tl.float16))
    tl.store(o_i8 + o, v.to(tl.int8))
    tl.store(o_bits + o, v.to(tl.int32, bitcast=True))
    tl.store(o_rtz + o, v.to(tl.bfloat16, fp_downcast_rounding="rtz"))


def test_casts_round_to_nearest_even_and_truncate():
    vals = [1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, -2.75, 127.9, -128.5, 3.0e-3, 1.0 + 2 ** -7 + 2 ** -9, 0.0]
    x = torch.tensor(vals, dtype=torch.float32)
    bf, hf = torch.zeros(8, dtype=torch.bfloat16), torch.zeros(8, dtype=torch.float16)
    i8, bits = torch.zeros(8, dtype=torch.int8), torch.zeros(8, dtype=torch.int32)
    rtz = torch.zeros(8, dtype=torch.bfloat16)
    cast_kernel[(1,)](x, bf, hf, i8, bits, rtz, BLOCK=8)
    assert torch.equal(bf, x.to(torch.bfloat16))          # torch rounds to nearest even too
    assert torch.equal(hf, x.to(torch.float16))
    assert i8.tolist() == [int(v) for v in vals]           # toward zero
    assert torch.equal(bits, x.view(torch.int32))
    trunc = (x.view(torch.int32) & ~0xFFFF).view(torch.float32).to(torch.bfloat16)
    assert torch.equal(rtz, trunc)


@triton.jit
def bf16_arith(a, b, out, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(a + o)
    y = tl.load(b + o)
    z = x * y + x
    tl.static_assert(z.dtype == tl.bfloat16)
    tl.store(out + o, z)


def test_bf16_arithmetic_rounds_each_operation():
    g = torch.Generator().manual_seed(1)
    a = torch.randn(16, generator=g).bfloat16()
    b = torch.randn(16, generator=g).bfloat16()
    out = torch.zeros(16, dtype=torch.bfloat16)
    bf16_arith[(1,)](a, b, out, BLOCK=16)
    assert torch.equal(out, (a * b) + a)


@triton.jit
def shapes_kernel(x, out):
    v = tl.load(x + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])   # [8, 4]
    t = tl.trans(v)                                                             # [4, 8]
    tl.store(out + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], t)
    r = tl.reshape(v, (2, 16))
    p = tl.permute(tl.reshape(v, (2, 4, 4)), (2, 0, 1))                        # [4, 2, 4]
    tl.store(out + 32 + tl.arange(0, 32), tl.reshape(p, (32,)))
    a, b = tl.split(tl.reshape(r, (16, 2)))
    tl.store(out + 64 + tl.arange(0, 16), a)
    tl.store(out + 80 + tl.arange(0, 16), b)
    j = tl.join(b, a)                                                           # [16, 2]
    tl.store(out + 96 + tl.arange(0, 32), tl.reshape(j, (32,)))
    e = tl.broadcast_to(tl.expand_dims(tl.arange(0, 4), 0), (2, 4))
    tl.store(out + 128 + tl.arange(0, 8), tl.view(e, (8,)))
    tl.store(out + 136 + tl.arange(0, 8), tl.reshape(v.T, (32,))[:, None].ravel().reshape(4, 8).sum(0))


def test_shape_functions():
    x = torch.arange(32, dtype=torch.float32)
    out = torch.zeros(144)
    shapes_kernel[(1,)](x, out)
    v = x.reshape(8, 4)
    assert torch.equal(out[:32], v.T.reshape(-1))
    assert torch.equal(out[32:64], v.reshape(2, 4, 4).permute(2, 0, 1).reshape(-1))
    assert torch.equal(out[64:80], x[0::2]) and torch.equal(out[80:96], x[1::2])
    assert torch.equal(out[96:128], torch.stack([x[1::2], x[0::2]], -1).reshape(-1))
    assert out[128:136].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert torch.equal(out[136:144], v.T.sum(0))


# ---- programs, loops, hints ---------------------------------------------------------------------

@triton.jit
def grid_kernel(out, n_iter):
    pid = tl.program_id(0) * tl.num_programs(1) * tl.num_programs(2) + tl.program_id(1) * tl.num_programs(2) \
        + tl.program_id(2)
    acc = 0
    for i in range(0, n_iter):
        acc += i
    for j in tl.range(0, 4, 2, num_stages=3, loop_unroll_factor=2):
        acc += j
    for k in tl.static_range(3):
        acc += k
    tl.store(out + pid, acc + tl.program_id(0) * 100)


def test_grid_loops_and_program_ids():
    out = torch.zeros(2 * 3 * 4, dtype=torch.int32)
    grid_kernel[lambda meta: (2, 3, 4)](out, 5)
    exp = [10 + 2 + 3 + (p // 12) * 100 for p in range(24)]
    assert out.tolist() == exp


def test_loop_variable_is_an_int32_tensor():
    seen = []

    @triton.jit
    def k(n):
        for i in range(0, n):
            seen.append((i.dtype, int(i)))

    k[(1,)](3)
    assert seen == [(tl.int32, 0), (tl.int32, 1), (tl.int32, 2)]


@triton.jit
def hints_kernel(x, n):
    offs = tl.multiple_of(n, 16)
    offs = tl.max_contiguous(tl.arange(0, 16), 16)
    tl.assume(n > 0)
    tl.store(x + offs, offs.to(tl.float32))


def test_hints_are_checked():
    x = torch.zeros(16)
    hints_kernel[(1,)](x, 32)
    assert x.tolist() == list(range(16))
    with pytest.raises(AssertionError, match="multiple_of"):
        hints_kernel[(1,)](x, 8)


@triton.jit
def static_fail(x, B: tl.constexpr):
    tl.static_assert(B < 8, "B too large")
    tl.store(x, 1.0)


def test_static_assert():
    x = torch.zeros(1)
    static_fail[(1,)](x, B=4)
    with pytest.raises(triton.CompilationError, match="B too large"):
        static_fail[(1,)](x, B=16)


@triton.jit
def printing(x):
    v = tl.load(x + tl.arange(0, 2))
    print("value", v)
    tl.device_print("dev", v)


def test_print_works_in_kernels(capsys):
    printing[(1,)](torch.tensor([1.5, 2.5]))
    out = capsys.readouterr().out
    assert "value [1.5 2.5]" in out and "pid (0, 0, 0) dev [1.5 2.5]" in out


# ---- argument and shape errors -----------------------------------------------------------------

@triton.jit
def two_args(x, n):
    tl.store(x, n)


def test_wrong_argument_count_is_a_type_error_before_running():
    with pytest.raises(TypeError, match="two_args"):
        two_args[(1,)](torch.zeros(1))
    with pytest.raises(TypeError, match="two_args"):
        two_args[(1,)](torch.zeros(1), 1, 2)


def test_dtype_without_pointer_type_is_a_type_error():
    with pytest.raises(TypeError, match="no Triton pointer type"):
        two_args[(1,)](torch.zeros(2, dtype=torch.complex64), 1)


@triton.jit
def bad_arange(x, N: tl.constexpr):
    tl.store(x + tl.arange(0, N), 0.0)


def test_non_power_of_two_block_is_rejected():
    with pytest.raises(ValueError, match="power of 2"):
        bad_arange[(1,)](torch.zeros(12), N=12)


@triton.jit
def tensor_if(x):
    v = tl.load(x + tl.arange(0, 4))
    if v > 0:
        tl.store(x, 1.0)


def test_if_on_a_block_is_an_error():
    with pytest.raises(ValueError, match="multi-element"):
        tensor_if[(1,)](torch.ones(4))


def test_calling_a_kernel_outside_a_launch_is_an_error():
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        two_args(torch.zeros(1), 1)


# ---- device arrays ------------------------------------------------------------------------------

@triton.jit
def scale(x, y, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)


def test_cannon_device_arrays_are_pointers():
    import cannon
    if not cannon.runtime.host_addressable():
        pytest.skip("device memory is not host-addressable")
    a = cannon.from_numpy(np.arange(20, dtype=np.float32))
    b = cannon.zeros((20,), dtype=cannon.float32)
    scale[(3,)](a, b, 20, BLOCK=8)
    assert b.numpy(copy=True).tolist() == [2.0 * i for i in range(20)]


# ---- larger kernels: online-softmax attention and a row norm ------------------------------------

@triton.jit
def attention_fwd(Q, K, V, O, L, sm_scale, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    bh = tl.program_id(1)
    m0 = tl.program_id(0) * BM
    base = bh * L * HEAD
    qd = tl.make_tensor_descriptor(Q + base, [L, HEAD], [HEAD, 1], [BM, HEAD])
    kd = tl.make_tensor_descriptor(K + base, [L, HEAD], [HEAD, 1], [BN, HEAD])
    vd = tl.make_tensor_descriptor(V + base, [L, HEAD], [HEAD, 1], [BN, HEAD])
    od = tl.make_tensor_descriptor(O + base, [L, HEAD], [HEAD, 1], [BM, HEAD])
    q = qd.load([m0, 0])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, HEAD], tl.float32)
    scale = sm_scale * 1.4426950408889634
    for n0 in tl.range(0, L, BN):
        k = kd.load([n0, 0])
        s = tl.dot(q, k.T) * scale
        cols = n0 + tl.arange(0, BN)
        s = tl.where(cols[None, :] < L, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), vd.load([n0, 0]), acc)
        m_i = m_new
    od.store([m0, 0], (acc / l_i[:, None]).to(tl.float16))


def test_attention_forward_kernel(monkeypatch):
    monkeypatch.setenv("CANNON_TRITON_BOUNDS", "1")
    B, L, D = 2, 40, 16
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(B, L, D, generator=g).half() for _ in range(3))
    o = torch.zeros(B, L, D, dtype=torch.float16)
    attention_fwd[(triton.cdiv(L, 16), B)](q, k, v, o, L, D ** -0.5, HEAD=D, BM=16, BN=16)
    ref = torch.softmax((q.double() @ k.double().transpose(1, 2)) * D ** -0.5, -1) @ v.double()
    assert torch.allclose(o.double(), ref, atol=2e-3), (o.double() - ref).abs().max()


@triton.jit
def row_norm(X, Y, W, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    var = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.)
        var += d * d
    rstd = 1 / tl.sqrt(tl.sum(var, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        w = tl.load(W + cols, mask=cols < N)
        tl.store(Y + cols, ((x - mean) * rstd * w).to(Y.dtype.element_ty), mask=cols < N)


@pytest.mark.parametrize("dt", [torch.float32, torch.bfloat16])
def test_row_norm_kernel(dt):
    M, N = 6, 70
    g = torch.Generator().manual_seed(9)
    x = torch.randn(M, N, generator=g).to(dt)
    w = torch.rand(N, generator=g).to(dt)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(M), torch.empty(M)
    row_norm[(M,)](x, y, w, mean, rstd, x.stride(0), N, 1e-5, BLOCK=32)
    xd = x.double()
    ref = torch.nn.functional.layer_norm(xd, (N,), w.double(), None, 1e-5)
    tol = 1e-5 if dt == torch.float32 else 2e-2
    assert torch.allclose(y.double(), ref, atol=tol, rtol=tol)
    assert torch.allclose(mean.double(), xd.mean(1), atol=1e-5)
    assert torch.allclose(rstd.double(), 1 / torch.sqrt(xd.var(1, unbiased=False) + 1e-5), rtol=1e-4)
