"""aclnn operator calls: a generic two-phase caller and typed wrappers.

``call(name, *args, stream=None, sync=False)`` runs ``<name>GetWorkspaceSize(*args, &ws, &exec)``
then ``<name>(workspace, ws, exec, stream)``. Arguments convert as:
each operator's parameter types, as libopapi's manifest declares them (``manifest()``):
DeviceArray → aclTensor descriptor (with the array's format), None → NULL, IntArray/BoolArray/Scalar
(or a list, a tuple, a real Python or numpy number) → their handles, a list or tuple of DeviceArrays
(None items: NULL) → an aclTensorList, int → the integer type
(OverflowError when out of its range), bool, float → double/float, DType (or its name, or a numpy
dtype) → aclDataType; ctypes values are taken by value. List items must be integers for an
IntArray, bools or integers for a BoolArray: nothing is rounded or parsed into one, and an integer
beyond int64 (or a Scalar's integer type) is an OverflowError. A wrong argument count or type
raises TypeError before anything runs.

Work is asynchronous on @stream (default: this thread's stream); descriptors and the workspace are
released at the stream's next synchronize() (DeviceArray.numpy() synchronises). @sync=True waits.
``phase1_status(name, *args)`` runs phase 1 alone and returns its status (argument-check tests).

Typed wrappers allocate their outputs (or write into ``out=``) and return them. Ops missing from
the loaded libopapi.so raise OpUnavailableError when called (never at import).
"""
import ctypes

import numpy as np

from . import _lib, runtime
from ._lib import AclError, OpUnavailableError
from .array import DeviceArray, DType, as_dtype, bfloat16, float16, float32, float64

_vp = ctypes.c_void_p


# ---- descriptor helpers ----------------------------------------------------------------------

class _Handle:
    def __init__(self, handle, destroy, keep=None):
        self.handle, self._destroy, self._keep = handle, destroy, keep

    def release(self):
        if self.handle:
            h, self.handle = self.handle, None
            if runtime.is_initialized():
                getattr(_lib.nnop(), self._destroy)(h)


def _int64(v, what):
    """@v as an int64 value: an integer only (a float, a bool, a string is not rounded or parsed
    into one: TypeError), in range (OverflowError)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}: {type(v).__name__} {v!r:.40} is not an integer")
    v = int(v)
    if not -2**63 <= v < 2**63:
        raise OverflowError(f"{what}: {v} does not fit int64")
    return v


class IntArray:
    """An aclIntArray argument (list of int64)."""

    def __init__(self, values):
        self.values = [_int64(v, "IntArray") for v in values]

    def _make(self):
        n = len(self.values)
        buf = (ctypes.c_int64 * max(n, 1))(*self.values)
        h = _lib.nnop().aclCreateIntArray(buf, n)
        if not h:
            raise AclError(161001, _lib.recent_error(), "aclCreateIntArray")
        return _Handle(h, "aclDestroyIntArray", buf)


class BoolArray:
    """An aclBoolArray argument."""

    def __init__(self, values):
        for v in values:
            if isinstance(v, (bool, np.bool_)) or (isinstance(v, (int, np.integer))):
                continue
            raise TypeError(f"BoolArray: {type(v).__name__} {v!r:.40} is not a bool")
        self.values = [bool(v) for v in values]

    def _make(self):
        n = len(self.values)
        buf = (ctypes.c_bool * max(n, 1))(*self.values)
        h = _lib.nnop().aclCreateBoolArray(buf, n)
        if not h:
            raise AclError(161001, _lib.recent_error(), "aclCreateBoolArray")
        return _Handle(h, "aclDestroyBoolArray", buf)


class Scalar:
    """An aclScalar argument: a host value of @dtype (default float32 for floats, int64 for ints,
    bool for bools)."""

    def __init__(self, value, dtype=None):
        if isinstance(value, (bool, np.bool_)):
            kind = "bool"
        elif isinstance(value, (int, np.integer)):
            kind = "int64"
        elif isinstance(value, (float, np.floating)):
            kind = "float32"
        else:  # complex, datetime, strings...: no silent conversion to a real number
            raise TypeError(f"Scalar: {type(value).__name__} {value!r:.40} is not a real number")
        self.value, self.dtype = value, as_dtype(dtype if dtype is not None else kind)
        if kind == "int64" and self.dtype is not bfloat16 and self.dtype.np.kind in "iu":
            info = np.iinfo(self.dtype.np)
            if not info.min <= int(value) <= info.max:
                raise OverflowError(f"Scalar: {int(value)} does not fit {self.dtype.name}")

    def _make(self):
        if self.dtype is bfloat16:
            from .array import float_to_bf16
            raw = float_to_bf16(np.array([self.value], dtype=np.float32)).tobytes()
        else:
            raw = np.array([self.value], dtype=self.dtype.np).tobytes()
        buf = ctypes.create_string_buffer(raw, 16)
        h = _lib.nnop().aclCreateScalar(ctypes.cast(buf, _vp), self.dtype.acl)
        if not h:
            raise AclError(161001, _lib.recent_error(), "aclCreateScalar")
        return _Handle(h, "aclDestroyScalar", buf)


def _fn(name):
    lib = _lib.opapi()
    try:
        f = getattr(lib, name)
    except AttributeError:
        raise OpUnavailableError(f"{name} is not exported by {lib._cannon_path}: this build of cannon "
                                 f"does not implement the operator") from None
    f.restype = ctypes.c_int
    return f


def available(op):
    """True when libopapi exports aclnn<Op> (op given as 'aclnnEmbedding' or 'Embedding')."""
    name = op if op.startswith("aclnn") else "aclnn" + op
    try:
        _fn(name + "GetWorkspaceSize")
        _fn(name)
        return True
    except OpUnavailableError:
        return False


class _OpInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("family", ctypes.c_char_p), ("header", ctypes.c_char_p),
                ("dtypes", ctypes.c_uint64), ("params", ctypes.c_char_p), ("doc", ctypes.c_char_p)]


# C parameter types of the manifest -> (kind, ctypes type, range) for argument conversion.
_INT_TYPES = {"int64_t": (ctypes.c_int64, -2**63, 2**63 - 1), "int32_t": (ctypes.c_int32, -2**31, 2**31 - 1),
              "int": (ctypes.c_int, -2**31, 2**31 - 1),
              "int8_t": (ctypes.c_int8, -128, 127), "uint64_t": (ctypes.c_uint64, 0, 2**64 - 1),
              "uint32_t": (ctypes.c_uint32, 0, 2**32 - 1), "aclDataType": (ctypes.c_int, -1, 2**31 - 1)}
_HANDLE_TYPES = {"aclTensor": "tensor", "aclScalar": "scalar", "aclIntArray": "intarray",
                 "aclBoolArray": "boolarray", "aclFloatArray": "floatarray", "aclTensorList": "tensorlist",
                 "aclScalarList": "scalarlist"}


def _parse_params(params):
    """'(const aclTensor *self, int64_t dim, ...)' -> [(name, kind, ctype, lo, hi)]."""
    out = []
    body = params.strip()[1:-1].strip()
    if not body or body == "void":
        return out
    for p in body.split(","):
        toks = p.replace("*", " * ").split()
        name = toks[-1]
        base = [t for t in toks[:-1] if t not in ("const", "*")]
        ptr = "*" in toks
        t = base[-1] if base else ""
        if ptr and t in _HANDLE_TYPES:
            out.append((name, _HANDLE_TYPES[t], _vp, None, None))
        elif ptr and t == "char":
            out.append((name, "str", ctypes.c_char_p, None, None))
        elif not ptr and t in _INT_TYPES:
            c, lo, hi = _INT_TYPES[t]
            out.append((name, "dtype" if t == "aclDataType" else "int", c, lo, hi))
        elif not ptr and t == "bool":
            out.append((name, "bool", ctypes.c_bool, None, None))
        elif not ptr and t in ("double", "float"):
            out.append((name, "float", ctypes.c_double if t == "double" else ctypes.c_float, None, None))
        else:
            raise TypeError(f"parameter type {p.strip()!r} has no Python conversion")
    return out


_manifest_cache = None


def manifest():
    """{'aclnnSoftmax': (family, header, params string, parsed params)} from libopapi's manifest."""
    global _manifest_cache
    if _manifest_cache is None:
        lib = _lib.opapi()
        f = lib.cannonOpManifest
        f.restype = ctypes.POINTER(_OpInfo)
        f.argtypes = [ctypes.POINTER(ctypes.c_size_t)]
        n = ctypes.c_size_t(0)
        table = f(ctypes.byref(n))
        m = {}
        for i in range(n.value):
            e = table[i]
            params = e.params.decode()
            m[e.name.decode()] = (e.family.decode(), e.header.decode(), params, _parse_params(params))
        _manifest_cache = m
    return _manifest_cache


def _convert(a, spec, op, owned):
    """Convert Python argument @a for parameter @spec of operator @op; TypeError / OverflowError
    when it does not fit the C type."""
    pname, kind, ctype, lo, hi = spec

    def bad(what):
        return TypeError(f"{op}: argument {pname!r} ({kind}) cannot take {what}")

    if kind in ("tensor", "scalar", "intarray", "boolarray", "floatarray", "tensorlist", "scalarlist"):
        if a is None:
            return _vp(None)
        if kind == "tensor" and isinstance(a, DeviceArray):
            h = _Handle(a._acl_tensor(), "aclDestroyTensor", a.buffer)
            owned.append(h)
            return _vp(h.handle)
        if kind == "tensorlist" and isinstance(a, (list, tuple)):
            if not all(x is None or isinstance(x, DeviceArray) for x in a):
                raise bad("a list with items other than DeviceArrays and None")
            hs = [None if x is None else x._acl_tensor() for x in a]
            buf = (_vp * max(len(hs), 1))(*hs)
            h = _lib.nnop().aclCreateTensorList(buf, len(hs))
            if not h:
                for t in hs:
                    if t:
                        _lib.nnop().aclDestroyTensor(t)
                raise AclError(161001, _lib.recent_error(), "aclCreateTensorList")
            lh = _Handle(h, "aclDestroyTensorList", [x.buffer for x in a if x is not None])  # owns the tensors
            owned.append(lh)
            return _vp(lh.handle)
        if kind == "intarray" and isinstance(a, (list, tuple)):
            a = IntArray(a)
        if kind == "boolarray" and isinstance(a, (list, tuple)):
            a = BoolArray(a)
        if kind == "scalar" and isinstance(a, (bool, int, float, np.bool_, np.integer, np.floating)):
            a = Scalar(a)
        want = {"scalar": Scalar, "intarray": IntArray, "boolarray": BoolArray}.get(kind)
        if want is not None and isinstance(a, want):
            h = a._make()
            owned.append(h)
            return _vp(h.handle)
        raise bad(type(a).__name__)
    if isinstance(a, ctypes._SimpleCData):
        a = a.value
    if kind == "dtype":
        if isinstance(a, (DType, str, np.dtype)) or (isinstance(a, type) and issubclass(a, np.generic)):
            return ctypes.c_int(as_dtype(a).acl)  # a name or numpy type: TypeError when cannon has no such dtype
        kind = "int"
    if kind == "int":
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise bad(type(a).__name__)
        v = int(a)
        if v < lo or v > hi:
            raise OverflowError(f"{op}: argument {pname!r} = {v} does not fit its C type (range [{lo}, {hi}])")
        return ctype(v)
    if kind == "bool":
        if not isinstance(a, (bool, np.bool_, int, np.integer)):
            raise bad(type(a).__name__)
        return ctypes.c_bool(bool(a))
    if kind == "float":
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.integer, np.floating)):
            raise bad(type(a).__name__)
        return ctype(float(a))
    if kind == "str":
        if not isinstance(a, (str, bytes)):
            raise bad(type(a).__name__)
        return ctypes.c_char_p(a.encode() if isinstance(a, str) else a)
    raise bad(type(a).__name__)


def _prepare(name, args):
    """The two phase functions of @name with their argtypes set, checking the argument count."""
    f1, f2 = _fn(name + "GetWorkspaceSize"), _fn(name)
    entry = manifest().get(name)
    if entry is None:
        raise OpUnavailableError(f"{name} is not in libopapi's operator manifest")
    specs = entry[3]
    if len(args) != len(specs):
        raise TypeError(f"{name} takes {len(specs)} arguments {entry[2]}, got {len(args)}")
    f1.argtypes = [s[2] for s in specs] + [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(_vp)]
    f2.argtypes = [_vp, ctypes.c_uint64, _vp, _vp]
    return f1, f2, specs


def call(name, *args, stream=None, sync=False):
    """Run aclnn operator @name (e.g. 'aclnnSoftmax') with @args; returns the workspace size."""
    f1, f2, specs = _prepare(name, args)
    runtime.ensure_initialized()
    st = runtime._stream(stream)
    owned = []
    try:
        cargs = [_convert(a, spec, name, owned) for a, spec in zip(args, specs)]
        ws, ex = ctypes.c_uint64(0), _vp()
        rc = f1(*cargs, ctypes.byref(ws), ctypes.byref(ex))
        if rc != 0:
            raise AclError(rc, _lib.recent_error(), name + "GetWorkspaceSize")
        try:
            wbuf = runtime.DeviceBuffer(ws.value) if ws.value else None
        except BaseException:
            _lib.nnop().aclDestroyAclOpExecutor(ex)
            raise
        if wbuf is not None:
            owned.append(wbuf)
        rc = f2(_vp(wbuf.ptr if wbuf else None), ctypes.c_uint64(ws.value), ex, _vp(st.handle))
        if rc != 0:
            raise AclError(rc, _lib.recent_error(), name)
    except BaseException:
        for o in owned:
            o.release()
        raise
    st._keep(*owned)
    if sync:
        st.synchronize()
    return ws.value


def phase1_status(name, *args, null_workspace_size=False, null_executor=False):
    """Run only phase 1 (``<name>GetWorkspaceSize``) of aclnn operator @name and return its status
    (0 or the aclnn error code) instead of raising; the executor it made, if any, is destroyed
    unrun. The message of a failure stays for ``cannon.recent_error()``. @args convert as in
    ``call`` (a wrong count or type still raises TypeError). @null_workspace_size and
    @null_executor pass NULL for the corresponding output pointer, so that a test can check that
    the library refuses it."""
    f1, _, specs = _prepare(name, args)
    runtime.ensure_initialized()
    owned = []
    try:
        cargs = [_convert(a, spec, name, owned) for a, spec in zip(args, specs)]
        ws, ex = ctypes.c_uint64(0), _vp()
        rc = f1(*cargs, None if null_workspace_size else ctypes.byref(ws), None if null_executor else ctypes.byref(ex))
        if rc == 0 and ex.value:
            _lib.nnop().aclDestroyAclOpExecutor(ex)
        return int(rc)
    finally:
        for o in owned:
            o.release()


# ---- helpers -------------------------------------------------------------------------------

def _arr(x, dtype=None):
    """DeviceArray from a DeviceArray (as is) or array-like (uploaded)."""
    if isinstance(x, DeviceArray):
        return x
    return DeviceArray.from_numpy(np.asarray(x), dtype)


def _out(out, shape, dtype):
    if out is not None:
        return out
    return DeviceArray(shape, dtype)


def _norm_dim(d, n):
    return d + n if d < 0 else d


_RED = {"none": 0, "mean": 1, "sum": 2, 0: 0, 1: 1, 2: 2}


def _promote(a, b):
    if a is b:
        return a
    if a is bfloat16 or b is bfloat16:
        o = b if a is bfloat16 else a
        if o in (float32, float64):
            return o
        return float32 if o is float16 else bfloat16
    return as_dtype(np.result_type(a.np, b.np))


# ---- softmax family --------------------------------------------------------------------------

def softmax(x, dim=-1, out=None, stream=None):
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call("aclnnSoftmax", x, dim, out, stream=stream)
    return out


def softmax_backward(grad_output, output, dim=-1, out=None, stream=None):
    g, y = _arr(grad_output), _arr(output)
    out = _out(out, g.shape, g.dtype)
    call("aclnnSoftmaxBackward", g, y, dim, out, stream=stream)
    return out


def log_softmax(x, dim=-1, out=None, stream=None):
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call("aclnnLogSoftmax", x, dim, out, stream=stream)
    return out


def log_softmax_backward(grad_output, output, dim=-1, out=None, stream=None):
    g, y = _arr(grad_output), _arr(output)
    out = _out(out, g.shape, g.dtype)
    call("aclnnLogSoftmaxBackward", g, y, dim, out, stream=stream)
    return out


# ---- batch norm family (statistics in float32, shape (C,), channel axis 1) --------------------

def _C(x):
    return x.shape[1] if x.ndim > 1 else x.shape[0]


def batch_norm(x, weight=None, bias=None, running_mean=None, running_var=None, training=True, momentum=0.1,
               eps=1e-5, stream=None):
    """Returns (out, save_mean, save_invstd); running stats are updated in place when training."""
    x = _arr(x)
    C = _C(x)
    out, sm, si = DeviceArray(x.shape, x.dtype), DeviceArray((C,), float32), DeviceArray((C,), float32)
    call("aclnnBatchNorm", x, weight, bias, running_mean, running_var, bool(training), float(momentum),
         float(eps), out, sm, si, stream=stream)
    return out, sm, si


def batch_norm_backward(grad_out, x, weight, running_mean, running_var, save_mean, save_invstd, training=True,
                        eps=1e-5, output_mask=(True, True, True), stream=None):
    """Returns (grad_input, grad_weight, grad_bias) (None where the mask is False)."""
    x = _arr(x)
    C = _C(x)
    gi = DeviceArray(x.shape, x.dtype) if output_mask[0] else None
    gw = DeviceArray((C,), float32) if output_mask[1] else None
    gb = DeviceArray((C,), float32) if output_mask[2] else None
    call("aclnnBatchNormBackward", _arr(grad_out), x, weight, running_mean, running_var, save_mean, save_invstd,
         bool(training), float(eps), BoolArray(output_mask), gi, gw, gb, stream=stream)
    return gi, gw, gb


def batch_norm_stats(x, eps=1e-5, stream=None):
    """Per-channel (mean, invstd) of a local batch (float32, (C,))."""
    x = _arr(x)
    C = _C(x)
    m, i = DeviceArray((C,), float32), DeviceArray((C,), float32)
    call("aclnnBatchNormStats", x, float(eps), m, i, stream=stream)
    return m, i


def batch_norm_gather_stats_with_counts(x, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
                                        eps=1e-5, counts=None, stream=None):
    """Combine per-rank stats (mean/invstd (W, C), counts (W,)) → global (mean, invstd)."""
    x = _arr(x)
    C = _C(x)
    ma, ia = DeviceArray((C,), float32), DeviceArray((C,), float32)
    call("aclnnBatchNormGatherStatsWithCounts", x, mean, invstd, running_mean, running_var, float(momentum),
         float(eps), counts, ma, ia, stream=stream)
    return ma, ia


def batch_norm_elemt(x, weight, bias, mean, invstd, eps=1e-5, out=None, stream=None):
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call("aclnnBatchNormElemt", x, weight, bias, mean, invstd, float(eps), out, stream=stream)
    return out


def batch_norm_backward_reduce(grad_out, x, mean, invstd, weight, input_g=True, weight_g=True, bias_g=True,
                               stream=None):
    """Returns (sum_dy, sum_dy_xmu, grad_weight, grad_bias) (float32, (C,))."""
    x = _arr(x)
    C = _C(x)
    outs = [DeviceArray((C,), float32) for _ in range(4)]
    call("aclnnBatchNormReduceBackward", _arr(grad_out), x, mean, invstd, weight, bool(input_g), bool(weight_g),
         bool(bias_g), *outs, stream=stream)
    return tuple(outs)


def batch_norm_elemt_backward(grad_out, x, mean, invstd, weight, sum_dy, sum_dy_xmu, counter, out=None,
                              stream=None):
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call("aclnnBatchNormElemtBackward", _arr(grad_out), x, mean, invstd, weight, sum_dy, sum_dy_xmu, counter, out,
         stream=stream)
    return out


# ---- layer norm / rms norm -----------------------------------------------------------------

def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, stream=None):
    """Returns (out, mean, rstd); mean/rstd are float32 of shape x.shape[:-k] + (1,)*k."""
    x = _arr(x)
    ns = [int(normalized_shape)] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(ns)
    st = x.shape[:x.ndim - k] + (1,) * k
    out, mean, rstd = DeviceArray(x.shape, x.dtype), DeviceArray(st, float32), DeviceArray(st, float32)
    call("aclnnLayerNorm", x, IntArray(ns), weight, bias, float(eps), out, mean, rstd, stream=stream)
    return out, mean, rstd


def layer_norm_backward(grad_out, x, normalized_shape, mean, rstd, weight=None, bias=None,
                        output_mask=(True, True, True), stream=None):
    """Returns (grad_input, grad_weight, grad_bias) (weight/bias grads float32, None where masked)."""
    x = _arr(x)
    ns = [int(normalized_shape)] if isinstance(normalized_shape, int) else list(normalized_shape)
    gi = DeviceArray(x.shape, x.dtype) if output_mask[0] else None
    gw = DeviceArray(ns, float32) if output_mask[1] else None
    gb = DeviceArray(ns, float32) if output_mask[2] else None
    call("aclnnLayerNormBackward", _arr(grad_out), x, IntArray(ns), mean, rstd, weight, bias, BoolArray(output_mask),
         gi, gw, gb, stream=stream)
    return gi, gw, gb


def rms_norm(x, gamma, eps=1e-6, stream=None):
    """Returns (y, rstd); rstd is float32 of shape x.shape[:-g] + (1,)*g (g = gamma.ndim)."""
    x, gamma = _arr(x), _arr(gamma)
    g = gamma.ndim
    y, rstd = DeviceArray(x.shape, x.dtype), DeviceArray(x.shape[:x.ndim - g] + (1,) * g, float32)
    call("aclnnRmsNorm", x, gamma, float(eps), y, rstd, stream=stream)
    return y, rstd


def rms_norm_grad(dy, x, rstd, gamma, stream=None):
    """Returns (dx, dgamma) (dgamma float32, gamma's shape)."""
    x, gamma = _arr(x), _arr(gamma)
    dx, dg = DeviceArray(x.shape, x.dtype), DeviceArray(gamma.shape, float32)
    call("aclnnRmsNormGrad", _arr(dy), x, rstd, gamma, dx, dg, stream=stream)
    return dx, dg


# ---- elementwise -----------------------------------------------------------------------------

def _binary(name, a, b, alpha, out, stream):
    a = _arr(a)
    alpha_args = [] if alpha is False else [Scalar(alpha, "float32" if isinstance(alpha, float) else None)]
    if isinstance(b, (int, float, np.integer, np.floating)):
        sdt = "float32" if isinstance(b, (float, np.floating)) else "int64"
        odt = a.dtype if (a.dtype.np.kind == "f" or a.dtype is bfloat16 or sdt == "int64") else float32
        out = _out(out, a.shape, odt)
        call(name + "s", a, Scalar(b, sdt), *alpha_args, out, stream=stream)
        return out
    b = _arr(b)
    out = _out(out, np.broadcast_shapes(a.shape, b.shape), _promote(a.dtype, b.dtype))
    call(name, a, b, *alpha_args, out, stream=stream)
    return out


def add(a, b, alpha=1.0, out=None, stream=None):
    """a + alpha*b (b: DeviceArray or Python scalar; broadcasting)."""
    return _binary("aclnnAdd", a, b, alpha, out, stream)


def sub(a, b, alpha=1.0, out=None, stream=None):
    return _binary("aclnnSub", a, b, alpha, out, stream)


def mul(a, b, out=None, stream=None):
    return _binary("aclnnMul", a, b, False, out, stream)


def div(a, b, out=None, stream=None):
    return _binary("aclnnDiv", a, b, False, out, stream)


def cast(x, dtype, out=None, stream=None):
    x, d = _arr(x), as_dtype(dtype)
    out = _out(out, x.shape, d)
    call("aclnnCast", x, d, out, stream=stream)
    return out


def _unary(name, x, out, stream):
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call(name, x, out, stream=stream)
    return out


def relu(x, out=None, stream=None):
    return _unary("aclnnRelu", x, out, stream)


def gelu(x, approximate="tanh", out=None, stream=None):
    """GELU. approximate='tanh' (aclnnGelu, CANN's default) or 'none' (erf form, aclnnGeluV2)."""
    if approximate == "tanh":
        return _unary("aclnnGelu", x, out, stream)
    if approximate != "none":
        raise ValueError("approximate must be 'tanh' or 'none'")
    x = _arr(x)
    out = _out(out, x.shape, x.dtype)
    call("aclnnGeluV2", x, 0, out, stream=stream)
    return out


def silu(x, out=None, stream=None):
    return _unary("aclnnSilu", x, out, stream)


def relu_backward(grad_output, x, out=None, stream=None):
    """grad where x > 0 (aclnnThresholdBackward with threshold 0)."""
    g, x = _arr(grad_output), _arr(x)
    out = _out(out, g.shape, g.dtype)
    call("aclnnThresholdBackward", g, x, Scalar(0.0), out, stream=stream)
    return out


def gelu_backward(grad_output, x, out=None, stream=None):
    """Gradient of the tanh-approximated GELU (aclnnGeluBackward)."""
    g, x = _arr(grad_output), _arr(x)
    out = _out(out, g.shape, g.dtype)
    call("aclnnGeluBackward", g, x, out, stream=stream)
    return out


def silu_backward(grad_output, x, out=None, stream=None):
    g, x = _arr(grad_output), _arr(x)
    out = _out(out, g.shape, g.dtype)
    call("aclnnSiluBackward", g, x, out, stream=stream)
    return out


def _matmul_shape(a, b):
    if len(a) == 0 or len(b) == 0:
        raise ValueError("matmul of a 0-d array")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: inner dimensions differ: {a} @ {b}")
    shape = np.broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b) == 1:
        shape = shape[:-1]
    return shape


def matmul(a, b, cube_math_type=0, out=None, stream=None):
    """numpy.matmul semantics (aclnnMatmul); cube_math_type as CANN's (0 keep dtype, 1 allow fp16...)."""
    a, b = _arr(a), _arr(b)
    out = _out(out, _matmul_shape(a.shape, b.shape), _promote(a.dtype, b.dtype))
    call("aclnnMatmul", a, b, out, ctypes.c_int8(cube_math_type), stream=stream)
    return out


# ---- training ops (guarded: another part of cannon may not have them yet) -------------------

def embedding(weight, indices, out=None, stream=None):
    """weight[indices]: shape indices.shape + (D,)."""
    w, i = _arr(weight), _arr(indices)
    out = _out(out, i.shape + (w.shape[-1],), w.dtype)
    call("aclnnEmbedding", w, i, out, stream=stream)
    return out


U64_NONE = (1 << 64) - 1


def embedding_dense_backward(grad, indices, num_weights, padding_idx=None, scale_grad_by_freq=False, out=None,
                             stream=None):
    """Gradient of the embedding table (num_weights, D); padding_idx None = no padding row."""
    g, i = _arr(grad), _arr(indices)
    pad = U64_NONE if padding_idx is None else int(padding_idx) % (1 << 64)
    out = _out(out, (int(num_weights), g.shape[-1]), g.dtype)
    call("aclnnEmbeddingDenseBackward", g, i, ctypes.c_uint64(int(num_weights)), ctypes.c_uint64(pad),
         bool(scale_grad_by_freq), out, stream=stream)
    return out


def nll_loss(x, target, weight=None, reduction="mean", ignore_index=-100, stream=None):
    """Returns (loss, total_weight). reduction 'none' gives (N,), else a 0-d loss. weight None = ones."""
    x, t = _arr(x), _arr(target)
    red = _RED[reduction]
    C = x.shape[-1]
    if weight is None:
        weight = DeviceArray.full((C,), 1.0, x.dtype)
    oshape = (x.shape[0],) if red == 0 and x.ndim == 2 else ()
    out, tw = DeviceArray(oshape, x.dtype), DeviceArray((1,), x.dtype)
    call("aclnnNLLLoss", x, t, weight, red, int(ignore_index), out, tw, stream=stream)
    return out, tw


def nll_loss_backward(grad_output, x, target, weight=None, reduction="mean", ignore_index=-100, total_weight=None,
                      out=None, stream=None):
    x, t = _arr(x), _arr(target)
    C = x.shape[-1]
    if weight is None:
        weight = DeviceArray.full((C,), 1.0, x.dtype)
    out = _out(out, x.shape, x.dtype)
    call("aclnnNLLLossBackward", _arr(grad_output), x, t, weight, _RED[reduction], int(ignore_index), total_weight,
         out, stream=stream)
    return out


def _reduced_shape(shape, dims, keepdim):
    n = len(shape)
    ds = set(_norm_dim(int(d), n) for d in dims) if dims else set(range(n))
    if keepdim:
        return tuple(1 if i in ds else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in ds)


def _reduce(name, x, dims, keepdim, dtype, out, stream):
    x = _arr(x)
    if dims is None:
        dims = list(range(x.ndim))
    elif isinstance(dims, int):
        dims = [dims]
    d = as_dtype(dtype) if dtype is not None else x.dtype
    out = _out(out, _reduced_shape(x.shape, dims, keepdim), d)
    call(name, x, IntArray(dims), bool(keepdim), d, out, stream=stream)
    return out


def reduce_sum(x, dims=None, keepdim=False, dtype=None, out=None, stream=None):
    return _reduce("aclnnReduceSum", x, dims, keepdim, dtype, out, stream)


def mean(x, dims=None, keepdim=False, dtype=None, out=None, stream=None):
    return _reduce("aclnnMean", x, dims, keepdim, dtype, out, stream)
