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


class Unparsed(Exception):
    """The example builds an input in a way this parser does not follow."""


def _num(tok):
    tok = tok.strip().rstrip("fF")
    if tok in ("true", "false"):
        return 1.0 if tok == "true" else 0.0
    return float(tok)


class Example:
    def __init__(self, code):
        main = code[code.find("int main"):] if "int main" in code else code
        self.vecs = {}
        for m in _VEC.finditer(code):
            try:
                vals = [_num(t) for t in m.group(3).split(",") if t.strip()]
            except ValueError:
                continue
            self.vecs[m.group(2)] = vals
        self.scalars = {}
        for m in _SCALAR.finditer(code):  # the last definition wins: main() comes last
            self.scalars[m.group(1)] = float(m.group(2))
        self.code = code
        self.tensors, self.addrs = {}, {}
        for m in _TENSOR.finditer(code):
            self.tensors[m.group(5)] = (m.group(1), m.group(2), m.group(4))
            self.addrs[m.group(5)] = m.group(3)
        # main's own definitions override helpers' of the same name
        for m in _SCALAR.finditer(main):
            self.scalars[m.group(1)] = float(m.group(2))

    def t(self, name):
        """Tensor @p name's host data as float64, in its shape when the shape is a literal."""
        if name not in self.tensors:
            raise Unparsed("tensor %s" % name)
        host, shape, _ = self.tensors[name]
        if host not in self.vecs:
            raise Unparsed("host data %s" % host)
        a = np.array(self.vecs[host], dtype=np.float64)
        if shape in self.vecs and int(np.prod(self.vecs[shape])) == a.size:
            a = a.reshape([int(s) for s in self.vecs[shape]])
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
    """{label: [values]} in the order the labels first appear."""
    groups = {}
    for line in text.splitlines():
        m = _PRINT.match(line.strip())
        if m:
            try:
                groups.setdefault(m.group(1).strip(), []).append(float(m.group(3)))
            except ValueError:
                groups.setdefault(m.group(1).strip(), []).append(float("nan"))
    return groups


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
}


def _close(got, exp, dtype):
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
    same_nan = np.isnan(got) & np.isnan(exp)
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
    if not groups:
        return "no values", "printed no result values"
    ref = REFS.get(op)
    if ref is None:  # a page's example shared with a sibling: check by the operator it calls last
        called = [c for c in re.findall(r"\baclnn(\w+?)GetWorkspaceSize\s*\(", code) if c in REFS]
        ref = REFS.get(called[-1]) if called else None
    if ref is None:
        return "ran", ""
    try:
        e = Example(code)
        exp = ref(e)
    except (Unparsed, KeyError, ValueError, IndexError) as err:
        return "ran", "no reference: %s" % err
    out_dtype = next((e.dtype(n) for n in ("out", "y", "gradInput", "self", "selfRef") if n in e.tensors), "FLOAT")
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
