#!/usr/bin/python3
"""Run bench_softmax (cannon) and the peers -- torch (ATEN_CPU_CAPABILITY=avx512, or its default on
a machine without AVX-512, out= variants
aten._softmax.out / _log_softmax.out) and oneDNN (bench_softmax_dnnl) -- in one run, interleaved
per case, for 1 and 2 threads, --rounds times (the whole list of cases once per round), and print
one JSON line per case and round plus a table of the medians over the rounds:
  pct_of_floor = copy-floor time / cannon time (the floor: bytes read + written / STREAM copy);
  vs_best_peer = best peer time / cannon time (> 1: cannon faster).
The "bar" column judges pct_of_floor >= 85 and vs_best_peer >= 1 (>= 1.5 where the best peer is
below 60% of the floor) on the medians (each round's ratios use that round's floor and peers). On
a shared machine memory-bound times move by tens of percent between minutes, so one round decides
little; the table also gives the range of pct_of_floor over the rounds.

  /usr/bin/python3 bench/ops/run_softmax_bench.py --build build-sm [--threads 1,2] [--ns 7]
      [--rounds 1] [--shapes 4096x1024,...] [--dtypes f32,bf16] [--ops softmax,log_softmax]
      [--data uniform,normal]
Data (bench_softmax_data.h): uniform in [-4, 4) (torch: its own uniform values, cannon and oneDNN
the same sequence), or standard normal (the same values for all three: a hashed Box-Muller).
Needs /usr/bin/python3 with torch (python3-torch) and, for oneDNN, libdnnl-dev at build time.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

TORCH_PEER = r"""
import json, sys, time, torch
op, dt, shape, threads, ns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
data = sys.argv[6] if len(sys.argv) > 6 else "uniform"
torch.set_num_threads(threads)
dims = [int(d) for d in shape.split("x")]
dtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dt]
g = torch.Generator().manual_seed(0)
if data == "normal":
    import numpy as np
    numel = 1
    for d in dims:
        numel *= d
    def mix(h):
        h = h ^ (h >> np.uint32(16)); h = h * np.uint32(0x85ebca6b); h = h ^ (h >> np.uint32(13))
        h = h * np.uint32(0xc2b2ae35); return h ^ (h >> np.uint32(16))
    x = torch.empty(numel, dtype=dtype)
    for c in range(0, numel, 1 << 22):
        i = np.arange(c, min(numel, c + (1 << 22)), dtype=np.uint64)
        u1 = ((mix((2 * i).astype(np.uint32)) >> np.uint32(8)).astype(np.float64) + 1.0) * 2.0 ** -24
        u2 = (mix((2 * i + 1).astype(np.uint32)) >> np.uint32(8)).astype(np.float64) * 2.0 ** -24
        z = (-np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * (u2 - 0.5))).astype(np.float32)
        x[c:c + len(i)] = torch.from_numpy(z).to(dtype)
    x = x.reshape(dims)
else:
    x = (torch.rand(dims, generator=g) * 8 - 4).to(dtype)
y = torch.empty_like(x)
fn = torch._softmax if op == "softmax" else torch._log_softmax
def call():
    fn(x, -1, False, out=y)
try:
    call(); call()
except Exception as e:
    print(json.dumps({"case": "torch", "op": op, "dtype": dt, "shape": shape, "error": str(e)[:120]})); sys.exit(0)
t0 = time.perf_counter(); call(); one = time.perf_counter() - t0
k = 1 if one > 0.05 else int(0.05 / max(one, 1e-7)) + 1
s = []
for _ in range(ns):
    t0 = time.perf_counter()
    for _ in range(k):
        call()
    s.append((time.perf_counter() - t0) / k * 1e3)
s.sort()
print(json.dumps({"case": "torch", "op": op, "dtype": dt, "shape": shape, "ms": s[len(s) // 2], "ms_min": s[0],
                  "ms_max": s[-1], "capability": torch.backends.cpu.get_cpu_capability()
                  if hasattr(torch.backends, "cpu") and hasattr(torch.backends.cpu, "get_cpu_capability") else "?"}))
"""


def run(cmd, env):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    out = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0 and not out:
        out = [{"error": (r.stderr or "")[-300:]}]
    return out


def meets_bar(r):
    """The bar: >= 85% of the floor, and ahead of the best peer (by 1.5x where that peer is below
    60% of the floor); None when a figure is missing."""
    if r.get("pct_of_floor") is None or r.get("vs_best_peer") is None:
        return None
    need = 1.5 if r["best_peer_pct_of_floor"] < 60 else 1.0
    return r["pct_of_floor"] >= 85 and r["vs_best_peer"] >= need


def medians(rows):
    """One row per case: the medians over its rounds (and the range of pct_of_floor)."""
    groups = {}
    for r in rows:
        groups.setdefault((r["data"], r["threads"], r["op"], r["dtype"], r["shape"]), []).append(r)
    out = []
    for key, rs in groups.items():
        m = dict(rs[0])
        m["rounds"] = len(rs)
        for k in ("cannon_ms", "floor_ms", "pct_of_floor", "torch_ms", "onednn_ms", "vs_best_peer",
                  "best_peer_pct_of_floor"):
            v = [r[k] for r in rs if isinstance(r.get(k), (int, float))]
            m[k] = round(statistics.median(v), 3) if v else None
        pct = [r["pct_of_floor"] for r in rs if isinstance(r.get("pct_of_floor"), (int, float))]
        m["pct_range"] = (min(pct), max(pct)) if pct else None
        m["meets_bar"] = meets_bar(m)
        out.append(m)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--ns", default="7")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--shapes", default="4096x1024,512x32000,65536x128,64x16x512x512")
    ap.add_argument("--dtypes", default="f32,bf16,f16")
    ap.add_argument("--ops", default="softmax,log_softmax")
    ap.add_argument("--data", default="uniform", help="uniform, normal or both (comma-separated)")
    ap.add_argument("--no-peers", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bin", "bench_softmax")
    dnnl = os.path.join(build, "bin", "bench_softmax_dnnl")
    # The peers' blocks all come from glibc's heap and are reused (MALLOC_MMAP_MAX_=0): blocks above
    # 32 MiB are otherwise mapped per call and unmapped when freed, which on virtual machines costs torch
    # page faults on every call and the next memory-bound call a 10x slowdown (see
    # bench/python/bench_torch_ops.py).
    base = dict(os.environ, CANNON_DRIVER_PATH=os.path.join(build, "lib", "cannon", "drivers"),
                MALLOC_MMAP_THRESHOLD_=str(32 << 20), MALLOC_MMAP_MAX_="0",
                MALLOC_TRIM_THRESHOLD_=str(1 << 40))
    rows = []
    # The machine is shared: record its load, which the figures depend on.
    load0 = os.getloadavg()
    cases = [(th, shape, dt, op, data) for data in a.data.split(",") for th in a.threads.split(",")
             for shape in a.shapes.split(",") for dt in a.dtypes.split(",") for op in a.ops.split(",")]
    for rnd, (th, shape, dt, op, data) in [(r, c) for r in range(max(1, a.rounds)) for c in cases]:
        env = dict(base, CANNON_CPU_THREADS=th)
        res = run([bench, "--ns", a.ns, "--shapes", shape, "--dtypes", dt, "--ops", op, "--data", data], env)
        copy = next((r for r in res if r.get("case") == "stream_copy"), {})
        ours = next((r for r in res if r.get("case") == "cannon"), {"error": res})
        peers = {}
        if not a.no_peers:
            tenv = dict(base, ATEN_CPU_CAPABILITY="avx512", OMP_NUM_THREADS=th)
            peers["torch"] = run([sys.executable, "-c", TORCH_PEER, op, dt, shape, th, a.ns, data], tenv)[0]
            if not peers["torch"].get("ms"):
                # No AVX-512 here (torch dies on the forced capability): its default, the
                # fastest it has on such a machine.
                tenv = dict(base, OMP_NUM_THREADS=th)
                peers["torch"] = run([sys.executable, "-c", TORCH_PEER, op, dt, shape, th, a.ns, data], tenv)[0]
                peers["torch"]["capability"] = "default"
            if os.path.exists(dnnl) and dt != "f16":
                denv = dict(base, OMP_NUM_THREADS=th)
                peers["onednn"] = run([dnnl, op, dt, shape, a.ns, data], denv)[0]
        row = {"round": rnd, "threads": int(th), "op": op, "dtype": dt, "shape": shape, "data": data,
               "copy_gbs": copy.get("gbs"), "cannon_ms": ours.get("ms"),
               "floor_ms": ours.get("floor_ms"), "pct_of_floor": ours.get("pct_of_floor")}
        best = None
        for name, p in peers.items():
            row[name + "_ms"] = p.get("ms")
            if p.get("error"):
                row[name + "_error"] = p["error"]
            if p.get("ms") and (best is None or p["ms"] < best[1]):
                best = (name, p["ms"])
        if best and ours.get("ms"):
            row["best_peer"] = best[0]
            row["vs_best_peer"] = round(best[1] / ours["ms"], 2)
            row["best_peer_pct_of_floor"] = round(100 * ours["floor_ms"] / best[1], 1)
        row["meets_bar"] = meets_bar(row)
        print(json.dumps(row), flush=True)
        rows.append(row)
    load1 = os.getloadavg()
    print()
    print("load average (1/5/15 min) at start %.2f/%.2f/%.2f, at end %.2f/%.2f/%.2f" % (load0 + load1))
    print(f"medians over {max(1, a.rounds)} round(s) (%floor range in brackets)")
    print(f"{'data':<7} {'thr':>3} {'op':<11} {'dt':<4} {'shape':<16} {'cannon ms':>9} {'floor ms':>8} {'%floor':>6} "
          f"{'range':>11} {'torch ms':>8} {'dnnl ms':>8} {'x best':>6} bar")
    for r in medians(rows):
        def f(v, w, p=3):
            return f"{v:>{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"
        rg = f"{r['pct_range'][0]:.0f}-{r['pct_range'][1]:.0f}" if r.get("pct_range") else "-"
        print(f"{r['data']:<7} {r['threads']:>3} {r['op']:<11} {r['dtype']:<4} {r['shape']:<16} {f(r['cannon_ms'], 9)} "
              f"{f(r['floor_ms'], 8)} {f(r['pct_of_floor'], 6, 1)} {rg:>11} {f(r.get('torch_ms'), 8)} "
              f"{f(r.get('onednn_ms'), 8)} {f(r.get('vs_best_peer'), 6, 2)} "
              f"{'-' if r.get('meets_bar') is None else 'yes' if r['meets_bar'] else 'no'}")


if __name__ == "__main__":
    main()
