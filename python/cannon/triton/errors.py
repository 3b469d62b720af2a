"""Exception types of cannon.triton (the names Triton's users catch)."""


class CompilationError(Exception):
    """A kernel cannot be compiled (or, in the interpreter, breaks a compile-time rule). Carries the
    kernel's source line when known: ``lineno`` and ``src``."""

    def __init__(self, message, src=None, lineno=None, filename=None):
        self.message, self.src, self.lineno, self.filename = message, src, lineno, filename
        where = ""
        if lineno is not None:
            where = f"at {filename or '<kernel>'}:{lineno}"
            if src:
                where += f":\n    {src.strip()}"
            where += "\n"
        super().__init__(where + message)


class CompileTimeAssertionFailure(CompilationError):
    """tl.static_assert failed."""


class OutOfResources(Exception):
    """A configuration needs more of a resource than the device has."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}. "
                         "Reducing block sizes or `num_stages` may help.")


class InterpreterError(RuntimeError):
    """An error raised while interpreting a kernel, with the kernel's source line."""


class OutOfBoundsError(IndexError):
    """Bounds-check mode: an unmasked access outside every tensor passed to the kernel."""
