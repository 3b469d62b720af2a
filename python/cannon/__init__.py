"""cannon: Python bindings (ctypes) for cannon's CANN-compatible C libraries.

    import cannon
    x = cannon.from_numpy(np.random.rand(4, 8).astype(np.float32))
    y = cannon.ops.softmax(x, dim=-1)
    print(y.numpy())

Submodules: ``cannon.runtime`` (init, devices, streams, events, DeviceBuffer), ``cannon.ops``
(aclnn operators), ``cannon.hccl`` (collectives; loads libhccl on first use), ``cannon.torch``
(PyTorch integration: ``torch.ops.cannon.*``, SyncBatchNorm, the "cannon" torch.distributed
backend; imported explicitly, since it imports torch), ``cannon.compare`` (a torch run recorded in the
operator-dump format for cannon-compare; docs/tools.md). See docs/python.md.
Libraries are found through $CANNON_LIB_DIR, else <repo>/build/lib, else the loader path.
"""
from . import _lib, runtime
from ._lib import AclError, LibraryNotFoundError, OpUnavailableError, lib_dir, recent_error
from .array import (FORMAT_NC, FORMAT_NCDHW, FORMAT_NCHW, FORMAT_NCL, FORMAT_ND, FORMAT_NDHWC, FORMAT_NHWC,
                    DeviceArray, DType, as_dtype, bf16_to_float, bfloat16, bool_, contiguous_strides, empty, float16,
                    float32, float64, float_to_bf16, from_numpy, from_storage, int8, int16, int32, int64, uint8,
                    uint16, uint32, uint64, zeros)
from .runtime import DeviceBuffer, Event, Session, Stream, device_count, finalize, init, reset_device, set_device, \
    synchronize
from . import ops  # noqa: E402

__version__ = "0.1.0"


def __getattr__(name):  # lazy: importing cannon.hccl loads nothing, but keep `cannon.hccl` cheap anyway
    if name == "hccl":
        import importlib
        return importlib.import_module(".hccl", __name__)
    raise AttributeError(name)
