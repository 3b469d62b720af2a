"""Helpers shared by test_embedding.py, test_nll_loss.py and test_reduce.py (on top of
cannon_testlib): integer dtypes, aclIntArray handles, quantisation to fp16/bf16, strided views,
and a run-in-a-subprocess helper for thread-count determinism checks."""
import ctypes
import os
import subprocess
import sys

import numpy as np

import cannon_testlib as ct

ACL_INT8, ACL_UINT8, ACL_INT16, ACL_INT64, ACL_BOOL = 2, 4, 6, 9, 12
ACL_AICORE_EXCEPTION = 507015
PARAM_NULLPTR, PARAM_INVALID = 161001, 161002

# cannon_testlib knows the float types and INT32; teach it the other integer storage types.
for _acl, _np in ((ACL_INT8, np.int8), (ACL_UINT8, np.uint8), (ACL_INT16, np.int16), (ACL_INT64, np.int64),
                  (ACL_BOOL, np.uint8)):
    ct.NP_OF.setdefault(_acl, _np)

ACL = {"float32": ct.ACL_FLOAT, "float16": ct.ACL_FLOAT16, "bfloat16": ct.ACL_BF16, "float64": ct.ACL_DOUBLE,
       "int8": ACL_INT8, "uint8": ACL_UINT8, "int16": ACL_INT16, "int32": ct.ACL_INT32, "int64": ACL_INT64,
       "bool": ACL_BOOL}
FLOATS = ("float32", "float16", "bfloat16", "float64")


def quantize(x, dtype):
    """values -> (storage array for upload, the exact float64 values it holds)."""
    if dtype == "bfloat16":
        b = ct.to_bf16_bits(x)
        return b, ct.from_bf16_bits(b).astype(np.float64)
    if dtype == "bool":
        a = (np.asarray(x) != 0).astype(np.uint8)
        return a, a.astype(np.float64)
    a = np.asarray(x).astype(dtype)
    return a, a.astype(np.float64)


def decode(a, dtype):
    """Storage values read back -> float64."""
    a = np.asarray(a)
    if dtype == "bfloat16":
        return ct.from_bf16_bits(a.reshape(-1)).astype(np.float64).reshape(a.shape)
    return a.astype(np.float64)


def _padded_strides(shape):
    """Strides of a view whose last axis has stride 2 inside rows of 2 * shape[-1] + 1 elements."""
    big = list(shape)
    big[-1] = shape[-1] * 2 + 1
    st, acc = [], 1
    for d in reversed(big):
        st.append(acc)
        acc *= max(d, 1)
    st = list(reversed(st))
    st[-1] = 2
    return st


def tensor(L, arr, dtype, strided=False):
    """Upload @arr (storage values of @dtype) as a contiguous view, or with @strided as a view whose
    last axis has stride 2 and rows are padded, at offset 3 (so gathers / strided kernels run)."""
    acl = ACL[dtype]
    arr = np.asarray(arr)
    shape = arr.shape
    if not strided or len(shape) == 0 or 0 in shape:
        return L.tensor_from(arr, acl)
    st, off = _padded_strides(shape), 3
    storage = np.zeros(off + 1 + sum((d - 1) * s for d, s in zip(shape, st)), dtype=arr.dtype)
    v = np.lib.stride_tricks.as_strided(storage[off:], shape=shape, strides=[s * storage.itemsize for s in st])
    v[...] = arr
    return L.tensor_from(arr, acl, strides=st, offset=off, storage=storage)


def empty(L, shape, dtype, strided=False, fill=None):
    """An output tensor; with @strided, laid out as tensor() does (gaps filled with @fill)."""
    acl = ACL[dtype]
    shape = tuple(shape)
    if not strided or len(shape) == 0 or 0 in shape:
        return L.empty(shape, acl, fill=fill)
    return L.empty(shape, acl, strides=_padded_strides(shape), offset=3, fill=fill)


class IntArray:
    def __init__(self, L, values):
        self.L = L
        n = len(values)
        arr = (ctypes.c_int64 * max(n, 1))(*values)
        L.nnop.aclCreateIntArray.restype = ctypes.c_void_p
        self.handle = L.nnop.aclCreateIntArray(arr, ctypes.c_uint64(n))
        assert self.handle

    @property
    def arg(self):
        # an int: cannon_testlib passes ints as int64, which carries a pointer on LP64 targets
        return int(self.handle)

    def destroy(self):
        if self.handle:
            self.L.nnop.aclDestroyIntArray(ctypes.c_void_p(self.handle))
            self.handle = None


def run_in_subprocesses(script, thread_counts, timeout=120):
    """Run @script (python source) once per entry of @thread_counts with CANNON_CPU_THREADS set,
    concurrently; returns {threads: stdout}."""
    here = os.path.dirname(os.path.abspath(__file__))
    procs = {}
    for t in thread_counts:
        env = dict(os.environ, CANNON_CPU_THREADS=str(t), PYTHONPATH=here)
        procs[t] = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
    res = {}
    for t, p in procs.items():
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, err
        res[t] = out.strip()
    return res


def bf16_bits_np(x):
    """float -> bf16 bit patterns, round to nearest even, without torch (finite inputs)."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def zipf_indices(rng, n, v, s=1.1):
    """n indices in [0, v) with P(k) ~ 1/(k+1)^s (heavy duplication of the head), shuffled rows."""
    p = 1.0 / np.arange(1, v + 1) ** s
    p /= p.sum()
    idx = rng.choice(v, size=n, p=p)
    perm = rng.permutation(v)  # scatter the head over the table
    return perm[idx]
