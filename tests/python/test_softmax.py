"""Golden tests of aclnnSoftmax / LogSoftmax / SoftmaxBackward / LogSoftmaxBackward against a
float64 reference and against torch, on every instruction-set tier (CANNON_ISA is read by each
phase 1, so one process covers all tiers).

Pass criteria (the operator's contract):
  fp32:  |ours - ref| <= 1e-6 * |ref| for every element whose ref is a normal fp32 (> 1e-37);
  fp16/bf16: ours is within 1 ulp of ref rounded to the type (bit distance <= 1);
  fp64:  1e-12 relative (1e-14 absolute near 0);
  special values (inf, -inf, NaN): bit-compatible with torch (NaN where torch gives NaN).
"""
import numpy as np
import pytest
import torch

import golden
from softmax_helpers import FWD, check, decode, quantize, ref_forward, run_forward

FLOAT_TYPES = ["float32", "float16", "bfloat16", "float64"]


def forward_offset_out(op, xq, dtype):
    """The forward over the last dim into an output view 3 elements into its storage."""
    t = golden.array(xq, dtype)
    o = golden.empty(xq.shape, dtype, offset=3)
    golden.call(FWD[op], t, -1, o)
    return golden.read(o)


def forward_plain_and_streaming(op, xq, dtype, monkeypatch):
    """The forward over the last dim with plain ("0") and streaming ("1") stores forced
    (CANNON_SOFTMAX_NT), each also into an output view 3 elements into its storage ("0off",
    "1off": every row start off a 64-byte line)."""
    outs = {}
    for nt in ("0", "1"):
        monkeypatch.setenv("CANNON_SOFTMAX_NT", nt)
        outs[nt] = run_forward(op, xq, dtype, -1)
        outs[nt + "off"] = forward_offset_out(op, xq, dtype)
    return outs


SHAPES_DIMS = [((1,), 0), ((7,), -1), ((5, 33), 1), ((5, 33), 0), ((4, 7, 9), 0), ((4, 7, 9), 1),
               ((4, 7, 9), 2), ((2, 3, 130, 5), 2), ((3, 129, 65), 1), ((2, 1, 3, 1, 2, 1, 2, 3), 6),
               ((3, 1000), -1), ((2, 40000), -1), ((6, 1), -1), ((6, 1), 0), ((), 0), ((), -1)]


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_forward_shapes(isa, op, dtype):
    rng = np.random.default_rng(1)
    for shape, dim in SHAPES_DIMS:
        x = rng.standard_normal(shape) * 4
        xq, xv = quantize(x, dtype)
        ours = decode(run_forward(op, xq, dtype, dim), dtype)
        check(ours, ref_forward(xv, dim, op), dtype, f"{op} {dtype} {shape} dim={dim} {isa}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_forward_strided(isa, op, dtype):
    rng = np.random.default_rng(2)
    for shape, dim in [((9, 17), -1), ((9, 17), 0), ((3, 5, 33), 1), ((4, 300), -1)]:
        x = rng.standard_normal(shape) * 3
        xq, xv = quantize(x, dtype)
        ref = ref_forward(xv, dim, op)
        for ins, outs in [("T", False), ("offset", False), (None, True), ("T", True)]:
            ours = decode(run_forward(op, xq, dtype, dim, ins, outs), dtype)
            check(ours, ref, dtype, f"{op} {dtype} {shape} dim={dim} in={ins} out_strided={outs} {isa}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_fp32_accuracy_wide_rows(isa, op):
    """fp32 rows up to 32768 with a wide spread of values (x - max down to about -80)."""
    rng = np.random.default_rng(3)
    for n in (100, 4096, 32768):
        x = rng.uniform(-80, 10, size=(4, n)).astype(np.float32)
        ours = run_forward(op, x, "float32", -1).astype(np.float64)
        check(ours, ref_forward(x.astype(np.float64), -1, op), "float32", f"{op} n={n} {isa}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_million_row(op, monkeypatch):
    monkeypatch.setenv("CANNON_ISA", "avx512")
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((1, 1 << 20)) * 5).astype(np.float32)
    ours = run_forward(op, x, "float32", -1).astype(np.float64)
    check(ours, ref_forward(x.astype(np.float64), -1, op), "float32", f"{op} 1M row")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_extreme_values(isa, op, dtype):
    big = 65504.0 if dtype == "float16" else 3e38
    rows = [
        [0.0, 1.0, np.inf, 2.0],
        [-np.inf] * 4,
        [1.0, np.nan, 2.0, 3.0],
        [-np.inf, 0.0, -np.inf, 1.0],
        [big, -big, big, 0.0],
        [-big, -big, -big + (1 if dtype == "float32" else 0), -big],
        [1e-3, -1e-3, 0.0, 0.0],
        [np.inf, np.inf, 0.0, 0.0],
    ]
    x = np.array(rows)
    xq, xv = quantize(x, dtype)
    for dim in (-1, 0):
        ours = decode(run_forward(op, xq, dtype, dim), dtype)
        t = torch.from_numpy(xv.astype(np.float64))
        tref = (torch.softmax(t, dim) if op == "softmax" else torch.log_softmax(t, dim)).numpy()
        fin = np.isfinite(tref)
        assert np.array_equal(np.isnan(ours), np.isnan(tref)), f"{op} {dtype} dim={dim}: NaN pattern {ours} vs {tref}"
        assert np.array_equal(ours[~fin & ~np.isnan(tref)], tref[~fin & ~np.isnan(tref)])
        check(ours[fin], ref_forward(xv, dim, op)[fin], dtype, f"{op} {dtype} extreme dim={dim} {isa}")


def test_fp16_no_overflow(isa):
    x = np.array([[65504.0, 65504.0, -65504.0, 65000.0]], dtype=np.float16)
    for op in ("softmax", "log_softmax"):
        ours = run_forward(op, x, "float16", -1).astype(np.float64)
        if op == "softmax":
            assert np.all(np.isfinite(ours))
        check(ours, ref_forward(x.astype(np.float64), -1, op), "float16", op)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_against_torch(isa, dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 77, 5)) * 3
    xq, xv = quantize(x, dtype)
    tdt = {"float32": torch.float32, "float16": torch.float32, "bfloat16": torch.float32,
           "float64": torch.float64}[dtype]
    for op, fn in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
        for dim in (0, 1, 2):
            ours = decode(run_forward(op, xq, dtype, dim), dtype)
            tref = fn(torch.from_numpy(xv).to(tdt), dim).double().numpy()
            tol = {"float32": 2e-6, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
            # torch rounds log(sum) in the working precision: near-zero log-softmax outputs carry
            # an absolute error of about one ulp of 1, hence the absolute term.
            assert np.allclose(ours, tref, rtol=tol, atol=tol), f"{op} {dtype} dim={dim}"


# ---------------------------------------------------------------- backward
def run_backward(name, gq, yq, dtype, dim, strided=False):
    """@name on the quantized storage values; with @strided the gradient is a view of a transposed
    storage (2-D and more) and the output has every stride doubled."""
    g = golden.array(gq, dtype, layout="transposed" if strided else None)
    y = golden.array(yq, dtype)
    o = golden.empty(gq.shape, dtype, layout="strided" if strided else None)
    golden.call(name, g, y, dim, o)
    return golden.read(o)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("log", [False, True])
def test_backward(isa, dtype, log):
    rng = np.random.default_rng(6)
    name = "aclnnLogSoftmaxBackward" if log else "aclnnSoftmaxBackward"
    for shape, dim in [((5, 33), -1), ((5, 33), 0), ((3, 70, 9), 1), ((2, 3000), -1), ((7,), 0), ((0, 3), 1)]:
        x = rng.standard_normal(shape) * 2
        y = ref_forward(x, dim, "log_softmax" if log else "softmax")
        g = rng.standard_normal(shape)
        gq, gv = quantize(g, dtype)
        yq, yv = quantize(y, dtype)
        for strided in (False, True):
            ours = decode(run_backward(name, gq, yq, dtype, dim, strided), dtype)
            if log:
                s = np.sum(gv, axis=dim, keepdims=True)
                ref = gv - np.exp(yv) * s
                scale = np.abs(gv) + np.exp(yv) * np.sum(np.abs(gv), axis=dim, keepdims=True)
            else:
                s = np.sum(gv * yv, axis=dim, keepdims=True)
                ref = yv * (gv - s)
                scale = np.abs(yv) * (np.abs(gv) + np.sum(np.abs(gv * yv), axis=dim, keepdims=True))
            tol = {"float32": 2e-6, "float64": 1e-13, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
            tiny = {"float16": 2 ** -24, "bfloat16": 1e-38, "float32": 1e-44, "float64": 1e-300}[dtype]
            assert np.all(np.abs(ours - ref) <= tol * scale + tiny), f"{name} {dtype} {shape} dim={dim} {isa}"


# ---------------------------------------------------------------- errors
def test_errors():
    f = lambda shape, dt="float32": golden.empty(shape, dt)  # noqa: E731
    x = golden.array(np.zeros((2, 3), np.float32))
    o, o_h, o_s = f((2, 3)), f((2, 3), "float16"), f((3, 2))
    xi, oi = golden.array(np.zeros((2, 3), np.int32)), f((2, 3), "int32")
    x9, o9 = golden.array(np.zeros((1,) * 9, np.float32)), f((1,) * 9)
    p1 = golden.phase1_status
    for name in ("aclnnSoftmax", "aclnnLogSoftmax"):
        assert p1(name, None, 0, o) == 161001
        assert p1(name, x, 0, None) == 161001
        assert p1(name, x, 0, o, null_workspace_size=True) == 161001
        assert p1(name, x, 0, o, null_executor=True) == 161001
        assert p1(name, x, 2, o) == 161002
        assert p1(name, x, -3, o) == 161002
        assert p1(name, x, -2, o) == 0
        assert p1(name, x, 1, o_h) == 161002
        assert p1(name, x, 1, o_s) == 161002
        assert p1(name, xi, 1, oi) == 161002
        assert p1(name, x9, 0, o9) == 161002
        msg = golden.recent_error()
        assert "dim" in msg or "rank" in msg
    for name in ("aclnnSoftmaxBackward", "aclnnLogSoftmaxBackward"):
        assert p1(name, None, x, 1, o) == 161001
        assert p1(name, x, None, 1, o) == 161001
        assert p1(name, x, x, 1, None) == 161001
        assert p1(name, x, x, 5, o) == 161002
        assert p1(name, x, x, 1, o_h) == 161002
        assert p1(name, x, o_s, 1, o) == 161002
        assert p1(name, x, x, 1, o) == 0
    # Both phases, phase 2 with a NULL workspace of size 0 (softmax needs none).
    assert golden.call("aclnnSoftmax", x, 1, o) == 0


# ---------------------------------------------------------------- determinism
DET_SCRIPT = r"""
import hashlib, os
import numpy as np
import golden
h = hashlib.sha256()
rng = np.random.default_rng(7)
for isa in ("scalar", "avx2", "avx512"):
    os.environ["CANNON_ISA"] = isa
    for shape, dim, npdt in [((300, 1000), -1, np.float32), ((64, 50000), -1, np.float32),
                             ((24, 20001), -1, np.float32),
                             ((40, 70, 30), 1, np.float32), ((500, 257), -1, np.float16)]:
        x = (rng.standard_normal(shape) * 3).astype(npdt)
        for name in ("aclnnSoftmax", "aclnnLogSoftmax"):
            t = golden.array(x); o = golden.empty(shape, x.dtype)
            golden.call(name, t, dim, o)
            h.update(o.storage().tobytes())
print(h.hexdigest())
"""


def test_deterministic_across_threads():
    digests = set(golden.outputs_per_thread_count(DET_SCRIPT, ("1", "2", "8", "2"), 300))
    assert len(digests) == 1, digests


# ---------------------------------------------------------------- long rows
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_long_rows_recomputed_exp(isa, op, dtype):
    """Fast-path fp32 softmax rows of 32 KiB and more keep no exponentials: the write pass computes
    them again (softmax_body.h, SM_RECOMPUTE_MIN_BYTES); 16-bit rows of that size keep their
    fp32 exponentials (128 KiB of scratch at most). Lengths at and around that size with vector,
    pair-layout and write-chunk tails, several rows (the next row is prefetched), narrow and wide
    (fp32 spread 8-64) rows; the output must also be bit-identical to that of each row alone."""
    rng = np.random.default_rng(31)
    lens = (8192, 8195, 12345) if dtype == "float32" else (16384, 16411, 20000)
    for n in lens:
        x = rng.uniform(-4, 4, size=(3, n))
        if dtype == "float32":
            x[1] = rng.standard_normal(n) * 4  # spread ~35: the wide fast path on AVX-512
        x[2, 5] = x[2].max() + 1.0
        xq, xv = quantize(x, dtype)
        out = run_forward(op, xq, dtype, -1)
        check(decode(out, dtype), ref_forward(xv, -1, op), dtype, f"{op} {dtype} n={n} {isa}")
        for r in range(3):
            alone = run_forward(op, np.ascontiguousarray(xq[r:r + 1]), dtype, -1)
            assert np.array_equal(alone.view(np.uint8), np.ascontiguousarray(out[r:r + 1]).view(np.uint8)), \
                f"{op} {dtype} n={n} row {r} {isa}"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
def test_log_softmax_near_zero(isa, dtype):
    """Rows with one dominant element: log-softmax of that element is -log s with s = 1 + t, t as
    small as 1e-13 (and 1e-27 off the fast paths), made of terms far below half an fp64 ulp of 1.
    A sum of all terms rounded to fp64 loses them (the scalar tier was 15% off, 34 bf16 ulps);
    log s is taken as log1p of the rest summed apart (softmax_body.h, FN(row_log_near1)). Every
    row path (batches, pipelines, rows, long rows, the online path above 32768) and columns
    (dim 0), against the float64 reference, which sums the rest apart too."""
    rng = np.random.default_rng(47)
    for n, rows in ((64, 64), (128, 40), (512, 40), (1000, 8), (1024, 8), (4096, 6), (8192, 48),
                    (32000, 4), (40000, 3)):
        x = rng.uniform(-4, 4, size=(rows, n))
        for r in range(rows):
            gap = (30.0, 36.0, 40.0, 70.0)[r % 4]
            x[r, (7 * r) % n] = 4.0 + gap
        xq, xv = quantize(x, dtype)
        out = run_forward("log_softmax", xq, dtype, -1)
        check(decode(out, dtype), ref_forward(xv, -1, "log_softmax"), dtype, f"rows {dtype} n={n} {isa}")
        outc = run_forward("log_softmax", np.ascontiguousarray(xq.T), dtype, 0)
        check(decode(outc, dtype), ref_forward(np.ascontiguousarray(xv.T), 0, "log_softmax"), dtype,
              f"cols {dtype} n={n} {isa}")
        if dtype == "float64":
            top = (np.arange(rows), (7 * np.arange(rows)) % n)
            ref = ref_forward(xv, -1, "log_softmax")
            assert np.all(np.abs(out[top] - ref[top]) <= 1e-12 * np.abs(ref[top])), f"fp64 n={n}"


# ---------------------------------------------------------------- pipelined 16-bit rows
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_pipelined_rows_same_bits(isa, op, dtype):
    """On AVX-512, 16-bit rows of 512 to 2048 elements (log-softmax 576 to 4096), multiples of 64, in
    blocks of 3 rows or more go through the software-pipelined forward (softmax_body.h,
    FN(fwd_pipe)): a row's max/min, exponentials and output passes run interleaved with its
    neighbours'. A row alone takes the row-by-row path. Every row must have the same bits both
    ways, next to rows off the fast path (spread > 64, |max| > 1024, NaN, +inf, all -inf) at the
    pipeline's start, middle and end, and log-softmax rows whose sum is redone exactly (one
    dominant element); lengths just outside the range (448, and 512 for log-softmax: batch
    kernel; 1000) too."""
    rng = np.random.default_rng(41)
    for n in (576, 640, 1024, 2048, 4096, 512, 448, 1000):
        x = rng.standard_normal((11, n)) * 3
        x[0, 5] = 300.0             # spread > 64 (first row: the pipeline's prologue)
        x[3, :] += 2000.0           # |max| > 1024
        x[4, 7] = 60.0              # one dominant element: log-softmax sum below 2
        x[5, 9] = np.nan
        x[6, 3] = np.inf
        x[7, :] = -np.inf
        x[10, 11] = -300.0          # last row (the epilogue)
        xq, xv = quantize(x, dtype)
        out = run_forward(op, xq, dtype, -1)
        with np.errstate(all="ignore"):
            check(decode(out, dtype), ref_forward(xv, -1, op), dtype, f"{op} {dtype} n={n} {isa}")
        for r in range(x.shape[0]):
            alone = run_forward(op, np.ascontiguousarray(xq[r:r + 1]), dtype, -1)
            assert np.array_equal(alone.view(np.uint16), np.ascontiguousarray(out[r:r + 1]).view(np.uint16)), \
                f"{op} {dtype} n={n} row {r} {isa}"


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_pipelined_long_rows_same_bits(isa, op, dtype, monkeypatch):
    """Long 16-bit rows (SM_PIPE_LONG_MIN_R = 8192 to SM_SCRATCH_MAX, multiples of 64) go through the
    pipeline too, with plain or streaming stores (CANNON_SOFTMAX_NT forces either). 48 rows, so
    that every block holds 3 rows or more; rows off the fast path at the pipeline's start, middle
    and end of a block; an output view 3 elements into its storage (bf16 then streams no pair
    layout and keeps the row path); lengths off the pipeline (8200, 4096) too. Every row has the
    bits of the row alone, for either kind of store."""
    rng = np.random.default_rng(43)
    rows = 48
    for n in (8192, 16384, 32000, 8200, 4096):
        x = rng.uniform(-4, 4, size=(rows, n))
        x[0, 5] = 300.0             # spread > 64: the prologue's row goes to FN(fwd_row)
        x[21, :] += 2000.0          # |max| > 1024, mid-tensor
        x[22, 7] = 40.0             # one dominant element: log-softmax sum below 2
        x[23, 9] = np.nan
        x[rows - 1, 11] = -300.0    # the last row (the epilogue)
        x[30:32, :] *= 4.0          # spread 32: fp32's wide exp, next to narrow rows on both sides
        x[34, :] *= 4.0
        xq, xv = quantize(x, dtype)
        outs = forward_plain_and_streaming(op, xq, dtype, monkeypatch)
        with np.errstate(all="ignore"):
            check(decode(outs["1"], dtype), ref_forward(xv, -1, op), dtype, f"{op} {dtype} n={n} {isa}")
        for k in ("1", "0off", "1off"):
            assert np.array_equal(np.ascontiguousarray(outs[k]).view(np.uint16), outs["0"].view(np.uint16)), \
                f"{op} {dtype} n={n} {k} {isa}"
        for r in (0, 1, 2, 3, 20, 21, 22, 23, 24, 30, 31, 33, 34, rows - 2, rows - 1):
            alone = run_forward(op, np.ascontiguousarray(xq[r:r + 1]), dtype, -1)
            assert np.array_equal(alone.view(np.uint16), np.ascontiguousarray(outs["0"][r:r + 1]).view(np.uint16)), \
                f"{op} {dtype} n={n} row {r} {isa}"


# ---------------------------------------------------------------- batch-pipelined 16-bit rows
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_batch_pipelined_rows_same_bits(isa, dtype):
    """On AVX-512, 16-bit log-softmax rows of 64 in blocks of 48 rows or more go through the batch
    pipeline (softmax_group.h, FN(fwd_bpipe)): the full batches of 16 rows, each row's max/min,
    sum and output passes interleaved with the rows of the batches around it; the rest of a block
    goes through the batch kernel, as does every row of a block of fewer rows. Every row must have
    the same bits both ways: 1100 rows (blocks of 512, 512 and 76 rows, so a short last block too)
    against the same rows 16 at a time, with rows off the fast path (spread > 8, |max| > 1024,
    NaN, +inf, all -inf) in the pipeline's first and last batches, on batch edges and among the
    leftover rows, and rows whose sum is redone exactly (one dominant element); rows of 128 (batch
    kernel) too."""
    rng = np.random.default_rng(47)
    for n in (64, 128):
        x = rng.standard_normal((1100, n)) * 1.5
        for r, kind in ((0, "spread"), (15, "big"), (16, "nan"), (31, "inf"), (47, "ninf"), (300, "dom"),
                        (511, "spread"), (512, "dom"), (1023, "nan"), (1087, "big"), (1090, "spread"),
                        (1099, "ninf")):
            if kind == "spread":
                x[r, 5] = 300.0
            elif kind == "big":
                x[r, :] += 2000.0
            elif kind == "nan":
                x[r, 9] = np.nan
            elif kind == "inf":
                x[r, 3] = np.inf
            elif kind == "ninf":
                x[r, :] = -np.inf
            else:
                x[r, 7] = 60.0
        xq, xv = quantize(x, dtype)
        out = run_forward("log_softmax", xq, dtype, -1)
        with np.errstate(all="ignore"):
            check(decode(out, dtype), ref_forward(xv, -1, "log_softmax"), dtype, f"{dtype} n={n} {isa}")
        for r0 in range(0, x.shape[0], 16):
            part = run_forward("log_softmax", np.ascontiguousarray(xq[r0:r0 + 16]), dtype, -1)
            assert np.array_equal(part.view(np.uint16), np.ascontiguousarray(out[r0:r0 + 16]).view(np.uint16)), \
                f"{dtype} n={n} rows {r0}.. {isa}"


# ---------------------------------------------------------------- pipelined fp32 rows
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("nt", ["0", "1"])
def test_pipelined_f32_rows_same_bits(isa, op, nt, monkeypatch):
    """On AVX-512, fp32 rows of 256 (log-softmax 512) to 1024 elements, multiples of 128, in blocks of 3 rows
    or more go through the software-pipelined forward (softmax_body.h, FN(fwd_pipe32)): a row's
    max/min, exponentials (narrow or wide kind) and output passes run interleaved with its
    neighbours', its input read once into a ring. A row alone takes the row-by-row path. Every
    row must have the same bits both ways, with plain and streaming stores (nt) and into an output
    view 3 elements into its storage (rows off 64-byte lines: plain stores), next to rows of the
    wide kind (spread 8-64), a log-softmax row whose sum is redone exactly (one dominant element)
    and rows off both fast paths (spread > 64, |max| > 4096 with spread > 8, NaN, +inf, all -inf)
    at the pipeline's start, middle and end; lengths just outside (128: batch kernel; 640, 1152:
    row path; 256 and 384 for log-softmax: groups) too."""
    monkeypatch.setenv("CANNON_SOFTMAX_NT", nt)
    rng = np.random.default_rng(43)
    for n in (256, 384, 512, 1024, 128, 640, 1152):
        x = rng.uniform(-4, 4, size=(11, n))
        x[0, 5] = 300.0                         # spread > 64 (the prologue's first row)
        x[1] = rng.standard_normal(n) * 6       # spread ~40: the wide kind
        x[2] = rng.standard_normal(n) * 6 - 3000.0  # wide, |max| near its bound
        x[3] = rng.standard_normal(n) * 3 + 5000.0  # |max| > 4096, spread > 8
        x[4, 7] = 4.5                           # a max just above the rest
        x[5, 9] = np.nan
        x[6, 3] = np.inf
        x[7, :] = -np.inf
        x[8] = rng.standard_normal(n) * 6       # wide next to narrow rows
        x[9, 2] = 60.0                          # one dominant element: log-softmax sum below 2
        x[10, 11] = -300.0                      # the last row (the epilogue)
        xq, xv = quantize(x, "float32")
        out = run_forward(op, xq, "float32", -1)
        with np.errstate(all="ignore"):
            check(decode(out, "float32"), ref_forward(xv, -1, op), "float32", f"{op} n={n} nt={nt} {isa}")
        off = np.ascontiguousarray(forward_offset_out(op, xq, "float32"))
        assert np.array_equal(off.view(np.uint32), out.view(np.uint32)), f"{op} n={n} nt={nt} offset view {isa}"
        for r in range(x.shape[0]):
            alone = run_forward(op, np.ascontiguousarray(xq[r:r + 1]), "float32", -1)
            assert np.array_equal(alone.view(np.uint32), np.ascontiguousarray(out[r:r + 1]).view(np.uint32)), \
                f"{op} n={n} nt={nt} row {r} {isa}"


# ---------------------------------------------------------------- streaming stores
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_streaming_stores_same_bits(isa, op, dtype, monkeypatch):
    """Outputs written with streaming stores (softmax_op.c: large fp32 outputs, long 16-bit rows;
    CANNON_SOFTMAX_NT=1 forces them here) have the bits of plain stores: short rows in groups,
    rows of 1000 and 1024 (row starts off and on 64-byte lines: bf16 streams whole-line pairs only
    from aligned rows), long rows with pair and vector tails, and an output view 3 elements into
    its storage (every row start unaligned). bf16 rows sum in pair layout however they are stored;
    the large shapes give the fp32 sums enough rows to show any difference in summation order."""
    rng = np.random.default_rng(37)
    shapes = [(40, 128), (33, 100), (6, 1000), (6, 1024), (3, 16411), (2, 20000)]
    if dtype == "bfloat16":
        shapes += [(3000, 1000), (2000, 1024), (500, 4000)]
    for shape in shapes:
        x = rng.standard_normal(shape) * 3
        x[0, 1] = x[0].max() + 0.5
        xq, xv = quantize(x, dtype)
        outs = forward_plain_and_streaming(op, xq, dtype, monkeypatch)
        check(decode(outs["1"], dtype), ref_forward(xv, -1, op), dtype, f"{op} {dtype} {shape} nt {isa}")
        for k in ("1", "0off", "1off"):
            assert np.array_equal(np.ascontiguousarray(outs[k]).view(np.uint8),
                                  np.ascontiguousarray(outs["0"]).view(np.uint8)), f"{op} {dtype} {shape} {k} {isa}"


# ---------------------------------------------------------------- fast-path corners
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_fast_path_corners(isa, op, dtype):
    """Rows near the fast path's limits (softmax_body.h): sums just below and above 2 (log-softmax
    re-sums rows below 2), maxima near and beyond the 16-bit path's |max| bound, lengths around
    the vector and pair-layout blocks, groups of short rows (R <= 512) with a partial last group
    and rows off the fast path (inf, NaN, wide spread) in the middle of a group."""
    rng = np.random.default_rng(11)
    cases = []
    for n in (2, 17, 64, 65, 127, 130, 512, 1000):
        lo = -7.5 if dtype == "float32" else -60.0
        a = np.full((3, n), lo)
        a[:, 0] = 0.0
        a[1, 1:] = lo + rng.uniform(0, 0.5, n - 1)
        a[2] = rng.uniform(-0.7, 0.0, n)  # sum near n/2.. at n = 2..4 close to 2
        a[2, 0] = 0.0
        cases.append(a)
    for base in (-1020.0, 1000.0, 1030.0, -3000.0, 5e4 if dtype != "float16" else 6e4):
        cases.append(base + rng.uniform(-3, 3, size=(5, 96)))
    g = rng.standard_normal((37, 130)) * 3  # partial last group
    g[5, 7], g[9, 3], g[20, :] = np.inf, np.nan, np.linspace(-200, 0, 130)
    cases.append(g)
    cases.append(rng.standard_normal((19, 512)) * 2)
    for x in cases:
        xq, xv = quantize(x, dtype)
        ours = decode(run_forward(op, xq, dtype, -1), dtype)
        with np.errstate(all="ignore"):
            t = torch.from_numpy(xv)
            tref = (torch.softmax(t, -1) if op == "softmax" else torch.log_softmax(t, -1)).numpy()
        bad = ~np.isfinite(tref)
        assert np.array_equal(np.isnan(ours[bad]), np.isnan(tref[bad])), f"{op} {dtype} {x.shape} {isa}"
        rows = np.all(np.isfinite(xv), axis=-1)
        check(ours[rows], ref_forward(xv[rows], -1, op), dtype, f"{op} {dtype} {x.shape} {isa}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_fp32_fast_exp_table(isa, op):
    """fp32 fast path's exp (AVX-512: a 16-entry 2^(j/16) table indexed by the low bits of the
    rounded 16 (x - max) log2 e, softmax_vec.h): every table entry and both sides of each rounding
    boundary (x - max at odd multiples of ln2/32), the spread up to the fast range's 8, rows in
    groups (128), alone (1024) and long enough that the softmax write pass computes exp again
    (9000), maxima far from 0."""
    step = np.log(2.0) / 32
    k = np.arange(0, int(8.0 / step))
    d = -np.concatenate([k * step, k * step * (1 + 2e-7), k * step * (1 - 2e-7), [8.0]])
    d = d[d >= -8.0]
    for n in (128, 1024, 9000):
        rows = []
        for m in (0.0, 3.25, -50.0, 1000.0):
            r = m + np.resize(d, n)
            r[0] = m
            rows.append(r)
        x = np.array(rows, dtype=np.float32)
        ours = run_forward(op, x, "float32", -1).astype(np.float64)
        check(ours, ref_forward(x.astype(np.float64), -1, op), "float32", f"{op} n={n} {isa}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_fp32_wide_fast_path(isa, op):
    """fp32 rows of spread 8 to 64 with |max| <= 4096 (AVX-512: the wide fast path's exp, which
    never forms x - max, softmax_vec.h; other tiers: the exact path), and rows just beyond those
    limits, and one of spread 6 (the narrow fast path); lengths alone (1000, and 5003 and 32000,
    whose write passes prefetch the next row in chunks) and in groups of short rows (130)."""
    rng = np.random.default_rng(23)
    for n in (130, 1000, 5003, 32000):
        rows = []
        for m, spread in ((0.0, 8.25), (1.5, 20.0), (-37.0, 63.9), (4096.0, 30.0), (-4096.0, 64.0),
                          (4100.0, 30.0), (0.0, 64.5), (0.5, 6.0), (2.0, 12.0)):
            r = m - rng.uniform(0, spread, n)
            r[0], r[-1] = m, m - spread
            rows.append(r)
        rows.append(rng.standard_normal(n) * 3)
        x = np.array(rows, dtype=np.float32)
        ours = run_forward(op, x, "float32", -1).astype(np.float64)
        check(ours, ref_forward(x.astype(np.float64), -1, op), "float32", f"{op} n={n} {isa}")
