"""Custom operator packages (built with cannon-opc, or any package in CANN's layout whose
libcust_opapi.so cannon runs) as ``torch.ops.<namespace>.<op>``.

    import torch, cannon.torch
    ops = cannon.torch.load_package()            # the packages ASCEND_CUSTOM_OPP_PATH / config.ini name
    z = torch.ops.customize.add_custom(x, y)     # aclnnAddCustom on CPU tensors, zero-copy

Each operator ``OpType`` of a package becomes ``<op_type snake>`` (AddCustom -> add_custom) in the
namespace given, by default the vendor's name. Its schema is the OpDef's: inputs (``Tensor``, or
``Tensor?`` when OPTIONAL), then attributes (``bool``/``int``/``float``/``str``, with the OpDef's
default when OPTIONAL); it returns the outputs (one ``Tensor`` or a tuple). Outputs are allocated
from the operator's InferShape/InferDataType (libcannon_opdef's cannonOpcInfer); the call is
phase 1 + phase 2 on this thread's stream + a synchronize, as for cannon's own operators.

Autograd: when the package also has ``<OpType>Grad``, the op is differentiable. The convention
(what cannon-opc packages follow): ``<OpType>Grad`` takes the gradients of the forward outputs,
then the forward inputs, then the forward attributes; its outputs are the gradients of the
forward inputs, in order.
"""
import ctypes
import json
import os
import threading

import torch
from torch.library import Library

from .. import _lib
from . import _bridge as B

_MAX_DIMS = 25
_lock = threading.Lock()
_libraries = {}   # namespace -> torch.library.Library (kept alive: its destruction unregisters)
_loaded = {}      # libcust_opapi.so path -> ctypes.CDLL
_ops = {}         # "ns::name" -> _PackageOp
_ATTR_SCHEMA = {"bool": "bool", "int": "int", "float": "float", "string": "str"}
_TORCH_DTYPE = {v: k for k, v in B.ACL_DTYPE.items()}


class PackageError(RuntimeError):
    """A package that cannot be loaded (missing library, wrong layout)."""


def snake(name):
    """CANN's OpType -> file/kernel name rule: AddCustom -> add_custom."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0:
            prev, nxt = name[i - 1], name[i + 1] if i + 1 < len(name) else ""
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                out.append("_")
        out.append(ch.lower())
    return "".join(out)


class _Attr(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("b", ctypes.c_bool), ("i", ctypes.c_int64), ("f", ctypes.c_double),
                ("s", ctypes.c_char_p)]


_KIND = {"bool": 1, "int": 2, "float": 3, "string": 4}


def _opdef():
    lib = _lib.load("cannon_opdef")
    if not getattr(lib, "_cannon_protos", False):
        lib.cannonOpcDescribe.restype = ctypes.c_char_p
        lib.cannonOpcInfer.restype = ctypes.c_int
        lib.cannonOpcInfer.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_void_p]
        lib._cannon_protos = True
    return lib


def vendors():
    """The vendor folders libopapi searches, in priority order (ASCEND_CUSTOM_OPP_PATH entries,
    then ASCEND_OPP_PATH/vendors/config.ini's load_priority)."""
    f = _lib.opapi().cannonCustomOppVendors
    buf = ctypes.create_string_buffer(65536)
    rc = f(buf, ctypes.c_size_t(len(buf)))
    if rc != 0:
        raise _lib.AclError(rc, _lib.recent_error(), "cannonCustomOppVendors")
    return [v for v in buf.value.decode().split(":") if v]


def _vendor_dirs(path):
    """The vendor folders of @path: a vendor folder (op_api/), an OPP folder or a cannon-opc
    output (vendors/config.ini, or every vendor under vendors/)."""
    path = os.path.abspath(path)
    if os.path.isdir(os.path.join(path, "op_api")):
        return [path]
    vdir = os.path.join(path, "vendors")
    if os.path.isdir(vdir):
        ini = os.path.join(vdir, "config.ini")
        names = []
        if os.path.exists(ini):
            with open(ini) as fh:
                for line in fh:
                    if line.strip().startswith("load_priority="):
                        names = [x.strip() for x in line.split("=", 1)[1].split(",") if x.strip()]
        if not names:
            names = sorted(d for d in os.listdir(vdir) if os.path.isdir(os.path.join(vdir, d)))
        return [os.path.join(vdir, n) for n in names if os.path.isdir(os.path.join(vdir, n))]
    raise PackageError(f"{path} is not an operator package: it holds neither op_api/ nor vendors/")


class _PackageOp:
    def __init__(self, lib, d, grad):
        self.type = d["type"]
        self.inputs, self.outputs, self.attrs = d["inputs"], d["outputs"], d["attrs"]
        self.grad = grad
        try:
            self.f1 = getattr(lib, f"aclnn{self.type}GetWorkspaceSize")
            self.f2 = getattr(lib, f"aclnn{self.type}")
        except AttributeError as e:
            raise PackageError(f"{lib._name} lacks the aclnn API of {self.type}: {e}") from None
        self.f1.restype = ctypes.c_int
        self.f2.restype = ctypes.c_int

    def schema(self, name):
        args = [f"Tensor{'?' if p['param_type'] == 'optional' else ''} {p['name']}" for p in self.inputs]
        for a in self.attrs:
            s = f"{_ATTR_SCHEMA[a['kind']]} {a['name']}"
            if not a["required"] and "default" in a:
                dv = a["default"]
                if a["kind"] == "bool":
                    dv = "True" if dv else "False"
                elif a["kind"] == "string":
                    dv = json.dumps(dv)
                elif a["kind"] == "float":
                    dv = repr(float(dv))
                s += f"={dv}"
            args.append(s)
        ret = "Tensor" if len(self.outputs) == 1 else "(" + ", ".join("Tensor" for _ in self.outputs) + ")"
        return f"{name}({', '.join(args)}) -> {ret}"

    def _attr_values(self, vals):
        arr = (_Attr * max(1, len(self.attrs)))()
        keep = []
        for k, (a, v) in enumerate(zip(self.attrs, vals)):
            arr[k].kind = _KIND[a["kind"]]
            if a["kind"] == "bool":
                arr[k].b = bool(v)
            elif a["kind"] == "int":
                arr[k].i = int(v)
            elif a["kind"] == "float":
                arr[k].f = float(v)
            else:
                s = str(v).encode()
                keep.append(s)
                arr[k].s = s
        return arr, keep

    def __call__(self, *args, **kwargs):
        n_in = len(self.inputs)
        tensors, vals = list(args[:n_in]), list(args[n_in:])
        # the dispatcher leaves out trailing arguments equal to their defaults
        for a in self.attrs[len(vals):]:
            if a["name"] in kwargs:
                vals.append(kwargs.pop(a["name"]))
            elif "default" in a and not a["required"]:
                vals.append(a["default"])
            else:
                raise TypeError(f"{self.type}: missing attribute {a['name']}")
        if len(tensors) != n_in or len(vals) != len(self.attrs) or kwargs:
            raise TypeError(f"{self.type}: takes {n_in} tensors and {len(self.attrs)} attributes")
        for p, t in zip(self.inputs, tensors):
            if t is not None:
                B.check_cpu(t, p["name"])
        outs = self._alloc(tensors, vals)
        cargs = tensors + [self._ctype_attr(a, v) for a, v in zip(self.attrs, vals)] + outs
        B.call_fns(self.f1, self.f2, f"aclnn{self.type}", *cargs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    @staticmethod
    def _ctype_attr(a, v):
        if a["kind"] == "bool":
            return ctypes.c_bool(bool(v))
        if a["kind"] == "int":
            return ctypes.c_int64(int(v))
        if a["kind"] == "float":
            return ctypes.c_double(float(v))
        return ctypes.c_char_p(str(v).encode())

    def _alloc(self, tensors, vals):
        """The outputs, shaped and typed by the operator's inference."""
        th = B._thread()
        B._nnop()
        owned = []
        n_out = len(self.outputs)
        dts = (ctypes.c_int32 * n_out)()
        dims = (ctypes.c_int64 * (n_out * _MAX_DIMS))()
        nd = (ctypes.c_uint64 * n_out)()
        try:
            handles = (ctypes.c_void_p * max(1, len(tensors)))(
                *[th.borrow(t, B.ACL_FORMAT_ND, t.shape, t.stride(), owned) if t is not None else None
                  for t in tensors])
            attrs, _keep = self._attr_values(vals)
            rc = _opdef().cannonOpcInfer(self.type.encode(), handles, len(tensors), attrs, len(self.attrs), n_out,
                                         dts, dims, nd)
        finally:
            th.give_back(owned)
        if rc != 0:
            raise _lib.AclError(rc, _lib.recent_error(), f"aclnn{self.type} (output inference)")
        outs = []
        for o in range(n_out):
            dt = _TORCH_DTYPE.get(dts[o])
            if dt is None:
                raise TypeError(f"cannon: {self.type}'s output {self.outputs[o]['name']} has aclDataType {dts[o]}, "
                                "which torch cannot hold")
            outs.append(B.empty([dims[o * _MAX_DIMS + k] for k in range(nd[o])], dt))
        return outs


def _autograd(op, grad_op):
    n_in = len(op.inputs)

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            ctx.save_for_backward(*[a for a in args[:n_in]])
            ctx.attrs = args[n_in:]
            ctx.n_args = len(args)
            return op(*args)

        @staticmethod
        def backward(ctx, *grads):
            ins = list(ctx.saved_tensors)
            g = grad_op(*[x.contiguous() for x in grads], *ins, *ctx.attrs)
            g = g if isinstance(g, tuple) else (g,)
            return tuple(g[:n_in]) + (None,) * (ctx.n_args - n_in)

    def ag(*args):
        if torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args[:n_in]):
            return Fn.apply(*args)
        return op(*args)
    return ag


def load_package(path=None, namespace=None):
    """Register the operators of a package as ``torch.ops.<namespace>.<op>``.

    @path: a vendor folder (holding op_api/lib/libcust_opapi.so), an OPP folder or cannon-opc
    output (holding vendors/), or None for every package libopapi finds through
    ASCEND_CUSTOM_OPP_PATH and ASCEND_OPP_PATH/vendors/config.ini (first found wins for an
    operator two packages define). @namespace: the torch namespace, by default the vendor's name.
    Returns {"<namespace>::<op>": callable}. Loading a package twice is a no-op.
    """
    dirs = _vendor_dirs(path) if path is not None else vendors()
    if not dirs:
        raise PackageError("no operator package found: set ASCEND_CUSTOM_OPP_PATH to a vendor folder or install "
                           "one with cannon-opc install (ASCEND_OPP_PATH/vendors/config.ini)")
    result = {}
    with _lock:
        for vdir in dirs:
            result.update(_load_vendor(vdir, namespace or os.path.basename(os.path.normpath(vdir))))
    return result


def _load_vendor(vdir, ns):
    libpath = os.path.join(vdir, "op_api", "lib", "libcust_opapi.so")
    if not os.path.exists(libpath):
        raise PackageError(f"{vdir} is not an operator package: {libpath} does not exist")
    _lib.acl()
    _lib.nnop()
    opdef = _opdef()
    lib = _loaded.get(libpath)
    if lib is None:
        try:
            lib = ctypes.CDLL(libpath, mode=ctypes.RTLD_LOCAL)
        except OSError as e:
            raise PackageError(f"cannot load {libpath}: {e}") from None
        _loaded[libpath] = lib
    described = json.loads(opdef.cannonOpcDescribe().decode())["ops"]
    mine = {d["type"]: d for d in described if hasattr(lib, f"aclnn{d['type']}GetWorkspaceSize")}
    if not mine:
        raise PackageError(f"{libpath} provides no operator registered with libcannon_opdef (not built by cannon-opc?)")
    ops = {t: _PackageOp(lib, d, None) for t, d in mine.items()}
    library = _libraries.get(ns)
    new_lib = library is None
    if new_lib:
        library = Library(ns, "DEF")
    out = {}
    for t, op in ops.items():
        name = snake(t)
        key = f"{ns}::{name}"
        if key in _ops:
            out[key] = _ops[key]
            continue
        library.define(op.schema(name))
        library.impl(name, op, "CPU")
        grad = ops.get(t + "Grad")
        if grad is not None:
            if len(grad.outputs) != len(op.inputs):
                raise PackageError(f"{t}Grad has {len(grad.outputs)} outputs; {t} has {len(op.inputs)} inputs "
                                   "(the backward convention needs one gradient per input)")
            library.impl(name, _autograd(op, grad), "Autograd")
        _ops[key] = op
        out[key] = op
    if new_lib:
        _libraries[ns] = library
    return out
