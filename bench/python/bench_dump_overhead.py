#!/usr/bin/python3
"""What the operator dump costs: bench_op_overhead's tiny aclnnAdd with CANNON_DUMP unset (off) and
set (on, every run writes its two inputs, its output and a manifest line), alternated.

  /usr/bin/python3 bench/python/bench_dump_overhead.py --build BUILD [--baseline OTHER_BUILD] [--rounds 5]

Rows (medians over the rounds; the variants run back to back in every round, in rotating order):
  off   BUILD, no dump: the one load and branch every operator run pays
  base  OTHER_BUILD's bench_op_overhead (a build without the dump hook), with --baseline
  on    BUILD with CANNON_DUMP set: files written from the stream thread for every run
us per aclnnAdd of 16 elements (phase 1 + 2). Standard library only.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile


def tiny_op(build, dump_dir):
    env = dict(os.environ)
    for k in ("CANNON_DUMP", "CANNON_DUMP_OPS", "CANNON_DUMP_MODE", "CANNON_DUMP_DATA"):
        env.pop(k, None)
    if dump_dir:
        env["CANNON_DUMP"] = dump_dir
    out = subprocess.run([os.path.join(build, "bin", "bench_op_overhead"), "--row", "phase1+2", "--samples", "30"],
                         env=env, capture_output=True, text=True, timeout=300, check=True).stdout
    return float(re.search(r"phase1\+2\s+([0-9.]+) us", out).group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True)
    p.add_argument("--baseline")
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    variants = ["off", "on"] + (["base"] if a.baseline else [])
    res = {v: [] for v in variants}
    for r in range(a.rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for v in order:
            d = tempfile.mkdtemp(prefix="cannon_dump_bench_") if v == "on" else None
            try:
                res[v].append(tiny_op(a.baseline if v == "base" else a.build, d))
            finally:
                if d:
                    shutil.rmtree(d, ignore_errors=True)
    print(f"{'variant':8} {'us/op (median)':>15} {'rounds':>7}")
    for v in variants:
        print(f"{v:8} {statistics.median(res[v]):15.3f} {len(res[v]):7d}")


if __name__ == "__main__":
    main()
