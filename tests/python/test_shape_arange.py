"""Golden tests of aclnnArange against float64 / int64 references and torch.arange.

Pass criteria: floating outputs equal start + i * step computed in float64 and rounded once to the
output dtype (bit-exact); integer outputs equal the int64 sequence exactly; the element count is
torch's ceil((end - start) / step); strided outputs and multi-dim outputs with that many elements
are accepted; step 0, a step of the wrong sign, a wrong element count and unsupported dtypes give
161002, NULL arguments 161001.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
OUT_DTS = ["float32", "float16", "bfloat16", "float64", "int32", "int64"]
S = cannon.ops.Scalar


def ref_values(start, step, n, dt):
    d = golden.dtype(dt)
    if d.np.kind in "iu" and d is not cannon.bfloat16:
        return (np.int64(int(start)) + np.arange(n, dtype=np.int64) * np.int64(int(step))).astype(d.np)
    v = float(start) + np.arange(n, dtype=np.float64) * float(step)
    return sh.f64_to_bf16(v) if dt == "bfloat16" else golden.storage_of(v, dt)


@pytest.mark.parametrize("dt", OUT_DTS)
@pytest.mark.parametrize("start,end,step", [(0, 10, 1), (2, -7, -3), (0.5, 3.2, 0.1), (-1.0, 1.0, 0.3),
                                            (5, 5, 1), (0, 1000, 7), (1e3, 0.0, -0.7)])
@pytest.mark.parametrize("layout", ["contig", "strided"])
def test_arange(dt, start, end, step, layout):
    integral = dt in ("int32", "int64")
    if integral and any(isinstance(v, float) for v in (start, end, step)):
        pytest.skip("integer outputs take integer ranges in this test")
    n = int(np.ceil((end - start) / step))
    out = golden.empty((n,), dt, layout=layout, fill=sh.fill_value(dt))
    fs = (lambda v: S(v, "float64")) if not integral else S
    golden.call("aclnnArange", fs(start), fs(end), fs(step), out)
    got = golden.read(out)
    assert sh.same_bits(got, ref_values(start, step, n, dt))
    sh.check_gaps(out, dt)
    if integral:  # torch's vectorised float ranges add lane * step to a base: not one rounding
        t = torch.arange(start, end, step, dtype=golden.torch_dtype(dt))
        assert sh.same_bits(got, t.numpy())


@pytest.mark.parametrize("sdt", ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64",
                                 "uint8"])
def test_arange_scalar_dtypes(sdt):
    out = golden.empty((4,), "float32")
    golden.call("aclnnArange", S(1, sdt), S(9, sdt), S(2, sdt), out)
    assert np.array_equal(golden.read(out), np.array([1, 3, 5, 7], np.float32))
    out = golden.empty((2,), "int64")
    golden.call("aclnnArange", S(0, sdt), S(2, sdt), S(True), out)  # a BOOL step of true is 1
    assert np.array_equal(golden.read(out), [0, 1])


def test_arange_shapes():
    # ggml passes a 4-D out of n elements
    out = golden.empty((1, 1, 1, 6), "float32")
    golden.call("aclnnArange", S(0.0), S(6.0), S(1.0), out)
    assert np.array_equal(golden.read(out).ravel(), np.arange(6, dtype=np.float32))
    out = golden.empty((0,), "float32")
    golden.call("aclnnArange", S(3.0), S(3.0), S(1.0), out)
    out = golden.empty((70000,), "float16")
    golden.call("aclnnArange", S(0.0), S(7.0), S(1e-4, "float64"), out)
    assert sh.same_bits(golden.read(out), ref_values(0.0, 1e-4, 70000, "float16"))
    # the count computed in float is accepted as well as the one in double
    start, end, step = 0.0, 1.0, 0.1
    nf = int(np.ceil(np.float32(end - start) / np.float32(step)))
    out = golden.empty((nf,), "float32")
    golden.call("aclnnArange", S(start), S(end), S(step), out)


def test_arange_errors():
    out = golden.empty((3,), "float32")
    assert golden.phase1_status("aclnnArange", None, S(3.0), S(1.0), out) == NULL
    assert golden.phase1_status("aclnnArange", S(0.0), None, S(1.0), out) == NULL
    assert golden.phase1_status("aclnnArange", S(0.0), S(3.0), None, out) == NULL
    assert golden.phase1_status("aclnnArange", S(0.0), S(3.0), S(1.0), None) == NULL
    assert golden.phase1_status("aclnnArange", S(0.0), S(3.0), S(0.0), out) == INVALID
    assert "step" in golden.recent_error()
    assert golden.phase1_status("aclnnArange", S(0.0), S(3.0), S(-1.0), out) == INVALID
    assert "sign" in golden.recent_error()
    assert golden.phase1_status("aclnnArange", S(0.0), S(3.0), S(1.0), golden.empty((4,), "float32")) == INVALID
    assert "elements" in golden.recent_error()
    assert golden.phase1_status("aclnnArange", S(0), S(3), S(1), golden.empty((3,), "int16")) == INVALID
    assert golden.phase1_status("aclnnArange", S(0), S(3), S(1, "uint32"), golden.empty((3,), "int64")) == INVALID
    assert golden.phase1_status("aclnnArange", S(0), S(3), S(0), golden.empty((3,), "int64")) == INVALID


def test_arange_huge_count():
    out = golden.empty((3,), "int64")
    assert golden.phase1_status("aclnnArange", S(-(1 << 62)), S(1 << 62), S(1), out) == INVALID
    assert golden.phase1_status("aclnnArange", S(-1e300, "float64"), S(1e300, "float64"), S(1.0), out) == INVALID
