"""Golden tests of aclnnElu, aclnnLeakyRelu, aclnnHardsigmoid and aclnnHardswish against float64
references (torch's formulas evaluated in double on the stored inputs, and torch's own result in
fp32), on every instruction-set tier, every dtype the manifest lists (Hardsigmoid's INT32 too),
contiguous / strided / transposed / padded views, empty tensors, special values and the argument
errors.

Pass criteria (ew_helpers.check, relative to the float64 result rounded to the result type):
fp32 2^-20 relative (Elu: 2^-19, its exponent's argument self * inputScale is rounded in fp32),
fp16 2^-10, bf16 2^-7; NaN and infinities exactly; LeakyRelu's and Hardswish's signed zeros as
torch's; Hardsigmoid on INT32 exact.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import golden
import ew_helpers as H
from cannon.ops import Scalar

SHAPE = (29, 67)
F16 = ["float32", "float16", "bfloat16"]


def elu64(x, alpha, scale, iscale):
    with np.errstate(all="ignore"):
        return np.where(x > 0, x * scale, alpha * scale * np.expm1(x * iscale))


def leaky64(x, slope):
    return np.where(x > 0, x, x * slope)


def hsig64(x):
    return np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0


def hswish64(x):
    return np.where(x >= 3.0, x, x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0)


def torch_of(x, dt):
    return torch.from_numpy(golden.rounded(x, dt).astype(np.float32))


# name -> (operator, scalar argument sets, float64 reference, torch fp32 reference, rtol fp32)
ACT = {
    "elu": ("aclnnElu", [(1.0, 1.0, 1.0), (0.5, 2.0, 1.5), (1.6732632, 1.0507010, 1.0)],
            lambda x, p: elu64(x, *p), lambda t, p: torch.ops.aten.elu(t, p[0], p[1], p[2]), 2.0 ** -19),
    "leaky_relu": ("aclnnLeakyRelu", [(0.01,), (0.2,), (-0.5,), (0.0,)], lambda x, p: leaky64(x, p[0]),
                   lambda t, p: F.leaky_relu(t, p[0]), 2.0 ** -20),
    "hardsigmoid": ("aclnnHardsigmoid", [()], lambda x, p: hsig64(x), lambda t, p: F.hardsigmoid(t), 2.0 ** -20),
    "hardswish": ("aclnnHardswish", [()], lambda x, p: hswish64(x), lambda t, p: F.hardswish(t), 2.0 ** -20),
}


def special_values():
    return np.array([-3.0, 3.0, -2.9999998, 2.9999998, -3.0000002, 1e-30, -1e-30, 1e-8, -1e-8, 50.0, -50.0,
                     -100.0, 1e30, -1e30, 65504.0, -65504.0, 0.5, -0.5], dtype=np.float64)


@pytest.mark.parametrize("op", list(ACT))
@pytest.mark.parametrize("dt", F16)
def test_activation(isa, op, dt):
    name, params, f, tf, rtol32 = ACT[op]
    for p in params:
        scalars = [Scalar(v) for v in p]
        for k, layout in enumerate(H.layouts(SHAPE)):
            s, x = H.sample(dt, SHAPE, seed=k + 3 * len(p), scale=4.0)
            O = H.out_like(SHAPE, dt, layout)
            golden.call(name, golden.array(s, dt, layout=layout), *scalars, O)
            ours = H.read(O)
            pf = [float(np.float32(v)) for v in p]  # the scalars are FLOAT
            ref = golden.rounded(f(x, pf), dt)
            H.check(ours, ref, dt, what=f"{op} {dt} {p} {layout} {isa}", rtol=rtol32 if dt == "float32" else None,
                    signed_zero=op in ("leaky_relu", "hardswish"))
            if dt == "float32":  # and torch's own fp32 result (its elu forms exp(z) - 1: cancels near 0)
                t = tf(torch_of(x, dt), p).double().numpy()
                H.check(ours, t, dt, what=f"{op} vs torch", rtol=2.0 ** -18, atol=2.0 ** -22 if op == "elu" else 1e-30)
        sp = special_values()
        s, x = golden.quantize(sp, dt)
        O = golden.empty(sp.shape, dt)
        golden.call(name, golden.array(s, dt), *scalars, O)
        ref = golden.rounded(f(x, [float(np.float32(v)) for v in p]), dt)
        H.check(H.read(O), ref, dt, what=f"{op} {dt} specials", rtol=rtol32 if dt == "float32" else None)


@pytest.mark.parametrize("op", list(ACT))
def test_activation_wider_out(op):
    """fp16 self into a FLOAT out: the result rounded to fp16 (self's type), then widened."""
    name, params, f, _, _ = ACT[op]
    s, x = H.sample("float16", (200,), seed=9)
    O = golden.empty((200,), "float32")
    if op == "hardsigmoid":  # Hardsigmoid's out has self's dtype
        H.raises(161002, "dtype", name, golden.array(s, "float16"), O)
        return
    golden.call(name, golden.array(s, "float16"), *[Scalar(v) for v in params[0]], O)
    H.check(H.read(O), golden.rounded(f(x, params[0]), "float16"), "float16", what=op)


def test_elu_scalar_dtypes():
    """alpha, scale and inputScale of any real dtype; alpha * scale formed in double (torch)."""
    s, x = H.sample("float32", (500,), seed=4)
    O = golden.empty((500,), "float32")
    golden.call("aclnnElu", golden.array(s), Scalar(2, "int64"), Scalar(0.1, "float64"), Scalar(True), O)
    ref = elu64(x, 2.0, 0.1, 1.0)
    H.check(H.read(O), golden.rounded(ref, "float32"), "float32", what="elu scalar dtypes", rtol=2.0 ** -19)


@pytest.mark.parametrize("isa_", golden.ISAS)
def test_hardsigmoid_int32(monkeypatch, isa_):
    monkeypatch.setenv("CANNON_ISA", isa_)
    s, x = H.sample("int32", (17, 33), seed=5)
    s[0, 3:12] = np.arange(-4, 5)
    for layout in H.layouts((17, 33)):
        O = H.out_like((17, 33), "int32", layout)
        golden.call("aclnnHardsigmoid", golden.array(s, "int32", layout=layout), O)
        assert np.array_equal(H.read(O), (s.astype(np.int64) >= 3).astype(np.float64)), layout


def test_activation_empty():
    for shape in H.EMPTY_SHAPES:
        e = lambda: golden.empty(shape, "float32")
        golden.call("aclnnElu", e(), Scalar(1.0), Scalar(1.0), Scalar(1.0), e())
        golden.call("aclnnLeakyRelu", e(), Scalar(0.01), e())
        golden.call("aclnnHardsigmoid", e(), e())
        golden.call("aclnnHardswish", e(), e())


def test_activation_errors():
    f = lambda shape=(3,), dt="float32": golden.empty(shape, dt)
    one = Scalar(1.0)
    H.raises(161001, "self", "aclnnElu", None, one, one, one, f())
    H.raises(161001, "alpha", "aclnnElu", f(), None, one, one, f())
    H.raises(161001, "scale", "aclnnElu", f(), one, None, one, f())
    H.raises(161001, "inputScale", "aclnnElu", f(), one, one, None, f())
    H.raises(161001, "out", "aclnnElu", f(), one, one, one, None)
    H.raises(161002, "shape", "aclnnElu", f(), one, one, one, f((4,)))
    H.raises(161002, "not supported", "aclnnElu", f((3,), "float64"), one, one, one, f((3,), "float64"))
    H.raises(161002, "not supported", "aclnnElu", f((3,), "int32"), one, one, one, f())
    H.raises(161001, "negativeSlope", "aclnnLeakyRelu", f(), None, f())
    H.raises(161001, "out", "aclnnLeakyRelu", f(), one, None)
    H.raises(161002, "not supported", "aclnnLeakyRelu", f((3,), "int8"), one, f((3,), "int8"))
    H.raises(161002, "shape", "aclnnLeakyRelu", f(), one, f((1, 3)))
    H.raises(161001, "self", "aclnnHardsigmoid", None, f())
    H.raises(161002, "not supported", "aclnnHardsigmoid", f((3,), "int64"), f((3,), "int64"))
    H.raises(161002, "dtype", "aclnnHardsigmoid", f((3,), "int32"), f())
    H.raises(161002, "shape", "aclnnHardsigmoid", f(), f((4,)))
    H.raises(161001, "out", "aclnnHardswish", f(), None)
    H.raises(161002, "not supported", "aclnnHardswish", f((3,), "float64"), f((3,), "float64"))
    H.raises(161002, "not supported", "aclnnHardswish", f((3,), "int32"), f((3,)))
    H.raises(161002, "shape", "aclnnHardswish", f(), f((4,)))
