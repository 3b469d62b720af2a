"""The compiler of cannon.triton: the front end that type-checks a kernel into the typed tile IR
(frontend.compile_ir, ir). The C emission and the launch path are not built yet; launches run in
the interpreter."""
from .frontend import BlockPtrType, CodeGenerator, TensorDescType, compile_ir  # noqa: F401
from . import ir  # noqa: F401
