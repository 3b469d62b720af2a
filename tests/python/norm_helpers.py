"""Helpers for the norm golden tests (test_norm.py, test_norm_layer_rms.py), on golden.py: arrays
with a tensor format (float32 unless told), CANN's mixed-precision check, and the LayerNorm
backward's float64 reference."""
import numpy as np

import cannon
import golden
from cannon import (FORMAT_NC, FORMAT_NCDHW, FORMAT_NCHW, FORMAT_NCL, FORMAT_ND, FORMAT_NHWC,  # noqa: F401
                    bfloat16, float16, float32)
from golden import call, rounded  # noqa: F401 (re-exported for the tests)

DTYPES = [float32, float16, bfloat16]

# CANN's mixed precision standard per dtype: |a - g| <= T + T * |g| (see close()).
T = {float32: 2.0 ** -13, float16: 2.0 ** -10, bfloat16: 2.0 ** -7}


def close(a, g, dt, what=""):
    t = T[dt]
    err = np.abs(a - g)
    bad = err > t + t * np.abs(g)
    assert not bad.any(), f"{what}: {bad.sum()} of {bad.size} off, max err {err.max():.3g}"


def tensor(x, dt=float32, fmt=FORMAT_ND):
    """A contiguous DeviceArray holding the values @x as @dt (bf16 rounded to nearest even), format @fmt."""
    return cannon.from_numpy(x, dt, fmt)


def empty(shape, dt=float32, fmt=FORMAT_ND, fill=np.nan):
    """An output DeviceArray filled with @fill (NaN: an element the operator misses shows)."""
    return golden.empty(shape, dt, fill=fill, format=fmt)


read = golden.read_float


def check_layer_norm_backward(gi, gw, gb, x, dy, w, mean, rstd):
    """LayerNormBackward's dx, dgamma and dbeta (fp32 outputs) against the float64 formulas, from the
    forward's saved mean and rstd."""
    ms, rs = read(mean), read(rstd)
    xh = (x - ms) * rs
    gdw = dy * w
    close(read(gi), rs * (gdw - gdw.mean(axis=1, keepdims=True) - xh * (gdw * xh).mean(axis=1, keepdims=True)),
          float32, "dx")
    close(read(gw), (dy * xh).sum(axis=0), float32, "dw")
    close(read(gb), dy.sum(axis=0), float32, "db")
