#!/usr/bin/env python3
"""Runs bench_matmul for 1 and 2 device threads, several passes each, and reports per case the
median over passes of each figure (GFLOP/s) and of the same-run ratios (ours / sgemm, bf16 / ours
fp32), which are what mean something on a shared machine. Optionally (--torch) adds torch.matmul
fp32 and bf16 with the same thread count, run right after each pass. --json prints one JSON line
per case (the same medians) instead of the table; bench/make_performance_md.py reads them.

usage: bench_matmul.py [--bin build/bin/bench_matmul] [--passes 3] [--threads 1,2] [--torch] [--json] [M N K ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

COLS = ["sgemm", "fp32", "fp32_ph2", "bf16", "sbgemm"]


def parse(out):
    rows = {}
    for line in out.splitlines():
        if line.startswith("#") or "|" not in line:
            continue
        head, *cells = [c.strip() for c in line.split("|")]
        m, n, k, t = head.split()
        vals = [float(c.split()[0]) for c in cells]
        rows[(int(m), int(n), int(k), t)] = dict(zip(COLS, vals))
    return rows


def torch_peer(m, n, k, threads):
    """torch.matmul GFLOP/s (fp32, bf16) with @threads intra-op threads, medians of 7 samples."""
    code = f"""
import time, torch
torch.set_num_threads({threads})
res = []
for dt in (torch.float32, torch.bfloat16):
    a = torch.randn({m}, {k}).to(dt); b = torch.randn({k}, {n}).to(dt); c = torch.empty({m}, {n}, dtype=dt)
    torch.matmul(a, b, out=c); torch.matmul(a, b, out=c)
    t0 = time.perf_counter(); torch.matmul(a, b, out=c); dt1 = time.perf_counter() - t0
    reps = max(1, int(0.04 / max(dt1, 1e-6)) + 1); ts = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(reps):
            torch.matmul(a, b, out=c)
        ts.append((time.perf_counter() - t0) / reps)
    res.append(2.0 * {m} * {n} * {k} / sorted(ts)[3] / 1e9)
print(*res)
"""
    out = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, check=True).stdout
    return [float(x) for x in out.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "../../build/bin/bench_matmul"))
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--json", action="store_true", help="one JSON line per case instead of the table")
    ap.add_argument("shape", nargs="*")
    args = ap.parse_args()
    load0 = os.getloadavg()
    passes = {}
    for p in range(args.passes):
        for t in [int(x) for x in args.threads.split(",")]:
            env = dict(os.environ, CANNON_CPU_THREADS=str(t))
            out = subprocess.run([args.bin] + args.shape, env=env, capture_output=True, text=True, check=True).stdout
            for key, row in parse(out).items():
                if args.torch:
                    row["torch_fp32"], row["torch_bf16"] = torch_peer(key[0], key[1], key[2], t)
                passes.setdefault(key, []).append(row)
        print(f"pass {p + 1}/{args.passes} done", file=sys.stderr)
    load1 = os.getloadavg()
    med = lambda xs: statistics.median(xs)
    if args.json:
        for key in sorted(passes, key=lambda k: (k[3], k[0] * k[1] * k[2], k)):
            rows = passes[key]
            line = {"bench": "matmul", "M": key[0], "N": key[1], "K": key[2], "threads": int(key[3].rstrip("T")),
                    "passes": len(rows), "sgemm_gflops": med([r["sgemm"] for r in rows]),
                    "fp32_gflops": med([r["fp32"] for r in rows]), "bf16_gflops": med([r["bf16"] for r in rows]),
                    "fp32_vs_sgemm": round(med([r["fp32"] / r["sgemm"] for r in rows]), 3),
                    "bf16_vs_fp32": round(med([r["bf16"] / r["fp32"] for r in rows]), 3)}
            if args.torch:
                line["torch_fp32_gflops"] = med([r["torch_fp32"] for r in rows])
                line["torch_bf16_gflops"] = med([r["torch_bf16"] for r in rows])
            print(json.dumps(line), flush=True)
        return
    print(f"# load average before {load0[0]:.2f}, after {load1[0]:.2f}; {args.passes} passes; GFLOP/s medians over "
          f"passes; ratios are medians of per-pass ratios")
    hdr = "|    M |    N |    K | T | sgemm | ours fp32 | fp32/sgemm | ours bf16 | bf16/fp32 |"
    if args.torch:
        hdr += " torch fp32 | torch bf16 |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for key in sorted(passes, key=lambda k: (k[3], k[0] * k[1] * k[2], k)):
        rows = passes[key]
        line = (f"| {key[0]:4d} | {key[1]:4d} | {key[2]:4d} | {key[3][0]} | {med([r['sgemm'] for r in rows]):6.1f} | "
                f"{med([r['fp32'] for r in rows]):6.1f} | {med([r['fp32'] / r['sgemm'] for r in rows]) * 100:5.1f}% | "
                f"{med([r['bf16'] for r in rows]):6.1f} | {med([r['bf16'] / r['fp32'] for r in rows]):5.2f}x |")
        if args.torch:
            line += f" {med([r['torch_fp32'] for r in rows]):6.1f} | {med([r['torch_bf16'] for r in rows]):6.1f} |"
        print(line)


if __name__ == "__main__":
    main()
