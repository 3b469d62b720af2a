"""Helpers for the elementwise / activation / matmul golden tests.

Extends cannon_testlib with every dtype these operators take (integers, bool), aclScalar
arguments, and a two-phase call that accepts scalars and small ints (int8 cubeMathType, enum
dtype). bf16 data travel as uint16 bit patterns, as in cannon_testlib.
"""
import ctypes

import numpy as np
import torch

import cannon_testlib as ct

ACL_BOOL, ACL_UINT8, ACL_INT8, ACL_INT16, ACL_INT64 = 12, 4, 2, 6, 9
# extend the testlib's dtype table (additive: keys it lacks)
for _k, _v in {ACL_BOOL: np.bool_, ACL_UINT8: np.uint8, ACL_INT8: np.int8, ACL_INT16: np.int16,
               ACL_INT64: np.int64}.items():
    ct.NP_OF.setdefault(_k, _v)

DT = {"float32": ct.ACL_FLOAT, "float16": ct.ACL_FLOAT16, "bfloat16": ct.ACL_BF16, "float64": ct.ACL_DOUBLE,
      "int8": ACL_INT8, "int16": ACL_INT16, "int32": ct.ACL_INT32, "int64": ACL_INT64, "uint8": ACL_UINT8,
      "bool": ACL_BOOL}
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8,
         "bool": torch.bool}
FLOATS = ["float32", "float16", "bfloat16", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]


class Scalar:
    """An aclScalar (host value of a dtype)."""

    def __init__(self, L, value, dtype):
        self.L = L
        if dtype == "bfloat16":
            buf = (ctypes.c_uint16 * 1)(int(ct.to_bf16_bits(np.array([value]))[0]))
        else:
            arr = np.array([value], dtype=np.dtype(ct.NP_OF[DT[dtype]]))
            buf = ctypes.create_string_buffer(arr.tobytes(), 16)
        self._buf = buf
        L.nnop.aclCreateScalar.restype = ctypes.c_void_p
        self.handle = L.nnop.aclCreateScalar(ctypes.cast(buf, ctypes.c_void_p), DT[dtype])
        assert self.handle

    def destroy(self):
        if self.handle:
            self.L.nnop.aclDestroyScalar(ctypes.c_void_p(self.handle))
            self.handle = None


def to_storage(t, dtype):
    """torch tensor (any dtype) -> numpy storage array of @dtype (bf16 as uint16 bits)."""
    t = t.to(TORCH[dtype]).contiguous()
    if dtype == "bfloat16":
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    return t.numpy().copy()


def from_storage(a, dtype):
    """numpy storage of @dtype -> torch tensor of @dtype."""
    if dtype == "bfloat16":
        return torch.from_numpy(np.asarray(a, dtype=np.uint16).view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def upload(L, t, dtype, layout="contig"):
    """Device tensor holding torch tensor @t as @dtype. layout: 'contig', 'transposed' (last two
    dims stored swapped), 'strided' (every other element of a wider buffer), 'offset'."""
    st = to_storage(t, dtype)
    shape = list(t.shape)
    if layout == "contig" or len(shape) == 0:
        return L.tensor_from(st, DT[dtype])
    if layout == "transposed" and len(shape) >= 2:
        perm = list(range(len(shape) - 2)) + [len(shape) - 1, len(shape) - 2]
        phys = np.ascontiguousarray(np.transpose(st, perm))
        strides = list(ct._contig_strides(list(phys.shape)))
        strides = [strides[p] for p in perm]
        return L.tensor_from(st, DT[dtype], strides=strides, offset=0, storage=phys.reshape(-1))
    if layout in ("strided", "offset"):
        off = 3 if layout == "offset" else 0
        big = np.zeros(off + 2 * max(st.size, 1), dtype=st.dtype)
        big[off:off + 2 * st.size:2] = st.reshape(-1)
        strides = [2 * s for s in ct._contig_strides(shape)]
        return L.tensor_from(st, DT[dtype], strides=strides, offset=off, storage=big)
    return L.tensor_from(st, DT[dtype])


def download(T, dtype):
    return from_storage(T.view(), dtype)


def call(L, name, *args):
    """Two-phase call; Scalar -> its handle, ('i8', v) -> int8, ('i32', v) -> int32."""
    conv = []
    for a in args:
        if isinstance(a, Scalar):
            conv.append(ctypes.c_void_p(a.handle))
        elif isinstance(a, tuple) and a[0] == "i8":
            conv.append(ctypes.c_int8(a[1]))
        elif isinstance(a, tuple) and a[0] == "i32":
            conv.append(ctypes.c_int32(a[1]))
        else:
            conv.append(a)
    return L.call(name, *conv)


def status(L, name, *args):
    """Phase-1 status only (0 or the error code)."""
    try:
        call(L, name, *args)
        return 0
    except ct.AclError as e:
        return e.code


def tol(dtype):
    """(rtol, atol) per dtype (about 1-2 ulp of the result type)."""
    return {"float32": (2e-6, 1e-6), "float16": (2e-3, 1e-4), "bfloat16": (1.6e-2, 1e-3),
            "float64": (1e-13, 1e-14)}.get(dtype, (0, 0))
