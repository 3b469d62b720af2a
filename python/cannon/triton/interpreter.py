"""The interpreter's machine: the memory of a launch (the tensors passed in), gathers and scatters
through element addresses, and the per-launch state (grid, program id, bounds checking).

A pointer value is a byte address (int64). Every pointer argument registers the storage it lies in
(a torch tensor's whole storage, a cannon DeviceArray's buffer), and loads and stores index numpy
views of those storages: only unmasked lanes are touched. An address outside every registered
storage is read or written directly (as a compiled kernel would) unless bounds checking is on
(``CANNON_TRITON_BOUNDS=1``), which raises OutOfBoundsError naming the kernel line and the lane.
"""
import ctypes
import os
import sys

import numpy as np

from .errors import OutOfBoundsError


def np_dtype(t):
    """The numpy dtype the interpreter computes a Triton dtype in (bf16 values live in float32,
    rounded to bf16 after every operation; pointers are int64 byte addresses)."""
    if t.is_ptr():
        return np.dtype(np.int64)
    return _NP[t.name]


def memory_dtype(t):
    """The numpy dtype of an element of type t in memory (int1 is one byte; bf16 is its bit pattern)."""
    if t.is_ptr():
        return np.dtype(np.int64)
    return _MEM[t.name]


_NP = {"int1": np.dtype(np.bool_), "int8": np.dtype(np.int8), "int16": np.dtype(np.int16),
       "int32": np.dtype(np.int32), "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8),
       "uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32), "uint64": np.dtype(np.uint64),
       "fp16": np.dtype(np.float16), "bf16": np.dtype(np.float32), "fp32": np.dtype(np.float32),
       "fp64": np.dtype(np.float64)}
_MEM = dict(_NP, int1=np.dtype(np.uint8), bf16=np.dtype(np.uint16))


def round_bf16(x):
    """float values -> float32 values representable in bf16, rounding to nearest even (NaN kept)."""
    f0 = np.asarray(x, dtype=np.float32)
    f = np.ascontiguousarray(f0.reshape(-1))
    u = f.view(np.uint32).astype(np.uint64)
    s16 = np.uint64(16)
    r = (((u + np.uint64(0x7FFF) + ((u >> s16) & np.uint64(1))) >> s16) << s16).astype(np.uint32)
    out = r.view(np.float32)
    nan = np.isnan(f)
    if nan.any():
        out = np.where(nan, np.float32("nan"), out)
    return out.reshape(f0.shape)


def bf16_bits(x):
    """float32 bf16-representable values -> uint16 bit patterns."""
    f = np.ascontiguousarray(round_bf16(x), dtype=np.float32)
    return (f.reshape(-1).view(np.uint32) >> np.uint32(16)).astype(np.uint16).reshape(f.shape)


def bits_bf16(b):
    b = np.asarray(b, dtype=np.uint16)
    return (b.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)


def to_memory(values, t):
    """Computation values of type t -> their memory representation."""
    if t.is_bf16():
        return bf16_bits(values)
    if t.is_int1():
        return np.asarray(values).astype(np.uint8)
    return np.asarray(values).astype(memory_dtype(t), copy=False)


def from_memory(raw, t):
    if t.is_bf16():
        return bits_bf16(raw)
    if t.is_int1():
        return np.asarray(raw) != 0
    return np.asarray(raw)


class Buffer:
    """A registered storage: [base, base + nbytes), viewed as bytes."""

    def __init__(self, base, nbytes, name):
        self.base, self.nbytes, self.name = int(base), int(nbytes), name
        self.end = self.base + self.nbytes
        self.bytes = np.ctypeslib.as_array((ctypes.c_uint8 * max(self.nbytes, 1)).from_address(self.base)) \
            if self.nbytes > 0 else np.zeros(0, np.uint8)
        self._typed = {}

    def typed(self, mdt):
        v = self._typed.get(mdt)
        if v is None:
            n = self.nbytes // mdt.itemsize
            v = self.bytes[:n * mdt.itemsize].view(mdt) if self.base % mdt.itemsize == 0 else None
            self._typed[mdt] = v
        return v


def storage_of(obj):
    """(base address, nbytes) of the storage a pointer argument lies in; nbytes None when unknown."""
    if hasattr(obj, "data_ptr") and callable(obj.data_ptr):
        ptr = int(obj.data_ptr())
        try:
            es = obj.element_size()
            try:
                st = obj.untyped_storage()
                return int(st.data_ptr()), int(st.nbytes())
            except AttributeError:
                st = obj.storage()
                return int(st.data_ptr()), int(st.size()) * es
        except Exception:  # an object that only looks like a tensor
            try:
                return ptr, int(obj.numel()) * int(obj.element_size())
            except Exception:
                return ptr, None
    buf = getattr(obj, "buffer", None)
    if buf is not None and hasattr(obj, "ptr"):
        base = obj.ptr - obj.offset * obj.dtype.itemsize
        return base, int(buf.nbytes)
    return int(obj.ptr), None


def pointer_address(obj):
    if hasattr(obj, "data_ptr") and callable(obj.data_ptr):
        return int(obj.data_ptr())
    return int(obj.ptr)


class Launch:
    """The state of one launch: grid, current program id, registered storages, options."""

    def __init__(self, grid, codes, bounds):
        self.grid = grid
        self.pid = (0, 0, 0)
        self.buffers = []
        self.codes = codes
        self.bounds = bounds

    def register(self, obj, name):
        base, nbytes = storage_of(obj)
        if nbytes is None:
            return
        for b in self.buffers:
            if b.base == base and b.nbytes == nbytes:
                return
        self.buffers.append(Buffer(base, nbytes, name))

    # ---- where in the kernel are we (for messages) ----
    def location(self):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code in self.codes:
                return f.f_code.co_filename, f.f_lineno
            f = f.f_back
        return None, None

    def _fail(self, kind, addr, lane, t):
        fn, line = self.location()
        src = ""
        if fn and line:
            import linecache
            src = linecache.getline(fn, line).strip()
        where = f"{fn}:{line}: {src}" if fn else "kernel"
        names = ", ".join(f"{b.name} [{b.base:#x}, {b.end:#x})" for b in self.buffers) or "none"
        raise OutOfBoundsError(f"{where}\nunmasked {kind} of {t} at address {addr:#x} (lane {lane}, program "
                               f"{self.pid}) lies outside every tensor passed to the kernel ({names})")

    # ---- gathers and scatters over unmasked lanes ----
    def _plan(self, addrs, t, kind):
        """Groups the lanes of flat address array addrs by buffer: yields (buffer or None, lane indices)."""
        size = memory_dtype(t).itemsize
        if addrs.size:
            lo, hi = int(addrs.min()), int(addrs.max())
            for b in self.buffers:  # the common case: every lane inside one storage
                if lo >= b.base and hi + size <= b.end:
                    return [(b, slice(None))]
        left = np.arange(addrs.size)
        out = []
        for b in self.buffers:
            if left.size == 0:
                break
            a = addrs[left]
            inside = (a >= b.base) & (a + size <= b.end)
            if inside.any():
                out.append((b, left[inside]))
                left = left[~inside]
        if left.size:
            if self.bounds:
                self._fail(kind, int(addrs[left[0]]), int(left[0]), t)
            out.append((None, left))
        return out

    def gather(self, addrs, t):
        """Loads elements of type t at flat byte addresses addrs (computation dtype result)."""
        mdt = memory_dtype(t)
        raw = np.empty(addrs.size, mdt)
        for b, lanes in self._plan(addrs, t, "load"):
            off = addrs[lanes] - (b.base if b else 0)
            if b is not None:
                tv = b.typed(mdt)
                if tv is not None and not (off % mdt.itemsize).any():
                    raw[lanes] = tv[off // mdt.itemsize]
                else:
                    idx = off[:, None] + np.arange(mdt.itemsize)
                    raw[lanes] = b.bytes[idx].reshape(-1).view(mdt)
            else:
                for i, a in zip(lanes, addrs[lanes]):
                    raw[i] = np.frombuffer(ctypes.string_at(int(a), mdt.itemsize), mdt)[0]
        return from_memory(raw, t)

    def scatter(self, addrs, values, t):
        """Stores values (computation dtype, flat, same size as addrs) of type t; later lanes win."""
        mdt = memory_dtype(t)
        raw = np.ascontiguousarray(to_memory(values, t), dtype=mdt).reshape(-1)
        for b, lanes in self._plan(addrs, t, "store"):
            off = addrs[lanes] - (b.base if b else 0)
            if b is not None:
                tv = b.typed(mdt)
                if tv is not None and not (off % mdt.itemsize).any():
                    tv[off // mdt.itemsize] = raw[lanes]
                else:
                    idx = off[:, None] + np.arange(mdt.itemsize)
                    b.bytes[idx.reshape(-1)] = raw[lanes].view(np.uint8)
            else:
                for i, a in zip(lanes, addrs[lanes]):
                    ctypes.memmove(int(a), raw[i:i + 1].tobytes(), mdt.itemsize)


_current = []


def current():
    if not _current:
        raise RuntimeError("triton.language functions can only be called inside a @triton.jit kernel "
                           "(did you forget the decorator?)")
    return _current[-1]


def push(launch):
    _current.append(launch)


def pop():
    _current.pop()


def active():
    return bool(_current)


def bounds_enabled():
    return os.environ.get("CANNON_TRITON_BOUNDS", "0") not in ("", "0", "false", "no")


def interpret_enabled():
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0", "false", "no", "False")
