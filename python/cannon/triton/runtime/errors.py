"""triton.runtime.errors."""
from ..errors import InterpreterError, OutOfResources  # noqa: F401
