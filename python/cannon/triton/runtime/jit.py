"""@triton.jit: JITFunction keeps a kernel's source and signature, binds and checks the arguments of
a launch ``kernel[grid](*args, **constexprs_and_options)``, and runs it.

Launch path: arguments are bound to the signature (a wrong count or an unknown name is a TypeError
naming the kernel before anything runs); an argument with ``data_ptr()`` and ``dtype`` (a torch CPU
tensor) or a cannon DeviceArray becomes a pointer to its element type (a dtype with no Triton type
is a TypeError); ints become int32/uint32/int64/uint64 scalars by value, floats fp32, bools int1;
parameters annotated ``tl.constexpr`` receive the Python value. The grid is a tuple of up to three
ints or a callable over the dict of bound arguments; missing dimensions are 1.

Mode: a launch is compiled when a C compiler is present and the C emitter handles every construct
of the kernel: the specialization (argument types, constexpr values) is compiled once into a shared
object (compiler/codegen_c.py, compiler/build.py, cached on disk) and its runner runs the grid's
program instances, split into contiguous ranges over worker threads (``num_cpu_threads``, default:
every CPU this process may use). Otherwise the launch runs in the interpreter (every program instance
in order, x outermost, z innermost); ``CANNON_TRITON_DEBUG=1`` prints why. ``TRITON_INTERPRET=1``
(read at each launch), ``@triton.jit(interpret=True)`` and ``CANNON_TRITON_BOUNDS=1`` select the
interpreter. ``CANNON_TRITON_DUMP=1`` prints the C of each specialization as it is built.
"""
import ctypes
import functools
import inspect
import os
import struct
import sys
import textwrap
import types

from .. import semantics as sem

_JIT_CODES = set()

LAUNCH_OPTIONS = frozenset(("num_warps", "num_stages", "num_ctas", "num_cpu_threads", "maxnreg", "enable_fp_fusion",
                  "debug", "stream", "launch_cooperative_grid", "extern_libs", "sanitize_overflow",
                  "max_num_imprecise_acc", "enable_warp_specialization", "matrix_instr_nonkdim", "kpack",
                  "waves_per_eu", "instrumentation_mode", "launch_pdl"))


def _is_constexpr_annotation(ann):
    if ann is inspect.Parameter.empty:
        return False
    if isinstance(ann, str):
        return "constexpr" in ann
    from ..language.core import constexpr
    return ann is constexpr or (isinstance(ann, type) and issubclass(ann, constexpr))


class KernelParam:
    def __init__(self, num, param, do_not_specialize, do_not_specialize_on_alignment):
        self.num, self._param = num, param
        self.name = param.name
        self.is_constexpr = _is_constexpr_annotation(param.annotation)
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment
        self.default = param.default

    @property
    def annotation(self):
        a = self._param.annotation
        return "" if a is inspect.Parameter.empty else a

    def __repr__(self):
        return f"KernelParam({self.name}{', constexpr' if self.is_constexpr else ''})"


class KernelInterface:
    """``kernel[grid](...)`` for every kind of kernel object (jit, autotune, heuristics)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


class _Metadata:
    def __init__(self, name, options):
        self.name = name
        self.num_warps = options.get("num_warps", 4)
        self.num_stages = options.get("num_stages", 3)
        self.num_ctas = options.get("num_ctas", 1)
        from .driver import DEVICE_PROPERTIES_SHARED
        self.shared = DEVICE_PROPERTIES_SHARED


class CompiledKernel:
    """What ``kernel.warmup(...)`` returns: the specialization's launch handle and the metadata GPU
    code reads (n_regs and metadata.shared are sized so that an occupancy computed from the device
    properties comes out as one program per worker)."""

    def __init__(self, jit, kwargs, options):
        from .driver import device_properties
        self._jit, self._kwargs = jit, kwargs
        self.metadata = _Metadata(jit.__name__, options)
        warps = max(int(self.metadata.num_warps), 1)
        props = device_properties()
        self.n_regs = max(props["max_num_regs"] // (props["warpSize"] * warps), 1)
        self.n_spills = 0
        self.n_max_threads = props["warpSize"] * warps
        self.name = jit.__name__
        self.function = None
        self.module = None

    def _init_handles(self):
        return None

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            named = {p.name for p in self._jit.params[:len(args)]}
            extra = {k: v for k, v in self._kwargs.items() if k not in named and k not in kwargs}
            return self._jit.run(*args, grid=grid, warmup=False, **extra, **kwargs)
        return launch

    def run(self, *args, grid=(1,), **kwargs):
        return self[grid](*args, **kwargs)


class JITFunction(KernelInterface):
    """A @triton.jit kernel or device function."""

    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None, interpret=None):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"@triton.jit needs a Python function, got {fn!r}")
        self.fn = fn
        self.module = fn.__module__
        self.version = version
        self.signature = inspect.signature(fn)
        self.debug = debug
        self.noinline = noinline
        self.interpret = interpret
        self._repr = repr
        self.launch_metadata = launch_metadata
        try:
            self.src = textwrap.dedent(inspect.getsource(fn))
            self.src = self.src[self.src.find("def"):]
        except (OSError, TypeError):
            self.src = None
        names = list(self.signature.parameters)
        self.arg_names = names
        dns = self._indices(do_not_specialize, names)
        dna = self._indices(do_not_specialize_on_alignment, names)
        self.do_not_specialize = do_not_specialize or []
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment or []
        self.params = [KernelParam(i, p, i in dns, i in dna) for i, p in enumerate(self.signature.parameters.values())]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self._param_set = frozenset(names)
        self._plain = all(p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD for p in self.signature.parameters.values())
        self.cache = {}
        self._programs = {}
        self.last_mode = None
        self.fallback_reason = None
        self.check_report = None
        self.hash = None
        _JIT_CODES.add(fn.__code__)
        functools.update_wrapper(self, fn)

    @staticmethod
    def _indices(spec, names):
        out = set()
        for s in spec or ():
            if isinstance(s, int):
                out.add(s)
            elif s in names:
                out.add(names.index(s))
            else:
                raise ValueError(f"do_not_specialize: {s!r} is not a parameter")
        return out

    def __repr__(self):
        return f"JITFunction({self.module}:{self.fn.__qualname__})"

    # ---- called from inside a running kernel: a device function ----
    def __call__(self, *args, **kwargs):
        from .. import interpreter
        if not interpreter.active():
            raise RuntimeError(f"Cannot call @triton.jit'd function {self.__name__!r} outside of the scope of a "
                               "kernel; launch it as kernel[grid](...)")
        return self._interp_call(*args, **kwargs)

    def _interp_fn(self):
        from ..language import core
        g = dict(self.fn.__globals__)
        g["range"] = core.range
        g["min"] = core.builtin_min
        g["max"] = core.builtin_max
        return types.FunctionType(self.fn.__code__, g, self.fn.__name__, self.fn.__defaults__, self.fn.__closure__)

    def _interp_call(self, *args, **kwargs):
        f = self._interp_fn()
        if self.fn.__kwdefaults__:
            f.__kwdefaults__ = dict(self.fn.__kwdefaults__)
        return f(*args, **kwargs)

    # ---- launch ----
    def _bind(self, args, kwargs):
        if self._plain and len(args) <= len(self.arg_names):
            # the common case without inspect: positional-or-keyword parameters only
            bound = dict(zip(self.arg_names, args))
            ok = True
            for k, v in kwargs.items():
                if k in bound or k not in self._param_set:
                    ok = False
                    break
                bound[k] = v
            if ok:
                for p in self.params:
                    if p.name not in bound:
                        if p.default is inspect.Parameter.empty:
                            ok = False
                            break
                        bound[p.name] = p.default
            if ok:
                return {n: bound[n] for n in self.arg_names}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"kernel {self.__name__}({', '.join(self.arg_names)}): {e}") from None
        bound.apply_defaults()
        return bound.arguments

    def _convert(self, name, value, launch):
        from ..language.core import tensor
        from .. import interpreter
        import numpy as np
        if value is None or isinstance(value, (sem.dtype, str, tuple, list)) or callable(value) and \
                not hasattr(value, "dtype"):
            return value
        if isinstance(value, bool):
            return tensor(np.bool_(value), sem.int1)
        if isinstance(value, int):
            t = sem.scalar_dtype(value)
            return tensor(interpreter.np_dtype(t).type(value), t)
        if isinstance(value, float):
            return tensor(np.float32(value), sem.float32)
        if _is_host_desc(value):
            from ..language.core import tensor_descriptor
            base = self._convert(name, value.base, launch)
            return tensor_descriptor(base, list(value.shape), list(value.strides), list(value.block_shape))
        elt = self._pointer_elt(name, value)
        if elt is not None:
            launch.register(value, name)
            return tensor(np.int64(interpreter.pointer_address(value)), sem.pointer_type(elt))
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            return self._convert(name, value.item(), launch)
        return value

    def _pointer_elt(self, name, value):
        """The element type of a pointer argument (a torch tensor or a DeviceArray), None for others;
        TypeError for a dtype with no Triton type or memory the host cannot address."""
        is_tensor = hasattr(value, "data_ptr") and callable(getattr(value, "data_ptr")) and hasattr(value, "dtype")
        is_array = hasattr(value, "ptr") and hasattr(value, "buffer") and hasattr(value, "dtype")
        if not (is_tensor or is_array):
            return None
        try:
            elt = sem.dtype_of_torch(value)
        except TypeError:
            raise TypeError(f"kernel {self.__name__}: argument {name!r} has dtype {value.dtype}, which has no "
                            "Triton pointer type") from None
        dev = getattr(value, "device", None)
        if dev is not None and getattr(dev, "type", "cpu") in ("cuda", "meta", "xla", "mps"):
            raise TypeError(f"kernel {self.__name__}: argument {name!r} lives on device {dev}; cannon.triton "
                            "runs on host-addressable memory (CPU tensors, cannon device arrays)")
        if is_array and not is_tensor:
            from ... import runtime as cannon_runtime
            if not cannon_runtime.host_addressable():
                raise TypeError(f"kernel {self.__name__}: argument {name!r} is device memory that is not "
                                "host-addressable")
        return elt

    @staticmethod
    def _grid(grid, meta):
        g = grid(meta) if callable(grid) else grid
        if type(g) is tuple and len(g) == 1 and type(g[0]) is int and g[0] >= 0:
            return (g[0], 1, 1)
        if isinstance(g, int):
            g = (g,)
        g = tuple(int(x) for x in g)
        if not 1 <= len(g) <= 3:
            raise ValueError(f"the grid must have 1 to 3 dimensions, got {g}")
        if any(x < 0 for x in g):
            raise ValueError(f"grid dimensions must be non-negative, got {g}")
        return g + (1,) * (3 - len(g))

    def run(self, *args, grid, warmup=False, **kwargs):
        # a launch option that is also a parameter's name (a kernel may take num_stages) binds to both
        options = {k: (kwargs[k] if k in self.arg_names else kwargs.pop(k)) for k in list(kwargs)
                   if k in LAUNCH_OPTIONS}
        bound = self._bind(args, kwargs)
        for p in self.params:
            if p.is_constexpr and bound.get(p.name, inspect.Parameter.empty) is inspect.Parameter.empty:
                raise TypeError(f"kernel {self.__name__}: constexpr {p.name!r} has no value")
        if warmup:
            for p in self.params:  # the same checks as a launch
                v = bound[p.name]
                if not p.is_constexpr and hasattr(v, "dtype") and (hasattr(v, "data_ptr") or hasattr(v, "ptr")):
                    try:
                        sem.dtype_of_torch(v)
                    except TypeError:
                        raise TypeError(f"kernel {self.__name__}: argument {p.name!r} has dtype {v.dtype}, which "
                                        "has no Triton pointer type") from None
            constexprs = {p.name: bound[p.name] for p in self.params if p.is_constexpr}
            if not self._interpret_mode():  # build the specialization now, as Triton's warmup compiles
                spec = self._specialize(bound)
                if spec is not None:
                    self._program(*spec[:3])
            return CompiledKernel(self, constexprs, options)
        if self._interpret_mode():
            self.last_mode, self.fallback_reason = "interpreter", "the interpreter was asked for"
        elif _env_on("CANNON_TRITON_CHECK"):
            return self._check(bound, grid, options)
        elif self._run_compiled(bound, grid, options):
            self.last_mode, self.fallback_reason = "compiled", None
            return None
        else:
            self.last_mode = "interpreter"
        return self._interpret(bound, grid, options)

    def _interpret_mode(self):
        return bool(self.interpret) or _env_on("CANNON_TRITON_BOUNDS") or _env_on("TRITON_INTERPRET")

    def _specialize(self, bound):
        """(key, signature, constexprs, slots) of a launch; slots are the 64-bit argument words.
        None when an argument has no compiled form (the interpreter takes the launch)."""
        import numpy as np
        from .. import interpreter
        sig, const, key, slots = {}, {}, [], []
        tensor_t = _tensor_type()
        for p in self.params:
            v = bound[p.name]
            if p.is_constexpr:
                const[p.name] = v
                key.append((p.name, "c", tuple(v) if isinstance(v, list) else v))
                continue
            tv = type(v)
            if tv is tensor_t and v.is_cpu:  # the common cases first, without the general checks
                tk = _TORCH_PTR.get(v.dtype)
                if tk is not None:
                    slots.append(v.data_ptr())
                    sig[p.name] = tk[0]
                    key.append((p.name, tk[1]))
                    continue
            elif tv is int and -2**31 <= v < 2**31:
                slots.append(v & 0xFFFFFFFFFFFFFFFF)
                sig[p.name] = sem.int32
                key.append((p.name, "i32"))
                continue
            if _is_host_desc(v):
                # a host tensor descriptor: base address, shape and strides as slots; element type,
                # rank and block shape in the specialization
                elt = self._pointer_elt(p.name, v.base)
                if elt is None:
                    return None
                t = HostDescSpec(elt, tuple(v.block_shape))
                slots.append(interpreter.pointer_address(v.base) & 0xFFFFFFFFFFFFFFFF)
                slots.extend(int(x) & 0xFFFFFFFFFFFFFFFF for x in list(v.shape) + list(v.strides))
                sig[p.name] = t
                key.append((p.name, "desc", elt.name, t.block_shape))
                continue
            elt = self._pointer_elt(p.name, v)
            if isinstance(v, (np.integer, np.floating, np.bool_)):
                v = v.item()
            if elt is not None:
                t = sem.pointer_type(elt)
                slots.append(interpreter.pointer_address(v) & 0xFFFFFFFFFFFFFFFF)
            elif isinstance(v, bool):
                t = sem.int1
                slots.append(int(v))
            elif isinstance(v, int):
                t = sem.scalar_dtype(v)
                slots.append(v & 0xFFFFFFFFFFFFFFFF)
            elif isinstance(v, float):
                t = sem.float32
                slots.append(struct.unpack("<I", struct.pack("<f", v))[0])
            else:
                return None
            sig[p.name] = t
            key.append((p.name, t.name if not t.is_ptr() else "*" + t.element_ty.name) if t != sem.int32 else
                       (p.name, "i32"))
        key = tuple(key)
        try:
            hash(key)
        except TypeError:
            return None
        return key, sig, const, slots

    def _program(self, key, sig, const):
        """The loaded library of a specialization, or the reason it has none (a string)."""
        if _env_on("CANNON_TRITON_VECREPORT"):  # a build with the report, loaded once
            key = (key, "vecreport")
        if os.environ.get("CANNON_ISA") or os.environ.get("CANNON_CPU_ISA"):  # an object per tier (build.py)
            key = (key, "isa", os.environ.get("CANNON_ISA"), os.environ.get("CANNON_CPU_ISA"))
        prog = self._programs.get(key)
        if prog is not None:
            return prog
        from ..compiler import build, codegen_c, frontend
        from ..errors import CompilationError
        try:
            if build.compiler() is None:
                raise codegen_c.Unsupported("no C compiler on PATH")
            func = frontend.compile_ir(self, sig, const)
            src, messages = codegen_c.emit(func)
            if _env_on("CANNON_TRITON_DUMP"):
                print(f"// ---- cannon.triton: the C of {self.__name__} ----", file=sys.stderr)
                print(src, file=sys.stderr)
            prog = build.Library(build.build(src))
            prog.source, prog.messages = src, messages
            try:
                prog.filename = inspect.getsourcefile(self.fn) or "<kernel>"
            except TypeError:
                prog.filename = "<kernel>"
        except (CompilationError, codegen_c.Unsupported, build.BuildError, OSError) as e:
            prog = f"{type(e).__name__}: {e}"
        self._programs[key] = prog
        return prog

    def _run_compiled(self, bound, grid, options):
        spec = self._specialize(bound)
        if spec is None:
            self.fallback_reason = "an argument with no compiled form"
        else:
            key, sig, const, slots = spec
            prog = self._program(key, sig, const)
            if isinstance(prog, str):
                self.fallback_reason = prog
            else:
                if callable(grid):
                    meta = dict(bound)
                    meta.update(options)
                    g = self._grid(grid, meta)
                else:
                    g = self._grid(grid, None)
                _launch(prog, slots, g, options.get("num_cpu_threads"), options.get("stream"), self.__name__)
                return True
        if _env_on("CANNON_TRITON_DEBUG"):
            print(f"cannon.triton: {self.__name__} runs in the interpreter: {self.fallback_reason}", file=sys.stderr)
        return False

    def _check(self, bound, grid, options):
        """Check mode: the launch runs compiled on the arguments themselves and interpreted on copies
        of every tensor argument (storages copied once, so aliasing views stay aliased); the first
        element where the two differ beyond the dtype's tolerance is reported on stderr with its
        index and both values, and kept in ``self.check_report`` (None when they agree)."""
        import torch
        tensors = [p.name for p in self.params if not p.is_constexpr and isinstance(bound[p.name], torch.Tensor)]
        copies, storages = {}, {}
        for name in tensors:
            t = bound[name]
            st = t.storage()
            key = (st.data_ptr(), t.dtype)
            if key not in storages:
                storages[key] = st.clone()
            copies[name] = torch.empty(0, dtype=t.dtype).set_(storages[key], t.storage_offset(), t.size(), t.stride())
        before = {name: bound[name].clone() for name in tensors}
        if not self._run_compiled(bound, grid, options):
            self.last_mode = "interpreter"
            self.check_report = None
            return self._interpret(bound, grid, options)
        interp = dict(bound)
        interp.update(copies)
        self._interpret(interp, grid, options)
        self.last_mode, self.fallback_reason = "compiled", None
        self.check_report = None
        for name in tensors:
            diff = _first_difference(bound[name], copies[name])
            if diff is not None:
                idx, a, b = diff
                changed = "" if not torch.equal(before[name], bound[name]) else " (unchanged by the kernel)"
                self.check_report = (f"cannon.triton check: {self.__name__}: argument {name!r}{changed} differs "
                                     f"first at index {idx}: compiled {a!r}, interpreted {b!r}")
                print(self.check_report, file=sys.stderr)
                break
        return None

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def _interpret(self, bound, grid, options):
        from .. import interpreter
        import numpy as np
        meta = dict(bound)
        meta.update(options)
        g = self._grid(grid, meta)
        launch = interpreter.Launch(g, _JIT_CODES, interpreter.bounds_enabled())
        call_args = {}
        for p in self.params:
            v = bound[p.name]
            call_args[p.name] = v if p.is_constexpr else self._convert(p.name, v, launch)
        f = self._interp_fn()
        if self.fn.__kwdefaults__:
            f.__kwdefaults__ = dict(self.fn.__kwdefaults__)
        interpreter.push(launch)
        try:
            with np.errstate(all="ignore"):
                for x in range(g[0]):
                    for y in range(g[1]):
                        for z in range(g[2]):
                            launch.pid = (x, y, z)
                            f(**call_args)
        finally:
            interpreter.pop()
        return None


_CHECK_TOL = {"torch.float16": (1e-3, 1e-5), "torch.bfloat16": (8e-3, 1e-5), "torch.float32": (1e-5, 1e-7),
              "torch.float64": (1e-12, 1e-15)}


def _first_difference(a, b):
    """(index, a's value, b's value) of the first element of a and b that differ (floats: beyond
    the dtype's relative/absolute tolerance, NaN matching NaN), or None."""
    import torch
    if a.is_floating_point():
        rtol, atol = _CHECK_TOL.get(str(a.dtype), (1e-5, 1e-7))
        x, y = a.double(), b.double()
        bad = ~(torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
    else:
        bad = a != b
    if not bool(bad.any()):
        return None
    flat = int(torch.nonzero(bad.reshape(-1))[0])
    idx = tuple(int(i) for i in _unravel(flat, tuple(a.shape)))
    return idx, a.reshape(-1)[flat].item(), b.reshape(-1)[flat].item()


def _unravel(flat, shape):
    out = []
    for d in reversed(shape):
        out.append(flat % d)
        flat //= d
    return tuple(reversed(out))


class HostDescSpec:
    """The specialization of a host TensorDescriptor argument: its element type and block shape
    (the rank is the block shape's); compile_ir expands the parameter into a base pointer and
    int64 shape and strides and builds the descriptor at the kernel's entry."""
    __slots__ = ("element_ty", "block_shape")

    def __init__(self, element_ty, block_shape):
        self.element_ty, self.block_shape = element_ty, tuple(block_shape)


_host_desc_t = None


def _is_host_desc(v):
    global _host_desc_t
    if _host_desc_t is None:
        from ..tools.tensor_descriptor import TensorDescriptor
        _host_desc_t = TensorDescriptor
    return type(v) is _host_desc_t or isinstance(v, _host_desc_t)


_tensor_t = None
_TORCH_PTR = {}  # torch dtype -> the pointer type of a tensor argument


def _tensor_type():
    """torch.Tensor once torch is imported (None before: no argument can be a tensor then)."""
    global _tensor_t
    if _tensor_t is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        _tensor_t = torch.Tensor
        for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.int16, torch.int32,
                  torch.int64, torch.uint8, torch.bool):
            elt = sem.dtype_of_torch(d)
            _TORCH_PTR[d] = (sem.pointer_type(elt), "*" + elt.name)
    return _tensor_t


_environ = vars(os.environ).get("_data")  # os.environ's own dict: a lookup without encoding


_env_keys = {}


def _env_on(name):
    if _environ is not None and os.name == "posix":
        k = _env_keys.get(name)
        if k is None:
            k = _env_keys[name] = name.encode()
        v = _environ.get(k)
        return v is not None and v not in (b"", b"0", b"false", b"False", b"no")
    return os.environ.get(name, "0") not in ("", "0", "false", "False", "no")


_pool = None
_nworkers = None


def _workers():
    global _nworkers
    if _nworkers is None:
        from .driver import worker_count
        _nworkers = worker_count()
    return _nworkers


class _LaunchDesc(ctypes.Structure):
    """include/cannon/kernel.h: cannon_launch_desc."""
    _fields_ = [("name", ctypes.c_char_p), ("fn", ctypes.c_void_p), ("args", ctypes.c_void_p),
                ("args_size", ctypes.c_size_t), ("block_dim", ctypes.c_uint32)]


_names = {}  # kernel name -> its bytes (static storage for cannon_launch_desc.name)


def _runtime_stream(stream):
    """The aclrtStream handle a launch goes to through cannon's kernel-launch interface, or None for
    the direct thread-pool path. A ``stream=`` launch option (a cannon.runtime.Stream, a handle or
    0 for the default stream) picks it; without one, launches use the thread's current cannon stream
    when this process has initialised cannon's runtime (libascendcl loaded), the pool otherwise."""
    if stream is None:
        lib = sys.modules.get("cannon._lib")
        if lib is None or "ascendcl" not in lib._loaded or _env_on("CANNON_TRITON_DIRECT"):
            return None
        runtime = sys.modules.get("cannon.runtime")
        if runtime is None or not runtime.is_initialized():
            return None
        return runtime.current_stream().handle, True
    h = getattr(stream, "handle", stream)
    if hasattr(h, "value"):
        h = h.value
    if not isinstance(h, int):
        raise TypeError(f"stream= takes a cannon.runtime.Stream or an aclrtStream handle, got {stream!r}")
    return h, False


def _launch_stream(prog, slots, grid, total, n, handle, sync, name):
    """Enqueues the launch on an ACL stream with cannonLaunchKernel: n blocks on the device's worker
    pool, each running a contiguous range of the programs. With sync (the thread's current stream,
    chosen implicitly) the call waits for it, so the launch is synchronous like the direct path; a
    failing runtime check is then an AssertionError. With an explicit stream the launch is
    asynchronous and a fault becomes that stream's error."""
    from ... import _lib
    acl = _lib.acl()
    f = acl.cannonLaunchKernel
    if f.argtypes is None:
        f.argtypes = [ctypes.POINTER(_LaunchDesc), ctypes.c_void_p]
        f.restype = ctypes.c_int
    blob = (ctypes.c_uint64 * (3 + len(slots)))(*grid, *slots)
    nm = _names.get(name)
    if nm is None:
        nm = _names[name] = name.encode()
    desc = _LaunchDesc(nm, prog.block_fn, ctypes.cast(blob, ctypes.c_void_p), ctypes.sizeof(blob), n)
    rc = f(ctypes.byref(desc), handle)
    if rc == 0 and sync:
        rc = acl.aclrtSynchronizeStream(handle)
    if rc != 0:
        msg = _lib.recent_error()
        if sync and rc == 500003 and "line" in msg:
            raise AssertionError(f"{prog.filename}:{msg.split(': line ', 1)[-1]}")
        if rc == 200000:
            raise MemoryError(f"cannon.triton: {msg}")
        raise _lib.AclError(rc, msg, "cannonLaunchKernel")


_BLOCKS_PER_WORKER = 4


def _launch(prog, slots, grid, num_threads, stream=None, name="triton"):
    """Runs every program instance of grid through prog's runner, the instances split into
    contiguous ranges: blocks of cannon's kernel-launch interface on a stream when the process uses
    cannon's runtime (see _runtime_stream), else worker threads of a local pool (ctypes releases
    the GIL while the runner runs)."""
    total = grid[0] * grid[1] * grid[2]
    if total == 0:
        return
    if any(x >= 2**31 for x in grid):
        raise ValueError(f"grid {grid} is too large")
    rs = _runtime_stream(stream)
    if rs is not None:
        # the pool's workers take blocks as they free up: four per worker keep them all busy when
        # one is slowed (other processes on its core, uneven programs); an explicit thread count is
        # that many blocks, so at most that many run at once
        n = _BLOCKS_PER_WORKER * _workers() if not num_threads else int(num_threads)
        return _launch_stream(prog, slots, grid, total, max(min(n, total), 1), rs[0], rs[1], name)
    args = (ctypes.c_uint64 * max(len(slots), 1))(*slots)
    g = (ctypes.c_int32 * 3)(*grid)
    n = _workers() if not num_threads else int(num_threads)
    n = max(min(n, total), 1)
    if n == 1:
        rcs = [prog.run(args, 0, total, g)]
    else:
        global _pool
        import concurrent.futures
        if _pool is None or _pool._max_workers < n:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(n, _workers()),
                                                          thread_name_prefix="cannon-triton")
        bounds = [total * k // n for k in range(n + 1)]
        futs = [_pool.submit(prog.run, args, bounds[k], bounds[k + 1], g) for k in range(n)]
        rcs = [f.result() for f in futs]
    for rc in rcs:
        if rc >= 100 and rc - 100 < len(prog.messages):
            raise AssertionError(f"{prog.filename}:{prog.messages[rc - 100]}")
        if rc:
            raise MemoryError("cannon.triton: the kernel's tile storage could not be allocated")


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None, interpret=None):
    """Decorator: ``@triton.jit`` or ``@triton.jit(do_not_specialize=[...], interpret=True, ...)``."""

    def deco(f):
        return JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug,
                           noinline=noinline, repr=repr, launch_metadata=launch_metadata, interpret=interpret)

    return deco(fn) if fn is not None else deco
