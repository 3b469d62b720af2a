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


def test_storage_views_and_formats():
    # a view with gaps, an offset and a transposed order into an uploaded storage
    store = np.arange(20, dtype=np.float32)
    v = cannon.from_storage(store, (3, 2), strides=(1, 6), offset=4)
    assert v.shape == (3, 2) and v.strides == (1, 6) and v.offset == 4 and v.format == cannon.FORMAT_ND
    assert np.array_equal(v.numpy(copy=True), np.lib.stride_tricks.as_strided(store[4:], (3, 2), (4, 24)))
    assert np.array_equal(v.storage(), store)  # the whole buffer, gaps included
    # stride 0: a broadcast view of one row
    row = cannon.from_storage(np.array([1, 2, 3], np.int64), (4, 3), strides=(0, 1))
    assert np.array_equal(row.numpy(copy=True), np.tile([1, 2, 3], (4, 1)))
    # contiguous default, dtype conversion (bf16 rounds floats, keeps uint16 bits), shape checks
    b = cannon.from_storage([1.0, 2.5, 3.0, 4.0], (2, 2), dtype="bfloat16")
    assert b.strides == (2, 1) and np.array_equal(b.to_float(), [[1.0, 2.5], [3.0, 4.0]])
    assert np.array_equal(cannon.from_storage(b.storage(), (4,), dtype="bfloat16").storage(), b.storage())
    with pytest.raises(ValueError):
        cannon.from_storage(np.zeros(5, np.float32), (2, 3))  # the view needs 6 elements
    with pytest.raises(ValueError):
        cannon.from_storage(np.zeros(8, np.float32), (2, 2), offset=-1)
    # storage() after an operator wrote through a view with gaps: the gaps keep their values
    out = cannon.from_storage(np.full(9, -7.0, np.float32), (2, 2), strides=(4, 2), offset=1)
    cannon.ops.relu(cannon.from_numpy(np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)), out=out)
    assert np.array_equal(out.storage(), [-7, 0, -7, 2, -7, 3, -7, 0, -7])
    # formats: carried by the array and its descriptor, ND for derived views unless given
    n = cannon.from_numpy(np.ones((2, 3, 4, 5), np.float32), format=cannon.FORMAT_NCHW)
    assert n.format == cannon.FORMAT_NCHW == 0 and "format=0" in repr(n)
    assert cannon.empty((2, 3), format=cannon.FORMAT_NC).format == cannon.FORMAT_NC == 35
    assert cannon.zeros((2, 3, 4), format=cannon.FORMAT_NCL).format == 47
    assert n.reshape(6, 20).format == cannon.FORMAT_ND and n.T.format == cannon.FORMAT_ND
    assert n.view((2, 3, 4, 5), format=cannon.FORMAT_NHWC).format == cannon.FORMAT_NHWC == 1
    assert (cannon.FORMAT_ND, cannon.FORMAT_NDHWC, cannon.FORMAT_NCDHW) == (2, 27, 30)


def test_bf16_conversions_keep_shape():
    for x in (np.float32(1.7), np.array(2.5), np.array([[1.0, np.nan], [np.inf, -3e38]]), np.zeros((0, 2))):
        b = cannon.float_to_bf16(x)
        assert b.dtype == np.uint16 and b.shape == np.shape(x)
        f = cannon.bf16_to_float(b)
        assert f.dtype == np.float32 and f.shape == np.shape(x)
    assert int(cannon.float_to_bf16(np.float32(1.0))) == 0x3F80 and cannon.bf16_to_float(np.uint16(0x4020)) == 2.5
    assert np.isnan(cannon.bf16_to_float(cannon.float_to_bf16(np.float32("nan"))))


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
