"""Golden tests of aclnnSoftmaxCrossEntropyWithLogits: loss and backprop against float64 numpy and
torch (cross_entropy with probability targets), every ISA tier, every dtype the page lists (FLOAT,
FLOAT16, BFLOAT16), soft and one-hot labels, large logits, -inf logits, strided views, empty
tensors, determinism across worker counts, and the error paths.

Accuracy asserted: computed in fp64 and rounded once, so fp32 results are within 2^-22 relative
(plus 2^-40 of the row's scale for cancelling sums), fp16 / bf16 within one ulp of the type."""
import numpy as np
import pytest

import golden
from golden import PARAM_INVALID, PARAM_NULLPTR, call, phase1_status as status

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float16", "bfloat16"]
REL = {"float32": 2.0 ** -22, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
TINY = {"float32": 2.0 ** -40, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -126}


def reference(x, y):
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    loss = (y * (lse - x)).sum(axis=1)
    return loss, np.exp(x - lse) - y


def check(got, want, dt, scale=1.0):
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    bad = ~same & ~(np.abs(got - want) <= REL[dt] * np.abs(want) + TINY[dt] * scale)
    assert not bad.any(), f"{bad.sum()} of {bad.size} off: {got[bad][:4]} vs {want[bad][:4]}"


def labels(rng, B, C, onehot):
    if onehot:
        y = np.zeros((B, C))
        y[np.arange(B), rng.integers(0, C, B)] = 1.0
        return y
    y = rng.uniform(0, 1, (B, C))
    return y / y.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("B,C", [(16, 4), (5, 1000), (3, 1), (40, 37)])
@pytest.mark.parametrize("onehot", [False, True])
def test_sce(dt, B, C, onehot, isa):
    rng = np.random.default_rng(1)
    x = golden.rounded(rng.normal(0, 3, (B, C)), dt)
    y = golden.rounded(labels(rng, B, C, onehot), dt)
    loss, bp = golden.empty((B,), dt, fill=np.nan), golden.empty((B, C), dt, fill=np.nan)
    call("aclnnSoftmaxCrossEntropyWithLogits", golden.array(x, dt), golden.array(y, dt), loss, bp)
    wl, wb = reference(x, y)
    check(golden.read_float(loss), wl, dt, scale=np.abs(x).max())
    check(golden.read_float(bp), wb, dt)


def test_against_torch(isa):
    rng = np.random.default_rng(2)
    x = golden.rounded(rng.normal(0, 2, (8, 50)), "float32")
    y = golden.rounded(labels(rng, 8, 50, False), "float32")
    loss, bp = golden.empty((8,), "float32"), golden.empty((8, 50), "float32")
    call("aclnnSoftmaxCrossEntropyWithLogits", golden.array(x, "float32"), golden.array(y, "float32"), loss, bp)
    tx = torch.from_numpy(x).requires_grad_(True)
    tl = torch.nn.functional.cross_entropy(tx, torch.from_numpy(y), reduction="none")
    tl.sum().backward()
    assert np.allclose(golden.read_float(loss), tl.detach().numpy(), rtol=1e-6, atol=1e-6)
    assert np.allclose(golden.read_float(bp), tx.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_large_and_infinite_logits():
    x = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 2.0, -np.inf], [88.0, 88.5, 87.0]])
    y = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.25, 0.5, 0.25]])
    loss, bp = golden.empty((3,), "float32"), golden.empty((3, 3), "float32")
    call("aclnnSoftmaxCrossEntropyWithLogits", golden.array(x, "float32"), golden.array(y, "float32"), loss, bp)
    got = golden.read_float(loss)
    assert got[0] == 0.0
    assert np.isnan(got[1])  # 0 * inf from the -inf logits with label 0, as torch's formula
    wl, wb = reference(x[2:], y[2:])
    check(got[2:], wl, "float32")
    b = golden.read_float(bp)
    assert np.array_equal(b[0], [0.0, 0.0, 0.0]) and np.array_equal(b[1], [0.0, 0.0, 0.0])
    check(b[2:], wb, "float32")


@pytest.mark.parametrize("dt", DTYPES)
def test_strided(dt, isa):
    rng = np.random.default_rng(3)
    x = golden.rounded(rng.normal(0, 2, (6, 9)), dt)
    y = golden.rounded(labels(rng, 6, 9, False), dt)
    loss = golden.empty((6,), dt, layout="strided", fill=7.0)
    bp = golden.empty((6, 9), dt, layout="padded", fill=7.0)
    call("aclnnSoftmaxCrossEntropyWithLogits", golden.array(x, dt, layout="transposed"),
         golden.array(y, dt, layout="offset"), loss, bp)
    wl, wb = reference(x, y)
    check(golden.read_float(loss), wl, dt, scale=np.abs(x).max())
    check(golden.read_float(bp), wb, dt)


def test_empty():
    z = golden.array(np.zeros((0, 5), np.float32))
    assert call("aclnnSoftmaxCrossEntropyWithLogits", z, z, golden.empty((0,), "float32"),
                golden.empty((0, 5), "float32")) == 0


def test_errors():
    x = golden.array(np.ones((4, 5), np.float32))
    loss, bp = golden.empty((4,), "float32"), golden.empty((4, 5), "float32")
    name = "aclnnSoftmaxCrossEntropyWithLogits"
    assert status(name, None, x, loss, bp) == PARAM_NULLPTR
    assert status(name, x, None, loss, bp) == PARAM_NULLPTR
    assert status(name, x, x, None, bp) == PARAM_NULLPTR
    assert status(name, x, x, loss, None) == PARAM_NULLPTR
    assert "backprop" in golden.recent_error()
    x16 = golden.array(np.ones((4, 5), np.float16))
    assert status(name, x, x16, loss, bp) == PARAM_INVALID
    assert "labels" in golden.recent_error()
    x64 = golden.array(np.ones((4, 5)), "float64")
    assert status(name, x64, x64, golden.empty((4,), "float64"), golden.empty((4, 5), "float64")) == PARAM_INVALID
    assert status(name, x, x, golden.empty((5,), "float32"), bp) == PARAM_INVALID
    assert "loss" in golden.recent_error()
    x3 = golden.array(np.ones((2, 2, 5), np.float32))
    assert status(name, x3, x3, golden.empty((2,), "float32"), golden.empty((2, 2, 5), "float32")) == PARAM_INVALID
    assert "2-D" in golden.recent_error()
    assert status(name, x, x, loss, golden.empty((4, 4), "float32")) == PARAM_INVALID


DET_SCRIPT = r"""
import hashlib
import numpy as np
import golden
h = hashlib.sha256()
rng = np.random.default_rng(5)
x = golden.array(rng.normal(0, 2, (300, 700)), "float32")
y = golden.array(rng.uniform(0, 1, (300, 700)), "float32")
l, b = golden.empty((300,), "float32"), golden.empty((300, 700), "float32")
golden.call("aclnnSoftmaxCrossEntropyWithLogits", x, y, l, b)
h.update(golden.read(l).tobytes())
h.update(golden.read(b).tobytes())
print(h.hexdigest())
"""


def test_deterministic_across_threads():
    digests = set(golden.outputs_per_thread_count(DET_SCRIPT, ("1", "3"), 300))
    assert len(digests) == 1, digests
