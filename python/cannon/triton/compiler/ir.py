"""The typed tile IR: what the compiler's front end produces from a kernel's AST and what the C
emitter (codegen_c.py) consumes.

A Function holds typed arguments and a body Block. A Block is a list of Ops. An Op has an opcode, its
operand Values, at most one result Value (several for ``for``/``if``/``while``, which carry values
out of their regions) and attributes (constants, axes, shapes), plus the kernel line it came from.
Every Value has a type: a ``semantics.dtype`` (scalar, pointers included) or a
``semantics.block_type`` (a block of power-of-two shape). Structured control flow keeps loops and
branches as regions: ``for`` (induction variable, loop-carried values in and out), ``while``
(condition region and body), ``if`` (then and else regions yielding the merged values).
"""
from .. import semantics as sem


class Value:
    __slots__ = ("id", "type", "name")

    def __init__(self, id_, type_, name=None):
        self.id, self.type, self.name = id_, type_, name

    @property
    def dtype(self):
        return self.type.element_ty if isinstance(self.type, sem.block_type) else self.type

    @property
    def shape(self):
        return self.type.shape if isinstance(self.type, sem.block_type) else ()

    def __repr__(self):
        return f"%{self.id}"


def type_str(t):
    if hasattr(t, "block_shape"):  # block pointers and tensor descriptors (frontend.BlockPtrType)
        return repr(t)
    if isinstance(t, sem.block_type):
        return f"<{'x'.join(str(s) for s in t.shape)}x{_dt(t.element_ty)}>"
    return _dt(t)


def _dt(t):
    if t.is_ptr():
        return f"ptr<{_dt(t.element_ty)}>"
    return t.name


def make_type(dtype, shape):
    return sem.block_type(dtype, shape) if shape else dtype


class Block:
    def __init__(self, args=()):
        self.args = list(args)
        self.ops = []


class Op:
    def __init__(self, opcode, operands, results, attrs=None, regions=(), lineno=None):
        self.opcode, self.operands, self.results = opcode, list(operands), list(results)
        self.attrs = dict(attrs or {})
        self.regions = list(regions)
        self.lineno = lineno

    @property
    def result(self):
        return self.results[0] if self.results else None


class Function:
    def __init__(self, name, args, constexprs):
        self.name, self.args, self.constexprs = name, args, dict(constexprs)
        self.body = Block(args)
        self._next = len(args)

    def new_value(self, type_, name=None):
        v = Value(self._next, type_, name)
        self._next += 1
        return v

    # ---- printing ----
    def dump(self):
        lines = [f"func @{self.name}(" + ", ".join(f"{a!r}: {type_str(a.type)}" for a in self.args) + ")"
                 + (f" constexprs {self.constexprs}" if self.constexprs else "") + " {"]
        _dump_block(self.body, 1, lines)
        lines.append("}")
        return "\n".join(lines)

    def ops(self):
        """Every op, regions included, in order."""
        out = []
        _walk(self.body, out)
        return out


def _walk(block, out):
    for op in block.ops:
        out.append(op)
        for r in op.regions:
            _walk(r, out)


def _dump_block(block, depth, lines):
    ind = "  " * depth
    for op in block.ops:
        res = ", ".join(f"{r!r}: {type_str(r.type)}" for r in op.results)
        attrs = "".join(f" {k}={v!r}" for k, v in op.attrs.items())
        head = f"{ind}{res + ' = ' if res else ''}{op.opcode}({', '.join(repr(o) for o in op.operands)}){attrs}"
        if op.lineno is not None:
            head += f"  # line {op.lineno}"
        if not op.regions:
            lines.append(head)
            continue
        lines.append(head + " {")
        for i, r in enumerate(op.regions):
            if i:
                lines.append(f"{ind}}} region {{")
            if r.args:
                lines.append(f"{ind}  ^args(" + ", ".join(f"{a!r}: {type_str(a.type)}" for a in r.args) + ")")
            _dump_block(r, depth + 1, lines)
        lines.append(f"{ind}}}")
