"""Helpers of the shape-family golden tests (test_shape_*.py): random storage values of every
dtype (random bit patterns for the floating types, NaN payloads included, so that a copy that
converts anything shows), bit-exact comparison, and the layouts the views are tested in.

Movement operators must be bit-exact: results are compared byte for byte with numpy's result
on the same storage values.
"""
import numpy as np

import cannon
import golden

# Every dtype the Python package can upload (bf16 as uint16 bit patterns).
ALL = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
       "uint32", "uint64", "bool"]
# Layouts of golden.LAYOUTS for inputs and outputs.
IN_LAYOUTS = ["contig", "transposed", "offset", "padded"]
OUT_LAYOUTS = ["contig", "strided", "padded"]


def rand(shape, dt, rng):
    """Storage values of @dt with @shape: random bytes (any bit pattern), 0/1 for bool."""
    d = golden.dtype(dt)
    shape = tuple(shape)
    if d is cannon.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    n = int(np.prod(shape, dtype=np.int64)) * d.itemsize
    return np.frombuffer(rng.bytes(n), dtype=d.np).reshape(shape).copy()


def same_bits(a, b):
    """True when @a and @b have the same shape and the same bytes."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize and \
        np.array_equal(a.view(np.uint8), b.view(np.uint8))


def fill_value(dt):
    """A storage fill for output gaps that no result equals by chance."""
    return 1 if golden.dtype(dt) is cannon.bool_ else 77


def check_gaps(a, dt):
    """Every storage element of output @a outside its view still holds fill_value(dt)."""
    st = a.storage()
    keep = np.ones(st.size, np.bool_)
    if all(a.shape):
        pos = np.full(a.shape, a.offset, np.int64)
        for k, s in enumerate(a.strides):
            pos = pos + np.indices(a.shape)[k] * s if a.shape else pos
        keep[pos.ravel()] = False
    fv = golden.storage_of(float(fill_value(dt)), dt)
    assert np.all(st[keep] == fv), "an element outside the output view was written"


def f64_to_bf16(v):
    """float64 values rounded once to bf16 bit patterns (nearest even): rounded to float32 with
    round-to-odd first, so that the second rounding is exact (finite values)."""
    v = np.asarray(v, np.float64)
    f = v.astype(np.float32)
    u = f.view(np.uint32).copy()
    fix = (f.astype(np.float64) != v) & ((u & 1) == 0) & np.isfinite(f)
    up = np.abs(f.astype(np.float64)) < np.abs(v)
    u[fix & up] += 1
    u[fix & ~up] -= 1
    return cannon.float_to_bf16(u.view(np.float32))
