"""cannon.triton: the Triton kernel language on cannon's devices (the host CPU).

    import cannon.triton as triton
    import cannon.triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

A kernel is compiled to C with the system compiler on its first launch when the compiler handles
every construct it uses, and runs in the interpreter (numpy: every program instance in turn, with
Python's print and pdb available inside) otherwise or with TRITON_INTERPRET=1. ``python3 -m cannon.triton SCRIPT.py`` runs a script written for the
``triton`` package with ``import triton`` resolving here. See docs/triton.md.
"""
from . import language, semantics  # noqa: F401
from .errors import CompilationError, CompileTimeAssertionFailure, InterpreterError, OutOfResources  # noqa: F401
from . import runtime  # noqa: F401
from .runtime import Config, JITFunction, KernelInterface, autotune, heuristics, jit  # noqa: F401
from . import testing  # noqa: F401
from . import tools  # noqa: F401
from .torch_op import torch_op  # noqa: F401

__version__ = "3.2.0"


def cdiv(x, y):
    """Ceiling division of integers (x + y - 1) // y."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


def set_allocator(allocator):
    """Accepted for compatibility: kernels here need no scratch allocator."""
    return None


def must_use_result(x, s=True):
    return x
