"""Golden tests of aclnnNpuFormatCast and aclnnNpuFormatCastCalculateSizeAndFormat.

cannon's FRACTAL_NZ storage is the ND layout (docs/ops.md, the NZ weight helpers): the conversion
copies the source's elements into the destination's view, either way; the size helper returns
CANN's NZ storage shape, (batch..., ceil(d[-1] / C0), ceil(d[-2] / 16), 16, C0) with
C0 = 32 bytes / the size of additionalDtype, and FRACTAL_NZ (29). Exact comparisons: a copy.
"""
import ctypes

import numpy as np
import pytest
import torch

import cannon
import golden
from cannon import _lib

NZ, NZ_C0_16, ND, NCHW, NCL, NC1HWC0 = 29, 50, 2, 0, 47, 3
F32, F16, I8, I32, U8, U32, BF16, I64 = 0, 1, 2, 3, 4, 8, 27, 9
DTYPES = ["int8", "uint8", "int32", "uint32", "float32", "float16", "bfloat16"]


def values(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.integers(-100, 100, size=shape)
    if dt in ("uint8", "uint32"):
        v = np.abs(v)
    return v.astype(np.float64) if dt in ("float32", "float16", "bfloat16") else v


def calculate(src, dst_format, additional):
    """(status, shape, format) of aclnnNpuFormatCastCalculateSizeAndFormat on DeviceArray @src."""
    lib = _lib.opapi()
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    t = src._acl_tensor()
    shape_p, n, fmt = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64(0), ctypes.c_int(-5)
    try:
        rc = lib.aclnnNpuFormatCastCalculateSizeAndFormat(ctypes.c_void_p(t), ctypes.c_int(dst_format),
                                                          ctypes.c_int(additional), ctypes.byref(shape_p),
                                                          ctypes.byref(n), ctypes.byref(fmt))
    finally:
        _lib.nnop().aclDestroyTensor(ctypes.c_void_p(t))
    if rc != 0:
        return rc, None, None
    shape = [shape_p[i] for i in range(n.value)]
    libc.free(ctypes.cast(shape_p, ctypes.c_void_p))
    return rc, shape, fmt.value


def test_calculate_size_and_format():
    cannon.runtime.ensure_initialized()
    e = lambda s, dt, fmt=ND: golden.empty(list(s), dt, format=fmt)
    # CANN's page example: INT32 [64, 128] with FLOAT16's C0 (16)
    assert calculate(e((64, 128), "int32"), NZ, F16) == (0, [8, 4, 16, 16], NZ)
    # -1: srcTensor's own dtype; C0 = 8 for 4-byte types, 16 for 2-byte, 32 for 1-byte
    assert calculate(e((3, 70, 33), "float32"), NZ, -1) == (0, [3, 5, 5, 16, 8], NZ)
    assert calculate(e((17, 40), "int8"), NZ, -1) == (0, [2, 2, 16, 32], NZ)
    assert calculate(e((17, 40), "uint8"), NZ, U8) == (0, [2, 2, 16, 32], NZ)
    assert calculate(e((2, 3, 31, 33), "bfloat16"), NZ, BF16) == (0, [2, 3, 3, 2, 16, 16], NZ)
    assert calculate(e((16, 16), "uint32"), NZ, U32) == (0, [2, 1, 16, 8], NZ)
    assert calculate(e((16, 16), "float16"), NZ, I8) == (0, [1, 1, 16, 32], NZ)
    assert calculate(e((0, 5), "float16"), NZ, -1) == (0, [1, 0, 16, 16], NZ)
    assert calculate(e((2, 2, 4, 4), "float32", NCHW), NZ, -1) == (0, [2, 2, 1, 1, 16, 8], NZ)
    assert calculate(e((2, 4, 4), "float32", NCL), NZ, -1)[0] == 0
    # never fewer elements than the view: the ND data fits a buffer sized by it
    for shape in ((1, 1), (5, 7), (33, 65), (2, 3, 17, 9)):
        for dt, add in (("float16", F16), ("int8", I8), ("float32", F32), ("int32", F16)):
            rc, s, _ = calculate(e(shape, dt), NZ, add)
            assert rc == 0 and np.prod(s) >= np.prod(shape), (shape, dt)
    # back from NZ (any of its C0 forms): the view shape
    assert calculate(e((64, 128), "int32", NZ), ND, -1) == (0, [64, 128], ND)
    assert calculate(e((5, 6, 7), "float32", NZ_C0_16), NCL, -1) == (0, [5, 6, 7], NCL)


def test_calculate_size_and_format_errors():
    cannon.runtime.ensure_initialized()
    lib = _lib.opapi()
    e = lambda s, dt="float16", fmt=ND: golden.empty(list(s), dt, format=fmt)
    p, n, f = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64(0), ctypes.c_int(0)
    assert lib.aclnnNpuFormatCastCalculateSizeAndFormat(None, NZ, -1, ctypes.byref(p), ctypes.byref(n),
                                                        ctypes.byref(f)) == 161001
    t = e((4, 4))._acl_tensor()
    try:
        for args in ((None, ctypes.byref(n), ctypes.byref(f)), (ctypes.byref(p), None, ctypes.byref(f)),
                     (ctypes.byref(p), ctypes.byref(n), None)):
            assert lib.aclnnNpuFormatCastCalculateSizeAndFormat(ctypes.c_void_p(t), NZ, -1, *args) == 161001
    finally:
        _lib.nnop().aclDestroyTensor(ctypes.c_void_p(t))
    for src, fmt, add, msg in ((e((4, 4), "int64"), NZ, -1, "dtype INT64"),
                               (e((4, 4), "float64"), NZ, F32, "dtype DOUBLE"),
                               (e((4,)), NZ, -1, "2 to 6 dims"), (e((1,) * 7), NZ, -1, "2 to 6 dims"),
                               (e((4, 4)), NZ, I64, "additionalDtype 9"), (e((4, 4)), NZ, 12345, "additionalDtype"),
                               (e((4, 4)), NZ, -2, "additionalDtype -2"),
                               (e((4, 4)), NCHW, -1, "format 2 to 0"), (e((4, 4)), NC1HWC0, -1, "format 2 to 3"),
                               (e((4, 4), fmt=NZ), NZ, -1, "format 29 to 29")):
        assert calculate(src, fmt, add)[0] == 161002, msg
        assert msg in cannon.recent_error(), (msg, cannon.recent_error())


@pytest.mark.parametrize("dt", DTYPES)
def test_npu_format_cast_round_trip(isa, dt):
    """ND → NZ (dst built from CalculateSizeAndFormat's storage element count, as CANN's program
    does) holds the ND elements; NZ → ND gives them back; strided sources too."""
    shape = (3, 20, 37)
    v = values(shape, dt)
    src = golden.array(v, dt)
    rc, nz_shape, fmt = calculate(src, NZ, -1)
    assert rc == 0 and fmt == NZ
    dst = golden.empty(shape, dt, storage_elems=int(np.prod(nz_shape)), format=NZ)
    golden.call("aclnnNpuFormatCast", src, dst)
    assert np.array_equal(golden.read(dst), golden.read(src))
    back = golden.empty(shape, dt, fill=7)
    golden.call("aclnnNpuFormatCast", dst, back)
    assert np.array_equal(golden.read(back), golden.read(src))
    # a transposed source and a strided destination view
    srct = golden.array(values((37, 20), dt, 1), dt, layout="transposed")
    dstp = golden.empty((37, 20), dt, layout="padded", fill=0, format=NZ)
    golden.call("aclnnNpuFormatCast", srct, dstp)
    assert np.array_equal(golden.read(dstp), golden.read(srct))
    # empty tensors: nothing to copy
    golden.call("aclnnNpuFormatCast", golden.empty((0, 4), dt), golden.empty((0, 4), dt, format=NZ))


def test_npu_format_cast_then_matmul():
    """A weight converted to NZ multiplies as the ND weight it came from, bit for bit."""
    gen = torch.Generator().manual_seed(3)
    k, n, m = 48, 40, 7
    w = torch.randn(k, n, generator=gen)
    W = golden.upload(w, "float16")
    rc, nz_shape, _ = calculate(W, NZ, F16)
    assert rc == 0 and nz_shape == [3, 3, 16, 16]
    Wnz = golden.empty((k, n), "float16", storage_elems=int(np.prod(nz_shape)), format=NZ)
    golden.call("aclnnNpuFormatCast", W, Wnz)
    X = golden.upload(torch.randn(m, k, generator=gen), "float16")
    outs = []
    for weight in (W, Wnz):
        O = golden.empty((m, n), "float16")
        golden.call("aclnnMm", X, weight, O, 1)
        outs.append(golden.read(O))
    assert np.array_equal(outs[0], outs[1])


def test_npu_format_cast_errors():
    e = lambda s, dt="float16", fmt=ND: golden.empty(list(s), dt, format=fmt)
    assert golden.status("aclnnNpuFormatCast", None, e((4, 4), fmt=NZ)) == 161001
    assert golden.status("aclnnNpuFormatCast", e((4, 4)), None) == 161001
    for args, msg in (((e((4, 4), "int64"), e((4, 4), "int64", NZ)), "dtype INT64"),
                      ((e((4, 4)), e((4, 4), "float32", NZ)), "dtype"),
                      ((e((4, 4)), e((4, 5), fmt=NZ)), "shape"),
                      ((e((4,)), e((4,), fmt=NZ)), "2 to 6 dims"),
                      ((e((4, 4)), e((4, 4))), "format 2 to 2"),
                      ((e((4, 4), fmt=NZ), e((4, 4), fmt=NZ)), "format 29 to 29"),
                      ((e((4, 4), fmt=NC1HWC0), e((4, 4), fmt=NZ)), "format 3 to 29")):
        with pytest.raises(golden.AclError) as ei:
            golden.call("aclnnNpuFormatCast", *args)
        assert ei.value.code == 161002 and msg in ei.value.message, ei.value.message
