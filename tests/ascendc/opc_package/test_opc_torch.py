"""cannon.torch with a custom operator package: the test package (AxpyCustom, AxpyCustomGrad)
built and installed by check_opc_package.sh into $CANNON_OPC_TEST_OPP, found through the
environment and called as torch.ops.cannon_test.axpy_custom, against float64 references."""
import os

import pytest
import torch

import cannon.torch as ct
from cannon._lib import AclError

OPP = os.environ.get("CANNON_OPC_TEST_OPP")
pytestmark = pytest.mark.skipif(not OPP, reason="CANNON_OPC_TEST_OPP (set by check_opc_package.sh) is not set")
VENDOR = os.path.join(OPP or "", "vendors", "cannon_test")


def test_discovery_order(monkeypatch):
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    monkeypatch.setenv("ASCEND_OPP_PATH", OPP)
    assert ct.custom.vendors() == [VENDOR]
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", "/nonexistent/first:" + VENDOR)
    assert ct.custom.vendors() == ["/nonexistent/first", VENDOR]   # no duplicate from config.ini
    monkeypatch.delenv("ASCEND_OPP_PATH")
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH")
    assert ct.custom.vendors() == []
    with pytest.raises(ct.PackageError, match="no operator package found"):
        ct.load_package()


@pytest.fixture(scope="module")
def ops():
    old = os.environ.get("ASCEND_CUSTOM_OPP_PATH")
    os.environ["ASCEND_CUSTOM_OPP_PATH"] = VENDOR
    try:
        got = ct.load_package()
    finally:
        if old is None:
            del os.environ["ASCEND_CUSTOM_OPP_PATH"]
        else:
            os.environ["ASCEND_CUSTOM_OPP_PATH"] = old
    assert set(got) == {"cannon_test::axpy_custom", "cannon_test::axpy_custom_grad"}
    return torch.ops.cannon_test


def _ref(x, y, alpha):
    return x.double() + alpha * y.double()


@pytest.mark.parametrize("n", [1, 33, 1000, 4099, 65537])
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 2.0 ** -23), (torch.float16, 2.0 ** -10)])
def test_add_matches_x_plus_y(ops, n, dtype, tol):
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, generator=g).to(dtype)
    y = torch.randn(n, generator=g).to(dtype)
    z = ops.axpy_custom(x, y)                  # alpha defaults to the OpDef's 1.0: x + y
    assert z.dtype == dtype and z.shape == x.shape
    want = _ref(x, y, 1.0)
    err = (z.double() - want).abs()
    assert bool((err <= want.abs() * tol + 1e-30).all()), float(err.max())
    assert torch.equal(z, x + y) or dtype == torch.float16   # fp32: the same single rounding as torch


def test_alpha_shapes_and_views(ops):
    x = torch.randn(6, 10, dtype=torch.float32)
    y = torch.randn(6, 20, dtype=torch.float32)[:, ::2]       # strided: gathered by phase 1
    z = ops.axpy_custom(x, y, alpha=0.5)
    assert z.shape == (6, 10)
    want = _ref(x, y, 0.5)
    assert bool(((z.double() - want).abs() <= want.abs() * 2.0 ** -23 + 1e-30).all())


def test_autograd(ops):
    x = torch.randn(300, dtype=torch.float32, requires_grad=True)
    y = torch.randn(300, dtype=torch.float32, requires_grad=True)
    z = ops.axpy_custom(x, y, 0.25)
    g = torch.randn(300, dtype=torch.float32)
    z.backward(g)
    assert torch.equal(x.grad, g)
    assert bool(((y.grad.double() - 0.25 * g.double()).abs() == 0).all())   # 0.25 * g is exact


def test_bad_dtype_message(ops):
    x = torch.arange(8, dtype=torch.int32)
    with pytest.raises(AclError) as e:
        ops.axpy_custom(x, x)
    assert e.value.code == 161002
    assert "x has dtype INT32" in str(e.value)


def test_not_a_package(tmp_path):
    with pytest.raises(ct.PackageError, match="not an operator package"):
        ct.load_package(str(tmp_path))
