"""``cannon.triton.torch_op``: a Triton kernel's launch function as a PyTorch operator.

    def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:   # allocates, launches, returns
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out

    op = triton.torch_op("mylib::add", add, backward=lambda grads, inputs, output: (grads[0], grads[0]))
    torch.ops.mylib.add(x, y)        # also op(x, y)

The operator is defined with torch.library (torch >= 1.13): a schema inferred from the launch
function's annotations (``torch.Tensor`` or none: ``Tensor``; ``float``, ``int``, ``bool``: those
scalar types; ``Optional[torch.Tensor]``: ``Tensor?``) unless ``schema=`` gives it (the part after
the name, e.g. ``"(Tensor x, float eps) -> Tensor"``), and the launch function registered as its
CPU kernel. With ``backward`` the operator also gets an Autograd kernel: a
``torch.autograd.Function`` whose forward runs the launch function and whose backward calls
``backward(grads, inputs, output)``: ``grads`` the gradients of the outputs (a tuple), ``inputs``
the forward's arguments, ``output`` its result; it returns one gradient (or None) per argument.
Without ``backward`` the operator is not differentiable (autograd raises on backward through it).
"""
import inspect
import typing

_libs = {}  # namespace -> torch.library.Library (one DEF library per namespace; kept alive)
_ops = {}


def _schema_type(ann, torch):
    if ann is inspect.Parameter.empty or ann is torch.Tensor or ann == "torch.Tensor" or ann == "Tensor":
        return "Tensor"
    if ann is float or ann == "float":
        return "float"
    if ann is int or ann == "int":
        return "int"
    if ann is bool or ann == "bool":
        return "bool"
    args = getattr(ann, "__args__", None)
    if getattr(ann, "__origin__", None) is typing.Union and args and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _schema_type(inner[0], torch) + "?"
    raise TypeError(f"torch_op: no schema type for the annotation {ann!r}; pass schema=")


def infer_schema(fn):
    """The schema text (after the operator's name) of a launch function, from its annotations."""
    import torch
    sig = inspect.signature(fn)
    parts = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError("torch_op: the launch function takes positional parameters only")
        t = _schema_type(p.annotation, torch)
        d = ""
        if p.default is not inspect.Parameter.empty:
            d = "=None" if p.default is None else f"={p.default!r}"
        parts.append(f"{t} {p.name}{d}")
    ret = sig.return_annotation
    n = len(getattr(ret, "__args__", ())) if getattr(ret, "__origin__", None) is tuple else 1
    out = "Tensor" if n == 1 else "(" + ", ".join(["Tensor"] * n) + ")"
    return f"({', '.join(parts)}) -> {out}"


def torch_op(qualname, fn, backward=None, schema=None):
    """Registers ``fn`` (a launch function: allocates outputs, launches kernels, returns them) as
    the operator ``torch.ops.<namespace>.<name>`` for ``qualname = "namespace::name"`` and returns
    it. See the module's documentation for the schema and ``backward``."""
    import torch
    from torch.library import Library
    if not isinstance(qualname, str) or qualname.count("::") != 1:
        raise ValueError(f"torch_op: the name must be 'namespace::name', got {qualname!r}")
    ns, name = qualname.split("::")
    if not ns.isidentifier() or not name.isidentifier():
        raise ValueError(f"torch_op: {qualname!r} is not 'identifier::identifier'")
    if qualname in _ops:
        raise ValueError(f"torch_op: {qualname} is already defined")
    lib = _libs.get(ns)
    if lib is None:
        lib = _libs[ns] = Library(ns, "DEF")
    lib.define(name + (schema or infer_schema(fn)))
    lib.impl(name, fn, "CPU")
    if backward is not None:
        class _Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                out = fn(*args)
                tensors = [a for a in args if isinstance(a, torch.Tensor)]
                outs = out if isinstance(out, tuple) else (out,)
                ctx.save_for_backward(*tensors, *outs)
                ctx.layout = [isinstance(a, torch.Tensor) for a in args]
                ctx.others = [a for a in args if not isinstance(a, torch.Tensor)]
                ctx.n_out, ctx.tuple_out = len(outs), isinstance(out, tuple)
                return out

            @staticmethod
            def backward(ctx, *grads):
                saved = list(ctx.saved_tensors)
                outs = saved[len(saved) - ctx.n_out:]
                ts, others = iter(saved[:len(saved) - ctx.n_out]), iter(ctx.others)
                inputs = tuple(next(ts) if is_t else next(others) for is_t in ctx.layout)
                g = backward(grads, inputs, tuple(outs) if ctx.tuple_out else outs[0])
                g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
                if len(g) != len(inputs):
                    raise RuntimeError(f"torch_op {qualname}: backward returned {len(g)} gradients for "
                                       f"{len(inputs)} inputs")
                return g

        lib.impl(name, lambda *args: _Fn.apply(*args), "Autograd")
    op = getattr(getattr(torch.ops, ns), name)
    _ops[qualname] = op
    return op
