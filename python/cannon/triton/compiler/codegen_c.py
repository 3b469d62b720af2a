"""The C emitter: the typed tile IR (ir.py) of one kernel specialization -> a C11 translation unit.

Representation:
- a scalar Value is a C local of its computation type; a block Value is a flat row-major array of
  ``numel`` elements carved out of a per-worker arena (the runner allocates it once per call), so
  every tile operation is a fixed-count loop the system compiler vectorizes;
- computation types: int1 is ``uint8_t`` holding 0/1, the integers their <stdint.h> types, fp32
  ``float``, fp64 ``double``; fp16 and bf16 live in ``float`` holding values representable in the
  16-bit type (every operation rounds its result to nearest even, as the interpreter does) and are
  16-bit in memory; pointers are ``char *`` byte addresses (arithmetic in elements);
- integer ``+ - *`` and shifts wrap (computed on unsigned types, shift counts out of range give the
  interpreter's results), integer ``//`` and ``%`` round toward zero and a zero divisor gives 0;
- a masked lane is never dereferenced: ``mask ? load(p) : other`` and ``if (mask) store(p, v)``;
- loop-carried values, ``if`` results and ``while`` values have their own storage; a region's
  yields are copied into it through temporaries, so a swap of carried values is exact.

``generate(func)`` returns the source; it exports ``cn_triton_run(args, start, end, grid)``, which
runs the program instances ``start <= p < end`` (x outermost, z innermost) with ``args`` an array of
64-bit slots (pointer addresses, integers sign- or zero-extended, fp32 bit patterns), and
``cn_triton_abi``; it returns 0, 1 when the arena cannot be allocated, or 100 + i when a program
fails runtime check i (``emit`` returns the checks' messages). An op the emitter does not handle
raises ``Unsupported`` naming it and its line.
"""
import math

from .. import semantics as sem
from . import ir

ABI_VERSION = 2
ACL_ERROR_BAD_ALLOC = 200000       # acl_base_rt.h: what a block returns when its tile storage fails
ACL_ERROR_RT_FAILURE = 500003      # ... and when a runtime check (tl.device_assert, tl.assume) fails


class Unsupported(Exception):
    """A construct of the kernel that the C emitter does not handle (the launch falls back to the
    interpreter)."""

    def __init__(self, construct, lineno=None):
        self.construct, self.lineno = construct, lineno
        super().__init__(f"{construct}" + (f" (line {lineno})" if lineno is not None else ""))


_CTYPE = {"int1": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
          "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
          "fp16": "float", "bf16": "float", "fp32": "float", "fp64": "double"}
_UTYPE = {8: "uint32_t", 16: "uint32_t", 32: "uint32_t", 64: "uint64_t"}
_MATH = {"exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt", "sqrt_rn": "sqrt",
         "sin": "sin", "cos": "cos", "floor": "floor", "ceil": "ceil"}

PRELUDE = r"""#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define CN_EXPORT __attribute__((visibility("default")))
#define CN_BP_RANK 5

static inline uint16_t cn_f32_to_f16(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        float a, t; memcpy(&a, &ax, 4);
        t = a * 16777216.0f + 8388608.0f;
        uint32_t tb; memcpy(&tb, &t, 4);
        return (uint16_t)(sign | (tb - 0x4b000000u));
    }
    uint32_t m = ax + 0xfffu + ((ax >> 13) & 1u) - 0x38000000u;
    return (uint16_t)(sign | (m >> 13));
}
static inline float cn_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    float f;
    if (e == 0x1fu) x = sign | 0x7f800000u | (m << 13);
    else if (e == 0) { f = (float)m * 5.9604644775390625e-8f; memcpy(&x, &f, 4); x |= sign; }
    else x = sign | ((e + 112u) << 23) | (m << 13);
    memcpy(&f, &x, 4);
    return f;
}
static inline uint16_t cn_f32_to_bf16(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static inline uint16_t cn_f32_to_bf16_rtz(float f) {
    uint32_t x; memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
    return (uint16_t)(x >> 16);
}
static inline float cn_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16; float f; memcpy(&f, &x, 4); return f;
}
static inline float cn_rh(float x) { return cn_f16_to_f32(cn_f32_to_f16(x)); }
static inline float cn_rb(float x) { return cn_bf16_to_f32(cn_f32_to_bf16(x)); }
static inline float cn_rh_rtz(float x) {
    float r = cn_rh(x);
    if (fabsf(r) > fabsf(x)) { uint16_t b = cn_f32_to_f16(r); b = (uint16_t)(b - 1u); r = cn_f16_to_f32(b); }
    return r;
}
static inline float cn_rb_rtz(float x) { return cn_bf16_to_f32(cn_f32_to_bf16_rtz(x)); }
static inline float cn_rf_rtz(double x) {
    float r = (float)x;
    if (fabs((double)r) > fabs(x)) r = nextafterf(r, 0.0f);
    return r;
}
static inline int64_t cn_f2i64(double v) {
    if (!(v == v) || isinf(v)) return 0;
    v = trunc(v);
    if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return (int64_t)v;
    return INT64_MIN;
}
static inline uint64_t cn_f2u64(double v) {
    if (!(v == v) || isinf(v)) return 0;
    v = trunc(v);
    if (v >= 0.0 && v < 18446744073709551616.0) return (uint64_t)v;
    return (uint64_t)cn_f2i64(v);
}
#define CN_LDST(T) \
    static inline T cn_ld_##T(const char *p) { T v; memcpy(&v, p, sizeof v); return v; } \
    static inline void cn_st_##T(char *p, T v) { memcpy(p, &v, sizeof v); }
CN_LDST(uint8_t) CN_LDST(int8_t) CN_LDST(uint16_t) CN_LDST(int16_t) CN_LDST(uint32_t) CN_LDST(int32_t)
CN_LDST(uint64_t) CN_LDST(int64_t) CN_LDST(float) CN_LDST(double)
static inline uint32_t cn_bits_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t cn_bits_f64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static inline float cn_f32_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double cn_f64_bits(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
/* fp32 exp2 and exp without branches or libm calls, so that a loop of them vectorizes (libm's
   expf does not without -ffast-math, nor do fminf/floorf): 2^x = 2^n * 2^f with n = round(x),
   |f| <= 1/2, 2^f = e^(f ln2) by its degree-7 Taylor polynomial (truncation below 6e-9 relative),
   evaluated by Horner's rule with fused multiply-adds where the target has them;
   the scale 2^n is applied as two powers of two so that subnormal results round once. Rounding to
   an integer adds and subtracts 1.5 * 2^23 (exact without contraction). Within 2 ulp of the exact
   result; NaN gives NaN, overflow infinity, underflow 0. */
typedef float cn_v16f __attribute__((vector_size(64)));
typedef int32_t cn_v16i __attribute__((vector_size(64)));
typedef double cn_v8d __attribute__((vector_size(64)));
typedef int64_t cn_v8l __attribute__((vector_size(64)));
static inline float cn_clampf(float x, float lo, float hi) { x = x > lo ? x : lo; return x < hi ? x : hi; }
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
#define CN_HAVE_FMA 1
#define CN_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define CN_HAVE_FMA 0
#define CN_FMAF(a, b, c) ((a) * (b) + (c))
#endif
/* x / y for a y shared by a tile, without a divide per lane: q = x * r with r = 1/y rounded, then
   one correction with the exact residual e = x - q y (a fused multiply-add), q + e r rounded once:
   the correctly rounded quotient (Markstein) when nothing over- or underflows, which cn_div_ok
   (every lane) and the range of y guarantee; otherwise the tile divides. e == 0 keeps q (and the
   sign of a zero quotient). */
static inline float cn_divm(float x, float y, float r) {
    float q = x * r;
    float e = CN_FMAF(-q, y, x);
    return e == 0.0f ? q : CN_FMAF(e, r, q);
}
static inline int cn_div_ok(float x) {
    float ax = fabsf(x);
    return (ax <= 0x1p40f) & ((ax >= 0x1p-40f) | (x == 0.0f));
}
static inline float cn_exp2_poly(float f, int32_t ni) {
    float p = CN_FMAF(f, 1.9841270114e-4f, 1.3888889225e-3f);
    p = CN_FMAF(p, f, 8.3333337680e-3f);
    p = CN_FMAF(p, f, 4.1666667908e-2f);
    p = CN_FMAF(p, f, 1.6666667163e-1f);
    p = CN_FMAF(p, f, 0.5f);
    p = CN_FMAF(p, f, 1.0f);
    p = CN_FMAF(p, f, 1.0f);
    int32_t n1 = ni >> 1, n2 = ni - n1;
    return p * cn_f32_bits((uint32_t)(n1 + 127) << 23) * cn_f32_bits((uint32_t)(n2 + 127) << 23);
}
/* n = round(t) as a float and as an integer (its bits after adding 1.5 * 2^23) for |t| < 2^22;
   out of [-152, 129] (and for NaN) n is meaningless and the callers' last selects give the result */
#define CN_ROUND_T(t, n, ni) \
    float m_ = (t) + 12582912.0f; float n = m_ - 12582912.0f; \
    int32_t ni = (int32_t)(cn_bits_f32(m_) - 0x4B400000u)
static inline float cn_exp2f(float x) {
    CN_ROUND_T(x, n, ni);
    float r = cn_exp2_poly((x - n) * 0.693147180559945309f, ni);
    r = x >= 128.0f ? INFINITY : r;
    r = x < -152.0f ? 0.0f : r;
    return x != x ? x : r;
}
static inline float cn_expf(float x) {
    CN_ROUND_T(x * 1.44269504088896341f, n, ni);
    /* x - n ln2 with ln2 in two parts: the high part times n is exact (Cody and Waite) */
    float f = CN_FMAF(-n, 1.42860682030941723212e-6f, CN_FMAF(-n, 0.693145751953125f, x));
    float r = cn_exp2_poly(f, ni);
    r = x > 88.72283935546875f ? INFINITY : r;
    r = x < -104.0f ? 0.0f : r;
    return x != x ? x : r;
}
/* a block pointer or tensor descriptor: the parent tensor and the block's offsets, in elements */
typedef struct { char *base; int64_t shape[CN_BP_RANK]; int64_t stride[CN_BP_RANK]; int64_t off[CN_BP_RANK]; } cn_bp;
"""

BP_RANK = 5


def _is_bp(t):
    """A block pointer or tensor descriptor type (frontend.BlockPtrType): a cn_bp struct in C."""
    return hasattr(t, "block_shape")


def _ct(t):
    if _is_bp(t):
        return "cn_bp"
    if t.is_ptr():
        return "char *"
    return _CTYPE[t.name]


def _is16(t):
    return t.name in ("fp16", "bf16")


def _round(t, expr):
    """expr (a float computation) rounded to t's precision when t is 16-bit."""
    if t.is_fp16():
        return f"cn_rh({expr})"
    if t.is_bf16():
        return f"cn_rb({expr})"
    return expr


def _lit(value, t):
    """A C literal of type t for a Python value."""
    if t.is_floating():
        v = float(value)
        if math.isnan(v):
            s = "NAN"
        elif math.isinf(v):
            s = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            s = v.hex()
        if t.is_fp64():
            return f"((double){s})"
        if t.is_fp32():
            return f"((float){s})"
        return _round(t, f"((float){s})")
    if t.is_int1():
        return "((uint8_t)1)" if value else "((uint8_t)0)"
    v = int(value)
    bits = t.int_bitwidth
    v &= (1 << bits) - 1
    if t.is_int_signed() and v >= 1 << (bits - 1):
        v -= 1 << bits
    if v == -(1 << 63):
        return "((int64_t)INT64_MIN)"
    return f"(({_CTYPE[t.name]}){v}{'ULL' if t.is_int_unsigned() else 'LL'})"


def _zero(t):
    return "{0}" if _is_bp(t) else "0"


def _cstr(text):
    """A C string literal holding text (UTF-8; every byte outside printable ASCII escaped)."""
    out = []
    for b in str(text).encode("utf-8"):
        c = chr(b)
        out.append(c if 32 <= b < 127 and c not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class _Emitter:
    def __init__(self, func):
        self.func = func
        self.names = {}
        self.decls = []
        self.lines = []
        self.depth = 1
        self.arena = 0
        self.tmp = 0
        self.lineno = None
        self.messages = []
        self.const = {}     # value id -> Python value of a constant (scalar or splat)
        self.affine = {}    # 1-D int/pointer block id -> (C name of its first element, stride in elements)
        self.all_cache = {}  # mask id -> the C int saying all its lanes are on, in the current region
        self.alias = {}     # value id -> the id whose storage it shares (reshapes, region arguments)
        self.refs = set()   # ids the line being written reads
        self.mat = None     # id the line being written materializes (None: a line with effects)
        self.uses_stdio = False
        self.splat = {}     # block id -> the scalar Value it is a splat of
        self.views = set()  # id() of the loads whose tile may view memory (plan_views)
        self.view_ids = set()  # ids of the values those loads produce
        self.view_bytes = {}  # view id -> the bytes of memory it reads
        self.helpers = {}   # name -> C source of static functions the kernel calls (dot kernels)
        self.fusible = set()  # block ids whose one reader may compute them in its own loop (plan_fusion)
        self.fused = {}     # block id -> fn(index) giving its lane as a C expression (no tile stored)
        self.affcmp = {}    # mask id -> (a, b): a compare of two affine 1-D values, in fused
        self.prefix = {}    # affcmp mask id -> "lt"/"le" when its lanes on are a prefix (offs < n)
        self.prefix_cache = {}  # mask id -> the C int64 holding its prefix's length, -1 if unknown

    # ---- storage ----
    def new_name(self, v):
        n = f"v{v.id}"
        if v.shape:
            ct = _ct(v.dtype)
            size = _numel(v.shape) * (8 if v.dtype.is_ptr() else {"uint8_t": 1, "int8_t": 1, "int16_t": 2,
                                                                    "uint16_t": 2, "int32_t": 4, "uint32_t": 4,
                                                                    "float": 4, "int64_t": 8, "uint64_t": 8,
                                                                    "double": 8}[ct])
            off = self.arena
            self.arena += (size + 63) // 64 * 64
            star = "*" if ct.endswith("*") else " *"
            self.decls.append(f"{ct}{star}restrict {n} = ({ct}{star})(arena + {off});")
        else:
            self.decls.append(f"{_ct(v.dtype)} {n} = {_zero(v.dtype)};")
        self.names[v.id] = n
        return n

    def name(self, v):
        vid = v.id
        while vid in self.alias:
            vid = self.alias[vid]
        self.refs.add(vid)
        try:
            return self.names[v.id]
        except KeyError:
            raise Unsupported(f"value %{v.id} used before definition", self.lineno) from None

    def at(self, v, i="i"):
        if v.id in self.fused:
            return f"({self.fused[v.id](i)})"
        n = self.name(v)
        return f"{n}[{i}]" if v.shape else n

    def w(self, line):
        self.lines.append(("    " * self.depth + line, self.mat, frozenset(self.refs)))
        self.refs = set()

    def live_lines(self):
        """The lines, less those materializing values no kept line reads (a pointer block that only
        feeds contiguous loads and stores, a splat only its affine form used)."""
        live = set()
        keep = [m is None for _, m, _ in self.lines]
        for k, (_, m, r) in enumerate(self.lines):
            if keep[k]:
                live |= r
        changed = True
        while changed:
            changed = False
            for k, (_, m, r) in enumerate(self.lines):
                if not keep[k] and m in live:
                    keep[k] = True
                    live |= r
                    changed = True
        return [line for k, (line, _, _) in enumerate(self.lines) if keep[k]]

    def check_type(self, v):
        t = v.type
        if _is_bp(t):
            if len(t.block_shape) > BP_RANK:
                raise Unsupported(f"block pointers of rank {len(t.block_shape)}", self.lineno)
            if t.element_ty.is_ptr():
                raise Unsupported("pointers to pointers", self.lineno)
            return
        if not isinstance(t, (sem.dtype, sem.block_type)) or (v.dtype.is_ptr() and not isinstance(v.dtype,
                                                                                                   sem.pointer_type)):
            raise Unsupported(f"values of type {ir.type_str(t)}", self.lineno)
        if v.dtype.is_ptr() and v.dtype.element_ty.is_ptr():
            raise Unsupported("pointers to pointers", self.lineno)

    # ---- elementwise ----
    def ew(self, res, fn):
        """res[i] = fn(i) over res's elements (fn gets the index expression, or None for scalars).
        A block whose only reader is an elementwise op of the same block (plan_fusion) is not
        stored: the reader computes fn(i) in its own loop, so a chain of elementwise ops is one
        loop over the tile instead of one loop and one tile per op."""
        if res.shape and res.id in self.fusible:
            refs = self.refs
            expr = fn("i")
            self.refs = refs
            if len(expr) <= 400:  # operands may repeat in an expression: bound the inlined size
                self.fused[res.id] = fn
                return
        n = self.new_name(res)
        self.refs = set()
        self.mat = res.id
        if res.shape:
            self.w(f"for (int i = 0; i < {_numel(res.shape)}; i++) {n}[i] = {fn('i')};")
        else:
            self.w(f"{n} = {fn(None)};")
        self.mat = None

    def opnd(self, v, i):
        if i is not None and v.id in self.splat:
            # a block splat from a scalar is read as the scalar (its tile is then often unread)
            return self.name(self.splat[v.id])
        if i is not None and v.id in self.affine:
            # an affine 1-D value is computed in place (its materialized tile is then often unread):
            # lane i of an integer is (T)(first + i * stride), exact in 64 bits, wrapping like T
            n, stride, unit = self.affine[v.id]
            if v.dtype.is_ptr():
                return f"({n} + (int64_t){i} * {stride * unit})"
            return f"({_ct(v.dtype)})({n} + (int64_t){i} * {stride})"
        if i is not None and v.id in self.fused:
            return f"({self.fused[v.id](i)})"
        return self.at(v, i) if (i is not None and v.shape) else self.name(v)

    # ---- copies ----
    def copy(self, dst_name, src, shape):
        if shape:
            self.w(f"memcpy({dst_name}, {self.name(src)}, sizeof({dst_name}[0]) * {_numel(shape)});")
        else:
            self.w(f"{dst_name} = {self.name(src)};")

    def storage_for(self, vals_types):
        """Fresh storage (names) for carried values of the given Values."""
        return [self.new_name(v) for v in vals_types]

    def assign_yields(self, targets, values):
        """targets (names of carried storage, shaped like values) <- values, through temporaries."""
        temps = []
        for t, v in zip(targets, values):
            if v.shape:
                tmp = f"t{self.tmp}"
                self.tmp += 1
                ct = _ct(v.dtype)
                star = "*" if ct.endswith("*") else " *"
                size = _numel(v.shape)
                off = self.arena
                self.arena += (size * 8 + 63) // 64 * 64
                self.decls.append(f"{ct}{star}{tmp} = ({ct}{star})(arena + {off});")
                self.w(f"memcpy({tmp}, {self.name(v)}, sizeof({tmp}[0]) * {size});")
                temps.append((t, tmp, v, size))
            else:
                tmp = f"t{self.tmp}"
                self.tmp += 1
                self.decls.append(f"{_ct(v.dtype)} {tmp} = {_zero(v.dtype)};")
                self.w(f"{tmp} = {self.name(v)};")
                temps.append((t, tmp, v, 0))
        for t, tmp, v, size in temps:
            if size:
                self.w(f"memcpy({t}, {tmp}, sizeof({t}[0]) * {size});")
            else:
                self.w(f"{t} = {tmp};")

    # ---- blocks ----
    def block(self, blk):
        for op in blk.ops:
            self.op(op)

    def op(self, op):
        self.lineno = op.lineno
        for v in list(op.operands) + list(op.results):
            self.check_type(v)
        h = getattr(self, "op_" + op.opcode, None)
        if h is None:
            if op.opcode in _BIN:
                return self.binary(op)
            if op.opcode in _MATH or op.opcode == "rsqrt" or op.opcode == "erf":
                return self.math(op)
            raise Unsupported(f"operation `{op.opcode}`", op.lineno)
        h(op)

    # ---- leaf ops ----
    def op_constant(self, op):
        r = op.result
        if not r.shape and isinstance(op.attrs["value"], (bool, int)) and r.dtype.is_int():
            self.const[r.id] = int(op.attrs["value"])
        self.ew(r, lambda i: _lit(op.attrs["value"], r.dtype))

    def op_program_id(self, op):
        ax = op.attrs["axis"]
        if ax not in (0, 1, 2):
            raise Unsupported(f"program_id axis {ax}", op.lineno)
        self.ew(op.result, lambda i: f"pid{ax}")

    def op_num_programs(self, op):
        ax = op.attrs["axis"]
        if ax not in (0, 1, 2):
            raise Unsupported(f"num_programs axis {ax}", op.lineno)
        self.ew(op.result, lambda i: f"grid{ax}")

    def op_arange(self, op):
        s = op.attrs["start"]
        if len(op.result.shape) == 1:
            self.set_affine(op.result, str(s), 1)
        self.ew(op.result, lambda i: f"(int32_t)({s} + {i})")

    def op_splat(self, op):
        x = op.operands[0]
        self.splat_info(x, op.result)
        if op.result.shape and not x.shape:
            self.splat[op.result.id] = x
        self.ew(op.result, lambda i: self.name(x))

    def op_broadcast(self, op):
        x, r = op.operands[0], op.result
        if not x.shape:
            self.splat_info(x, r)
            self.splat[r.id] = x
            return self.ew(r, lambda i: self.name(x))
        if x.id in self.splat:
            self.splat[r.id] = self.splat[x.id]
        shape = tuple(r.shape)
        src = (1,) * (len(shape) - len(x.shape)) + tuple(x.shape)
        strides, acc = [], 1
        for d in reversed(src):
            strides.append(acc)
            acc *= d
        strides = list(reversed(strides))
        in_idx = " + ".join(f"d{k} * {strides[k]}" for k in range(len(shape)) if src[k] != 1) or "0"
        self.nd(r, shape, lambda: f"{self.name(x)}[{in_idx}]")

    def nd(self, r, shape, src_fn):
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        loops = " ".join(f"for (int d{k} = 0; d{k} < {d}; d{k}++)" for k, d in enumerate(shape))
        self.w(f"{{ int o = 0; {loops} {n}[o++] = {src_fn()}; }}")
        self.mat = None

    def op_permute(self, op):
        x, r = op.operands[0], op.result
        dims = op.attrs["dims"]
        strides, acc = [], 1
        for d in reversed(x.shape):
            strides.append(acc)
            acc *= d
        strides = list(reversed(strides))
        # output dim k walks input dim dims[k]
        in_idx = " + ".join(f"d{k} * {strides[dims[k]]}" for k in range(len(dims))) or "0"
        self.nd(r, tuple(r.shape), lambda: f"{self.name(x)}[{in_idx}]")

    def op_reshape(self, op):
        x, r = op.operands[0], op.result
        if x.shape and r.shape:
            self.names[r.id] = self.name(x)  # same row-major data
            self.alias[r.id] = x.id
            self.refs = set()
            if x.id in self.splat:
                self.splat[r.id] = self.splat[x.id]
        else:
            self.ew(r, lambda i: self.name(x) if not x.shape else f"{self.name(x)}[0]")

    def op_cast(self, op):
        x, r = op.operands[0], op.result
        rounding = op.attrs.get("rounding")
        self.ew(r, lambda i: _cast(self.opnd(x, i), x.dtype, r.dtype, rounding))

    def op_bitcast(self, op):
        x, r = op.operands[0], op.result
        src, dst = x.dtype, r.dtype
        if src.is_ptr() or dst.is_ptr() or src.primitive_bitwidth != dst.primitive_bitwidth:
            raise Unsupported(f"bitcast {src} -> {dst}", op.lineno)
        self.ew(r, lambda i: _from_bits(dst, _to_bits(src, self.opnd(x, i))))

    def op_addptr(self, op):
        p, o = op.operands
        elt = p.dtype.element_ty
        step = 1 if elt.is_int1() else elt.itemsize
        r = op.result
        if p.id in self.affine and o.id in self.affine and self.affine[p.id][1] == 0:
            pb = self.affine[p.id][0]
            ob, os_ = self.affine[o.id][:2]
            self.set_affine(r, f"({pb} + (int64_t){ob} * {step})", os_, "char *", step)
        self.ew(op.result, lambda i: f"({self.opnd(p, i)} + (int64_t){self.opnd(o, i)} * {step})")

    def op_neg(self, op):
        x, r = op.operands[0], op.result
        t = r.dtype
        if t.is_floating():
            self.ew(r, lambda i: f"(-{self.opnd(x, i)})")
        else:
            u = _UTYPE[max(t.int_bitwidth, 8)]
            self.ew(r, lambda i: f"({_ct(t)})(0u - ({u}){self.opnd(x, i)})")

    def binary(self, op):
        a, b = op.operands
        r = op.result
        ta, tr = a.dtype, r.dtype
        code = op.opcode
        if code in ("add", "sub", "mul") and tr.is_int() and not tr.is_int1() and len(r.shape) == 1 and \
                a.id in self.affine and b.id in self.affine:
            (ab, as_), (bb, bs) = self.affine[a.id][:2], self.affine[b.id][:2]
            ct = _ct(tr)
            if code == "add":
                self.set_affine(r, f"({ct})({ab} + {bb})", as_ + bs, ct)
            elif code == "sub":
                self.set_affine(r, f"({ct})({ab} - {bb})", as_ - bs, ct)
            elif bs == 0 and b.id in self.const:
                self.set_affine(r, f"({ct})({ab} * {bb})", as_ * self.const[b.id], ct)
            elif as_ == 0 and a.id in self.const:
                self.set_affine(r, f"({ct})({ab} * {bb})", bs * self.const[a.id], ct)
        if code in ("lt", "le", "gt", "ge") and len(r.shape) == 1 and a.id in self.affine and b.id in self.affine \
                and ta.is_int() and not ta.is_int1() and ta.int_bitwidth <= 32 and b.dtype == ta:
            # a lane compare of two affine values (offs < n): computed in place by its readers, and
            # "every lane on" is a test of the end lanes (monotone when no lane wraps)
            self.fused[r.id] = lambda i: _binary(code, self.opnd(a, i), self.opnd(b, i), ta, tr)
            self.affcmp[r.id] = (a, b)
            if code in ("lt", "le") and self.affine[a.id][1] == 1 and self.affine[b.id][1] == 0:
                self.prefix[r.id] = code  # lanes on: a prefix of the block
            return
        if code == "truediv" and tr.is_fp32() and ta.is_fp32() and r.shape and a.shape and b.id in self.splat \
                and a.id not in self.fused and a.id not in self.splat and a.id not in self.affine:
            return self.div_by_scalar(a, self.splat[b.id], r)
        self.ew(r, lambda i: _binary(code, self.opnd(a, i), self.opnd(b, i), ta, tr))

    def div_by_scalar(self, a, y, r):
        """fp32 tile / one scalar: cn_divm's reciprocal and correction (the same bits as a divide)
        when the tile and the scalar are in its range (checked once per tile), else divides."""
        k = self.tmp
        self.tmp += 1
        yn, an = self.name(y), self.name(a)
        self.decls += [f"float rcp{k} = 0;", f"int dok{k} = 0;"]
        self.w(f"rcp{k} = 1.0f / {yn}; dok{k} = CN_HAVE_FMA && fabsf({yn}) >= 0x1p-40f && fabsf({yn}) <= 0x1p40f;")
        self.w(f"if (dok{k}) for (int i = 0; i < {_numel(a.shape)}; i++) dok{k} &= cn_div_ok({an}[i]);")
        self.ew(r, lambda i: f"(dok{k} ? cn_divm({self.opnd(a, i)}, {self.name(y)}, rcp{k}) : "
                             f"{self.opnd(a, i)} / {self.name(y)})")

    def op_where(self, op):
        c, x, y = op.operands
        self.ew(op.result, lambda i: f"({self.opnd(c, i)} ? {self.opnd(x, i)} : {self.opnd(y, i)})")

    def _minmax(self, op, big):
        x, y = op.operands
        t = op.result.dtype
        nan_all = op.attrs.get("propagate_nan") not in (0, None, False) and str(op.attrs.get("propagate_nan")) \
            not in ("0", "PropagateNan.NONE")
        sfx = "" if t.is_fp64() else "f"

        def fn(i):
            a, b = self.opnd(x, i), self.opnd(y, i)
            if t.is_floating():
                if nan_all:
                    cmp = ">" if big else "<"
                    return f"(({a} != {a}) ? {a} : ({b} != {b}) ? {b} : ({a} {cmp} {b} ? {a} : {b}))"
                return f"f{'max' if big else 'min'}{sfx}({a}, {b})"
            return f"({a} {'>' if big else '<'} {b} ? {a} : {b})"
        self.ew(op.result, fn)

    def op_maximum(self, op):
        self._minmax(op, True)

    def op_minimum(self, op):
        self._minmax(op, False)

    def math(self, op):
        x, r = op.operands[0], op.result
        t = r.dtype
        if not (t.is_fp32() or t.is_fp64()):
            raise Unsupported(f"{op.opcode} on {t}", op.lineno)
        sfx = "f" if t.is_fp32() else ""
        name = op.opcode
        if name == "rsqrt":
            one = "1.0f" if t.is_fp32() else "1.0"
            self.ew(r, lambda i: f"({one} / sqrt{sfx}({self.opnd(x, i)}))")
        elif name == "erf":
            self.ew(r, lambda i: f"({_ct(t)})erf((double){self.opnd(x, i)})")
        elif t.is_fp32() and name in ("exp", "exp2"):  # branch-free: loops of them vectorize
            self.ew(r, lambda i: f"cn_{name}f({self.opnd(x, i)})")
        else:
            self.ew(r, lambda i: f"{_MATH[name]}{sfx}({self.opnd(x, i)})")

    def op_abs(self, op):
        x, r = op.operands[0], op.result
        t = r.dtype
        if t.is_floating():
            f = "fabs" if t.is_fp64() else "fabsf"
            self.ew(r, lambda i: f"{f}({self.opnd(x, i)})")
        elif t.is_int_unsigned() or t.is_int1():
            self.ew(r, lambda i: self.opnd(x, i))
        else:
            u = _UTYPE[t.int_bitwidth]
            self.ew(r, lambda i: f"({_ct(t)})({self.opnd(x, i)} < 0 ? 0u - ({u}){self.opnd(x, i)} : "
                                 f"({u}){self.opnd(x, i)})")

    def op_fma(self, op):
        x, y, z = op.operands
        t = op.result.dtype
        if t.is_fp64():
            self.ew(op.result, lambda i: f"({self.opnd(x, i)} * {self.opnd(y, i)} + {self.opnd(z, i)})")
        else:
            self.ew(op.result, lambda i: _round(t, f"(float)((double){self.opnd(x, i)} * (double){self.opnd(y, i)}"
                                                   f" + (double){self.opnd(z, i)})"))

    def op_load(self, op):
        p = op.operands[0]
        m = op.operands[1] if len(op.operands) > 1 else None
        other = op.operands[2] if len(op.operands) > 2 else None
        t = op.result.dtype
        if p.id in self.affine and self.affine[p.id][1] == 1 and len(p.shape) == 1:
            return self.contiguous_load(op, p, m, other, t)

        def fn(i):
            ld = _load(t, self.opnd(p, i))
            if m is None:
                return ld
            o = self.opnd(other, i) if other is not None else _lit(0, t)
            return f"({self.opnd(m, i)} ? {ld} : {o})"
        self.ew(op.result, fn)

    def op_store(self, op):
        p, v = op.operands[0], op.operands[1]
        m = op.operands[2] if len(op.operands) > 2 else None
        t = v.dtype
        shape = p.shape
        contiguous = p.id in self.affine and self.affine[p.id][1] == 1 and len(p.shape) == 1
        if v.shape and v.id in self.fused:
            step = 1 if t.is_int1() else t.itemsize
            self.guard_views(v, _numel(shape), (self.affine[p.id][0], _numel(shape) * step, step)
                             if contiguous else None)
        if contiguous:
            return self.contiguous_store(p, v, m, t)

        def st(i):
            s = _store(t, self.opnd(p, i), self.opnd(v, i))
            return f"if ({self.opnd(m, i)}) {s}" if m is not None else s
        if shape:
            self.w(f"for (int i = 0; i < {_numel(shape)}; i++) {{ {st('i')} }}")
        else:
            self.w(f"{{ {st(None)} }}")

    def guard_views(self, v, n, span):
        """A store computing fused value v lane by lane reads, through it, loads that view the
        memory itself; when the stored span (base, bytes, element size; None: a scatter, anywhere)
        may overlap one of them other than lane for lane in place, the store must see the values
        loaded before it writes: v is then computed into a tile first (a run-time test picks)."""
        refs = self.refs
        self.refs = set()
        expr = self.at(v)
        read = self.refs
        self.refs = refs | read
        views = sorted(vid for vid in read if vid in self.view_ids)
        if not views:
            return
        k = self.tmp
        self.tmp += 1
        conds = []
        for vid in views:
            vn, nb = self.names[vid], self.view_bytes[vid]
            if span is None:
                conds.append("0")
                continue
            base, bytes_, step = span
            es = nb // n
            conds.append(f"((uintptr_t){vn} + {nb} <= (uintptr_t)({base}) || (uintptr_t)({base}) + {bytes_} <= "
                         f"(uintptr_t){vn}" + (f" || (uintptr_t){vn} == (uintptr_t)({base})" if es == step else "")
                         + ")")
        ct = _ct(v.dtype)
        off = self.arena
        self.arena += (n * 8 + 63) // 64 * 64
        self.decls.append(f"int vok{k} = 0;")
        self.decls.append(f"{ct} *tv{k} = ({ct} *)(arena + {off});")
        self.w(f"vok{k} = " + " && ".join(conds) + ";")
        self.w(f"if (!vok{k}) for (int i = 0; i < {n}; i++) tv{k}[i] = {expr};")
        inner = self.fused[v.id]
        self.fused[v.id] = lambda i: f"(vok{k} ? {inner(i)} : tv{k}[{i}])"

    # ---- affine 1-D values: first element + stride, for contiguous loads and stores ----
    def set_affine(self, v, base_expr, stride, ctype="int64_t", unit=1):
        n = f"a{v.id}"
        self.decls.append(f"{ctype}{'' if ctype.endswith('*') else ' '}{n} = 0;")
        self.w(f"{n} = {base_expr};")
        self.affine[v.id] = (n, stride, unit)
        return n

    def splat_info(self, x, r):
        if x.id in self.const and not r.shape == ():
            self.const[r.id] = self.const[x.id]
        if len(r.shape) == 1 and (x.dtype.is_ptr() or (x.dtype.is_int() and not x.dtype.is_int1())):
            self.set_affine(r, self.name(x), 0, "char *" if x.dtype.is_ptr() else _ct(x.dtype))

    def all_of(self, m, n):
        """The name of a C int: whether every lane of mask m is on (computed once per region)."""
        if m.id in self.all_cache:
            return self.all_cache[m.id]
        a = f"all{self.tmp}"
        self.all_cache[m.id] = a
        self.tmp += 1
        self.decls.append(f"int {a} = 0;")
        if m.id in self.affcmp:
            conds = []
            for v in self.affcmp[m.id]:
                first, stride = self.affine[v.id][:2]
                t = v.dtype
                bits = t.int_bitwidth
                lo, hi = (0, (1 << bits) - 1) if t.is_int_unsigned() else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
                last = f"((int64_t){first} + (int64_t){(n - 1) * stride})"
                conds.append(f"{last} >= {lo}LL && {last} <= {hi}LL")
            conds.append(self.at(m, "0"))
            conds.append(self.at(m, str(n - 1)))
            self.w(f"{a} = " + " && ".join(f"({c})" for c in conds) + ";")
            return a
        self.w(f"{a} = 1; for (int i = 0; i < {n}; i++) {a} &= {self.at(m)};")
        return a

    def prefix_len(self, m, n):
        """The name of a C int64: how many leading lanes of mask m are on when they are exactly a
        prefix (offs < bound with offs = first + lane, no lane wrapping), else -1; or None when
        the mask is not of that form."""
        if m.id not in self.prefix:
            return None
        if m.id in self.prefix_cache:
            return self.prefix_cache[m.id]
        a, b = self.affcmp[m.id]
        first = self.affine[a.id][0]
        bound = self.affine[b.id][0]
        t = a.dtype
        bits = t.int_bitwidth
        lo, hi = (0, (1 << bits) - 1) if t.is_int_unsigned() else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        k = f"pre{self.tmp}"
        self.tmp += 1
        self.prefix_cache[m.id] = k
        self.decls.append(f"int64_t {k} = 0;")
        c = f"((int64_t){bound} - (int64_t){first}{' + 1' if self.prefix[m.id] == 'le' else ''})"
        self.w(f"{k} = ((int64_t){first} + {n - 1} <= {hi}LL && (int64_t){first} >= {lo}LL) ? "
               f"({c} < 0 ? 0 : {c} > {n} ? {n} : {c}) : -1;")
        return k

    def plan_views(self, body):
        """The top-level contiguous loads whose tile may be a view of the memory itself (no copy):
        those no write (a store or atomic, at top level or inside a region) can reach between the
        load and the last read of its value."""
        ops = body.ops
        src, every = {}, []
        ir._walk(body, every)
        for o in every:
            if o.opcode == "reshape" and o.results:
                src[o.result.id] = o.operands[0].id

        def root(i):
            while i in src:
                i = src[i]
            return i
        last, writes = {}, set()
        for k, op in enumerate(ops):
            stack = [op]
            while stack:
                o = stack.pop()
                if o.opcode in ("store", "store_block", "desc_store") or o.opcode.startswith("atomic_"):
                    writes.add(k)
                for v in o.operands:
                    last[root(v.id)] = k
                for reg in o.regions:
                    stack.extend(reg.ops)
        for k, op in enumerate(ops):
            if op.opcode == "load" and op.results:
                end = last.get(op.result.id, k)
                if not any(k < w <= end for w in writes):
                    self.views.add(id(op))

    def plan_fusion(self, body):
        """The blocks an elementwise op produces whose only reader is one elementwise op or store
        of the same block, of the same shape, with no write, atomic or region between them (so
        that the reader computing the value later reads the same memory and operands)."""
        every = []
        ir._walk(body, every)
        uses = {}
        for o in every:
            for v in o.operands:
                uses.setdefault(v.id, []).append(o)  # a region's yield is a reader too

        def visit(blk):
            ops = blk.ops
            pos = {id(o): k for k, o in enumerate(ops)}
            for k, o in enumerate(ops):
                for r in o.regions:
                    visit(r)
                if len(o.results) != 1 or not o.result.shape or o.regions:
                    continue
                u = uses.get(o.result.id, [])
                if len(u) != 1 or id(u[0]) not in pos:
                    continue
                c = u[0]
                if c.opcode not in _FUSE_READERS:
                    continue
                shape = tuple(o.result.shape)
                if c.opcode == "store":
                    if tuple(c.operands[0].shape) != shape:
                        continue
                elif len(c.results) != 1 or tuple(c.result.shape) != shape:
                    continue
                if any(b.regions or b.opcode in _WRITES or b.opcode.startswith("atomic_")
                       for b in ops[k + 1:pos[id(c)]]):
                    continue
                self.fusible.add(o.result.id)
        visit(body)

    def contiguous_load(self, op, p, m, other, t):
        r = op.result
        n = _numel(r.shape)
        rn = self.new_name(r)
        base = self.affine[p.id][0]
        step = 1 if t.is_int1() else t.itemsize
        ld = _load(t, f"({base} + (size_t)i * {step})")
        same = not (_is16(t) or t.is_int1())  # memory and computation types agree
        if same and id(op) in self.views:
            # the tile is the memory itself when every lane is on; the arena copy otherwise
            ct = _ct(t)
            decl = self.decls.pop()
            buf = rn + "_b"
            self.decls.append(decl.replace(f"restrict {rn} =", f"restrict {buf} ="))
            self.decls.append(f"const {ct} *{rn} = {buf};")
            self.names[r.id] = rn
            self.view_ids.add(r.id)
            self.view_bytes[r.id] = n * step
            full = f"{rn} = (const {ct} *)(const void *)({base});"
            o = None
            if m is None:
                self.w(full)
                return
            if not m.shape:
                o = self.name(other) if other is not None else _lit(0, t)
                self.w(f"if ({self.name(m)}) {{ {full} }} else {{ {rn} = {buf}; "
                       f"for (int i = 0; i < {n}; i++) {buf}[i] = {o}; }}")
                return
            a = self.all_of(m, n)
            o = self.opnd(other, "i") if other is not None and other.shape else (
                self.name(other) if other is not None else _lit(0, t))
            pre = self.prefix_len(m, n)
            self.w(f"if ({a}) {{ {full} }} else {{ {rn} = {buf};")
            if pre is not None:
                self.w(f"    if ({pre} >= 0) {{ memcpy({buf}, {base}, (size_t){pre} * {step}); "
                       f"for (int64_t i = {pre}; i < {n}; i++) {buf}[i] = {o}; }} else")
            self.w(f"    for (int i = 0; i < {n}; i++) {buf}[i] = {self.at(m)} ? {ld} : {o};")
            self.w("}")
            return
        full = f"memcpy({rn}, {base}, {n * step});" if same else f"for (int i = 0; i < {n}; i++) {rn}[i] = {ld};"
        if m is None:
            self.w(full)
            return
        if not m.shape:
            o = self.name(other) if other is not None else _lit(0, t)
            self.w(f"if ({self.name(m)}) {{ {full} }} else {{ for (int i = 0; i < {n}; i++) {rn}[i] = {o}; }}")
            return
        a = self.all_of(m, n)
        o = self.opnd(other, "i") if other is not None and other.shape else (self.name(other) if other is not None
                                                                             else _lit(0, t))
        pre = self.prefix_len(m, n)
        self.w(f"if ({a}) {{ {full} }} else {{")
        if pre is not None:
            self.w(f"    if ({pre} >= 0) {{ for (int64_t i = 0; i < {pre}; i++) {rn}[i] = {ld}; "
                   f"for (int64_t i = {pre}; i < {n}; i++) {rn}[i] = {o}; }} else")
        self.w(f"    for (int i = 0; i < {n}; i++) {rn}[i] = {self.at(m)} ? {ld} : {o};")
        self.w("}")

    def contiguous_store(self, p, v, m, t):
        n = _numel(p.shape)
        base = self.affine[p.id][0]
        step = 1 if t.is_int1() else t.itemsize
        vi = self.at(v) if v.shape else self.name(v)
        st = _store(t, f"({base} + (size_t)i * {step})", vi)
        same = not (_is16(t) or t.is_int1()) and v.shape and v.id not in self.fused
        vid = v.id
        while vid in self.alias:
            vid = self.alias[vid]
        mv = "memmove" if vid in self.view_ids else "memcpy"  # a view of memory may overlap the target
        full = f"{mv}({base}, {self.name(v)}, {n * step});" if same else \
            f"for (int i = 0; i < {n}; i++) {{ {st} }}"
        if m is None:
            self.w(full)
            return
        if not m.shape:
            self.w(f"if ({self.name(m)}) {{ {full} }}")
            return
        a = self.all_of(m, n)
        pre = self.prefix_len(m, n)
        self.w(f"if ({a}) {{ {full} }} else {{")
        if pre is not None:
            self.w(f"    if ({pre} >= 0) {{ for (int64_t i = 0; i < {pre}; i++) {{ {st} }} }} else")
        self.w(f"    for (int i = 0; i < {n}; i++) if ({self.at(m)}) {{ {st} }}")
        self.w("}")

    def _reduce(self, op, kind):
        x, r = op.operands[0], op.result
        t = r.dtype
        ax = op.attrs.get("axis")
        shape = tuple(x.shape)
        arg = kind.startswith("arg")
        if not shape:
            if arg:
                self.ew(op.results[1], lambda i: "0")
            return self.ew(r, lambda i: self.name(x))
        if ax is None:
            outer, n, inner = 1, _numel(shape), 1
        else:
            outer, n, inner = _numel(shape[:ax]), shape[ax], _numel(shape[ax + 1:])
        rn = self.new_name(r)
        idx = op.results[1] if arg else None
        idn = self.new_name(idx) if arg else None
        xn = self.name(x)
        acc_t = "float" if _is16(t) else _ct(t)
        if kind == "sum" and t.is_int():
            acc_t = _UTYPE[max(t.int_bitwidth, 8)] if not t.is_int1() else "uint32_t"
        if inner == 1 and n >= 32 and not arg and t.is_floating():
            return self._reduce_lanes(kind, t, acc_t, xn, rn, r, outer, n)
        self.w("{")
        self.depth += 1
        self.w(f"for (int ro = 0; ro < {outer}; ro++) for (int ri = 0; ri < {inner}; ri++) {{")
        self.depth += 1
        base = f"(ro * {n}) * {inner} + ri"
        self.w(f"{acc_t} acc = ({acc_t}){xn}[{base}]; int32_t at = 0; (void)at;")
        self.w(f"for (int rj = 1; rj < {n}; rj++) {{")
        e = f"{xn}[(ro * {n} + rj) * {inner} + ri]"
        if kind == "sum":
            self.w(f"    acc = acc + ({acc_t}){e};")
        else:
            cmp = ">" if kind.endswith("max") else "<"
            # NaN wins and the first of equal values is kept (numpy's max/argmax)
            if t.is_floating():
                self.w(f"    {acc_t} e = {e}; if (acc == acc && (e {cmp} acc || e != e)) {{ acc = e; at = rj; }}")
            else:
                self.w(f"    {acc_t} e = {e}; if (e {cmp} acc) {{ acc = e; at = rj; }}")
        self.w("}")
        res = _round(t, "acc") if kind == "sum" else "acc"
        if kind == "sum" and t.is_int1():
            res = "(uint8_t)(acc & 1u)"
        elif kind == "sum" and t.is_int():
            res = f"({_ct(t)})acc"
        if r.shape:
            self.w(f"{rn}[ro * {inner} + ri] = {res};")
            if arg:
                self.w(f"{idn}[ro * {inner} + ri] = at;")
        else:
            self.w(f"{rn} = {res};")
            if arg:
                self.w(f"{idn} = at;")
        self.depth -= 1
        self.w("}")
        self.depth -= 1
        self.w("}")

    def _reduce_lanes(self, kind, t, acc_t, xn, rn, r, outer, n):
        """A float reduction along a contiguous axis: partial results in A = 4 (2, 1 for short
        rows) 64-byte vectors (GCC's vector extension: 16 fp32 or 8 fp64 lanes each, over strided
        elements, so the chains of dependent operations interleave; the compiler cannot reassociate
        a scalar loop itself), then the vectors and their lanes combined pairwise. Sums are then
        more accurate than left to right; max/min are exact (NaN wins)."""
        vf, vi, L = ("cn_v16f", "cn_v16i", 16) if acc_t == "float" else ("cn_v8d", "cn_v8l", 8)
        A = 4 if n >= 8 * L else (2 if n >= 4 * L else 1)
        cmp = ">" if kind == "max" else "<"

        def vop(a, b):  # a = a op b on vectors
            if kind == "sum":
                return f"{a} = {a} + {b};"
            # keep a where a is NaN, or b is not NaN and does not beat a
            return (f"{{ {vi} keep = ({a} != {a}) | (({b} == {b}) & ~({b} {cmp} {a})); "
                    f"{a} = ({vf})((({vi}){a} & keep) | (({vi}){b} & ~keep)); }}")
        if kind == "sum":
            comb = "q[l] = q[l] + q[l + w];"
        else:
            comb = (f"q[l] = (q[l] != q[l] || q[l + w] != q[l + w]) ? (q[l] != q[l] ? q[l] : q[l + w]) : "
                    f"(q[l + w] {cmp} q[l] ? q[l + w] : q[l]);")
        res = _round(t, "q[0]") if kind == "sum" else "q[0]"
        self.w(f"for (int ro = 0; ro < {outer}; ro++) {{")
        self.w(f"    const {acc_t} *xr = {xn} + (size_t)ro * {n};")
        self.w(f"    {vf} " + ", ".join(f"p{a}" for a in range(A)) + f", e; {acc_t} q[{L}];")
        self.w("    " + " ".join(f"memcpy(&p{a}, xr + {a * L}, sizeof p{a});" for a in range(A)))
        steps = " ".join(f"memcpy(&e, xr + rj + {a * L}, sizeof e); {vop(f'p{a}', 'e')}" for a in range(A))
        if kind != "sum":
            # first without NaNs in mind (one compare and a blend per vector, NaN lanes noted
            # aside); only a row holding a NaN runs again with the NaN-aware step
            fast = " ".join(f"memcpy(&e, xr + rj + {a * L}, sizeof e); {{ {vi} b = e {cmp} p{a}; "
                            f"p{a} = ({vf})((({vi})e & b) | (({vi})p{a} & ~b)); nn |= e != e; }}"
                            for a in range(A))
            self.w(f"    {vi} nn = " + " | ".join(f"(p{a} != p{a})" for a in range(A)) + ";")
            self.w(f"    for (int rj = {A * L}; rj < {n}; rj += {A * L}) {{ {fast} }}")
            self.w(f"    int any_nan = 0; for (int l = 0; l < {L}; l++) any_nan |= nn[l] != 0;")
            self.w("    if (any_nan) {")
            self.w("    " + " ".join(f"memcpy(&p{a}, xr + {a * L}, sizeof p{a});" for a in range(A)))
            self.w(f"    for (int rj = {A * L}; rj < {n}; rj += {A * L}) {{ {steps} }}")
            self.w("    }")
        else:
            self.w(f"    for (int rj = {A * L}; rj < {n}; rj += {A * L}) {{ {steps} }}")
        if A == 4:
            self.w(f"    {vop('p0', 'p2')} {vop('p1', 'p3')}")
        if A >= 2:
            self.w(f"    {vop('p0', 'p1')}")
        self.w("    memcpy(q, &p0, sizeof p0);")
        self.w(f"    for (int w = {L // 2}; w > 0; w /= 2) for (int l = 0; l < w; l++) {comb}")
        self.w(f"    {rn}[ro] = {res};" if r.shape else f"    {rn} = {res};")
        self.w("}")

    def op_reduce_sum(self, op):
        self._reduce(op, "sum")

    def op_reduce_max(self, op):
        self._reduce(op, "max")

    def op_dot(self, op):
        a, b = op.operands[:2]
        acc = op.operands[2] if len(op.operands) > 2 else None
        r = op.result
        batch = a.shape[0] if len(a.shape) == 3 else 1
        M, K = a.shape[-2:]
        N = b.shape[-1]
        ct = "int32_t" if a.dtype.is_int() else ("double" if a.dtype.is_fp64() else "float")
        rn = self.new_name(r)
        an, bn = self.name(a), self.name(b)
        d = f"t{self.tmp}"
        self.tmp += 1
        off = self.arena
        self.arena += (M * N * 8 + 63) // 64 * 64
        self.arena += (M * N * 8 * (batch - 1) + 63) // 64 * 64
        self.decls.append(f"{ct} *restrict {d} = ({ct} *)(arena + {off});")
        # i-k-j order: the inner loop runs along a row of b and of the result (vectorized); products
        # are summed in k order in the compute type (int8 products in int32, wrapping)
        if ct == "int32_t":
            upd = (f"{d}[m * {N} + n] = (int32_t)((uint32_t){d}[m * {N} + n] + "
                   f"(uint32_t)(x * (int32_t){bn}[k * {N} + n]));")
        else:
            upd = f"{d}[m * {N} + n] += x * ({ct}){bn}[k * {N} + n];"
        # an accumulator of the compute type is where the products are summed, in k order after
        # its value (as a GPU's matrix instructions take it); others are added to the result
        fold = acc is not None and tuple(acc.shape) == tuple(r.shape) and _ct(acc.dtype) == ct and \
            (acc.dtype.is_floating() or acc.dtype.is_int_signed())
        total = M * N * batch
        if fold:
            self.w(f"for (int i = 0; i < {total}; i++) {d}[i] = {self.opnd(acc, 'i')};")
        else:
            self.w(f"memset({d}, 0, sizeof({d}[0]) * {total});")
        if batch > 1:  # a 3-D dot: one 2-D product per batch entry, on offset views of a, b and d
            self.w(f"for (int bt = 0; bt < {batch}; bt++) {{")
            self.w(f"    {ct} *restrict {d}_ = {d} + bt * {M * N};")
            self.w(f"    const {_ct(a.dtype)} *restrict {an}_ = {an} + bt * {M * K};")
            self.w(f"    const {_ct(b.dtype)} *restrict {bn}_ = {bn} + bt * {K * N};")
            upd = upd.replace(f"{d}[", f"{d}_[").replace(f"{bn}[", f"{bn}_[")
            a_at, d_at = f"{an}_", f"{d}_"
            self.depth += 1
        else:
            a_at, d_at = an, d
        lanes = {"float": 16, "double": 8}.get(ct)
        if a.dtype.is_bf16() and b.dtype.is_bf16() and M % 4 == 0 and N % 32 == 0 and K % 2 == 0:
            # bf16 pairs through the CPU's bf16 dot-product instruction where it has one
            stage = self.arena
            self.arena += (2 * (M * K + K * N) + 63) // 64 * 64
            fn = self.dot_kernel(ct, lanes, M, N, K)
            fb = self.dot_bf16_kernel(M, N, K, fn)
            self.w(f"{fb}({d_at}, {a_at}, {bn + '_' if batch > 1 else bn}, (uint32_t *)(arena + {stage}));")
        elif lanes and M % 4 == 0 and N % (2 * lanes) == 0:
            fn = self.dot_kernel(ct, lanes, M, N, K)
            self.w(f"{fn}({d_at}, {a_at}, {bn + '_' if batch > 1 else bn});")
        else:
            self.w(f"for (int m = 0; m < {M}; m++) {{")
            self.w(f"    for (int k = 0; k < {K}; k++) {{")
            self.w(f"        {ct} x = ({ct}){a_at}[m * {K} + k];")
            self.w(f"        for (int n = 0; n < {N}; n++) {upd}")
            self.w("    }")
            self.w("}")
        if batch > 1:
            self.depth -= 1
            self.w("}")
        M = M * batch
        t = r.dtype
        if acc is None or fold:
            res = lambda i: _round(t, f"({_ct(t)}){d}[{i}]") if t.is_floating() else f"{d}[{i}]"  # noqa: E731
        elif t.is_int():
            res = lambda i: f"(int32_t)((uint32_t){d}[{i}] + (uint32_t){self.at(acc, i)})"  # noqa: E731
        else:
            res = lambda i: _round(t, f"({_round(t, f'({_ct(t)}){d}[{i}]')} + {self.at(acc, i)})")  # noqa: E731
        self.w(f"for (int i = 0; i < {M * N}; i++) {rn}[i] = {res('i')};")

    def dot_kernel(self, ct, lanes, M, N, K):
        """The name of a static function d = a @ b for [M, K] x [K, N] tiles of ct (float or
        double): 4 rows by 2 vectors of the result accumulate in registers over k (GCC's vector
        extension), each product added in k order, fused into a multiply-add where the CPU has one
        (the function alone is compiled with -ffp-contract=fast)."""
        name = f"cn_dot_{ct}_{M}_{N}_{K}"
        if name in self.helpers:
            return name
        v = "cn_v16f" if ct == "float" else "cn_v8d"
        L = lanes
        acc = ", ".join(f"c{i}{j}" for i in range(4) for j in range(2))
        load = " ".join(f"memcpy(&c{i}{j}, d + (size_t)(m + {i}) * {N} + n + {j * L}, sizeof c{i}{j});"
                        for i in range(4) for j in range(2))
        body = ["__attribute__((optimize(\"fp-contract=fast\")))",
                f"static void {name}({ct} *restrict d, const {ct} *restrict a, const {ct} *restrict b) {{",
                f"    for (int m = 0; m < {M}; m += 4)",
                f"        for (int n = 0; n < {N}; n += {2 * L}) {{",
                f"            {v} {acc};",
                f"            {load}",
                f"            for (int k = 0; k < {K}; k++) {{",
                f"                {v} b0, b1;",
                f"                memcpy(&b0, b + (size_t)k * {N} + n, sizeof b0);",
                f"                memcpy(&b1, b + (size_t)k * {N} + n + {L}, sizeof b1);"]
        for i in range(4):
            body.append(f"                {{ {ct} x = a[(size_t)(m + {i}) * {K} + k]; "
                        f"c{i}0 += x * b0; c{i}1 += x * b1; }}")
        body.append("            }")
        for i in range(4):
            body.append(f"            memcpy(d + (size_t)(m + {i}) * {N} + n, &c{i}0, sizeof c{i}0); "
                        f"memcpy(d + (size_t)(m + {i}) * {N} + n + {L}, &c{i}1, sizeof c{i}1);")
        body += ["        }", "}"]
        self.helpers[name] = "\n".join(body)
        return name

    def dot_bf16_kernel(self, M, N, K, fallback):
        """The name of a static function d = a @ b for [M, K] x [K, N] tiles holding bf16 values
        (in floats): with AVX512-BF16 (the object is built for the CPU it runs on) the tiles are
        staged as pairs of bf16 along k (a row-wise, b column-wise) and each vdpbf16ps adds two
        products per lane, rows of 4 (8 when M allows) by 2 vectors of the result in registers;
        otherwise the fp32 kernel ``fallback``. The products are exact; each pair is added to the
        running sum as the instruction does (k + 1 first, one rounding each, subnormals flushed)."""
        name = f"cn_dot_bf16_{M}_{N}_{K}"
        if name in self.helpers:
            return name
        R = 8 if M % 8 == 0 else 4
        K2 = K // 2
        acc = ", ".join(f"c{i}{j} = _mm512_loadu_ps(d + (m + {i}) * {N} + n + {16 * j})"
                        for i in range(R) for j in range(2))
        body = ["#if defined(__AVX512BF16__) && defined(__AVX512F__)",
                "#include <immintrin.h>",
                f"static void {name}(float *restrict d, const float *restrict a, const float *restrict b, "
                "uint32_t *restrict st) {",
                f"    uint32_t *restrict ap = st, *restrict bp = st + {M * K2};",
                f"    for (int m = 0; m < {M}; m++) for (int k = 0; k < {K2}; k++)",
                f"        ap[m * {K2} + k] = (cn_bits_f32(a[m * {K} + 2 * k]) >> 16) | "
                f"(cn_bits_f32(a[m * {K} + 2 * k + 1]) & 0xffff0000u);",
                f"    for (int k = 0; k < {K2}; k++) for (int n = 0; n < {N}; n++)",
                f"        bp[k * {N} + n] = (cn_bits_f32(b[(2 * k) * {N} + n]) >> 16) | "
                f"(cn_bits_f32(b[(2 * k + 1) * {N} + n]) & 0xffff0000u);",
                f"    for (int m = 0; m < {M}; m += {R})",
                f"        for (int n = 0; n < {N}; n += 32) {{",
                f"            __m512 {acc};",
                f"            for (int k = 0; k < {K2}; k++) {{",
                f"                __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp + k * {N} + n);",
                f"                __m512bh b1 = (__m512bh)_mm512_loadu_si512(bp + k * {N} + n + 16);"]
        for i in range(R):
            body.append(f"                {{ __m512bh x = (__m512bh)_mm512_set1_epi32((int)ap[(m + {i}) * {K2} + k]); "
                        f"c{i}0 = _mm512_dpbf16_ps(c{i}0, x, b0); c{i}1 = _mm512_dpbf16_ps(c{i}1, x, b1); }}")
        body.append("            }")
        for i in range(R):
            body.append(f"            _mm512_storeu_ps(d + (m + {i}) * {N} + n, c{i}0); "
                        f"_mm512_storeu_ps(d + (m + {i}) * {N} + n + 16, c{i}1);")
        body += ["        }", "}", "#else",
                 f"static void {name}(float *restrict d, const float *restrict a, const float *restrict b, "
                 "uint32_t *restrict st) {",
                 f"    (void)st; {fallback}(d, a, b);", "}", "#endif"]
        self.helpers[name] = "\n".join(body)
        return name

    def op_reduce_argmax(self, op):
        self._reduce(op, "argmax")

    def op_reduce_argmin(self, op):
        self._reduce(op, "argmin")

    def op_reduce_min(self, op):
        self._reduce(op, "min")

    def check(self, cond_fn, shape, message):
        """A runtime check: the program returns 100 + the message's index when cond fails."""
        self.messages.append(message)
        code = 99 + len(self.messages)
        if shape:
            self.w(f"for (int i = 0; i < {_numel(shape)}; i++) if (!({cond_fn('i')})) return {code};")
        else:
            self.w(f"if (!({cond_fn(None)})) return {code};")

    def op_hint(self, op):
        x = op.operands[0]
        if op.attrs.get("kind") == "multiple_of" and not x.shape and x.dtype.is_int() and op.attrs.get("values"):
            v = op.attrs["values"][0]
            self.check(lambda i: f"({self.name(x)} % {v}) == 0", (),
                       f"{op.lineno}: tl.multiple_of: the value is not a multiple of {v}")

    def op_assume(self, op):
        c = op.operands[0]
        self.check(lambda i: self.opnd(c, i), c.shape, f"{op.lineno}: tl.assume: the assumed condition is false")

    def op_barrier(self, op):
        pass

    # ---- split / join ----
    def op_split(self, op):
        x = op.operands[0]
        for k, r in enumerate(op.results):
            self.ew(r, lambda i, k=k: f"{self.name(x)}[2 * {i} + {k}]" if i is not None else f"{self.name(x)}[{k}]")

    def op_join(self, op):
        a, b = op.operands
        r = op.result
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        cnt = _numel(a.shape)
        self.w(f"for (int i = 0; i < {cnt}; i++) {{ {n}[2 * i] = {self.opnd(a, 'i' if a.shape else None)}; "
               f"{n}[2 * i + 1] = {self.opnd(b, 'i' if b.shape else None)}; }}")
        self.mat = None

    # ---- atomics: __atomic builtins on the element's bits; a CAS loop where no builtin fits ----
    def _atomic(self, op, kind):
        p = op.operands[0]
        if kind == "cas":
            c, v, m = op.operands[1], op.operands[2], None
        else:
            c, v = None, op.operands[1]
            m = op.operands[2] if len(op.operands) > 2 else None
        r = op.result
        t = p.dtype.element_ty
        if t.is_int1():
            raise Unsupported(f"atomic_{kind} on int1", op.lineno)
        bits = t.primitive_bitwidth
        u = f"uint{bits}_t"
        rn = self.new_name(r)
        ct = _ct(t)
        i = "i" if r.shape else None
        x = f"({ct})({self.opnd(v, i)})"
        dst = self.at(r, i) if r.shape else rn
        fetch = {"add": "__atomic_fetch_add", "and": "__atomic_fetch_and", "or": "__atomic_fetch_or",
                 "xor": "__atomic_fetch_xor", "xchg": "__atomic_exchange_n"}
        if t.is_int() and kind in fetch:
            body = f"{dst} = ({ct}){fetch[kind]}(({u} *)ap, ({u}){x}, __ATOMIC_ACQ_REL);"
        else:
            if kind == "add":
                new = _round(t, "(cur + xv)") if t.is_floating() else None
            elif kind in ("max", "min"):
                cmp = ">" if kind == "max" else "<"
                new = f"(xv {cmp} cur ? xv : cur)"
                if t.is_floating():  # NaN wins, as numpy's maximum/minimum
                    new = f"(cur != cur ? cur : (xv != xv ? xv : {new}))"
            elif kind == "xchg":
                new = "xv"
            elif kind == "cas":
                new = f"(cur == ({ct})({self.opnd(c, i)}) ? xv : cur)"
            else:
                raise Unsupported(f"atomic_{kind} on {t}", op.lineno)
            body = (f"{ct} xv = {x}, cur; {u} ob = __atomic_load_n(({u} *)ap, __ATOMIC_ACQUIRE), nb; "
                    f"do {{ cur = {_from_bits(t, 'ob')}; nb = ({u}){_to_bits(t, new)}; }} while "
                    f"(!__atomic_compare_exchange_n(({u} *)ap, &ob, nb, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)); "
                    f"{dst} = cur;")
        lane = f"{{ char *ap = {self.opnd(p, i)}; {body} }}"
        if m is not None:
            lane = f"if ({self.opnd(m, i)}) {lane} else {dst} = 0;"
        if r.shape:
            self.w(f"for (int i = 0; i < {_numel(r.shape)}; i++) {{ {lane} }}")
        else:
            self.w(f"{{ {lane} }}")

    def __getattr__(self, name):
        if name.startswith("op_atomic_"):
            kind = name[len("op_atomic_"):]
            if kind in ("add", "max", "min", "xchg", "and", "or", "xor", "cas"):
                return lambda op: self._atomic(op, kind)
        raise AttributeError(name)

    # ---- debugging ----
    def op_print(self, op):
        self.uses_stdio = True
        prefix = _cstr(op.attrs.get("prefix", ""))
        parts = [f'printf("pid (%d, %d, %d) %s", (int)pid0, (int)pid1, (int)pid2, {prefix});']
        hexa = op.attrs.get("hex")
        for v in op.operands:
            t = v.dtype
            if t.is_floating():
                fmt, cast = ("%.17g" if t.is_fp64() else "%.9g"), "(double)"
            elif t.is_ptr():
                fmt, cast = "%#llx", "(unsigned long long)(uintptr_t)"
            elif hexa:
                fmt, cast = "%#llx", f"(unsigned long long)(uint{max(t.primitive_bitwidth, 8)}_t)"
            elif t.is_int_signed() and not t.is_int1():
                fmt, cast = "%lld", "(long long)"
            else:
                fmt, cast = "%llu", "(unsigned long long)"
            if v.shape:
                parts.append(f'printf(" ["); for (int i = 0; i < {_numel(v.shape)}; i++) '
                             f'printf(i ? " {fmt}" : "{fmt}", {cast}{self.at(v)}); printf("]");')
            else:
                parts.append(f'printf(" {fmt}", {cast}{self.name(v)});')
        self.w("flockfile(stdout); " + " ".join(parts) + ' printf("\\n"); fflush(stdout); funlockfile(stdout);')

    def op_device_assert(self, op):
        c = op.operands[0]
        self.check(lambda i: self.opnd(c, i), c.shape,
                   f"{op.lineno}: device assertion failed: {op.attrs.get('msg', '')}")

    # ---- reductions and scans with a combine region, scans ----
    def _geometry(self, shape, ax):
        if ax is None:
            return 1, _numel(shape), 1
        return _numel(shape[:ax]), shape[ax], _numel(shape[ax + 1:])

    def _combine(self, region, acc, elem):
        """The combine region applied to (acc, elem) (C names): its yield's C name."""
        a, b = region.args
        ops = region.ops
        if not ops or ops[-1].opcode != "yield":
            raise Unsupported("a combine region without a yield", self.lineno)
        self.w(f"{self.new_name(a)} = {acc}; {self.new_name(b)} = {elem};")
        for o in ops[:-1]:
            if o.regions or any(v.shape for v in o.results):
                raise Unsupported("a combine function with blocks or control flow", o.lineno)
            self.op(o)
        return self.name(ops[-1].operands[0])

    def op_reduce(self, op):
        x, r = op.operands[0], op.result
        ax = op.attrs.get("axis")
        if not x.shape:
            return self.ew(r, lambda i: self.name(x))
        outer, n, inner = self._geometry(tuple(x.shape), ax)
        rn = self.new_name(r)
        xn = self.name(x)
        ct = _ct(r.dtype)
        self.w(f"for (int ro = 0; ro < {outer}; ro++) for (int ri = 0; ri < {inner}; ri++) {{")
        self.depth += 1
        self.w(f"{ct} acc = ({ct}){xn}[(ro * {n}) * {inner} + ri];")
        self.w(f"for (int rj = 1; rj < {n}; rj++) {{")
        self.depth += 1
        y = self._combine(op.regions[0], "acc", f"{xn}[(ro * {n} + rj) * {inner} + ri]")
        self.w(f"acc = {y};")
        self.depth -= 1
        self.w("}")
        self.w(f"{rn}[ro * {inner} + ri] = acc;" if r.shape else f"{rn} = acc;")
        self.depth -= 1
        self.w("}")

    def _scan(self, op, step):
        """A scan along op.attrs['axis'] (reversed when asked): out[first] = x[first], then
        out[j] = step(acc, x[j]) in order; step gets C names and returns (lines, the new acc)."""
        x, r = op.operands[0], op.result
        ax, rev = op.attrs["axis"], op.attrs.get("reverse", False)
        outer, n, inner = self._geometry(tuple(x.shape), ax)
        rn = self.new_name(r)
        xn = self.name(x)
        t = r.dtype
        acc_t = op.attrs.get("acc_t") or _ct(t)
        j0, cond, inc = (f"{n} - 1", "rj >= 0", "rj--") if rev else ("0", f"rj < {n}", "rj++")
        self.w(f"for (int ro = 0; ro < {outer}; ro++) for (int ri = 0; ri < {inner}; ri++) {{")
        self.depth += 1
        self.w(f"{acc_t} acc = 0; int first = 1;")
        self.w(f"for (int rj = {j0}; {cond}; {inc}) {{")
        self.depth += 1
        idx = f"(ro * {n} + rj) * {inner} + ri"
        self.w(f"{acc_t} e = ({acc_t}){xn}[{idx}];")
        self.w("if (first) { acc = e; first = 0; } else {")
        self.depth += 1
        acc = step("acc", "e")
        self.w(f"acc = {acc};")
        self.depth -= 1
        self.w("}")
        out = "acc"
        if op.opcode == "scan_sum" and _is16(t):
            out = _round(t, "acc")
        elif op.opcode == "scan_sum" and t.is_int():
            out = f"({_ct(t)})acc"
        self.w(f"{rn}[{idx}] = {out};")
        self.depth -= 1
        self.w("}")
        self.depth -= 1
        self.w("}")

    def op_scan(self, op):
        self._scan(op, lambda acc, e: self._combine(op.regions[0], acc, e))

    def op_scan_sum(self, op):
        t = op.result.dtype
        if t.is_int():
            op.attrs["acc_t"] = _UTYPE[max(t.int_bitwidth, 8)] if not t.is_int1() else "uint32_t"
            return self._scan(op, lambda acc, e: f"({op.attrs['acc_t']})({acc} + {e})")
        # 16-bit sums run in fp32 and round once at the end (the interpreter's cumsum in fp32)
        return self._scan(op, lambda acc, e: f"({acc} + {e})")

    def op_scan_prod(self, op):
        t = op.result.dtype
        if t.is_int():
            u = _UTYPE[max(t.int_bitwidth, 8)] if not t.is_int1() else "uint32_t"
            return self._scan(op, lambda acc, e: f"({_ct(t)})(({u}){acc} * ({u}){e})")
        return self._scan(op, lambda acc, e: _round(t, f"({acc} * {e})"))

    # ---- block pointers and tensor descriptors (cn_bp structs) ----
    def _bp_def(self, r, base, dims, offs):
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        parts = [f"{n}.base = {self.name(base)};"]
        for d, (sh, st) in enumerate(dims):
            parts.append(f"{n}.shape[{d}] = {self.name(sh)}; {n}.stride[{d}] = {self.name(st)};")
        for d, o in enumerate(offs):
            parts.append(f"{n}.off[{d}] = " + (self.name(o) if o is not None else "0") + ";")
        self.w(" ".join(parts))
        self.mat = None

    def op_make_block_ptr(self, op):
        r = op.result
        k = len(r.type.block_shape)
        ops = op.operands
        self._bp_def(r, ops[0], list(zip(ops[1:1 + k], ops[1 + k:1 + 2 * k])), ops[1 + 2 * k:1 + 3 * k])

    def op_make_tensor_descriptor(self, op):
        r = op.result
        k = len(r.type.block_shape)
        ops = op.operands
        self._bp_def(r, ops[0], list(zip(ops[1:1 + k], ops[1 + k:1 + 2 * k])), [None] * k)

    def op_advance(self, op):
        b, r = op.operands[0], op.result
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        adds = " ".join(f"{n}.off[{d}] += (int64_t){self.name(o)};" for d, o in enumerate(op.operands[1:]))
        self.w(f"{n} = {self.name(b)}; {adds}")
        self.mat = None

    def _bp_walk(self, bp, bs, checks, t, lane, rows=None):
        """Nested loops over a block of bs at block pointer bp (a C expression): lane(addr, inbounds)
        gives the statement for one element; o counts elements in row-major order. With rows
        (row(src_addr, o) -> the statement moving one contiguous row of bs[-1] elements at o), a 1-D
        or 2-D block whose last dimension has stride 1 and that lies inside every checked bound is
        moved row by row instead."""
        k = len(bs)
        if rows is not None and k in (1, 2):
            step = 1 if t.is_int1() else t.itemsize
            inside = " && ".join(f"{bp}.off[{j}] >= 0 && {bp}.off[{j}] + {bs[j]} <= {bp}.shape[{j}]" for j in checks)
            cond = f"{bp}.stride[{k - 1}] == 1" + (f" && {inside}" if inside else "")
            if k == 1:
                fast = rows(f"({bp}.base + {bp}.off[0] * {step})", "0")
            else:
                fast = (f"for (int64_t d0 = 0; d0 < {bs[0]}; d0++) {{ "
                        + rows(f"({bp}.base + (({bp}.off[0] + d0) * {bp}.stride[0] + {bp}.off[1]) * {step})",
                               f"d0 * {bs[1]}") + " }")
            self.w(f"if ({cond}) {{ {fast} }} else")
        k = len(bs)
        step = 1 if t.is_int1() else t.itemsize
        loops = " ".join(f"for (int64_t d{j} = 0; d{j} < {bs[j]}; d{j}++)" for j in range(k))
        idx = " ".join(f"int64_t i{j} = {bp}.off[{j}] + d{j};" for j in range(k))
        addr = f"({bp}.base + (" + " + ".join(f"i{j} * {bp}.stride[{j}]" for j in range(k)) + f") * {step})"
        inb = " && ".join(f"i{j} >= 0 && i{j} < {bp}.shape[{j}]" for j in checks) or "1"
        self.w(f"{{ int64_t o = 0; {loops} {{ {idx} {lane(addr, inb)} o++; }} }}")

    def _bp_load(self, op, bp, checks, padding):
        r = op.result
        t = r.dtype
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        pad = "NAN" if padding == "nan" else _lit(0, t)
        self._bp_walk(self.name(bp), tuple(r.shape), checks, t,
                      lambda a, inb: f"{n}[o] = ({inb}) ? {_load(t, a)} : {pad};", self._row_load(n, t, r.shape[-1]))
        self.mat = None

    @staticmethod
    def _row_load(n, t, w):
        step = 1 if t.is_int1() else t.itemsize
        if not (_is16(t) or t.is_int1()):
            return lambda src, o: f"memcpy({n} + {o}, {src}, {w * step});"
        return lambda src, o: (f"for (int64_t d1 = 0; d1 < {w}; d1++) {n}[{o} + d1] = "
                               f"{_load(t, f'({src} + d1 * {step})')};")

    @staticmethod
    def _row_store(vv_at, t, w):
        step = 1 if t.is_int1() else t.itemsize
        return lambda dst, o: (f"for (int64_t d1 = 0; d1 < {w}; d1++) {{ "
                               f"{_store(t, f'({dst} + d1 * {step})', vv_at(f'{o} + d1'))} }}")

    def _bp_store(self, bp, v, checks):
        t = v.dtype
        vv = self.at(v, "o") if v.shape else self.name(v)
        vn = self.name(v)
        vat = (lambda i: f"{vn}[{i}]") if v.shape else (lambda i: vn)
        self._bp_walk(self.name(bp), tuple(bp.type.block_shape), checks, t,
                      lambda a, inb: f"if ({inb}) {{ {_store(t, a, vv)} }}",
                      self._row_store(vat, t, bp.type.block_shape[-1]))

    def _checks(self, op, k):
        cs = tuple(op.attrs.get("boundary_check") or ())
        for d in cs:
            if not 0 <= d < k:
                raise Unsupported(f"boundary_check dimension {d} for a block of rank {k}", op.lineno)
        return cs

    def op_load_block(self, op):
        bp = op.operands[0]
        pad = op.attrs.get("padding") or ""
        if pad not in ("", "zero", "nan"):
            raise Unsupported(f"padding_option {pad!r}", op.lineno)
        self._bp_load(op, bp, self._checks(op, len(bp.type.block_shape)), pad)

    def op_store_block(self, op):
        bp, v = op.operands
        self._bp_store(bp, v, self._checks(op, len(bp.type.block_shape)))

    def _desc_at(self, op, desc, offs):
        """A block pointer (C name) at desc moved to offs."""
        b = f"t{self.tmp}"
        self.tmp += 1
        self.decls.append(f"cn_bp {b} = {{0}};")
        self.w(f"{b} = {self.name(desc)}; " + " ".join(f"{b}.off[{d}] = (int64_t){self.name(o)};"
                                                      for d, o in enumerate(offs)))
        return b

    def op_desc_load(self, op):
        desc = op.operands[0]
        k = len(desc.type.block_shape)
        r = op.result
        t = r.dtype
        n = self.new_name(r)
        self.refs = set()
        self.mat = r.id
        b = self._desc_at(op, desc, op.operands[1:1 + k])
        self._bp_walk(b, tuple(r.shape), range(k), t, lambda a, inb: f"{n}[o] = ({inb}) ? {_load(t, a)} : "
                                                                      f"{_lit(0, t)};",
                      self._row_load(n, t, r.shape[-1]))
        self.mat = None

    def op_desc_store(self, op):
        desc = op.operands[0]
        k = len(desc.type.block_shape)
        v = op.operands[1 + k]
        b = self._desc_at(op, desc, op.operands[1:1 + k])
        t = v.dtype
        vv = self.at(v, "o") if v.shape else self.name(v)
        vn = self.name(v)
        vat = (lambda i: f"{vn}[{i}]") if v.shape else (lambda i: vn)
        self._bp_walk(b, tuple(desc.type.block_shape), range(k), t,
                      lambda a, inb: f"if ({inb}) {{ {_store(t, a, vv)} }}",
                      self._row_store(vat, t, desc.type.block_shape[-1]))

    # ---- control flow ----
    def op_for(self, op):
        lb, ub, step = op.operands[:3]
        entry = op.operands[3:]
        body = op.regions[0]
        iv, args = body.args[0], body.args[1:]
        carried = self.storage_for(op.results)
        for c, e, res in zip(carried, entry, op.results):
            self.copy(c, e, e.shape)
        for a, c, res in zip(args, carried, op.results):
            self.names[a.id] = c
            self.alias[a.id] = res.id
        ivn = self.new_name(iv)
        lbn, ubn, stn = self.name(lb), self.name(ub), self.name(step)
        self.w(f"for ({ivn} = {lbn}; ({stn} > 0) ? ({ivn} < {ubn}) : ({ivn} > {ubn}); {ivn} += {stn}) {{")
        self.depth += 1
        self.region(body, carried)
        self.depth -= 1
        self.w("}")

    def region(self, blk, targets):
        ops = blk.ops
        if not ops or ops[-1].opcode != "yield":
            raise Unsupported("a region without a yield", self.lineno)
        saved = dict(self.all_cache)
        saved_pre = dict(self.prefix_cache)
        for o in ops[:-1]:
            self.op(o)
        self.assign_yields(targets, ops[-1].operands)
        self.all_cache = saved
        self.prefix_cache = saved_pre

    def op_if(self, op):
        c = op.operands[0]
        then_b, else_b = op.regions
        targets = self.storage_for(op.results)
        self.w(f"if ({self.name(c)}) {{")
        self.depth += 1
        self.region(then_b, targets)
        self.depth -= 1
        self.w("} else {")
        self.depth += 1
        self.region(else_b, targets)
        self.depth -= 1
        self.w("}")

    def op_while(self, op):
        cond_b, body = op.regions
        carried = self.storage_for(op.results)
        for c, e in zip(carried, op.operands):
            self.copy(c, e, e.shape)
        for a, c, res in zip(cond_b.args, carried, op.results):
            self.names[a.id] = c
            self.alias[a.id] = res.id
        for a, c, res in zip(body.args, carried, op.results):
            self.names[a.id] = c
            self.alias[a.id] = res.id
        self.w("for (;;) {")
        self.depth += 1
        saved = dict(self.all_cache)
        saved_pre = dict(self.prefix_cache)
        cops = cond_b.ops
        if not cops or cops[-1].opcode != "condition":
            raise Unsupported("a while condition region without a condition", op.lineno)
        for o in cops[:-1]:
            self.op(o)
        cond = cops[-1]
        passed = cond.operands[1:]
        if any(p.id != a.id for p, a in zip(passed, cond_b.args)):
            self.assign_yields(carried, passed)
        self.w(f"if (!{self.name(cond.operands[0])}) break;")
        self.region(body, carried)
        self.all_cache = saved
        self.prefix_cache = saved_pre
        self.depth -= 1
        self.w("}")


_BIN = ("add", "sub", "mul", "truediv", "floordiv", "mod", "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "xor",
        "lshift", "rshift")
_WRITES = ("store", "store_block", "desc_store", "print", "device_assert")
_FUSE_READERS = frozenset(_BIN + ("where", "cast", "bitcast", "neg", "maximum", "minimum", "abs", "fma", "store",
                                  "rsqrt", "erf") + tuple(_MATH))
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _binary(code, a, b, ta, tr):
    if code in _CMP:
        return f"(uint8_t)({a} {_CMP[code]} {b})"
    if ta.is_floating():
        if code == "add":
            e = f"({a} + {b})"
        elif code == "sub":
            e = f"({a} - {b})"
        elif code == "mul":
            e = f"({a} * {b})"
        elif code == "truediv":
            e = f"({a} / {b})"
        elif code == "mod":
            e = f"fmod{'' if ta.is_fp64() else 'f'}({a}, {b})"
        else:
            raise Unsupported(f"`{code}` on {ta}")
        return _round(tr, e)
    # integers (int1 included)
    if code == "truediv":  # integers divided are promoted to fp32 by the semantics layer; not reached
        raise Unsupported(f"`truediv` on {ta}")
    ct = _ct(tr)
    if ta.is_int1():
        if code in ("add", "sub", "mul", "floordiv", "mod"):
            ops = {"add": "+", "sub": "-", "mul": "*"}
            if code in ops:
                return f"(uint8_t)((unsigned)({a} {ops[code]} {b}) & 1u)"
            if code == "floordiv":
                return f"(uint8_t)({b} ? {a} : 0)"
            return "(uint8_t)0"
        return f"(uint8_t)({a} {_BITOPS[code]} {b})" if code in ("and", "or", "xor") else \
            _shift(code, a, b, ta)
    bits = ta.int_bitwidth
    u = _UTYPE[bits]
    if code in ("add", "sub", "mul"):
        op = {"add": "+", "sub": "-", "mul": "*"}[code]
        return f"({ct})(({u}){a} {op} ({u}){b})"
    if code in ("and", "or", "xor"):
        return f"({ct})({a} {_BITOPS[code]} {b})"
    if code in ("lshift", "rshift"):
        return _shift(code, a, b, ta)
    if code == "floordiv":
        if ta.is_int_signed():
            return f"({ct})({b} == 0 ? 0 : ({b} == -1 ? ({ct})(0u - ({u}){a}) : {a} / {b}))"
        return f"({ct})({b} == 0 ? 0 : {a} / {b})"
    if code == "mod":
        if ta.is_int_signed():
            return f"({ct})(({b} == 0 || {b} == -1) ? 0 : {a} % {b})"
        return f"({ct})({b} == 0 ? 0 : {a} % {b})"
    raise Unsupported(f"`{code}` on {ta}")


_BITOPS = {"and": "&", "or": "|", "xor": "^"}


def _shift(code, a, b, t):
    bits = t.primitive_bitwidth if not t.is_int1() else 8
    ct = _ct(t)
    u = _UTYPE[max(bits, 8)]
    # the shift count is taken in the value's type (numpy's left_shift/right_shift); counts outside
    # [0, bits) give 0 (or -1 for an arithmetic right shift of a negative value)
    cnt = f"({u})({ct}){b}"
    if code == "lshift":
        return f"({ct})({cnt} < {bits} ? ({u})({u}){a} << {cnt} : 0)"
    if t.is_int_signed() and not t.is_int1():
        return f"({ct})({cnt} < {bits} ? {a} >> {cnt} : ({a} < 0 ? -1 : 0))"
    return f"({ct})({cnt} < {bits} ? ({u}){a} >> {cnt} : 0)"


def _cast(x, src, dst, rounding=None):
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        if dst.is_ptr() and src.is_ptr():
            return x
        if dst.is_int1():
            return f"(uint8_t)({x} != 0)"
        if dst.name in ("int64", "uint64"):
            return f"({_ct(dst)})(uintptr_t){x}"
        if dst.is_ptr() and src.is_int():
            return f"(char *)(uintptr_t){x}"
        raise Unsupported(f"cast {src} -> {dst}")
    if dst.is_int1():
        return f"(uint8_t)({x} != 0)"
    if dst.is_floating():
        if src.is_floating():
            narrower = dst.primitive_bitwidth < src.primitive_bitwidth
            if rounding == "rtz" and narrower:
                if dst.is_fp32():
                    return f"cn_rf_rtz((double){x})"
                return f"{'cn_rh_rtz' if dst.is_fp16() else 'cn_rb_rtz'}((float){x})" if not src.is_fp64() else \
                    f"{'cn_rh_rtz' if dst.is_fp16() else 'cn_rb_rtz'}(cn_rf_rtz({x}))"
        if dst.is_fp64():
            return f"(double){x}"
        if dst.is_fp32():
            return f"(float){x}"
        return _round(dst, f"(float){x}")
    # integer destination
    ct = _ct(dst)
    if src.is_floating():
        if dst.is_int_unsigned() and dst.int_bitwidth == 64:
            return f"cn_f2u64((double){x})"
        return f"({ct})cn_f2i64((double){x})"
    return f"({ct}){x}"


def _to_bits(t, x):
    if t.is_fp16():
        return f"(uint16_t)cn_f32_to_f16({x})"
    if t.is_bf16():
        return f"(uint16_t)cn_f32_to_bf16({x})"
    if t.is_fp32():
        return f"cn_bits_f32({x})"
    if t.is_fp64():
        return f"cn_bits_f64({x})"
    return f"(uint{max(t.primitive_bitwidth, 8)}_t){x}"


def _from_bits(t, u):
    if t.is_fp16():
        return f"cn_f16_to_f32({u})"
    if t.is_bf16():
        return f"cn_bf16_to_f32({u})"
    if t.is_fp32():
        return f"cn_f32_bits({u})"
    if t.is_fp64():
        return f"cn_f64_bits({u})"
    if t.is_int1():
        return f"(uint8_t)(({u}) != 0)"
    return f"({_ct(t)}){u}"


def _load(t, p):
    if t.is_fp16():
        return f"cn_f16_to_f32(cn_ld_uint16_t({p}))"
    if t.is_bf16():
        return f"cn_bf16_to_f32(cn_ld_uint16_t({p}))"
    if t.is_int1():
        return f"(uint8_t)(cn_ld_uint8_t({p}) != 0)"
    return f"cn_ld_{_ct(t)}({p})"


def _store(t, p, v):
    if t.is_fp16():
        return f"cn_st_uint16_t({p}, cn_f32_to_f16({v}));"
    if t.is_bf16():
        return f"cn_st_uint16_t({p}, cn_f32_to_bf16({v}));"
    if t.is_int1():
        return f"cn_st_uint8_t({p}, (uint8_t)({v} != 0));"
    return f"cn_st_{_ct(t)}({p}, {v});"


def _unpack(v, slot):
    t = v.dtype
    n = f"v{v.id}"
    if t.is_ptr():
        return f"char *{n} = (char *)(uintptr_t)args[{slot}];"
    if t.is_fp32():
        return f"float {n}; {{ uint32_t b_ = (uint32_t)args[{slot}]; memcpy(&{n}, &b_, 4); }}"
    if t.is_fp64():
        return f"double {n}; {{ uint64_t b_ = args[{slot}]; memcpy(&{n}, &b_, 8); }}"
    if t.is_floating():
        raise Unsupported(f"a {t} scalar argument")
    if t.is_int1():
        return f"uint8_t {n} = (uint8_t)(args[{slot}] != 0);"
    return f"{_ct(t)} {n} = ({_ct(t)})args[{slot}];"


def _stable(v):
    """A process-independent text for constexpr values (functions by qualified name, not address)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_stable(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(_stable(x) for x in v) + ")"
    if callable(v) and hasattr(v, "__qualname__"):
        return f"{getattr(v, '__module__', '')}.{v.__qualname__}"
    fn = getattr(v, "fn", None)
    if fn is not None and hasattr(fn, "__qualname__"):
        return f"jit {fn.__module__}.{fn.__qualname__}"
    return repr(v)


def generate(func):
    """C11 source for func (an ir.Function of one specialization)."""
    return emit(func)[0]


def emit(func):
    """(C11 source, check messages) for func: a program failing a runtime check (tl.multiple_of on
    a scalar, tl.assume) makes the runner return 100 + the index of its message."""
    e = _Emitter(func)
    unpack = []
    for slot, a in enumerate(func.args):
        e.check_type(a)
        unpack.append(_unpack(a, slot))
        e.names[a.id] = f"v{a.id}"
    e.plan_views(func.body)
    e.plan_fusion(func.body)
    e.block(func.body)
    arena = max(e.arena, 64)
    head = "#define _POSIX_C_SOURCE 200809L\n#include <stdio.h>\n" if e.uses_stdio else ""
    out = [head + PRELUDE,
           *e.helpers.values(),
           "/* kernel " + (func.name + "; constexprs " + _stable(func.constexprs)).replace("*/", "* /") + " */",
           "static int cn_kernel(const uint64_t *args, int32_t pid0, int32_t pid1, int32_t pid2,",
           "                      int32_t grid0, int32_t grid1, int32_t grid2, char *arena) {",
           "    (void)pid0; (void)pid1; (void)pid2; (void)grid0; (void)grid1; (void)grid2; (void)arena;"]
    out += ["    " + u for u in unpack]
    out += ["    " + d for d in e.decls]
    out += e.live_lines()
    out.append("    return 0;")
    out.append("}")
    out.append(f"""
CN_EXPORT int cn_triton_abi(void) {{ return {ABI_VERSION}; }}

CN_EXPORT int cn_triton_run(const uint64_t *args, int64_t start, int64_t end, const int32_t *grid) {{
    char *arena = (char *)aligned_alloc(64, {(arena + 63) // 64 * 64});
    if (arena == NULL) return 1;
    int64_t g12 = (int64_t)grid[1] * grid[2];
    for (int64_t p = start; p < end; p++) {{
        int32_t x = (int32_t)(p / g12), y = (int32_t)((p / grid[2]) % grid[1]), z = (int32_t)(p % grid[2]);
        int rc = cn_kernel(args, x, y, z, grid[0], grid[1], grid[2], arena);
        if (rc != 0) {{ free(arena); return rc; }}
    }}
    free(arena);
    return 0;
}}
""")
    msgs = ", ".join(_cstr(f"kernel {func.name}: line {m}") for m in e.messages) or '""'
    out.append(f"""/* a block of cannon's kernel-launch interface (include/cannon/kernel.h: cannon_kernel_fn): the
   blob holds the grid (3 words), then the argument slots; block b of n runs programs
   [total * b / n, total * (b + 1) / n). A failing check is reported on the launching stream. */
typedef struct {{ void (*report)(void *stream_priv, int code, const char *msg); }} cn_hooks;
typedef struct {{
    uint32_t block_idx, block_dim, worker_id, num_workers;
    const cn_hooks *hooks;
    void *stream_priv;
}} cn_ctx;
static const char *const cn_messages[] = {{ {msgs} }};

CN_EXPORT int cn_triton_block(const cn_ctx *ctx, void *blob) {{
    const uint64_t *b = (const uint64_t *)blob;
    const int32_t grid[3] = {{ (int32_t)b[0], (int32_t)b[1], (int32_t)b[2] }};
    int64_t total = (int64_t)grid[0] * grid[1] * grid[2];
    int64_t s = (int64_t)((__int128)total * ctx->block_idx / ctx->block_dim);
    int64_t e = (int64_t)((__int128)total * (ctx->block_idx + 1) / ctx->block_dim);
    int rc = cn_triton_run(b + 3, s, e, grid);
    if (rc == 0) return 0;
    int code = rc == 1 ? {ACL_ERROR_BAD_ALLOC} : {ACL_ERROR_RT_FAILURE};
    const char *msg = (rc >= 100 && rc - 100 < {len(e.messages)}) ? cn_messages[rc - 100] :
                      "cannon.triton: the kernel's tile storage could not be allocated";
    if (ctx->hooks && ctx->hooks->report) ctx->hooks->report(ctx->stream_priv, code, msg);
    return code;
}}
""")
    return "\n".join(out), list(e.messages)
