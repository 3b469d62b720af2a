"""The compiler of cannon.triton: the front end that type-checks a kernel into the typed tile IR
(frontend.compile_ir, ir), the C emitter (codegen_c.generate) and the build of the emitted C into a
cached shared object (build). runtime/jit.py launches the result."""
from .frontend import BlockPtrType, CodeGenerator, TensorDescType, compile_ir  # noqa: F401
from . import ir  # noqa: F401
from .codegen_c import Unsupported, generate  # noqa: F401
