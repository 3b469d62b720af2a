"""Helpers for the softmax golden tests (test_softmax.py, test_softmax_short_rows.py): the float64
reference, the pass criteria of the operators' contract and a forward run on laid-out views."""
import numpy as np

import cannon
import golden
from golden import decode, quantize  # noqa: F401 (re-exported for the tests)

FWD = {"softmax": "aclnnSoftmax", "log_softmax": "aclnnLogSoftmax"}


def ref_forward(x, dim, op):
    with np.errstate(all="ignore"):
        m = np.max(x, axis=dim, keepdims=True)
        e = np.exp(x - m)
        s = np.sum(e, axis=dim, keepdims=True)
        if op == "softmax":
            return e / s
        # log s near 0 (one dominant element): s = c + t with c the count of maxima (terms of 1)
        # and t the rest; log1p((c - 1) + t) keeps t's precision, which log of s rounded to
        # float64 loses (a rest of 1e-13 then carries a relative error of 1e-3 and more).
        eq = x == m
        c = np.sum(eq, axis=dim, keepdims=True)
        t = np.sum(np.where(eq, 0.0, e), axis=dim, keepdims=True)
        ls = np.where(np.isfinite(m) & (s < 2), np.log1p((c - 1) + t), np.log(s))
        return (x - m) - ls


def bits_of(v, dtype):
    """Sign-magnitude bit patterns as integers ordered like the values."""
    if dtype == "bfloat16":
        b = cannon.float_to_bf16(v).astype(np.int64)
        mag, sign = b & 0x7FFF, (b >> 15) & 1
    else:
        b = np.asarray(v, dtype=np.float16).view(np.uint16).astype(np.int64)
        mag, sign = b & 0x7FFF, (b >> 15) & 1
    return np.where(sign == 1, -mag, mag)


def check(ours, ref, dtype, what=""):
    assert ours.shape == ref.shape
    if dtype == "float32":
        # Values beyond the fp32 range are infinite in fp32 (e.g. x - max = -6e38).
        with np.errstate(over="ignore"):
            ref = np.where(np.isfinite(ref), ref.astype(np.float32).astype(np.float64), ref)
    fin = np.isfinite(ref)
    # Non-finite reference values must match exactly (NaN where NaN, same infinities).
    assert np.array_equal(np.isnan(ours[~fin]), np.isnan(ref[~fin])), what
    nn = ~fin & ~np.isnan(ref)
    assert np.array_equal(ours[nn], ref[nn]), what
    o, r = ours[fin], ref[fin]
    if o.size == 0:
        return
    if dtype == "float32":
        big = np.abs(r) > 1e-37
        err = np.abs(o[big] - r[big]) / np.abs(r[big])
        assert err.size == 0 or err.max() <= 1e-6, f"{what}: fp32 max rel err {err.max():.3g}"
        assert np.all(np.abs(o[~big] - r[~big]) <= 2e-45 + 1e-6 * np.abs(r[~big])), what
    elif dtype == "float64":
        # The float64 reference itself rounds: allow 1e-12 relative plus 1e-14 absolute.
        err = np.abs(o - r) / (np.abs(r) + 1e-2)
        assert err.max() <= 1e-12, f"{what}: fp64 max rel err {err.max():.3g}"
    else:
        d = np.abs(bits_of(o, dtype) - bits_of(r, dtype))
        assert d.max() <= 1, f"{what}: {dtype} max distance {d.max()} ulp"


def run_forward(op, xq, dtype, dim, in_strided=None, out_strided=False):
    """Run op on the quantized storage values xq (array of shape S) and return the output's
    storage values. in_strided: "T" (view of a transposed storage) or "offset" (view 7 elements
    into a bigger storage); out_strided: an output view with every stride doubled (a gap after
    each element), 3 elements into its storage."""
    if in_strided == "T":
        t = golden.array(xq, dtype, layout="transposed")
    elif in_strided == "offset":
        t = golden.array(xq, dtype, offset=7)
    else:
        t = golden.array(xq, dtype)
    o = golden.empty(xq.shape, dtype, layout="offset", fill=0) if out_strided else golden.empty(xq.shape, dtype)
    golden.call(FWD[op], t, dim, o)
    return golden.read(o)
