#!/usr/bin/python3
"""Compare the speed of two builds of cannon on the operator and collective benchmarks.

  /usr/bin/python3 bench/ab_builds.py --a OLD_BUILD --b NEW_BUILD [--rounds 3] [--suites ...] [--raw DIR]

Each round runs every suite's driver (this tree's bench/ scripts) once against each build's own
benchmark programs and libraries, A then B in odd rounds and B then A in even ones, so both see
the same minutes of the machine. Per case it prints the median of A's and of B's rounds and B's
speed relative to A (A's time / B's time, or B's rate / A's rate: above 1 is faster), and at the
end the lowest ratio of each suite. Peers are left out (--no-peers where a driver has it): they
are the same in both builds.

Suites: softmax (cannon_ms), norm (cannon ms), matmul (fp32 and bf16 GFLOP/s), embedding
(EmbeddingDenseBackward ms), allreduce (HcclAllReduce us). Standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

SUITES = {
    "softmax": [PY, "bench/ops/run_softmax_bench.py", "--build", "{build}", "--ns", "3", "--rounds", "1",
                "--dtypes", "f32,bf16", "--no-peers"],
    "norm": [PY, "bench/norm/run_norm_bench.py", "--build", "{build}", "--ns", "3", "--rounds", "1", "--no-peers"],
    "matmul": [PY, "bench/train/bench_matmul.py", "--bin", "{build}/bin/bench_matmul", "--passes", "1", "--json"],
    "embedding": [PY, "bench/train/bench_embedding.py", "--bin", "{build}/bin/bench_embedding", "--rounds", "1",
                  "--torch-samples", "0", "--json"],
    "allreduce": [PY, "bench/hccl/run_allreduce_bench.py", "--bin", "{build}/bin", "--min", "4K", "--max", "64M",
                  "--factor", "4", "--passes", "1", "--no-peers", "--json", "{out}"],
}


def cases(suite, text, out_path):
    """{case key: (value, higher_is_better)} from one driver run."""
    recs = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                recs.append(json.loads(line))
            except ValueError:
                pass
    got = {}
    if suite == "softmax":
        for r in recs:
            if "op" in r and r.get("cannon_ms"):
                got[f"{r['op']} {r['dtype']} {r['shape']} {r.get('data', 'uniform')} t{r['threads']}"] = \
                    (r["cannon_ms"], False)
    elif suite == "norm":
        for r in recs:
            c = r.get("cannon")
            if isinstance(c, dict) and c.get("ms"):
                got[f"{r['case']} {r['layout']} {r['shape']} t{r['threads']}"] = (c["ms"], False)
    elif suite == "matmul":
        for r in recs:
            if r.get("bench") == "matmul":
                for k in ("fp32_gflops", "bf16_gflops"):
                    if r.get(k):
                        got[f"{k[:4]} {r['M']}x{r['N']}x{r['K']} t{r['threads']}"] = (r[k], True)
    elif suite == "embedding":
        for r in recs:
            if r.get("bench") == "embedding_dense_backward":
                got[f"V{r['V']} D{r['D']} N{r['N']} s{r['scale']} p{r['pad']} t{r['threads']}"] = (r["ours_ms"], False)
    elif suite == "allreduce" and os.path.exists(out_path):
        with open(out_path) as f:
            doc = json.load(f)
        for r in doc.get("rows", []):
            if r.get("cannon_us"):
                got[f"{r['bytes']} B, {doc.get('ranks', 2)} ranks"] = (r["cannon_us"], False)
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the reference build folder (its bin/ and lib/)")
    ap.add_argument("--b", required=True, help="the build compared with it")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--raw", default=None, help="keep every driver's output here")
    args = ap.parse_args()
    suites = [s for s in args.suites.split(",") if s]
    raw = args.raw or tempfile.mkdtemp(prefix="ab_builds_")
    os.makedirs(raw, exist_ok=True)
    builds = {"A": os.path.abspath(args.a), "B": os.path.abspath(args.b)}
    values = {s: {} for s in suites}  # suite -> case -> {"A": [...], "B": [...], "hib": bool}
    load0 = os.getloadavg()
    for rnd in range(args.rounds):
        order = ("A", "B") if rnd % 2 == 0 else ("B", "A")
        for suite in suites:
            for side in order:
                out = os.path.join(raw, f"{suite}.{side}.{rnd}.json")
                cmd = [c.format(build=builds[side], out=out) for c in SUITES[suite]]
                env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(builds[side], "lib"),
                           CANNON_LIB_DIR=os.path.join(builds[side], "lib"),
                           CANNON_DRIVER_PATH=os.path.join(builds[side], "lib", "cannon", "drivers"))
                print(f"round {rnd + 1}/{args.rounds} {suite} {side}", file=sys.stderr, flush=True)
                r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
                with open(os.path.join(raw, f"{suite}.{side}.{rnd}.log"), "w") as f:
                    f.write(" ".join(cmd) + "\n" + r.stdout + "\n--- stderr ---\n" + r.stderr)
                for key, (v, hib) in cases(suite, r.stdout, out).items():
                    c = values[suite].setdefault(key, {"A": [], "B": [], "hib": hib})
                    c[side].append(v)
    load1 = os.getloadavg()
    print(f"A: {builds['A']}\nB: {builds['B']}\n{args.rounds} rounds, alternating order; load average "
          f"{load0[0]:.1f} at the start, {load1[0]:.1f} at the end; raw output in {raw}\n")
    print("| suite | case | A median | B median | B speed / A |")
    print("|---|---|---|---|---|")
    worst = {}
    for suite in suites:
        for key, c in values[suite].items():
            if not c["A"] or not c["B"]:
                continue
            a, b = statistics.median(c["A"]), statistics.median(c["B"])
            ratio = b / a if c["hib"] else a / b
            worst[suite] = min(worst.get(suite, ratio), ratio)
            unit = "GFLOP/s" if c["hib"] else ("us" if suite == "allreduce" else "ms")
            print(f"| {suite} | {key} | {a:.4g} {unit} | {b:.4g} {unit} | {ratio:.3f} |")
    print()
    for suite in suites:
        if suite in worst:
            n = sum(1 for c in values[suite].values() if c["A"] and c["B"])
            print(f"{suite}: {n} cases, lowest B speed / A {worst[suite]:.3f}")
        else:
            print(f"{suite}: no results (see {raw})")


if __name__ == "__main__":
    main()
