"""Golden tests of aclnnLogicalNot and aclnnInplaceLogicalNot (1 where self is zero, else 0, in
out's dtype) against torch.logical_not, on every instruction-set tier, every dtype of CANN's page
(BOOL, UINT8, INT8, INT16, INT32, INT64, FLOAT, FLOAT16, BFLOAT16, DOUBLE) for self and for out,
strided / transposed / padded views, specials (-0.0 is zero, NaN and infinities are not), empty
tensors and the argument errors. Every result is exact.
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H




def sample(dt, shape, seed):
    s, v = H.sample(dt, shape, seed, specials=True)
    rng = np.random.default_rng(seed + 7)
    zero = rng.random(shape) < 0.4  # plenty of zeros
    if dt == "bool":
        return s, v
    if not H.is_float(dt):
        return golden.quantize(np.where(zero, 0, s), dt)
    return golden.quantize(np.where(zero, 0.0, v), dt)


@pytest.mark.parametrize("dt", H.DTYPE_ALL)
def test_logical_not(isa, dt):
    s, v = sample(dt, (23, 41), 1)
    ref = (v == 0).astype(np.float64)
    for lay in H.layouts((23, 41)):
        for odt in ("bool", dt, "float32", "int8"):
            out = H.out_like((23, 41), odt, lay)
            golden.call("aclnnLogicalNot", golden.array(s, dt, layout=lay), out)
            assert np.array_equal(H.read(out), ref), (dt, odt, lay)


@pytest.mark.parametrize("dt", H.DTYPE_ALL)
def test_inplace_logical_not(isa, dt):
    s, v = sample(dt, (5, 300), 2)
    ref = torch.logical_not(torch.from_numpy(v)).numpy().astype(np.float64)
    for lay in ("contig", "transposed", "padded"):
        x = golden.array(s, dt, layout=lay)
        golden.call("aclnnInplaceLogicalNot", x)
        assert np.array_equal(H.read(x), ref), (dt, lay)


def test_logical_not_specials(isa):
    x = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -5], np.float32)
    out = golden.empty(x.shape, "bool")
    golden.call("aclnnLogicalNot", golden.array(x), out)
    assert golden.read(out).tolist() == [True, True, False, False, False, False, False]


def test_logical_not_empty_and_scalar():
    for shape in H.EMPTY_SHAPES + [()]:
        x = golden.array(np.zeros(shape, np.float32))
        out = golden.empty(shape, "bool")
        golden.call("aclnnLogicalNot", x, out)
        golden.call("aclnnInplaceLogicalNot", x)
    out = golden.empty((), "int32")
    golden.call("aclnnLogicalNot", golden.array(np.array(0, np.int64)), out)
    assert golden.read(out).tolist() == 1


def test_logical_not_errors():
    x = golden.array(np.ones((2, 3), np.float32))
    assert golden.phase1_status("aclnnLogicalNot", None, golden.empty((2, 3), "bool")) == golden.PARAM_NULLPTR
    assert golden.phase1_status("aclnnLogicalNot", x, None) == golden.PARAM_NULLPTR
    assert golden.phase1_status("aclnnInplaceLogicalNot", None) == golden.PARAM_NULLPTR
    H.raises(golden.PARAM_INVALID, "shape", "aclnnLogicalNot", x, golden.empty((3, 2), "bool"))
    H.raises(golden.PARAM_INVALID, "UINT16", "aclnnLogicalNot", golden.array(np.ones(3, np.uint16)),
             golden.empty((3,), "bool"))
    H.raises(golden.PARAM_INVALID, "UINT16", "aclnnLogicalNot", golden.array(np.ones(3, np.float32)),
             golden.empty((3,), "uint16"))
