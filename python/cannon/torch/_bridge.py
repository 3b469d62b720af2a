"""How torch CPU tensors reach cannon's aclnn kernels.

Inputs are passed zero-copy: an aclTensor descriptor is built around the tensor's own memory
(``data_ptr()``, its sizes and strides in elements). libnnopbase does not require tensor data to
come from aclrtMalloc, and the CPU driver's kernels run in this process on plain host addresses,
so any CPU tensor is a valid aclnn operand (strided views included: kernels read them through
their strides or gather them into the workspace).

Outputs are allocated by default from cannon's caching device allocator (aclrtMalloc) and wrapped
as torch tensors (``torch.frombuffer`` on the block; the block goes back to the cache when the
last tensor using it dies). Why: the CPU driver's device memory is host memory, and a cached
block is already committed, whereas a fresh glibc allocation of a large output page-faults on
every call (about 2 us per 4 KiB page on these VMs, more than the kernel itself). Set
``CANNON_TORCH_ALLOC=torch`` to allocate outputs with ``torch.empty`` instead; a device
allocation that fails for lack of memory falls back to ``torch.empty`` as well.

Every call runs synchronously: phase 1, phase 2 on this thread's stream, then a stream
synchronize, because torch expects a CPU kernel's outputs to be complete when it returns.
"""
import ctypes
import os
import threading

import torch

from .. import _lib, runtime
from .._lib import AclError

_vp = ctypes.c_void_p
_i64 = ctypes.c_int64

ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = 0, 1, 2
ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
ACLNN_ERR_PARAM_INVALID = 161002

# torch dtype -> aclDataType (values from acl_base.h)
ACL_DTYPE = {
    torch.float32: 0, torch.float16: 1, torch.int8: 2, torch.int32: 3, torch.uint8: 4, torch.int16: 6,
    torch.int64: 9, torch.float64: 11, torch.bool: 12, torch.bfloat16: 27,
}
# torch dtype -> HcclDataType (hccl_types.h)
HCCL_DTYPE = {
    torch.int8: 0, torch.int16: 1, torch.int32: 2, torch.float16: 3, torch.float32: 4, torch.int64: 5,
    torch.uint8: 7, torch.float64: 10, torch.bfloat16: 11,
}

_ITEMSIZE = {dt: torch.empty(0, dtype=dt).element_size() for dt in ACL_DTYPE}
_tls = threading.local()
_fn_cache = {}


def acl_dtype(t, what="tensor"):
    d = ACL_DTYPE.get(t.dtype)
    if d is None:
        raise TypeError(f"cannon: {what} has dtype {t.dtype}, which aclnn does not support")
    return d


def check_cpu(t, what="tensor"):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"cannon: {what} must be a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"cannon: {what} is on {t.device}; cannon.torch ops take CPU tensors")
    if t.is_sparse or t.is_quantized or t.is_complex():
        raise TypeError(f"cannon: {what} must be a dense real tensor")
    return t


def _fn(name):
    f = _fn_cache.get(name)
    if f is None:
        lib = _lib.opapi()
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise _lib.OpUnavailableError(f"{name} is not exported by {lib._cannon_path}") from None
        f.restype = ctypes.c_int
        _fn_cache[name] = f
    return f


_I64 = [_i64 * max(n, 1) for n in range(9)]  # one ctypes array type per rank: building types is slow
_nn = None  # (aclCreateTensor, aclDestroyTensor, the libnnopbase CDLL, aclSetRawTensorAddr)


def _nnop():
    global _nn
    if _nn is None:
        lib = _lib.nnop()
        setaddr = lib.aclSetRawTensorAddr
        setaddr.restype = ctypes.c_int
        setaddr.argtypes = [_vp, _vp]
        _nn = (lib.aclCreateTensor, lib.aclDestroyTensor, lib, setaddr)
    return _nn


def _tensor_handle(t, fmt=ACL_FORMAT_ND, shape=None, strides=None):
    """A new aclTensor around @t's memory (the caller destroys it)."""
    shape = t.shape if shape is None else shape
    strides = t.stride() if strides is None else strides
    n = len(shape)
    if n > 8:
        raise ValueError(f"cannon: aclnn tensors have at most 8 dims, got {n}")
    arr = _I64[n]
    # No storage shape: the view is all the kernels use, and torch already guarantees it lies
    # inside the tensor's storage.
    h = _nnop()[0](arr(*shape), n, acl_dtype(t), arr(*strides), 0, fmt, None, 0, t.data_ptr())
    if not h:
        raise AclError(ACLNN_ERR_PARAM_INVALID, _lib.recent_error(), "aclCreateTensor")
    return h


class IntArray:
    __slots__ = ("values",)

    def __init__(self, values):
        self.values = [int(v) for v in values]


class BoolArray:
    __slots__ = ("values",)

    def __init__(self, values):
        self.values = [bool(v) for v in values]


class Scalar:
    """An aclScalar of @dtype (a torch dtype)."""
    __slots__ = ("value", "dtype")

    def __init__(self, value, dtype):
        self.value, self.dtype = value, dtype


class TensorList:
    """An aclTensorList of @tensors (torch tensors). Its descriptors are made for the call and
    destroyed with the list after it (not pooled: a list owns its tensors)."""
    __slots__ = ("tensors",)

    def __init__(self, tensors):
        self.tensors = list(tensors)


class Fmt:
    """A tensor argument with an explicit aclFormat (and optionally another shape/strides view)."""
    __slots__ = ("t", "fmt", "shape", "strides")

    def __init__(self, t, fmt, shape=None, strides=None):
        self.t, self.fmt, self.shape, self.strides = t, fmt, shape, strides


def _convert(a, th, owned):
    """The ctypes argument for @a. Tensor descriptors are borrowed from the thread's pool
    (appended to @owned as (key, handle), given back after the call); other descriptors are
    immutable and cached by value in the same pool."""
    if isinstance(a, torch.Tensor):
        return _vp(th.borrow(a, ACL_FORMAT_ND, a.shape, a.stride(), owned))
    if a is None:
        return _vp(None)
    if isinstance(a, Fmt):
        return _vp(th.borrow(a.t, a.fmt, a.shape or a.t.shape, a.strides or a.t.stride(), owned))
    if isinstance(a, bool):
        return ctypes.c_bool(a)
    if isinstance(a, int):
        return _i64(a)
    if isinstance(a, float):
        return ctypes.c_double(a)
    if isinstance(a, (IntArray, BoolArray, Scalar)):
        return _vp(th.value_handle(a))
    if isinstance(a, TensorList):
        return _vp(_tensor_list(a, owned))
    if isinstance(a, (ctypes._SimpleCData, ctypes._Pointer)):
        return a
    raise TypeError(f"cannot pass {type(a).__name__} to an aclnn function")


def _tensor_list(a, owned):
    """A new aclTensorList for @a; appended to @owned with key None (destroyed after the call)."""
    lib = _nnop()[2]
    hs = []
    try:
        for t in a.tensors:
            hs.append(_tensor_handle(t))
    except BaseException:
        for h in hs:
            _nn[1](h)
        raise
    buf = (_vp * max(len(hs), 1))(*hs)
    h = lib.aclCreateTensorList(buf, ctypes.c_uint64(len(hs)))
    if not h:
        for t in hs:
            _nn[1](t)
        raise AclError(ACLNN_ERR_PARAM_INVALID, _lib.recent_error(), "aclCreateTensorList")
    owned.append((None, h))
    return h


def _destroy_list(h):
    _nnop()[2].aclDestroyTensorList(_vp(h))


def _make_value_handle(a):
    """(destroy function, handle, keep-alive buffer) of a new aclIntArray/aclBoolArray/aclScalar."""
    lib = _nnop()[2]
    if isinstance(a, IntArray):
        n = len(a.values)
        buf = (_i64 * max(n, 1))(*a.values)
        h = lib.aclCreateIntArray(buf, n)
        what, destroy = "aclCreateIntArray", lib.aclDestroyIntArray
    elif isinstance(a, BoolArray):
        n = len(a.values)
        buf = (ctypes.c_bool * max(n, 1))(*a.values)
        h = lib.aclCreateBoolArray(buf, n)
        what, destroy = "aclCreateBoolArray", lib.aclDestroyBoolArray
    else:
        raw = torch.tensor([a.value], dtype=a.dtype)
        buf = ctypes.create_string_buffer(bytes(raw.view(torch.uint8).numpy()), 16)
        h = lib.aclCreateScalar(ctypes.cast(buf, _vp), ACL_DTYPE[a.dtype])
        what, destroy = "aclCreateScalar", lib.aclDestroyScalar
    if not h:
        raise AclError(ACLNN_ERR_PARAM_INVALID, _lib.recent_error(), what)
    return destroy, h, buf


# Descriptors a thread keeps for reuse. Building one from Python (ctypes arrays, the create and
# destroy calls) cost ~10 us per tensor, most of a small op's call; a pooled one costs a dict
# lookup and aclSetRawTensorAddr. Bounded: past _POOL_MAX descriptors the pool is emptied after
# the call (never during one: the call may be using any of them).
_POOL_MAX = 256


class _Thread:
    """Per-thread state: the stream, a reusable workspace (calls are synchronous, so one
    workspace per thread is never in use twice) and the descriptor pool.

    Pool: free aclTensor descriptors by (dtype, shape, strides, format); a call borrows one per
    tensor argument (two arguments of one layout get two descriptors), points it at the tensor's
    memory with aclSetRawTensorAddr and gives it back once the call has synchronized, when no
    executor can still read it. aclnn operators never modify their descriptors, so a reused one
    is as good as a new one. IntArray/BoolArray/Scalar descriptors are immutable and cached by
    value. Only this thread touches its pool, so it needs no lock."""

    def __init__(self):
        runtime.ensure_initialized()
        self.gen = runtime.generation()
        self.stream = runtime.current_stream()
        self.ws = None
        self.free = {}    # layout key -> [free aclTensor handles]
        self.values = {}  # value key -> (destroy, handle, buffer)
        self.count = 0    # descriptors held (free or borrowed) + cached values

    def workspace(self, n):
        if self.ws is None or self.ws.nbytes < n:
            if self.ws is not None:
                self.ws.release()
                self.ws = None
            self.ws = runtime.DeviceBuffer(max(n, 1 << 16, (self.ws.nbytes * 2) if self.ws else 0))
        return self.ws.ptr

    def borrow(self, t, fmt, shape, strides, owned):
        key = (t.dtype, fmt, shape, strides)
        free = self.free.get(key)
        if free:
            h = free.pop()
            _nn[3](h, t.data_ptr())
        else:
            h = _tensor_handle(t, fmt, shape, strides)
            self.count += 1
        owned.append((key, h))
        return h

    def give_back(self, owned):
        for key, h in owned:
            if key is None:  # a tensor list: destroyed with its tensors, never pooled
                _destroy_list(h)
                continue
            free = self.free.get(key)
            if free is None:
                self.free[key] = [h]
            else:
                free.append(h)
        if self.count > _POOL_MAX:
            self.trim()

    def value_handle(self, a):
        if isinstance(a, Scalar):
            v = a.value
            # float.hex() keeps -0.0 apart from 0.0 and gives NaN a key that equals itself
            key = (Scalar, a.dtype, v.hex() if isinstance(v, float) else (type(v), v))
        else:
            key = (type(a), tuple(a.values))
        v = self.values.get(key)
        if v is None:
            v = _make_value_handle(a)
            self.values[key] = v
            self.count += 1
        return v[1]

    def trim(self):
        """Destroy every free descriptor and cached value (borrowed ones stay counted)."""
        destroy = _nnop()[1]
        for free in self.free.values():
            for h in free:
                destroy(h)
                self.count -= 1
        for d, h, _ in self.values.values():
            d(h)
            self.count -= 1
        self.free.clear()
        self.values.clear()

    def __del__(self):
        try:
            if _nn is not None and self.gen == runtime.generation():
                self.trim()
        except Exception:
            pass


def _thread():
    th = getattr(_tls, "state", None)
    if th is None or th.gen != runtime.generation() or not th.stream.handle:
        if th is not None and th.gen == runtime.generation():
            th.trim()
        th = _Thread()
        _tls.state = th
    return th


_sync_fn = None


def _sync():
    global _sync_fn
    if _sync_fn is None:
        _sync_fn = _lib.acl().aclrtSynchronizeStream
    return _sync_fn


_fn2_cache = {}


def _fn2(name):
    """(phase 1, phase 2) of aclnn operator @name."""
    f = _fn2_cache.get(name)
    if f is None:
        f = _fn2_cache[name] = (_fn(name + "GetWorkspaceSize"), _fn(name))
    return f


def call(name, *args):
    """Run aclnn operator @name synchronously on this thread's stream with @args (torch tensors,
    None, bool, int, float, IntArray, BoolArray, Scalar, TensorList, Fmt, ctypes values)."""
    f1, f2 = _fn2(name)
    call_fns(f1, f2, name, *args)


def call_fns(f1, f2, name, *args):
    """call() with the operator's phase 1 and phase 2 functions given (a custom package's)."""
    th = _thread()
    _nnop()
    owned = []
    ok = False
    try:
        cargs = [_convert(a, th, owned) for a in args]
        ws, ex = ctypes.c_uint64(0), _vp()
        rc = f1(*cargs, ctypes.byref(ws), ctypes.byref(ex))
        if rc != 0:
            raise AclError(rc, _lib.recent_error(), name + "GetWorkspaceSize")
        wptr = th.workspace(ws.value) if ws.value else None
        stream = th.stream.handle
        rc = f2(_vp(wptr), ws, ex, _vp(stream))
        if rc != 0:
            raise AclError(rc, _lib.recent_error(), name)
        rc = (_sync_fn or _sync())(stream)
        ok = True
        if rc != 0:
            raise AclError(rc, _lib.recent_error(), name)
    finally:
        if ok:
            th.give_back(owned)
        else:
            # phase 2 may not have run, or failed: its executor could still hold the
            # descriptors, so they are not reused
            destroy = _nn[1]
            for key, h in owned:
                if key is None:
                    _destroy_list(h)
                else:
                    destroy(h)
                    th.count -= 1
            if th.count > _POOL_MAX:
                th.trim()


# ---- output allocation ---------------------------------------------------------------------

class _Block:
    """Owns one aclrtMalloc block; frees it when the last tensor viewing it dies."""
    __slots__ = ("ptr", "gen")

    def __init__(self, ptr):
        self.ptr, self.gen = ptr, runtime.generation()

    def __del__(self):
        try:
            if self.ptr and self.gen == runtime.generation() and runtime.is_initialized():
                _lib.acl().aclrtFree(_vp(self.ptr))
        except Exception:
            pass


_use_device_alloc = os.environ.get("CANNON_TORCH_ALLOC", "device").lower() != "torch"
_MIN_DEVICE_BYTES = 1 << 16  # small outputs: torch's allocator is as fast, and ctypes costs more


def empty(shape, dtype, memory_format=None):
    """An uninitialised CPU tensor for an op's output (see the module doc for where it lives)."""
    shape = tuple(int(s) for s in shape)
    numel = 1
    for s in shape:
        numel *= s
    nbytes = numel * _ITEMSIZE[dtype]
    if not _use_device_alloc or nbytes < _MIN_DEVICE_BYTES:
        return torch.empty(shape, dtype=dtype, memory_format=memory_format or torch.contiguous_format)
    _thread()
    p = _vp()
    rc = _lib.acl().aclrtMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes), 0)
    if rc != 0 or not p.value:
        _lib.recent_error()  # clear the record: the fallback below is not an error
        return torch.empty(shape, dtype=dtype, memory_format=memory_format or torch.contiguous_format)
    raw = (ctypes.c_uint8 * nbytes).from_address(p.value)
    raw._cannon_block = _Block(p.value)
    # resize_ of the flat tensor in place, rather than a view or set_ on a new tensor: the result
    # must not be a view (autograd forbids in-place ops on views of our Functions' outputs, e.g.
    # nn.ReLU(inplace=True) after a norm layer), and this is the cheapest form: after a kernel has
    # streamed tens of MB through the caches, every Python and dispatcher step here runs cold, and
    # empty(0).set_(storage, ...) took ~35 us of a ~2 ms op against ~18 us for this (fp32
    # [32,64,56,56], 2 threads).
    flat = torch.frombuffer(raw, dtype=dtype, count=numel)
    if memory_format is torch.channels_last and len(shape) == 4:
        return flat.resize_(shape, memory_format=torch.channels_last)
    return flat.resize_(shape)


def set_device_alloc(enabled):
    """Choose where op outputs are allocated: cannon's caching device allocator (True) or torch.empty."""
    global _use_device_alloc
    _use_device_alloc = bool(enabled)
