"""triton.language.math: the elementwise math functions (the same objects as in triton.language)."""
from .core import (abs, ceil, cdiv, clamp, cos, div_rn, erf, exp, exp2, fdiv, floor, fma,  # noqa: F401
                   log, log2, maximum, minimum, rsqrt, sin, sqrt, sqrt_rn, umulhi)
