"""The compiler's front end: a kernel's Python AST, type-checked into the typed tile IR (ir.py) with
the rules of cannon.triton.semantics, the same ones the interpreter computes with.

``compile_ir(kernel, signature, constexprs)`` walks the kernel (and inlines the @triton.jit functions
it calls). Python values (constexprs, literals, dtypes, functions) are evaluated at compile time; a
`if` on a constexpr keeps only the branch taken and ``tl.static_range`` unrolls. Everything else
becomes typed IR values. Constructs the compiled mode does not support raise CompilationError naming
the construct and the kernel's file and line: ``break``/``continue``, ``return`` inside a loop, a
loop-carried variable changing type, an ``if`` on a block, chained comparisons, non-power-of-two
blocks (and every other typing error the semantics layer reports), unknown functions and statements.
"""
import ast
import builtins
import inspect
import operator
import textwrap

from .. import semantics as sem
from ..errors import CompilationError, CompileTimeAssertionFailure
from . import ir

_PYOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
          ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
          ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.Lt: operator.lt, ast.LtE: operator.le,
          ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
          ast.Is: operator.is_, ast.IsNot: operator.is_not}
_SEMOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "lshift",
           ast.RShift: "rshift", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}


class BlockPtrType:
    """The type of a block pointer: element type and block shape."""

    def __init__(self, element_ty, block_shape):
        self.element_ty, self.block_shape = element_ty, tuple(block_shape)

    def is_ptr(self):
        return True

    def __eq__(self, o):
        return isinstance(o, BlockPtrType) and o.element_ty == self.element_ty and o.block_shape == self.block_shape

    def __hash__(self):
        return hash((self.element_ty, self.block_shape))

    def __repr__(self):
        return f"block_ptr<{self.element_ty}, {list(self.block_shape)}>"


class TensorDescType(BlockPtrType):
    """The type of a tensor descriptor: element type and the block shape its loads and stores use."""

    def __repr__(self):
        return f"tensor_desc<{self.element_ty}, {list(self.block_shape)}>"


class _Method:
    def __init__(self, value, name):
        self.value, self.name = value, name


class _Return(Exception):
    pass


def _is_value(x):
    return isinstance(x, ir.Value)


def _unwrap(x):
    from ..language.core import constexpr
    return x.value if isinstance(x, constexpr) else x


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, func, jitfn, scope, filename, first_line, src_lines, in_loop=0, depth=0):
        self.func, self.jitfn, self.scope = func, jitfn, scope
        self.globals = jitfn.fn.__globals__
        self.filename, self.first_line, self.src_lines = filename, first_line, src_lines
        self.block = func.body
        self.in_loop = in_loop
        self.depth = depth
        self.ret = None
        self.cur_node = None

    # ---- errors and emission ----
    def error(self, node, msg, cls=CompilationError):
        line = self.first_line + getattr(node, "lineno", 1) - 1
        idx = getattr(node, "lineno", 1) - 1
        src = self.src_lines[idx] if 0 <= idx < len(self.src_lines) else None
        return cls(msg, src=src, lineno=line, filename=self.filename)

    def emit(self, opcode, operands, result_types=(), attrs=None, regions=()):
        results = [self.func.new_value(t) for t in result_types]
        node = self.cur_node
        self.block.ops.append(ir.Op(opcode, operands, results, attrs, regions,
                                    lineno=self.first_line + node.lineno - 1 if node is not None and
                                    hasattr(node, "lineno") else None))
        return results[0] if len(results) == 1 else results

    def visit(self, node):
        prev = self.cur_node
        if isinstance(node, (ast.stmt, ast.expr)):
            self.cur_node = node
        try:
            return super().visit(node)
        except (CompilationError, _Return):
            raise
        except (ValueError, TypeError, AssertionError) as e:
            raise self.error(node, str(e)) from None
        finally:
            self.cur_node = prev

    def generic_visit(self, node):
        raise self.error(node, f"unsupported AST node type: {type(node).__name__}")

    # ---- values ----
    def info(self, x):
        """(dtype, shape, is_python_scalar) of a Value or a Python number."""
        if _is_value(x):
            if isinstance(x.type, BlockPtrType):
                raise TypeError("a block pointer cannot be used in arithmetic; use tl.advance")
            return x.dtype, x.shape, False
        x = _unwrap(x)
        if isinstance(x, (bool, int, float)):
            return sem.scalar_dtype(x), (), True
        raise TypeError(f"{x!r} of type {type(x).__name__} is not a tensor or a number")

    def materialize(self, x, dtype=None):
        if _is_value(x):
            return x
        x = _unwrap(x)
        t = dtype or sem.scalar_dtype(x)
        return self.emit("constant", [], [t], {"value": x})

    def convert(self, x, dtype, shape):
        """x cast to dtype and broadcast to shape."""
        if not _is_value(x):
            v = self.materialize(x, dtype)
        else:
            v = x
            if v.dtype != dtype:
                v = self.emit("cast", [v], [ir.make_type(dtype, v.shape)], {"to": dtype.name})
        if tuple(v.shape) != tuple(shape):
            sem.broadcast_to_shape(v.shape, shape)
            v = self.emit("broadcast", [v], [ir.make_type(v.dtype, shape)], {"shape": tuple(shape)})
        return v

    def binop(self, op, a, b):
        ta_, sa, a_s = self.info(a)
        tb_, sb, b_s = self.info(b)
        ta, tb, tr = sem.binary_types(op, ta_, a_s, tb_, b_s)
        shape = sem.broadcast_shapes(sa, sb)
        if shape:
            sem.validate_block_shape(shape)
        if tr.is_ptr():
            ptr, off = (a, b) if ta.is_ptr() else (b, a)
            pv = self.convert(ptr, tr, shape)
            ov = self.convert(off, self.info(off)[0], shape)
            if op == "sub":
                ov = self.emit("neg", [ov], [ov.type])
            return self.emit("addptr", [pv, ov], [ir.make_type(tr, shape)])
        av = self.convert(a, ta, shape)
        bv = self.convert(b, tb, shape)
        return self.emit(op, [av, bv], [ir.make_type(tr, shape)])

    # ---- module and statements ----
    def visit_Module(self, node):
        for s in node.body:
            self.visit(s)

    def visit_FunctionDef(self, node):
        self.visit_body(node.body)

    def visit_body(self, stmts):
        for s in stmts:
            self.visit(s)

    def visit_Pass(self, node):
        return None

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # docstring
        self.visit(node.value)

    def visit_Return(self, node):
        if self.in_loop:
            raise self.error(node, "cannot have `return` statements inside `while` or `for` statements")
        self.ret = self.visit(node.value) if node.value is not None else None
        raise _Return()

    def visit_Break(self, node):
        raise self.error(node, "`break` is not supported: loops run to their end (use a mask or a loop bound)")

    def visit_Continue(self, node):
        raise self.error(node, "`continue` is not supported: loops run their whole body (use a mask)")

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = list(value) if isinstance(value, (tuple, list)) else None
            if vals is None or len(vals) != len(target.elts):
                raise self.error(node, "cannot unpack: the number of values does not match the targets")
            for t, v in zip(target.elts, vals):
                self.assign(t, v, node)
        else:
            raise self.error(node, f"unsupported assignment target: {type(target).__name__}")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for t in node.targets:
            self.assign(t, value, node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.visit(node.value), node)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment needs a plain name")
        cur = self.lookup(node.target.id, node)
        self.scope[node.target.id] = self.apply_binop(node.op, cur, self.visit(node.value), node)

    def visit_Assert(self, node):
        c = self.visit(node.test)
        if not _is_value(c):
            if not c:
                raise self.error(node, "assertion failed" if node.msg is None else str(self.visit(node.msg)),
                                 CompileTimeAssertionFailure)
            return None
        self.emit("device_assert", [c], [], {"msg": "" if node.msg is None else str(self.visit(node.msg))})

    # ---- control flow ----
    def _assigned_names(self, stmts):
        names = []
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                    names.append(n.id)
        return names

    def _sub(self, scope, block, in_loop=None):
        g = CodeGenerator(self.func, self.jitfn, scope, self.filename, self.first_line, self.src_lines,
                          self.in_loop if in_loop is None else in_loop, self.depth)
        g.block = block
        g.cur_node = self.cur_node
        return g

    def visit_If(self, node):
        c = self.visit(node.test)
        if not _is_value(c):
            self.visit_body(node.body if c else node.orelse)
            return
        if c.shape:
            raise self.error(node.test, "`if` on a block: the condition must be a scalar (use tl.where for blocks)")
        if c.dtype != sem.int1:
            c = self.binop("ne", c, 0)
        before = dict(self.scope)
        scopes, blocks = [], []
        for stmts in (node.body, node.orelse):
            s, b = dict(before), ir.Block()
            g = self._sub(s, b)
            try:
                g.visit_body(stmts)
            except _Return:
                raise self.error(node, "`return` inside a runtime `if` is not supported by the compiler yet")
            scopes.append(s)
            blocks.append(b)
        merged = []
        for name in self._assigned_names(node.body + node.orelse):
            in_then, in_else = name in scopes[0], name in scopes[1]
            if not (in_then and in_else):
                continue
            tv, ev = scopes[0][name], scopes[1][name]
            if tv is ev:
                continue
            if not _is_value(tv) and not _is_value(ev) and tv == ev:
                continue
            tt = self.info(tv)[:2] if not isinstance(getattr(tv, "type", None), BlockPtrType) else tv.type
            et = self.info(ev)[:2] if not isinstance(getattr(ev, "type", None), BlockPtrType) else ev.type
            if tt != et:
                raise self.error(node, f"mismatched type for {name} between then block ({self._tstr(tv)}) and else "
                                       f"block ({self._tstr(ev)})")
            merged.append(name)
        for b, s in zip(blocks, scopes):
            g = self._sub(s, b)
            vals = [g.materialize(s[n]) for n in merged]
            b.ops.append(ir.Op("yield", vals, []))
        types = [self.materialize(scopes[0][n]).type if not _is_value(scopes[0][n]) else scopes[0][n].type
                 for n in merged]
        res = self.emit("if", [c], types, regions=blocks)
        res = res if isinstance(res, list) else [res]
        for n, r in zip(merged, res):
            self.scope[n] = r

    def _tstr(self, v):
        if _is_value(v):
            return ir.type_str(v.type) if not isinstance(v.type, BlockPtrType) else repr(v.type)
        return f"constexpr {v!r}"

    def _carried(self, stmts):
        names = [n for n in self._assigned_names(stmts) if n in self.scope]
        out = []
        for n in names:
            v = self.scope[n]
            if not _is_value(v):
                if isinstance(_unwrap(v), (bool, int, float)):
                    v = self.materialize(v)
                    self.scope[n] = v
                else:
                    continue
            out.append(n)
        return out

    def _check_carried(self, node, carried, entry, scope):
        for n, e in zip(carried, entry):
            v = scope[n]
            if not _is_value(v):
                v = self._sub(scope, ir.Block()).materialize(v, e.dtype if not e.shape else None) \
                    if isinstance(_unwrap(v), (bool, int, float)) else v
            if not _is_value(v) or v.type != e.type:
                raise self.error(node, f"Loop-carried variable {n} has initial type {self._tstr(e)} but is re-assigned "
                                       f"to {self._tstr(v)} in loop! Please make sure that the type stays consistent.")

    def visit_For(self, node):
        from ..language import core
        if node.orelse:
            raise self.error(node, "`for ... else` is not supported")
        it = node.iter
        if not isinstance(it, ast.Call):
            raise self.error(node, "a kernel loop must iterate over range(), tl.range() or tl.static_range()")
        fn = self.visit(it.func)
        args = [self.visit(a) for a in it.args]
        kwargs = {k.arg: self.visit(k.value) for k in it.keywords}
        if fn is core.static_range:
            for a in args:
                if _is_value(a):
                    raise self.error(it, "tl.static_range bounds must be constexprs")
            for i in builtins.range(*[_unwrap(a) for a in args]):
                self.assign(node.target, i, node)
                self.visit_body(node.body)
            return
        if fn not in (builtins.range, core.range):
            raise self.error(it, f"a kernel loop must iterate over range(), tl.range() or tl.static_range(), "
                                 f"not {getattr(fn, '__name__', fn)!r}")
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "the loop variable must be a plain name")
        if len(args) == 1:
            args = [0, args[0]]
        if len(args) == 2:
            args.append(1)
        it_t = sem.int32
        for a in args:
            t, shp, _ = self.info(a)
            if shp or not t.is_int():
                raise self.error(it, f"loop bounds must be integer scalars, got {self._tstr(a)}")
            if t.int_bitwidth >= 32:
                it_t = sem.integer_promote(it_t, t)
        bounds = [self.convert(a, it_t, ()) for a in args]
        carried = self._carried(node.body)
        entry = [self.scope[n] for n in carried]
        body = ir.Block()
        iv = self.func.new_value(it_t, node.target.id)
        body.args = [iv] + [self.func.new_value(e.type, n) for n, e in zip(carried, entry)]
        scope = dict(self.scope)
        scope[node.target.id] = iv
        for n, a in zip(carried, body.args[1:]):
            scope[n] = a
        g = self._sub(scope, body, in_loop=self.in_loop + 1)
        g.visit_body(node.body)
        self._check_carried(node, carried, entry, scope)
        body.ops.append(ir.Op("yield", [scope[n] for n in carried], []))
        attrs = {k: _unwrap(v) for k, v in kwargs.items()}
        res = self.emit("for", bounds + entry, [e.type for e in entry], attrs, regions=[body])
        res = res if isinstance(res, list) else [res]
        for n, r in zip(carried, res):
            self.scope[n] = r

    def visit_While(self, node):
        if node.orelse:
            raise self.error(node, "`while ... else` is not supported")
        carried = self._carried(node.body)
        entry = [self.scope[n] for n in carried]
        cond_b, body = ir.Block(), ir.Block()
        cond_b.args = [self.func.new_value(e.type, n) for n, e in zip(carried, entry)]
        body.args = [self.func.new_value(e.type, n) for n, e in zip(carried, entry)]
        cs = dict(self.scope)
        cs.update(zip(carried, cond_b.args))
        cg = self._sub(cs, cond_b, in_loop=self.in_loop + 1)
        c = cg.visit(node.test)
        if not _is_value(c):
            c = cg.materialize(bool(c), sem.int1)
        if c.shape:
            raise self.error(node.test, "`while` on a block: the condition must be a scalar")
        cond_b.ops.append(ir.Op("condition", [c] + list(cond_b.args), []))
        bs = dict(self.scope)
        bs.update(zip(carried, body.args))
        g = self._sub(bs, body, in_loop=self.in_loop + 1)
        g.visit_body(node.body)
        self._check_carried(node, carried, entry, bs)
        body.ops.append(ir.Op("yield", [bs[n] for n in carried], []))
        res = self.emit("while", entry, [e.type for e in entry], regions=[cond_b, body])
        res = res if isinstance(res, list) else [res]
        for n, r in zip(carried, res):
            self.scope[n] = r

    # ---- expressions ----
    def lookup(self, name, node):
        if name in self.scope:
            return self.scope[name]
        if name in self.globals:
            return _unwrap(self.globals[name])
        fn = self.jitfn.fn
        if fn.__closure__ and name in fn.__code__.co_freevars:  # a kernel defined inside a function
            try:
                return _unwrap(fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents)
            except ValueError:  # an empty cell: the variable is not bound yet
                pass
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name {name!r} is not defined")

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Constant(self, node):
        return node.value

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    visit_List = visit_Tuple

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        if _is_value(base):
            if node.attr == "dtype":
                return base.dtype
            if node.attr == "type":  # the block type of a block, the dtype of a scalar (pointers too)
                return base.type
            if node.attr == "shape":
                return list(base.shape)
            if node.attr == "numel":
                n = 1
                for s in base.shape:
                    n *= s
                return n
            if node.attr == "T":
                return self.call_builtin("trans", [base], {})
            return _Method(base, node.attr)
        return _unwrap(getattr(base, node.attr))

    def apply_binop(self, op, a, b, node):
        if not _is_value(a) and not _is_value(b):
            return _PYOPS[type(op)](_unwrap(a), _unwrap(b))
        if type(op) not in _SEMOPS:
            raise self.error(node, f"unsupported operator {type(op).__name__} on tensors")
        return self.binop(_SEMOPS[type(op)], a, b)

    def visit_BinOp(self, node):
        return self.apply_binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise self.error(node, "chained comparison is not supported (write a < b and b < c)")
        a, b = self.visit(node.left), self.visit(node.comparators[0])
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) or (not _is_value(a) and not _is_value(b)):
            if _is_value(a) or _is_value(b):
                raise self.error(node, f"{type(op).__name__} is not supported on tensors")
            if isinstance(op, ast.In):
                return _unwrap(a) in _unwrap(b)
            if isinstance(op, ast.NotIn):
                return _unwrap(a) not in _unwrap(b)
            return _PYOPS[type(op)](_unwrap(a), _unwrap(b))
        return self.binop(_SEMOPS[type(op)], a, b)

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        if not _is_value(v):
            v = _unwrap(v)
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                    ast.Invert: operator.invert}[type(node.op)](v)
        if isinstance(node.op, ast.USub):
            return self.binop("sub", 0, v)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            if v.shape:
                raise self.error(node, "`not` on a block is ambiguous; use == 0")
            return self.binop("eq", v, 0)
        if v.dtype.is_floating():
            raise self.error(node, f"unexpected type {v.dtype} for ~")
        return self.binop("xor", v, -1) if not v.dtype.is_int1() else self.binop("xor", v, True)

    def visit_BoolOp(self, node):
        vals = [self.visit(v) for v in node.values]
        if not any(_is_value(v) for v in vals):
            r = _unwrap(vals[0])
            for v in vals[1:]:
                r = (r and _unwrap(v)) if isinstance(node.op, ast.And) else (r or _unwrap(v))
            return r
        for v in vals:
            if _is_value(v) and v.shape:
                raise self.error(node, "`and`/`or` on blocks: use & and |")
        r = self.binop("ne", vals[0], 0) if _is_value(vals[0]) else bool(vals[0])
        for v in vals[1:]:
            v = self.binop("ne", v, 0) if _is_value(v) else bool(v)
            r = self.binop("and" if isinstance(node.op, ast.And) else "or", r, v)
        return r

    def visit_IfExp(self, node):
        c = self.visit(node.test)
        if not _is_value(c):
            return self.visit(node.body if c else node.orelse)
        return self.call_builtin("where", [c, self.visit(node.body), self.visit(node.orelse)], {})

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        sl = node.slice
        if not _is_value(base):
            return _unwrap(base)[self.visit(sl)]
        items = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        shape, src = [], 0
        for it in items:
            if isinstance(it, ast.Constant) and it.value is None:
                shape.append(1)
            elif isinstance(it, ast.Slice) and it.lower is None and it.upper is None and it.step is None:
                if src >= len(base.shape):
                    raise self.error(node, "too many indices for the tensor")
                shape.append(base.shape[src])
                src += 1
            else:
                raise self.error(node, "unsupported tensor index: only None and : are allowed")
        if src != len(base.shape):
            raise self.error(node, "the index must name every dimension of the tensor (with :)")
        return self.emit("reshape", [base], [ir.make_type(base.dtype, sem.validate_block_shape(shape))],
                         {"shape": tuple(shape)})

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.visit(a.value))
            else:
                args.append(self.visit(a))
        kwargs = {k.arg: self.visit(k.value) for k in node.keywords}
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        from ..language import core
        from ..runtime.jit import JITFunction
        if isinstance(fn, _Method):
            if isinstance(fn.value.type, TensorDescType):
                if fn.name not in ("load", "store"):
                    raise self.error(node, f"tensor descriptors have no method {fn.name!r}")
                return getattr(self, "desc_" + fn.name)(fn.value, *args, **kwargs)
            name = {"to": "cast"}.get(fn.name, fn.name)
            return self.call_builtin(name, [fn.value] + list(args), kwargs)
        if isinstance(fn, JITFunction):
            return self.inline(fn, args, kwargs, node)
        if fn in (builtins.min, builtins.max):
            if any(_is_value(a) for a in args):
                r = args[0]
                for a in args[1:]:
                    r = self.call_builtin("minimum" if fn is builtins.min else "maximum", [r, a], {})
                return r
            return fn(*[_unwrap(a) for a in args], **kwargs)
        if fn is builtins.print:
            return self.call_builtin("device_print", [""] + list(args), {})
        if fn is builtins.isinstance and args and _is_value(args[0]):
            # a value's class: tl.tensor_descriptor for descriptors, tl.tensor for the others
            classes = _unwrap(args[1])
            classes = classes if isinstance(classes, tuple) else (classes,)
            is_desc = isinstance(args[0].type, TensorDescType)
            return any((c is core.tensor_descriptor and is_desc) or (c is core.tensor and not is_desc)
                       for c in classes)
        if fn in (builtins.len, builtins.int, builtins.float, builtins.isinstance, builtins.getattr,
                  builtins.hasattr, builtins.list, builtins.tuple, builtins.bool, builtins.abs):
            if any(_is_value(a) for a in args):
                if fn is builtins.abs:
                    return self.call_builtin("abs", args, kwargs)
                if fn is builtins.len and args[0].shape:
                    return args[0].shape[0]
                raise self.error(node, f"{fn.__name__}() of a tensor is not supported")
            return fn(*[_unwrap(a) for a in args], **kwargs)
        if fn is builtins.range or fn is core.range or fn is core.static_range:
            raise self.error(node, "range() is only supported as the iterable of a for loop")
        mod = getattr(fn, "__module__", "") or ""
        if mod.startswith("cannon.triton.language"):
            return self.call_builtin(fn.__name__, args, kwargs)
        if isinstance(fn, type) and issubclass(fn, core.constexpr):
            return args[0]
        raise self.error(node, f"unsupported function call: {getattr(fn, '__name__', fn)!r} is neither a "
                               "@triton.jit function nor a triton.language builtin")

    def inline(self, jitfn, args, kwargs, node):
        if self.depth > 32:
            raise self.error(node, "recursive @triton.jit calls are not supported")
        tree, first, lines, filename = _parse(jitfn)
        try:
            bound = jitfn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(node, f"{jitfn.__name__}: {e}") from None
        bound.apply_defaults()
        scope = dict(bound.arguments)
        g = CodeGenerator(self.func, jitfn, scope, filename, first, lines, self.in_loop, self.depth + 1)
        g.block = self.block
        try:
            g.visit(tree)
        except _Return:
            pass
        return g.ret

    # ---- builtins ----
    def call_builtin(self, name, args, kwargs):
        h = getattr(self, "b_" + name, None)
        if h is None:
            raise self.error(self.cur_node, f"tl.{name} is not supported by the compiler yet")
        return h(*args, **kwargs)

    def _scalar_int(self, x, what):
        x = _unwrap(x)
        if _is_value(x):
            raise TypeError(f"{what} must be a constexpr")
        return x

    def b_program_id(self, axis=0):
        return self.emit("program_id", [], [sem.int32], {"axis": self._scalar_int(axis, "axis")})

    def b_num_programs(self, axis=0):
        return self.emit("num_programs", [], [sem.int32], {"axis": self._scalar_int(axis, "axis")})

    def b_arange(self, start, end):
        s, e = _unwrap(start), _unwrap(end)
        if _is_value(s) or _is_value(e):
            raise TypeError("arange's arguments must be of type tl.constexpr")
        shape = sem.arange_shape(s, e)
        return self.emit("arange", [], [ir.make_type(sem.int32, shape)], {"start": s, "end": e})

    def _shape(self, shape):
        shape = _unwrap(shape)
        if isinstance(shape, int):
            shape = [shape]
        return sem.validate_block_shape([_unwrap(s) for s in shape]) if len(shape) else ()

    def b_full(self, shape, value, dtype):
        shape, dtype = self._shape(shape), _unwrap(dtype)
        v = self.convert(value, dtype, ())
        return self.emit("splat", [v], [ir.make_type(dtype, shape)]) if shape else v

    def b_zeros(self, shape, dtype):
        return self.b_full(shape, 0, dtype)

    def b_zeros_like(self, x):
        return self.b_full(list(x.shape), 0, x.dtype)

    def b_cast(self, x, dtype, fp_downcast_rounding=None, bitcast=False):
        dtype = _unwrap(dtype)
        if not _is_value(x):
            x = self.materialize(x)
        if _unwrap(bitcast):
            sem.check_bitcast(x.dtype, dtype)
            return self.emit("bitcast", [x], [ir.make_type(dtype, x.shape)])
        if x.dtype == dtype:
            return x
        return self.emit("cast", [x], [ir.make_type(dtype, x.shape)],
                         {"to": dtype.name, "rounding": _unwrap(fp_downcast_rounding)})

    def b_load(self, pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
               eviction_policy="", volatile=False):
        if _is_value(pointer) and isinstance(pointer.type, BlockPtrType):
            t = pointer.type
            return self.emit("load_block", [pointer], [ir.make_type(t.element_ty, t.block_shape)],
                             {"boundary_check": tuple(_unwrap(boundary_check) or ()),
                              "padding": _unwrap(padding_option)})
        if not _is_value(pointer) or not pointer.dtype.is_ptr():
            raise ValueError(f"Unsupported ptr type {self._tstr(pointer)} in `tl.load`")
        shape = pointer.shape
        ops = [pointer]
        if mask is not None:
            shape = sem.broadcast_shapes(shape, self.info(mask)[1])
        ptr = self.convert(pointer, pointer.dtype, shape)
        elt = pointer.dtype.element_ty
        ops = [ptr]
        if mask is not None:
            ops.append(self.convert(mask, sem.int1, shape) if _is_value(mask) else self.materialize(bool(mask),
                                                                                                   sem.int1))
            if other is not None:
                ops.append(self.convert(other, elt, shape))
        elif other is not None:
            raise ValueError("`other` cannot be provided without `mask`")
        return self.emit("load", ops, [ir.make_type(elt, shape)])

    def b_store(self, pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
        if _is_value(pointer) and isinstance(pointer.type, BlockPtrType):
            t = pointer.type
            v = self.convert(value, t.element_ty, t.block_shape)
            self.emit("store_block", [pointer, v], [], {"boundary_check": tuple(_unwrap(boundary_check) or ())})
            return None
        if not _is_value(pointer) or not pointer.dtype.is_ptr():
            raise ValueError(f"Unsupported ptr type {self._tstr(pointer)} in `tl.store`")
        elt = pointer.dtype.element_ty
        ops = [pointer, self.convert(value, elt, pointer.shape)]
        if mask is not None:
            ops.append(self.convert(mask, sem.int1, pointer.shape))
        self.emit("store", ops, [])
        return None

    def b_make_block_ptr(self, base, shape, strides, offsets, block_shape, order):
        bs = self._shape(block_shape)
        if not _is_value(base) or not base.dtype.is_ptr() or base.shape:
            raise ValueError("make_block_ptr: base must be a scalar pointer")
        n = len(bs)
        for what, xs in (("shape", shape), ("strides", strides), ("offsets", offsets)):
            if len(xs) != n:
                raise ValueError(f"make_block_ptr: {what} must have {n} entries")
        ops = [base] + [self.convert(x, sem.int64, ()) for x in list(shape) + list(strides)] + \
              [self.convert(x, sem.int32, ()) for x in offsets]
        return self.emit("make_block_ptr", ops, [BlockPtrType(base.dtype.element_ty, bs)],
                         {"order": tuple(_unwrap(order))})

    def b_make_tensor_descriptor(self, base, shape, strides, block_shape):
        bs = self._shape(block_shape)
        if not _is_value(base) or not base.dtype.is_ptr() or base.shape:
            raise ValueError("make_tensor_descriptor: base must be a scalar pointer")
        if not (len(shape) == len(strides) == len(bs)):
            raise ValueError("make_tensor_descriptor: shape, strides and block_shape must have the same length")
        if not _is_value(strides[-1]) and _unwrap(strides[-1]) != 1:
            raise ValueError("make_tensor_descriptor: the last dimension must be contiguous (stride 1)")
        ops = [base] + [self.convert(x, sem.int64, ()) for x in list(shape) + list(strides)]
        return self.emit("make_tensor_descriptor", ops, [TensorDescType(base.dtype.element_ty, bs)])

    def desc_load(self, desc, offsets):
        t = desc.type
        if len(offsets) != len(t.block_shape):
            raise ValueError(f"tensor descriptor: {len(t.block_shape)} offsets expected, got {len(offsets)}")
        return self.emit("desc_load", [desc] + [self.convert(x, sem.int32, ()) for x in offsets],
                         [ir.make_type(t.element_ty, t.block_shape)])

    def desc_store(self, desc, offsets, value):
        t = desc.type
        if len(offsets) != len(t.block_shape):
            raise ValueError(f"tensor descriptor: {len(t.block_shape)} offsets expected, got {len(offsets)}")
        self.emit("desc_store", [desc] + [self.convert(x, sem.int32, ()) for x in offsets] +
                  [self.convert(value, t.element_ty, t.block_shape)], [])

    def b_advance(self, base, offsets):
        if not _is_value(base) or not isinstance(base.type, BlockPtrType):
            raise ValueError("advance takes a block pointer made by tl.make_block_ptr")
        return self.emit("advance", [base] + [self.convert(x, sem.int32, ()) for x in offsets], [base.type])

    def b_where(self, condition, x, y):
        tx, sx, xs = self.info(x)
        ty, sy, ys = self.info(y)
        t = sem.where_type(tx, xs, ty, ys)
        shape = sem.broadcast_shapes(sem.broadcast_shapes(self.info(condition)[1], sx), sy)
        return self.emit("where", [self.convert(condition, sem.int1, shape), self.convert(x, t, shape),
                                   self.convert(y, t, shape)], [ir.make_type(t, shape)])

    def _minmax(self, name, x, y, propagate_nan=0):
        tx, sx, xs = self.info(x)
        ty, sy, ys = self.info(y)
        t = sem.minmax_type(tx, xs, ty, ys)
        shape = sem.broadcast_shapes(sx, sy)
        return self.emit(name, [self.convert(x, t, shape), self.convert(y, t, shape)], [ir.make_type(t, shape)],
                         {"propagate_nan": _unwrap(propagate_nan)})

    def b_maximum(self, x, y, propagate_nan=0):
        return self._minmax("maximum", x, y, propagate_nan)

    def b_minimum(self, x, y, propagate_nan=0):
        return self._minmax("minimum", x, y, propagate_nan)

    def b_dot(self, a, b, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
              out_dtype=sem.float32):
        ret, shape, _ = sem.dot_types(a.dtype, a.shape, b.dtype, b.shape, acc.dtype if acc is not None else None,
                                      acc.shape if acc is not None else None, _unwrap(out_dtype))
        ops = [a, b] + ([acc] if acc is not None else [])
        return self.emit("dot", ops, [ir.make_type(ret, shape)], {"input_precision": "ieee"})

    def _reduce_axis(self, x, axis):
        axis = _unwrap(axis)
        return None if axis is None else sem.normalize_axis(axis, len(x.shape))

    def b_sum(self, x, axis=None, keep_dims=False, dtype=None):
        t = sem.sum_dtype(x.dtype, _unwrap(dtype))
        ax = self._reduce_axis(x, axis)
        return self.emit("reduce_sum", [self.b_cast(x, t)], [ir.make_type(t, sem.reduce_shape(x.shape, ax,
                                                                                                 _unwrap(keep_dims)))],
                         {"axis": ax, "keep_dims": bool(_unwrap(keep_dims))})

    def _mm(self, op, x, axis, return_indices, keep_dims):
        ax = self._reduce_axis(x, axis)
        shape = sem.reduce_shape(x.shape, ax, _unwrap(keep_dims))
        attrs = {"axis": ax, "keep_dims": bool(_unwrap(keep_dims))}
        if _unwrap(return_indices):
            t = sem.arg_reduce_dtype(x.dtype)
            return tuple(self.emit(f"reduce_arg{op}", [self.b_cast(x, t)],
                                   [ir.make_type(t, shape), ir.make_type(sem.int32, shape)], attrs))
        t = sem.minmax_reduce_dtype(x.dtype)
        return self.emit(f"reduce_{op}", [self.b_cast(x, t)], [ir.make_type(t, shape)], attrs)

    def b_max(self, x, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
        return self._mm("max", x, axis, return_indices, keep_dims)

    def b_min(self, x, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
        return self._mm("min", x, axis, return_indices, keep_dims)

    def b_argmax(self, x, axis, tie_break_left=True, keep_dims=False):
        return self._mm("max", x, axis, True, keep_dims)[1]

    def b_argmin(self, x, axis, tie_break_left=True, keep_dims=False):
        return self._mm("min", x, axis, True, keep_dims)[1]

    def b_cumsum(self, x, axis=0, reverse=False, dtype=None):
        t = sem.cumsum_dtype(x.dtype, _unwrap(dtype))
        ax = sem.normalize_axis(_unwrap(axis), len(x.shape))
        return self.emit("scan_sum", [self.b_cast(x, t)], [ir.make_type(t, x.shape)],
                         {"axis": ax, "reverse": bool(_unwrap(reverse))})

    def b_reduce(self, x, axis, combine_fn, keep_dims=False):
        if isinstance(x, tuple):
            raise TypeError("tl.reduce over several tensors is not supported by the compiler yet")
        ax = self._reduce_axis(x, axis)
        region = ir.Block()
        a, b = self.func.new_value(x.dtype, "a"), self.func.new_value(x.dtype, "b")
        region.args = [a, b]
        g = self._sub({}, region)
        g.block = region
        r = g.inline(combine_fn, [a, b], {}, self.cur_node)
        if not _is_value(r):
            r = g.materialize(r, x.dtype)
        if r.shape:
            raise TypeError("the combine function of tl.reduce must return a scalar")
        region.ops.append(ir.Op("yield", [r], []))
        return self.emit("reduce", [x], [ir.make_type(r.dtype, sem.reduce_shape(x.shape, ax, _unwrap(keep_dims)))],
                         {"axis": ax, "combine": combine_fn.__name__}, regions=[region])

    def b_associative_scan(self, x, axis, combine_fn, reverse=False):
        if isinstance(x, tuple):
            raise TypeError("tl.associative_scan over several tensors is not supported by the compiler yet")
        ax = sem.normalize_axis(_unwrap(axis), len(x.shape))
        region = ir.Block()
        a, b = self.func.new_value(x.dtype, "a"), self.func.new_value(x.dtype, "b")
        region.args = [a, b]
        g = self._sub({}, region)
        r = g.inline(combine_fn, [a, b], {}, self.cur_node)
        if not _is_value(r):
            r = g.materialize(r, x.dtype)
        if r.shape or r.dtype != x.dtype:
            raise TypeError("the combine function of tl.associative_scan must return a scalar of its input's type")
        region.ops.append(ir.Op("yield", [r], []))
        return self.emit("scan", [x], [x.type], {"axis": ax, "reverse": bool(_unwrap(reverse)),
                                                 "combine": combine_fn.__name__}, regions=[region])

    def b_cumprod(self, x, axis=0, reverse=False):
        t = sem.float32 if x.dtype.is_bf16() else x.dtype
        ax = sem.normalize_axis(_unwrap(axis), len(x.shape))
        return self.emit("scan_prod", [self.b_cast(x, t)], [ir.make_type(t, x.shape)],
                         {"axis": ax, "reverse": bool(_unwrap(reverse))})

    def _math(self, name, x):
        if not _is_value(x):
            x = self.materialize(x)
        sem.check_math_dtype(name, x.dtype)
        return self.emit(name, [x], [x.type])

    def __getattr__(self, name):
        if name.startswith("b_") and name[2:] in ("exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin",
                                                  "cos", "floor", "ceil", "erf"):
            return lambda x: self._math(name[2:], x)
        raise AttributeError(name)

    def b_abs(self, x):
        return self.emit("abs", [x], [x.type]) if _is_value(x) else builtins.abs(_unwrap(x))

    def b_fma(self, x, y, z):
        t = sem.computation_type(sem.computation_type(self.info(x)[0], False, self.info(y)[0], False), False,
                                 self.info(z)[0], False)
        if not t.is_floating():
            raise ValueError(f"fma needs floating-point operands, got {t}")
        shape = sem.broadcast_shapes(sem.broadcast_shapes(self.info(x)[1], self.info(y)[1]), self.info(z)[1])
        return self.emit("fma", [self.convert(v, t, shape) for v in (x, y, z)], [ir.make_type(t, shape)])

    def b_sigmoid(self, x):
        return self.binop("truediv", 1, self.binop("add", 1, self._math("exp", self.binop("sub", 0, x))))

    def b_softmax(self, x, dim=None, keep_dims=False, ieee_rounding=False):
        d = 0 if _unwrap(dim) is None else _unwrap(dim)
        z = self.binop("sub", x, self.b_max(x, d, keep_dims=True))
        num = self._math("exp", z)
        return self.binop("truediv", num, self.b_sum(num, d, keep_dims=True))

    def b_cdiv(self, x, div):
        return self.binop("floordiv", self.binop("sub", self.binop("add", x, div), 1), div)

    def b_fdiv(self, x, y, ieee_rounding=False):
        return self.binop("truediv", x, y)

    def b_div_rn(self, x, y):
        return self.binop("truediv", x, y)

    def _dims(self, dims):
        if len(dims) == 1 and isinstance(_unwrap(dims[0]), (list, tuple)):
            dims = _unwrap(dims[0])
        return [_unwrap(d) for d in dims]

    def b_reshape(self, x, *shape, can_reorder=False):
        shape = self._dims(shape)
        sem.reshape_shape(x.shape, shape)
        return self.emit("reshape", [x], [ir.make_type(x.dtype, shape)], {"shape": tuple(shape)})

    def b_view(self, x, *shape):
        return self.b_reshape(x, *shape, can_reorder=True)

    def b_ravel(self, x, can_reorder=False):
        n = 1
        for s in x.shape:
            n *= s
        return self.b_reshape(x, [n])

    def b_permute(self, x, *dims):
        dims = self._dims(dims)
        shape = sem.permute_shape(x.shape, dims)
        return self.emit("permute", [x], [ir.make_type(x.dtype, shape)], {"dims": tuple(dims)})

    def b_trans(self, x, *dims):
        dims = self._dims(dims)
        if not dims:
            if len(x.shape) != 2:
                raise ValueError(f"trans without dims needs a 2-D tensor, got shape {list(x.shape)}")
            dims = [1, 0]
        return self.b_permute(x, dims)

    def b_broadcast_to(self, x, *shape):
        shape = tuple(self._dims(shape))
        return self.convert(x, self.info(x)[0], sem.validate_block_shape(shape))

    def b_expand_dims(self, x, axis):
        axes = _unwrap(axis)
        axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        shape = list(x.shape)
        nd = len(shape) + len(axes)
        for a in sorted(sem.normalize_axis(a, nd) for a in axes):
            shape.insert(a, 1)
        return self.emit("reshape", [x], [ir.make_type(x.dtype, shape)], {"shape": tuple(shape)})

    def b_split(self, x):
        shape = sem.split_shape(x.shape)
        return tuple(self.emit("split", [x], [ir.make_type(x.dtype, shape), ir.make_type(x.dtype, shape)]))

    def b_join(self, a, b):
        if a.dtype != b.dtype:
            raise ValueError(f"join: both inputs must have the same dtype, got {a.dtype} and {b.dtype}")
        shape = sem.broadcast_shapes(a.shape, b.shape)
        out = sem.join_shape(shape, shape)
        return self.emit("join", [self.convert(a, a.dtype, shape), self.convert(b, b.dtype, shape)],
                         [ir.make_type(a.dtype, out)])

    def _atomic(self, op, pointer, val, mask=None, sem_=None, scope=None, cmp=None):
        if not _is_value(pointer) or not pointer.dtype.is_ptr():
            raise ValueError(f"Unsupported ptr type in `tl.atomic_{op}`")
        elt = pointer.dtype.element_ty
        shape = pointer.shape
        for x in (val, mask, cmp):
            if x is not None:
                shape = sem.broadcast_shapes(shape, self.info(x)[1])
        ops = [self.convert(pointer, pointer.dtype, shape)]
        if cmp is not None:
            ops.append(self.convert(cmp, elt, shape))
        ops.append(self.convert(val, elt, shape))
        if mask is not None:
            ops.append(self.convert(mask, sem.int1, shape))
        return self.emit(f"atomic_{op}", ops, [ir.make_type(elt, shape)], {"sem": _unwrap(sem_)})

    def b_atomic_add(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("add", pointer, val, mask, sem)

    def b_atomic_max(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("max", pointer, val, mask, sem)

    def b_atomic_min(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("min", pointer, val, mask, sem)

    def b_atomic_and(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("and", pointer, val, mask, sem)

    def b_atomic_or(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("or", pointer, val, mask, sem)

    def b_atomic_xor(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("xor", pointer, val, mask, sem)

    def b_atomic_xchg(self, pointer, val, mask=None, sem=None, scope=None):
        return self._atomic("xchg", pointer, val, mask, sem)

    def b_atomic_cas(self, pointer, cmp, val, sem=None, scope=None):
        return self._atomic("cas", pointer, val, None, sem, cmp=cmp)

    def b_debug_barrier(self):
        self.emit("barrier", [], [])

    def _hint(self, kind, x, values):
        vals = _unwrap(values)
        vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
        if not _is_value(x):
            return x
        self.emit("hint", [x], [], {"kind": kind, "values": tuple(_unwrap(v) for v in vals)})
        return x

    def b_multiple_of(self, x, values):
        return self._hint("multiple_of", x, values)

    def b_max_contiguous(self, x, values):
        return self._hint("max_contiguous", x, values)

    def b_max_constancy(self, x, values):
        return self._hint("max_constancy", x, values)

    def b_assume(self, cond):
        if _is_value(cond):
            self.emit("assume", [cond], [])
        elif not cond:
            raise ValueError("tl.assume: the condition is false at compile time")

    def b_static_assert(self, cond, msg=""):
        if _is_value(cond):
            raise TypeError("tl.static_assert needs a constexpr condition")
        if not cond:
            raise self.error(self.cur_node, f"Static assertion failed: {_unwrap(msg)}", CompileTimeAssertionFailure)

    def b_static_print(self, *values, **kwargs):
        print(*[_unwrap(v) for v in values])

    def b_device_print(self, prefix, *args, hex=False):
        self.emit("print", [a if _is_value(a) else self.materialize(a) for a in args], [],
                  {"prefix": _unwrap(prefix), "hex": bool(_unwrap(hex))})

    def b_device_assert(self, cond, msg="", mask=None):
        c = cond if _is_value(cond) else self.materialize(bool(_unwrap(cond)), sem.int1)
        if c.dtype != sem.int1:
            c = self.binop("ne", c, 0)
        if mask is not None:
            c = self.binop("or", c, self.binop("eq", self.b_cast(mask, sem.int1), 0))
        self.emit("device_assert", [c], [], {"msg": _unwrap(msg)})


def _parse(jitfn):
    fn = jitfn.fn
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise CompilationError(f"cannot read the source of {jitfn.__name__}") from None
    src = textwrap.dedent("".join(lines))
    tree = ast.parse(src)
    fdef = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return fdef, first, src.splitlines(), inspect.getsourcefile(fn)


def compile_ir(kernel, signature, constexprs=None):
    """The typed tile IR of ``kernel`` (a JITFunction) for one specialization: ``signature`` maps each
    runtime parameter to its type (a dtype, or ``pointer_type(dtype)``; strings like ``'*fp32'`` and
    ``'i32'`` are accepted), ``constexprs`` maps the constexpr parameters to their values."""
    constexprs = dict(constexprs or {})
    args, scope, descs = [], {}, []
    func = ir.Function(kernel.__name__, [], constexprs)
    for p in kernel.params:
        if p.is_constexpr or p.name in constexprs:
            if p.name in constexprs:
                scope[p.name] = constexprs[p.name]
            elif p.default is not inspect.Parameter.empty:
                scope[p.name] = p.default
            else:
                raise CompilationError(f"{kernel.__name__}: constexpr {p.name!r} has no value")
            continue
        if p.name not in signature:
            raise CompilationError(f"{kernel.__name__}: no type given for parameter {p.name!r}")
        spec = signature[p.name]
        if hasattr(spec, "block_shape") and hasattr(spec, "element_ty"):  # a host tensor descriptor
            rank = len(spec.block_shape)
            parts = [ir.Value(len(args), sem.pointer_type(spec.element_ty), p.name)]
            args.append(parts[0])
            for k in range(2 * rank):
                parts.append(ir.Value(len(args), sem.int64, f"{p.name}.{'shape' if k < rank else 'stride'}"))
                args.append(parts[-1])
            descs.append((p.name, parts, spec.block_shape))
            continue
        t = _sig_type(signature[p.name])
        v = ir.Value(len(args), t, p.name)
        args.append(v)
        scope[p.name] = v
    func.args = args
    func.body = ir.Block(args)
    func._next = len(args)
    tree, first, lines, filename = _parse(kernel)
    g = CodeGenerator(func, kernel, scope, filename, first, lines)
    for name, parts, bs in descs:
        rank = len(bs)
        scope[name] = g.b_make_tensor_descriptor(parts[0], parts[1:1 + rank], parts[1 + rank:], list(bs))
    try:
        g.visit(tree)
    except _Return:
        pass
    if g.ret is not None:
        raise CompilationError(f"{kernel.__name__}: a kernel cannot return a value")
    return func


_SIG = {"i1": sem.int1, "i8": sem.int8, "i16": sem.int16, "i32": sem.int32, "i64": sem.int64, "u1": sem.int1,
        "u8": sem.uint8, "u16": sem.uint16, "u32": sem.uint32, "u64": sem.uint64, "fp16": sem.float16,
        "bf16": sem.bfloat16, "fp32": sem.float32, "fp64": sem.float64}


def _sig_type(t):
    if isinstance(t, sem.dtype):
        return t
    if isinstance(t, str):
        if t.startswith("*"):
            return sem.pointer_type(_sig_type(t[1:]))
        if t in _SIG:
            return _SIG[t]
        return sem.dtype_from_name(t)
    raise CompilationError(f"unsupported signature type {t!r}")
