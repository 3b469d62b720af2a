"""triton.language for the interpreter: ``tensor`` values backed by numpy arrays, and the
builtins, each typed by cannon.triton.semantics (the same rules the compiler types its IR with).

A ``tensor`` is a block (shape of powers of two) or a scalar (shape ()). Python numbers and
constexprs met in an expression are *scalars* in the sense of the promotion rules: they do not
promote a tensor of an equal or higher kind. Operators on Python numbers alone stay Python (so
``//`` and ``%`` on constexprs round like Python, while on tensors they truncate like C).
"""
import builtins
import functools
import math as _pymath

import numpy as np

from .. import interpreter as _it
from .. import semantics as sem
from ..errors import CompilationError, CompileTimeAssertionFailure
from ..semantics import block_type, float32, int1, int32, int64, pointer_type, uint64

float8e5 = float8e4nv = float8e4b15 = None  # fp8 types are not supported by this implementation yet
void = None
pi32_t = pointer_type(int32)


class constexpr:
    """A compile-time constant. As an annotation it marks a kernel parameter whose value is bound
    at launch; values of such parameters reach the kernel body as plain Python values."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value.__index__()

    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __hash__(self):
        return hash(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.value, name)


def _cx_binop(name):
    def f(self, other):
        return getattr(self.value, name)(_unwrap(other))
    return f


for _n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__lt__", "__le__",
           "__gt__", "__ge__", "__eq__", "__ne__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
           "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__"):
    setattr(constexpr, _n, _cx_binop(_n))
constexpr.__neg__ = lambda self: -self.value
constexpr.__invert__ = lambda self: ~self.value
constexpr.__hash__ = lambda self: hash(self.value)


def _unwrap(x):
    return x.value if isinstance(x, constexpr) else x


def is_builtin(fn):
    return getattr(fn, "__triton_builtin__", False)


def builtin(fn):
    fn.__triton_builtin__ = True
    return fn


# ---- values -------------------------------------------------------------------------------------

def _fix(values, t):
    """Normalizes a numpy result to the computation dtype of t (bf16 rounded)."""
    a = np.asarray(values)
    if t.is_bf16():
        return _it.round_bf16(a)
    want = _it.np_dtype(t)
    return a if a.dtype == want else a.astype(want)


class tensor:
    """A block or scalar value of the interpreter: ``handle`` (numpy array), ``dtype``, ``shape``."""

    def __init__(self, handle, dtype_):
        self.handle = handle if isinstance(handle, np.ndarray) else np.asarray(handle)
        self.dtype = dtype_
        self.shape = tuple(self.handle.shape)
        self.numel = int(self.handle.size)
        self.type = block_type(dtype_, self.shape) if self.shape else dtype_

    # ---- python protocol ----
    def __repr__(self):
        return f"tensor({self.handle.tolist()!r}, dtype={self.dtype})" if self.numel <= 64 else \
            f"tensor(shape={list(self.shape)}, dtype={self.dtype})"

    def __str__(self):
        return str(self.handle)

    def __bool__(self):
        if self.numel != 1 or self.shape:
            raise ValueError("the truth value of a multi-element tensor is ambiguous; use a scalar condition")
        return bool(self.handle)

    def __index__(self):
        if self.shape or not self.dtype.is_int():
            raise TypeError(f"only integer scalars can be used as an index, got {self.type}")
        return int(self.handle)

    def __int__(self):
        return int(self.handle) if not self.shape else self.__index__()

    def __float__(self):
        return float(self.handle)

    def __hash__(self):
        return id(self)

    def __iter__(self):
        raise TypeError("tensors are not iterable; use tl.split or a static_range over indices")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a scalar tensor")
        return self.shape[0]

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        out = []
        for i in idx:
            i = _unwrap(i)
            if i is None:
                out.append(None)
            elif isinstance(i, slice) and i == slice(None):
                out.append(slice(None))
            else:
                raise ValueError(f"unsupported tensor index: {i!r} (only None and : are allowed)")
        if builtins.sum(1 for i in out if i is not None) != len(self.shape):
            raise ValueError(f"index {idx} does not match a tensor of rank {len(self.shape)}")
        r = self.handle[tuple(out)]
        sem.validate_block_shape(r.shape)
        return tensor(r, self.dtype)

    # ---- operators ----
    def __add__(self, o):
        return _binop("add", self, o)

    def __radd__(self, o):
        return _binop("add", o, self)

    def __sub__(self, o):
        return _binop("sub", self, o)

    def __rsub__(self, o):
        return _binop("sub", o, self)

    def __mul__(self, o):
        return _binop("mul", self, o)

    def __rmul__(self, o):
        return _binop("mul", o, self)

    def __truediv__(self, o):
        return _binop("truediv", self, o)

    def __rtruediv__(self, o):
        return _binop("truediv", o, self)

    def __floordiv__(self, o):
        return _binop("floordiv", self, o)

    def __rfloordiv__(self, o):
        return _binop("floordiv", o, self)

    def __mod__(self, o):
        return _binop("mod", self, o)

    def __rmod__(self, o):
        return _binop("mod", o, self)

    def __lt__(self, o):
        return _binop("lt", self, o)

    def __le__(self, o):
        return _binop("le", self, o)

    def __gt__(self, o):
        return _binop("gt", self, o)

    def __ge__(self, o):
        return _binop("ge", self, o)

    def __eq__(self, o):
        return _binop("eq", self, o)

    def __ne__(self, o):
        return _binop("ne", self, o)

    def __and__(self, o):
        return _binop("and", self, o)

    def __rand__(self, o):
        return _binop("and", o, self)

    def __or__(self, o):
        return _binop("or", self, o)

    def __ror__(self, o):
        return _binop("or", o, self)

    def __xor__(self, o):
        return _binop("xor", self, o)

    def __rxor__(self, o):
        return _binop("xor", o, self)

    def __lshift__(self, o):
        return _binop("lshift", self, o)

    def __rlshift__(self, o):
        return _binop("lshift", o, self)

    def __rshift__(self, o):
        return _binop("rshift", self, o)

    def __rrshift__(self, o):
        return _binop("rshift", o, self)

    def __neg__(self):
        if self.dtype.is_ptr():
            raise TypeError("cannot negate a pointer")
        return _binop("sub", 0, self)

    def __pos__(self):
        return self

    def __abs__(self):
        return abs(self)

    def __invert__(self):
        if self.dtype.is_floating() or self.dtype.is_ptr():
            raise TypeError(f"unexpected type {self.dtype} for ~")
        return tensor(np.logical_not(self.handle) if self.dtype.is_int1() else np.invert(self.handle), self.dtype)

    def logical_and(self, o):
        return _binop("and", to_tensor(self).to(int1), to_tensor(o).to(int1))

    def logical_or(self, o):
        return _binop("or", to_tensor(self).to(int1), to_tensor(o).to(int1))

    def __pow__(self, o):
        raise TypeError("** is not supported on tensors; use tl.exp2/tl.log2 or a loop")

    # ---- methods ----
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self, dtype, fp_downcast_rounding, bitcast)

    @property
    def T(self):
        return trans(self)

    def reshape(self, *shape, can_reorder=False):
        return reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        return view(self, *shape)

    def trans(self, *dims):
        return trans(self, *dims)

    def permute(self, *dims):
        return permute(self, *dims)

    def broadcast_to(self, *shape):
        return broadcast_to(self, *shape)

    def expand_dims(self, axis):
        return expand_dims(self, axis)

    def split(self):
        return split(self)

    def ravel(self):
        return ravel(self)


def _member(fn):
    setattr(tensor, fn.__name__, lambda self, *a, **k: fn(self, *a, **k))
    return fn


def _scalar_value(v):
    """(numpy value, dtype) of a Python scalar."""
    t = sem.scalar_dtype(v)
    return np.asarray(v), t


def to_tensor(x):
    """A tensor from a tensor or a Python scalar (typed by value)."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x
    if isinstance(x, (bool, int, float, np.integer, np.floating, np.bool_)):
        if isinstance(x, np.generic):
            x = x.item()
        v, t = _scalar_value(x)
        return tensor(_cast_values(v, t, t), t)
    raise TypeError(f"cannot convert {x!r} of type {type(x).__name__} to a tensor")


def _operand(x):
    """(tensor, is_python_scalar)."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x, False
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, (bool, int, float)):
        return _ScalarOperand(x), True
    raise TypeError(f"unsupported operand {x!r} of type {type(x).__name__}")


class _ScalarOperand:
    def __init__(self, v):
        self.value = v
        self.dtype = sem.scalar_dtype(v)
        self.shape = ()

    @property
    def handle(self):
        return np.asarray(self.value)


def _cast_values(v, src, dst):
    """numpy values of type src -> computation values of type dst (value conversion)."""
    v = np.asarray(v)
    if src == dst and not dst.is_bf16():
        return v.astype(_it.np_dtype(dst), copy=False)
    if dst.is_int1():
        return v != 0
    if dst.is_ptr():
        return v.astype(np.int64)
    if dst.is_floating():
        if dst.is_bf16():
            return _it.round_bf16(v.astype(np.float64).astype(np.float32) if v.dtype != np.float32 else v)
        return v.astype(_it.np_dtype(dst))
    # integer destination
    if v.dtype.kind == "f":
        v = np.trunc(v)
        bad = ~np.isfinite(v)
        if bad.any():
            v = np.where(bad, 0, v)
        if dst.is_int_unsigned():
            return v.astype(np.int64 if dst.int_bitwidth < 64 else np.uint64).astype(_it.np_dtype(dst))
        return v.astype(np.int64).astype(_it.np_dtype(dst)) if dst.int_bitwidth < 64 else \
            v.astype(_it.np_dtype(dst))
    return v.astype(_it.np_dtype(dst))


_binary_types = functools.lru_cache(maxsize=4096)(sem.binary_types)
_broadcast_shapes = functools.lru_cache(maxsize=4096)(sem.broadcast_shapes)
_validate_block_shape = functools.lru_cache(maxsize=4096)(sem.validate_block_shape)


def _binop(op, a, b):
    # numpy's floating-point warnings are off for the whole launch (runtime/jit.py): wrapping integer
    # arithmetic and inf/nan results are the semantics, not errors
    A, a_s = _operand(a)
    B, b_s = _operand(b)
    ta, tb, tr = _binary_types(op, A.dtype, a_s, B.dtype, b_s)
    shape = _broadcast_shapes(A.shape, B.shape)
    if shape:
        _validate_block_shape(shape)
    x = _cast_values(A.handle, A.dtype, ta)
    y = _cast_values(B.handle, B.dtype, tb)
    if tr.is_ptr():
        ptr, off, pt = (x, y, ta) if ta.is_ptr() else (y, x, tb)
        step = pt.element_ty.itemsize if not pt.element_ty.is_int1() else 1
        off = off.astype(np.int64)
        r = ptr + off * step if op == "add" else ptr - off * step
        return tensor(np.asarray(r, dtype=np.int64), tr)
    if ta.is_int1() and op in ("add", "sub", "mul", "floordiv", "mod"):
        x, y = x.astype(np.int8), y.astype(np.int8)
    if op == "add":
        r = x + y
    elif op == "sub":
        r = x - y
    elif op == "mul":
        r = x * y
    elif op == "truediv":
        r = x / y
    elif op == "floordiv":
        r = _trunc_div(x, y)
    elif op == "mod":
        r = np.fmod(x, y)
    elif op == "lt":
        r = x < y
    elif op == "le":
        r = x <= y
    elif op == "gt":
        r = x > y
    elif op == "ge":
        r = x >= y
    elif op == "eq":
        r = x == y
    elif op == "ne":
        r = x != y
    elif op == "and":
        r = x & y
    elif op == "or":
        r = x | y
    elif op == "xor":
        r = x ^ y
    elif op == "lshift":
        r = np.left_shift(x, y.astype(x.dtype))
    elif op == "rshift":
        r = np.right_shift(x, y.astype(x.dtype))
    else:
        raise AssertionError(op)
    if tr.is_int1() and op in ("add", "sub", "mul", "floordiv", "mod"):
        r = (np.asarray(r) & 1) != 0
    return tensor(_fix(r, tr), tr)


def _trunc_div(x, y):
    """Integer division rounding toward zero (C); a zero divisor gives 0 (undefined in Triton)."""
    safe = np.where(y == 0, 1, y).astype(y.dtype)
    q = x // safe
    r = x - q * safe
    fix = (r != 0) & ((x < 0) != (safe < 0))
    return np.where(y == 0, 0, q + fix.astype(q.dtype)).astype(x.dtype if x.dtype == y.dtype else q.dtype)


# ---- programs -----------------------------------------------------------------------------------

def _axis(axis):
    axis = _unwrap(axis)
    if axis not in (0, 1, 2):
        raise ValueError(f"program_id axis must be 0, 1 or 2 but got {axis}")
    return axis


@builtin
def program_id(axis):
    return tensor(np.int32(_it.current().pid[_axis(axis)]), int32)


@builtin
def num_programs(axis):
    return tensor(np.int32(_it.current().grid[_axis(axis)]), int32)


# ---- creation -----------------------------------------------------------------------------------

@builtin
def arange(start, end):
    start, end = _unwrap(start), _unwrap(end)
    sem.arange_shape(start, end)
    return tensor(np.arange(start, end, dtype=np.int32), int32)


def _shape_arg(shape):
    shape = _unwrap(shape)
    if isinstance(shape, (int, tensor)):
        shape = [shape]
    return sem.validate_block_shape([_unwrap(s) for s in shape]) if len(shape) else ()


@builtin
def full(shape, value, dtype):
    shape = _shape_arg(shape)
    dtype = _unwrap(dtype)
    v = to_tensor(value)
    return tensor(np.broadcast_to(_cast_values(v.handle, v.dtype, dtype), shape).copy(), dtype)


@builtin
def zeros(shape, dtype):
    return full(shape, 0, dtype)


@builtin
def zeros_like(input):
    return zeros(input.shape, input.dtype)


@builtin
def full_like(input, value):
    return full(input.shape, value, input.dtype)


# ---- casts --------------------------------------------------------------------------------------

@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    x = to_tensor(input)
    dst = _unwrap(dtype)
    if not isinstance(dst, sem.dtype):
        raise TypeError(f"cast: {dst!r} is not a triton dtype")
    src = x.dtype
    if _unwrap(bitcast):
        sem.check_bitcast(src, dst)
        raw = np.ascontiguousarray(_it.to_memory(x.handle, src) if not src.is_ptr() else x.handle).reshape(-1)
        bits = raw.view(_it.memory_dtype(dst)).reshape(x.shape)
        return tensor(_it.from_memory(bits, dst) if not dst.is_ptr() else bits, dst)
    if src.is_ptr() and not (dst.is_ptr() or dst in (int64, uint64, int1)):
        raise TypeError(f"cannot cast a pointer to {dst}")
    rounding = _unwrap(fp_downcast_rounding)
    if rounding not in (None, "rtne", "rtz"):
        raise ValueError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {rounding!r}")
    r = _cast_values(x.handle, src, dst)
    if rounding == "rtz" and src.is_floating() and dst.is_floating() and \
            dst.primitive_bitwidth < src.primitive_bitwidth:
        wide = x.handle.astype(np.float64)
        r64 = r.astype(np.float64)
        away = np.abs(r64) > np.abs(wide)
        if away.any():
            if dst.is_bf16():
                bits = np.ascontiguousarray(x.handle.astype(np.float32)).view(np.uint32) & np.uint32(0xFFFF0000)
                r = np.where(away, bits.view(np.float32), r)
            else:
                r = np.where(away, np.nextafter(r, np.zeros_like(r)), r)
    return tensor(_fix(r, dst), dst)


# ---- memory -------------------------------------------------------------------------------------

def _broadcast_pair(a, b):
    shape = sem.broadcast_shapes(a.shape, b.shape)
    return (tensor(np.broadcast_to(a.handle, shape), a.dtype) if a.shape != shape else a,
            tensor(np.broadcast_to(b.handle, shape), b.dtype) if b.shape != shape else b)


def _check_ptr(pointer, what):
    if isinstance(pointer, block_pointer):
        return
    if not isinstance(pointer, tensor) or not pointer.dtype.is_ptr():
        raise ValueError(f"Unsupported ptr type {getattr(pointer, 'type', type(pointer).__name__)} in `tl.{what}`")


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    pointer, mask, other = _unwrap(pointer), _unwrap(mask), _unwrap(other)
    _check_ptr(pointer, "load")
    if isinstance(pointer, block_pointer):
        if mask is not None or other is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for loading block pointers")
        return pointer._load(_unwrap(boundary_check), _unwrap(padding_option))
    if _unwrap(padding_option) or _unwrap(boundary_check):
        raise ValueError("`padding_option` and `boundary_check` apply to block pointers only")
    elt = pointer.dtype.element_ty
    launch = _it.current()
    if mask is None:
        if other is not None:
            raise ValueError("`other` cannot be provided without `mask`")
        addrs = pointer.handle.reshape(-1)
        vals = launch.gather(addrs, elt)
        return tensor(vals.reshape(pointer.shape), elt)
    m = to_tensor(mask).to(int1) if not (isinstance(mask, tensor) and mask.dtype.is_int1()) else mask
    ptr, m = _broadcast_pair(pointer, m)
    flat = m.handle.reshape(-1)
    out = np.zeros(flat.size, _it.np_dtype(elt))
    if other is not None:
        o = to_tensor(other)
        ov = _cast_values(o.handle, o.dtype, elt)
        out = np.broadcast_to(ov, ptr.shape).reshape(-1).copy() if o.shape or ptr.shape else \
            np.asarray(ov, _it.np_dtype(elt)).reshape(1).copy()
        if sem.broadcast_shapes(o.shape, ptr.shape) != ptr.shape:
            raise ValueError(f"other of shape {list(o.shape)} does not broadcast to {list(ptr.shape)}")
    lanes = np.nonzero(flat)[0]
    if lanes.size:
        out[lanes] = launch.gather(ptr.handle.reshape(-1)[lanes], elt)
    return tensor(out.reshape(ptr.shape), elt)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    pointer, mask = _unwrap(pointer), _unwrap(mask)
    _check_ptr(pointer, "store")
    v = to_tensor(value)
    if isinstance(pointer, block_pointer):
        if mask is not None:
            raise ValueError("`mask` argument cannot be specified for storing block pointers")
        return pointer._store(v, _unwrap(boundary_check))
    elt = pointer.dtype.element_ty
    launch = _it.current()
    if sem.broadcast_shapes(v.shape, pointer.shape) != pointer.shape:
        raise ValueError(f"value of shape {list(v.shape)} cannot be stored through pointers of shape "
                         f"{list(pointer.shape)}")
    vals = np.broadcast_to(_cast_values(v.handle, v.dtype, elt), pointer.shape).reshape(-1)
    addrs = pointer.handle.reshape(-1)
    if mask is None:
        launch.scatter(addrs, vals, elt)
        return None
    m = to_tensor(mask).to(int1)
    if sem.broadcast_shapes(m.shape, pointer.shape) != pointer.shape:
        raise ValueError(f"mask of shape {list(m.shape)} does not broadcast to {list(pointer.shape)}")
    lanes = np.nonzero(np.broadcast_to(m.handle, pointer.shape).reshape(-1))[0]
    if lanes.size:
        launch.scatter(addrs[lanes], vals[lanes], elt)
    return None


class block_pointer:
    """tl.make_block_ptr's value: a base pointer, a parent tensor (shape, strides), the offsets of a
    block of block_shape inside it, and the order (accepted; the layout does not change values)."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base, self.shape, self.strides = base, shape, strides
        self.offsets, self.block_shape, self.order = offsets, block_shape, order
        self.dtype = pointer_type(base.dtype.element_ty)
        self.type = self.dtype

    def _indices(self):
        idx = []
        nd = len(self.block_shape)
        for d in builtins.range(nd):
            i = np.arange(self.block_shape[d], dtype=np.int64) + int(self.offsets[d])
            shp = [1] * nd
            shp[d] = self.block_shape[d]
            idx.append(i.reshape(shp))
        return idx

    def _addresses_and_mask(self, boundary_check):
        idx = self._indices()
        bs = tuple(self.block_shape)
        step = self.base.dtype.element_ty.itemsize
        addr = np.full(bs, int(self.base.handle), dtype=np.int64)
        for d, i in enumerate(idx):
            addr = addr + i * int(self.strides[d]) * step
        mask = np.ones(bs, dtype=bool)
        for d in boundary_check:
            d = _unwrap(d)
            if not 0 <= d < len(bs):
                raise ValueError(f"boundary_check dimension {d} is out of range for a block of rank {len(bs)}")
            mask &= (idx[d] >= 0) & (idx[d] < int(self.shape[d]))
        return addr, mask

    def _load(self, boundary_check, padding_option):
        boundary_check = tuple(boundary_check or ())
        if padding_option not in ("", "zero", "nan", None):
            raise ValueError(f"padding_option must be '', 'zero' or 'nan', got {padding_option!r}")
        elt = self.base.dtype.element_ty
        if padding_option == "nan" and not elt.is_floating():
            raise ValueError("padding_option='nan' is only supported for floating-point element types")
        addr, mask = self._addresses_and_mask(boundary_check)
        out = np.full(addr.size, np.nan if padding_option == "nan" else 0, _it.np_dtype(elt))
        lanes = np.nonzero(mask.reshape(-1))[0]
        if lanes.size:
            out[lanes] = _it.current().gather(addr.reshape(-1)[lanes], elt)
        return tensor(out.reshape(addr.shape), elt)

    def _store(self, v, boundary_check):
        elt = self.base.dtype.element_ty
        addr, mask = self._addresses_and_mask(tuple(boundary_check or ()))
        if sem.broadcast_shapes(v.shape, addr.shape) != addr.shape:
            raise ValueError(f"value of shape {list(v.shape)} does not match the block {list(addr.shape)}")
        vals = np.broadcast_to(_cast_values(v.handle, v.dtype, elt), addr.shape).reshape(-1)
        lanes = np.nonzero(mask.reshape(-1))[0]
        if lanes.size:
            _it.current().scatter(addr.reshape(-1)[lanes], vals[lanes], elt)


def _ints(xs, what):
    xs = _unwrap(xs)
    if not isinstance(xs, (list, tuple)):
        xs = [xs]
    out = []
    for x in xs:
        x = _unwrap(x)
        if isinstance(x, tensor):
            if x.shape or not x.dtype.is_int():
                raise ValueError(f"make_block_ptr: {what} must be integer scalars")
            x = int(x.handle)
        out.append(int(x))
    return out


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    base = _unwrap(base)
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise ValueError("make_block_ptr: base must be a scalar pointer")
    shape, strides, offsets = _ints(shape, "shape"), _ints(strides, "strides"), _ints(offsets, "offsets")
    block_shape, order = _ints(block_shape, "block_shape"), _ints(order, "order")
    n = len(shape)
    if not (len(strides) == len(offsets) == len(block_shape) == n):
        raise ValueError("make_block_ptr: shape, strides, offsets and block_shape must have the same length")
    if sorted(order) != list(builtins.range(n)):
        raise ValueError(f"make_block_ptr: order must be a permutation of 0..{n - 1}")
    sem.validate_block_shape(block_shape)
    return block_pointer(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets):
    if not isinstance(base, block_pointer):
        raise ValueError("advance takes a block pointer made by tl.make_block_ptr")
    offs = _ints(offsets, "offsets")
    if len(offs) != len(base.offsets):
        raise ValueError("advance: one offset per dimension")
    return block_pointer(base.base, base.shape, base.strides, [a + b for a, b in zip(base.offsets, offs)],
                         base.block_shape, base.order)


# ---- atomics (sequential in the interpreter: exact) ----------------------------------------------

def _atomic(pointer, val, mask, op, cmp=None):
    _check_ptr(pointer, "atomic_" + op)
    elt = pointer.dtype.element_ty
    v = to_tensor(val)
    shape = sem.broadcast_shapes(pointer.shape, v.shape)
    parts = [pointer, v]
    m = None
    if mask is not None:
        m = to_tensor(mask).to(int1)
        shape = sem.broadcast_shapes(shape, m.shape)
    c = None
    if cmp is not None:
        c = to_tensor(cmp)
        shape = sem.broadcast_shapes(shape, c.shape)
    addrs = np.broadcast_to(pointer.handle, shape).reshape(-1)
    vals = np.broadcast_to(_cast_values(v.handle, v.dtype, elt), shape).reshape(-1)
    cmps = np.broadcast_to(_cast_values(c.handle, c.dtype, elt), shape).reshape(-1) if c is not None else None
    lanes = np.arange(addrs.size) if m is None else np.nonzero(np.broadcast_to(m.handle, shape).reshape(-1))[0]
    launch = _it.current()
    old = np.zeros(addrs.size, _it.np_dtype(elt))
    del parts
    with np.errstate(all="ignore"):
        for i in lanes:
            a = addrs[i:i + 1]
            cur = launch.gather(a, elt)
            old[i] = cur[0]
            x = vals[i:i + 1]
            if op == "add":
                new = cur + x
            elif op == "max":
                new = np.maximum(cur, x)
            elif op == "min":
                new = np.minimum(cur, x)
            elif op == "xchg":
                new = x
            elif op == "and":
                new = cur & x
            elif op == "or":
                new = cur | x
            elif op == "xor":
                new = cur ^ x
            elif op == "cas":
                new = x if cur[0] == cmps[i] else cur
            else:
                raise AssertionError(op)
            launch.scatter(a, _fix(new, elt), elt)
    return tensor(old.reshape(shape), elt)


def _sem_ok(sem_, scope):
    if _unwrap(sem_) not in (None, "acquire", "release", "acq_rel", "relaxed"):
        raise ValueError(f"unknown memory semantic {sem_!r}")
    if _unwrap(scope) not in (None, "gpu", "cta", "sys"):
        raise ValueError(f"unknown memory scope {scope!r}")


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "add")


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "max")


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "min")


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "xchg")


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "and")


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "or")


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), _unwrap(mask), "xor")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    _sem_ok(sem, scope)
    return _atomic(_unwrap(pointer), _unwrap(val), None, "cas", cmp=_unwrap(cmp))


@builtin
def debug_barrier():
    """A barrier among a program's threads: nothing to do when one program runs at a time."""
    return None


# ---- elementwise --------------------------------------------------------------------------------

@builtin
def where(condition, x, y):
    c = to_tensor(condition).to(int1)
    X, xs = _operand(x)
    Y, ys = _operand(y)
    t = sem.where_type(X.dtype, xs, Y.dtype, ys)
    shape = sem.broadcast_shapes(sem.broadcast_shapes(c.shape, X.shape), Y.shape)
    if shape:
        sem.validate_block_shape(shape)
    r = np.where(c.handle, _cast_values(X.handle, X.dtype, t), _cast_values(Y.handle, Y.dtype, t))
    return tensor(_fix(r, t), t)


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


def _minmax(x, y, fn_nan, fn_num, propagate_nan):
    X, xs = _operand(x)
    Y, ys = _operand(y)
    t = sem.minmax_type(X.dtype, xs, Y.dtype, ys)
    a, b = _cast_values(X.handle, X.dtype, t), _cast_values(Y.handle, Y.dtype, t)
    fn = fn_nan if _unwrap(propagate_nan) == PropagateNan.ALL or not t.is_floating() else fn_num
    return tensor(_fix(fn(a, b), t), t)


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE):
    return _minmax(x, y, np.maximum, np.fmax, propagate_nan)


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE):
    return _minmax(x, y, np.minimum, np.fmin, propagate_nan)


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE):
    return minimum(maximum(x, min, propagate_nan), max, propagate_nan)


def _math1(name, f):
    def fn(x):
        x = to_tensor(x)
        sem.check_math_dtype(name, x.dtype)
        with np.errstate(all="ignore"):
            return tensor(_fix(f(x.handle), x.dtype), x.dtype)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} (fp32 and fp64 only)."
    fn.__triton_builtin__ = True
    setattr(tensor, name, lambda self: fn(self))
    return fn


exp = _math1("exp", np.exp)
exp2 = _math1("exp2", np.exp2)
log = _math1("log", np.log)
log2 = _math1("log2", np.log2)
sqrt = _math1("sqrt", np.sqrt)
sqrt_rn = _math1("sqrt_rn", np.sqrt)
rsqrt = _math1("rsqrt", lambda v: 1 / np.sqrt(v))
sin = _math1("sin", np.sin)
cos = _math1("cos", np.cos)
floor = _math1("floor", np.floor)
ceil = _math1("ceil", np.ceil)
erf = _math1("erf", np.vectorize(_pymath.erf, otypes=[np.float64]))


@builtin
@_member
def abs(x):
    x = to_tensor(x)
    if x.dtype.is_int_unsigned() or x.dtype.is_int1():
        return x
    with np.errstate(all="ignore"):
        return tensor(np.abs(x.handle), x.dtype)


@builtin
def fma(x, y, z):
    X, Y, Z = to_tensor(x), to_tensor(y), to_tensor(z)
    t = sem.computation_type(sem.computation_type(X.dtype, False, Y.dtype, False), False, Z.dtype, False)
    if not t.is_floating():
        raise ValueError(f"fma needs floating-point operands, got {t}")
    a, b, c = (_cast_values(v.handle, v.dtype, t).astype(np.float64) for v in (X, Y, Z))
    if t.is_fp64():
        r = a * b + c  # not fused for fp64 (no wider type in numpy)
    else:
        r = a * b + c  # exact product in float64, one rounding to the narrower type
    return tensor(_fix(r.astype(_it.np_dtype(t)) if not t.is_bf16() else r.astype(np.float32), t), t)


@builtin
def fdiv(x, y, ieee_rounding=False):
    return _binop("truediv", x, y)


@builtin
def div_rn(x, y):
    return _binop("truediv", x, y)


@builtin
def cdiv(x, div):
    return (x + div - 1) // div


@builtin
def umulhi(x, y):
    X, Y = to_tensor(x), to_tensor(y)
    t = sem.integer_promote(X.dtype, Y.dtype)
    a = _cast_values(X.handle, X.dtype, t).astype(object)
    b = _cast_values(Y.handle, Y.dtype, t).astype(object)
    r = np.vectorize(lambda p, q: (int(p) * int(q)) >> t.int_bitwidth, otypes=[object])(a, b)
    return tensor(_cast_values(np.asarray(r.astype(np.int64) if t.int_bitwidth < 64 else r, dtype=np.int64)
                               if t.int_bitwidth < 64 else r.astype(np.uint64), int64, t), t)


@builtin
@_member
def sigmoid(x):
    x = to_tensor(x)
    return 1 / (1 + exp(-x))


@builtin
@_member
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    d = 0 if _unwrap(dim) is None else _unwrap(dim)
    z = x - max(x, d, keep_dims=True)
    num = exp(z)
    den = sum(num, d, keep_dims=True)
    return num / den


# ---- shapes -------------------------------------------------------------------------------------

def _dims(dims):
    if len(dims) == 1 and isinstance(_unwrap(dims[0]), (list, tuple)):
        dims = _unwrap(dims[0])
    return [_unwrap(d) for d in dims]


@builtin
def reshape(input, *shape, can_reorder=False):
    x = to_tensor(input)
    shape = _dims(shape)
    sem.reshape_shape(x.shape, shape)
    return tensor(x.handle.reshape(shape), x.dtype)


@builtin
def view(input, *shape):
    return reshape(input, *shape, can_reorder=True)


@builtin
def ravel(x, can_reorder=False):
    x = to_tensor(x)
    return reshape(x, [x.numel])


@builtin
def trans(input, *dims):
    x = to_tensor(input)
    dims = _dims(dims)
    if not dims:
        if len(x.shape) != 2:
            raise ValueError(f"trans without dims needs a 2-D tensor, got shape {list(x.shape)}")
        dims = [1, 0]
    return permute(x, dims)


@builtin
def permute(input, *dims):
    x = to_tensor(input)
    dims = _dims(dims)
    sem.permute_shape(x.shape, dims)
    return tensor(np.ascontiguousarray(np.transpose(x.handle, dims)), x.dtype)


@builtin
def broadcast_to(input, *shape):
    x = to_tensor(input)
    shape = tuple(_dims(shape))
    sem.broadcast_to_shape(x.shape, shape)
    sem.validate_block_shape(shape)
    return tensor(np.broadcast_to(x.handle, shape).copy(), x.dtype)


@builtin
def broadcast(input, other):
    a, b = _broadcast_pair(to_tensor(input), to_tensor(other))
    return a, b


@builtin
def expand_dims(input, axis):
    x = to_tensor(input)
    axes = _unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    nd = len(x.shape) + len(axes)
    axes = sorted(sem.normalize_axis(a, nd) for a in axes)
    h = x.handle
    for a in axes:
        h = np.expand_dims(h, a)
    return tensor(h, x.dtype)


@builtin
def split(a):
    x = to_tensor(a)
    sem.split_shape(x.shape)
    return tensor(x.handle[..., 0].copy(), x.dtype), tensor(x.handle[..., 1].copy(), x.dtype)


@builtin
def join(a, b):
    A, B = to_tensor(a), to_tensor(b)
    if A.dtype != B.dtype:
        raise ValueError(f"join: both inputs must have the same dtype, got {A.dtype} and {B.dtype}")
    A, B = _broadcast_pair(A, B)
    sem.join_shape(A.shape, B.shape)
    return tensor(np.stack([A.handle, B.handle], axis=-1), A.dtype)


@builtin
def interleave(a, b):
    j = join(a, b)
    if len(j.shape) == 1:
        return j
    return reshape(j, list(j.shape[:-2]) + [j.shape[-2] * 2])


# ---- dot ----------------------------------------------------------------------------------------

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32):
    a, b = to_tensor(input), to_tensor(other)
    acc = _unwrap(acc)
    p = _unwrap(input_precision)
    if p not in (None, "tf32", "tf32x3", "ieee"):
        raise ValueError(f"input_precision must be one of tf32, tf32x3, ieee; got {p!r}")
    ret, shape, ct = sem.dot_types(a.dtype, a.shape, b.dtype, b.shape,
                                   acc.dtype if acc is not None else None, acc.shape if acc is not None else None,
                                   _unwrap(out_dtype))
    if ct.is_int():
        r = np.matmul(a.handle.astype(np.int32), b.handle.astype(np.int32))
    elif ct.is_fp64():
        r = np.matmul(a.handle.astype(np.float64), b.handle.astype(np.float64))
    else:
        r = np.matmul(a.handle.astype(np.float32), b.handle.astype(np.float32))
    if acc is not None:
        with np.errstate(all="ignore"):
            r = r.astype(_it.np_dtype(ret) if not ret.is_fp16() else np.float32) + acc.handle
    return tensor(_fix(r, ret), ret)


# ---- reductions and scans -----------------------------------------------------------------------

def _axis_arg(x, axis):
    axis = _unwrap(axis)
    if axis is None:
        return None
    return sem.normalize_axis(axis, len(x.shape))


@builtin
@_member
def sum(input, axis=None, keep_dims=False, dtype=None):
    x = to_tensor(input)
    t = sem.sum_dtype(x.dtype, _unwrap(dtype))
    ax = _axis_arg(x, axis)
    v = _cast_values(x.handle, x.dtype, t)
    acc = np.float32 if t.is_fp16() or t.is_bf16() else _it.np_dtype(t)
    with np.errstate(all="ignore"):
        r = np.sum(v, axis=ax, dtype=acc, keepdims=bool(_unwrap(keep_dims)))
    return tensor(_fix(r, t), t)


def _minmax_reduce(x, axis, keep_dims, return_indices, np_val, np_arg, tie_left=True):
    x = to_tensor(x)
    ax = _axis_arg(x, axis)
    keep = bool(_unwrap(keep_dims))
    if _unwrap(return_indices):
        t = sem.arg_reduce_dtype(x.dtype)
        v = _cast_values(x.handle, x.dtype, t)
        flat = v.reshape(-1) if ax is None else v
        a = 0 if ax is None else ax
        if _unwrap(tie_left):
            idx = np_arg(flat, axis=a)
        else:
            n = flat.shape[a]
            idx = n - 1 - np_arg(np.flip(flat, axis=a), axis=a)
        val = np.take_along_axis(flat, np.expand_dims(idx, a), a).squeeze(a)
        if keep:
            shape = sem.reduce_shape(x.shape, ax, True)
            val, idx = val.reshape(shape), np.asarray(idx).reshape(shape)
        return tensor(_fix(val, t), t), tensor(np.asarray(idx, dtype=np.int32), int32)
    t = sem.minmax_reduce_dtype(x.dtype)
    v = _cast_values(x.handle, x.dtype, t)
    r = np_val(v, axis=ax, keepdims=keep)
    return tensor(_fix(r, t), t)


@builtin
@_member
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, keep_dims, return_indices, np.max, np.argmax,
                          return_indices_tie_break_left)


@builtin
@_member
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, keep_dims, return_indices, np.min, np.argmin,
                          return_indices_tie_break_left)


@builtin
@_member
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, keep_dims, True, np.max, np.argmax, tie_break_left)[1]


@builtin
@_member
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, keep_dims, True, np.min, np.argmin, tie_break_left)[1]


@builtin
@_member
def xor_sum(input, axis=None, keep_dims=False):
    x = to_tensor(input)
    if not x.dtype.is_int():
        raise ValueError("xor_sum only supported for integers")
    return reduce(x, axis, lambda a, b: a ^ b, keep_dims=keep_dims)


def _call_combine(fn, args):
    f = getattr(fn, "_interp_call", None)
    return f(*args) if f is not None else fn(*args)


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduces along ``axis`` (None: all) with ``combine_fn`` (a jit function), left to right;
    ``input`` may be a tuple of tensors, then combine_fn takes and returns tuples."""
    multi = isinstance(input, (tuple, list))
    xs = [to_tensor(v) for v in (input if multi else [input])]
    ax = _axis_arg(xs[0], axis)
    keep = bool(_unwrap(keep_dims))
    if ax is None:
        shape0 = xs[0].shape
        xs = [tensor(v.handle.reshape(-1), v.dtype) for v in xs]
        a = 0
    else:
        a = ax
    n = xs[0].shape[a]
    acc = [tensor(np.take(v.handle, 0, axis=a), v.dtype) for v in xs]
    for i in builtins.range(1, n):
        cur = [tensor(np.take(v.handle, i, axis=a), v.dtype) for v in xs]
        r = _call_combine(combine_fn, acc + cur)
        r = list(r) if isinstance(r, (tuple, list)) else [r]
        acc = [to_tensor(v) for v in r]
        acc = [tensor(np.broadcast_to(v.handle, cur[0].shape).copy(), v.dtype) for v in acc]
    if keep:
        shape = sem.reduce_shape(shape0 if ax is None else xs[0].shape, ax, True)
        acc = [tensor(v.handle.reshape(shape), v.dtype) for v in acc]
    return tuple(acc) if multi else acc[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    multi = isinstance(input, (tuple, list))
    xs = [to_tensor(v) for v in (input if multi else [input])]
    a = sem.normalize_axis(_unwrap(axis), len(xs[0].shape))
    n = xs[0].shape[a]
    order = builtins.range(n - 1, -1, -1) if _unwrap(reverse) else builtins.range(n)
    outs = [np.empty_like(v.handle) for v in xs]
    acc = None
    for i in order:
        cur = [tensor(np.take(v.handle, i, axis=a), v.dtype) for v in xs]
        if acc is None:
            acc = cur
        else:
            r = _call_combine(combine_fn, acc + cur)
            r = list(r) if isinstance(r, (tuple, list)) else [r]
            acc = [to_tensor(v) for v in r]
        for o, v in zip(outs, acc):
            idx = [slice(None)] * o.ndim
            idx[a] = i
            o[tuple(idx)] = v.handle
    res = [tensor(o, v.dtype) for o, v in zip(outs, acc)]
    return tuple(res) if multi else res[0]


@builtin
@_member
def cumsum(input, axis=0, reverse=False, dtype=None):
    x = to_tensor(input)
    t = sem.cumsum_dtype(x.dtype, _unwrap(dtype))
    a = sem.normalize_axis(_unwrap(axis), len(x.shape))
    v = _cast_values(x.handle, x.dtype, t)
    acc = np.float32 if t.is_fp16() or t.is_bf16() else _it.np_dtype(t)
    with np.errstate(all="ignore"):
        if _unwrap(reverse):
            r = np.flip(np.cumsum(np.flip(v, a), axis=a, dtype=acc), a)
        else:
            r = np.cumsum(v, axis=a, dtype=acc)
    return tensor(_fix(r, t), t)


@builtin
@_member
def cumprod(input, axis=0, reverse=False):
    x = to_tensor(input)
    t = float32 if x.dtype.is_bf16() else x.dtype
    a = sem.normalize_axis(_unwrap(axis), len(x.shape))
    v = _cast_values(x.handle, x.dtype, t)
    with np.errstate(all="ignore"):
        r = np.flip(np.cumprod(np.flip(v, a), axis=a), a) if _unwrap(reverse) else np.cumprod(v, axis=a)
    return tensor(_fix(r, t), t)


@builtin
@_member
def flip(x, dim=None):
    x = to_tensor(x)
    d = len(x.shape) - 1 if _unwrap(dim) is None else sem.normalize_axis(_unwrap(dim), len(x.shape))
    return tensor(np.flip(x.handle, d).copy(), x.dtype)


# ---- hints, assertions, printing ----------------------------------------------------------------

def _hint_values(values):
    values = _unwrap(values)
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    out = []
    for v in values:
        v = _unwrap(v)
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"hint values must be constexpr ints, got {v!r}")
        out.append(v)
    return out


@builtin
def multiple_of(input, values):
    """Hint: the value (a scalar) or the first element of each dimension is a multiple of values[d].
    Checked on scalars."""
    vals = _hint_values(values)
    x = to_tensor(input)
    if not x.shape and x.dtype.is_int():
        if int(x.handle) % vals[0] != 0:
            fn, line = _it.current().location()
            raise AssertionError(f"{fn}:{line}: tl.multiple_of: {int(x.handle)} is not a multiple of {vals[0]}")
    return input


@builtin
def max_contiguous(input, values):
    _hint_values(values)
    return input


@builtin
def max_constancy(input, values):
    _hint_values(values)
    return input


@builtin
def assume(cond):
    """Hint to the compiler that cond holds; the interpreter checks it."""
    c = to_tensor(cond)
    if not bool(np.all(c.handle)):
        fn, line = _it.current().location()
        raise AssertionError(f"{fn}:{line}: tl.assume: the assumed condition is false")


@builtin
def static_assert(cond, msg=""):
    if not bool(_unwrap(cond)):
        fn, line = _it.current().location() if _it.active() else (None, None)
        raise CompileTimeAssertionFailure(f"Static assertion failed: {_unwrap(msg)}", lineno=line, filename=fn)


@builtin
def device_assert(cond, msg="", mask=None):
    c = to_tensor(cond)
    ok = c.handle if mask is None else (c.handle | ~to_tensor(mask).to(int1).handle)
    if not bool(np.all(ok)):
        fn, line = _it.current().location()
        raise AssertionError(f"{fn}:{line}: device assertion failed: {_unwrap(msg)} (program {_it.current().pid})")


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    print(*[_unwrap(v) for v in values], sep=sep, end=end, file=file, flush=flush)


@builtin
def device_print(prefix, *args, hex=False):
    pid = _it.current().pid
    parts = []
    for a in args:
        a = to_tensor(a) if not isinstance(a, tensor) else a
        h = a.handle
        if _unwrap(hex):
            h = np.vectorize(lambda v: builtins.hex(int(v)))(h) if a.dtype.is_int() else h
        parts.append(str(h))
    print(f"pid {pid} {_unwrap(prefix)}", *parts)


@builtin
def inline_asm_elementwise(*args, **kwargs):
    raise NotImplementedError("inline_asm_elementwise cannot be interpreted")


# ---- loops --------------------------------------------------------------------------------------

def _loop_type(bounds):
    ts = [b.dtype if isinstance(b, tensor) else sem.scalar_dtype(int(b)) for b in bounds]
    t = int32
    for x in ts:
        if not x.is_int():
            raise TypeError(f"loop bounds must be integers, got {x}")
        t = sem.integer_promote(t, x) if x.int_bitwidth >= 32 else t
    return t


class range:
    """The runtime loop of a kernel (``range`` and ``tl.range``): the induction variable is an int32
    scalar tensor (int64 when a bound is). num_stages, loop_unroll_factor, flatten, warp_specialize,
    disallow_acc_multi_buffer and disable_licm are accepted."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False, disable_licm=False):
        if arg2 is None:
            start, end = 0, arg1
        else:
            start, end = arg1, arg2
        step = 1 if step is None else step
        start, end, step = (_unwrap(v) for v in (start, end, step))
        self.t = _loop_type([start, end, step])
        self.start, self.end, self.step = int(start), int(end), int(step)
        if self.step == 0:
            raise ValueError("range() step must not be zero")

    def __iter__(self):
        nd = _it.np_dtype(self.t)
        for i in builtins.range(self.start, self.end, self.step):
            yield tensor(nd.type(i), self.t)


class static_range:
    """A loop unrolled at compile time: all bounds are constexpr; the variable is a Python int."""

    def __init__(self, arg1, arg2=None, step=None):
        vals = [_unwrap(v) for v in (arg1, arg2, step) if v is not None]
        for v in vals:
            if not isinstance(v, int) or isinstance(v, bool):
                raise CompilationError(f"static_range bounds must be constexpr ints, got {v!r}")
        self.r = builtins.range(*vals)

    def __iter__(self):
        return iter(self.r)


def _builtin_minmax(pyfn, tlfn):
    def f(*args, **kwargs):
        vals = args[0] if len(args) == 1 and not isinstance(args[0], tensor) else args
        vals = list(vals)
        if not any(isinstance(_unwrap(v), tensor) for v in vals):
            return pyfn(*[_unwrap(v) for v in vals], **kwargs)
        r = vals[0]
        for v in vals[1:]:
            r = tlfn(r, v)
        return r
    return f


builtin_min = _builtin_minmax(builtins.min, minimum)
builtin_max = _builtin_minmax(builtins.max, maximum)


def _is_dtype(x):
    return isinstance(x, sem.dtype)


# ---- tensor descriptors -------------------------------------------------------------------------

class tensor_descriptor:
    """tl.make_tensor_descriptor's value: a global tensor (base pointer, shape, strides) read and
    written in blocks of ``block_shape`` at given offsets; out-of-bounds elements read as zero and
    are not written."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = base, shape, strides, block_shape
        self.dtype = base.dtype.element_ty

    def _block(self, offsets):
        offs = _ints(offsets, "offsets")
        if len(offs) != len(self.shape):
            raise ValueError(f"tensor descriptor: {len(self.shape)} offsets expected, got {len(offs)}")
        return block_pointer(self.base, self.shape, self.strides, offs, self.block_shape,
                             list(builtins.range(len(self.shape)))[::-1])

    def load(self, offsets):
        return self._block(offsets)._load(tuple(builtins.range(len(self.shape))), "zero")

    def store(self, offsets, value):
        v = to_tensor(value)
        return self._block(offsets)._store(v, tuple(builtins.range(len(self.shape))))


tensor_descriptor_base = tensor_descriptor


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape):
    base = _unwrap(base)
    if not isinstance(base, tensor) or not base.dtype.is_ptr() or base.shape:
        raise ValueError("make_tensor_descriptor: base must be a scalar pointer")
    shape, strides, block_shape = _ints(shape, "shape"), _ints(strides, "strides"), _ints(block_shape, "block_shape")
    if not (len(shape) == len(strides) == len(block_shape)):
        raise ValueError("make_tensor_descriptor: shape, strides and block_shape must have the same length")
    if strides and strides[-1] != 1:
        raise ValueError("make_tensor_descriptor: the last dimension must be contiguous (stride 1)")
    sem.validate_block_shape(block_shape)
    return tensor_descriptor(base, shape, strides, block_shape)
