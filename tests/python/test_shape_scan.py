"""Golden tests of aclnnCumsum, aclnnArgMax and aclnnArgsort against torch 1.13's CPU kernels.

Pass criteria: bit-exact with torch: Cumsum accumulates as torch's CPU kernel (FLOAT in double,
FLOAT16 / BFLOAT16 in float, integers in int64) after converting self to dtype; ArgMax returns the
first maximal index, the first NaN when there is one; Argsort equals torch's stable sort in both
directions (NaN above +inf, -0 equal to +0). Strided / transposed / offset views, every dim,
ranks 0 to 8, empty tensors; determinism across thread counts; error paths 161001 / 161002.
"""
import numpy as np
import pytest
import torch

import cannon
import golden
import shape_helpers as sh

NULL, INVALID = golden.PARAM_NULLPTR, golden.PARAM_INVALID
CUMSUM_DTS = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8"]
ARGMAX_DTS = CUMSUM_DTS
ARGSORT_DTS = ["bfloat16", "float16", "float32", "int8", "int16", "int32", "int64", "uint8"]


def cumsum_ref(x, dim, odt):
    """torch's CPU cumsum of x converted to @odt, as storage of @odt: FLOAT accumulates in double,
    FLOAT16 / BFLOAT16 in float (torch 1.13 has no CPU cumsum for Half: numpy's sequential float32
    accumulate stands in), integers in int64."""
    xt = x.to(golden.torch_dtype(odt))
    if odt in ("float16", "bfloat16"):
        v = xt.float().numpy()
        zero = np.zeros_like(np.take(v, [0], axis=dim))  # the sum starts at +0 (-0 + 0 is +0)
        acc = np.delete(np.cumsum(np.concatenate([zero, v], axis=dim), axis=dim, dtype=np.float32), 0, axis=dim)
        return golden.storage_of(acc, odt) if odt == "float16" else cannon.float_to_bf16(acc)
    return golden.to_storage(torch.cumsum(xt, dim), odt)


def values(shape, dt, rng, specials=True):
    """torch tensor of @dt: normal values (integers in their range), with NaN, +-inf, +-0 and ties
    sprinkled into floating ones."""
    d = golden.dtype(dt)
    if d.np.kind in "iu" and d is not cannon.bfloat16:
        info = np.iinfo(d.np)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return torch.from_numpy(rng.integers(lo, hi, size=shape).astype(d.np))
    v = np.round(rng.standard_normal(shape) * 8, 1)
    if specials and v.size > 8:
        flat = v.reshape(-1)
        pos = rng.choice(v.size, size=min(8, v.size), replace=False)
        flat[pos] = [np.nan, np.inf, -np.inf, 0.0, -0.0, np.nan, 1.5, 1.5][:len(pos)]
    return torch.from_numpy(v).to(golden.torch_dtype(dt))


@pytest.mark.parametrize("dt", CUMSUM_DTS)
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_cumsum(dt, layout, out_layout):
    rng = np.random.default_rng(1)
    x = values((3, 40, 5), dt, rng, specials=False)
    for dim in (0, 1, -1):
        for odt in ([dt] + (["float32", "float64"] if dt != "float64" else [])):
            if not torch.can_cast(golden.torch_dtype(dt), golden.torch_dtype(odt)):
                continue
            ref = cumsum_ref(x, dim, odt)
            out = golden.empty(x.shape, odt, layout=out_layout, fill=sh.fill_value(odt))
            golden.call("aclnnCumsum", golden.upload(x, dt, layout), dim, odt, out)
            assert sh.same_bits(golden.read(out), ref), (dim, odt)
            sh.check_gaps(out, odt)


def test_cumsum_shapes():
    rng = np.random.default_rng(2)
    x = values((2, 1, 3, 2, 1, 2, 3, 2), "float32", rng)
    out = golden.empty(x.shape, "float32")
    golden.call("aclnnCumsum", golden.upload(x, "float32"), 6, "float32", out)
    assert sh.same_bits(golden.read(out), torch.cumsum(x, 6).numpy())
    long = values((3, 100000), "float16", rng, specials=False)
    out = golden.empty(long.shape, "float16")
    golden.call("aclnnCumsum", golden.upload(long, "float16"), 1, "float16", out)
    assert sh.same_bits(golden.read(out), cumsum_ref(long, 1, "float16"))
    s = golden.array(np.array(2.5, np.float32))
    out = golden.empty((), "float32")
    golden.call("aclnnCumsum", s, 0, "float32", out)
    assert golden.read(out) == 2.5
    golden.call("aclnnCumsum", golden.array(np.zeros((0, 3), np.float32)), 0, "float32", golden.empty((0, 3),
                                                                                                       "float32"))


def test_cumsum_deterministic():
    script = """
import hashlib, numpy as np, golden
rng = np.random.default_rng(3)
x = rng.standard_normal((64, 3000)).astype(np.float32)
out = golden.empty(x.shape, "float32")
golden.call("aclnnCumsum", golden.array(x), 1, "float32", out)
print(hashlib.sha256(golden.read(out).tobytes()).hexdigest())
"""
    assert len(set(golden.outputs_per_thread_count(script, [1, 2, 8], timeout=120))) == 1


def test_cumsum_errors():
    x = golden.array(np.zeros((3, 4), np.float32))
    o = golden.empty((3, 4), "float32")
    assert golden.phase1_status("aclnnCumsum", None, 0, "float32", o) == NULL
    assert golden.phase1_status("aclnnCumsum", x, 0, "float32", None) == NULL
    assert golden.phase1_status("aclnnCumsum", x, 0, "float16", o) == INVALID
    assert "dtype" in golden.recent_error()
    assert golden.phase1_status("aclnnCumsum", x, 0, "int32", golden.empty((3, 4), "int32")) == INVALID
    assert "cast" in golden.recent_error()
    assert golden.phase1_status("aclnnCumsum", x, 2, "float32", o) == INVALID
    assert golden.phase1_status("aclnnCumsum", x, 0, "float32", golden.empty((4, 3), "float32")) == INVALID
    b = golden.array(np.zeros((3, 4), np.bool_))
    assert golden.phase1_status("aclnnCumsum", b, 0, "int64", golden.empty((3, 4), "int64")) == INVALID


@pytest.mark.parametrize("dt", ARGMAX_DTS)
@pytest.mark.parametrize("odt", ["int64", "int32"])
@pytest.mark.parametrize("layout", ["contig", "transposed", "offset"])
def test_argmax(dt, odt, layout):
    rng = np.random.default_rng(4)
    x = values((4, 30, 6), dt, rng)
    for dim in (0, 1, -1):
        for keep in (False, True):
            ref = torch.argmax(x, dim, keepdim=keep)
            out = golden.empty(tuple(ref.shape), odt, layout="strided", fill=sh.fill_value(odt))
            golden.call("aclnnArgMax", golden.upload(x, dt, layout), dim, keep, out)
            assert np.array_equal(golden.read(out), ref.numpy()), (dim, keep)
            sh.check_gaps(out, odt)


def test_argmax_cases():
    x = torch.tensor([[1.0, 3.0, 3.0, float("nan"), 5.0, float("nan")], [-1.0, -1.0, -2.0, -3.0, -1.0, -9.0]])
    out = golden.empty((2,), "int64")
    golden.call("aclnnArgMax", golden.upload(x, "float32"), 1, False, out)
    assert list(golden.read(out)) == [3, 0]
    s = golden.array(np.array(2.0, np.float32))
    out = golden.empty((), "int64")
    golden.call("aclnnArgMax", s, 0, False, out)
    assert golden.read(out) == 0
    big = values((2, 1, 3, 2, 1, 2, 3, 2), "bfloat16", np.random.default_rng(5))
    ref = torch.argmax(big, 3)
    out = golden.empty(tuple(ref.shape), "int64")
    golden.call("aclnnArgMax", golden.upload(big, "bfloat16"), 3, False, out)
    assert np.array_equal(golden.read(out), ref.numpy())


def test_argmax_errors():
    x = golden.array(np.zeros((3, 4), np.float32))
    assert golden.phase1_status("aclnnArgMax", None, 0, False, golden.empty((4,), "int64")) == NULL
    assert golden.phase1_status("aclnnArgMax", x, 0, False, None) == NULL
    assert golden.phase1_status("aclnnArgMax", x, 0, False, golden.empty((4,), "float32")) == INVALID
    assert golden.phase1_status("aclnnArgMax", x, 0, False, golden.empty((3,), "int64")) == INVALID
    assert golden.phase1_status("aclnnArgMax", x, 0, True, golden.empty((4,), "int64")) == INVALID
    assert golden.phase1_status("aclnnArgMax", x, 2, False, golden.empty((4,), "int64")) == INVALID
    e = golden.array(np.zeros((0, 4), np.float32))
    assert golden.phase1_status("aclnnArgMax", e, 0, False, golden.empty((4,), "int64")) == INVALID
    assert golden.phase1_status("aclnnArgMax", golden.array(np.zeros((3, 4), np.bool_)), 0, False,
                                golden.empty((4,), "int64")) == INVALID


@pytest.mark.parametrize("dt", ARGSORT_DTS)
@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("layout,out_layout", [("contig", "contig"), ("transposed", "padded"), ("offset", "strided")])
def test_argsort(dt, desc, layout, out_layout):
    rng = np.random.default_rng(6)
    x = values((3, 37, 4), dt, rng)
    if dt == "float32":
        x = torch.cat([x, x[:, :5]], 1)  # ties
    for dim in (0, 1, -1):
        ref = torch.sort(x, stable=True, dim=dim, descending=desc).indices
        out = golden.empty(tuple(x.shape), "int64", layout=out_layout, fill=sh.fill_value("int64"))
        golden.call("aclnnArgsort", golden.upload(x, dt, layout), dim, desc, out)
        assert np.array_equal(golden.read(out), ref.numpy()), dim
        sh.check_gaps(out, "int64")


@pytest.mark.parametrize("dt", ["uint16", "uint32", "uint64"])
def test_argsort_unsigned(dt):
    rng = np.random.default_rng(7)
    info = np.iinfo(golden.dtype(dt).np)
    x = rng.integers(0, info.max, size=(5, 50), dtype=golden.dtype(dt).np, endpoint=True)
    x[:, :3] = x[:, 3:6]
    out = golden.empty(x.shape, "int64")
    golden.call("aclnnArgsort", golden.array(x), 1, False, out)
    assert np.array_equal(golden.read(out), np.argsort(x, 1, kind="stable"))
    golden.call("aclnnArgsort", golden.array(x), 1, True, out)
    ref = [sorted(range(x.shape[1]), key=lambda i, r=r: -int(x[r, i])) for r in range(x.shape[0])]  # stable
    assert np.array_equal(golden.read(out), np.array(ref, np.int64))


def test_argsort_shapes():
    s = golden.array(np.array(2.0, np.float32))
    out = golden.empty((), "int64")
    golden.call("aclnnArgsort", s, 0, False, out)
    assert golden.read(out) == 0
    golden.call("aclnnArgsort", golden.array(np.zeros((0, 3), np.float32)), 1, False, golden.empty((0, 3), "int64"))
    x = values((2, 1, 3, 2, 1, 2, 3, 2), "float16", np.random.default_rng(8))
    out = golden.empty(tuple(x.shape), "int64")
    golden.call("aclnnArgsort", golden.upload(x, "float16"), 5, True, out)
    assert np.array_equal(golden.read(out), torch.sort(x, stable=True, dim=5, descending=True).indices.numpy())


def test_argsort_errors():
    x = golden.array(np.zeros((3, 4), np.float32))
    assert golden.phase1_status("aclnnArgsort", None, 0, False, golden.empty((3, 4), "int64")) == NULL
    assert golden.phase1_status("aclnnArgsort", x, 0, False, None) == NULL
    assert golden.phase1_status("aclnnArgsort", x, 0, False, golden.empty((3, 4), "int32")) == INVALID
    assert golden.phase1_status("aclnnArgsort", x, 0, False, golden.empty((4, 3), "int64")) == INVALID
    assert golden.phase1_status("aclnnArgsort", x, 3, False, golden.empty((3, 4), "int64")) == INVALID
    d = golden.array(np.zeros((3, 4), np.float64))
    assert golden.phase1_status("aclnnArgsort", d, 0, False, golden.empty((3, 4), "int64")) == INVALID
