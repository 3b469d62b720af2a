"""Short-row softmax (rows up to 512 elements along the last dim: the batch and group kernels of
src/ops/softmax/softmax_group.h; which rows take the batch kernel depends on SM_GROUP_ELEMS and
SM_GROUP_ROWS, so the lengths cover 64 to 512; softmax rows of 512 take the row path (fp32) or the
AVX-512 pipeline (fp16/bf16), which must give the same bits): batch edges, special values inside a
batch, and per-row determinism (a row's result must not depend on its neighbours or on where a batch starts).
Same pass criteria as test_softmax.py, on every instruction-set tier."""
import numpy as np
import pytest
import torch

from softmax_helpers import check, decode, quantize, ref_forward, run_forward

# Lengths around the vector widths, the 64-element bf16 pair blocks, the specialised 128 and 512,
# and the first length past the short-row path.
LENGTHS = [1, 3, 16, 17, 31, 33, 64, 65, 100, 127, 128, 129, 255, 256, 500, 511, 512, 513]
# Row counts around the 16-row batch (and the 8-row AVX2 one).
ROWS = [1, 7, 15, 16, 17, 33, 40]


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_short_rows(isa, op, dtype):
    rng = np.random.default_rng(11)
    for i, n in enumerate(LENGTHS):
        rows = ROWS[i % len(ROWS)]
        # Mostly rows on the fast path (spread <= 8), some wider (N(0, 9) reaches past 8 often).
        x = rng.uniform(-4, 4, size=(rows, n)) if i % 3 else rng.standard_normal((rows, n)) * 3
        xq, xv = quantize(x, dtype)
        ours = decode(run_forward(op, xq, dtype, -1), dtype)
        check(ours, ref_forward(xv, -1, op), dtype, f"{op} {dtype} {rows}x{n} {isa}")


def _special_rows(n, dtype):
    rng = np.random.default_rng(12)
    x = rng.uniform(-4, 4, size=(37, n))
    big = 65504.0 if dtype == "float16" else 3e38
    x[3, n // 2] = np.nan
    x[5, n - 1] = np.inf
    x[6, :] = -np.inf
    x[7, 0] = -np.inf
    x[8, :] = np.linspace(-40, 3, n)  # spread beyond the fast path
    # A huge max over zeros (with other values beside it the scalar tier's exp returns a
    # subnormal instead of 0: the TwoSum error of x - max is added after exp's input clamp).
    x[9, :] = 0.0
    x[9, n // 3] = big
    x[10, :] = 1000.0 + x[10, :]  # large max (16-bit fast path needs |max| <= 1024)
    x[17, :] = 0.0
    x[18, 1:] = -np.inf  # a single finite element
    x[31, ::2] = np.inf
    return x


def _check_specials(ours, xv, op, dtype, what):
    """NaNs and infinities where torch has them, the finite outputs against float64."""
    t = torch.from_numpy(xv)
    tref = (torch.softmax(t, -1) if op == "softmax" else torch.log_softmax(t, -1)).numpy()
    fin = np.isfinite(tref)
    assert np.array_equal(np.isnan(ours), np.isnan(tref)), what
    assert np.array_equal(ours[~fin & ~np.isnan(tref)], tref[~fin & ~np.isnan(tref)]), what
    check(ours[fin], ref_forward(xv, -1, op)[fin], dtype, what)


def _check_independent(op, xq, dtype, n, starts, rows):
    """The bits of the rows from each of @p starts on, and of each of @p rows alone, equal the
    whole tensor's; returns the whole tensor's output."""
    full = run_forward(op, xq, dtype, -1)
    for k in starts:
        part = run_forward(op, np.ascontiguousarray(xq[k:]), dtype, -1)
        assert np.array_equal(part.view(np.uint8), full[k:].view(np.uint8)), f"{op} {dtype} n={n} from row {k}"
    for r in rows:
        one = run_forward(op, np.ascontiguousarray(xq[r:r + 1]), dtype, -1)
        assert np.array_equal(one.view(np.uint8), full[r:r + 1].view(np.uint8)), f"{op} {dtype} n={n} row {r}"
    return full


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [5, 128, 200, 256, 512])
def test_short_rows_specials(isa, op, dtype, n):
    xq, xv = quantize(_special_rows(n, dtype), dtype)
    _check_specials(decode(run_forward(op, xq, dtype, -1), dtype), xv, op, dtype, f"{op} {dtype} n={n} {isa}")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("n", [7, 128, 256, 300, 512])
def test_short_rows_independent(isa, dtype, n):
    """Each row's bits are the same alone, in a batch, and at any offset of the batch grid."""
    xq, _ = quantize(_special_rows(n, dtype), dtype)
    for op in ("softmax", "log_softmax"):
        _check_independent(op, xq, dtype, n, (1, 5, 16, 21), (0, 3, 11, 36))


@pytest.mark.parametrize("dtype", ["bfloat16", "float32", "float16"])
@pytest.mark.parametrize("n", [64, 128, 200, 512])
def test_short_rows_tiny_and_near_zero(isa, dtype, n):
    """Rows whose log-softmax outputs come near 0 or whose x - max is subnormal: the bf16 batch
    kernel stores its log-softmax outputs without a subnormal check (none can occur there)."""
    rng = np.random.default_rng(13)
    x = rng.uniform(-4, 4, size=(19, n))
    x[0] = rng.uniform(1, 2, n) * 1e-39  # subnormal inputs, x - max subnormal
    x[1] = -20.0  # one dominant element: sum just above 1 (summed again exactly)
    x[1, n // 3] = 0.0
    x[2] = 3e-39  # all equal and subnormal: log n
    x[3] = rng.uniform(-1e-3, 0, n)  # a tiny spread: every exponential near 1
    x[4] = -2.0
    x[4, ::7] = -2.0 + 1e-30  # x - max rounds to 0 or to -1e-30 (bf16: not representable)
    xq, xv = quantize(x, dtype)
    for op in ("softmax", "log_softmax"):
        ours = decode(run_forward(op, xq, dtype, -1), dtype)
        check(ours, ref_forward(xv, -1, op), dtype, f"{op} {dtype} {n} {isa}")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("n", [513, 700, 1024, 2048, 4096, 4100])
def test_long_rows_independent(isa, dtype, n):
    """Rows past the short-row path, one at a time (FN(fwd_row)): 16-bit rows of up to 8 KiB run
    the next row's fast test between their sum and their write pass and hand it on, so a row's
    bits must not depend on whether its predecessor was on the fast path (NaN, inf, -inf and wide
    rows next to ordinary ones, across the block boundaries of 37 rows), nor on where the tensor
    starts; and the special rows must still be right."""
    xq, xv = quantize(_special_rows(n, dtype), dtype)
    for op in ("softmax", "log_softmax"):
        full = _check_independent(op, xq, dtype, n, (1, 6, 9, 30), (0, 4, 7, 9, 36))
        _check_specials(decode(full, dtype), xv, op, dtype, f"{op} {dtype} n={n} {isa}")
