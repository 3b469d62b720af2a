"""Helpers for the operator golden tests, on top of the cannon package (python/cannon), the
tests' only way into the C libraries.

- Values and storage: ``quantize`` / ``rounded`` / ``decode`` move float64 values to and from a
  dtype's storage (bf16 as uint16 bit patterns, rounded to nearest even by cannon.float_to_bf16);
  ``to_storage`` / ``from_storage`` do the same for torch tensors.
- Device arrays: ``array`` uploads values as a contiguous array or as a view with a named layout
  (``LAYOUTS``) or explicit strides and offset inside a larger storage; ``empty`` allocates an
  output the same way (gaps filled with ``fill``); ``read`` copies a view back, ``read_float``
  decodes it to float64. ``storage()`` of a DeviceArray reads its whole buffer, gaps included.
  ``upload`` / ``download`` do the same for torch tensors.
- Operators: ``call`` runs both phases and waits (an error raises cannon.AclError with the
  aclnn code and message); ``status`` returns the code instead; ``phase1_status`` runs phase 1
  alone (cannon.ops.phase1_status).
- Determinism: ``outputs_per_thread_count`` runs a script once per CANNON_CPU_THREADS value in
  fresh interpreters that import this module and cannon.

dtypes are cannon DTypes or their names ("float32", "bfloat16", "int64", "bool", ...).
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.abspath(os.path.join(HERE, "..", "..", "python"))
if PACKAGE not in sys.path:
    sys.path.insert(0, PACKAGE)

import cannon  # noqa: E402 (needs the path above)
from cannon import AclError, ops  # noqa: E402,F401 (AclError: re-exported for the tests)

# The instruction-set tiers a test can force with CANNON_ISA (conftest.py's `isa` fixture).
ISAS = ["scalar", "avx2", "avx512"]
FLOATS = ["float32", "float16", "bfloat16", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]

# aclnn status codes the tests expect.
PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
ACL_AICORE_EXCEPTION = 507015  # a kernel's run-time fault (an index out of range), reported at synchronize

dtype = cannon.as_dtype


# ---- values and storage ------------------------------------------------------------------------

def quantize(x, dt):
    """values -> (storage array of @dt for upload, the exact float64 values it holds)."""
    d = dtype(dt)
    if d is cannon.bfloat16:
        b = cannon.float_to_bf16(x)
        return b, cannon.bf16_to_float(b).astype(np.float64)
    a = (np.asarray(x) != 0) if d is cannon.bool_ else np.asarray(x).astype(d.np)
    return a, a.astype(np.float64)


def rounded(x, dt):
    """The values @x takes once stored as @dt, as float64."""
    return quantize(x, dt)[1]


def decode(a, dt):
    """Storage values of @dt read back -> float64."""
    a = np.asarray(a)
    if dtype(dt) is cannon.bfloat16:
        return cannon.bf16_to_float(a).astype(np.float64)
    return a.astype(np.float64)


def storage_of(values, dt):
    """numpy storage array of @dt holding @values, as cannon.from_numpy converts them: uint16 bit
    patterns are taken as bf16 storage as they are, other values round to bf16."""
    values, d = np.asarray(values), dtype(dt)
    if d is cannon.bfloat16:
        return values if values.dtype == np.uint16 else cannon.float_to_bf16(values)
    return values.astype(d.np)


def torch_dtype(dt):
    import torch
    name = dtype(dt).name
    return torch.bool if name == "bool" else getattr(torch, name)


def to_storage(t, dt):
    """torch tensor (any dtype) -> numpy storage array of @dt (bf16 as uint16 bit patterns)."""
    import torch
    t = t.to(torch_dtype(dt)).contiguous()
    if dtype(dt) is cannon.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    return t.numpy().copy()


def from_storage(a, dt):
    """numpy storage of @dt -> torch tensor of @dt (same shape, 0-d included)."""
    import torch
    if dtype(dt) is cannon.bfloat16:
        return torch.from_numpy(np.array(a, dtype=np.uint16, order="C").view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.array(a, order="C"))


def rounding_tol(dt):
    """(rtol, atol) of about 1-2 ulp of a float result type; (0, 0) for the others."""
    return {"float32": (2e-6, 1e-6), "float16": (2e-3, 1e-4), "bfloat16": (1.6e-2, 1e-3),
            "float64": (1e-13, 1e-14)}.get(dtype(dt).name, (0, 0))


# ---- layouts -----------------------------------------------------------------------------------

def _doubled(shape):
    """Every stride doubled (a gap after each element), offset 0."""
    return [2 * s for s in cannon.contiguous_strides(shape)], 0


def _doubled_at_3(shape):
    """Every stride doubled, 3 elements into the storage."""
    return _doubled(shape)[0], 3


def _transposed(shape):
    """The storage holds the array with its last two dims swapped."""
    if len(shape) < 2:
        return None
    phys = list(shape[:-2]) + [shape[-1], shape[-2]]
    cs = list(cannon.contiguous_strides(phys))
    return cs[:-2] + [cs[-1], cs[-2]], 0


def _padded(shape):
    """Last axis of stride 2 inside rows of 2 * shape[-1] + 1 elements, 3 elements into the storage."""
    if 0 in shape:
        return None
    big = list(shape)
    big[-1] = shape[-1] * 2 + 1
    st = list(cannon.contiguous_strides(big))
    st[-1] = 2
    return st, 3


# name -> shape -> (strides, offset), or None where the layout is the contiguous one (0-d arrays,
# and the cases a layout does not apply to).
LAYOUTS = {"contig": lambda shape: None, "strided": _doubled, "offset": _doubled_at_3,
           "transposed": _transposed, "padded": _padded}


def _layout(shape, layout, strides, offset):
    if strides is not None:
        return list(strides), offset
    if offset:
        return list(cannon.contiguous_strides(shape)), offset
    if layout is None or len(shape) == 0:
        return None
    return LAYOUTS[layout](tuple(shape))


def _span(shape, strides, offset):
    if 0 in shape:
        return offset
    return offset + 1 + sum((d - 1) * s for d, s in zip(shape, strides))


# ---- device arrays -----------------------------------------------------------------------------

def array(values, dt=None, layout=None, strides=None, offset=0, fill=0, format=cannon.FORMAT_ND):
    """A DeviceArray holding @values (storage values of @dt, or values to convert: floats round to
    bf16) with their shape. Contiguous by default; with @layout (a LAYOUTS name) or @strides /
    @offset, a view into a storage whose other elements hold @fill."""
    values = np.asarray(values)
    d = dtype(dt) if dt is not None else dtype(values.dtype)
    lay = _layout(values.shape, layout, strides, offset)
    if lay is None:
        return cannon.from_numpy(values, d, format)
    st, off = lay
    host = storage_of(values, d)
    store = np.full(_span(values.shape, st, off), storage_of(float(fill), d), dtype=d.np)
    if values.size:
        view = np.lib.stride_tricks.as_strided(store[off:], shape=values.shape, strides=[s * d.itemsize for s in st])
        view[...] = host
    return cannon.from_storage(store, values.shape, st, off, d, format)


def empty(shape, dt, layout=None, strides=None, offset=0, storage_elems=None, fill=None, format=cannon.FORMAT_ND):
    """An output DeviceArray of @shape: contiguous, or laid out as array() does; @storage_elems
    sizes the storage (default: the view's span); @fill (a value) fills the whole storage,
    otherwise its contents are undefined."""
    d = dtype(dt)
    shape = tuple(shape)
    lay = _layout(shape, layout, strides, offset)
    st, off = lay if lay is not None else (list(cannon.contiguous_strides(shape)), 0)
    n = _span(shape, st, off) if storage_elems is None else storage_elems
    buf = cannon.DeviceBuffer(n * d.itemsize)
    a = cannon.DeviceArray(shape, d, st, off, buf, format)
    if fill is not None:
        buf.copy_from_host(np.full(n, storage_of(float(fill), d), dtype=d.np))
    return a


def upload(t, dt, layout="contig"):
    """A DeviceArray holding torch tensor @t as @dt, laid out as @layout (a LAYOUTS name)."""
    return array(to_storage(t, dt), dt, layout=layout)


def download(a, dt):
    """DeviceArray @a's view as a torch tensor of @dt."""
    return from_storage(read(a), dt)


def read(a):
    """A numpy copy of DeviceArray @a's view (storage dtype: uint16 bit patterns for bfloat16)."""
    return a.numpy(copy=True)


def read_float(a):
    """@a's view decoded to float64."""
    return decode(read(a), a.dtype)


# ---- operators ---------------------------------------------------------------------------------

def call(name, *args):
    """Both phases of aclnn operator @name, then a stream synchronize (so that a kernel's run-time
    error raises here); returns the workspace size. Arguments as cannon.ops.call takes them."""
    return ops.call(name, *args, sync=True)


def status(name, *args):
    """0 when call(name, *args) succeeds, else the aclnn / runtime error code it raised."""
    try:
        call(name, *args)
        return 0
    except AclError as e:
        return e.code


phase1_status = ops.phase1_status
recent_error = cannon.recent_error


# ---- data --------------------------------------------------------------------------------------

def zipf_indices(rng, n, v, s=1.1):
    """n indices in [0, v) with P(k) ~ 1/(k+1)^s (heavy duplication of the head), shuffled rows."""
    p = 1.0 / np.arange(1, v + 1) ** s
    p /= p.sum()
    idx = rng.choice(v, size=n, p=p)
    perm = rng.permutation(v)  # scatter the head over the table
    return perm[idx]


# ---- determinism across worker counts ----------------------------------------------------------

def outputs_per_thread_count(script, thread_counts, timeout, drop_isa=False):
    """Run @script (python -c, a fresh interpreter each time, one after another) once per
    CANNON_CPU_THREADS value in @thread_counts, without CANNON_ISA when @drop_isa; the script can
    import golden and cannon. Asserts that every run succeeded; returns their stripped outputs
    (determinism tests compare the digests they print)."""
    outs = []
    path = os.pathsep.join([HERE, PACKAGE] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    for threads in thread_counts:
        env = dict(os.environ, CANNON_CPU_THREADS=str(threads), PYTHONPATH=path)
        if drop_isa:
            env.pop("CANNON_ISA", None)
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           timeout=timeout)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout.strip())
    return outs
