"""Golden tests of aclnnInplaceMaskedFillScalar (selfRef = value where mask) against torch's
masked_fill_, on every instruction-set tier, every real dtype (CANN's page lists BOOL, INT8,
INT32, INT64, FLOAT, FLOAT16, BFLOAT16; its header adds UINT8, INT16 and DOUBLE), value dtypes
that cast to selfRef's, masks broadcast along any dim, strided / transposed / padded views (the
storage outside the view untouched), empty tensors and the argument errors. Every result is exact.
"""
import numpy as np
import pytest
import torch

import golden
import ew_helpers as H
from cannon.ops import Scalar

INVALID, NULLPTR = golden.PARAM_INVALID, golden.PARAM_NULLPTR
VALUE = {"float32": -np.inf, "float16": 2.5, "bfloat16": -3.0, "float64": 1e300, "int8": -128, "int16": 1234,
         "int32": -7, "int64": 2 ** 40, "uint8": 200, "bool": True}


@pytest.mark.parametrize("dt", H.DTYPE_ALL)
@pytest.mark.parametrize("mshape", [(13, 50), (13, 1), (50,), (1, 1), ()])
def test_masked_fill(isa, dt, mshape):
    s, v = H.sample(dt, (13, 50), 1)
    rng = np.random.default_rng(5)
    m = rng.random(mshape) < 0.5
    val = VALUE[dt]
    ref = golden.to_storage(golden.from_storage(s, dt).masked_fill_(torch.from_numpy(np.array(m)), val), dt)
    for lay in H.layouts((13, 50)):
        x = golden.array(s, dt, layout=lay, fill=3)
        before = x.storage()
        golden.call("aclnnInplaceMaskedFillScalar", x, golden.array(m, "bool", layout="strided" if mshape else None),
                    Scalar(val, dt if dt != "bool" else None))
        got = golden.read(x)
        bits = [np.ascontiguousarray(a).view(np.uint8) for a in (got, ref)]
        assert np.array_equal(*bits), (dt, lay)  # bit equality
        after = x.storage()
        inside = np.zeros(before.size, bool)
        np.lib.stride_tricks.as_strided(inside[x.offset:], shape=x.shape,
                                        strides=[st * inside.itemsize for st in x.strides])[...] = True
        assert np.array_equal(before[~inside], after[~inside])


def test_masked_fill_value_conversion(isa):
    """A value converts once to selfRef's dtype: an int value into floats, a float into 16-bit floats."""
    x = golden.array(np.zeros(4, np.float16))
    golden.call("aclnnInplaceMaskedFillScalar", x, golden.array(np.array([1, 0, 1, 0], bool)), Scalar(0.1))
    assert golden.read(x).tolist() == [np.float16(0.1), 0, np.float16(0.1), 0]
    y = golden.array(np.zeros(3, np.float32))
    golden.call("aclnnInplaceMaskedFillScalar", y, golden.array(np.array([True])), Scalar(3))
    assert golden.read(y).tolist() == [3.0, 3.0, 3.0]
    z = golden.array(np.zeros(3, np.int8))
    golden.call("aclnnInplaceMaskedFillScalar", z, golden.array(np.array([0, 1, 0], bool)), Scalar(5, "int32"))
    assert golden.read(z).tolist() == [0, 5, 0]


def test_masked_fill_empty():
    for shape in H.EMPTY_SHAPES:
        x = golden.array(np.zeros(shape, np.float32))
        golden.call("aclnnInplaceMaskedFillScalar", x, golden.array(np.ones((1,), bool)), Scalar(1.0))


def test_masked_fill_errors():
    x = golden.array(np.zeros((2, 3), np.float32))
    m = golden.array(np.ones((2, 3), bool))
    assert golden.phase1_status("aclnnInplaceMaskedFillScalar", None, m, Scalar(1.0)) == NULLPTR
    assert golden.phase1_status("aclnnInplaceMaskedFillScalar", x, None, Scalar(1.0)) == NULLPTR
    assert golden.phase1_status("aclnnInplaceMaskedFillScalar", x, m, None) == NULLPTR
    H.raises(INVALID, "mask", "aclnnInplaceMaskedFillScalar", x, golden.array(np.ones((2, 3), np.uint8)), Scalar(1.0))
    H.raises(INVALID, "broadcast", "aclnnInplaceMaskedFillScalar", x, golden.array(np.ones((4, 2, 3), bool)),
             Scalar(1.0))
    H.raises(INVALID, "broadcast", "aclnnInplaceMaskedFillScalar", x, golden.array(np.ones((3, 1), bool)), Scalar(1.0))
    H.raises(INVALID, "cannot be cast", "aclnnInplaceMaskedFillScalar", golden.array(np.zeros(3, np.int32)),
             golden.array(np.ones(3, bool)), Scalar(1.5))
    H.raises(INVALID, "cannot be cast", "aclnnInplaceMaskedFillScalar", golden.array(np.zeros(3, bool)),
             golden.array(np.ones(3, bool)), Scalar(1))
