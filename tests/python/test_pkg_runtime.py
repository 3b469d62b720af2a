"""The `cannon` Python package: runtime, memory, DeviceArray (python/cannon)."""
import os
import subprocess
import sys

import numpy as np
import pytest

PKG = os.path.join(os.path.dirname(__file__), "..", "..", "python")
sys.path.insert(0, os.path.abspath(PKG))

import cannon  # noqa: E402
from cannon import runtime  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _rt():
    runtime.ensure_initialized()
    yield


def test_device_count_and_bad_device():
    assert cannon.device_count() >= 1
    with pytest.raises(cannon.AclError) as ei:
        cannon.set_device(99999)
    assert ei.value.code == 107001
    assert "99999" in ei.value.message and ei.value.func == "aclrtSetDevice"
    assert "107001" in str(ei.value)


def test_session_context_manager_refcounted():
    dev = 1 if cannon.device_count() > 1 else 0
    with cannon.Session(device=dev) as s:
        assert runtime.current_device() == dev
        a = cannon.from_numpy(np.arange(5, dtype=np.float32))
        s.stream.synchronize()
        assert a.numpy(copy=True).tolist() == [0, 1, 2, 3, 4]
        a.free()
    # the package's own reference keeps the runtime up: work continues after the session
    runtime.ensure_initialized()
    b = cannon.from_numpy(np.ones(3, np.float32))
    assert b.numpy().sum() == 3


def test_init_finalize_pairs():
    cannon.init()
    left = cannon.finalize()
    assert left >= 1


def test_streams_and_events():
    with cannon.Stream() as s:
        e0, e1 = cannon.Event(), cannon.Event()
        e0.record(s)
        x = cannon.from_numpy(np.random.rand(64, 64).astype(np.float32))
        cannon.ops.matmul(x, x, stream=s)
        e1.record(s)
        e1.synchronize()
        assert e1.query()
        assert e0.elapsed_ms(e1) >= 0.0
        s.synchronize()
        s.synchronize(timeout_ms=1000)
        e0.destroy()
        e1.destroy()
    with pytest.raises(cannon.AclError):
        s.synchronize()


def test_device_buffer_copy_memset_double_free():
    b = cannon.DeviceBuffer(64)
    src = np.arange(16, dtype=np.int32)
    b.copy_from_host(src)
    assert (b.to_numpy(np.int32) == src).all()
    b.memset(0, count=16)
    got = b.to_numpy(np.int32)
    assert (got[:4] == 0).all() and (got[4:] == src[4:]).all()
    c = cannon.DeviceBuffer(64)
    c.copy_from(b)
    assert (c.to_numpy(np.int32) == got).all()
    with pytest.raises(ValueError):
        b.copy_from_host(np.zeros(17, np.int32))
    b.free()
    assert b.freed
    with pytest.raises(cannon.AclError) as ei:
        b.free()
    assert ei.value.code == runtime.ACL_ERROR_INVALID_PARAM and "already freed" in ei.value.message
    with pytest.raises(cannon.AclError):
        b.to_numpy()
    c.free()


@pytest.mark.parametrize("dt", ["float32", "float16", "float64", "int32", "int64", "int8", "uint8", "bool"])
def test_array_roundtrip(dt):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 5)) * 10).astype(dt)
    a = cannon.from_numpy(x)
    assert a.shape == (3, 5) and a.dtype == dt and a.strides == (5, 1) and a.dtype.name == np.dtype(dt).name
    assert np.array_equal(a.numpy(copy=True), x)
    assert np.array_equal(a.numpy(), x)


def test_view_vs_copy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = cannon.from_numpy(x)
    c = a.numpy(copy=True)
    if runtime.host_addressable():
        v = a.numpy()
        assert np.shares_memory(v, v) and v.ctypes.data == a.ptr
        v[0, 0] = 42.0  # writes the device memory
        assert a.numpy(copy=True)[0, 0] == 42.0
        assert c[0, 0] == 0.0  # the copy is independent
        del a  # the view keeps the buffer alive
        assert v[2, 3] == 11.0
    os.environ["CANNON_PY_ZERO_COPY"] = "0"
    try:
        b = cannon.from_numpy(x)
        w = b.numpy()
        w[0, 0] = 7
        assert b.numpy()[0, 0] == 0.0
    finally:
        del os.environ["CANNON_PY_ZERO_COPY"]


def test_strided_views_and_reshape():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = cannon.from_numpy(x)
    t = a.T
    assert t.shape == (6, 4) and t.strides == (1, 6) and not t.is_contiguous()
    assert np.array_equal(t.numpy(), x.T) and np.array_equal(t.numpy(copy=True), x.T)
    assert np.array_equal(a.reshape(2, -1).numpy(), x.reshape(2, 12))
    with pytest.raises(ValueError):
        t.reshape(24)
    sub = a.view((2, 3), strides=(6, 2), offset=7)
    assert np.array_equal(sub.numpy(), x[1:3, 1::2]) and np.array_equal(sub.numpy(copy=True), x[1:3, 1::2])
    with pytest.raises(ValueError):
        a.view((4, 7))
    z = cannon.zeros((0, 3))
    assert z.numpy().shape == (0, 3)
    s = cannon.from_numpy(np.float32(3.5))
    assert s.shape == () and s.numpy() == 3.5


def test_fp16_bf16():
    x = np.array([1.0, -2.5, 3.140625, 1e-3, 65504.0], np.float32)
    h = cannon.from_numpy(x, dtype="float16")
    assert h.numpy().dtype == np.float16 and np.array_equal(h.to_float(), x.astype(np.float16).astype(np.float32))
    b = cannon.from_numpy(x, dtype=cannon.bfloat16)
    bits = b.numpy(copy=True)
    assert bits.dtype == np.uint16
    import torch
    ref = torch.from_numpy(x).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(bits, ref)
    assert np.array_equal(cannon.bf16_to_float(bits), b.to_float())
    r = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    assert np.array_equal(cannon.float_to_bf16(r), torch.from_numpy(r).to(torch.bfloat16).view(torch.int16)
                          .numpy().view(np.uint16))
    # uint16 input with dtype bfloat16 is taken as bits
    assert np.array_equal(cannon.from_numpy(bits, dtype="bf16").numpy(), bits)


def test_wrong_dtype():
    with pytest.raises(TypeError):
        cannon.from_numpy(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        cannon.from_numpy(np.zeros(3, np.complex64))
    with pytest.raises(TypeError):
        cannon.as_dtype("float128x")


def test_copy_from_numpy_and_fill():
    a = cannon.empty((2, 3), "float32")
    a.copy_from_numpy(np.ones((2, 3)))
    assert a.numpy().sum() == 6
    a.fill_zero()
    assert a.numpy().sum() == 0
    with pytest.raises(ValueError):
        a.copy_from_numpy(np.ones(5))


def test_library_discovery():
    env = dict(os.environ, CANNON_LIB_DIR="/nonexistent/dir", PYTHONPATH=os.path.abspath(PKG))
    code = ("import cannon\n"
            "try:\n    cannon.from_numpy([1.0])\nexcept cannon.LibraryNotFoundError as e:\n    print('ERR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30)
    assert "ERR" in r.stdout and "/nonexistent/dir" in r.stdout, r.stdout + r.stderr
    assert cannon.lib_dir() == os.environ["CANNON_LIB_DIR"]
