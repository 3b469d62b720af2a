"""Value checks of CANN's documentation examples (used by run_examples.py).

An example program builds its inputs from literal host vectors
(`std::vector<float> selfHostData = {...}`), shape vectors and scalar variables, creates each
tensor with CreateAclTensor(hostData, shape, &addr, dtype, &tensor), and prints each result element
as `<label>[i] is: <value>`. `Example` parses those literals; REFS maps an operator to a function
that computes, in float64 from the parsed inputs, the values the program must print. A reference
returns one array (every printed group must equal it: an example that prints the out-of-place and
the in-place result of the same inputs prints it twice) or a {label: array} dict.

Tolerance: the programs print with %f (six decimals), so a value matches when
|printed - expected| <= 2e-6 + 1e-5 * |expected| (FLOAT); 1e-3 relative for FLOAT16/BFLOAT16
results. Integer and boolean results must be exact.
"""
import math
import re

import numpy as np

_VEC = re.compile(r"std::vector<\s*([\w:]+)\s*>\s+(\w+)\s*=\s*\{([^}]*)\}\s*;")
_SCALAR = re.compile(r"\b(?:float|double|int64_t|int32_t|int16_t|int8_t|uint8_t|int|bool)\s+(\w+)\s*=\s*"
                     r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[fF]?\s*;")
_TENSOR = re.compile(r"CreateAclTensor\(\s*(\w+)\s*,\s*(\w+)\s*,\s*&?(\w+)\s*,\s*(?:aclDataType::)?ACL_(\w+)\s*,"
                     r"\s*&?(\w+)\s*\)")
_PRINT = re.compile(r"^(.*?)\[\s*(\d+)\s*\]\s*is:\s*(\S+)")
# `index: 3: 0.5` (std::cout << "index: " << i << ": " << value)
_PRINT_INDEX = re.compile(r"^(\w+):\s*(\d+):\s*(\S+)$")
_SCALAR_EXPR = re.compile(r"\b(?:float|double|int64_t|int32_t|int)\s+(\w+)\s*=\s*([^;{}\n]+);")
_FILL = re.compile(r"std::vector<\s*([\w:]+)\s*>\s+(\w+)\s*\(([^;]*),\s*([^,;()]+)\)\s*;")
_SET = re.compile(r"^\s*(\w+)\[(\d+)\]\s*=\s*([^;]+);", re.M)
_EXPR_OK = re.compile(r"^[\d.eE+\-*/() ]*$")


def _eval(tok, scalars):
    """The value of a C literal (decimal, 0b, 0x, true/false; suffixes dropped) or of a simple
    expression of literals and known scalar names (+ - * /, parentheses, sqrt): ValueError
    otherwise. Division is real division (the shapes it serves divide exactly)."""
    tok = tok.strip()
    if tok in ("true", "false"):
        return 1.0 if tok == "true" else 0.0
    m = re.match(r"^([-+]?)0([bBxX])([0-9a-fA-F]+)$", tok)
    if m:
        v = float(int(m.group(3), 2 if m.group(2) in "bB" else 16))
        return -v if m.group(1) == "-" else v
    expr = re.sub(r"(\d)[fFlLuU]+\b", r"\1", tok)
    expr = re.sub(r"static_cast<\s*\w+\s*>", "", expr)
    for n in sorted(set(re.findall(r"[A-Za-z_]\w*", expr)) - {"sqrt", "e", "E"}, key=len, reverse=True):
        if n not in scalars:
            raise ValueError(tok)
        expr = re.sub(r"\b%s\b" % n, repr(scalars[n]), expr)
    if not _EXPR_OK.match(expr.replace("sqrt", "")) or not expr.strip():
        raise ValueError(tok)
    try:
        return float(eval(expr, {"__builtins__": {}}, {"sqrt": math.sqrt}))  # checked: arithmetic only
    except Exception:
        raise ValueError(tok)


class Unparsed(Exception):
    """The example builds an input in a way this parser does not follow."""


class Example:
    def __init__(self, code):
        main = code[code.find("int main"):] if "int main" in code else code
        self.scalars = {}
        for m in _SCALAR.finditer(code):  # the last definition wins: main() comes last
            self.scalars[m.group(1)] = float(m.group(2))
        # main's own definitions override helpers' of the same name
        for m in _SCALAR.finditer(main):
            self.scalars[m.group(1)] = float(m.group(2))
        # scalars defined by expressions of literals and earlier scalars (`double s = 1 / sqrt(d);`)
        for m in _SCALAR_EXPR.finditer(code):
            if m.group(1) not in self.scalars:
                try:
                    self.scalars[m.group(1)] = _eval(m.group(2), self.scalars)
                except ValueError:
                    pass
        self.vecs, self.ctypes = {}, {}
        for m in _VEC.finditer(code):
            try:
                vals = [_eval(t, self.scalars) for t in m.group(3).split(",") if t.strip()]
            except ValueError:
                continue
            self.vecs[m.group(2)] = vals
            self.ctypes[m.group(2)] = m.group(1)
        # host vectors filled with one value (`std::vector<uint16_t> x(n, 0b0011110000000000);`), and
        # single elements set afterwards (`x[0] = 0;`)
        self.fills = {}
        for m in _FILL.finditer(code):
            try:
                self.fills[m.group(2)] = _eval(m.group(4), self.scalars)
                self.ctypes[m.group(2)] = m.group(1)
            except ValueError:
                continue
        self.sets = {}
        for m in _SET.finditer(code):
            if m.group(1) in self.fills:
                try:
                    self.sets.setdefault(m.group(1), []).append((int(m.group(2)), _eval(m.group(3), self.scalars)))
                except ValueError:
                    continue
        self.code = code
        self.tensors, self.addrs = {}, {}
        for m in _TENSOR.finditer(code):
            self.tensors[m.group(5)] = (m.group(1), m.group(2), m.group(4))
            self.addrs[m.group(5)] = m.group(3)

    def t(self, name):
        """Tensor @p name's host data as float64, in its shape when the shape is known. Host data
        of an integer C type holding a 16-bit floating dtype (FLOAT16 / BFLOAT16 bit patterns in
        uint16_t) is decoded."""
        if name not in self.tensors:
            raise Unparsed("tensor %s" % name)
        host, shape, dtype = self.tensors[name]
        dims = [int(d) for d in self.vecs[shape]] if shape in self.vecs else None
        if host in self.vecs:
            a = np.array(self.vecs[host], dtype=np.float64)
            if dims is not None and int(np.prod(dims)) == a.size:
                a = a.reshape(dims)
        elif host in self.fills and dims is not None:
            a = np.full(dims, self.fills[host], dtype=np.float64)
            for i, v in self.sets.get(host, []):
                a.reshape(-1)[i] = v
        else:
            raise Unparsed("host data %s" % host)
        if self.ctypes.get(host) in ("uint16_t", "int16_t") and dtype in ("FLOAT16", "BF16", "BFLOAT16"):
            bits = a.astype(np.int64).astype(np.uint16)
            a = (bits.view(np.float16) if dtype == "FLOAT16" else
                 (bits.astype(np.uint32) << 16).view(np.float32)).astype(np.float64)
        return a

    def scalar(self, handle, var):
        """Scalar variable @p var, checking that aclCreateScalar(&var, dtype) creates @p handle with a
        dtype of var's own C type (a float read as a DOUBLE is undefined: no reference)."""
        m = re.search(r"\b" + handle + r"\s*=\s*aclCreateScalar\(\s*&" + var + r"\s*,\s*(?:aclDataType::)?ACL_(\w+)",
                      self.code)
        d = re.search(r"\b(\w+)\s+" + var + r"\s*=", self.code)
        if m and d and _CTYPE.get(d.group(1)) not in (None, m.group(1)):
            raise Unparsed("scalar %s is %s but created as %s" % (var, d.group(1), m.group(1)))
        return self.s(var)

    def printed_tensor(self):
        """The tensor whose device memory the program copies back (its last device-to-host copy)."""
        srcs = re.findall(r"aclrtMemcpy\([^;]*?,\s*&?(\w+)\s*,[^,;]*,\s*ACL_MEMCPY_DEVICE_TO_HOST", self.code)
        by_addr = {a: t for t, a in self.addrs.items()}
        return by_addr.get(srcs[-1]) if srcs else None

    def dtype(self, name):
        return self.tensors[name][2] if name in self.tensors else "FLOAT"

    def s(self, name):
        if name not in self.scalars:
            raise Unparsed("scalar %s" % name)
        return self.scalars[name]

    def v(self, name):
        if name not in self.vecs:
            raise Unparsed("vector %s" % name)
        return self.vecs[name]


def parse_output(text):
    """{label: [values]} in the order the labels first appear: `<label>[i] is: <value>` lines, and
    `<label>: i: <value>` ones (FusedInferAttentionScoreV2's `index: i: value`)."""
    groups = {}
    for line in text.splitlines():
        m = _PRINT.match(line.strip()) or _PRINT_INDEX.match(line.strip())
        if m:
            try:
                groups.setdefault(m.group(1).strip(), []).append(float(m.group(3)))
            except ValueError:
                groups.setdefault(m.group(1).strip(), []).append(float("nan"))
    return groups


_MAT_ROW = re.compile(r"^\s*\[?\[(.*?)\]{1,2},?\s*$")


def parse_matrix(text):
    """A matrix printed as `[[a, b, c, ..., x, y, z],` / ` [...]]` rows with ` ... ` lines between
    leading and trailing rows (WeightQuantBatchMatmulV2's PrintMat): None when there is none, else
    (values, rows, cols, decimals). rows / cols are the printed indices as (leading, trailing)
    counts: an elided row or column range is `...`; trailing counts are 0 when nothing was elided.
    decimals: the fewest digits after the point of a printed value."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("[[")), None)
    if start is None:
        return None
    rows, gap_at = [], None
    for ln in lines[start:]:
        if ln.strip() == "...":
            gap_at = len(rows)
            continue
        m = _MAT_ROW.match(ln)
        if not m:
            break
        toks = [t.strip() for t in m.group(1).split(",")]
        rows.append(toks)
        if ln.rstrip().endswith("]]"):
            break
    if not rows:
        return None
    width = {len(r) for r in rows}
    if len(width) != 1:
        return None
    toks = rows[0]
    cgap = toks.index("...") if "..." in toks else None
    values, decimals = [], 99
    for r in rows:
        for t in r:
            if t == "...":
                continue
            try:
                values.append(float(t))
            except ValueError:
                return None
            decimals = min(decimals, len(t.split(".")[1]) if "." in t else 0)
    lead_r = gap_at if gap_at is not None else len(rows)
    lead_c = cgap if cgap is not None else len(toks)
    return (values, (lead_r, len(rows) - lead_r), (lead_c, len(toks) - lead_c - (1 if cgap is not None else 0)),
            decimals)


def _printed_part(full, rows, cols):
    """The elements of 2-D @full a PrintMat-style print shows (leading and trailing rows / cols)."""
    full = np.asarray(full, dtype=np.float64)
    if full.ndim != 2:
        raise Unparsed("a %d-D reference for a matrix print" % full.ndim)
    ri = list(range(rows[0])) + list(range(full.shape[0] - rows[1], full.shape[0]))
    ci = list(range(cols[0])) + list(range(full.shape[1] - cols[1], full.shape[1]))
    if max(ri + [0]) >= full.shape[0] or max(ci + [0]) >= full.shape[1]:
        raise Unparsed("the print shows more rows or columns than the reference has")
    return full[np.ix_(ri, ci)]


def _f32(x):
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _gelu_tanh_grad(x):
    c = math.sqrt(2 / math.pi)
    u = c * (x + 0.044715 * x ** 3)
    t = np.tanh(u)
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)


def _softmax(x, d):
    e = np.exp(x - x.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def _approximate(e):
    m = re.search(r"aclnnGeluV2GetWorkspaceSize\(\s*\w+\s*,\s*(\w+)", e.code)
    if not m:
        raise Unparsed("approximate")
    return int(m.group(1)) if m.group(1).isdigit() else int(e.s(m.group(1)))


def _scatter(e, self_name, value=False):
    """torch's scatter with reduce 0 / 1 / 2 (replace, add, multiply), positions in row-major order."""
    out = e.t(self_name).copy()
    idx = e.t("index").astype(np.int64)
    dim, reduce = int(e.s("dim")), int(e.s("reduce"))
    src = _f32(e.s("Value")) if value else e.t("src")
    for p in np.ndindex(*idx.shape):
        t = list(p)
        t[dim] = idx[p]
        v = src if value else src[p]
        out[tuple(t)] = v if reduce == 0 else out[tuple(t)] + v if reduce == 1 else out[tuple(t)] * v
    return out


def _self(fn):
    return lambda e: fn(e.t("self"))


REFS = {
    "Abs": _self(np.abs),
    "Neg": _self(np.negative),
    "Sign": _self(np.sign),
    "Exp": _self(np.exp),
    "InplaceExp": _self(np.exp),
    "Log": _self(lambda x: np.log(np.where(x > 0, x, np.nan)) if np.all(x > 0) else np.log(x)),
    "Sqrt": _self(np.sqrt),
    "Sin": _self(np.sin),
    "InplaceSin": _self(np.sin),
    "Cos": _self(np.cos),
    "InplaceCos": _self(np.cos),
    "Tanh": _self(np.tanh),
    "Sigmoid": _self(lambda x: 1 / (1 + np.exp(-x))),
    "Relu": _self(lambda x: np.maximum(x, 0)),
    "InplaceRelu": _self(lambda x: np.maximum(x, 0)),
    "Silu": _self(lambda x: x / (1 + np.exp(-x))),
    "Gelu": _self(_gelu_tanh),  # CANN's page: the tanh form
    "GeluV2": lambda e: (_gelu_tanh if _approximate(e) else _gelu_erf)(e.t("x")),
    "Hardsigmoid": _self(lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "Hardswish": _self(lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "LeakyRelu": lambda e: np.where(e.t("self") > 0, e.t("self"), e.t("self") * e.s("negativeSlopeValue")),
    "Elu": lambda e: np.where(e.t("self") > 0, e.s("scaleValue") * e.t("self"),
                              e.s("scaleValue") * e.s("alphaValue") *
                              (np.exp(e.s("inputScaleValue") * e.t("self")) - 1)),
    "Softplus": lambda e: np.where(e.s("betaValue") * e.t("self") > e.s("thresholdValue"), e.t("self"),
                                   np.log1p(np.exp(e.s("betaValue") * e.t("self"))) / e.s("betaValue")),
    "Add": lambda e: e.t("self") + _f32(e.s("alphaValue")) * e.t("other"),
    "InplaceAdd": lambda e: e.t("self") + _f32(e.s("alphaValue")) * e.t("other"),
    "Sub": lambda e: e.t("self") - _f32(e.s("alphaValue")) * e.t("other"),
    "InplaceSub": lambda e: e.t("self") - _f32(e.s("alphaValue")) * e.t("other"),
    "Mul": lambda e: e.t("self") * e.t("other"),
    "InplaceMul": lambda e: e.t("self") * e.t("other"),
    "Div": lambda e: e.t("self") / e.t("other"),
    "InplaceDiv": lambda e: e.t("self") / e.t("other"),
    "Adds": lambda e: e.t("self") + _f32(e.s("alphaValue")) * _f32(e.s("otherValue")),
    "InplaceAdds": lambda e: e.t("self") + _f32(e.s("alphaValue")) * _f32(e.s("otherValue")),
    "Subs": lambda e: e.t("self") - _f32(e.s("alphaValue")) * _f32(e.s("otherValue")),
    "InplaceSubs": lambda e: e.t("self") - _f32(e.s("alphaValue")) * _f32(e.s("otherValue")),
    "Muls": lambda e: e.t("self") * _f32(e.s("otherValue")),
    "InplaceMuls": lambda e: e.t("selfRef") * _f32(e.s("otherValue")),
    "Divs": lambda e: e.t("self") / _f32(e.s("otherValue")),
    "InplaceDivs": lambda e: e.t("self") / _f32(e.s("otherValue")),
    "PowScalarTensor": lambda e: _f32(e.s("selfValue")) ** e.t("exponent"),
    "InplacePowTensorTensor": lambda e: e.t("selfRef") ** e.t("exp"),
    "Clamp": lambda e: np.clip(e.t("self"), e.s("min_v"), e.s("max_v")),
    "ClampMin": lambda e: np.maximum(e.t("self"), e.s("min_v")),
    "InplaceClampMax": lambda e: np.minimum(e.t("self"), e.s("maxValue")),
    "EqTensor": lambda e: (e.t("self") == e.t("other")).astype(np.float64),
    "GtScalar": lambda e: (e.t("self") > _f32(e.scalar("other", "otherValue"))).astype(np.float64),
    # CANN's example copies back the untouched out tensor, not selfRef: it prints out's contents
    "InplaceThreshold": lambda e: e.t("out") if e.printed_tensor() == "out" else
    np.where(e.t("self") > _f32(e.s("thresholdVal")), e.t("self"), e.s("valueVal")),
    "ThresholdBackward": lambda e: np.where(e.t("self") > _f32(e.s("thresholdValue")), e.t("gradOutput"), 0.0),
    "InplaceFillScalar": lambda e: np.full(e.t("selfRef").shape, e.s("pValue")),
    "InplaceZero": lambda e: np.zeros(e.t("selfRef").shape),
    "InplaceCopy": lambda e: np.broadcast_to(e.t("src"), e.t("selfRef").shape),
    "Cast": lambda e: _f32(e.t("self")),
    "GeluBackward": lambda e: e.t("gradOutput") * _gelu_tanh_grad(e.t("self")),
    "SiluBackward": lambda e: e.t("gradOut") * (1 / (1 + np.exp(-e.t("self")))) *
    (1 + e.t("self") * (1 - 1 / (1 + np.exp(-e.t("self"))))),
    "Softmax": lambda e: _softmax(e.t("self"), int(e.s("dim"))),
    "LogSoftmax": lambda e: np.log(_softmax(e.t("self"), int(e.s("dim")))),
    "SoftmaxBackward": lambda e: e.t("output") * (e.t("gradOutput") - (e.t("gradOutput") * e.t("output")).sum(
        axis=int(e.s("dim")), keepdims=True)),
    "LogSoftmaxBackward": lambda e: e.t("gradOutput") - np.exp(e.t("output")) * e.t("gradOutput").sum(
        axis=int(e.s("dim")), keepdims=True),
    "Cumsum": lambda e: np.cumsum(e.t("self"), axis=int(e.s("dim"))),
    "Mean": lambda e: np.trunc(e.t("self").sum(axis=tuple(int(d) for d in e.v("dimData"))) /
                               np.prod([e.t("self").shape[int(d)] for d in e.v("dimData")]))
    if e.dtype("out").startswith("INT") else e.t("self").mean(axis=tuple(int(d) for d in e.v("dimData"))),
    "Arange": lambda e: np.arange(e.s("startValue"), e.s("endValue"), e.s("stepValue")),
    "Tril": lambda e: np.tril(e.t("self"), int(e.s("diagonal"))),
    "Triu": lambda e: np.triu(e.t("self"), int(e.s("diagonal"))),
    "InplaceTriu": lambda e: np.triu(e.t("self"), int(e.s("diagonal"))),
    "Addcdiv": lambda e: e.t("self") + _f32(e.scalar("value", "scalarValue")) * (e.t("tensor1") / e.t("tensor2")),
    "InplaceAddcdiv": lambda e: e.t("self") + _f32(e.scalar("value", "scalarValue")) * (e.t("tensor1") /
                                                                                        e.t("tensor2")),
    "Ger": lambda e: np.outer(e.t("self"), e.t("vec2")),
    "LogicalNot": _self(lambda x: (x == 0).astype(np.float64)),
    "InplaceLogicalNot": _self(lambda x: (x == 0).astype(np.float64)),
    "InplaceMaskedFillScalar": lambda e: np.where(e.t("mask") != 0, _f32(e.scalar("value", "valueVal")),
                                                  e.t("selfRef")),
    "Sum": lambda e: e.t("input1") + e.t("input2"),
    "Scatter": lambda e: _scatter(e, "self"),
    "InplaceScatter": lambda e: _scatter(e, "selfRef"),
    "ScatterValue": lambda e: _scatter(e, "self", value=True),
    "InplaceScatterValue": lambda e: _scatter(e, "selfRef", value=True),
    "SwiGlu": lambda e: (lambda a, b: a / (1 + np.exp(-a)) * b)(*np.split(e.t("x"), 2, axis=int(e.s("dim")))),
    "WeightQuantBatchMatmulV2": lambda e: _wqbmm(e),
    "FusedInferAttentionScoreV2": lambda e: _fia(e),
}


def _wqbmm(e):
    """y = x @ (weight * antiquantScale) (the pages' programs pass no offset and no bias), per
    tensor, per channel or per group scales, rounded to the output's FLOAT16 (the program then
    casts it to FLOAT). A weight created from FLOAT data is FP4-packed (Ascend 950's A16MxFp4): no
    reference."""
    if e.dtype("weight") not in ("INT8",):
        raise Unparsed("weight dtype %s" % e.dtype("weight"))
    x, w, s = e.t("x"), e.t("weight"), e.t("antiquantScale")
    k = w.shape[0]
    s = s.reshape(-1, w.shape[1]) if s.size > 1 else s.reshape(1, 1)
    if s.shape[0] > 1:
        s = np.repeat(s, k // s.shape[0], axis=0)
    y = x @ (w * s)
    return y.astype(np.float16).astype(np.float64)


def _fia(e):
    """attentionOut = softmax(scaleValue * q k^T) v per (batch, head) in BNSD layout (key / value
    heads shared by numHeads / numKeyValueHeads query heads), rounded to FLOAT16. The program's
    attention mask is all zeros (nothing masked) and not passed."""
    if "BNSD" not in e.code:
        raise Unparsed("layout")
    q, k, v = e.t("queryTensor"), e.t("keyTensor"), e.t("valueTensor")
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise Unparsed("BNSD shapes")
    scale = e.s("scaleValue")
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    out = _softmax(scale * q @ np.swapaxes(k, -1, -2), -1) @ v
    return out.astype(np.float16).astype(np.float64)


def _close(got, exp, dtype, quantum=0.0):
    """Whether printed @got equals @exp within @dtype's tolerance, plus @quantum (half a unit of
    the last printed digit, for programs that print fewer digits than %f)."""
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64).reshape(-1)
    if got.size != exp.size:
        if exp.size and got.size % exp.size == 0:
            exp = np.tile(exp, got.size // exp.size)
        else:
            return False, "printed %d values, expected %d" % (got.size, exp.size)
    if dtype in ("FLOAT16", "BF16", "BFLOAT16"):
        tol = 1e-3 * np.abs(exp) + 1e-3
    elif dtype.startswith("INT") or dtype.startswith("UINT") or dtype == "BOOL":
        tol = np.zeros_like(exp)
    else:
        tol = 2e-6 + 1e-5 * np.abs(exp)
    tol = tol + quantum
    same_nan = np.isnan(got) & np.isnan(exp)
    with np.errstate(invalid="ignore"):  # inf - inf
        bad = ~(same_nan | (np.abs(got - exp) <= tol) | ((got == exp) & np.isinf(exp)))
    if np.any(bad):
        i = int(np.argmax(bad))
        return False, "element %d: printed %g, expected %.7g" % (i, got[i], exp[i])
    return True, ""


_NP = {"FLOAT": np.float32, "DOUBLE": np.float64, "INT64": np.int64, "INT32": np.int32, "INT16": np.int16,
       "INT8": np.int8, "UINT8": np.uint8, "BOOL": np.bool_, "FLOAT16": np.float16}
_CTYPE = {"float": "FLOAT", "double": "DOUBLE", "int64_t": "INT64", "int32_t": "INT32", "int": "INT32",
          "int16_t": "INT16", "int8_t": "INT8", "uint8_t": "UINT8", "bool": "BOOL", "char": "INT8"}


def _as_printed(code, label, want, out_dtype):
    """The values the program prints for @p want (out's values in @p out_dtype): a program that
    copies out's bytes into a host vector of another element type prints those bytes read as that
    type (CANN's aclnnMean example reads an INT64 result into a std::vector<float>)."""
    m = re.search(r'LOG_PRINT\("' + re.escape(label) + r'\s*\[%ld\] is: %\w+\\n",\s*\w+,\s*(\w+)\[', code)
    d = m and re.search(r"std::vector<\s*(\w+)\s*>\s+" + m.group(1) + r"\s*\(", code)
    host = _CTYPE.get(d.group(1)) if d else None
    if host is None or host == out_dtype or out_dtype not in _NP:
        return want, out_dtype
    w = np.asarray(want, dtype=np.float64).reshape(-1)
    raw = w.astype(_NP[out_dtype]).tobytes()
    n = min(len(raw) // np.dtype(_NP[host]).itemsize, w.size)  # the program prints out's element count
    return np.frombuffer(raw[:n * np.dtype(_NP[host]).itemsize], dtype=_NP[host]).astype(np.float64), host


def check(op, code, output):
    """("match" | "MISMATCH" | "ran" | "no values", detail) for an example that ran with status 0."""
    groups = parse_output(output)
    mat = None if groups else parse_matrix(output)
    if not groups and not mat:
        return "no values", "printed no result values"
    ref = REFS.get(op)
    if ref is None:  # a page's example shared with a sibling: check by the operator it calls last
        called = [c for c in re.findall(r"\baclnn(\w+?)GetWorkspaceSize\s*\(", code) if c in REFS]
        ref = REFS.get(called[-1]) if called else None
    if ref is None:
        return "ran", ""
    try:
        e = Example(code)
        with np.errstate(all="ignore"):  # references of inputs like log(0) give inf / NaN, as printed
            exp = ref(e)
        if mat:
            exp = _printed_part(exp, mat[1], mat[2])
    except (Unparsed, KeyError, ValueError, IndexError) as err:
        return "ran", "no reference: %s" % err
    out_dtype = next((e.dtype(n) for n in ("out", "y", "gradInput", "self", "selfRef", "outTensor") if n in e.tensors),
                     "FLOAT")
    if mat:
        ok, why = _close(mat[0], exp, out_dtype, 0.5 * 10.0 ** -mat[3])
        return ("match", "") if ok else ("MISMATCH", "matrix: %s" % why)
    if isinstance(exp, dict):
        items = [(lab, exp[lab]) for lab in groups if lab in exp]
    else:
        items = [(lab, exp) for lab in groups]
    for lab, want in items:
        want, shown = _as_printed(code, lab, want, out_dtype)
        ok, why = _close(groups[lab], want, shown)
        if not ok:
            return "MISMATCH", "%s: %s" % (lab, why)
    return "match", ""
