"""Golden tests of aclnnTriangularSolve against torch.triangular_solve in float64.

cannon substitutes in double and rounds once, so FLOAT results are asserted within 2^-22 relative
(4 ulp; the reference is the float64 solve of the same fp32 inputs, and A is kept well conditioned
with a dominant diagonal) plus 1e-30, DOUBLE results within 1e-12 relative. mOut is torch's
second result (a copy of the broadcast A) bit for bit. A zero diagonal gives the same inf / NaN
pattern as torch. Every ISA tier; upper / lower, transpose, unitriangular; broadcast batches;
transposed, strided and offset views; empty shapes; errors.
"""
import itertools

import numpy as np
import pytest
import torch

import golden
from golden import torch_dtype

API = "aclnnTriangularSolve"


def make_a(gen, shape):
    a = torch.randn(shape, generator=gen, dtype=torch.float64) * 0.3
    m = shape[-1]
    d = torch.diagonal(a, dim1=-2, dim2=-1)
    d.copy_((1.5 + torch.rand(d.shape, generator=gen, dtype=torch.float64)) * torch.sign(d + 1e-9))
    return a


def solve(b, a, upper, transpose, unit, dt, lb="contig", la="contig", lx=None, lm=None):
    bt = b.to(torch_dtype(dt))
    at = a.to(torch_dtype(dt))
    bshape = torch.broadcast_shapes(bt.shape[:-2], at.shape[:-2])
    xshape = list(bshape) + [b.shape[-2], b.shape[-1]]
    mshape = list(bshape) + [a.shape[-1], a.shape[-1]]
    X = golden.empty(xshape, dt, layout=lx)
    M = golden.empty(mshape, dt, layout=lm)
    golden.call(API, golden.upload(bt, dt, lb), golden.upload(at, dt, la), upper, transpose, unit, X, M)
    ref = torch.triangular_solve(bt.double(), at.double(), upper=upper, transpose=transpose, unitriangular=unit)
    return golden.download(X, dt).double(), golden.download(M, dt).double(), ref[0], ref[1]


def check(x, ref, dt, what):
    rtol = 2.0 ** -22 if dt == "float32" else 1e-12
    err = (x - ref).abs()
    assert bool((err <= rtol * ref.abs() + 1e-30 + rtol * 1e-3).all()), f"{what}: worst {err.max().item():.3g}"


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_flags_and_layouts(isa, dt):
    gen = torch.Generator().manual_seed(0)
    for (m, k), (upper, transpose, unit) in itertools.product(((5, 3), (17, 70), (1, 1), (64, 130)),
                                                             itertools.product((True, False), repeat=3)):
        if unit and dt == "float64":
            continue
        a = make_a(gen, (m, m))
        b = torch.randn(m, k, generator=gen, dtype=torch.float64)
        for lb, la, lx, lm in (("contig", "contig", None, None), ("transposed", "transposed", "strided", "offset"),
                               ("offset", "strided", "transposed", None)):
            x, mo, rx, rm = solve(b, a, upper, transpose, unit, dt, lb, la, lx, lm)
            what = f"{dt} {m}x{k} upper={upper} transpose={transpose} unit={unit} {lb} {la} {lx} {lm}"
            check(x, rx, dt, what)
            assert torch.equal(mo, rm), what


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_broadcast_batches(isa, dt):
    gen = torch.Generator().manual_seed(1)
    for bs, as_ in (((2, 3, 6, 4), (6, 6)), ((6, 4), (3, 6, 6)), ((2, 1, 6, 4), (1, 3, 6, 6)),
                    ((4, 1, 2, 5, 2), (3, 1, 5, 5))):
        a = make_a(gen, as_)
        b = torch.randn(bs, generator=gen, dtype=torch.float64)
        for upper in (True, False):
            x, mo, rx, rm = solve(b, a, upper, False, False, dt, "strided", "transposed")
            check(x, rx, dt, f"{dt} {bs} {as_} upper={upper}")
            assert torch.equal(mo, rm)


def test_singular_matches_torch(isa):
    """A zero on the diagonal: IEEE division, as torch's solve (inf where it divides by zero, then
    whatever the substitution makes of it); no error, no trap."""
    a = torch.tensor([[1.0, 2, 3], [4, 0, 6], [7, 8, 10]], dtype=torch.float64)
    b = torch.ones(3, 2, dtype=torch.float64)
    for upper in (True, False):
        x, _, rx, _ = solve(b, a, upper, False, False, "float32")
        assert torch.equal(torch.isinf(x), torch.isinf(rx)) and torch.equal(torch.isnan(x), torch.isnan(rx))
        fin = torch.isfinite(rx)
        assert torch.allclose(x[fin], rx[fin], rtol=1e-6)
        assert torch.equal(torch.sign(x[~torch.isnan(x)]), torch.sign(rx[~torch.isnan(rx)]))


def test_empty():
    # k = 0: nothing to solve, mOut is still the copy of A
    a = make_a(torch.Generator().manual_seed(2), (3, 3))
    x, mo, rx, rm = solve(torch.zeros(3, 0, dtype=torch.float64), a, True, False, False, "float32")
    assert x.shape == (3, 0) and torch.equal(mo, rm)
    for bs, as_ in (((0, 0), (0, 0)), ((0, 3, 2), (3, 3)), ((2, 0, 4), (2, 0, 0))):
        X = golden.empty(list(torch.broadcast_shapes(bs[:-2], as_[:-2])) + [bs[-2], bs[-1]], "float32")
        M = golden.empty(list(torch.broadcast_shapes(bs[:-2], as_[:-2])) + [as_[-1], as_[-1]], "float32")
        golden.call(API, golden.empty(list(bs), "float32"), golden.empty(list(as_), "float32"), True, False, False,
                    X, M)


def test_example_of_the_documentation():
    """CANN's calling example: upper A [[1,2,3],[0,4,5],[0,0,6]], b = [1,2,3]^T."""
    a = golden.array(np.array([[1.0, 2, 3], [0, 4, 5], [0, 0, 6]]), "float32")
    b = golden.array(np.array([[1.0], [2], [3]]), "float32")
    X, M = golden.empty([3, 1], "float32"), golden.empty([3, 3], "float32")
    golden.call(API, b, a, True, False, False, X, M)
    assert np.allclose(golden.read(X)[:, 0], [-0.25, -0.125, 0.5], rtol=1e-7)


def test_errors():
    f = lambda s, dt="float32": golden.empty(list(s), dt)
    args = lambda b=None, a=None, x=None, m=None: (f((3, 2)) if b is None else b, f((3, 3)) if a is None else a,
                                                   True, False, False, f((3, 2)) if x is None else x,
                                                   f((3, 3)) if m is None else m)
    assert golden.status(API, *args()) == 0
    b, a, u, t, un, x, m = args()
    assert golden.status(API, None, a, u, t, un, x, m) == 161001
    assert golden.status(API, b, None, u, t, un, x, m) == 161001
    assert golden.status(API, b, a, u, t, un, None, m) == 161001
    assert golden.status(API, b, a, u, t, un, x, None) == 161001

    def err(*args):
        with pytest.raises(golden.AclError) as ei:
            golden.call(API, *args)
        assert ei.value.code == 161002
        return ei.value.message

    assert "self dtype FLOAT16 is not supported" in err(*args(b=f((3, 2), "float16")))
    assert "A dtype DOUBLE differs" in err(*args(a=f((3, 3), "float64")))
    assert "unitriangular needs FLOAT" in err(f((3, 2), "float64"), f((3, 3), "float64"), True, False, True,
                                              f((3, 2), "float64"), f((3, 3), "float64"))
    assert "self must have 2 to 8 dims" in err(*args(b=f((3,))))
    assert "A's last two dims must be equal" in err(*args(a=f((3, 4))))
    assert "self's rows (4)" in err(*args(b=f((4, 2))))
    assert "cannot broadcast" in err(*args(b=f((2, 3, 2)), a=f((3, 3, 3)), x=f((2, 3, 2)), m=f((2, 3, 3))))
    assert "xOut" in err(*args(x=f((3, 3))))
    assert "mOut" in err(*args(m=f((2, 3, 3))))
