#!/usr/bin/python3
"""EmbeddingDenseBackward: cannon vs torch (torch.ops.aten.embedding_dense_backward) vs the memory
floor, on Zipf(1.1) indices, for each scaleGradByFreq / paddingIdx combination and 1 and 2 threads.

Runs of ours (bench_embedding, one process per sample round, which also measures the STREAM-copy
bandwidth for the floor) and of torch (this process, same thread count) are interleaved round by
round because the machine is shared; the table quotes medians over rounds. "of floor" is
median floor / median ours; "paired" is the median of per-sample floor / ours where each sample's
copy ran right before it (less sensitive to load swings).

  /usr/bin/python3 bench/train/bench_embedding.py --bin build/bin/bench_embedding [--rounds 3] [--json]

--json prints one JSON line per case (the same medians) instead of the table;
bench/make_performance_md.py reads them.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np
import torch

CONFIGS = [(32000, 4096, 8192), (250000, 1024, 16384)]


def zipf(rng, n, v, s=1.1):
    p = 1.0 / np.arange(1, v + 1) ** s
    p /= p.sum()
    perm = rng.permutation(v)
    return perm[rng.choice(v, size=n, p=p)], int(perm[0])


def torch_once(g, idx, V, pad, scale):
    t0 = time.perf_counter()
    torch.ops.aten.embedding_dense_backward(g, idx, V, pad, scale)
    return time.perf_counter() - t0


def ours_once(binary, V, D, N, scale, pad, threads, samples):
    env = dict(os.environ, CANNON_CPU_THREADS=str(threads))
    out = subprocess.run([binary, str(V), str(D), str(N), str(int(scale)), str(int(pad)), str(samples)], env=env,
                         capture_output=True, text=True, check=True).stdout
    kv = dict(x.split("=") for x in out.split())
    return float(kv["ours_ms"]), float(kv["floor_ms"]), float(kv["copy_gbs"]), float(kv["paired_of_floor"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin/bench_embedding")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=3, help="calls of ours per round")
    ap.add_argument("--torch-samples", type=int, default=1, help="calls of torch per round (seconds each; 0: no peer)")
    ap.add_argument("--configs", default="all", help="all, or an index into CONFIGS (0 or 1)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--json", action="store_true", help="one JSON line per case instead of the table")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    if not args.json:
        print(f"{'V':>7} {'D':>5} {'N':>6} {'scale':>5} {'pad':>3} {'thr':>3} {'ours ms':>9} {'torch ms':>9} "
              f"{'floor ms':>9} {'copy GB/s':>9} {'vs torch':>8} {'of floor':>8} {'paired':>6}")
    configs = CONFIGS if args.configs == "all" else [CONFIGS[int(args.configs)]]
    for V, D, N in configs:
        idx_np, head = zipf(rng, N, V)
        idx = torch.from_numpy(idx_np)
        g = torch.randn(N, D)
        for threads in [int(t) for t in args.threads.split(",")]:
            torch.set_num_threads(threads)
            for scale in (False, True):
                for pad in (0, 1):
                    ours, floor, bw, tt, paired = [], [], [], [], []
                    for _ in range(args.rounds):
                        o, f, b, r = ours_once(args.bin, V, D, N, scale, pad, threads, args.samples)
                        paired.append(r)
                        ours.append(o)
                        floor.append(f)
                        bw.append(b)
                        tt.extend(1e3 * torch_once(g, idx, V, head if pad else -1, scale)
                                  for _ in range(args.torch_samples))
                    mo, mf = statistics.median(ours), statistics.median(floor)
                    mt = statistics.median(tt) if tt else float("nan")  # --torch-samples 0: no peer
                    if args.json:
                        print(json.dumps({"bench": "embedding_dense_backward", "V": V, "D": D, "N": N,
                                          "scale": int(scale), "pad": pad, "threads": threads, "rounds": args.rounds,
                                          "ours_ms": round(mo, 3), "torch_ms": round(mt, 3),
                                          "floor_ms": round(mf, 3), "copy_gbs": round(statistics.median(bw), 2),
                                          "vs_torch": round(mt / mo, 3), "of_floor": round(mf / mo, 3),
                                          "paired_of_floor": round(statistics.median(paired), 3)}), flush=True)
                        continue
                    print(f"{V:>7} {D:>5} {N:>6} {int(scale):>5} {pad:>3} {threads:>3} {mo:>9.1f} {mt:>9.1f} "
                          f"{mf:>9.1f} {statistics.median(bw):>9.2f} {mt / mo:>7.1f}x {mf / mo:>7.0%} {statistics.median(paired):>6.0%}",
                          flush=True)


if __name__ == "__main__":
    main()
