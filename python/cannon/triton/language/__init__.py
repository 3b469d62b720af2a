"""triton.language (``tl``) of cannon.triton: the dtypes, ``constexpr``, ``tensor`` and the builtins.

Inside a kernel run by the interpreter the builtins compute on numpy-backed tensors; their result
types, broadcasts and errors come from cannon.triton.semantics.
"""
from ..semantics import (bfloat16, block_type, dtype, float16, float32, float64, int1, int8, int16, int32,  # noqa: F401
                         int64, pointer_type, uint8, uint16, uint32, uint64)
from .core import (PropagateNan, abs, advance, arange, argmax, argmin, associative_scan, assume,  # noqa: F401
                   atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min, atomic_or, atomic_xchg, atomic_xor,
                   block_pointer, broadcast, broadcast_to, cast, cdiv, ceil, clamp, constexpr, cos, cumprod, cumsum,
                   debug_barrier, device_assert, device_print, div_rn, dot, erf, exp, exp2, expand_dims, fdiv, flip,
                   floor, fma, full, full_like, inline_asm_elementwise, interleave, join, load, log, log2,
                   make_block_ptr, max, max_constancy, max_contiguous, maximum, min, minimum, multiple_of,
                   num_programs, permute, program_id, range, ravel, reduce, reshape, rsqrt, sigmoid, sin, softmax,
                   split, sqrt, sqrt_rn, static_assert, static_print, static_range, store, sum, tensor, to_tensor,
                   trans, umulhi, view, where, xor_sum, zeros, zeros_like, tensor_descriptor,
                   tensor_descriptor_base, make_tensor_descriptor)
from . import math, standard  # noqa: F401

bool_ = int1
float8e5 = float8e4nv = float8e4b15 = float8e5b16 = float8e4b8 = None  # fp8: not supported yet
void = None
pi32_t = pointer_type(int32)
TRITON_MAX_TENSOR_NUMEL = 1048576
