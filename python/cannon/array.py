"""DeviceArray: a strided view into a DeviceBuffer, the dtype table and the tensor formats.

Strides and offsets are in elements (as aclTensor's). bf16 has no numpy dtype: its elements are
stored and exchanged as uint16 bit patterns; ``float_to_bf16`` / ``bf16_to_float`` convert.
An array's whole buffer is its storage (what aclCreateTensor calls storageDims): ``from_storage``
uploads a storage and views it with any shape, strides and offset; ``storage()`` reads it back,
gaps between the view's elements included.

``numpy()`` returns a zero-copy VIEW on the device memory when device memory is host-addressable
(cannon's CPU driver; see ``cannon.runtime.host_addressable``) and ``copy=False`` (default);
otherwise a copy. Before returning, it synchronises @stream (default: the whole device) so the
data is complete. A view stays valid while the DeviceArray/DeviceBuffer is alive and not freed;
it aliases the device data (later ops writing the array are visible in it, writes to it change the
device data). ``numpy(copy=True)`` always returns an independent copy.
"""
import ctypes

import numpy as np

from . import _lib, runtime
from ._lib import AclError


class DType:
    """A cannon element type: name, aclDataType, numpy storage dtype and HcclDataType."""

    def __init__(self, name, acl, np_dtype, hccl):
        self.name, self.acl, self.hccl = name, acl, hccl
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize

    def __repr__(self):
        return f"cannon.{self.name}"

    __str__ = lambda self: self.name

    def __eq__(self, other):
        try:
            return as_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)


float32 = DType("float32", 0, np.float32, 4)
float16 = DType("float16", 1, np.float16, 3)
int8 = DType("int8", 2, np.int8, 0)
int32 = DType("int32", 3, np.int32, 2)
uint8 = DType("uint8", 4, np.uint8, 7)
int16 = DType("int16", 6, np.int16, 1)
uint16 = DType("uint16", 7, np.uint16, 8)
uint32 = DType("uint32", 8, np.uint32, 9)
int64 = DType("int64", 9, np.int64, 5)
uint64 = DType("uint64", 10, np.uint64, 6)
float64 = DType("float64", 11, np.float64, 10)
bool_ = DType("bool", 12, np.bool_, None)
bfloat16 = DType("bfloat16", 27, np.uint16, 11)

_ALL = [float32, float16, int8, int32, uint8, int16, uint16, uint32, int64, uint64, float64, bool_, bfloat16]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"bf16": bfloat16, "fp16": float16, "half": float16, "float": float32, "double": float64,
                 "bool_": bool_})
_BY_NP = {d.np: d for d in _ALL if d is not bfloat16}


def as_dtype(x):
    """DType from a DType, a name ('float32', 'bfloat16', 'bf16'...), a numpy dtype or type."""
    if isinstance(x, DType):
        return x
    if isinstance(x, str) and x in _BY_NAME:
        return _BY_NAME[x]
    try:
        nd = np.dtype(x)
    except TypeError:
        raise TypeError(f"not a dtype: {x!r}") from None
    d = _BY_NP.get(nd)
    if d is None:
        raise TypeError(f"unsupported dtype {nd}")
    return d


def float_to_bf16(x):
    """float array → uint16 bf16 bit patterns, rounding to nearest even (NaN stays NaN); same shape,
    0-d included."""
    f = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r.reshape(np.shape(x))


def bf16_to_float(b):
    """uint16 bf16 bit patterns → float32 (exact); same shape, 0-d included."""
    b = np.asarray(b, dtype=np.uint16)
    return (b.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)


# aclFormat values (the layouts aclCreateTensor takes; the norm operators read NCHW/NHWC/...).
FORMAT_NCHW = 0
FORMAT_NHWC = 1
FORMAT_ND = 2
FORMAT_NDHWC = 27
FORMAT_NCDHW = 30
FORMAT_NC = 35
FORMAT_NCL = 47


def contiguous_strides(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= max(int(d), 1)
    return tuple(reversed(st))


class DeviceArray:
    """An n-d array in device memory: (buffer, dtype, shape, strides, offset, format), strides and
    offset in elements, format an aclFormat (``FORMAT_ND`` unless given). Several arrays may share
    one buffer (views)."""

    def __init__(self, shape, dtype=float32, strides=None, offset=0, buffer=None, format=FORMAT_ND):
        self.dtype = as_dtype(dtype)
        self.format = int(format)
        self.shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in self.shape):
            raise ValueError(f"negative dimension in {self.shape}")
        self.strides = tuple(int(s) for s in strides) if strides is not None else contiguous_strides(self.shape)
        if len(self.strides) != len(self.shape):
            raise ValueError("strides and shape differ in length")
        self.offset = int(offset)
        if self.offset < 0:
            raise ValueError(f"negative offset {self.offset}")
        need = self._span_elems()
        if buffer is None:
            buffer = runtime.DeviceBuffer(need * self.dtype.itemsize)
        elif need * self.dtype.itemsize > buffer.nbytes:
            raise ValueError(f"view needs {need * self.dtype.itemsize} bytes, the buffer has {buffer.nbytes}")
        self.buffer = buffer

    def _span_elems(self):
        if 0 in self.shape:
            return self.offset
        return self.offset + 1 + sum((d - 1) * s for d, s in zip(self.shape, self.strides))

    # ---- construction ----
    @classmethod
    def empty(cls, shape, dtype=float32, format=FORMAT_ND):
        return cls(shape, dtype, format=format)

    @classmethod
    def zeros(cls, shape, dtype=float32, format=FORMAT_ND):
        a = cls(shape, dtype, format=format)
        a.buffer.memset(0)
        return a

    @classmethod
    def full(cls, shape, value, dtype=float32):
        d = as_dtype(dtype)
        return cls.from_numpy(np.full(shape, value, dtype=np.float32 if d is bfloat16 else d.np), dtype=d)

    @classmethod
    def from_numpy(cls, arr, dtype=None, format=FORMAT_ND):
        """Copy a numpy array to a new contiguous DeviceArray. @dtype converts; bfloat16 accepts
        float data (rounded to nearest even) or uint16 bit patterns (taken as is)."""
        arr = np.asarray(arr)
        d = as_dtype(dtype) if dtype is not None else as_dtype(arr.dtype)
        host = _to_storage_dtype(arr, d)
        shape = host.shape
        host = np.ascontiguousarray(host).reshape(shape)
        a = cls(shape, d, format=format)
        a.buffer.copy_from_host(host)
        return a

    @classmethod
    def from_storage(cls, storage, shape, strides=None, offset=0, dtype=None, format=FORMAT_ND):
        """Upload @storage (any array-like, flattened; converted to @dtype as in from_numpy) to a
        new buffer and return the view (@shape, @strides, @offset) of it; strides default to
        contiguous. The view may skip elements (gaps), overlap itself (stride 0) or start inside
        the storage; it must lie within it (ValueError otherwise)."""
        arr = np.asarray(storage)
        d = as_dtype(dtype) if dtype is not None else as_dtype(arr.dtype)
        host = np.ascontiguousarray(_to_storage_dtype(arr, d)).reshape(-1)
        buf = runtime.DeviceBuffer(host.nbytes)
        a = cls(shape, d, strides, offset, buf, format)
        buf.copy_from_host(host)
        return a

    # ---- properties ----
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def ptr(self):
        """Device address of element 0 of the view."""
        return self.buffer._live("DeviceArray") + self.offset * self.dtype.itemsize

    def is_contiguous(self):
        return self.size == 0 or all(st == cs for d, st, cs in zip(self.shape, self.strides,
                                                                  contiguous_strides(self.shape)) if d != 1)

    def __repr__(self):
        fmt = f", format={self.format}" if self.format != FORMAT_ND else ""
        return (f"DeviceArray(shape={self.shape}, dtype={self.dtype.name}, strides={self.strides}, "
                f"offset={self.offset}{fmt})")

    # ---- views ----
    def view(self, shape, strides=None, offset=None, format=FORMAT_ND):
        """Another view of the same buffer (format ND unless given; reshape and transpose give ND
        views too)."""
        return DeviceArray(shape, self.dtype, strides, self.offset if offset is None else offset, self.buffer,
                           format)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = list(shape)
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1]))
            shape[shape.index(-1)] = self.size // max(known, 1)
        if int(np.prod(shape)) != self.size:
            raise ValueError(f"cannot reshape {self.shape} to {tuple(shape)}")
        if not self.is_contiguous():
            raise ValueError("reshape needs a contiguous array (use .contiguous())")
        return DeviceArray(shape, self.dtype, None, self.offset, self.buffer)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = axes or tuple(reversed(range(self.ndim)))
        return DeviceArray([self.shape[a] for a in axes], self.dtype, [self.strides[a] for a in axes],
                           self.offset, self.buffer)

    @property
    def T(self):
        return self.transpose()

    # ---- host transfer ----
    def _storage_host_view(self):
        """numpy array aliasing the buffer's memory (host-addressable memory only); it keeps the
        buffer alive through its base."""
        n = self.buffer.nbytes
        raw = (ctypes.c_uint8 * max(n, 1)).from_address(self.buffer._live("DeviceArray.numpy"))
        raw._cannon_owner = self.buffer
        return np.ctypeslib.as_array(raw)[:n]

    def numpy(self, copy=False, stream=None):
        """The data as numpy (dtype = storage dtype: uint16 for bfloat16). Synchronises @stream
        (default: the device) first. A zero-copy view when allowed (see module doc), else a copy."""
        if stream is not None:
            stream.synchronize()
        else:
            runtime.synchronize()
        it = self.dtype.itemsize
        if self.size == 0:
            return np.zeros(self.shape, dtype=self.dtype.np)
        if not copy and runtime.host_addressable():
            st = self._storage_host_view()
            base = st[self.offset * it:].view(self.dtype.np) if len(st) > self.offset * it else st[:0].view(self.dtype.np)
            return np.lib.stride_tricks.as_strided(base, shape=self.shape, strides=[s * it for s in self.strides])
        span = self._span_elems()
        flat = self.buffer.copy_to_host(np.empty(span, dtype=self.dtype.np))
        v = np.lib.stride_tricks.as_strided(flat[self.offset:], shape=self.shape,
                                            strides=[s * it for s in self.strides])
        return np.array(v)

    def storage(self, stream=None):
        """A numpy copy of the whole buffer in the storage dtype (uint16 for bfloat16), gaps and
        elements outside the view included; element i is the one at offset i of the aclTensor
        descriptor. Synchronises @stream (default: the device) first."""
        if stream is not None:
            stream.synchronize()
        else:
            runtime.synchronize()
        return self.buffer.copy_to_host(np.empty(self.buffer.nbytes // self.dtype.itemsize, dtype=self.dtype.np))

    def to_float(self, stream=None):
        """A float32 (or float64 for float64) numpy copy; decodes bfloat16."""
        a = self.numpy(copy=True, stream=stream)
        if self.dtype is bfloat16:
            return bf16_to_float(a)
        return a.astype(np.float64 if self.dtype is float64 else np.float32)

    def copy_from_numpy(self, arr):
        """Overwrite this (contiguous) array with @arr (same number of elements)."""
        arr = np.asarray(arr)
        if self.dtype is bfloat16 and arr.dtype != np.uint16:
            arr = float_to_bf16(arr)
        arr = np.ascontiguousarray(arr, dtype=self.dtype.np)
        if arr.size != self.size:
            raise ValueError(f"{arr.size} elements for an array of {self.size}")
        if not self.is_contiguous():
            raise ValueError("copy_from_numpy needs a contiguous destination")
        runtime.synchronize()
        self.buffer.copy_from_host(arr, self.offset * self.dtype.itemsize)

    def fill_zero(self):
        if not self.is_contiguous():
            raise ValueError("fill_zero needs a contiguous array")
        self.buffer.memset(0, self.nbytes, self.offset * self.dtype.itemsize)

    def free(self):
        """Free the underlying buffer (all views of it become invalid)."""
        self.buffer.free()

    # ---- aclTensor descriptor ----
    def _acl_tensor(self, fmt=None):
        """A new aclTensor descriptor (caller destroys it); format @fmt, default the array's."""
        fmt = self.format if fmt is None else fmt
        n = self.ndim
        dims = (ctypes.c_int64 * max(n, 1))(*self.shape)
        st = (ctypes.c_int64 * max(n, 1))(*self.strides)
        storage = self.buffer.nbytes // self.dtype.itemsize
        sd = (ctypes.c_int64 * 1)(storage)
        h = _lib.nnop().aclCreateTensor(dims, n, self.dtype.acl, st, self.offset, fmt, sd, 1,
                                        self.buffer._live("aclCreateTensor"))
        if not h:
            raise AclError(161001, _lib.recent_error(), "aclCreateTensor")
        return h


def _to_storage_dtype(arr, d):
    """numpy array of d's storage dtype; bfloat16 keeps uint16 bit patterns, rounds anything else."""
    if d is bfloat16:
        return arr if arr.dtype == np.uint16 else float_to_bf16(arr)
    return arr.astype(d.np, copy=False)


def from_numpy(arr, dtype=None, format=FORMAT_ND):
    return DeviceArray.from_numpy(arr, dtype, format)


def from_storage(storage, shape, strides=None, offset=0, dtype=None, format=FORMAT_ND):
    return DeviceArray.from_storage(storage, shape, strides, offset, dtype, format)


def empty(shape, dtype=float32, format=FORMAT_ND):
    return DeviceArray(shape, dtype, format=format)


def zeros(shape, dtype=float32, format=FORMAT_ND):
    return DeviceArray.zeros(shape, dtype, format)
