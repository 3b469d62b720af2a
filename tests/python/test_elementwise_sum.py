"""Golden tests of aclnnSum (out = the sum of a tensor list, each tensor broadcast to out) against
a sequential float64 / int64 sum of the stored values, on every instruction-set tier, every dtype
of CANN's page (FLOAT, FLOAT16, INT8, INT32, UINT8), lists of one to nine tensors, broadcasting,
strided / transposed / offset views, empty tensors and the argument errors.

Bounds: FLOAT accumulates in fp32 in list order, so each partial sum rounds once: |ours - r| <=
2^-24 (n - 1) sum |x_k| for the float64 sum r; FLOAT16 accumulates in fp32 (exact for up to a few
fp16 terms, each partial sum rounding once) and rounds once: within half an fp16 ulp of r plus the
fp32 partial-sum bound. Integers wrap
at their width, exactly.
"""
import numpy as np
import pytest

import golden
import ew_helpers as H

INVALID, NULLPTR = golden.PARAM_INVALID, golden.PARAM_NULLPTR
DTS = ["float32", "float16", "int8", "int32", "uint8"]


def wrap(x, dt):
    return x.astype(np.int64).astype(golden.dtype(dt).np).astype(np.float64)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("shapes", [[(6, 70)], [(6, 70)] * 3, [(6, 70), (70,), (6, 1), (1, 1), ()] * 2,
                                    [(2, 1, 33), (4, 1), (33,)]])
def test_sum(isa, dt, shapes):
    oshape = np.broadcast_shapes(*shapes)
    xs = [H.sample(dt, s, 10 + k, specials=False) for k, s in enumerate(shapes)]
    tot = np.zeros(oshape)
    absum = np.zeros(oshape)
    for _, v in xs:
        tot = tot + v
        absum = absum + np.abs(v)
    for k, lay in enumerate(("contig", "strided", "transposed", "offset")):
        arrs = [golden.array(s, dt, layout=(lay if np.ndim(s) >= 2 or lay != "transposed" else "strided"))
                for s, _ in xs]
        out = H.out_like(oshape, dt, lay)
        golden.call("aclnnSum", arrs, out)
        got = H.read(out)
        if dt == "float32":
            assert (np.abs(got - tot) <= 2.0 ** -24 * max(len(xs) - 1, 0) * absum + 2.0 ** -24 * np.abs(tot)).all()
        elif dt == "float16":
            bound = 2.0 ** -11 * np.abs(tot) + 2.0 ** -24 * len(xs) * absum + 2.0 ** -25
            assert (np.abs(got - tot) <= bound).all(), lay
        else:
            assert np.array_equal(got, wrap(tot, dt)), lay


def test_sum_one_tensor_is_a_copy(isa):
    s, v = H.sample("float16", (3, 5), 3, specials=True)
    out = golden.empty((3, 5), "float16")
    golden.call("aclnnSum", [golden.array(s, "float16")], out)
    assert np.array_equal(golden.read(out).view(np.uint16), s.view(np.uint16))


def test_sum_empty():
    for shape in H.EMPTY_SHAPES:
        z = golden.array(np.zeros(shape, np.float32))
        golden.call("aclnnSum", [z, z], golden.empty(shape, "float32"))


def test_sum_errors():
    a = golden.array(np.ones((2, 3), np.float32))
    out = golden.empty((2, 3), "float32")
    assert golden.phase1_status("aclnnSum", None, out) == NULLPTR
    assert golden.phase1_status("aclnnSum", [a], None) == NULLPTR
    assert golden.phase1_status("aclnnSum", [a, None], out) == NULLPTR
    H.raises(INVALID, "empty", "aclnnSum", [], out)
    H.raises(INVALID, "differs", "aclnnSum", [a, golden.array(np.ones((2, 3), np.float16))], out)
    H.raises(INVALID, "differs", "aclnnSum", [a], golden.empty((2, 3), "float16"))
    H.raises(INVALID, "DOUBLE", "aclnnSum", [golden.array(np.ones(3))], golden.empty((3,), "float64"))
    H.raises(INVALID, "broadcast", "aclnnSum", [a, golden.array(np.ones((3, 3), np.float32))], out)
    H.raises(INVALID, "broadcast shape", "aclnnSum", [golden.array(np.ones((3,), np.float32))], out)
