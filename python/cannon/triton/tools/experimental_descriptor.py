"""``triton.tools.experimental_descriptor``: the host side of the experimental TMA descriptors of
Triton 3.2 (``create_1d_tma_descriptor``, ``create_2d_tma_descriptor``, ``TmaDescKernelParam``).

A TMA descriptor is a block of bytes that an NVIDIA Hopper GPU's copy engine reads; cannon's devices
have no such engine, and the backend's target is not ``"cuda"``, so GPU scripts that check for one
(``backend == "cuda"`` and a compute capability of 9 or more) take their portable path. The module
exists so that such scripts import unchanged; making a descriptor raises ``NotImplementedError``
that names the replacement, ``triton.tools.tensor_descriptor.TensorDescriptor`` (a host-made
descriptor the compiler understands)."""

_MESSAGE = ("{what}: experimental TMA descriptors are not supported by cannon.triton (the device has no "
            "TMA unit); use triton.tools.tensor_descriptor.TensorDescriptor or tl.make_tensor_descriptor")


class TmaDescKernelParam:
    """The kernel-argument wrapper of an experimental TMA descriptor (not supported here)."""
    TMA_DESC_SIZE = 128

    def __init__(self, ptr, dims, block_dims, element_size):
        raise NotImplementedError(_MESSAGE.format(what="TmaDescKernelParam"))

    def tma_desc_cpu_ptr(self):
        raise NotImplementedError(_MESSAGE.format(what="TmaDescKernelParam.tma_desc_cpu_ptr"))


def create_1d_tma_descriptor(ptr, dim, block_dim, element_size):
    raise NotImplementedError(_MESSAGE.format(what="create_1d_tma_descriptor"))


def create_2d_tma_descriptor(ptr, dim1, dim0, block_dim1, block_dim0, element_size):
    raise NotImplementedError(_MESSAGE.format(what="create_2d_tma_descriptor"))
