"""ACL runtime: initialisation, devices, streams, events and device memory.

Every failing call raises :class:`cannon.AclError` (code + aclGetRecentErrMsg text).

Initialisation is reference counted like CANN's aclInit/aclFinalizeReference: ``init()`` takes a
reference (another component that already initialised the runtime is fine), ``finalize()``
drops one; the runtime is torn down when the last reference goes. Functions that need the runtime
(allocations, streams, ...) call ``ensure_initialized()``, which takes one reference for the
process on first use and selects device ``$DEVICE_ID`` (default 0) for the calling thread if the
thread has not selected one.
"""
import ctypes
import os
import threading

from . import _lib
from ._lib import AclError, check

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_REPEAT_FINALIZE = 100037
ACL_ERROR_RT_PARAM_INVALID = 107000
ACL_ERROR_RT_INVALID_DEVICEID = 107001

MEMCPY_HOST_TO_HOST, MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST, MEMCPY_DEVICE_TO_DEVICE = 0, 1, 2, 3

_state_lock = threading.RLock()
_refs = 0            # references this package holds on aclInit
_generation = 0      # bumped when the runtime is torn down (stale handles are then not freed)
_tls = threading.local()


def _acl():
    return _lib.acl()


# ---- life cycle ------------------------------------------------------------------------------

def init(config=None):
    """Take a reference on the ACL runtime (aclInit). @config: optional JSON config path."""
    global _refs
    with _state_lock:
        rc = _acl().aclInit(config.encode() if config else None)
        if rc == ACL_ERROR_REPEAT_INITIALIZE:
            _lib.recent_error()  # benign: someone else initialised first; a reference was taken
        elif rc != 0:
            raise AclError(rc, _lib.recent_error(), "aclInit")
        _refs += 1


def finalize():
    """Drop one reference (aclFinalizeReference); returns the references left process-wide."""
    global _refs, _generation
    with _state_lock:
        left = ctypes.c_uint64(0)
        check(_acl().aclFinalizeReference(ctypes.byref(left)), "aclFinalizeReference")
        _refs = max(_refs - 1, 0)
        if left.value == 0:
            _generation += 1
            _tls.__dict__.clear()
        return left.value


def is_initialized():
    return _refs > 0


def generation():
    return _generation


def ensure_initialized():
    """Initialise on first use and make sure the calling thread has a device selected."""
    global _refs
    with _state_lock:
        if _refs == 0:
            init()
    if getattr(_tls, "gen", None) != _generation or getattr(_tls, "device", None) is None:
        set_device(int(os.environ.get("DEVICE_ID", "0") or 0))


class Session:
    """``with cannon.runtime.Session(device=0) as s:`` — init + set_device on entry; on exit
    synchronise the device, reset it and drop the reference. ``s.stream`` is a fresh Stream."""

    def __init__(self, device=0, config=None):
        self.device = device
        self.config = config
        self.stream = None

    def __enter__(self):
        init(self.config)
        try:
            set_device(self.device)
            self.stream = Stream()
        except BaseException:
            finalize()
            raise
        return self

    def __exit__(self, *exc):
        try:
            if self.stream is not None:
                self.stream.destroy()
            reset_device(self.device)
        finally:
            finalize()
        return False


# ---- devices ---------------------------------------------------------------------------------

def device_count():
    with _state_lock:
        if _refs == 0:
            init()
    n = ctypes.c_uint32(0)
    check(_acl().aclrtGetDeviceCount(ctypes.byref(n)), "aclrtGetDeviceCount")
    return n.value


def set_device(device_id):
    """aclrtSetDevice for the calling thread (bad id → AclError 107001)."""
    with _state_lock:
        if _refs == 0:
            init()
    check(_acl().aclrtSetDevice(int(device_id)), "aclrtSetDevice")
    _tls.device = int(device_id)
    _tls.gen = _generation


def reset_device(device_id=None):
    if device_id is None:
        device_id = current_device()
    check(_acl().aclrtResetDevice(int(device_id)), "aclrtResetDevice")
    if getattr(_tls, "device", None) == int(device_id):
        _tls.device = None
        _tls.stream = None


def current_device():
    """The device this thread selected through this package (None when none)."""
    return getattr(_tls, "device", None) if getattr(_tls, "gen", None) == _generation else None


def synchronize():
    """Wait for all work of the current device (aclrtSynchronizeDevice) and release the resources
    that ops left pending on this thread's default stream."""
    ensure_initialized()
    check(_acl().aclrtSynchronizeDevice(), "aclrtSynchronizeDevice")
    s = getattr(_tls, "stream", None)
    if s is not None:
        s._release_pending()


def soc_name():
    f = getattr(_acl(), "aclrtGetSocName", None)
    v = f() if f else None
    return v.decode() if v else ""


def host_addressable():
    """True when device memory is plain host memory (cannon's CPU driver), so DeviceArray.numpy()
    can return zero-copy views. Override with CANNON_PY_ZERO_COPY=0/1."""
    v = os.environ.get("CANNON_PY_ZERO_COPY")
    if v is not None:
        return v not in ("0", "", "false", "no")
    global _host_addressable
    if _host_addressable is None:
        _host_addressable = _probe_host_addressable()
    return _host_addressable


_host_addressable = None


class _ShareInfo(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("device_id", ctypes.c_int32), ("offset", ctypes.c_uint64),
                ("alloc_offset", ctypes.c_uint64), ("alloc_size", ctypes.c_uint64), ("arena_size", ctypes.c_uint64)]


def _probe_host_addressable():
    """Device memory is host memory when the driver's arena is a memfd this process maps (the CPU
    driver): cannonMemGetShareInfo describes a small allocation. A driver whose memory is not
    host memory cannot share it that way."""
    ensure_initialized()
    lib = _acl()
    f = getattr(lib, "cannonMemGetShareInfo", None)
    if f is None:
        return False
    p = ctypes.c_void_p()
    if lib.aclrtMalloc(ctypes.byref(p), ctypes.c_size_t(64), 0) != 0:
        return False
    try:
        info = _ShareInfo()
        f.argtypes = [ctypes.c_void_p, ctypes.POINTER(_ShareInfo)]
        return f(p, ctypes.byref(info)) == 0 and info.fd >= 0
    finally:
        lib.aclrtFree(p)


# ---- streams ---------------------------------------------------------------------------------

class Stream:
    """An aclrtStream. Context manager: synchronises and destroys on exit.

    Ops launched on a stream may keep workspace buffers and descriptors alive until the next
    ``synchronize()`` of that stream (they are released then)."""

    def __init__(self):
        ensure_initialized()
        h = ctypes.c_void_p()
        check(_acl().aclrtCreateStream(ctypes.byref(h)), "aclrtCreateStream")
        self.handle = h.value
        self._gen = _generation
        self._pending = []

    def _keep(self, *objs):
        self._pending.extend(objs)

    def _release_pending(self):
        p, self._pending = self._pending, []
        for o in p:
            o.release()

    def synchronize(self, timeout_ms=None):
        if not self.handle:
            raise AclError(ACL_ERROR_INVALID_PARAM, "the stream was destroyed", "aclrtSynchronizeStream")
        if timeout_ms is None:
            check(_acl().aclrtSynchronizeStream(self.handle), "aclrtSynchronizeStream")
        else:
            check(_acl().aclrtSynchronizeStreamWithTimeout(self.handle, int(timeout_ms)),
                  "aclrtSynchronizeStreamWithTimeout")
        self._release_pending()

    def wait_event(self, event):
        check(_acl().aclrtStreamWaitEvent(self.handle, event.handle), "aclrtStreamWaitEvent")

    def destroy(self):
        if self.handle and self._gen == _generation:
            try:
                self.synchronize()
            finally:
                h, self.handle = self.handle, None
                check(_acl().aclrtDestroyStream(h), "aclrtDestroyStream")
        self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def __del__(self):
        try:
            if self.handle and self._gen == _generation and _refs > 0:
                self._release_pending()
                _acl().aclrtDestroyStream(self.handle)
        except Exception:
            pass


def current_stream():
    """This thread's default Stream (created on first use)."""
    ensure_initialized()
    s = getattr(_tls, "stream", None)
    if s is None or s._gen != _generation or not s.handle:
        s = Stream()
        _tls.stream = s
    return s


def _stream(stream):
    return stream if stream is not None else current_stream()


# ---- events ----------------------------------------------------------------------------------

class Event:
    """An aclrtEvent: record on a stream, synchronize, elapsed time between two events."""

    def __init__(self):
        ensure_initialized()
        h = ctypes.c_void_p()
        check(_acl().aclrtCreateEvent(ctypes.byref(h)), "aclrtCreateEvent")
        self.handle = h.value
        self._gen = _generation

    def record(self, stream=None):
        check(_acl().aclrtRecordEvent(self.handle, _stream(stream).handle), "aclrtRecordEvent")
        return self

    def synchronize(self):
        check(_acl().aclrtSynchronizeEvent(self.handle), "aclrtSynchronizeEvent")

    def query(self):
        """True once the recorded work completed."""
        st = ctypes.c_int(0)
        check(_acl().aclrtQueryEventStatus(self.handle, ctypes.byref(st)), "aclrtQueryEventStatus")
        return st.value == 1  # ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_ms(self, end):
        """Milliseconds from this event to @end (both recorded and completed)."""
        ms = ctypes.c_float(0)
        check(_acl().aclrtEventElapsedTime(ctypes.byref(ms), self.handle, end.handle), "aclrtEventElapsedTime")
        return ms.value

    def destroy(self):
        if self.handle and self._gen == _generation:
            h, self.handle = self.handle, None
            check(_acl().aclrtDestroyEvent(h), "aclrtDestroyEvent")
        self.handle = None

    def __del__(self):
        try:
            if self.handle and self._gen == _generation and _refs > 0:
                _acl().aclrtDestroyEvent(self.handle)
        except Exception:
            pass


def elapsed_ms(start, end):
    return start.elapsed_ms(end)


# ---- memory ----------------------------------------------------------------------------------

class DeviceBuffer:
    """Raw device memory (aclrtMalloc). ``free()`` twice raises AclError (ACL_ERROR_INVALID_PARAM,
    raised by this package so that a stale address is never handed to aclrtFree). Freed
    automatically when garbage collected (unless the runtime was torn down meanwhile)."""

    def __init__(self, nbytes, policy=0):
        ensure_initialized()
        self.nbytes = int(nbytes)
        if self.nbytes < 0:
            raise ValueError("negative size")
        p = ctypes.c_void_p()
        check(_acl().aclrtMalloc(ctypes.byref(p), ctypes.c_size_t(max(self.nbytes, 1)), int(policy)), "aclrtMalloc")
        self.ptr = p.value
        self._gen = _generation

    @property
    def freed(self):
        return self.ptr is None

    def _live(self, what):
        if self.ptr is None:
            raise AclError(ACL_ERROR_INVALID_PARAM, "the DeviceBuffer was already freed", what)
        if self._gen != _generation:
            raise AclError(ACL_ERROR_INVALID_PARAM, "the DeviceBuffer belongs to a finalized runtime", what)
        return self.ptr

    def free(self):
        ptr = self._live("aclrtFree")
        self.ptr = None
        check(_acl().aclrtFree(ptr), "aclrtFree")

    def release(self):  # Stream pending-list protocol: free if still allocated
        if self.ptr is not None and self._gen == _generation:
            self.free()

    def __del__(self):
        try:
            if self.ptr is not None and self._gen == _generation and _refs > 0:
                _acl().aclrtFree(self.ptr)
                self.ptr = None
        except Exception:
            pass

    def copy_from_host(self, src, offset=0):
        """Synchronous copy of a numpy array's bytes (made contiguous) to byte @offset."""
        import numpy as np
        a = np.ascontiguousarray(src)
        ptr = self._live("aclrtMemcpy")
        if offset < 0 or offset + a.nbytes > self.nbytes:
            raise ValueError(f"copy of {a.nbytes} bytes at offset {offset} exceeds the buffer ({self.nbytes} bytes)")
        if a.nbytes:
            check(_acl().aclrtMemcpy(ptr + offset, self.nbytes - offset, a.ctypes.data, a.nbytes,
                                     MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")

    def copy_to_host(self, dst, offset=0):
        """Synchronous copy into the (C-contiguous, writable) numpy array @dst; returns it."""
        ptr = self._live("aclrtMemcpy")
        if not dst.flags.c_contiguous or not dst.flags.writeable:
            raise ValueError("destination must be a writable C-contiguous array")
        if offset < 0 or offset + dst.nbytes > self.nbytes:
            raise ValueError(f"copy of {dst.nbytes} bytes at offset {offset} exceeds the buffer ({self.nbytes} bytes)")
        if dst.nbytes:
            check(_acl().aclrtMemcpy(dst.ctypes.data, dst.nbytes, ptr + offset, dst.nbytes,
                                     MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
        return dst

    def copy_from(self, other, nbytes=None):
        """Device-to-device copy from another DeviceBuffer."""
        n = min(self.nbytes, other.nbytes) if nbytes is None else int(nbytes)
        if n:
            check(_acl().aclrtMemcpy(self._live("aclrtMemcpy"), self.nbytes, other._live("aclrtMemcpy"), n,
                                     MEMCPY_DEVICE_TO_DEVICE), "aclrtMemcpy")

    def to_numpy(self, dtype="uint8", count=None):
        import numpy as np
        dt = np.dtype(dtype)
        if count is None:
            count = self.nbytes // dt.itemsize
        return self.copy_to_host(np.empty(count, dtype=dt))

    def memset(self, value, count=None, offset=0):
        """Set @count bytes (default: all) from byte @offset to the byte @value (aclrtMemset)."""
        ptr = self._live("aclrtMemset")
        count = self.nbytes - offset if count is None else int(count)
        check(_acl().aclrtMemset(ptr + offset, self.nbytes - offset, int(value), count), "aclrtMemset")

    def __repr__(self):
        state = "freed" if self.ptr is None else hex(self.ptr)
        return f"DeviceBuffer({self.nbytes} bytes at {state})"


def malloc(nbytes):
    return DeviceBuffer(nbytes)
