"""Golden tests of aclnnWeightQuantBatchMatmulV2 (A16W8 / A16W4) against float64 references.

Reference: y = x @ ((q + offset) * scale) + bias in float64, from the very values uploaded (x,
scale, offset and bias as their 16-bit (or fp32 bias) values). cannon computes in fp32 and rounds
y once (m up to a per-tier bound, FUSED_MAX_M, with the weight contiguous along K: the fused path,
which widens the quantised values in registers and scales each group's fp32 sum; otherwise the
weight is dequantised to fp32 and multiplied with sgemm), so the assertion is: |ours - ref| <= u *
|ref| + 2^-20 * (|x| @ |W|) + tiny, u = 2^-10 for FLOAT16 (twice its half ulp) and 2^-7 for
BFLOAT16; the second term is the fp32 dot product's accumulation bound for the K used here. Every
ISA tier; INT8 and INT4 weights (nibble order: element 2i in the low nibble of byte i, strides and
offsets counting nibbles); per-tensor, per-channel and per-group scales, with and without offsets
and bias; contiguous, transposed (ggml's (n, k) storage) and strided views; both paths and m
across the threshold between them; the ggml Q4_0 / Q8_0 call pattern; the same bits for any worker
count; errors.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
from cannon.array import DType
from golden import torch_dtype

INT4 = DType("int4", 29, np.uint8, None)  # ACL_INT4: the package has no numpy type for it
API = "aclnnWeightQuantBatchMatmulV2"
XDTYPES = ["float16", "bfloat16"]
# The largest m the fused path serves, per ISA tier (wq_fused_max_m in wqbmm_op.c).
FUSED_MAX_M = {"scalar": 2, "avx2": 8, "avx512": 32}


def int4_array(q, shape, strides, offset):
    """An INT4 DeviceArray viewing (shape, strides, offset: in nibbles) a storage whose nibble i
    holds q[i] (flat, values in [-8, 7])."""
    u = (np.asarray(q, dtype=np.int64).reshape(-1) & 0xF).astype(np.uint8)
    if len(u) % 2:
        u = np.append(u, np.uint8(0))
    packed = u[0::2] | (u[1::2] << 4)
    buf = cannon.DeviceBuffer(max(2 * len(packed), 1))
    host = np.zeros(buf.nbytes, np.uint8)
    host[:len(packed)] = packed
    buf.copy_from_host(host)
    return cannon.DeviceArray(shape, INT4, strides, offset, buf)


def weight_array(q, wdt, layout):
    """q: int64 tensor (k, n) of quantised values; an INT8 or INT4 DeviceArray of it, laid out
    'contig' ((k, n) row-major), 'transposed' ((n, k) row-major storage, ggml's), or 'offset'
    (row-major with a gap of 6 elements at the start and rows of n + 2)."""
    k, n = q.shape
    if layout == "contig":
        st, off, store = [n, 1], 0, q.reshape(-1)
    elif layout == "transposed":
        st, off, store = [1, k], 0, q.t().contiguous().reshape(-1)
    else:
        full = torch.zeros(k, n + 2, dtype=torch.int64)
        full[:, :n] = q
        st, off, store = [n + 2, 1], 6, torch.cat([torch.zeros(6, dtype=torch.int64), full.reshape(-1)])
    if wdt == "int4":
        return int4_array(store.numpy(), [k, n], st, off)
    return cannon.from_storage(store.numpy().astype(np.int8), [k, n], st, off, "int8")


def rounded(t, dt):
    return golden.from_storage(golden.to_storage(t, dt), dt).double()


def reference(x, q, scale, offset, bias, group):
    """float64 y of the quantised inputs; scale/offset (G, n) with G = ceil(k / group), or 1 row."""
    k = q.shape[0]
    rows = torch.arange(k) // group if scale.shape[0] > 1 else torch.zeros(k, dtype=torch.int64)
    s = scale[rows]
    o = offset[rows] if offset is not None else 0.0
    w = (q.double() + o) * s
    y = x @ w
    if bias is not None:
        y = y + bias
    return y, x.abs() @ w.abs()


def check(ours, ref, mag, dt, what):
    u = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
    err = (ours.double() - ref).abs()
    bound = u * ref.abs() + 2.0 ** -20 * mag + 1e-6
    assert bool((err <= bound).all()), f"{what}: worst excess {(err - bound).max().item():.3g}"


def run(x, q, wdt, scale_t, off_t, bias_t, group_arg, dt, xlay="contig", wlay="contig", scale_shape=None,
        ystrided=False, bias_dt=None, fmt=cannon.FORMAT_ND):
    m, k = x.shape
    n = q.shape[1]
    X = golden.upload(x, dt, xlay)
    W = weight_array(q, wdt, wlay)
    if fmt != cannon.FORMAT_ND:
        W = cannon.DeviceArray(W.shape, W.dtype, W.strides, W.offset, W.buffer, fmt)
    shp = list(scale_shape or scale_t.shape)
    S = golden.upload(scale_t.reshape(shp), dt)
    O = golden.upload(off_t.reshape(shp), dt) if off_t is not None else None
    B = golden.upload(bias_t, bias_dt) if bias_t is not None else None
    Y = golden.empty([m, n], dt, strides=[1, m] if ystrided else None)
    golden.call(API, X, W, S, O, None, None, B, group_arg, Y)
    return golden.download(Y, dt)


def make(gen, m, k, n, wdt, groups, dt, with_off, with_bias):
    lo, hi = (-8, 8) if wdt == "int4" else (-128, 128)
    q = torch.randint(lo, hi, (k, n), generator=gen)
    x = rounded(torch.randn(m, k, generator=gen), dt)
    scale = rounded(torch.rand(groups, n, generator=gen) * 0.05 + 0.01, dt)
    off = rounded(torch.randn(groups, n, generator=gen) * 2, dt) if with_off else None
    bdt = "float16" if dt == "float16" else "float32"
    bias = rounded(torch.randn(n, generator=gen), bdt) if with_bias else None
    return x, q, scale, off, bias, bdt


@pytest.mark.parametrize("dt", XDTYPES)
@pytest.mark.parametrize("wdt", ["int8", "int4"])
def test_modes_and_layouts(isa, dt, wdt):
    gen = torch.Generator().manual_seed(0)
    m, k, n = 9, 128, 70
    cases = [  # (scale rows, scale shape, group arg, offset, bias)
        (1, [1], 0, False, False), (1, [1, 1], 0, True, True),
        (1, [n], 0, False, True), (1, [1, n], 0, True, False),
        (k // 32, None, 32, False, False), (k // 32, None, 32, True, True), (k // 64, None, 64, True, False),
    ]
    for rows, shape, garg, with_off, with_bias in cases:
        x, q, scale, off, bias, bdt = make(gen, m, k, n, wdt, rows, dt, with_off, with_bias)
        if shape is not None and shape[-1] == 1:  # per tensor: one value for every column
            scale, off = scale[:, :1].expand(1, n), (off[:, :1].expand(1, n) if off is not None else None)
            st, ot = scale[:, :1], (off[:, :1] if off is not None else None)
        else:
            st, ot = scale, off
        ref, mag = reference(x, q, scale, off, bias, garg or k)
        for xlay, wlay, ys in (("contig", "contig", False), ("transposed", "transposed", True),
                               ("strided", "offset", False)):
            ours = run(x, q, wdt, st, ot, bias, garg, dt, xlay, wlay, shape, ys, bdt)
            check(ours, ref, mag, dt, f"{dt} {wdt} rows={rows} shape={shape} g={garg} off={with_off} "
                                      f"bias={with_bias} {xlay} {wlay} ystrided={ys}")


@pytest.mark.parametrize("dt", XDTYPES)
def test_sizes(isa, dt):
    """Column blocks of 64 and row chunks of 256: tails on both; K = 1 (per channel) and a K not a
    multiple of the group size."""
    gen = torch.Generator().manual_seed(1)
    for m, k, n, wdt, g in ((1, 64, 1, "int8", 0), (300, 96, 130, "int4", 32), (2, 1, 3, "int8", 0),
                            (5, 100, 65, "int8", 32), (257, 40, 64, "int4", 0)):
        rows = (k + g - 1) // g if g else 1
        x, q, scale, off, bias, bdt = make(gen, m, k, n, wdt, rows, dt, True, True)
        ref, mag = reference(x, q, scale, off, bias, g or k)
        ours = run(x, q, wdt, scale, off, bias, g, dt, wlay="transposed", bias_dt=bdt)
        check(ours, ref, mag, dt, f"{dt} {m}x{k}x{n} {wdt} g={g}")


@pytest.mark.parametrize("wdt", ["int8", "int4"])
def test_ggml_q8_q4_pattern(isa, wdt):
    """ggml's MUL_MAT with Q8_0 / Q4_0 weights: x F16 [m, k], the weight a [k, n] view of its
    row-major (n, k) quants (INT4 packed two per byte), the F16 scales a [k/32, n] view of their
    (n, k/32) storage, groupSize 32 (0 when k <= 32), no offset or bias, y F16 [m, n]; the weight
    tagged FRACTAL_NZ too (cannon reads it as ND)."""
    gen = torch.Generator().manual_seed(2)
    for m, k, n in ((1, 256, 96), (7, 32, 40), (33, 4096 // 8, 64)):
        lo, hi = (-8, 8) if wdt == "int4" else (-127, 128)
        q = torch.randint(lo, hi, (k, n), generator=gen)
        g = 32 if k > 32 else 0
        x = rounded(torch.randn(m, k, generator=gen), "float16")
        sc = rounded(torch.rand(k // 32, n, generator=gen) * 0.02 + 0.001, "float16")
        S = cannon.from_storage(golden.to_storage(sc.t().contiguous(), "float16"), [k // 32, n], [1, k // 32], 0,
                                "float16")
        ref, mag = reference(x, q, sc, None, None, 32)
        for fmt in (cannon.FORMAT_ND, 29):
            W = weight_array(q, wdt, "transposed")
            W = cannon.DeviceArray(W.shape, W.dtype, W.strides, W.offset, W.buffer, fmt)
            Y = golden.empty([m, n], "float16")
            golden.call(API, golden.upload(x, "float16"), W, S, None, None, None, None, g, Y)
            check(golden.download(Y, "float16"), ref, mag, "float16", f"ggml {wdt} {m}x{k}x{n} fmt={fmt}")


def ggml_scale_view(sc, dt):
    """The (G, n) scales as ggml passes them: a transposed view of their (n, G) storage."""
    G, n = sc.shape
    return cannon.from_storage(golden.to_storage(sc.t().contiguous(), dt), [G, n], [1, G], 0, dt)


@pytest.mark.parametrize("dt", XDTYPES)
@pytest.mark.parametrize("wdt", ["int8", "int4"])
def test_fused_small_m(isa, dt, wdt):
    """The fused small-m path (m <= FUSED_MAX_M[isa], weight contiguous along K) and the sgemm
    path past it: m = 1..9 and the tier's bound and one past it; n = 67 (a panel of 64 columns,
    then 3: tails of the kernel's column groups); K not a multiple of any vector width (100: a
    last group of 4; 38 per channel); per-tensor, per-channel and per-group scales (contiguous
    and as ggml's transposed view), with and without offset and bias; x contiguous and strided,
    y strided."""
    gen = torch.Generator().manual_seed(4)
    n = 67
    cases = [  # (k, group arg, scale rows, scale layout, offset, bias)
        (100, 32, 4, "ggml", False, False), (100, 32, 4, "contig", True, True), (128, 64, 2, "ggml", True, False),
        (38, 0, 1, "tensor", True, True), (38, 0, 1, "channel", False, True), (96, 0, 1, "channel", True, False),
    ]
    for k, garg, rows, slay, with_off, with_bias in cases:
        for m in sorted(set(range(1, 10)) | {FUSED_MAX_M[isa], FUSED_MAX_M[isa] + 1}):
            x, q, scale, off, bias, bdt = make(gen, m, k, n, wdt, rows, dt, with_off, with_bias)
            if slay == "tensor":
                scale, off = scale[:, :1].expand(1, n), (off[:, :1].expand(1, n) if off is not None else None)
            ref, mag = reference(x, q, scale, off, bias, garg or k)
            X = golden.upload(x, dt, "strided" if m % 2 else "contig")
            W = weight_array(q, wdt, "transposed")
            if slay == "tensor":
                S, O = golden.upload(scale[:, :1].reshape(1), dt), None
                if off is not None:
                    O = golden.upload(off[:, :1].reshape(1), dt)
            elif slay == "ggml":
                S, O = ggml_scale_view(scale, dt), (ggml_scale_view(off, dt) if off is not None else None)
            else:
                S = golden.upload(scale if rows > 1 else scale.reshape(n), dt)
                O = golden.upload(off if rows > 1 else off.reshape(n), dt) if off is not None else None
            B = golden.upload(bias, bdt) if bias is not None else None
            Y = golden.empty([m, n], dt, strides=[1, m] if m % 3 == 0 else None)
            golden.call(API, X, W, S, O, None, None, B, garg, Y)
            check(golden.download(Y, dt), ref, mag, dt,
                  f"{dt} {wdt} m={m} k={k} g={garg} scales={slay} off={with_off} bias={with_bias}")


@pytest.mark.parametrize("wdt", ["int8", "int4"])
def test_fused_rows_independent_of_m(isa, wdt):
    """On the fused path each row's result depends on that row alone: y[i] for the tier's largest
    fused m (at most 8 here) equals the m = 1 product of row i, bit for bit."""
    gen = torch.Generator().manual_seed(5)
    m, k, n = min(FUSED_MAX_M[isa], 8), 160, 70
    x, q, scale, off, bias, bdt = make(gen, m, k, n, wdt, k // 32, "float16", True, True)
    full = run(x, q, wdt, scale, off, bias, 32, "float16", wlay="transposed", bias_dt=bdt)
    for i in sorted({0, m // 2, m - 1}):
        one = run(x[i:i + 1], q, wdt, scale, off, bias, 32, "float16", wlay="transposed", bias_dt=bdt)
        assert torch.equal(one[0].view(torch.int16), full[i].view(torch.int16)), f"row {i}"


def test_fused_deterministic_across_threads():
    """The fused path gives the same bits for 1 and 2 workers in every tier (n = 200: four
    panels of columns, so both workers take some; m = 1 and 2 are fused in every tier)."""
    script = r"""
import hashlib, os
import numpy as np, torch, cannon
import golden, test_matmul_wqbmm as t
out = []
for isa in ("scalar", "avx2", "avx512"):
    os.environ["CANNON_ISA"] = isa
    for wdt, m in (("int4", 1), ("int8", 2), ("int8", 5), ("int4", 8)):
        gen = torch.Generator().manual_seed(6)
        x, q, scale, off, bias, bdt = t.make(gen, m, 256, 200, wdt, 8, "float16", True, True)
        y = t.run(x, q, wdt, scale, off, bias, 32, "float16", wlay="transposed", bias_dt=bdt)
        out.append(hashlib.sha1(y.numpy().tobytes()).hexdigest()[:12])
print(" ".join(out))
"""
    res = golden.outputs_per_thread_count(script, (1, 2), 120)
    assert res[0] == res[1]
    assert len(res[0].split()) == 12


def test_int4_nibble_order():
    """Element 2i is the low nibble of byte i, 2i + 1 the high one; nibbles are two's complement."""
    W = int4_array([-1, 7, 3, -8], [4, 1], [1, 4], 0)  # storage bytes 0x7F, 0x83
    x = golden.array(np.array([[1.0, 2.0, 4.0, 8.0]]), "float16")
    S = golden.array(np.array([1.0]), "float16")
    Y = golden.empty([1, 1], "float16")
    golden.call(API, x, W, S, None, None, None, None, 0, Y)
    assert float(golden.read_float(Y)[0, 0]) == -1 + 14 + 12 - 64
    # the same weight one nibble into the storage: an odd view offset
    W = int4_array([5, -1, 7, 3, -8], [4, 1], [1, 4], 1)
    golden.call(API, x, W, S, None, None, None, None, 0, Y)
    assert float(golden.read_float(Y)[0, 0]) == -1 + 14 + 12 - 64


def test_deterministic_across_threads():
    script = r"""
import hashlib, os
import numpy as np, torch, cannon
import golden, test_matmul_wqbmm as t
out = []
for isa in ("scalar", "avx2", "avx512"):
    os.environ["CANNON_ISA"] = isa
    gen = torch.Generator().manual_seed(3)
    x, q, scale, off, bias, bdt = t.make(gen, 300, 256, 200, "int4", 8, "float16", True, True)
    y = t.run(x, q, "int4", scale, off, bias, 32, "float16", wlay="transposed", bias_dt=bdt)
    out.append(hashlib.sha1(y.numpy().tobytes()).hexdigest()[:12])
print(" ".join(out))
"""
    res = golden.outputs_per_thread_count(script, (1, 2, 3), 120)
    assert res[0] == res[1] == res[2]
    assert len(set(res[0].split())) == 1  # every tier gives the same bits


def test_errors():
    f = lambda s, dt="float16": golden.empty(list(s), dt)
    i8 = lambda s: golden.empty(list(s), "int8")
    x, w, s, y = f((4, 64)), i8((64, 8)), f((8,)), f((4, 8))
    assert golden.status(API, x, w, s, None, None, None, None, 0, y) == 0
    assert golden.status(API, None, w, s, None, None, None, None, 0, y) == 161001
    assert golden.status(API, x, None, s, None, None, None, None, 0, y) == 161001
    assert golden.status(API, x, w, None, None, None, None, None, 0, y) == 161001
    assert golden.status(API, x, w, s, None, None, None, None, 0, None) == 161001

    def err(*args):
        with pytest.raises(golden.AclError) as ei:
            golden.call(API, *args)
        assert ei.value.code == 161002
        return ei.value.message

    assert "x dtype FLOAT is not supported" in err(f((4, 64), "float32"), w, s, None, None, None, None, 0,
                                                   f((4, 8), "float32"))
    assert "weight dtype FLOAT16" in err(x, f((64, 8)), s, None, None, None, None, 0, y)
    assert "quantScaleOptional" in err(x, w, s, None, golden.empty([8], "uint64"), None, None, 0, y)
    assert "quantOffsetOptional" in err(x, w, s, None, None, f((8,), "float32"), None, 0, y)
    assert "antiquantScale" in err(x, w, f((8,), "bfloat16"), None, None, None, None, 0, y)
    assert "antiquantScale must be" in err(x, w, f((3,)), None, None, None, None, 0, y)
    assert "antiquantScale must be (ceil" in err(x, w, f((3, 8)), None, None, None, None, 32, y)
    assert "antiquantGroupSize 48" in err(x, w, f((2, 8)), None, None, None, None, 48, y)
    assert "antiquantGroupSize 64" in err(x, w, f((1, 8)), None, None, None, None, 64, y)  # > k - 1
    assert "antiquantOffsetOptional" in err(x, w, s, f((1, 8)), None, None, None, 0, y)
    assert "biasOptional dtype FLOAT does not go" in err(x, w, s, None, None, None, f((8,), "float32"), 0, y)
    assert "biasOptional must be" in err(x, w, s, None, None, None, f((2, 8)), 0, y)
    assert "weight's k (63)" in err(x, i8((63, 8)), s, None, None, None, None, 0, y)
    assert "y's shape" in err(x, w, s, None, None, None, None, 0, f((4, 9)))
    assert "x must be 2-D" in err(f((1, 4, 64)), w, s, None, None, None, None, 0, y)
    assert "empty" in err(f((0, 64)), w, s, None, None, None, None, 0, f((0, 8)))
    assert "in [1, 65535]" in err(f((4, 65536)), i8((65536, 8)), s, None, None, None, None, 0, y)
    assert "inner dim must be even" in err(x, int4_array(np.zeros(64 * 7), [64, 7], [7, 1], 0), f((7,)), None,
                                           None, None, None, 0, f((4, 7)))
    W = cannon.DeviceArray([64, 8], "int8", None, 0, w.buffer, cannon.FORMAT_NCHW)
    assert "format" in err(x, W, s, None, None, None, None, 0, y)
