"""cannon.triton's compiled mode: the project's own kernels compiled to C against the interpreter and
numpy/torch (bit for bit where both round the same way: fp32 arithmetic, sqrt, casts, fp16/bf16
operations; a stated tolerance for exp/log/sin, whose libm differs from numpy's, and for fp32 sums,
which numpy adds pairwise), masked tails, the runtime checks, the disk cache (hits and invalidation)
and the mode switches."""
import importlib.util
import math
import shutil

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


def both(kernel, grid, make_args, **meta):
    """Runs kernel compiled and interpreted on fresh copies of make_args(); returns both argument
    lists after the launches (the compiled launch must have been compiled)."""
    import os
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


def bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype in (torch.float16, torch.bfloat16):
        return torch.equal(a.view(torch.int16), b.view(torch.int16))
    if a.dtype == torch.float32:
        return torch.equal(a.view(torch.int32), b.view(torch.int32))
    if a.dtype == torch.float64:
        return torch.equal(a.view(torch.int64), b.view(torch.int64))
    return torch.equal(a, b)


# ---- elementwise --------------------------------------------------------------------------------

@triton.jit
def arith(x, y, out, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m, other=1.0)
    b = tl.load(y + offs, mask=m, other=1.0)
    if OP == "add":
        r = a + b
    elif OP == "sub":
        r = a - b
    elif OP == "mul":
        r = a * b
    elif OP == "div":
        r = a / b
    elif OP == "mix":
        r = (a * 3.0 - b) / (b * b + 1.0) + a * b
    elif OP == "where":
        r = tl.where(a > b, a, b * 0.5)
    elif OP == "maximum":
        r = tl.maximum(a, b)
    elif OP == "minimum":
        r = tl.minimum(a, b)
    elif OP == "sqrt":
        r = tl.sqrt(tl.abs(a))
    elif OP == "rsqrt":
        r = tl.rsqrt(tl.abs(a) + 1.0)
    elif OP == "mod":
        r = a % b
    elif OP == "floor":
        r = tl.floor(a * 4.0) + tl.ceil(b)
    elif OP == "fma":
        r = tl.fma(a, b, a)
    else:
        r = -a
    tl.store(out + offs, r, mask=m)


EXACT_OPS = ["add", "sub", "mul", "div", "mix", "where", "maximum", "minimum", "sqrt", "rsqrt", "mod", "floor",
             "fma", "neg"]
REFERENCE = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "div": lambda a, b: a / b, "maximum": torch.maximum, "minimum": torch.minimum,
             "sqrt": lambda a, b: torch.sqrt(a.abs()), "neg": lambda a, b: -a}


@pytest.mark.parametrize("op", EXACT_OPS)
@pytest.mark.parametrize("dt", ["fp32", "fp16", "bf16", "fp64"])
def test_elementwise_bits_equal_interpreter_and_torch(op, dt):
    if dt in ("fp16", "bf16") and op in ("sqrt", "rsqrt", "floor"):
        pytest.skip("math functions take fp32/fp64 only")
    td = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "fp64": torch.float64}[dt]
    n = 1000  # a masked tail in the last program
    g = torch.Generator().manual_seed(7)
    xs = (torch.randn(n, generator=g) * 10).to(td)
    ys = (torch.randn(n, generator=g) * 3).to(td)

    def make():
        return [xs.clone(), ys.clone(), torch.full((n + 24,), 5.0, dtype=td), n]
    comp, interp = both(arith, (triton.cdiv(n, 128),), make, OP=op, BLOCK=128)
    assert bits_equal(comp[2], interp[2])
    assert torch.all(comp[2][n:] == 5.0)  # nothing written past the tail
    if op in REFERENCE:
        assert bits_equal(comp[2][:n], REFERENCE[op](xs, ys))


@triton.jit
def transcendental(x, out, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    if FN == "exp":
        r = tl.exp(a)
    elif FN == "exp2":
        r = tl.exp2(a)
    elif FN == "log":
        r = tl.log(tl.abs(a) + 0.5)
    elif FN == "sin":
        r = tl.sin(a)
    elif FN == "cos":
        r = tl.cos(a)
    elif FN == "erf":
        r = tl.erf(a)
    else:
        r = tl.sigmoid(a)
    tl.store(out + offs, r, mask=m)


@pytest.mark.parametrize("fn", ["exp", "exp2", "log", "sin", "cos", "erf", "sigmoid"])
def test_transcendentals_within_two_ulp_of_the_interpreter(fn):
    n = 777
    xs = torch.linspace(-8, 8, n)
    comp, interp = both(transcendental, (triton.cdiv(n, 256),), lambda: [xs.clone(), torch.zeros(n), n],
                        FN=fn, BLOCK=256)
    torch.testing.assert_close(comp[1], interp[1], rtol=2.5e-7, atol=1e-37)


# ---- fp16 / bf16 --------------------------------------------------------------------------------

@triton.jit
def convert(x, out, n, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    if ROUNDING == "rtz":
        r = v.to(out.dtype.element_ty, fp_downcast_rounding="rtz")
    else:
        r = v.to(out.dtype.element_ty)
    tl.store(out + offs, r, mask=m)


def _edge_floats():
    vals = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.0, 65520.0, -65520.0, 1e6, -1e6, 6.1e-5, 6.0e-8, 2.98e-8,
            5.96e-8, 1e-10, 3.0e38, -3.0e38, float("inf"), float("-inf"), 1.0009765625, 1.00048828125,
            1.00146484375, 0.33333334, 2.5, -2.5, 7.0e-39, 1.17549435e-38, 255.5, 256.5, 1.00390625, 1.01171875]
    g = torch.Generator().manual_seed(3)
    rnd = torch.cat([torch.randn(2000, generator=g) * 1000, torch.randn(2000, generator=g) * 1e-5,
                     (torch.rand(2000, generator=g) - 0.5) * 1e-7])
    return torch.cat([torch.tensor(vals, dtype=torch.float32), rnd])


@pytest.mark.parametrize("dst", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_fp32_to_16_bit_casts_round_like_the_interpreter_and_torch(dst, rounding):
    xs = _edge_floats()
    n = xs.numel()
    comp, interp = both(convert, (triton.cdiv(n, 512),), lambda: [xs.clone(), torch.zeros(n, dtype=dst), n],
                        ROUNDING=rounding, BLOCK=512)
    assert bits_equal(comp[1], interp[1])
    if rounding == "rtne":
        assert bits_equal(comp[1], xs.to(dst))  # torch rounds to nearest even too
    else:
        assert torch.all(comp[1].float().abs() <= xs.abs())


@pytest.mark.parametrize("src", [torch.float16, torch.bfloat16])
def test_16_bit_to_fp32_is_exact(src):
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
    xs = bits.view(src)
    keep = ~torch.isnan(xs)
    xs = xs[keep].contiguous()
    n = xs.numel()
    comp, interp = both(convert, (triton.cdiv(n, 1024),), lambda: [xs.clone(), torch.zeros(n), n],
                        ROUNDING="rtne", BLOCK=1024)
    assert bits_equal(comp[1], xs.float())
    assert bits_equal(comp[1], interp[1])


@pytest.mark.parametrize("dst", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_float_to_int_casts_truncate_and_wrap_like_the_interpreter(dst):
    xs = torch.tensor([0.0, 0.9, -0.9, 1.5, -1.5, 127.9, 128.5, -129.0, 300.0, 3e9, -3e9, float("nan"),
                       float("inf"), float("-inf"), 65535.0, 1e20], dtype=torch.float32)
    n = xs.numel()
    comp, interp = both(convert, (1,), lambda: [xs.clone(), torch.zeros(n, dtype=dst), n], ROUNDING="rtne",
                        BLOCK=16)
    assert torch.equal(comp[1], interp[1])
    assert comp[1][:6].tolist() == [0, 0, 0, 1, -1, 127] if dst != torch.uint8 else True


# ---- integers -----------------------------------------------------------------------------------

@triton.jit
def int_ops(x, y, out, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    b = tl.load(y + offs, mask=m)
    if OP == "div":
        r = a // b
    elif OP == "mod":
        r = a % b
    elif OP == "wrap":
        r = a * b + a
    elif OP == "shl":
        r = a << (b & 7)
    elif OP == "shr":
        r = a >> (b & 7)
    elif OP == "bits":
        r = (a & b) | (a ^ 0x55)
    else:
        r = tl.where(a < b, a - b, b - a)
    tl.store(out + offs, r, mask=m)


@pytest.mark.parametrize("op", ["div", "mod", "wrap", "shl", "shr", "bits", "cmp"])
@pytest.mark.parametrize("dt", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_integer_ops_equal_the_interpreter(op, dt):
    g = torch.Generator().manual_seed(11)
    info = torch.iinfo(dt)
    n = 600
    xs = torch.randint(info.min, info.max, (n,), generator=g, dtype=torch.int64).to(dt)
    ys = torch.randint(-20 if info.min < 0 else 0, 20, (n,), generator=g, dtype=torch.int64).to(dt)
    xs[:4] = torch.tensor([info.min, info.min, 7, info.max]).to(dt)
    ys[:4] = torch.tensor([-1 if info.min < 0 else 1, 0, 0, -1 if info.min < 0 else 3]).to(dt)
    comp, interp = both(int_ops, (triton.cdiv(n, 256),), lambda: [xs.clone(), ys.clone(), torch.zeros(n, dtype=dt),
                                                                    n], OP=op, BLOCK=256)
    assert torch.equal(comp[2], interp[2])
    if op == "div" and dt == torch.int32:
        a, b = xs[4:].long(), ys[4:].long()
        nz = b != 0
        want = torch.div(a[nz], b[nz], rounding_mode="trunc").to(dt)
        assert torch.equal(comp[2][4:][nz], want)
        assert comp[2][1].item() == 0 and comp[2][2].item() == 0  # division by zero gives 0


# ---- reductions, loops, branches ----------------------------------------------------------------

@triton.jit
def row_reduce(x, out, stride, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    v = tl.load(x + r * stride + c)
    if OP == "sum":
        s = tl.sum(v, axis=AXIS)
    elif OP == "max":
        s = tl.max(v, axis=AXIS)
    elif OP == "argmax":
        s = tl.argmax(v, axis=AXIS)
    elif OP == "argmin":
        s = tl.argmin(v, axis=AXIS)
    else:
        s = tl.min(v, axis=AXIS)
    n: tl.constexpr = C if AXIS == 0 else R
    tl.store(out + tl.arange(0, n), s)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dt", [torch.float32, torch.int32, torch.float16])
def test_reductions_per_axis(op, axis, dt):
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(8, 32, generator=g) * 50).to(dt)
    n = 32 if axis == 0 else 8
    odt = torch.float32 if dt == torch.float16 and op != "sum" else dt
    comp, interp = both(row_reduce, (1,), lambda: [x.clone(), torch.zeros(n, dtype=odt), 32], R=8, C=32,
                        AXIS=axis, OP=op)
    ref = {"sum": lambda t: t.double().sum(axis), "max": lambda t: t.double().amax(axis),
           "min": lambda t: t.double().amin(axis)}[op](x)
    if dt == torch.int32 or op != "sum":
        assert torch.equal(comp[1], interp[1])
        assert torch.equal(comp[1].double(), ref.to(odt).double())
    else:
        tol = 1e-5 if dt == torch.float32 else 2e-2
        torch.testing.assert_close(comp[1].double(), ref, rtol=tol, atol=tol)
        torch.testing.assert_close(comp[1], interp[1], rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dt", [torch.float32, torch.int16, torch.bfloat16])
def test_argmax_argmin_first_index_on_ties_and_nan(op, axis, dt):
    g = torch.Generator().manual_seed(9)
    x = (torch.randn(8, 32, generator=g) * 2).round().to(dt)  # many ties
    if dt.is_floating_point:
        x[3, 5] = float("nan")
        x[3, 9] = float("nan")
    n = 32 if axis == 0 else 8
    comp, interp = both(row_reduce, (1,), lambda: [x.clone(), torch.zeros(n, dtype=torch.int32), 32], R=8, C=32,
                        AXIS=axis, OP=op)
    assert torch.equal(comp[1], interp[1])
    ref = getattr(np, op)(x.float().numpy(), axis)
    assert comp[1].tolist() == ref.tolist()


@triton.jit
def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), ACC)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("dt", [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.float64])
def test_dot_matmul_against_float64(dt):
    g = torch.Generator().manual_seed(2)
    M, N, K = 45, 37, 70
    if dt == torch.int8:
        a = torch.randint(-100, 100, (M, K), generator=g, dtype=torch.int8)
        b = torch.randint(-100, 100, (K, N), generator=g, dtype=torch.int8)
        out_dt, acc = torch.int32, tl.int32
    else:
        a, b = torch.randn(M, K, generator=g).to(dt), torch.randn(K, N, generator=g).to(dt)
        out_dt, acc = (torch.float64, tl.float64) if dt == torch.float64 else (torch.float32, tl.float32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    comp, interp = both(matmul, grid, lambda: [a.clone(), b.clone(), torch.zeros(M, N, dtype=out_dt), M, N, K],
                        BM=16, BN=16, BK=32, ACC=acc)
    ref = a.double() @ b.double()
    if dt == torch.int8:
        assert torch.equal(comp[2], ref.to(torch.int32)) and torch.equal(comp[2], interp[2])
    else:
        tol = 1e-12 if dt == torch.float64 else 1e-4
        torch.testing.assert_close(comp[2].double(), ref, rtol=tol, atol=tol)
        torch.testing.assert_close(comp[2], interp[2], rtol=tol, atol=tol)


@triton.jit
def shapes(x, flags, out, bits, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    v = tl.load(x + r[:, None] * C + c[None, :])                 # [R, C]
    t = tl.trans(v)                                              # [C, R]
    col = tl.load(x + c)                                         # broadcast a row over the rows of t
    w = t * 2.0 + tl.expand_dims(col, 1) - tl.reshape(v, (C, R))
    f = tl.load(flags + r)                                       # bool tensor: int1
    s0 = tl.load(x)                                              # a scalar load
    w = tl.where(f[None, :], w, s0) + tl.broadcast_to(tl.full((1, R), 0.5, tl.float32), (C, R))
    tl.store(out + c[:, None] * R + r[None, :], w)
    tl.store(flags + r, ~f)
    tl.store(bits + c, col.to(tl.int32, bitcast=True) ^ 0x7)
    tl.store(out + C * R, tl.sum(tl.permute(v, (1, 0)).to(tl.float64), axis=None).to(tl.float32))


def test_shape_functions_scalars_bools_and_bitcasts():
    R, C = 4, 8
    x = torch.randn(R * C)
    flags = torch.tensor([True, False, True, True])
    comp, interp = both(shapes, (1,), lambda: [x.clone(), flags.clone(), torch.zeros(R * C + 1),
                                               torch.zeros(C, dtype=torch.int32)], R=R, C=C)
    for a, b in zip(comp, interp):
        assert bits_equal(a, b)
    assert comp[1].tolist() == [False, True, False, False]
    assert torch.equal(comp[3], x[:C].view(torch.int32) ^ 7)


@triton.jit
def loops(x, out, n, ITERS, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    cnt = 0
    for i in range(0, ITERS):
        v = tl.load(x + i * BLOCK + offs, mask=offs < n, other=0.0)
        if i % 2 == 0:
            acc = acc + v
        else:
            acc = acc - v * 0.5
        cnt += 1
    k = 1
    while k < 100:
        k = k * 3
    tl.store(out + offs, acc * cnt + k, mask=offs < n)


def test_for_while_and_if_with_carried_tiles():
    x = torch.randn(6 * 64)
    comp, interp = both(loops, (1,), lambda: [x.clone(), torch.zeros(64), 50, 6], BLOCK=64)
    assert bits_equal(comp[1], interp[1])
    xs = x.view(6, 64)[:, :50]
    ref = (xs[0] - xs[1] * 0.5 + xs[2] - xs[3] * 0.5 + xs[4] - xs[5] * 0.5) * 6 + 243
    torch.testing.assert_close(comp[1][:50], ref)
    assert torch.all(comp[1][50:] == 0)


@triton.jit
def grid3(out, G1: tl.constexpr, G2: tl.constexpr):
    i = tl.program_id(0) * G1 * G2 + tl.program_id(1) * G2 + tl.program_id(2)
    tl.store(out + i, i * 1000 + tl.num_programs(0) * 100 + tl.num_programs(1) * 10 + tl.num_programs(2))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_three_dimensional_grid_over_worker_threads(threads):
    out = torch.zeros(5 * 3 * 2, dtype=torch.int32)
    grid3[(5, 3, 2)](out, G1=3, G2=2, num_cpu_threads=threads)
    assert grid3.last_mode == "compiled"
    assert out.tolist() == [i * 1000 + 532 for i in range(30)]


# ---- runtime checks and mode switches -----------------------------------------------------------

@triton.jit
def hinted(x, n):
    m = tl.multiple_of(n, 16)
    tl.assume(n > 0)
    tl.store(x + tl.arange(0, 16), (tl.arange(0, 16) + m).to(tl.float32))


def test_runtime_checks_raise_with_the_kernel_line():
    x = torch.zeros(16)
    hinted[(1,)](x, 32)
    assert hinted.last_mode == "compiled" and x.tolist() == [32.0 + i for i in range(16)]
    with pytest.raises(AssertionError, match=r"test_triton_compiled.py:\d+: tl.multiple_of"):
        hinted[(1,)](x, 8)
    with pytest.raises(AssertionError, match="tl.assume"):
        hinted[(1,)](x, -16)


@triton.jit
def uses_break(x, BLOCK: tl.constexpr):
    for i in range(3):
        if i == 1:
            break
        tl.atomic_add(x + tl.arange(0, BLOCK), 1.0)


def test_unsupported_construct_falls_back_and_says_which(monkeypatch, capsys):
    monkeypatch.setenv("CANNON_TRITON_DEBUG", "1")
    x = torch.zeros(8)
    uses_break[(3,)](x, BLOCK=8)
    assert x.tolist() == [3.0] * 8
    assert uses_break.last_mode == "interpreter" and "break" in uses_break.fallback_reason
    assert "uses_break runs in the interpreter" in capsys.readouterr().err


def test_interpret_variable_and_dump_switch(monkeypatch, capsys):
    x = torch.zeros(16)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    hinted[(1,)](x, 16)
    assert hinted.last_mode == "interpreter"
    monkeypatch.delenv("TRITON_INTERPRET")
    hinted[(1,)](x, 48)
    assert hinted.last_mode == "compiled" and x[0].item() == 48.0
    monkeypatch.setenv("CANNON_TRITON_DUMP", "1")
    out = torch.zeros(8, dtype=torch.int32)
    grid3[(2, 2, 2)](out, G1=2, G2=2)  # a new specialization is built and dumped
    err = capsys.readouterr().err
    assert "cn_triton_run" in err and "the C of grid3" in err


# ---- the disk cache -----------------------------------------------------------------------------

KERNEL_SRC = '''
import cannon.triton as triton
import cannon.triton.language as tl

@triton.jit
def scale(x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs, mask=offs < n) * FACTOR, mask=offs < n)
'''


def _load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_cache_hit_and_invalidation(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k1.py"
    src.write_text(KERNEL_SRC.replace("FACTOR", "2.0"))
    x = torch.ones(100)
    c0, h0 = build.stats["compiles"], build.stats["disk_hits"]
    m1 = _load_module(src, "cached_k1")
    m1.scale[(4,)](x, 100, BLOCK=32)
    assert m1.scale.last_mode == "compiled" and build.stats["compiles"] == c0 + 1
    m1.scale[(4,)](x, 100, BLOCK=32)  # the same specialization: neither compiled nor looked up again
    assert build.stats["compiles"] == c0 + 1 and build.stats["disk_hits"] == h0
    m2 = _load_module(src, "cached_k2")  # a fresh kernel object from the same source: the disk cache
    m2.scale[(4,)](x, 100, BLOCK=32)
    assert build.stats["compiles"] == c0 + 1 and build.stats["disk_hits"] == h0 + 1
    assert x.tolist() == [8.0] * 100
    m2.scale.warmup(x, 100, BLOCK=64, grid=(2,))  # another constexpr: another object, built by warmup
    assert build.stats["compiles"] == c0 + 2
    m2.scale[(2,)](x, 100, BLOCK=64)
    assert build.stats["compiles"] == c0 + 2 and x.tolist() == [16.0] * 100
    src.write_text(KERNEL_SRC.replace("FACTOR", "3.0"))  # the source changed: compiled again
    m3 = _load_module(src, "cached_k3")
    m3.scale[(4,)](x, 100, BLOCK=32)
    assert build.stats["compiles"] == c0 + 3 and x.tolist() == [48.0] * 100
    objs = list((tmp_path / "cache").rglob("kernel.so"))
    assert len(objs) == 3 and all((o.parent / "kernel.c").exists() for o in objs)
    shutil.rmtree(tmp_path / "cache")
    m4 = _load_module(src, "cached_k4")  # an emptied cache: built again
    m4.scale[(4,)](x, 100, BLOCK=32)
    assert build.stats["compiles"] == c0 + 4 and x.tolist() == [144.0] * 100


def test_generated_source_is_deterministic_and_c11():
    from cannon.triton.compiler import compile_ir, generate
    f = compile_ir(arith, {"x": "*fp16", "y": "*fp16", "out": "*fp16", "n": "i32"}, {"OP": "mix", "BLOCK": 64})
    src = generate(f)
    assert src == generate(compile_ir(arith, {"x": "*fp16", "y": "*fp16", "out": "*fp16", "n": "i32"},
                                      {"OP": "mix", "BLOCK": 64}))
    assert "cn_triton_run" in src and "({" not in src  # no GNU statement expressions
    assert math.isfinite(len(src)) and np.asarray([len(src)])[0] > 0
