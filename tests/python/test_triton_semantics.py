"""cannon.triton's semantics layer: Triton's typing rules as pure functions over dtypes and shapes
(promotion tables, scalar rules, operator result types, shapes, reduction, math and dot types)."""
import itertools

import pytest

from cannon.triton import semantics as S

INTS = [S.int8, S.int16, S.int32, S.int64, S.uint8, S.uint16, S.uint32, S.uint64]
FLOATS = [S.float16, S.bfloat16, S.float32, S.float64]
ALL = [S.int1] + INTS + FLOATS


def expected_promotion(a, b):
    """The tensor/tensor table written out independently: fp64 > fp32 > fp16 > bf16 > integers;
    integers: same sign -> wider; mixed sign -> unsigned unless the signed one is wider."""
    for f in (S.float64, S.float32, S.float16):
        if f in (a, b):
            return f
    if S.bfloat16 in (a, b):
        return S.bfloat16 if a == b else S.float32
    sa, sb = a.is_int_signed(), b.is_int_signed()
    if sa == sb:
        return a if a.int_bitwidth > b.int_bitwidth else b
    u, s = (a, b) if not sa else (b, a)
    return u if u.int_bitwidth >= s.int_bitwidth else s


@pytest.mark.parametrize("a,b", list(itertools.product(ALL, ALL)), ids=lambda d: d.name)
def test_tensor_tensor_promotion_table(a, b):
    assert S.computation_type(a, False, b, False) == expected_promotion(a, b)
    assert S.computation_type(a, False, b, False) == S.computation_type(b, False, a, False)


def test_promotion_named_cases():
    assert S.computation_type(S.float16, False, S.bfloat16, False) == S.float16
    assert S.computation_type(S.bfloat16, False, S.bfloat16, False) == S.bfloat16
    assert S.computation_type(S.bfloat16, False, S.int32, False) == S.float32
    assert S.computation_type(S.int32, False, S.uint32, False) == S.uint32
    assert S.computation_type(S.int64, False, S.uint32, False) == S.int64
    assert S.computation_type(S.int8, False, S.uint8, False) == S.uint8
    assert S.computation_type(S.int1, False, S.int1, False) == S.int1


@pytest.mark.parametrize("value,expected", [(True, S.int1), (0, S.int32), (-2**31, S.int32), (2**31 - 1, S.int32),
                                            (2**31, S.uint32), (2**32 - 1, S.uint32), (2**32, S.int64),
                                            (-2**31 - 1, S.int64), (2**63, S.uint64), (1.5, S.float32)])
def test_scalar_types_by_value(value, expected):
    assert S.scalar_dtype(value) == expected


def test_scalar_out_of_range():
    with pytest.raises(ValueError):
        S.scalar_dtype(2**64)


def test_scalar_of_lower_or_equal_kind_does_not_promote():
    # an int scalar with an int tensor: the tensor's type, even for a value that needs 64 bits
    assert S.computation_type(S.uint8, False, S.int64, True) == S.uint8
    assert S.computation_type(S.int64, True, S.int8, False) == S.int8
    # float scalar with a half tensor keeps half; int scalar with a bf16 tensor keeps bf16
    assert S.computation_type(S.float16, False, S.float32, True) == S.float16
    assert S.computation_type(S.int32, True, S.bfloat16, False) == S.bfloat16
    # a bool scalar never promotes
    assert S.computation_type(S.int1, True, S.uint16, False) == S.uint16


def test_scalar_of_higher_kind_promotes():
    assert S.computation_type(S.int8, False, S.float32, True) == S.float32
    assert S.computation_type(S.int1, False, S.int32, True) == S.int32


def test_div_and_mod_on_16_bit_floats_compute_in_fp32():
    for t in (S.float16, S.bfloat16):
        assert S.binary_types("truediv", t, False, t, False)[2] == S.float32
        assert S.binary_types("mod", t, False, t, False)[2] == S.float32
        assert S.binary_types("truediv", t, False, S.float32, True)[2] == S.float32
        assert S.binary_types("add", t, False, t, False)[2] == t


def test_truediv_of_integers_is_fp32():
    for a, b in [(S.int32, S.int32), (S.int64, S.int64), (S.uint8, S.uint8), (S.int8, S.int64)]:
        assert S.binary_types("truediv", a, False, b, False) == (S.float32, S.float32, S.float32)
    assert S.binary_types("truediv", S.float64, False, S.int32, False)[2] == S.float64


def test_mixed_signedness_division_is_an_error():
    for op in ("truediv", "floordiv", "mod"):
        with pytest.raises(TypeError, match="different signedness"):
            S.binary_types(op, S.int32, False, S.uint32, False)
    assert S.binary_types("add", S.int32, False, S.uint32, False)[2] == S.uint32


def test_floordiv_of_floats_is_an_error():
    with pytest.raises(TypeError):
        S.binary_types("floordiv", S.float32, False, S.float32, False)


@pytest.mark.parametrize("op", S.COMPARE)
def test_comparisons_give_int1(op):
    assert S.binary_types(op, S.float16, False, S.int32, False) == (S.float16, S.float16, S.int1)
    assert S.binary_types(op, S.uint8, False, S.int32, True) == (S.uint8, S.uint8, S.int1)


@pytest.mark.parametrize("op", S.BITWISE)
def test_bitwise_needs_integers(op):
    assert S.binary_types(op, S.int8, False, S.int32, False)[2] == S.int32
    assert S.binary_types(op, S.uint8, False, S.int32, True)[2] == S.uint8
    with pytest.raises(TypeError):
        S.binary_types(op, S.float32, False, S.int32, False)


def test_pointer_arithmetic_types():
    p = S.pointer_type(S.float32)
    assert S.binary_types("add", p, False, S.int32, False)[2] == p
    assert S.binary_types("add", S.int64, False, p, False)[2] == p
    assert S.binary_types("sub", p, False, S.uint32, False)[2] == p
    with pytest.raises(TypeError, match="cannot add pointers"):
        S.binary_types("add", p, False, p, False)
    with pytest.raises(TypeError):
        S.binary_types("mul", p, False, S.int32, False)
    with pytest.raises(TypeError):
        S.binary_types("add", p, False, S.float32, False)
    assert S.binary_types("eq", p, False, p, False)[2] == S.int1
    assert p == S.pointer_type(S.float32) and p != S.pointer_type(S.float16) and p != S.float32


def test_broadcasting():
    assert S.broadcast_shapes((4, 1), (1, 8)) == (4, 8)
    assert S.broadcast_shapes((8,), (4, 1)) == (4, 8)
    assert S.broadcast_shapes((), (2, 2)) == (2, 2)
    with pytest.raises(ValueError, match="incompatible dimensions at index 1"):
        S.broadcast_shapes((4, 8), (4, 16))
    assert S.broadcast_to_shape((1, 4), (8, 4)) == (8, 4)
    with pytest.raises(ValueError):
        S.broadcast_to_shape((2, 4), (8, 4))


def test_block_shapes():
    assert S.validate_block_shape([16, 32]) == (16, 32)
    with pytest.raises(ValueError, match="must be a power of 2"):
        S.validate_block_shape([16, 24])
    with pytest.raises(ValueError, match="exceeds triton maximum tensor numel"):
        S.validate_block_shape([1024, 2048])
    assert S.arange_shape(0, 64) == (64,)
    assert S.arange_shape(16, 48) == (32,)
    with pytest.raises(ValueError, match="power of 2"):
        S.arange_shape(0, 48)
    with pytest.raises(ValueError):
        S.arange_shape(8, 8)
    with pytest.raises(TypeError):
        S.arange_shape(0, 16.0)


def test_shape_functions():
    assert S.reduce_shape((4, 8), 0, False) == (8,)
    assert S.reduce_shape((4, 8), -1, True) == (4, 1)
    assert S.reduce_shape((4, 8), None, False) == ()
    assert S.reduce_shape((4, 8), None, True) == (1, 1)
    with pytest.raises(ValueError):
        S.reduce_shape((4, 8), 2, False)
    assert S.permute_shape((2, 4, 8), (2, 0, 1)) == (8, 2, 4)
    with pytest.raises(ValueError):
        S.permute_shape((2, 4), (0, 0))
    assert S.reshape_shape((4, 8), (32,)) == (32,)
    with pytest.raises(ValueError):
        S.reshape_shape((4, 8), (16,))
    assert S.split_shape((4, 2)) == (4,)
    with pytest.raises(ValueError):
        S.split_shape((4, 4))
    assert S.join_shape((4,), (4,)) == (4, 2)


@pytest.mark.parametrize("t", ALL, ids=lambda d: d.name)
def test_reduction_dtypes(t):
    s = S.sum_dtype(t)
    if t.is_int() and t.int_bitwidth < 32:
        assert s == (S.uint32 if t.is_int_unsigned() else S.int32)
    else:
        assert s == t
    assert S.sum_dtype(t, S.float64) == S.float64
    m = S.minmax_reduce_dtype(t)
    if t.primitive_bitwidth < 32:
        assert m == (S.float32 if t.is_floating() else S.int32)
    else:
        assert m == t


@pytest.mark.parametrize("fn", ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos"])
@pytest.mark.parametrize("t", ALL, ids=lambda d: d.name)
def test_math_accepts_only_fp32_fp64(fn, t):
    if t in (S.float32, S.float64):
        assert S.check_math_dtype(fn, t) == t
    else:
        with pytest.raises(ValueError, match=r"Expected dtype \['fp32', 'fp64'\] but got " + t.name):
            S.check_math_dtype(fn, t)


def test_dot_types():
    assert S.dot_types(S.float32, (16, 8), S.float32, (8, 32)) == (S.float32, (16, 32), S.float32)
    assert S.dot_types(S.bfloat16, (16, 8), S.bfloat16, (8, 32))[0] == S.float32
    assert S.dot_types(S.float16, (16, 8), S.float16, (8, 32))[0] == S.float32
    assert S.dot_types(S.float16, (16, 8), S.float16, (8, 32), out_dtype=S.float16)[0] == S.float16
    assert S.dot_types(S.int8, (16, 8), S.int8, (8, 32))[0] == S.int32
    assert S.dot_types(S.float32, (2, 16, 8), S.float32, (2, 8, 32))[1] == (2, 16, 32)
    with pytest.raises(ValueError, match="same dtype"):
        S.dot_types(S.float16, (16, 8), S.float32, (8, 32))
    with pytest.raises(ValueError, match="not compatible"):
        S.dot_types(S.float32, (16, 8), S.float32, (16, 32))
    with pytest.raises(ValueError, match="out_dtype=bfloat16"):
        S.dot_types(S.float16, (16, 8), S.float16, (8, 32), out_dtype=S.bfloat16)
    with pytest.raises(ValueError, match="accumulator"):
        S.dot_types(S.int8, (16, 8), S.int8, (8, 32), acc=S.float32, acc_shape=(16, 32))


def test_dtype_names_and_lookup():
    assert str(S.float32) == "float32" and S.float32.name == "fp32"
    assert S.dtype_from_name("bfloat16") is S.bfloat16 and S.dtype_from_name("bool") is S.int1
    assert S.dtype_of_torch("torch.float16") is S.float16
    assert S.dtype_of_torch("torch.bool") is S.int1
    with pytest.raises(TypeError, match="no Triton pointer type"):
        S.dtype_of_torch("torch.complex64")
