#!/usr/bin/python3
"""aclnnFlashAttentionScore + aclnnFlashAttentionScoreGrad (forward and backward) against torch 1.13's
matmul-softmax-matmul attention with autograd, interleaved in one process, and the peak memory of
each side in fresh subprocesses.

    CANNON_LIB_DIR=build/lib /usr/bin/python3 bench/python/bench_flash_attention.py [--samples 5]
        [--threads N] [--seq 1024,2048,4096] [--dims 64,128] [--causal 0,1] [--dtypes bfloat16,float32]
        [--torch-fp32] [--clock wall|cpu] [--no-memory | --memory-only] [--json FILE]

Shape B=2, H=16 (BNSD). torch computes P = softmax(Q K^T * scale (+ causal -inf mask)), O = P V and
O.backward(dO) in the case's dtype (torch's bf16 CPU matmul is slow: --torch-fp32 runs torch in fp32
for the bf16 cases too, its best case). cannon runs the forward then the gradient on the same
tensors (sparseMode 3 with the 2048x2048 mask for causal). Each sample times k fwd+bwd pairs (k so
that a sample lasts >= 0.2 s), the two sides alternating sample by sample; the median ms and the
ratio torch / cannon (> 1: cannon faster) are printed. --clock cpu times the process's CPU time
instead of the wall clock (with --threads 1, the figure a machine shared with other jobs still
gives).

Memory: for each side and case a fresh interpreter builds the inputs, resets its resident peak
(/proc/self/clear_refs), reads VmRSS, runs one fwd+bwd and reads VmHWM; the difference is the extra
peak of the attention itself (torch holds the S x S scores and probabilities for autograd: quadratic in S; cannon keeps
O(S) statistics and per-block state).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
B, H = 2, 16
BIG = 2147483647

SETUP = """
import numpy as np, torch, cannon
B, H, S, D, causal, dt, torch32 = {B}, {H}, {S}, {D}, {causal}, "{dt}", {torch32}
rng = np.random.default_rng(0)
arrs = [rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(4)]
scale = 1.0 / np.sqrt(D)

def cannon_side():
    import golden
    q, k, v, dy = (golden.array(a, dt) for a in arrs)
    o = golden.empty((B, H, S, D), dt)
    mx, sm = golden.empty((B, H, S, 8), "float32"), golden.empty((B, H, S, 8), "float32")
    dq, dk, dv = (golden.empty((B, H, S, D), dt) for _ in range(3))
    mask = golden.array(np.triu(np.ones((2048, 2048), dtype=bool), 1), "bool") if causal else None
    sparse = 3 if causal else 0
    def run():
        cannon.ops.call("aclnnFlashAttentionScore", q, k, v, None, None, None, mask, None, scale, 1.0, {BIG}, {BIG}, H,
                        "BNSD", 0, sparse, mx, sm, None, o, sync=True)
        cannon.ops.call("aclnnFlashAttentionScoreGrad", q, k, v, dy, None, None, None, mask, mx, sm, None, o, None,
                        scale, 1.0, {BIG}, {BIG}, H, "BNSD", 0, sparse, dq, dk, dv, None, sync=True)
    return run

def torch_side():
    tdt = torch.float32 if (dt == "float32" or torch32) else torch.bfloat16
    q, k, v, dy = (torch.from_numpy(a).to(tdt) for a in arrs)
    cm = torch.triu(torch.ones(S, S, dtype=torch.bool), 1) if causal else None
    def run():
        qq, kk, vv = (t.detach().requires_grad_() for t in (q, k, v))
        s = torch.matmul(qq, kk.transpose(-1, -2)) * scale
        if cm is not None:
            s = s.masked_fill(cm, float("-inf"))
        o = torch.matmul(torch.softmax(s, dim=-1), vv)
        o.backward(dy)
    return run
"""

MEM = """
import sys
sys.path[:0] = [{tests!r}, {pkg!r}]
""" + SETUP + """
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])
run = {side}_side()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # VmHWM := VmRSS
base = status("VmRSS:")
run()
print(status("VmHWM:") - base)
"""


CLOCK = time.perf_counter


def _k_for(fn, min_s=0.2):
    t0 = CLOCK()
    fn()
    return max(1, int(min_s / max(CLOCK() - t0, 1e-6) + 0.5))


def _sample(fn, k):
    t0 = CLOCK()
    for _ in range(k):
        fn()
    return (CLOCK() - t0) / k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seq", default="1024,2048,4096")
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--causal", default="0,1")
    ap.add_argument("--dtypes", default="bfloat16,float32")
    ap.add_argument("--torch-fp32", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--memory-only", action="store_true", help="skip the timing (the peaks only)")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--json")
    opt = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if opt.clock == "cpu" else time.perf_counter
    os.environ["CANNON_CPU_THREADS"] = str(opt.threads)
    tests = os.path.join(HERE, "..", "..", "tests", "python")
    sys.path.insert(0, tests)
    import torch
    torch.set_num_threads(opt.threads)
    rows = []
    for dt in opt.dtypes.split(","):
        for S in (int(x) for x in opt.seq.split(",")):
            for D in (int(x) for x in opt.dims.split(",")):
                for causal in (int(x) for x in opt.causal.split(",")):
                    fmt = dict(B=B, H=H, S=S, D=D, causal=causal, dt=dt, torch32=opt.torch_fp32, BIG=BIG)
                    ns = {}
                    exec(SETUP.format(**fmt), ns)
                    ours, theirs = ns["cannon_side"](), ns["torch_side"]()
                    mo = mt = float("nan")
                    if not opt.memory_only:
                        ko, kt = _k_for(ours), _k_for(theirs)
                        to, tt = [], []
                        for _ in range(opt.samples):
                            to.append(_sample(ours, ko))
                            tt.append(_sample(theirs, kt))
                        mo, mt = statistics.median(to) * 1e3, statistics.median(tt) * 1e3
                    row = {"dtype": dt, "B": B, "H": H, "S": S, "D": D, "causal": causal, "threads": opt.threads,
                           "clock": opt.clock, "cannon_ms": mo, "torch_ms": mt, "ratio": mt / mo,
                           "torch_dtype": "float32" if (dt == "float32" or opt.torch_fp32) else dt}
                    del ns, ours, theirs
                    if not opt.no_memory:
                        for side in ("cannon", "torch"):
                            env = dict(os.environ)
                            r = subprocess.run([sys.executable, "-c", MEM.format(tests=tests, pkg=os.path.join(HERE, "..", "..", "python"), side=side,
                                                                                  **fmt).replace("{BIG}", str(BIG))],
                                               env=env, capture_output=True, text=True, check=True)
                            row[f"{side}_peak_mib"] = int(r.stdout.split()[-1]) / 1024
                    rows.append(row)
                    mem = "" if opt.no_memory else (f"; extra peak cannon {row['cannon_peak_mib']:.1f} MiB, "
                                                    f"torch {row['torch_peak_mib']:.1f} MiB")
                    print(f"{dt:8s} B={B} H={H} S={S} D={D} causal={causal} threads={opt.threads}: "
                          f"cannon {mo:.1f} ms, torch {row['torch_dtype']} {mt:.1f} ms, x{mt / mo:.2f}{mem}",
                          flush=True)
    if opt.json:
        with open(opt.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
