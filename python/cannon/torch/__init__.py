"""cannon.torch: PyTorch integration (pure Python: ctypes + torch.library + autograd.Function).

    import torch, cannon.torch
    y = torch.ops.cannon.softmax(x, -1)                   # cannon's aclnnSoftmax, zero-copy on x
    bn = cannon.torch.SyncBatchNorm(64)                   # drop-in for torch.nn.SyncBatchNorm
    torch.distributed.init_process_group("cannon")        # collectives on libhccl

Importing registers the ``torch.ops.cannon`` operators (see ``cannon.torch.ops``) and the
``"cannon"`` torch.distributed backend (see ``cannon.torch.distributed``).
``cannon.torch.load_package()`` registers the operators of custom operator packages (see
``cannon.torch.custom``). docs/python.md
describes how tensors are passed, the supported dtypes and the limits.
"""
from . import ops
from .custom import PackageError, load_package
from ._bridge import set_device_alloc
from .distributed import ProcessGroupCannon, cannon_group, register_backend
from .nn import SyncBatchNorm
from ..hccl import HcclError, LaunchEnvError
from .._lib import AclError

ops.register()
register_backend()

OPS = ops.OPS

__all__ = ["ops", "OPS", "load_package", "PackageError", "SyncBatchNorm", "ProcessGroupCannon", "cannon_group", "register_backend",
           "set_device_alloc", "AclError", "HcclError", "LaunchEnvError"]
