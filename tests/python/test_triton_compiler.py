"""cannon.triton's compiler front end: kernels type-checked into the typed tile IR with the same
semantics layer as the interpreter (the project's own kernels from the interpreter tests, result types
checked in both modes), and CompilationError naming the construct and the line for what the compiled
mode does not support."""
import inspect
import itertools

import pytest

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton import semantics as S
from cannon.triton.compiler import compile_ir

import test_triton_interpreter as K

P32 = "*fp32"


@pytest.mark.parametrize("kernel,sig,cx", [
    (K.masked_copy, {"src": P32, "dst": P32, "n": "i32"}, {"OTHER": 1.5, "USE_OTHER": True, "BLOCK": 16}),
    (K.divmod_kernel, {n: "*i32" for n in ("a", "b", "q", "r", "q2", "r2")}, {"BLOCK": 8, "C": -3}),
    (K.reduce_kernel, {"x": P32, "out_sum": P32, "out_max": P32, "out_min": P32, "out_amax": "*i32",
                       "out_amin": "*i32"}, {"AXIS": 1, "KEEP": True, "R": 8, "C": 16}),
    (K.dot_kernel, {"a": "*fp16", "b": "*fp16", "c": P32}, {"M": 16, "N": 32, "K": 64, "ACC": True}),
    (K.histogram, {"x": "*i32", "bins": "*i32", "old_out": "*i32"}, {"N": 8}),
    (K.atomics_kernel, {"p": "*i32", "cmpv": "i32", "out": "*i32"}, {}),
    (K.block_copy, {"src": P32, "dst": P32, "M": "i32", "N": "i32"}, {"BM": 4, "BN": 8, "PAD": "zero"}),
    (K.math_kernel, {"x": P32, "out": P32}, {"BLOCK": 16}),
    (K.cast_kernel, {"x": P32, "o_bf16": "*bf16", "o_fp16": "*fp16", "o_i8": "*i8", "o_bits": "*i32",
                     "o_rtz": "*bf16"}, {"BLOCK": 8}),
    (K.shapes_kernel, {"x": P32, "out": P32}, {}),
    (K.grid_kernel, {"out": "*i32", "n_iter": "i32"}, {}),
    (K.row_norm, {"X": P32, "Y": P32, "W": P32, "Mean": P32, "Rstd": P32, "stride": "i32", "N": "i32",
                  "eps": "fp32"}, {"BLOCK": 32}),
    (K.reduce_fn_kernel, {"x": P32, "out": P32, "cs": P32}, {"N": 8}),
    (K.attention_fwd, {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "L": "i32", "sm_scale": "fp32"},
     {"HEAD": 16, "BM": 16, "BN": 16}),
], ids=lambda v: getattr(v, "__name__", "") if callable(v) else "")
def test_project_kernels_type_check(kernel, sig, cx):
    f = compile_ir(kernel, sig, cx)
    text = f.dump()
    assert text.startswith(f"func @{kernel.__name__}(")
    ops = {op.opcode for op in f.ops()}
    assert ops & {"store", "store_block", "desc_store"}


def test_ir_types_follow_the_semantics():
    f = compile_ir(K.dot_kernel, {"a": "*int8", "b": "*int8", "c": "*i32"}, {"M": 16, "N": 32, "K": 64, "ACC": False})
    dots = [op for op in f.ops() if op.opcode == "dot"]
    assert len(dots) == 1 and dots[0].result.type == S.block_type(S.int32, (16, 32))
    f = compile_ir(K.sum_all, {"x": "*i8", "out": "*i32"}, {"N": 64})
    sums = [op for op in f.ops() if op.opcode == "reduce_sum"]
    assert sums[0].result.type == S.int32
    f = compile_ir(K.row_norm, {"X": "*bf16", "Y": "*bf16", "W": "*bf16", "Mean": P32, "Rstd": P32,
                                "stride": "i32", "N": "i32", "eps": "fp32"}, {"BLOCK": 32})
    loops = [op for op in f.ops() if op.opcode == "for"]
    assert len(loops) == 3 and all(op.result.type == S.block_type(S.float32, (32,)) for op in loops[:2])


@triton.jit
def promo(a, b, EXPECT: tl.constexpr, OP: tl.constexpr):
    x = tl.load(a + tl.arange(0, 4))
    y = tl.load(b + tl.arange(0, 4))
    if OP == "add":
        z = x + y
    elif OP == "mul_scalar":
        z = x * 3
    else:
        z = tl.where(x == x, x, y)
    tl.static_assert(z.dtype == EXPECT)


TYPES = [S.int8, S.uint8, S.int32, S.uint32, S.int64, S.float16, S.bfloat16, S.float32]
NP = {"int8": "int8", "uint8": "uint8", "int32": "int32", "uint32": "int64", "int64": "int64", "fp16": "float16",
      "bf16": "bfloat16", "fp32": "float32"}


@pytest.mark.parametrize("a,b", list(itertools.product(TYPES, TYPES)), ids=lambda d: d.name)
def test_interpreter_and_compiler_agree_on_types(a, b):
    import torch
    for op, expect in (("add", S.computation_type(a, False, b, False)),
                       ("mul_scalar", S.computation_type(a, False, S.int32, True)),
                       ("where", S.where_type(a, False, b, False))):
        compile_ir(promo, {"a": S.pointer_type(a), "b": S.pointer_type(b)}, {"EXPECT": expect, "OP": op})
        if a.name == "uint32" or b.name == "uint32":
            continue  # torch 1.13 has no uint32 tensor to pass to the interpreter
        ta = torch.zeros(4, dtype=getattr(torch, NP[a.name]))
        tb = torch.zeros(4, dtype=getattr(torch, NP[b.name]))
        promo[(1,)](ta, tb, EXPECT=expect, OP=op)


# ---- unsupported constructs --------------------------------------------------------------------

def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn.fn)
    for i, ln in enumerate(lines):
        if text in ln and not ln.lstrip().startswith(("def ", "@")):
            return first + i
    raise AssertionError(text)


@triton.jit
def uses_break(x, n):
    for i in range(0, n):
        if i > 3:
            break
    tl.store(x, 1.0)


@triton.jit
def uses_continue(x, n):
    for i in range(0, n):
        continue


@triton.jit
def returns_in_loop(x, n):
    for i in range(0, n):
        return


@triton.jit
def odd_block(x):
    tl.store(x + tl.arange(0, 24), 0.0)


@triton.jit
def carried_type_change(x, n):
    acc = tl.zeros([16], dtype=tl.int32)
    for i in range(0, n):
        acc = acc + 0.5
    tl.store(x + tl.arange(0, 16), acc)


@triton.jit
def if_on_block(x):
    v = tl.load(x + tl.arange(0, 4))
    if v > 0:
        tl.store(x, 1.0)


@triton.jit
def chained(x, n):
    if 0 < n < 4:
        tl.store(x, 1.0)


@triton.jit
def unknown_call(x):
    tl.store(x, sorted([1.0])[0] + tl.load(x))


@triton.jit
def branch_types(x, n):
    if n > 0:
        y = tl.load(x)
    else:
        y = 1
    tl.store(x, y)


@triton.jit
def bad_static(x, B: tl.constexpr):
    tl.static_assert(B < 4, "B must stay below 4")


@pytest.mark.parametrize("kernel,text,match", [
    (uses_break, "break", "`break` is not supported"),
    (uses_continue, "continue", "`continue` is not supported"),
    (returns_in_loop, "return", "`return` statements inside"),
    (odd_block, "tl.arange(0, 24)", "power of 2"),
    (carried_type_change, "for i in range", "Loop-carried variable acc has initial type <16xint32> but is "
                                            "re-assigned to <16xfp32>"),
    (if_on_block, "if v > 0", "`if` on a block"),
    (chained, "0 < n < 4", "chained comparison"),
    (unknown_call, "sorted", "unsupported function call: 'sorted'"),
    (branch_types, "if n > 0", "mismatched type for y"),
    (bad_static, "static_assert", "B must stay below 4"),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_unsupported_constructs_name_the_line(kernel, text, match):
    sig = {p.name: (P32 if p.name == "x" else "i32") for p in kernel.params if not p.is_constexpr}
    with pytest.raises(triton.CompilationError, match=match) as e:
        compile_ir(kernel, sig, {"B": 8})
    line = line_of(kernel, text)
    assert e.value.lineno == line, (e.value.lineno, line)
    assert f":{line}" in str(e.value) and text in str(e.value)


def test_static_if_and_static_range_fold():
    @triton.jit
    def k(x, FLAG: tl.constexpr, N: tl.constexpr):
        acc = tl.zeros([8], tl.float32)
        for i in tl.static_range(N):
            acc += i
        if FLAG:
            tl.store(x + tl.arange(0, 8), acc)

    f = compile_ir(k, {"x": P32}, {"FLAG": False, "N": 3})
    assert "store" not in {op.opcode for op in f.ops()} and "for" not in {op.opcode for op in f.ops()}
    f = compile_ir(k, {"x": P32}, {"FLAG": True, "N": 3})
    assert [op.opcode for op in f.ops()].count("add") == 3


def test_spin_lock_while_loop():
    @triton.jit
    def lock(L, X):
        while tl.atomic_cas(L, 0, 1) == 1:
            pass
        tl.store(X, tl.load(X) + 1)
        tl.atomic_xchg(L, 0)

    f = compile_ir(lock, {"L": "*i32", "X": P32}, {})
    w = [op for op in f.ops() if op.opcode == "while"]
    assert len(w) == 1 and any(op.opcode == "atomic_cas" for op in w[0].regions[0].ops)
