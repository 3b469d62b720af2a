#!/usr/bin/python3
"""Write docs/performance.md: one table of cannon's benchmarks against their peers, generated from
the JSON lines the benchmark drivers print.

  /usr/bin/python3 bench/make_performance_md.py [--build build] [--raw DIR] [--suites ...]
  /usr/bin/python3 bench/make_performance_md.py --from DIR      (render an earlier run again)

Without --from it runs every driver of --suites with the small repetition counts in SUITES below
(about 15-30 minutes on a 2-core machine), keeps their raw output in --raw (default: a new folder
under /tmp, printed), then renders. Run `make build` first; the peers need /usr/bin/python3 with
torch, oneDNN (libdnnl-dev at build time) and Open MPI (openmpi-bin, libopenmpi-dev); a missing
peer leaves its cell empty.

Suites and what each row reports:
  softmax    bench/ops/run_softmax_bench.py: ms per call; peers torch and oneDNN; % of the copy floor
             (bytes read + written / STREAM-copy bandwidth of the same process).
  norm       bench/norm/run_norm_bench.py: ms per forward+backward; peers torch (default and AVX-512
             dispatch) and oneDNN (batch norm); % of floor5 (and floor8 for channels-last).
  matmul     bench/train/bench_matmul.py --json: GFLOP/s; peers OpenBLAS sgemm (the same buffers,
             as many OpenBLAS threads as device workers) and torch.matmul.
  embedding  bench/train/bench_embedding.py --json: ms per aclnnEmbeddingDenseBackward; peer torch's
             embedding_dense_backward; % of the copy floor (the bytes it must move).
  allreduce  bench/hccl/run_allreduce_bench.py --json: us per fp32 sum allreduce on local ranks; peer
             Open MPI's MPI_Allreduce; % of the floor (2 x ranks x size / STREAM-copy bandwidth).
Standard library only.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

# Driver command lines (small repetition counts), with {build} and {raw} filled in; the row
# commands below narrow them to one case.
SUITES = {
    "softmax": [PY, "bench/ops/run_softmax_bench.py", "--build", "{build}", "--ns", "3", "--rounds", "1",
                "--dtypes", "f32,bf16"],
    "norm": [PY, "bench/norm/run_norm_bench.py", "--build", "{build}", "--ns", "3", "--rounds", "1"],
    "matmul": [PY, "bench/train/bench_matmul.py", "--bin", "{build}/bin/bench_matmul", "--passes", "1", "--torch",
               "--json"],
    "embedding": [PY, "bench/train/bench_embedding.py", "--bin", "{build}/bin/bench_embedding", "--rounds", "1",
                  "--json"],
    "allreduce": [PY, "bench/hccl/run_allreduce_bench.py", "--bin", "{build}/bin", "--min", "4K", "--max", "256M",
                  "--factor", "4", "--passes", "1", "--json", "{raw}/allreduce.json"],
}


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def machine():
    """The machine class: CPU model (and x86 family), logical CPUs, the widest ISA tier the
    kernels use."""
    model, family, flags = "unknown CPU", None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name" and model == "unknown CPU":
                    model = " ".join(v.split())
                elif k == "cpu family" and family is None:
                    family = v.strip()
                elif k == "flags" and not flags:
                    flags = set(v.split())
    except OSError:
        pass
    if family:
        model += f" (x86 family {family})"
    bf16 = "avx512_bf16" in flags or "avx512bf16" in flags
    tier = ("AVX-512 with BF16" if bf16 else "AVX-512") if "avx512f" in flags else "AVX2" if "avx2" in flags \
        else "scalar"
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        torch = subprocess.run([PY, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                               text=True, timeout=120).stdout.strip() or "absent"
    except (OSError, subprocess.SubprocessError):
        torch = "absent"
    return {"cpu": model, "cpus": ncpu, "tier": tier, "arch": platform.machine(), "torch": torch}


def run_suites(build, raw, suites):
    meta = machine()
    load0 = os.getloadavg()
    for name in suites:
        cmd = [c.format(build=build, raw=raw) for c in SUITES[name]]
        print("running:", " ".join(cmd), file=sys.stderr, flush=True)
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        recs = json_lines(r.stdout)
        if recs:
            with open(os.path.join(raw, name + ".jsonl"), "w") as f:
                for rec in recs:
                    f.write(json.dumps(rec) + "\n")
        with open(os.path.join(raw, name + ".log"), "w") as f:
            f.write(r.stdout + "\n--- stderr ---\n" + r.stderr)
        if r.returncode != 0:
            print(f"{name}: exit status {r.returncode} (see {raw}/{name}.log)", file=sys.stderr)
    meta["load"] = [round(x, 1) for x in load0 + os.getloadavg()]
    with open(os.path.join(raw, "meta.json"), "w") as f:
        json.dump(meta, f)


def load(raw, name):
    path = os.path.join(raw, name + ".jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json_lines(f.read())


def med(values):
    v = [x for x in values if isinstance(x, (int, float))]
    return statistics.median(v) if v else None


def fmt(v, p=3):
    if v is None:
        return "–"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.{p}f}" if p else f"{v:.0f}"


def ratio(v):
    return "–" if v is None else f"{v:.2f}×"


def pct(v):
    return "–" if v is None else f"{v:.0f}%"


def shape_txt(s):
    return "[" + s.replace("x", ",") + "]"


DT = {"f32": "fp32", "bf16": "bf16", "f16": "fp16"}


def rows_softmax(recs):
    groups = {}
    for r in recs:
        if "threads" in r and "op" in r:
            groups.setdefault((r.get("data", "uniform"), r["threads"], r["op"], r["dtype"], r["shape"]), []).append(r)
    out = []
    for (data, th, op, dt, shape), rs in groups.items():
        ours = med(r.get("cannon_ms") for r in rs)
        peers = {"torch": med(r.get("torch_ms") for r in rs), "oneDNN": med(r.get("onednn_ms") for r in rs)}
        best = min((v for v in peers.values() if v), default=None)
        cmd = (f"{PY} bench/ops/run_softmax_bench.py --build build --ns 3 --threads {th} --shapes {shape} "
               f"--dtypes {dt} --ops {op}" + ("" if data == "uniform" else f" --data {data}"))
        out.append(("softmax", f"{op} {DT.get(dt, dt)} {shape_txt(shape)}", th, f"{fmt(ours)} ms",
                    ", ".join(f"{k} {fmt(v)} ms" for k, v in peers.items() if v) or "–",
                    ratio(best / ours if best and ours else None),
                    pct(med(r.get("pct_of_floor") for r in rs)), cmd))
    return out


NORM_NAME = {"bn": "BatchNorm", "ln": "LayerNorm", "rms": "RmsNorm"}


def rows_norm(recs):
    groups = {}
    for r in recs:
        if "case" in r and "cannon" in r:
            groups.setdefault((r["threads"], r["case"], r["layout"], r["shape"]), []).append(r)
    out = []
    for (th, case, lay, shape), rs in groups.items():
        def m(key, sub="cannon"):
            return med(r[sub].get(key) for r in rs if isinstance(r.get(sub), dict))
        ours = m("ms")
        peers = {"torch": m("ms", "torch_default"), "torch AVX-512": m("ms", "torch_avx512"),
                 "oneDNN": m("ms", "onednn")}
        best = min((v for v in peers.values() if v), default=None)
        floor = f"floor5 {pct(m('pct_of_floor5'))}"
        if lay == "nhwc":
            floor += f", floor8 {pct(m('pct_of_floor8'))}"
        name = f"{NORM_NAME.get(case, case)} fwd+bwd" + (f" {lay.upper()}" if case == "bn" else "") + \
            f" fp32 {shape_txt(shape)}"
        cmd = f"{PY} bench/norm/run_norm_bench.py --build build --ns 3 --rounds 1 --threads {th} --cases {case}"
        if case == "bn":
            cmd += f" --layouts {lay} --shapes {shape}"
        out.append(("norm", name, th, f"{fmt(ours)} ms",
                    ", ".join(f"{k} {fmt(v)} ms" for k, v in peers.items() if v) or "–",
                    ratio(best / ours if best and ours else None), floor, cmd))
    return out


def rows_matmul(recs):
    out = []
    for r in recs:
        if r.get("bench") != "matmul":
            continue
        shape = f"{r['M']}×{r['N']}×{r['K']}"
        cmd = (f"{PY} bench/train/bench_matmul.py --bin build/bin/bench_matmul --passes 1 --torch "
               f"--threads {r['threads']} {r['M']} {r['N']} {r['K']}")
        p32 = {"OpenBLAS sgemm": r.get("sgemm_gflops"), "torch": r.get("torch_fp32_gflops")}
        best = max((v for v in p32.values() if v), default=None)
        out.append(("matmul", f"Matmul fp32 {shape}", r["threads"], f"{fmt(r['fp32_gflops'], 1)} GFLOP/s",
                    ", ".join(f"{k} {fmt(v, 1)}" for k, v in p32.items() if v) or "–",
                    ratio(r["fp32_gflops"] / best if best and r.get("fp32_gflops") else None), "–", cmd))
        tb = r.get("torch_bf16_gflops")
        out.append(("matmul", f"Matmul bf16 {shape}", r["threads"], f"{fmt(r['bf16_gflops'], 1)} GFLOP/s",
                    f"torch {fmt(tb, 1)}" if tb else "–",
                    ratio(r["bf16_gflops"] / tb if tb and r.get("bf16_gflops") else None), "–", cmd))
    return out


def rows_embedding(recs):
    out = []
    for r in recs:
        if r.get("bench") != "embedding_dense_backward":
            continue
        opts = ("scaleGradByFreq" if r["scale"] else "") + (" paddingIdx" if r["pad"] else "")
        name = f"EmbeddingDenseBackward V={r['V']} D={r['D']} N={r['N']}" + (f", {opts.strip()}" if opts else "")
        cfg = 0 if (r["V"], r["D"]) == (32000, 4096) else 1
        cmd = (f"{PY} bench/train/bench_embedding.py --bin build/bin/bench_embedding --rounds 1 "
               f"--configs {cfg} --threads {r['threads']}")
        out.append(("embedding", name, r["threads"], f"{fmt(r['ours_ms'])} ms", f"torch {fmt(r['torch_ms'])} ms",
                    ratio(r.get("vs_torch")), pct(100 * r["of_floor"] if r.get("of_floor") else None), cmd))
    return out


def human(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def rows_allreduce(raw):
    path = os.path.join(raw, "allreduce.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        doc = json.load(f)
    out = []
    ranks = doc.get("ranks", 2)
    for r in doc.get("rows", []):
        size = r["bytes"]
        tag = human(size).replace(" ", "").replace("iB", "")
        cmd = (f"{PY} bench/hccl/run_allreduce_bench.py --bin build/bin --ranks {ranks} --min {tag} --max {tag} "
               f"--passes 1")
        tc, to, tf = r.get("cannon_us"), r.get("ompi_us"), r.get("floor_us")
        out.append(("allreduce", f"HcclAllReduce fp32 sum {human(size)}, {ranks} ranks", ranks,
                    f"{fmt(tc, 1)} µs", f"Open MPI {fmt(to, 1)} µs" if to else "–",
                    ratio(to / tc if to and tc else None), pct(100 * tf / tc if tf and tc else None), cmd))
    return out


def render(raw, suites, out_path):
    meta = {}
    if os.path.exists(os.path.join(raw, "meta.json")):
        with open(os.path.join(raw, "meta.json")) as f:
            meta = json.load(f)
    rows = []
    for name in suites:
        if name == "allreduce":
            rows += rows_allreduce(raw)
        else:
            rows += globals()["rows_" + name](load(raw, name))
    lines = [
        "# Performance",
        "",
        "<!-- Generated by bench/make_performance_md.py from the benchmark drivers' JSON output; do not edit. -->",
        "",
        "One table of cannon's benchmarks against their peers, written by `bench/make_performance_md.py`",
        "from one run of the benchmark drivers in `bench/`. Regenerate it with",
        "",
        "```sh",
        "make build",
        f"{PY} bench/make_performance_md.py --build build",
        "```",
        "",
        f"Machine class of this run: {meta.get('cpu', 'unknown CPU')}, {meta.get('cpus', '?')} logical CPUs, "
        f"kernel tier {meta.get('tier', '?')}, torch {meta.get('torch', '?')}"
        + (f"; load average {meta['load'][0]} at the start of the run and {meta['load'][3]} at its end."
           if len(meta.get("load", [])) == 6 else "."),
        "The drivers ran with small repetition counts (the script's `SUITES`) on a shared machine, so single "
        "cells can move by tens of percent between runs; a peer and cannon in one row ran in the same "
        "minutes, interleaved, and their ratio is the figure to read. Each row's command reproduces that "
        "row; raise its `--ns`, `--rounds` or `--passes` for steadier figures.",
        "",
        "Columns: **cannon** and **peers** in the benchmark's unit (ms or µs per call: lower is better; GFLOP/s: "
        "higher is better); **× best peer** > 1 means cannon is faster than the fastest peer; **% floor** is "
        "the time the benchmark's memory traffic takes at the copy bandwidth measured in the same run, "
        "divided by cannon's time (softmax: bytes read and written; norm floor5: the five tensor passes "
        "of a forward+backward, floor8: the eight that channels-last data needs when it exceeds the "
        "cache; embedding: the bytes it must move; allreduce: 2 × ranks × size). Above 100% means part "
        "of the data came from the cache. **thr** is `CANNON_CPU_THREADS` (and the peers' thread count); "
        "for allreduce, the number of ranks.",
        "",
        "| benchmark | case | thr | cannon | peers | × best peer | % floor | reproduce |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for b, case, th, ours, peers, x, fl, cmd in rows:
        lines.append(f"| {b} | {case} | {th} | {ours} | {peers} | {x} | {fl} | `{cmd}` |")
    if not rows:
        lines.append("| – | no benchmark output found | | | | | | |")
    lines.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {out_path}: {len(rows)} rows", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the build folder (relative to the repository root)")
    ap.add_argument("--raw", default=None, help="folder for the drivers' raw output (default: a new /tmp folder)")
    ap.add_argument("--from", dest="src", default=None, help="render from this folder of an earlier run")
    ap.add_argument("--suites", default=",".join(SUITES), help="comma-separated subset of " + ",".join(SUITES))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    a = ap.parse_args()
    suites = [s for s in a.suites.split(",") if s]
    for s in suites:
        if s not in SUITES:
            ap.error(f"unknown suite {s}")
    if a.src:
        raw = os.path.abspath(a.src)
    else:
        raw = os.path.abspath(a.raw) if a.raw else tempfile.mkdtemp(prefix="cannon-perf-")
        os.makedirs(raw, exist_ok=True)
        print("raw output in", raw, file=sys.stderr)
        run_suites(os.path.abspath(a.build), raw, suites)
    render(raw, suites, a.out)


if __name__ == "__main__":
    main()
