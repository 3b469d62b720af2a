"""Golden tests of aclnnMv, and of the FRACTAL_NZ weight helpers (aclnnTransMatmulWeight,
aclnnCalculateMatmulWeightSizeV2, aclnnCalculateMatmulWeightSize) with the matmuls that read the
converted weight.

Mv: float64 reference; fp32 within 2^-20 * (|A| @ |v|) (the fp32 dot product's accumulation bound
for these lengths), fp16 / bf16 within one rounding of the output type (2^-10 / 2^-7 relative)
plus that bound. The NZ sequence is ggml's: size the weight buffer with
CalculateMatmulWeightSizeV2, upload the ND weight, TransMatmulWeight on a NULL stream, then
Mm / BatchMatMul / Matmul / Mv / WeightQuantBatchMatmulV2 with the weight tagged FRACTAL_NZ and
its transposed ND strides: the products equal those of the untagged weight bit for bit.
"""
import ctypes

import numpy as np
import pytest
import torch

import cannon
import golden
from cannon import _lib
from golden import torch_dtype

DTYPES = ["float32", "float16", "bfloat16"]
NZ = 29  # ACL_FORMAT_FRACTAL_NZ


def check(ours, a, v, dtype, what):
    ref = a.double() @ v.double()
    mag = a.double().abs() @ v.double().abs()
    u = {"float32": 2.0 ** -20, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    bound = u * mag + 1e-30 + (ref.abs() * u if dtype != "float32" else 0)
    err = (ours.double() - ref).abs()
    assert ours.shape == ref.shape and bool((err <= bound).all()), what


@pytest.mark.parametrize("dtype", DTYPES)
def test_mv(isa, dtype):
    gen = torch.Generator().manual_seed(0)
    for n, m in ((2, 3), (5, 7), (64, 100), (130, 257), (1, 1)):
        a = torch.randn(n, m, generator=gen).to(torch_dtype(dtype))
        v = torch.randn(m, generator=gen).to(torch_dtype(dtype))
        for la, lv, lo in (("contig", "contig", None), ("transposed", "strided", "strided"),
                           ("offset", "offset", "offset")):
            O = golden.empty([n], dtype, layout=lo)
            golden.call("aclnnMv", golden.upload(a, dtype, la), golden.upload(v, dtype, lv), O, 1)
            check(golden.download(O, dtype), a, v, dtype, f"{dtype} {n}x{m} {la} {lv} {lo}")


def test_mv_documentation_example_and_empty():
    a = golden.array(np.array([[1.0, 2, 3], [4, 5, 6]]), "float32")
    v = golden.array(np.array([7.0, 8, 9]), "float32")
    O = golden.empty([2], "float32")
    golden.call("aclnnMv", a, v, O, 1)
    assert golden.read(O).tolist() == [50.0, 122.0]
    O = golden.empty([0], "float32")
    golden.call("aclnnMv", golden.empty([0, 3], "float32"), v, O, 0)
    O = golden.empty([2], "float32", fill=5.0)
    golden.call("aclnnMv", golden.empty([2, 0], "float32"), golden.empty([0], "float32"), O, 0)
    assert golden.read(O).tolist() == [0.0, 0.0]


def test_mv_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    assert golden.status("aclnnMv", None, f((3,)), f((2,)), 0) == 161001
    assert golden.status("aclnnMv", f((2, 3)), None, f((2,)), 0) == 161001
    assert golden.status("aclnnMv", f((2, 3)), f((3,)), None, 0) == 161001

    def err(*args):
        with pytest.raises(golden.AclError) as ei:
            golden.call("aclnnMv", *args)
        assert ei.value.code == 161002
        return ei.value.message

    assert "self must be 2-D and vec 1-D" in err(f((2, 3)), f((3, 1)), f((2, 1)), 0)
    assert "self must be 2-D and vec 1-D" in err(f((3,)), f((3,)), f(()), 0)
    assert "vec's reduction dim (4)" in err(f((2, 3)), f((4,)), f((2,)), 0)
    assert "vec dtype INT8 is not supported" in err(f((2, 3)), f((3,), "int8"), f((2,)), 0)
    assert "self dtype INT32 is not supported" in err(f((2, 3), "int32"), f((3,), "int32"), f((2,), "int32"), 0)
    assert "out shape" in err(f((2, 3)), f((3,)), f((3,)), 0)
    assert "cubeMathType 5" in err(f((2, 3)), f((3,)), f((2,)), 5)


# ---- the NZ weight helpers -----------------------------------------------------------------------

def weight_size(shape, dt, v2=True):
    """(status, size) of aclnnCalculateMatmulWeightSize[V2]; shape None passes NULL."""
    lib = _lib.opapi()
    cannon.runtime.ensure_initialized()
    h = cannon.ops.IntArray(shape)._make() if shape is not None else None
    size = ctypes.c_uint64(0)
    try:
        if v2:
            rc = lib.aclnnCalculateMatmulWeightSizeV2(ctypes.c_void_p(h.handle if h else None), ctypes.c_int(dt),
                                                      ctypes.byref(size))
        else:
            rc = lib.aclnnCalculateMatmulWeightSize(ctypes.c_void_p(h.handle if h else None), ctypes.byref(size))
    finally:
        if h:
            h.release()
    return rc, size.value


F16, BF16, I8, F32 = 1, 27, 2, 0


def test_calculate_matmul_weight_size():
    # the documentation's examples: [510, 510] FLOAT16 -> 512 x 512; [510, 270] INT8 -> 512 x 288
    assert weight_size([510, 510], F16) == (0, 262144)
    assert weight_size([510, 510], BF16) == (0, 262144)
    assert weight_size([510, 270], I8) == (0, 147456)
    assert weight_size([3, 4, 17, 33], F16) == (0, 12 * 32 * 48)
    assert weight_size([16, 32], I8) == (0, 512)
    assert weight_size([0, 5], F16) == (0, 0)
    assert weight_size([510, 510], F16, v2=False) == (0, 262144)
    for shape in ([], [5], [1, 2, 3, 4, 5, 6, 7], [-1, 4]):
        assert weight_size(shape, F16)[0] == 161002, shape
    assert weight_size([4, 4], F32)[0] == 161002
    assert "dataType FLOAT" in cannon.recent_error()
    assert weight_size(None, F16)[0] == 161001
    lib = _lib.opapi()
    h = cannon.ops.IntArray([4, 4])._make()
    assert lib.aclnnCalculateMatmulWeightSizeV2(ctypes.c_void_p(h.handle), ctypes.c_int(F16), None) == 161001
    h.release()


def trans_matmul_weight_null_stream(W):
    """Both phases of aclnnTransMatmulWeight, phase 2 on a NULL stream (as ggml calls it)."""
    lib = _lib.opapi()
    t = W._acl_tensor()
    try:
        ws, ex = ctypes.c_uint64(0), ctypes.c_void_p()
        rc = lib.aclnnTransMatmulWeightGetWorkspaceSize(ctypes.c_void_p(t), ctypes.byref(ws), ctypes.byref(ex))
        assert rc == 0, cannon.recent_error()
        assert ws.value == 0
        rc = lib.aclnnTransMatmulWeight(None, ctypes.c_uint64(0), ex, None)
        assert rc == 0, cannon.recent_error()
        W.numpy()  # synchronises the device
    finally:
        _lib.nnop().aclDestroyTensor(ctypes.c_void_p(t))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_ggml_nz_sequence(isa, dtype):
    """A weight of ggml shape (n, k) stored row-major, sized by CalculateMatmulWeightSizeV2,
    converted, then used tagged NZ as the [k, n] operand (strides (1, k)) of every matmul."""
    gen = torch.Generator().manual_seed(1)
    n, k, m = 40, 70, 9
    w = torch.randn(n, k, generator=gen).to(torch_dtype(dtype))
    rc, elems = weight_size([n, k], F16 if dtype == "float16" else BF16)
    assert rc == 0 and elems >= n * k
    host = golden.to_storage(w, dtype).reshape(-1)
    store = np.zeros(elems, host.dtype)
    store[:n * k] = host
    Wnd = cannon.from_storage(store, [n, k], None, 0, dtype)
    before = Wnd.storage().copy()
    trans_matmul_weight_null_stream(Wnd)
    assert np.array_equal(Wnd.storage(), before)  # cannon's NZ is the ND layout: bytes unchanged
    Wt = cannon.DeviceArray([k, n], dtype, [1, k], 0, Wnd.buffer, NZ)
    Wt_nd = cannon.DeviceArray([k, n], dtype, [1, k], 0, Wnd.buffer)
    x = torch.randn(m, k, generator=gen).to(torch_dtype(dtype))
    X = golden.upload(x, dtype)
    ref = None
    for name, W in (("aclnnMm", Wt_nd), ("aclnnMm", Wt), ("aclnnMatmul", Wt)):
        O = golden.empty([m, n], dtype)
        golden.call(name, X, W, O, 2)
        got = golden.read(O)
        ref = got if ref is None else ref
        assert np.array_equal(got, ref), name
    check(golden.download(O, dtype), x, w.t(), dtype, "nz mm")
    O3 = golden.empty([1, m, n], dtype)
    golden.call("aclnnBatchMatMul", golden.upload(x.reshape(1, m, k), dtype),
                cannon.DeviceArray([1, k, n], dtype, [n * k, 1, k], 0, Wnd.buffer, NZ), O3, 2)
    assert np.array_equal(golden.read(O3)[0], ref)
    # Mv with an NZ-tagged matrix
    v = golden.upload(x[0], dtype)
    Ov = golden.empty([n], dtype)
    golden.call("aclnnMv", cannon.DeviceArray([n, k], dtype, [k, 1], 0, Wnd.buffer, NZ), v, Ov, 1)
    check(golden.download(Ov, dtype), w, x[0], dtype, "nz mv")


def test_ggml_nz_int8_weight_quant():
    """INT8 weight converted with TransMatmulWeight and passed tagged NZ to WeightQuantBatchMatmulV2."""
    gen = torch.Generator().manual_seed(2)
    n, k, m = 24, 64, 5
    q = torch.randint(-127, 128, (n, k), generator=gen)
    rc, elems = weight_size([n, k], I8)
    assert rc == 0 and elems == 32 * 64
    store = np.zeros(elems, np.int8)
    store[:n * k] = q.numpy().reshape(-1)
    Wnd = cannon.from_storage(store, [n, k], None, 0, "int8")
    trans_matmul_weight_null_stream(Wnd)
    x = golden.from_storage(golden.to_storage(torch.randn(m, k, generator=gen), "float16"), "float16")
    s = golden.from_storage(golden.to_storage(torch.rand(n, generator=gen) * 0.01, "float16"), "float16")
    outs = []
    for fmt in (cannon.FORMAT_ND, NZ):
        W = cannon.DeviceArray([k, n], "int8", [1, k], 0, Wnd.buffer, fmt)
        Y = golden.empty([m, n], "float16")
        golden.call("aclnnWeightQuantBatchMatmulV2", golden.upload(x, "float16"), W, golden.upload(s, "float16"),
                    None, None, None, None, 0, Y)
        outs.append(golden.read(Y))
    assert np.array_equal(outs[0], outs[1])
    ref = x.double() @ (q.t().double() * s.double())
    assert np.allclose(golden.download(Y, "float16").double(), ref, rtol=2 ** -10, atol=1e-3)


def test_trans_matmul_weight_errors():
    f = lambda s, dt="float16", fmt=cannon.FORMAT_ND: golden.empty(list(s), dt, format=fmt)
    assert golden.status("aclnnTransMatmulWeight", f((4, 4))) == 0
    assert golden.status("aclnnTransMatmulWeight", f((4, 4), "int8", NZ)) == 0
    assert golden.status("aclnnTransMatmulWeight", f((2, 1, 1, 1, 4, 4), "bfloat16")) == 0
    assert golden.status("aclnnTransMatmulWeight", None) == 161001
    for args, msg in (((f((4, 4), "float32"),), "mmWeightRef dtype FLOAT is not supported"),
                      ((f((4,)),), "2 to 6 dims"), ((f((1, 1, 1, 1, 1, 4, 4)),), "2 to 6 dims"),
                      ((f((4, 0)),), "empty"), ((f((4, 4), fmt=cannon.FORMAT_NCHW),), "format")):
        with pytest.raises(golden.AclError) as ei:
            golden.call("aclnnTransMatmulWeight", *args)
        assert ei.value.code == 161002 and msg in ei.value.message, ei.value.message
