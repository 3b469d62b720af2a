"""Locating and loading cannon's C libraries, prototypes, and the error type.

Search order for the directory holding libascendcl.so, libnnopbase.so, libopapi.so, libhccl.so:
  1. $CANNON_LIB_DIR;
  2. the build next to this package when it runs from the source tree (<repo>/build/lib);
  3. the system loader path (ld.so.cache, LD_LIBRARY_PATH).
Libraries are loaded lazily, on first use, with RTLD_GLOBAL (libopapi needs libnnopbase's and
libascendcl's symbols), so ``import cannon`` never fails for lack of them.
"""
import ctypes
import os
import threading

_c_i64p = ctypes.POINTER(ctypes.c_int64)
_vp = ctypes.c_void_p

_LIBS = ("ascendcl", "nnopbase", "opapi", "hccl")
_loaded = {}
_lock = threading.RLock()


class AclError(RuntimeError):
    """A failed ACL / aclnn / HCCL call: ``code`` is the status, ``message`` the text of
    aclGetRecentErrMsg() (may be empty), ``func`` the C function that failed."""

    def __init__(self, code, message="", func=None):
        self.code = int(code)
        self.message = message or ""
        self.func = func
        where = f"{func}: " if func else ""
        super().__init__(f"{where}error {self.code}" + (f": {self.message}" if self.message else ""))


class OpUnavailableError(NotImplementedError):
    """The loaded libopapi.so does not export the requested aclnn function."""


class LibraryNotFoundError(OSError):
    pass


def _repo_build_dir():
    pkg = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(pkg)), "build", "lib")


def lib_dir():
    """The directory libraries are (or would be) loaded from, or None for the loader path."""
    d = os.environ.get("CANNON_LIB_DIR")
    if d:
        return d
    b = _repo_build_dir()
    if os.path.exists(os.path.join(b, "libascendcl.so")):
        return b
    return None


def load(name):
    """The ctypes.CDLL of lib<name>.so (name in ascendcl, nnopbase, opapi, hccl)."""
    with _lock:
        lib = _loaded.get(name)
        if lib is not None:
            return lib
        if name != "ascendcl":  # dependency order
            load("ascendcl")
            if name in ("opapi",):
                load("nnopbase")
        d = lib_dir()
        fname = f"lib{name}.so"
        path = os.path.join(d, fname) if d else fname
        if d and not os.path.exists(path):
            src = "CANNON_LIB_DIR" if os.environ.get("CANNON_LIB_DIR") else "the source-tree build"
            raise LibraryNotFoundError(f"{path} does not exist ({src} = {d})")
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise LibraryNotFoundError(
                f"cannot load {fname}: {e}; set CANNON_LIB_DIR to the directory holding cannon's "
                f"libraries (e.g. <build>/lib)") from None
        lib._cannon_path = path
        _PROTO.get(name, lambda l: None)(lib)
        _loaded[name] = lib
        return lib


def acl():
    return load("ascendcl")


def nnop():
    return load("nnopbase")


def opapi():
    return load("opapi")


def hccl():
    return load("hccl")


def _proto_acl(l):
    l.aclGetRecentErrMsg.restype = ctypes.c_char_p
    l.aclGetRecentErrMsg.argtypes = []
    i = ctypes.c_int
    sig = {
        "aclInit": [ctypes.c_char_p], "aclFinalize": [], "aclFinalizeReference": [ctypes.POINTER(ctypes.c_uint64)],
        "aclrtSetDevice": [ctypes.c_int32], "aclrtResetDevice": [ctypes.c_int32],
        "aclrtGetDevice": [ctypes.POINTER(ctypes.c_int32)],
        "aclrtGetDeviceCount": [ctypes.POINTER(ctypes.c_uint32)],
        "aclrtCreateStream": [ctypes.POINTER(_vp)], "aclrtDestroyStream": [_vp],
        "aclrtSynchronizeStream": [_vp], "aclrtSynchronizeStreamWithTimeout": [_vp, ctypes.c_int32],
        "aclrtSynchronizeDevice": [],
        "aclrtStreamWaitEvent": [_vp, _vp],
        "aclrtCreateEvent": [ctypes.POINTER(_vp)], "aclrtDestroyEvent": [_vp],
        "aclrtRecordEvent": [_vp, _vp], "aclrtSynchronizeEvent": [_vp],
        "aclrtQueryEventStatus": [_vp, ctypes.POINTER(i)],
        "aclrtEventElapsedTime": [ctypes.POINTER(ctypes.c_float), _vp, _vp],
        "aclrtMalloc": [ctypes.POINTER(_vp), ctypes.c_size_t, i], "aclrtFree": [_vp],
        "aclrtMemcpy": [_vp, ctypes.c_size_t, _vp, ctypes.c_size_t, i],
        "aclrtMemcpyAsync": [_vp, ctypes.c_size_t, _vp, ctypes.c_size_t, i, _vp],
        "aclrtMemset": [_vp, ctypes.c_size_t, ctypes.c_int32, ctypes.c_size_t],
        "aclrtMemsetAsync": [_vp, ctypes.c_size_t, ctypes.c_int32, ctypes.c_size_t, _vp],
    }
    for n, a in sig.items():
        f = getattr(l, n, None)
        if f is not None:
            f.restype = i
            f.argtypes = a
    if hasattr(l, "aclrtGetSocName"):
        l.aclrtGetSocName.restype = ctypes.c_char_p
        l.aclrtGetSocName.argtypes = []


def _proto_nnop(l):
    l.aclCreateTensor.restype = _vp
    l.aclCreateTensor.argtypes = [_c_i64p, ctypes.c_uint64, ctypes.c_int, _c_i64p, ctypes.c_int64,
                                  ctypes.c_int, _c_i64p, ctypes.c_uint64, _vp]
    l.aclCreateScalar.restype = _vp
    l.aclCreateScalar.argtypes = [_vp, ctypes.c_int]
    l.aclCreateIntArray.restype = _vp
    l.aclCreateIntArray.argtypes = [_c_i64p, ctypes.c_uint64]
    l.aclCreateBoolArray.restype = _vp
    l.aclCreateBoolArray.argtypes = [ctypes.POINTER(ctypes.c_bool), ctypes.c_uint64]
    l.aclCreateTensorList.restype = _vp
    l.aclCreateTensorList.argtypes = [ctypes.POINTER(_vp), ctypes.c_uint64]
    for n in ("aclDestroyTensor", "aclDestroyScalar", "aclDestroyIntArray", "aclDestroyBoolArray",
              "aclDestroyTensorList", "aclDestroyAclOpExecutor"):
        getattr(l, n).restype = ctypes.c_int
        getattr(l, n).argtypes = [_vp]


def _proto_hccl(l):
    i, u32, u64 = ctypes.c_int, ctypes.c_uint32, ctypes.c_uint64
    sig = {
        "HcclGetRootInfo": [_vp], "HcclCommInitRootInfo": [u32, _vp, u32, ctypes.POINTER(_vp)],
        "HcclCommDestroy": [_vp], "HcclGetRankSize": [_vp, ctypes.POINTER(u32)],
        "HcclGetRankId": [_vp, ctypes.POINTER(u32)], "HcclGetCommAsyncError": [_vp, ctypes.POINTER(i)],
        "HcclBarrier": [_vp, _vp],
        "HcclAllReduce": [_vp, _vp, u64, i, i, _vp, _vp], "HcclBroadcast": [_vp, u64, i, u32, _vp, _vp],
        "HcclReduceScatter": [_vp, _vp, u64, i, i, _vp, _vp], "HcclAllGather": [_vp, _vp, u64, i, _vp, _vp],
    }
    for n, a in sig.items():
        f = getattr(l, n)
        f.restype = i
        f.argtypes = a
    l.HcclGetErrorString.restype = ctypes.c_char_p
    l.HcclGetErrorString.argtypes = [i]


_PROTO = {"ascendcl": _proto_acl, "nnopbase": _proto_nnop, "hccl": _proto_hccl}


def recent_error():
    """aclGetRecentErrMsg() text ('' when none); reading it clears it."""
    m = acl().aclGetRecentErrMsg()
    return m.decode(errors="replace") if m else ""


def check(rc, func):
    if rc != 0:
        raise AclError(rc, recent_error(), func)
    return rc


def call(func, *args):
    """acl().<func>(*args), raising AclError on a non-zero status."""
    return check(getattr(acl(), func)(*args), func)
