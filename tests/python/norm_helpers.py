"""Helpers for the norm golden tests (test_norm.py): tensors with a format, bool/int arrays,
typed scalar arguments, and float64 reference implementations."""
import ctypes

import numpy as np

from cannon_testlib import (ACL_BF16, ACL_FLOAT, ACL_FLOAT16, NP_OF, DevBuf, Tensor, _contig_strides,
                            from_bf16_bits, lib, to_bf16_bits)

FMT_ND, FMT_NCHW, FMT_NHWC, FMT_NC, FMT_NCL, FMT_NCDHW = 2, 0, 1, 35, 47, 30
DT = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "bfloat16": ACL_BF16}

# CANN's mixed precision standard per dtype: |a - g| <= T + T * |g| (see close()).
T = {ACL_FLOAT: 2.0 ** -13, ACL_FLOAT16: 2.0 ** -10, ACL_BF16: 2.0 ** -7}
DTYPES = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16]


def close(a, g, dt, what=""):
    t = T[dt]
    err = np.abs(a - g)
    bad = err > t + t * np.abs(g)
    assert not bad.any(), f"{what}: {bad.sum()} of {bad.size} off, max err {err.max():.3g}"


def dbl(v):
    return ctypes.c_double(v)


def flag(v):
    return ctypes.c_bool(v)


def bf16_bits(x):
    """float -> bf16 bits, rounding to nearest even, in numpy alone (the determinism test's
    subprocesses then need not import torch); NaNs go through torch's conversion."""
    f = np.ascontiguousarray(x, dtype=np.float32)
    if np.isnan(f).any():
        return to_bf16_bits(f)
    u = f.reshape(-1).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16).reshape(f.shape)


def encode(x, acl):
    if acl == ACL_BF16:
        return bf16_bits(x)
    return np.asarray(x, dtype=NP_OF[acl])


def decode(a, acl):
    if acl == ACL_BF16:
        return from_bf16_bits(a).astype(np.float64)
    return np.asarray(a, dtype=np.float64)


def quantize(x, acl):
    """The values x takes once stored in dtype acl (as float64)."""
    return decode(encode(x, acl), acl)


def tensor(x, acl=ACL_FLOAT, fmt=FMT_ND, strides=None, storage=None):
    """Device tensor holding x (dtype acl, format fmt). With strides/storage: a strided view."""
    L = lib()
    shape = np.shape(x)
    if storage is None:
        flat = encode(np.asarray(x).reshape(-1), acl)
        strides = _contig_strides(shape)
    else:
        flat = encode(np.asarray(storage).reshape(-1), acl)
    buf = DevBuf(L, max(flat.nbytes, 1))
    buf.upload(flat)
    t = Tensor.__new__(Tensor)
    t.lib, t.buf, t.dtype = L, buf, acl
    t.shape, t.strides, t.offset = tuple(shape), tuple(strides), 0
    n = len(shape)
    dims = (ctypes.c_int64 * max(n, 1))(*shape)
    st = (ctypes.c_int64 * max(n, 1))(*strides)
    t.storage_elems = max(flat.size, 1)
    sd = (ctypes.c_int64 * 1)(t.storage_elems)
    t.handle = L.nnop.aclCreateTensor(dims, ctypes.c_uint64(n), acl, st, ctypes.c_int64(0), fmt, sd,
                                      ctypes.c_uint64(1), ctypes.c_void_p(buf.ptr))
    return t


def empty(shape, acl=ACL_FLOAT, fmt=FMT_ND, fill=np.nan):
    return tensor(np.full(shape, fill), acl, fmt)


def read(t):
    return decode(t.view(), t.dtype)


def bool_array(vals):
    L = lib()
    L.nnop.aclCreateBoolArray.restype = ctypes.c_void_p
    arr = (ctypes.c_bool * len(vals))(*vals)
    return ctypes.c_void_p(L.nnop.aclCreateBoolArray(arr, ctypes.c_uint64(len(vals))))


def int_array(vals):
    L = lib()
    L.nnop.aclCreateIntArray.restype = ctypes.c_void_p
    arr = (ctypes.c_int64 * len(vals))(*vals)
    return ctypes.c_void_p(L.nnop.aclCreateIntArray(arr, ctypes.c_uint64(len(vals))))


def call(name, *args):
    return lib().call(name, *args)


def check_layer_norm_backward(gi, gw, gb, x, dy, w, mean, rstd):
    """LayerNormBackward's dx, dgamma and dbeta (fp32 outputs) against the float64 formulas, from the
    forward's saved mean and rstd."""
    ms, rs = read(mean), read(rstd)
    xh = (x - ms) * rs
    gdw = dy * w
    close(read(gi), rs * (gdw - gdw.mean(axis=1, keepdims=True) - xh * (gdw * xh).mean(axis=1, keepdims=True)),
          ACL_FLOAT, "dx")
    close(read(gw), (dy * xh).sum(axis=0), ACL_FLOAT, "dw")
    close(read(gb), dy.sum(axis=0), ACL_FLOAT, "db")


def ref_bn_stats(x, axes):
    m = x.mean(axis=axes)
    v = x.var(axis=axes)
    return m, v
