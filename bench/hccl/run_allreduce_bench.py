#!/usr/bin/env python3
"""fp32 sum allreduce on N local ranks: cannon's libhccl (hccl_bench under cannonrun) against
Open MPI (mpi_allreduce_bench under mpirun) and the memory-bandwidth floor, in one run.

The machines this runs on are shared and noisy, so every size is measured in each of several
passes, the two libraries interleaved per size (the order alternating between passes), and
the median per-call time over passes is reported. The floor is measured in the same run: an
ideal 2-rank allreduce reads 2S and writes 2S bytes, so floor time = 4S / STREAM-copy
bandwidth (hccl_stream_copy, as many threads as ranks, copy counted as read + write bytes).

Standard library only. Example:
  bench/hccl/run_allreduce_bench.py --bin build-run/bin --min 4K --max 256M --passes 3
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def human(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def find_tool(name, bindir):
    if bindir:
        p = os.path.join(bindir, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def bench_rows(text):
    """Data rows of nccl-tests style output: {size: (time_us, busbw, wrong)}."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("[") and "] " in line:  # --tag-output prefix
            line = line.split("] ", 1)[1]
        f = line.split()
        if not f or f[0].startswith("#") or len(f) < 9:
            continue
        try:
            rows[int(f[0])] = (float(f[5]), float(f[7]), int(f[8]))
        except ValueError:
            continue
    return rows


def run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stdout[-2000:]}"
    return p.stdout, None


def ompi_btl():
    """Open MPI 4.x calls its shared-memory BTL 'vader'; 5.x renamed it 'sm'."""
    info = shutil.which("ompi_info")
    if info:
        try:
            out = subprocess.run([info, "--parsable"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
            if "mca:btl:vader:" in out:
                return "self,vader"
            if "mca:btl:sm:" in out:
                return "self,sm"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "self,vader"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=None, help="directory holding the built tools")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--min", default="4K")
    ap.add_argument("--max", default="256M")
    ap.add_argument("--factor", type=int, default=2)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--bind", choices=["core", "none"], default="core",
                    help="pin ranks to cores (both launchers), default core")
    ap.add_argument("--bytes-per-size", default="1G",
                    help="iterations per size = this / size, clamped to [5, 1000]")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per launch")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--no-peers", action="store_true", help="cannon alone (no Open MPI runs)")
    a = ap.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    bindir = a.bin
    if bindir is None:
        for cand in ("build-run", "build"):
            d = os.path.join(here, "..", "..", cand, "bin")
            if os.path.isdir(d):
                bindir = d
                break
    cannonrun = find_tool("cannonrun", bindir)
    ours = find_tool("hccl_bench", bindir)
    peer = find_tool("mpi_allreduce_bench", bindir)
    copy = find_tool("hccl_stream_copy", bindir)
    mpirun = shutil.which("mpirun")
    if ours is None or cannonrun is None:
        print("# hccl_bench/cannonrun not found (libhccl not built?): cannon column skipped")
        ours = None
    if a.no_peers:
        peer = None
    elif peer is None or mpirun is None:
        print("# mpi_allreduce_bench/mpirun not found: Open MPI column skipped "
              "(apt-get install openmpi-bin libopenmpi-dev, then rebuild)")
        peer = None
    if copy is None:
        sys.exit("hccl_stream_copy not found: build the bench/hccl directory first")

    sizes = []
    s, e = parse_size(a.min), parse_size(a.max)
    while s <= e:
        sizes.append(s)
        s *= a.factor
    budget = parse_size(a.bytes_per_size)

    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", ompi_btl())
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # More ranks than cores: Open MPI refuses to bind two ranks to one core unless told so.
    mpi_bind = a.bind + (":overload-allowed" if a.bind == "core" and a.ranks > ncpu else "")
    mpi_extra = ["--oversubscribe", "--bind-to", mpi_bind]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        mpi_extra.insert(0, "--allow-run-as-root")

    times = {"cannon": {n: [] for n in sizes}, "ompi": {n: [] for n in sizes}}
    wrong = {"cannon": 0, "ompi": 0}
    copy_bw = []
    errors = []
    print(f"# ranks {a.ranks}  sizes {human(sizes[0])}..{human(sizes[-1])}  passes {a.passes}  "
          f"bind {a.bind}  OMPI_MCA_btl={env['OMPI_MCA_btl']}")
    for p in range(a.passes):
        out, err = run([copy, "-s", str(256 << 20), "-t", str(min(a.ranks, ncpu)), "-n", "10"],
                       env, a.timeout)
        if out:
            copy_bw.append(float(out.split()[1]) * 1e9)
        for size in sizes:
            iters = max(5, min(1000, budget // size))
            # Warm up with as many calls as are timed: the timed loop enqueues all its calls
            # before it synchronizes, and the task pools of the stream and of libhccl grow to
            # that depth on first use (fresh pages cost microseconds each on virtual machines, about
            # 1 us per call at 4 KiB). A warm-up as deep as the timed loop leaves only the
            # steady-state cost of a call in the figure, as a long-running job sees it.
            warm = iters
            sweep = ["-b", str(size), "-e", str(size), "-n", str(iters), "-w", str(warm),
                     "-c", "1"]
            jobs = []
            if ours:
                jobs.append(("cannon", [cannonrun, "-n", str(a.ranks), "--bind-to", a.bind,
                                        ours, "-o", "allreduce", "-d", "fp32", "-r", "sum"]
                             + sweep))
            if peer:
                jobs.append(("ompi", [mpirun, *mpi_extra, "-np", str(a.ranks), peer] + sweep))
            if p % 2 == 1:
                jobs.reverse()
            for name, cmd in jobs:
                out, err = run(cmd, env, a.timeout)
                if err:
                    errors.append(f"{name} {human(size)}: {err}")
                    continue
                rows = bench_rows(out)
                if size in rows:
                    times[name][size].append(rows[size][0])
                    wrong[name] += rows[size][2]
                else:
                    errors.append(f"{name} {human(size)}: no result row")
        print(f"# pass {p + 1}/{a.passes} done"
              + (f", copy {copy_bw[-1] / 1e9:.1f} GB/s" if len(copy_bw) > p else ""),
              flush=True)

    bw = statistics.median(copy_bw) if copy_bw else float("nan")
    factor = 2.0 * (a.ranks - 1) / a.ranks
    # Floor: each rank reads its input and the peer's (or, in general, S per rank in and the
    # reduced S out per rank): 2 ranks x (read S + write S) = 4S through the memory system.
    floor_bytes_per_s = bw
    print(f"# STREAM copy ({min(a.ranks, ncpu)} threads), median of {len(copy_bw)}: "
          f"{bw / 1e9:.2f} GB/s; floor time = 2*ranks*S / copy bandwidth")
    print(f"# {'size':>8} {'cannon us':>11} {'busbw':>7} {'ompi us':>11} {'busbw':>7} "
          f"{'ratio':>6} {'floor us':>10} {'busbw':>7} {'%floor':>7}")
    result = []
    for size in sizes:
        tc = statistics.median(times["cannon"][size]) if times["cannon"][size] else None
        to = statistics.median(times["ompi"][size]) if times["ompi"][size] else None
        tf = 2 * a.ranks * size / floor_bytes_per_s * 1e6
        bc = size / (tc * 1e-6) / 1e9 * factor if tc else None
        bo = size / (to * 1e-6) / 1e9 * factor if to else None
        bf = size / (tf * 1e-6) / 1e9 * factor
        ratio = bc / bo if bc and bo else None

        def f(v, w, d=2):
            return f"{v:>{w}.{d}f}" if v is not None else f"{'-':>{w}}"
        print(f"  {human(size):>8} {f(tc, 11, 1)} {f(bc, 7)} {f(to, 11, 1)} {f(bo, 7)} "
              f"{f(ratio, 6)} {f(tf, 10, 1)} {f(bf, 7)} "
              f"{f(100 * tf / tc if tc else None, 6, 0)}%")
        result.append({"bytes": size, "cannon_us": tc, "cannon_busbw": bc, "ompi_us": to,
                       "ompi_busbw": bo, "ratio": ratio, "floor_us": tf, "floor_busbw": bf,
                       "cannon_samples": times["cannon"][size],
                       "ompi_samples": times["ompi"][size]})
    print(f"# wrong elements: cannon {wrong['cannon']}, ompi {wrong['ompi']}")
    for e in errors:
        print(f"# error: {e}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"ranks": a.ranks, "copy_GBps": bw / 1e9, "copy_samples": copy_bw,
                       "rows": result, "errors": errors, "wrong": wrong}, fh, indent=1)
    return 1 if errors or wrong["cannon"] or wrong["ompi"] else 0


if __name__ == "__main__":
    sys.exit(main())
