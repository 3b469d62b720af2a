"""triton.runtime: the jit and autotuning machinery and the active driver."""
from ..errors import InterpreterError, OutOfResources  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .driver import driver  # noqa: F401
from .jit import CompiledKernel, JITFunction, KernelInterface, jit  # noqa: F401
from . import errors  # noqa: F401
