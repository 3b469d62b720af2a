#!/usr/bin/python3
"""aclnnFusedInferAttentionScoreV2 against torch's math attention, interleaved in one process.

    CANNON_LIB_DIR=build/lib /usr/bin/python3 bench/python/bench_attention.py [--samples 7] [--threads N]
        [--cases decode,prefill] [--json FILE]

torch (1.13 has no fused CPU attention) computes softmax(Q K^T * scale) V in fp32 with the key/value
heads repeated for grouped-query attention (torch's fp16 matmul on the CPU is far slower, so fp32 is
its best case); cannon runs the operator on FLOAT16 tensors in BSND layout, as ggml calls it. Each
sample times k calls (k chosen so a sample lasts >= 50 ms), the two sides alternating sample by
sample; the median ms per call and the ratio torch / cannon (> 1: cannon faster) are printed.
CANNON_CPU_THREADS and torch.set_num_threads take --threads (default: all CPUs).
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

CASES = {  # name: (B, N, Nkv, S, Skv, D)
    "decode": (1, 32, 8, 1, 4096, 128),
    "decode-long": (1, 8, 8, 1, 16384, 128),
    "prefill": (1, 32, 8, 512, 512, 128),
}


def _k_for(fn, min_s=0.05):
    fn()
    t0 = time.perf_counter()
    fn()
    return max(1, int(min_s / max(time.perf_counter() - t0, 1e-6) + 0.5))


def _sample(fn, k):
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--cases", default="decode,prefill")
    ap.add_argument("--json")
    opt = ap.parse_args()
    os.environ["CANNON_CPU_THREADS"] = str(opt.threads)
    import numpy as np
    import torch
    import cannon
    torch.set_num_threads(opt.threads)
    rows = []
    for name in opt.cases.split(","):
        B, N, Nkv, S, Skv, D = CASES[name]
        rng = np.random.default_rng(0)
        q = rng.standard_normal((B, S, N, D)).astype(np.float16)
        k = rng.standard_normal((B, Skv, Nkv, D)).astype(np.float16)
        v = rng.standard_normal((B, Skv, Nkv, D)).astype(np.float16)
        scale = 1.0 / np.sqrt(D)
        qa, ka, va = cannon.from_numpy(q), cannon.from_numpy(k), cannon.from_numpy(v)
        oa = cannon.from_numpy(np.zeros((B, S, N, D), np.float16))
        tq = torch.from_numpy(q.astype(np.float32)).permute(0, 2, 1, 3)
        tk = torch.from_numpy(k.astype(np.float32)).permute(0, 2, 1, 3).repeat_interleave(N // Nkv, dim=1)
        tv = torch.from_numpy(v.astype(np.float32)).permute(0, 2, 1, 3).repeat_interleave(N // Nkv, dim=1)

        def ours():
            cannon.ops.call("aclnnFusedInferAttentionScoreV2", qa, [ka], [va], None, None, None, None,
                            *([None] * 17), N, scale, 2147483647, 2147483647, "BSND", Nkv, 0, 0, 0, 0, False,
                            0, 0, oa, None, sync=True)

        def theirs():
            torch.softmax(torch.matmul(tq, tk.transpose(-1, -2)) * scale, dim=-1).matmul(tv)

        ko, kt = _k_for(ours), _k_for(theirs)
        to, tt = [], []
        for _ in range(opt.samples):
            to.append(_sample(ours, ko))
            tt.append(_sample(theirs, kt))
        mo, mt = statistics.median(to) * 1e3, statistics.median(tt) * 1e3
        row = {"case": name, "shape": [B, N, Nkv, S, Skv, D], "threads": opt.threads, "cannon_ms": mo,
               "torch_fp32_ms": mt, "ratio": mt / mo}
        rows.append(row)
        print(f"{name:8s} B={B} N={N} Nkv={Nkv} S={S} Skv={Skv} D={D} threads={opt.threads}: "
              f"cannon {mo:.3f} ms, torch fp32 math {mt:.3f} ms, x{mt / mo:.2f}")
    if opt.json:
        with open(opt.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
