"""The semantics layer of cannon.triton: Triton's element types and the typing rules of its
operations, as pure functions over dtypes and shapes (no numpy, no values).

The interpreter computes with these rules; the compiler types its tile IR with the same functions,
so the two modes agree on every result type, broadcast and error by construction.

Rules kept (Triton's):
- kinds bool < int < float; in tensor/tensor promotion fp64 > fp32 > fp16 > bf16 > integers (so fp16
  with bf16 gives fp16, bf16 stays bf16 only with bf16, bf16 with an integer gives fp32), and integers
  follow C's usual conversions (the wider wins; same width, mixed sign gives the unsigned type);
- a Python scalar whose kind is lower than or equal to the tensor's does not take part in promotion;
  a higher-kind scalar is typed int32 < uint32 < int64 < uint64 (by value) or float32;
- ``/`` and ``%`` on 16-bit floats compute in fp32; ``//`` and ``%`` on integers of different
  signedness are errors; ``int / int`` is fp32; float / float casts to the operand with more mantissa;
- comparisons give int1; bitwise operators and shifts need integers;
- every block dimension is a power of two and a block holds at most MAX_TENSOR_NUMEL elements.
"""

MAX_TENSOR_NUMEL = 1048576


class dtype:
    """An element type. ``name`` is Triton's spelling (``int32``, ``fp16``, ``bf16``, ``int1``...)."""

    SINT, UINT, FLOAT, BOOL = "sint", "uint", "float", "bool"

    def __init__(self, name, kind, bits, mantissa=0):
        self.name, self._kind, self.primitive_bitwidth, self.fp_mantissa_width = name, kind, bits, mantissa

    # kind queries (Triton's method names)
    def is_int1(self):
        return self._kind == dtype.BOOL

    def is_bool(self):
        return self.is_int1()

    def is_int(self):
        return self._kind in (dtype.SINT, dtype.UINT, dtype.BOOL)

    def is_int_signed(self):
        return self._kind in (dtype.SINT, dtype.BOOL)

    def is_int_unsigned(self):
        return self._kind == dtype.UINT

    def is_floating(self):
        return self._kind == dtype.FLOAT

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth

    @property
    def int_signedness(self):
        return "unsigned" if self._kind == dtype.UINT else "signed"

    @property
    def itemsize(self):
        return max(self.primitive_bitwidth // 8, 1)

    @property
    def scalar(self):
        return self

    def kind_rank(self):
        """bool 0 < int 1 < float 2 (the order of the scalar promotion rule)."""
        return {dtype.BOOL: 0, dtype.SINT: 1, dtype.UINT: 1, dtype.FLOAT: 2}[self._kind]

    def to_ir_name(self):
        return self.name

    def __eq__(self, other):
        return type(other) is dtype and other.name == self.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("dtype", self.name))

    def __repr__(self):
        return f"triton.language.{_CODE_NAME.get(self.name, self.name)}"

    def __str__(self):
        return _CODE_NAME.get(self.name, self.name)


class pointer_type(dtype):
    """A pointer to ``element_ty`` elements (64-bit addresses; arithmetic is in elements)."""

    def __init__(self, element_ty, address_space=1, const=False):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"element_ty has type `{type(element_ty).__name__}`; expected `dtype`")
        super().__init__(f"pointer<{element_ty.name}>", "ptr", 64)
        self.element_ty, self.address_space, self.const = element_ty, address_space, const

    def is_ptr(self):
        return True

    def is_int(self):
        return False

    def is_floating(self):
        return False

    def kind_rank(self):
        return 3

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(("ptr", self.element_ty.name))

    def __repr__(self):
        return f"pointer<{self.element_ty!r}>"

    def __str__(self):
        return f"pointer<{self.element_ty}>"


class block_type:
    """The type of a block: an element type and a shape of powers of two."""

    def __init__(self, element_ty, shape):
        self.element_ty, self.shape = element_ty, tuple(int(s) for s in shape)
        self.numel = 1
        for s in self.shape:
            self.numel *= s

    scalar = property(lambda self: self.element_ty)

    def is_block(self):
        return True

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty and other.shape == self.shape

    def __hash__(self):
        return hash((self.element_ty, self.shape))

    def __repr__(self):
        return f"<{list(self.shape)}, {self.element_ty}>"


int1 = dtype("int1", dtype.BOOL, 1)
int8 = dtype("int8", dtype.SINT, 8)
int16 = dtype("int16", dtype.SINT, 16)
int32 = dtype("int32", dtype.SINT, 32)
int64 = dtype("int64", dtype.SINT, 64)
uint8 = dtype("uint8", dtype.UINT, 8)
uint16 = dtype("uint16", dtype.UINT, 16)
uint32 = dtype("uint32", dtype.UINT, 32)
uint64 = dtype("uint64", dtype.UINT, 64)
float16 = dtype("fp16", dtype.FLOAT, 16, 10)
bfloat16 = dtype("bf16", dtype.FLOAT, 16, 7)
float32 = dtype("fp32", dtype.FLOAT, 32, 23)
float64 = dtype("fp64", dtype.FLOAT, 64, 52)

ALL_DTYPES = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)
_CODE_NAME = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({_CODE_NAME[k]: v for k, v in list(_BY_NAME.items()) if k in _CODE_NAME})
_BY_NAME.update({"bool": int1, "half": float16, "float": float32, "double": float64})


def dtype_from_name(name):
    """A dtype from Triton's or the code spelling ('fp32', 'float32', 'int1', 'bool', 'bfloat16')."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(f"unknown dtype {name!r}") from None


def dtype_of_torch(t):
    """The dtype of anything with a ``dtype`` attribute: torch, numpy or cannon dtypes by name."""
    s = str(getattr(t, "dtype", t))
    s = s.rsplit(".", 1)[-1]
    s = {"bool_": "bool", "bf16": "bfloat16"}.get(s, s)
    if s not in _BY_NAME:
        raise TypeError(f"dtype {s!r} has no Triton pointer type")
    return _BY_NAME[s]


# ---- Python scalars ---------------------------------------------------------------------------

def scalar_dtype(value):
    """The type a Python scalar takes when it meets a tensor (or is passed as a kernel argument)."""
    if isinstance(value, bool):
        return int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return int32
        if 2**31 <= value < 2**32:
            return uint32
        if -2**63 <= value < 2**63:
            return int64
        if 2**63 <= value < 2**64:
            return uint64
        raise ValueError(f"integer {value} is out of the range of 64-bit integers")
    if isinstance(value, float):
        return float32
    raise TypeError(f"{type(value).__name__} is not a Triton scalar")


# ---- promotion ----------------------------------------------------------------------------------

def integer_promote(a, b):
    """C's usual arithmetic conversions on two integer types."""
    if a.int_signedness == b.int_signedness:
        return a if a.int_bitwidth > b.int_bitwidth else b
    if a.int_signedness == "unsigned":
        return a if a.int_bitwidth >= b.int_bitwidth else b
    return b if b.int_bitwidth >= a.int_bitwidth else a


def computation_type(a, a_is_scalar, b, b_is_scalar, div_or_mod=False):
    """The type both operands of an arithmetic operator are cast to. ``*_is_scalar`` marks a
    Python scalar (not a 0-d tensor)."""
    if a_is_scalar != b_is_scalar:
        s, t = (a, b) if a_is_scalar else (b, a)
        if s.kind_rank() <= t.kind_rank():
            if div_or_mod and (t.is_fp16() or t.is_bf16()):
                return float32
            return t
    if a.is_fp64() or b.is_fp64():
        return float64
    if a.is_fp32() or b.is_fp32():
        return float32
    if a.is_fp16() or b.is_fp16():
        return float32 if div_or_mod else float16
    if a.is_bf16() and b.is_bf16():
        return float32 if div_or_mod else bfloat16
    if a.is_bf16() or b.is_bf16():
        return float32
    if not a.is_int() or not b.is_int():
        raise TypeError(f"unexpected type {a} and {b}")
    if div_or_mod and a.int_signedness != b.int_signedness:
        raise TypeError(f"Cannot use /, //, or % with {a!r} and {b!r} because they have different signedness; "
                        "this is unlikely to result in a useful answer. Cast them to the same signedness.")
    return integer_promote(a, b)


ARITH = ("add", "sub", "mul", "truediv", "floordiv", "mod")
COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
BITWISE = ("and", "or", "xor", "lshift", "rshift")


def binary_types(op, a, a_is_scalar, b, b_is_scalar):
    """For binary operator ``op`` on operands of types a and b: (type a is cast to, type b is cast
    to, result type). Pointers: ptr +/- int keeps the pointer type; ptr - ptr and ptr + ptr are errors
    except comparisons of equal pointer types."""
    if a.is_ptr() or b.is_ptr():
        if op in COMPARE:
            if a.is_ptr() and b.is_ptr():
                if a != b:
                    raise TypeError(f"cannot compare pointers of different types {a} and {b}")
                return a, b, int1
            raise TypeError(f"cannot compare a pointer with {b if a.is_ptr() else a}")
        if op == "add" and a.is_ptr() and b.is_ptr():
            raise TypeError(f"cannot add pointers together: {a} and {b}")
        if op in ("add", "sub") and a.is_ptr() and b.is_int():
            return a, b, a
        if op == "add" and b.is_ptr() and a.is_int():
            return a, b, b
        raise TypeError(f"unsupported operand types for {op}: {a} and {b}")
    if op in BITWISE:
        for t in (a, b):
            if not t.is_int():
                raise TypeError(f"unexpected type {t}: bitwise operators and shifts need integers")
        if a_is_scalar != b_is_scalar:
            t = b if a_is_scalar else a
            return t, t, t
        t = integer_promote(a, b)
        return t, t, t
    div_or_mod = op in ("truediv", "floordiv", "mod")
    t = computation_type(a, a_is_scalar, b, b_is_scalar, div_or_mod)
    if op in COMPARE:
        return t, t, int1
    if op == "floordiv" and not t.is_int():
        raise TypeError(f"unexpected type {t}: // is defined for integers only")
    if op == "truediv" and t.is_int():
        return float32, float32, float32
    return t, t, t


def where_type(x, x_is_scalar, y, y_is_scalar):
    """The common type of where's two branches."""
    if x.is_ptr() or y.is_ptr():
        if x != y:
            raise TypeError(f"where: pointer branches of different types {x} and {y}")
        return x
    return computation_type(x, x_is_scalar, y, y_is_scalar)


def minmax_type(x, x_is_scalar, y, y_is_scalar):
    """tl.maximum / tl.minimum: the arithmetic promotion."""
    return computation_type(x, x_is_scalar, y, y_is_scalar)


# ---- casts --------------------------------------------------------------------------------------

def check_bitcast(src, dst):
    sb = 64 if src.is_ptr() else src.primitive_bitwidth
    db = 64 if dst.is_ptr() else dst.primitive_bitwidth
    if sb != db:
        raise ValueError(f"Cannot bitcast data-type of size {sb} to data-type of size {db}")


# ---- shapes -------------------------------------------------------------------------------------

def is_power_of_two(n):
    return isinstance(n, int) and n > 0 and (n & (n - 1)) == 0


def validate_block_shape(shape):
    """Every dimension a power of two, numel within MAX_TENSOR_NUMEL; returns the shape as a tuple."""
    numel = 1
    out = []
    for i, d in enumerate(shape):
        d = getattr(d, "value", d)
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"Shape element {i} must have type `constexpr[int]`, got `{type(d).__name__}`")
        if not is_power_of_two(d):
            raise ValueError(f"Shape element {i} must be a power of 2")
        numel *= d
        out.append(d)
    if numel > MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({MAX_TENSOR_NUMEL})")
    return tuple(out)


def arange_shape(start, end):
    """tl.arange(start, end): int32 block of end - start elements, a power of two."""
    for v, n in ((start, "start"), (end, "end")):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"arange's arguments must be of type tl.constexpr, got {n}={v!r}")
        if not -2**31 <= v < 2**31:
            raise ValueError("arange must fit in int32")
    if end <= start:
        raise ValueError("arange's end argument must be greater than the start argument")
    r = end - start
    if not is_power_of_two(r):
        raise ValueError("arange's range must be a power of 2")
    validate_block_shape((r,))
    return (r,)


def broadcast_shapes(a, b):
    """NumPy broadcasting of two block shapes (left-padded with 1s)."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"Cannot make_shape_compatible: incompatible dimensions at index {i}: {x} and {y}")
    return tuple(out)


def broadcast_to_shape(src, dst):
    """The shape check of broadcast_to: src broadcasts to exactly dst."""
    src, dst = tuple(src), tuple(dst)
    if len(src) > len(dst):
        raise ValueError(f"Cannot broadcast, rank mismatch: {list(src)}, {list(dst)}")
    if broadcast_shapes(src, dst) != dst:
        raise ValueError(f"Cannot broadcast, the expanded size of the tensor ({list(src)}) must match the "
                         f"existing size ({list(dst)})")
    return dst


def normalize_axis(axis, rank):
    a = getattr(axis, "value", axis)
    if not isinstance(a, int) or not -rank <= a < max(rank, 1):
        raise ValueError(f"invalid axis {a}. Expected {-rank} <= axis < {rank}")
    return a % rank if rank else 0


def reduce_shape(shape, axis, keep_dims):
    """Shape after reducing ``axis`` (None: all axes)."""
    shape = tuple(shape)
    if axis is None:
        return (1,) * len(shape) if keep_dims else ()
    ax = normalize_axis(axis, len(shape))
    if keep_dims:
        return shape[:ax] + (1,) + shape[ax + 1:]
    return shape[:ax] + shape[ax + 1:]


def reshape_shape(src, dst):
    n = 1
    for d in src:
        n *= d
    m = 1
    for d in dst:
        m *= d
    if n != m:
        raise ValueError(f"reshape: cannot reshape block of {n} elements into shape {list(dst)}")
    return validate_block_shape(dst) if dst else ()


def permute_shape(shape, dims):
    dims = tuple(getattr(d, "value", d) for d in dims)
    if sorted(dims) != list(range(len(shape))):
        raise ValueError(f"permute: dims must be a permutation of 0..{len(shape) - 1}, got {list(dims)}")
    return tuple(shape[d] for d in dims)


def split_shape(shape):
    if not shape or shape[-1] != 2:
        raise ValueError(f"split: the last dimension must be 2, got shape {list(shape)}")
    return tuple(shape[:-1])


def join_shape(a, b):
    if tuple(a) != tuple(b):
        s = broadcast_shapes(a, b)
    else:
        s = tuple(a)
    return validate_block_shape(s + (2,))


# ---- reductions, math, dot ----------------------------------------------------------------------

def sum_dtype(x, dtype=None):
    """tl.sum's accumulation type: ``dtype`` when given, else ints narrower than 32 bits widen to
    int32/uint32 of the same sign; everything else keeps its type."""
    if dtype is not None:
        return dtype
    if x.is_int_signed() and x.int_bitwidth < 32:
        return int32
    if x.is_int_unsigned() and x.int_bitwidth < 32:
        return uint32
    return x


def minmax_reduce_dtype(x):
    """tl.max / tl.min (without indices): floats narrower than 32 bits compute in fp32, integers in int32."""
    if x.primitive_bitwidth < 32:
        return float32 if x.is_floating() else int32
    return x


def arg_reduce_dtype(x):
    """The value type argmax/argmin compare in (bf16 -> fp32); indices are int32."""
    return float32 if x.is_bf16() else x


def cumsum_dtype(x, dtype=None):
    x = float32 if x.is_bf16() else x
    return sum_dtype(x, dtype)


FLOAT_ONLY_MATH = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "sqrt_rn", "erf", "floor", "ceil")


def check_math_dtype(fn, x):
    """exp/log/sqrt/sin/cos... accept only fp32 and fp64 (Triton raises ValueError)."""
    if fn in FLOAT_ONLY_MATH and x.name not in ("fp32", "fp64"):
        raise ValueError(f"Expected dtype ['fp32', 'fp64'] but got {x.name}")
    return x


def dot_types(a, a_shape, b, b_shape, acc=None, acc_shape=None, out_dtype=None):
    """tl.dot: checks the operands and returns (result type, result shape, compute type)."""
    out_dtype = float32 if out_dtype is None else out_dtype
    ra, rb = len(a_shape), len(b_shape)
    if ra != rb or ra not in (2, 3):
        raise ValueError(f"Both inputs must be either 2D or 3D; (lhs: {list(a_shape)} vs rhs: {list(b_shape)})")
    if a_shape[-1] != b_shape[-2]:
        raise ValueError(f"First input shape ({list(a_shape)}) and second input shape {list(b_shape)} are not "
                         f"compatible for matmul (second index of first shape ({a_shape[-1]}) must be equal to "
                         f"first index of second shape ({b_shape[-2]})")
    if ra == 3 and a_shape[0] != b_shape[0]:
        raise ValueError(f"Batch dimension of the inputs must match: {a_shape[0]} vs {b_shape[0]}")
    if a != b:
        raise ValueError(f"Both operands must be same dtype. Got {a} and {b}")
    if a.is_int1() or not (a.is_int() or a.is_floating()):
        raise ValueError(f"unsupported dot input type {a}")
    if a.is_int():
        if a.int_bitwidth != 8:
            raise ValueError(f"dot: integer inputs must be int8 or uint8, got {a}")
        ret = int32
    elif out_dtype.is_bf16():
        raise ValueError("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast "
                         "with `.to(tl.bfloat16)`")
    elif a.is_fp32() or a.is_bf16():
        ret = float32
    elif a.is_fp64():
        ret = float64
    else:  # fp16
        ret = float16 if out_dtype.is_fp16() else float32
        if acc is not None and acc in (float16, float32):
            ret = acc
    shape = tuple(a_shape[:-1]) + (b_shape[-1],)
    if acc is not None:
        if acc != ret:
            raise ValueError(f"dot: the accumulator has type {acc}, expected {ret}")
        if tuple(acc_shape) != shape:
            raise ValueError(f"dot: the accumulator has shape {list(acc_shape)}, expected {list(shape)}")
    return ret, shape, ret
