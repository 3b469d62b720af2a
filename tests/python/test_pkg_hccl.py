"""The `cannon` Python package: cannon.hccl (2 ranks under cannonrun)."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

PKG = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, PKG)

from cannon import hccl  # noqa: E402

LIBDIR = os.environ.get("CANNON_LIB_DIR", "")
CANNONRUN = os.path.join(LIBDIR, "..", "bin", "cannonrun")
needs_launcher = pytest.mark.skipif(not (os.path.exists(CANNONRUN) and os.path.exists(os.path.join(LIBDIR, "libhccl.so"))),
                                    reason="cannonrun or libhccl.so not built")


def launch(tmp_path, body, n=2, env_extra=None, timeout=60):
    script = tmp_path / "rank.py"
    script.write_text("import os, sys\nimport numpy as np\nimport cannon\nfrom cannon import hccl\n"
                      + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=PKG, CANNON_LIB_DIR=LIBDIR, CANNON_CPU_THREADS="1", HCCL_CONNECT_TIMEOUT="20")
    env.update(env_extra or {})
    t0 = time.monotonic()
    r = subprocess.run([CANNONRUN, "-n", str(n), "--tag-output", "--timeout", str(timeout), sys.executable,
                        str(script)], env=env, capture_output=True, text=True, timeout=timeout + 15)
    return r, time.monotonic() - t0


def lines(out, tag):
    return sorted(l for l in out.splitlines() if tag in l)


@needs_launcher
def test_collectives_two_ranks(tmp_path):
    r, _ = launch(tmp_path, """
        comm = hccl.Communicator.from_env()
        R, S = comm.rank, comm.size
        assert S == 2 and R == int(os.environ["RANK_ID"])
        x = cannon.from_numpy(np.arange(6, dtype=np.float32) + 10 * R)
        y = comm.all_reduce(x)
        print("AR", y.numpy().tolist())
        m = comm.all_reduce(x, op="max")
        print("MAX", m.numpy().tolist())
        comm.all_reduce(x, x)  # in place
        print("INPLACE", x.numpy().tolist())
        g = comm.all_gather(cannon.from_numpy(np.full((1, 2), R, np.int32)))
        print("AG", g.shape, g.numpy().tolist())
        b = cannon.from_numpy(np.full(3, 7.0 if R == 1 else 0.0, np.float64))
        comm.broadcast(b, root=1)
        print("BC", b.numpy().tolist())
        rs = comm.reduce_scatter(cannon.from_numpy(np.arange(4, dtype=np.float32)))
        print("RS", rs.numpy().tolist())
        h = comm.all_reduce(cannon.from_numpy(np.ones(4), dtype="float16"))
        print("F16", h.to_float().tolist())
        with cannon.Stream() as s:
            z = comm.all_reduce(cannon.from_numpy(np.ones(2, np.float32)), stream=s, sync=True)
            print("STREAM", z.numpy().tolist())
        try:
            comm.all_reduce(cannon.from_numpy(np.ones(2, np.bool_)))
        except TypeError as e:
            print("TYPEERR", e)
        comm.barrier()
        assert comm.async_error() == 0
        comm.destroy()
        print("DONE")
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    exp = [float(2 * i + 10) for i in range(6)]
    assert lines(out, "AR ") == [f"[0] AR {exp}", f"[1] AR {exp}"]
    assert f"[0] MAX {[float(i + 10) for i in range(6)]}" in out
    assert lines(out, "INPLACE") == [f"[0] INPLACE {exp}", f"[1] INPLACE {exp}"]
    assert "[0] AG (2, 2) [[0, 0], [1, 1]]" in out and "[1] AG (2, 2) [[0, 0], [1, 1]]" in out
    assert "[0] BC [7.0, 7.0, 7.0]" in out
    assert "[0] RS [0.0, 2.0]" in out and "[1] RS [4.0, 6.0]" in out
    assert "[1] F16 [2.0, 2.0, 2.0, 2.0]" in out
    assert "[0] STREAM [2.0, 2.0]" in out
    assert "[0] TYPEERR" in out and "bool" in out
    assert len(lines(out, "DONE")) == 2


@needs_launcher
def test_dead_peer_raises_within_timeout(tmp_path):
    r, dt = launch(tmp_path, """
        import time
        comm = hccl.Communicator.from_env()
        if comm.rank == 1:
            sys.exit(0)  # leaves without joining the collective
        t0 = time.monotonic()
        try:
            y = comm.all_reduce(cannon.from_numpy(np.ones(1024, np.float32)))
            y.numpy()
            print("NO ERROR")
        except cannon.AclError as e:
            print("RAISED", type(e).__name__, e.code, round(time.monotonic() - t0, 1), e.message[:200])
    """, env_extra={"HCCL_EXEC_TIMEOUT": "3"}, timeout=40)
    assert "[0] RAISED" in r.stdout, r.stdout + r.stderr
    waited = float(r.stdout.split("[0] RAISED")[1].split()[2])
    assert waited < 10, r.stdout
    assert dt < 30


def test_launch_env_errors():
    f = "/tmp/x"
    assert hccl.read_launch_env({}) == (0, 1, 0, "")
    assert hccl.read_launch_env({"RANK_ID": "1", "RANK_SIZE": "2", "DEVICE_ID": "3",
                                 "CANNON_HCCL_ROOT_INFO_FILE": f}) == (1, 2, 3, f)
    assert hccl.read_launch_env({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1",
                                 "CANNON_HCCL_ROOT_INFO_FILE": f}) == (1, 2, 1, f)
    bad = [({"RANK_ID": "0"}, "RANK_SIZE is missing"),
           ({"RANK_SIZE": "2"}, "RANK_ID is missing"),
           ({"RANK_ID": "x1", "RANK_SIZE": "2"}, "RANK_ID='x1' is not an integer"),
           ({"RANK_ID": "2", "RANK_SIZE": "2"}, "RANK_ID=2 is not below RANK_SIZE=2"),
           ({"RANK_ID": "0", "RANK_SIZE": "2", "RANK": "1", "WORLD_SIZE": "2"}, "disagrees with RANK=1"),
           ({"RANK_ID": "0", "RANK_SIZE": "2", "DEVICE_ID": "0", "ASCEND_DEVICE_ID": "1",
             "CANNON_HCCL_ROOT_INFO_FILE": f}, "DEVICE_ID=0 disagrees with ASCEND_DEVICE_ID"),
           ({"RANK_ID": "0", "RANK_SIZE": "2"}, "CANNON_HCCL_ROOT_INFO_FILE is not set")]
    for env, msg in bad:
        with pytest.raises(hccl.LaunchEnvError, match=msg):
            hccl.read_launch_env(env)
    with pytest.raises(hccl.LaunchEnvError, match="RANK_SIZE is missing"):
        hccl.Communicator.from_env({"RANK_ID": "0"})


@pytest.mark.skipif(not os.path.exists(os.path.join(LIBDIR, "libhccl.so")), reason="libhccl.so not built")
def test_single_rank_and_errors():
    import numpy as np
    import cannon
    comm = hccl.Communicator.from_env({})
    assert (comm.rank, comm.size) == (0, 1)
    x = cannon.from_numpy(np.arange(4, dtype=np.float32))
    assert comm.all_reduce(x, sync=True).numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        comm.all_reduce(x, op="avg")
    with pytest.raises(ValueError):
        comm.all_reduce(x, cannon.empty((3,)))
    with pytest.raises(ValueError):
        comm.all_reduce(cannon.from_numpy(np.ones((3, 4), np.float32)).T)
    comm.destroy()
    with pytest.raises(hccl.HcclError):
        comm.all_reduce(x)
    with pytest.raises(ValueError):
        hccl.Communicator(0, 1, b"short")
