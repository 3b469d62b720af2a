"""``TensorDescriptor``: a tensor descriptor made on the host and passed to a kernel as one
argument (GPU Triton fills a TMA descriptor from it). In the kernel the parameter is a
``tl.tensor_descriptor`` exactly as one from ``tl.make_tensor_descriptor``: ``desc.load(offsets)``
and ``desc.store(offsets, value)`` move blocks of ``block_shape``; elements out of ``shape`` read
as zero and are not written. Compiled, the descriptor travels as its base address, shape and
strides (runtime values) with its element type, rank and block shape in the specialization."""
from dataclasses import dataclass
from typing import Any, List

from .. import semantics as sem


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape = [int(s) for s in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = [int(s) for s in self.block_shape]
        rank = len(self.shape)
        if not (len(self.strides) == len(self.block_shape) == rank) or rank == 0:
            raise ValueError("TensorDescriptor: shape, strides and block_shape must have the same, non-zero "
                             "length")
        if self.strides[-1] != 1:
            raise ValueError("TensorDescriptor: the last dimension must be contiguous (stride 1)")
        if self.padding != "zero":
            raise ValueError(f"TensorDescriptor: padding {self.padding!r} is not supported (only 'zero')")
        if not (hasattr(self.base, "data_ptr") and hasattr(self.base, "dtype")):
            raise TypeError("TensorDescriptor: base must be a tensor (an object with data_ptr() and dtype)")
        sem.validate_block_shape(self.block_shape)

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """The descriptor of a whole tensor: its shape and strides, read in blocks of block_shape."""
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), list(block_shape), padding)
