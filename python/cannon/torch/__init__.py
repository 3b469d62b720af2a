"""cannon.torch: PyTorch integration (pure Python: ctypes + torch.library + autograd.Function).

    import torch, cannon.torch
    y = torch.ops.cannon.softmax(x, -1)                   # cannon's aclnnSoftmax, zero-copy on x
    o = cannon.torch.flash_attention(q, k, v, causal=True)  # fused attention with autograd
    bn = cannon.torch.SyncBatchNorm(64)                   # drop-in for torch.nn.SyncBatchNorm
    torch.distributed.init_process_group("cannon")        # collectives on libhccl

Importing registers the ``torch.ops.cannon`` operators (see ``cannon.torch.ops``) and the
``"cannon"`` torch.distributed backend (see ``cannon.torch.distributed``).
``cannon.torch.load_package()`` registers the operators of custom operator packages (see
``cannon.torch.custom``). Training pieces: ``flash_attention`` and ``rotary_embedding``
(``cannon.torch.attention``), ``amp.autocast`` and ``amp.GradScaler`` (``cannon.torch.amp``),
``optim.AdamW``, the functional ops (``cannon.torch.functional``) and the modules ``Linear``,
``LayerNorm``, ``RMSNorm``, ``GELU``, ``SiLU``, ``SwiGLU``, ``Embedding``. docs/python.md
describes how tensors are passed, the supported dtypes and the limits.
"""
from . import ops
from . import amp, functional, optim
from .attention import flash_attention, rotary_embedding
from .custom import PackageError, load_package
from ._bridge import set_device_alloc
from .distributed import ProcessGroupCannon, cannon_group, register_backend
from .nn import GELU, Embedding, LayerNorm, Linear, RMSNorm, SiLU, SwiGLU, SyncBatchNorm
from ..hccl import HcclError, LaunchEnvError
from .._lib import AclError

ops.register()
register_backend()

OPS = ops.OPS

__all__ = ["ops", "OPS", "load_package", "PackageError", "SyncBatchNorm", "ProcessGroupCannon", "cannon_group", "register_backend",
           "set_device_alloc", "AclError", "HcclError", "LaunchEnvError", "amp", "optim", "functional",
           "flash_attention", "rotary_embedding", "Linear", "LayerNorm", "RMSNorm", "GELU", "SiLU", "SwiGLU",
           "Embedding"]
