"""A ``torch.distributed`` backend on libhccl: ``dist.init_process_group("cannon")``.

Importing ``cannon.torch`` registers the backend name ``"cannon"``. Under ``cannonrun`` (or any
launcher setting RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, as torch's env:// rendezvous wants)::

    import torch.distributed as dist, cannon.torch
    dist.init_process_group("cannon")
    dist.all_reduce(t)            # HcclAllReduce on t's memory, in place

How it joins: torch's rendezvous gives the store, rank and world size. The launcher's CANN
variables (RANK_ID/RANK_SIZE, DEVICE_ID/ASCEND_DEVICE_ID) must agree with them when set
(``LaunchEnvError`` names the variable otherwise). Rank 0 calls HcclGetRootInfo and publishes the
root info through the store; every rank then calls HcclCommInitRootInfo on its device.

Supported: all_reduce (sum, product, min, max, avg), all_gather, all_gather_into_tensor
(``_allgather_base``), reduce_scatter, reduce_scatter_tensor (``_reduce_scatter_base``),
broadcast, barrier. Every collective has completed when the call returns (the returned Work is
already complete, also with ``async_op=True``). A peer that died or never joins makes the call
raise ``cannon.hccl.HcclError`` within HCCL_EXEC_TIMEOUT seconds (default: the timeout given to
init_process_group).
"""
import ctypes
import math
import os

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup, _create_work_from_future
from torch.futures import Future

from .. import _lib, hccl, runtime
from ..hccl import HcclError, LaunchEnvError
from . import _bridge as B

BACKEND = "cannon"
_STORE_KEY = "cannon_hccl_root_info"
_vp = ctypes.c_void_p

_HCCL_SUM, _HCCL_PROD, _HCCL_MAX, _HCCL_MIN = 0, 1, 2, 3


def _red_op(op):
    """(HcclReduceOp, average?) for a torch ReduceOp."""
    R = dist.ReduceOp
    for r, code in ((R.SUM, _HCCL_SUM), (R.PRODUCT, _HCCL_PROD), (R.MAX, _HCCL_MAX), (R.MIN, _HCCL_MIN)):
        if op == r:
            return code, False
    if op == R.AVG:
        return _HCCL_SUM, True
    raise ValueError(f"cannon backend: reduce op {op} is not supported (SUM, PRODUCT, MIN, MAX, AVG)")


def _hccl_dtype(t, what):
    B.check_cpu(t, what)
    d = B.HCCL_DTYPE.get(t.dtype)
    if d is None:
        raise TypeError(f"cannon backend: {what} has dtype {t.dtype}, which HCCL does not support")
    return d


def _done(result):
    f = Future()
    f.set_result(result)
    return _create_work_from_future(f)


def _check_launch_env(rank, size, env):
    """Device id for this rank; raises LaunchEnvError when the launcher's variables contradict
    torch's rank/world size or are malformed."""
    e = dict(env)
    # the root info travels through torch's store, so no root-info file is needed
    e.setdefault("CANNON_HCCL_ROOT_INFO_FILE", "-")
    has_launcher = any(k in e for k in ("RANK_ID", "RANK_SIZE", "RANK", "WORLD_SIZE"))
    erank, esize, dev, _ = hccl.read_launch_env(e)
    if has_launcher:
        rv = "RANK_ID" if "RANK_ID" in e else "RANK"
        sv = "RANK_SIZE" if "RANK_SIZE" in e else "WORLD_SIZE"
        if erank != rank:
            raise LaunchEnvError(f"{rv}={erank} disagrees with rank {rank} given to init_process_group")
        if esize != size:
            raise LaunchEnvError(f"{sv}={esize} disagrees with world_size {size} given to init_process_group")
    elif "DEVICE_ID" not in e and "ASCEND_DEVICE_ID" not in e and "LOCAL_RANK" not in e:
        dev = rank
    return dev


def _device_var(env):
    for k in ("DEVICE_ID", "ASCEND_DEVICE_ID", "LOCAL_RANK"):
        if k in env:
            return k
    return None


class ProcessGroupCannon(ProcessGroup):
    """A torch ProcessGroup whose collectives are libhccl calls on the tensors' memory."""

    def __init__(self, store, rank, size, timeout=None, env=None):
        super().__init__(rank, size)
        env = os.environ if env is None else env
        dev = _check_launch_env(rank, size, env)
        try:
            runtime.set_device(dev)
        except _lib.AclError as e:
            var = _device_var(env)
            src = f"{var}={env[var]}" if var else f"device {dev} (the rank)"
            raise LaunchEnvError(f"{src} does not name a usable device: {e}") from None
        self.device_id = dev
        secs = None if timeout is None else max(1, math.ceil(timeout.total_seconds()))
        self.comm = self._join(store, rank, size, secs)

    @staticmethod
    def _join(store, rank, size, timeout_s):
        if size == 1:
            info = hccl.Communicator.get_root_info()
        elif rank == 0:
            info = hccl.Communicator.get_root_info()
            store.set(_STORE_KEY, info)
        else:
            info = bytes(store.get(_STORE_KEY))
        # HCCL reads its collective timeout when the communicator is created: default it to torch's
        saved = os.environ.get("HCCL_EXEC_TIMEOUT")
        if saved is None and timeout_s is not None:
            os.environ["HCCL_EXEC_TIMEOUT"] = str(timeout_s)
        try:
            return hccl.Communicator(rank, size, info)
        finally:
            if saved is None and timeout_s is not None:
                os.environ.pop("HCCL_EXEC_TIMEOUT", None)

    # ---- helpers ----
    def _stream(self):
        return B._thread().stream.handle

    def _sync(self, func):
        rc = _lib.acl().aclrtSynchronizeStream(_vp(self._stream()))
        if rc != 0:
            # the stream reports a generic task failure; the communicator knows the HCCL cause
            detail = _lib.recent_error()
            code = rc
            try:
                code = self.comm.async_error() or rc
            except Exception:
                pass
            name = _lib.hccl().HcclGetErrorString(code)
            name = name.decode() if name else ""
            raise HcclError(code, (f"{name}: " if name else "") + detail, func)

    def _h(self, func):
        if self.comm is None:
            raise HcclError(1, "the process group's communicator was destroyed", func)  # HCCL_E_PARA
        return self.comm._h(func)

    def getBackendName(self):
        return BACKEND

    # ---- primitives on torch tensors (also used by cannon.torch.SyncBatchNorm) ----
    def all_reduce_(self, t, op=_HCCL_SUM):
        """In-place HcclAllReduce of a contiguous CPU tensor."""
        dt = _hccl_dtype(t, "tensor")
        src = t if t.is_contiguous() else t.contiguous()
        if src.numel():
            hccl._check(_lib.hccl().HcclAllReduce(_vp(src.data_ptr()), _vp(src.data_ptr()), src.numel(), dt, op,
                                                  _vp(self._h("HcclAllReduce")), _vp(self._stream())),
                        "HcclAllReduce")
            self._sync("HcclAllReduce")
        if src is not t:
            t.copy_(src)
        return t

    def all_gather_into(self, out, t):
        """out (size * t.numel() elements, contiguous) = every rank's t in rank order."""
        dt = _hccl_dtype(t, "input")
        _hccl_dtype(out, "output")
        if out.dtype != t.dtype or out.numel() != t.numel() * self.size() or not out.is_contiguous():
            raise ValueError(f"cannon backend: all_gather output must be a contiguous {t.dtype} tensor of "
                             f"{t.numel() * self.size()} elements")
        src = t.contiguous()
        if src.numel():
            hccl._check(_lib.hccl().HcclAllGather(_vp(src.data_ptr()), _vp(out.data_ptr()), src.numel(), dt,
                                                  _vp(self._h("HcclAllGather")), _vp(self._stream())),
                        "HcclAllGather")
            self._sync("HcclAllGather")
        return out

    def reduce_scatter_into(self, out, t, op=_HCCL_SUM):
        dt = _hccl_dtype(t, "input")
        _hccl_dtype(out, "output")
        if out.dtype != t.dtype or out.numel() * self.size() != t.numel() or not out.is_contiguous():
            raise ValueError(f"cannon backend: reduce_scatter output must be a contiguous {t.dtype} tensor of "
                             f"input.numel() / world_size elements")
        src = t.contiguous()
        if out.numel():
            hccl._check(_lib.hccl().HcclReduceScatter(_vp(src.data_ptr()), _vp(out.data_ptr()), out.numel(), dt, op,
                                                      _vp(self._h("HcclReduceScatter")), _vp(self._stream())),
                        "HcclReduceScatter")
            self._sync("HcclReduceScatter")
        return out

    def broadcast_(self, t, root):
        dt = _hccl_dtype(t, "tensor")
        if not 0 <= root < self.size():
            raise ValueError(f"cannon backend: broadcast root {root} is out of range for {self.size()} ranks")
        src = t if t.is_contiguous() else t.contiguous()
        if src.numel():
            hccl._check(_lib.hccl().HcclBroadcast(_vp(src.data_ptr()), src.numel(), dt, int(root),
                                                  _vp(self._h("HcclBroadcast")), _vp(self._stream())),
                        "HcclBroadcast")
            self._sync("HcclBroadcast")
        if src is not t:
            t.copy_(src)
        return t

    # ---- the ProcessGroup interface ----
    def allreduce(self, tensors, opts=None):
        op, avg = _red_op(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        for t in tensors:
            if avg and not t.is_floating_point():
                raise TypeError("cannon backend: ReduceOp.AVG needs a floating-point tensor")
            self.all_reduce_(t, op)
            if avg:
                t.div_(self.size())
        return _done(tensors)

    def allgather(self, output_lists, inputs, opts=None):
        for outs, t in zip(output_lists, inputs):
            if len(outs) != self.size():
                raise ValueError(f"cannon backend: all_gather needs {self.size()} output tensors, got {len(outs)}")
            for o in outs:
                if o.shape != t.shape or o.dtype != t.dtype:
                    raise ValueError("cannon backend: all_gather outputs must match the input's shape and dtype")
            buf = torch.empty((self.size(),) + tuple(t.shape), dtype=t.dtype)
            self.all_gather_into(buf, t)
            for o, part in zip(outs, buf):
                o.copy_(part)
        return _done(output_lists)

    def _allgather_base(self, output, input, opts=None):
        if output.is_contiguous():
            self.all_gather_into(output, input)
        else:
            buf = torch.empty(output.shape, dtype=output.dtype)
            self.all_gather_into(buf, input)
            output.copy_(buf)
        return _done([output])

    def reduce_scatter(self, outputs, input_lists, opts=None):
        op, avg = _red_op(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        for out, ins in zip(outputs, input_lists):
            if len(ins) != self.size():
                raise ValueError(f"cannon backend: reduce_scatter needs {self.size()} inputs, got {len(ins)}")
            buf = torch.stack([i.reshape(out.shape) for i in ins])
            res = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype)
            self.reduce_scatter_into(res, buf, op)
            if avg:
                res.div_(self.size())
            if res is not out:
                out.copy_(res)
        return _done(outputs)

    def _reduce_scatter_base(self, output, input, opts=None):
        op, avg = _red_op(opts.reduceOp if opts is not None else dist.ReduceOp.SUM)
        res = output if output.is_contiguous() else torch.empty(output.shape, dtype=output.dtype)
        self.reduce_scatter_into(res, input, op)
        if avg:
            res.div_(self.size())
        if res is not output:
            output.copy_(res)
        return _done([output])

    def broadcast(self, tensors, opts=None):
        root = opts.rootRank if opts is not None else 0
        for t in tensors:
            self.broadcast_(t, root)
        return _done(tensors)

    def barrier(self, opts=None):
        hccl._check(_lib.hccl().HcclBarrier(_vp(self._h("HcclBarrier")), _vp(self._stream())), "HcclBarrier")
        self._sync("HcclBarrier")
        return _done(None)

    def _unsupported(self, name):
        raise RuntimeError(f"cannon backend: {name} is not supported (all_reduce, all_gather, reduce_scatter, "
                           f"broadcast and barrier are)")

    def send(self, *a, **k):
        self._unsupported("send")

    def recv(self, *a, **k):
        self._unsupported("recv")

    def gather(self, *a, **k):
        self._unsupported("gather")

    def scatter(self, *a, **k):
        self._unsupported("scatter")

    def reduce(self, *a, **k):
        self._unsupported("reduce")

    def alltoall(self, *a, **k):
        self._unsupported("alltoall")

    def alltoall_base(self, *a, **k):
        self._unsupported("alltoall")

    def destroy(self):
        """Destroy the HCCL communicator now (otherwise done when the group is garbage collected)."""
        c, self.comm = getattr(self, "comm", None), None
        if c is not None:
            c.destroy()

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass


def _create(store, rank, size, timeout):
    return ProcessGroupCannon(store, rank, size, timeout)


_registered = False


def register_backend():
    """Register "cannon" with torch.distributed (idempotent; done on import of cannon.torch)."""
    global _registered
    if _registered:
        return
    if not hasattr(dist.Backend, BACKEND.upper()):
        dist.Backend.register_backend(BACKEND, _create)
    _registered = True


def cannon_group(group=None):
    """The ProcessGroupCannon behind @group (None: the default group), or None if it is another backend."""
    if not dist.is_available() or not dist.is_initialized():
        return None
    pg = group if group is not None else dist.group.WORLD
    return pg if isinstance(pg, ProcessGroupCannon) else None


__all__ = ["ProcessGroupCannon", "register_backend", "cannon_group", "HcclError", "LaunchEnvError", "BACKEND"]
