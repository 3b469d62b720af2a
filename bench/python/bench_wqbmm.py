#!/usr/bin/python3
"""aclnnWeightQuantBatchMatmulV2 at decode shapes, as ggml's CANN backend calls it for Q8_0 / Q4_0
MUL_MAT: x FLOAT16 (m, k), the INT8 or INT4 weight a (k, n) view of its row-major (n, k) storage,
FLOAT16 scales a (k/32, n) view of their (n, k/32) storage, antiquantGroupSize 32, no offset or
bias, y FLOAT16 (m, n).

    /usr/bin/python3 bench/python/bench_wqbmm.py [--libs NAME=DIR,NAME=DIR] [--m 1,2,4]
        [--n 4096] [--k 14336] [--samples 7] [--calls 3] [--threads 2]

Each NAME=DIR is a directory holding cannon's libraries (CANNON_LIB_DIR; default: build/lib of
this tree, named "cannon"), so two builds (say, before and after a change) are compared in one
run. Sample s runs one worker process per library, their order alternating from sample to sample
(on a loaded machine each side sees the same conditions); a worker times --calls calls of every
case (both phases and a synchronize each, after one warm-up call) and reports the median per call
of the wall time and of the process's CPU time (all its threads: the pool's workers included).
The table gives, per case and library, the medians over the samples: wall ms, CPU ms, and GB/s of
quantised weight read per wall second (k * n bytes for INT8, k * n / 2 for INT4).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

WORKER = r"""
import json, statistics, sys, time
import numpy as np
import cannon
from cannon.array import DType

m_list, n, k, calls = json.loads(sys.argv[1])
INT4 = DType("int4", 29, np.uint8, None)
rng = np.random.default_rng(0)
res = {}
for wdt in ("int8", "int4"):
    if wdt == "int8":
        store = rng.integers(-127, 128, size=n * k, dtype=np.int8)
        W = cannon.from_storage(store, [k, n], [1, k], 0, "int8")
    else:
        # the package's INT4 views count one byte per element: the buffer is sized so, its first
        # half holding the packed nibbles
        packed = np.zeros(n * k, np.uint8)
        packed[:n * k // 2] = rng.integers(0, 256, size=n * k // 2, dtype=np.uint8)
        buf = cannon.DeviceBuffer(packed.nbytes)
        buf.copy_from_host(packed)
        W = cannon.DeviceArray([k, n], INT4, [1, k], 0, buf)
    sc = (rng.random(n * (k // 32), dtype=np.float32) * 0.02 + 0.001).astype(np.float16)
    S = cannon.from_storage(sc, [k // 32, n], [1, k // 32], 0, "float16")
    for m in m_list:
        X = cannon.from_storage((rng.standard_normal(m * k) * 0.5).astype(np.float16), [m, k], None, 0, "float16")
        Y = cannon.from_storage(np.zeros(m * n, np.float16), [m, n], None, 0, "float16")
        call = lambda: cannon.ops.call("aclnnWeightQuantBatchMatmulV2", X, W, S, None, None, None, None, 32, Y,
                                       sync=True)
        call()
        wall, cpu = [], []
        for _ in range(calls):
            t0, c0 = time.perf_counter(), time.process_time()
            call()
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        res[f"{wdt} m={m}"] = [statistics.median(wall), statistics.median(cpu)]
print(json.dumps(res))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--libs", default=f"cannon={os.path.join(ROOT, 'build', 'lib')}")
    ap.add_argument("--m", default="1,2,4")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=14336)
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("CANNON_CPU_THREADS", "2")))
    a = ap.parse_args()
    if a.k % 32 or a.k < 64:
        ap.error("--k must be a multiple of 32, at least 64")
    libs = [s.split("=", 1) for s in a.libs.split(",")]
    arg = json.dumps([[int(v) for v in a.m.split(",")], a.n, a.k, a.calls])
    pypath = os.pathsep.join([os.path.join(ROOT, "python")] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    runs = {name: [] for name, _ in libs}
    for s in range(a.samples):
        order = libs if s % 2 == 0 else libs[::-1]
        for name, d in order:
            env = dict(os.environ, CANNON_LIB_DIR=os.path.abspath(d), CANNON_CPU_THREADS=str(a.threads),
                       PYTHONPATH=pypath)
            r = subprocess.run([sys.executable, "-c", WORKER, arg], env=env, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{name}: worker failed:\n{r.stderr}")
            runs[name].append(json.loads(r.stdout))
        print(f"sample {s + 1}/{a.samples} done", file=sys.stderr)
    cases = list(runs[libs[0][0]][0])
    print(f"n = {a.n}, k = {a.k}, group 32, {a.threads} workers, medians of {a.samples} samples "
          f"({a.calls} calls each)")
    print(f"{'case':<12}" + "".join(f"{name + ' ms':>14}{'cpu ms':>10}{'GB/s':>8}" for name, _ in libs))
    for c in cases:
        wbytes = a.k * a.n // (1 if c.startswith("int8") else 2)
        row = f"{c:<12}"
        for name, _ in libs:
            wall = statistics.median(r[c][0] for r in runs[name])
            cpu = statistics.median(r[c][1] for r in runs[name])
            row += f"{wall * 1e3:>14.2f}{cpu * 1e3:>10.2f}{wbytes / wall / 1e9:>8.1f}"
        print(row)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
