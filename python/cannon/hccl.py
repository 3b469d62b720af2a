"""HCCL collectives on DeviceArrays.

``Communicator.from_env()`` joins the job a launcher (``cannonrun``, or any launcher setting the
same variables) started: rank from RANK_ID (or RANK), size from RANK_SIZE (or WORLD_SIZE), device
from DEVICE_ID (or ASCEND_DEVICE_ID, else LOCAL_RANK, else the rank), and the HcclRootInfo shared
through the file named by CANNON_HCCL_ROOT_INFO_FILE (tools/cannonrun/README.md: an existing file
is read; otherwise rank 0 calls HcclGetRootInfo and publishes it atomically and the others wait).

Collectives are enqueued on a stream (default: this thread's stream) like every HCCL call; an error
(e.g. a peer that died or never calls the collective: detected within HCCL_EXEC_TIMEOUT seconds)
surfaces as an AclError/HcclError from the call or from the stream's synchronize()/numpy().
"""
import ctypes
import os
import time

from . import _lib, runtime
from ._lib import AclError
from .array import DeviceArray

ROOT_INFO_BYTES = 4108
_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}


class HcclError(AclError):
    """A failed HCCL call: ``code`` is the HcclResult."""


class LaunchEnvError(RuntimeError):
    """The launcher's environment is missing a variable or is inconsistent."""


def _check(rc, func):
    if rc != 0:
        l = _lib.hccl()
        name = l.HcclGetErrorString(rc)
        detail = _lib.recent_error()
        msg = (name.decode() if name else "") + (f": {detail}" if detail else "")
        raise HcclError(rc, msg, func)


def _env_int(env, name, lo=0, hi=None):
    v = env.get(name)
    try:
        i = int(v)
    except (TypeError, ValueError):
        raise LaunchEnvError(f"{name}={v!r} is not an integer") from None
    if i < lo or (hi is not None and i > hi):
        raise LaunchEnvError(f"{name}={i} is out of range [{lo}, {hi if hi is not None else '...'}]")
    return i


def read_launch_env(env=None):
    """(rank, size, device_id, root_info_file) from @env (default os.environ). A single process
    without launcher variables is rank 0 of 1."""
    env = os.environ if env is None else env
    rank = size = None
    for rv, sv in (("RANK_ID", "RANK_SIZE"), ("RANK", "WORLD_SIZE")):
        if rv in env or sv in env:
            if rv not in env:
                raise LaunchEnvError(f"{sv} is set but {rv} is missing")
            if sv not in env:
                raise LaunchEnvError(f"{rv} is set but {sv} is missing")
            size = _env_int(env, sv, 1)
            rank = _env_int(env, rv, 0)
            if rank >= size:
                raise LaunchEnvError(f"{rv}={rank} is not below {sv}={size}")
            break
    if rank is None:
        rank, size = 0, 1
    # a torch-style pair set alongside the CANN pair must agree with it
    if "RANK_ID" in env and "RANK" in env and env["RANK"].strip() != env["RANK_ID"].strip():
        raise LaunchEnvError(f"RANK_ID={env['RANK_ID']} disagrees with RANK={env['RANK']}")
    if "RANK_SIZE" in env and "WORLD_SIZE" in env and env["WORLD_SIZE"].strip() != env["RANK_SIZE"].strip():
        raise LaunchEnvError(f"RANK_SIZE={env['RANK_SIZE']} disagrees with WORLD_SIZE={env['WORLD_SIZE']}")
    if "DEVICE_ID" in env:
        dev = _env_int(env, "DEVICE_ID")
        if "ASCEND_DEVICE_ID" in env and _env_int(env, "ASCEND_DEVICE_ID") != dev:
            raise LaunchEnvError(f"DEVICE_ID={dev} disagrees with ASCEND_DEVICE_ID={env['ASCEND_DEVICE_ID']}")
    elif "ASCEND_DEVICE_ID" in env:
        dev = _env_int(env, "ASCEND_DEVICE_ID")
    elif "LOCAL_RANK" in env:
        dev = _env_int(env, "LOCAL_RANK")
    else:
        dev = rank
    path = env.get("CANNON_HCCL_ROOT_INFO_FILE", "")
    if not path and size > 1:
        job = env.get("PMIX_NAMESPACE") or env.get("OMPI_MCA_ess_base_jobid") or (
            f"{env['SLURM_JOB_ID']}.{env.get('SLURM_STEP_ID', '0')}" if "SLURM_JOB_ID" in env else None)
        if not job:
            raise LaunchEnvError("CANNON_HCCL_ROOT_INFO_FILE is not set and no job id (PMIX_NAMESPACE, "
                                 "OMPI_MCA_ess_base_jobid, SLURM_JOB_ID) names a default: start the job with "
                                 "cannonrun or set CANNON_HCCL_ROOT_INFO_FILE to a path that does not exist yet")
        path = os.path.join(env.get("TMPDIR", "/tmp"), f"cannon_hccl_root_info.{job}")
    return rank, size, dev, path


def _wait_root_info(path, timeout_s):
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if os.path.getsize(path) == ROOT_INFO_BYTES:
                with open(path, "rb") as f:
                    data = f.read()
                if len(data) == ROOT_INFO_BYTES:
                    return data
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise LaunchEnvError(f"the HCCL root info file {path} (CANNON_HCCL_ROOT_INFO_FILE) did not appear "
                                 f"within {timeout_s:.0f} s (HCCL_CONNECT_TIMEOUT): is rank 0 running?")
        time.sleep(0.01)


class Communicator:
    """An HcclComm of @size ranks; this process is @rank."""

    def __init__(self, rank, size, root_info, device_id=None):
        if device_id is not None:
            runtime.set_device(device_id)
        else:
            runtime.ensure_initialized()
        if len(root_info) != ROOT_INFO_BYTES:
            raise ValueError(f"root info must be {ROOT_INFO_BYTES} bytes, got {len(root_info)}")
        l = _lib.hccl()
        buf = ctypes.create_string_buffer(bytes(root_info), ROOT_INFO_BYTES)
        h = ctypes.c_void_p()
        _check(l.HcclCommInitRootInfo(int(size), buf, int(rank), ctypes.byref(h)), "HcclCommInitRootInfo")
        self.handle = h.value
        self.rank, self.size = int(rank), int(size)
        self.device_id = runtime.current_device()
        self._gen = runtime.generation()

    @staticmethod
    def get_root_info():
        runtime.ensure_initialized()
        buf = ctypes.create_string_buffer(ROOT_INFO_BYTES)
        _check(_lib.hccl().HcclGetRootInfo(buf), "HcclGetRootInfo")
        return buf.raw

    @classmethod
    def from_env(cls, env=None):
        """Join the job described by the launcher's environment (see module doc)."""
        rank, size, dev, path = read_launch_env(env)
        runtime.set_device(dev)
        timeout = float((env if env is not None else os.environ).get("HCCL_CONNECT_TIMEOUT", "120"))
        created = False
        if size == 1:
            info = cls.get_root_info()
        elif os.path.exists(path) or rank != 0:
            info = _wait_root_info(path, timeout)
        else:
            info = cls.get_root_info()
            tmp = f"{path}.tmp.{os.getpid()}"
            with open(tmp, "wb") as f:
                f.write(info)
            os.rename(tmp, path)
            created = True
        comm = cls(rank, size, info)
        env_ = env if env is not None else os.environ
        if created and not env_.get("CANNON_HCCL_ROOT_INFO_FILE"):
            try:
                os.unlink(path)  # default path: all ranks joined, so all read it
            except OSError:
                pass
        return comm

    # ---- queries ----
    def _h(self, func):
        if not self.handle:
            raise HcclError(1, "the communicator was destroyed", func)
        return self.handle

    def async_error(self):
        """The sticky HcclResult of a failed collective (0 when none)."""
        r = ctypes.c_int(0)
        _check(_lib.hccl().HcclGetCommAsyncError(self._h("HcclGetCommAsyncError"), ctypes.byref(r)),
               "HcclGetCommAsyncError")
        return r.value

    # ---- collectives ----
    @staticmethod
    def _hdt(a, func):
        if not isinstance(a, DeviceArray):
            raise TypeError(f"{func}: expected a DeviceArray, got {type(a).__name__}")
        if a.dtype.hccl is None:
            raise TypeError(f"{func}: dtype {a.dtype.name} has no HCCL data type")
        if not a.is_contiguous():
            raise ValueError(f"{func}: the array must be contiguous")
        return a.dtype.hccl

    @staticmethod
    def _op(op):
        try:
            return _OPS[op] if isinstance(op, str) else int(op)
        except KeyError:
            raise ValueError(f"unknown reduce op {op!r} (sum, prod, max, min)") from None

    def _finish(self, st, sync):
        if sync:
            st.synchronize()

    def all_reduce(self, send, recv=None, op="sum", stream=None, sync=False):
        """recv = op over ranks of send (recv may be send: in place). Returns recv."""
        dt = self._hdt(send, "HcclAllReduce")
        recv = DeviceArray(send.shape, send.dtype) if recv is None else recv
        self._hdt(recv, "HcclAllReduce")
        if recv.size != send.size or recv.dtype is not send.dtype:
            raise ValueError("HcclAllReduce: recv must match send's size and dtype")
        st = runtime._stream(stream)
        _check(_lib.hccl().HcclAllReduce(send.ptr, recv.ptr, send.size, dt, self._op(op), self._h("HcclAllReduce"),
                                         st.handle), "HcclAllReduce")
        self._finish(st, sync)
        return recv

    def all_gather(self, send, recv=None, stream=None, sync=False):
        """recv (size*send.shape[0], ...) = the ranks' send arrays concatenated in rank order."""
        dt = self._hdt(send, "HcclAllGather")
        if recv is None:
            shape = (self.size * send.shape[0],) + send.shape[1:] if send.ndim else (self.size,)
            recv = DeviceArray(shape, send.dtype)
        self._hdt(recv, "HcclAllGather")
        if recv.size != send.size * self.size or recv.dtype is not send.dtype:
            raise ValueError("HcclAllGather: recv must hold size × send elements of send's dtype")
        st = runtime._stream(stream)
        _check(_lib.hccl().HcclAllGather(send.ptr, recv.ptr, send.size, dt, self._h("HcclAllGather"), st.handle),
               "HcclAllGather")
        self._finish(st, sync)
        return recv

    def broadcast(self, buf, root=0, stream=None, sync=False):
        dt = self._hdt(buf, "HcclBroadcast")
        st = runtime._stream(stream)
        _check(_lib.hccl().HcclBroadcast(buf.ptr, buf.size, dt, int(root), self._h("HcclBroadcast"), st.handle),
               "HcclBroadcast")
        self._finish(st, sync)
        return buf

    def reduce_scatter(self, send, recv=None, op="sum", stream=None, sync=False):
        """recv (send.shape[0]/size, ...) = this rank's block of the reduction of send."""
        dt = self._hdt(send, "HcclReduceScatter")
        if send.size % self.size:
            raise ValueError(f"HcclReduceScatter: {send.size} elements do not split into {self.size} ranks")
        if recv is None:
            shape = (send.shape[0] // self.size,) + send.shape[1:] if send.ndim and send.shape[0] % self.size == 0 \
                else (send.size // self.size,)
            recv = DeviceArray(shape, send.dtype)
        self._hdt(recv, "HcclReduceScatter")
        if recv.size * self.size != send.size or recv.dtype is not send.dtype:
            raise ValueError("HcclReduceScatter: recv must hold send.size/size elements of send's dtype")
        st = runtime._stream(stream)
        _check(_lib.hccl().HcclReduceScatter(send.ptr, recv.ptr, recv.size, dt, self._op(op),
                                             self._h("HcclReduceScatter"), st.handle), "HcclReduceScatter")
        self._finish(st, sync)
        return recv

    def barrier(self, stream=None, sync=True):
        st = runtime._stream(stream)
        _check(_lib.hccl().HcclBarrier(self._h("HcclBarrier"), st.handle), "HcclBarrier")
        self._finish(st, sync)

    def destroy(self):
        if self.handle:
            h, self.handle = self.handle, None
            if self._gen == runtime.generation():
                _check(_lib.hccl().HcclCommDestroy(h), "HcclCommDestroy")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def __del__(self):
        try:
            if self.handle and self._gen == runtime.generation() and runtime.is_initialized():
                _lib.hccl().HcclCommDestroy(self.handle)
        except Exception:
            pass
