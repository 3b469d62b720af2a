"""ctypes access to cannon's C API for the Python golden tests.

Loads $CANNON_LIB_DIR/libascendcl.so, libnnopbase.so and libopapi.so, initialises ACL once per
process (device 0, one stream), and offers: device buffers filled from / read into numpy arrays,
aclTensor descriptors with arbitrary view shape, strides and offset, and a generic two-phase call.

bf16 has no numpy dtype: bf16 data travel as uint16 bit patterns (see to_bf16_bits /
from_bf16_bits, which round to nearest even through torch).
"""
import ctypes
import os
import subprocess
import sys

import numpy as np

ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_DOUBLE, ACL_BF16 = 0, 1, 3, 11, 27
ACL_FORMAT_ND = 2
H2D, D2H = 1, 2
# The instruction-set tiers a test can force with CANNON_ISA (conftest.py's `isa` fixture).
ISAS = ["scalar", "avx2", "avx512"]

NP_OF = {ACL_FLOAT: np.float32, ACL_FLOAT16: np.float16, ACL_DOUBLE: np.float64,
         ACL_BF16: np.uint16, ACL_INT32: np.int32}
ACL_OF = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "float64": ACL_DOUBLE, "bfloat16": ACL_BF16}

_c_i64p = ctypes.POINTER(ctypes.c_int64)


def outputs_per_thread_count(script, thread_counts, timeout, drop_isa=False):
    """Run @script (python -c, a fresh process each time) once per CANNON_CPU_THREADS value in
    @thread_counts, without CANNON_ISA when @drop_isa; assert that every run succeeded and return
    their stripped outputs (determinism tests compare the digests they print)."""
    outs = []
    for threads in thread_counts:
        env = dict(os.environ, CANNON_CPU_THREADS=threads)
        if drop_isa:
            env.pop("CANNON_ISA", None)
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           timeout=timeout)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout.strip())
    return outs


def to_bf16_bits(x):
    """float array -> uint16 bf16 bit patterns (round to nearest even)."""
    import torch
    t = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(torch.bfloat16)
    return t.view(torch.int16).numpy().view(np.uint16).copy()


def from_bf16_bits(b):
    """uint16 bf16 bit patterns -> float32 (exact)."""
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


class AclError(RuntimeError):
    def __init__(self, what, code, msg=""):
        super().__init__(f"{what} failed: {code} {msg}")
        self.code = code
        self.msg = msg


class DevBuf:
    def __init__(self, lib, nbytes):
        self.lib = lib
        self.nbytes = max(int(nbytes), 1)
        p = ctypes.c_void_p()
        lib._check("aclrtMalloc", lib.acl.aclrtMalloc(ctypes.byref(p), ctypes.c_size_t(self.nbytes), 0))
        self.ptr = p.value

    def upload(self, arr):
        arr = np.ascontiguousarray(arr)
        if arr.nbytes:
            self.lib._check("aclrtMemcpy", self.lib.acl.aclrtMemcpy(
                ctypes.c_void_p(self.ptr), ctypes.c_size_t(self.nbytes),
                ctypes.c_void_p(arr.ctypes.data), ctypes.c_size_t(arr.nbytes), H2D))

    def download(self, dtype, count):
        out = np.empty(count, dtype=dtype)
        if out.nbytes:
            self.lib._check("aclrtMemcpy", self.lib.acl.aclrtMemcpy(
                ctypes.c_void_p(out.ctypes.data), ctypes.c_size_t(out.nbytes),
                ctypes.c_void_p(self.ptr), ctypes.c_size_t(out.nbytes), D2H))
        return out

    def free(self):
        if self.ptr:
            self.lib.acl.aclrtFree(ctypes.c_void_p(self.ptr))
            self.ptr = None


class Tensor:
    """A device tensor: storage buffer + aclTensor view descriptor."""

    def __init__(self, lib, storage, acl_dtype, shape, strides, offset):
        self.lib, self.buf, self.dtype = lib, storage, acl_dtype
        self.shape, self.strides, self.offset = tuple(shape), tuple(strides), offset
        n = len(shape)
        dims = (ctypes.c_int64 * max(n, 1))(*shape)
        st = (ctypes.c_int64 * max(n, 1))(*strides)
        self.storage_elems = storage.nbytes // np.dtype(NP_OF[acl_dtype]).itemsize
        sd = (ctypes.c_int64 * 1)(self.storage_elems)
        self.handle = lib.nnop.aclCreateTensor(dims, ctypes.c_uint64(n), acl_dtype, st, ctypes.c_int64(offset),
                                               ACL_FORMAT_ND, sd, ctypes.c_uint64(1), ctypes.c_void_p(storage.ptr))
        if not self.handle:
            raise AclError("aclCreateTensor", -1, lib.errmsg())

    def storage(self):
        return self.buf.download(NP_OF[self.dtype], self.storage_elems)

    def view(self):
        """The view's elements (numpy, view dtype storage type) read back from the device."""
        st = self.storage()
        isz = st.itemsize
        if not self.shape or 0 not in self.shape:
            v = np.lib.stride_tricks.as_strided(st[self.offset:], shape=self.shape,
                                                strides=[s * isz for s in self.strides])
            return np.array(v)
        return np.zeros(self.shape, dtype=st.dtype)

    def destroy(self):
        if self.handle:
            self.lib.nnop.aclDestroyTensor(ctypes.c_void_p(self.handle))
            self.handle = None
        self.buf.free()


class Cannon:
    def __init__(self, libdir=None):
        libdir = libdir or os.environ.get("CANNON_LIB_DIR")
        if not libdir:
            raise RuntimeError("set CANNON_LIB_DIR to the directory holding libascendcl.so")
        mode = ctypes.RTLD_GLOBAL
        self.acl = ctypes.CDLL(os.path.join(libdir, "libascendcl.so"), mode=mode)
        self.nnop = ctypes.CDLL(os.path.join(libdir, "libnnopbase.so"), mode=mode)
        self.opapi = ctypes.CDLL(os.path.join(libdir, "libopapi.so"), mode=mode)
        self.acl.aclGetRecentErrMsg.restype = ctypes.c_char_p
        self.nnop.aclCreateTensor.restype = ctypes.c_void_p
        self.nnop.aclCreateTensor.argtypes = [_c_i64p, ctypes.c_uint64, ctypes.c_int, _c_i64p, ctypes.c_int64,
                                              ctypes.c_int, _c_i64p, ctypes.c_uint64, ctypes.c_void_p]
        rc = self.acl.aclInit(None)
        # 100002 (ACL_ERROR_REPEAT_INITIALIZE): another user in this process (the cannon package,
        # imported by a test that ran first, as with pytest -k) initialized the runtime already.
        if rc != 100002:
            self._check("aclInit", rc)
        self._check("aclrtSetDevice", self.acl.aclrtSetDevice(0))
        s = ctypes.c_void_p()
        self._check("aclrtCreateStream", self.acl.aclrtCreateStream(ctypes.byref(s)))
        self.stream = s.value

    def errmsg(self):
        m = self.acl.aclGetRecentErrMsg()
        return m.decode(errors="replace") if m else ""

    def _check(self, what, rc):
        if rc != 0:
            raise AclError(what, rc, self.errmsg())

    def set_device_thread(self):
        """Make this (new) Python thread use device 0."""
        self._check("aclrtSetDevice", self.acl.aclrtSetDevice(0))

    # ---- tensors ----
    def tensor_from(self, arr, acl_dtype=None, strides=None, offset=0, storage=None):
        """Upload @arr as a view. Default: contiguous. With @storage (a flat numpy array of the
        storage), @arr is ignored for data and the view is (arr.shape, strides, offset) into it."""
        if acl_dtype is None:
            acl_dtype = ACL_OF[str(np.asarray(arr).dtype)]
        npdt = NP_OF[acl_dtype]
        if storage is None:
            flat = np.ascontiguousarray(arr, dtype=npdt).reshape(-1)
            shape = np.shape(arr)
            strides = strides or _contig_strides(shape)
        else:
            flat = np.ascontiguousarray(storage, dtype=npdt).reshape(-1)
            shape = np.shape(arr)
        buf = DevBuf(self, flat.nbytes)
        buf.upload(flat)
        return Tensor(self, buf, acl_dtype, shape, strides, offset)

    def empty(self, shape, acl_dtype, strides=None, offset=0, storage_elems=None, fill=None):
        npdt = NP_OF[acl_dtype]
        strides = strides or _contig_strides(shape)
        if storage_elems is None:
            storage_elems = offset + (1 + sum((d - 1) * s for d, s in zip(shape, strides)) if 0 not in shape else 0)
        buf = DevBuf(self, storage_elems * np.dtype(npdt).itemsize)
        if fill is not None:
            buf.upload(np.full(storage_elems, fill, dtype=npdt))
        return Tensor(self, buf, acl_dtype, shape, strides, offset)

    # ---- two-phase call ----
    def call(self, name, *args, sync=True):
        """Phase 1 with @args (Tensor, int → int64, None → NULL), then phase 2 and a stream sync.
        Returns 0 or raises AclError with the failing status."""
        cargs = []
        for a in args:
            if isinstance(a, Tensor):
                cargs.append(ctypes.c_void_p(a.handle))
            elif a is None:
                cargs.append(ctypes.c_void_p(None))
            elif isinstance(a, int):
                cargs.append(ctypes.c_int64(a))
            else:
                cargs.append(a)
        ws = ctypes.c_uint64(0)
        ex = ctypes.c_void_p()
        f1 = getattr(self.opapi, name + "GetWorkspaceSize")
        f1.restype = ctypes.c_int
        rc = f1(*cargs, ctypes.byref(ws), ctypes.byref(ex))
        if rc != 0:
            raise AclError(name + "GetWorkspaceSize", rc, self.errmsg())
        wbuf = DevBuf(self, ws.value) if ws.value else None
        f2 = getattr(self.opapi, name)
        f2.restype = ctypes.c_int
        rc = f2(ctypes.c_void_p(wbuf.ptr if wbuf else None), ctypes.c_uint64(ws.value), ex,
                ctypes.c_void_p(self.stream))
        if rc != 0:
            if wbuf:
                wbuf.free()
            raise AclError(name, rc, self.errmsg())
        if sync:
            self._check("aclrtSynchronizeStream", self.acl.aclrtSynchronizeStream(ctypes.c_void_p(self.stream)))
        if wbuf:
            wbuf.free()
        return ws.value

    def phase1_status(self, name, *args, null_ws=False, null_exec=False):
        """Only phase 1; returns its status (freeing nothing: used for argument-error tests)."""
        cargs = [ctypes.c_void_p(a.handle) if isinstance(a, Tensor) else
                 (ctypes.c_void_p(None) if a is None else ctypes.c_int64(a)) for a in args]
        ws = ctypes.c_uint64(0)
        ex = ctypes.c_void_p()
        f1 = getattr(self.opapi, name + "GetWorkspaceSize")
        f1.restype = ctypes.c_int
        rc = f1(*cargs, None if null_ws else ctypes.byref(ws), None if null_exec else ctypes.byref(ex))
        if rc == 0 and ex.value:
            self.nnop.aclDestroyAclOpExecutor(ex)
        return rc


def _contig_strides(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= max(d, 1)
    return list(reversed(st))


_lib = None


def lib():
    """The process-wide Cannon instance (initialised on first use)."""
    global _lib
    if _lib is None:
        _lib = Cannon()
    return _lib
