#!/usr/bin/python3
"""What profiling costs: the same programs with CANNON_PROFILE unset (off) and set (on), alternated.

  /usr/bin/python3 bench/python/bench_prof_overhead.py --build BUILD [--baseline OTHER_BUILD]
                                                        [--rounds 5] [--steps 100] [--ranks 2]

Rows (medians over the rounds; off and on run back to back in every round, in alternating order,
so both see the same minutes of the machine):
  tiny_op_us      bench_op_overhead --row phase1+2: one aclnnAdd of 16 elements (phase 1 + 2), us
                  per call with a synchronize every k calls. The worst case: every call is one
                  kernel task, and a recorded task costs a record and two marker tasks.
  train_step_ms   examples/train_syncbn under cannonrun (--ranks ranks, --steps steps): the mean
                  step time rank 0 reports (RESULT step_ms), every rank profiled when on.
With --baseline, tiny_op_us also runs OTHER_BUILD's bench_op_overhead (a build without the
profiler) in every round: "off" against it is what the profiler costs when it is not used.
One JSON line per row, then a table. Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def tiny_op(build, prof_dir):
    env = dict(os.environ)
    env.pop("CANNON_PROFILE", None)
    if prof_dir:
        env["CANNON_PROFILE"] = prof_dir
    out = subprocess.run([os.path.join(build, "bin", "bench_op_overhead"), "--row", "phase1+2", "--samples", "30"],
                         env=env, capture_output=True, text=True, timeout=300, check=True).stdout
    return float(re.search(r"phase1\+2\s+([0-9.]+) us", out).group(1))


def train_step(build, prof_dir, steps, ranks):
    env = dict(os.environ)
    env.pop("CANNON_PROFILE", None)
    if prof_dir:
        env["CANNON_PROFILE"] = prof_dir
    cmd = [os.path.join(build, "bin", "cannonrun"), "-n", str(ranks), os.path.join(build, "bin", "train_syncbn"),
           "--steps", str(steps), "--quiet"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=True).stdout
    return float(re.search(r"RESULT step_ms=([0-9.]+)", out).group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True)
    p.add_argument("--baseline")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--ranks", type=int, default=2)
    a = p.parse_args()
    res = {k: [] for k in ("tiny_off", "tiny_on", "tiny_base", "train_off", "train_on")}
    for r in range(a.rounds):
        d = tempfile.mkdtemp(prefix="cannon_prof_bench_")
        try:
            order = [False, True] if r % 2 == 0 else [True, False]
            for on in order:
                res["tiny_on" if on else "tiny_off"].append(tiny_op(a.build, d if on else None))
            if a.baseline:
                res["tiny_base"].append(tiny_op(a.baseline, None))
            for on in order:
                res["train_on" if on else "train_off"].append(train_step(a.build, d if on else None, a.steps,
                                                                         a.ranks))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in res.items() if v}
    rows = [("tiny_op_us", "off", med["tiny_off"]), ("tiny_op_us", "on", med["tiny_on"]),
            ("train_step_ms", "off", med["train_off"]), ("train_step_ms", "on", med["train_on"])]
    if "tiny_base" in med:
        rows.insert(0, ("tiny_op_us", "baseline build", med["tiny_base"]))
    for name, mode, v in rows:
        print(json.dumps({"bench": name, "mode": mode, "median": round(v, 4), "rounds": a.rounds}))
    print(f"tiny op (aclnnAdd, 16 elements): off {med['tiny_off']:.3f} us, on {med['tiny_on']:.3f} us "
          f"(+{med['tiny_on'] - med['tiny_off']:.3f} us per recorded call)"
          + (f"; baseline build {med['tiny_base']:.3f} us" if "tiny_base" in med else ""))
    print(f"training step (train_syncbn, {a.ranks} ranks, {a.steps} steps): off {med['train_off']:.3f} ms, "
          f"on {med['train_on']:.3f} ms ({100 * (med['train_on'] / med['train_off'] - 1):+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
