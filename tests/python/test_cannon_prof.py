"""tools/cannon-prof on a known program: two ranks under cannonrun, each running an add, a matmul and an
allreduce; trace.json parses as a Chrome trace with the expected events per device and stream, and
summary.csv has the expected rows with real figures. `report` re-renders the same files."""
import csv
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PKG = os.path.join(ROOT, "python")
TOOL = os.path.join(ROOT, "tools", "cannon-prof")
LIBDIR = os.environ.get("CANNON_LIB_DIR", "")
CANNONRUN = os.path.join(LIBDIR, "..", "bin", "cannonrun")
needs_build = pytest.mark.skipif(
    not (os.path.exists(CANNONRUN) and os.path.exists(os.path.join(LIBDIR, "libhccl.so"))),
    reason="cannonrun or libhccl.so not built")

PROGRAM = """
    import os
    import numpy as np
    import cannon
    from cannon import hccl, ops
    comm = hccl.Communicator.from_env()
    r = comm.rank
    a = cannon.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3) + r)
    b = cannon.from_numpy(np.ones((2, 3), np.float32))
    s = ops.add(a, b, alpha=2.0)
    m = ops.matmul(s, cannon.from_numpy(np.ones((3, 4), np.float32)))
    t = comm.all_reduce(m)
    got = t.numpy()
    want = sum((np.arange(6, dtype=np.float64).reshape(2, 3) + k + 2.0) @ np.ones((3, 4)) for k in range(2))
    assert np.array_equal(got.astype(np.float64), want), (got, want)
    comm.destroy()
    cannon.finalize()
    print("OK", r)
"""


def run_tool(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, TOOL, *args], env=env, capture_output=True, text=True, timeout=timeout)


@needs_build
def test_run_two_ranks(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM))
    out = tmp_path / "prof"
    env = dict(os.environ, PYTHONPATH=PKG, CANNON_LIB_DIR=LIBDIR, CANNON_CPU_THREADS="1", HCCL_CONNECT_TIMEOUT="20")
    r = run_tool("run", "-o", str(out), "--", CANNONRUN, "-n", "2", "--tag-output", "--timeout", "60", sys.executable, str(script),
                 env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "[0] OK 0" in r.stdout.splitlines() and "[1] OK 1" in r.stdout.splitlines(), r.stdout

    raw = sorted(os.listdir(out / "raw"))
    assert len([f for f in raw if f.endswith("_device0.json")]) == 1
    assert len([f for f in raw if f.endswith("_device1.json")]) == 1

    # cannonrun gives rank r device r: each rank's process wrote its device's file, with its rank.
    pids = {}
    for d in (0, 1):
        doc = json.loads((out / "raw" / next(f for f in raw if f.endswith(f"_device{d}.json"))).read_text())
        assert doc["format"] == "cannon-prof-1" and doc["device"] == d and doc["rank"] == d and doc["lost"] == 0
        pids[d] = doc["pid"]
    trace = json.loads((out / "trace.json").read_text())
    ev = trace["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(procs.values()) == sorted(f"device {d} (pid {pids[d]}, rank {d})" for d in (0, 1))
    threads = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
    assert all(t["args"]["name"].startswith(("stream ", "synchronous")) for t in threads)
    work = [e for e in ev if e["ph"] == "X"]
    for pid in procs:
        mine = sorted((e for e in work if e["pid"] == pid), key=lambda e: e["args"]["seq"])
        names = [e["name"] for e in mine]
        # In enqueue order on the device: the op kernels, then the collective.
        i_add = names.index("Add")
        i_mm = next(i for i, n in enumerate(names) if n.startswith("Mat") or n == "Mm")
        i_ar = names.index("AllReduce")
        assert i_add < i_mm < i_ar
        add = mine[i_add]
        assert add["cat"] == "kernel"
        assert add["args"]["detail"] == "[2,3]FLOAT [2,3]FLOAT -> [2,3]FLOAT"
        assert add["args"]["bytes"] == 3 * 6 * 4
        mm = mine[i_mm]
        assert mm["args"]["flops"] == 2 * 2 * 3 * 4
        ar = mine[i_ar]
        assert ar["cat"] == "collective"
        assert ar["args"]["bytes"] == 8 * 4
        assert ar["args"]["detail"].startswith("count=8 dtype=fp32 rank=")
        for e in mine:
            assert e["dur"] >= 0 and e["ts"] >= 0
        same_stream = [e for e in mine if e["tid"] == add["tid"]]
        for p, q in zip(same_stream, same_stream[1:]):
            assert p["ts"] + p["dur"] <= q["ts"] + 1e-3  # one stream runs one task at a time

    rows = list(csv.DictReader(open(out / "summary.csv")))
    by = {r["name"]: r for r in rows}
    assert int(by["Add"]["calls"]) == 2 and int(by["AllReduce"]["calls"]) == 2
    shares = [float(r["share_pct"]) for r in rows]
    assert abs(sum(shares) - 100.0) < 0.1
    for row in (by["Add"], by["AllReduce"]):
        total, mean, mx = float(row["total_us"]), float(row["mean_us"]), float(row["max_us"])
        assert total > 0 and abs(mean * int(row["calls"]) - total) < 1e-2 and mean <= mx + 1e-3 <= total + 1e-3
        # GB/s is the bytes moved over the time: both figures are in the row.
        assert float(row["gbps"]) == pytest.approx(int(row["bytes_per_call"]) * int(row["calls"]) / (total * 1e3),
                                                   rel=1e-2)
    assert "Add" in r.stdout and "GB/s" in r.stdout

    # report re-renders the same summary.
    before = (out / "summary.csv").read_text()
    os.unlink(out / "summary.csv")
    r2 = run_tool("report", str(out), "--quiet")
    assert r2.returncode == 0, r2.stderr
    assert (out / "summary.csv").read_text() == before


def test_report_empty_and_bad_usage(tmp_path):
    r = run_tool("report", str(tmp_path))
    assert r.returncode == 1 and "no profile data" in r.stderr
    r = run_tool("run", "-o", str(tmp_path / "x"))
    assert r.returncode != 0 and "no program" in r.stderr
