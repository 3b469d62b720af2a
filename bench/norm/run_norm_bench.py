#!/usr/bin/python3
"""Run bench_norm (cannon) and its peers -- torch (aten native_batch_norm / native_layer_norm and
their backward ops; RmsNorm as torch code with autograd, torch 1.13 having no rms_norm op), with
its default and its AVX-512 kernels, and oneDNN (bench_norm_dnnl, batch norm only) -- case by
case, interleaved, for 1 and 2 threads, --rounds times; print one JSON line per case and round,
then a table of the medians over the rounds:
  pct_of_floor = floor time / cannon time, floor = the case's passes over memory / the copy
                 bandwidth measured by bench_norm in the same run (floor5: 5 tensor passes;
                 floor8, batch norm: 8, see bench_norm.c);
  vs_best_peer = best peer time / cannon time (> 1: cannon faster);
  bwd x        = the same for the backward alone (no forward before it).

  /usr/bin/python3 bench/norm/run_norm_bench.py --build build-bn [--threads 1,2] [--ns 7] [--rounds 3]
      [--cases bn,ln,rms] [--layouts nchw,nhwc] [--shapes 32x64x56x56,64x256x14x14] [--no-peers]
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
case, layout, shape, threads, ns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
torch.set_num_threads(threads)
dims = [int(d) for d in shape.split("x")]
g = torch.Generator().manual_seed(0)
aten = torch.ops.aten
if case == "bn":
    C = dims[1]
    x = torch.rand(dims, generator=g) + 1.0
    dy = torch.rand(dims, generator=g) * 0.1
    if layout == "nhwc":
        x = x.contiguous(memory_format=torch.channels_last)
        dy = dy.contiguous(memory_format=torch.channels_last)
    w, b, rm, rv = torch.ones(C), torch.zeros(C), torch.zeros(C), torch.ones(C)
    def fwd():
        return aten.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
    def both():
        y, sm, si = fwd()
        aten.native_batch_norm_backward(dy, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True])
    _, sm0, si0 = fwd()
    def bwd():  # the backward alone, as cannon's bwd_ms (no forward before it)
        aten.native_batch_norm_backward(dy, x, w, rm, rv, sm0, si0, True, 1e-5, [True, True, True])
elif case == "ln":
    R = dims[-1]
    x = torch.rand(dims, generator=g) + 1.0
    dy = torch.rand(dims, generator=g) * 0.1
    w, b = torch.ones(R), torch.zeros(R)
    def fwd():
        return aten.native_layer_norm(x, [R], w, b, 1e-5)
    def both():
        y, m, r = fwd()
        aten.native_layer_norm_backward(dy, x, [R], m, r, w, b, [True, True, True])
    _, m0, r0 = fwd()
    def bwd():
        aten.native_layer_norm_backward(dy, x, [R], m0, r0, w, b, [True, True, True])
else:
    R = dims[-1]
    x0 = torch.rand(dims, generator=g) + 1.0
    dy = torch.rand(dims, generator=g) * 0.1
    w0 = torch.ones(R)
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    def fwd():
        with torch.no_grad():
            return rms(x0, w0)
    def both():
        x = x0.detach().requires_grad_()
        w = w0.detach().requires_grad_()
        torch.autograd.grad(rms(x, w), (x, w), dy)
    bwd = None
def timed(fn):
    fn(); fn()
    t0 = time.perf_counter(); fn(); one = time.perf_counter() - t0
    k = 1 if one > 0.05 else int(0.05 / max(one, 1e-7)) + 1
    s = []
    # torch 1.13's CPU layer norm and the autograd RMSNorm take seconds on [8192, 4096]: 3 samples.
    for _ in range(ns if one < 0.5 else min(ns, 3)):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        s.append((time.perf_counter() - t0) / k * 1e3)
    s.sort()
    return s
s = timed(both)
f = timed(fwd)
b = timed(bwd) if bwd else [None]
cap = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") and \
    hasattr(torch.backends.cpu, "get_cpu_capability") else "?"
print(json.dumps({"case": "torch", "ms": s[len(s) // 2], "ms_min": s[0], "ms_max": s[-1], "fwd_ms": f[len(f) // 2],
                  "bwd_ms": b[len(b) // 2], "capability": cap}))
"""


def run(cmd, env):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    out = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if not out:
        out = [{"error": (r.stderr or "")[-300:]}]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--ns", default="7")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="bn,ln,rms")
    ap.add_argument("--layouts", default="nchw,nhwc")
    ap.add_argument("--shapes", default="32x64x56x56,64x256x14x14")
    ap.add_argument("--no-peers", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bin", "bench_norm")
    dnnl = os.path.join(build, "bin", "bench_norm_dnnl")
    # The peers' blocks all come from glibc's heap and are reused (MALLOC_MMAP_MAX_=0): blocks above
    # 32 MiB are otherwise mapped per call and unmapped when freed, which on virtual machines costs torch
    # page faults on every call and the next memory-bound call a 10x slowdown (see
    # bench/python/bench_torch_ops.py).
    base = dict(os.environ, CANNON_DRIVER_PATH=os.path.join(build, "lib", "cannon", "drivers"),
                MALLOC_MMAP_THRESHOLD_=str(32 << 20), MALLOC_MMAP_MAX_="0",
                MALLOC_TRIM_THRESHOLD_=str(1 << 40))
    cases = []
    for c in a.cases.split(","):
        if c == "bn":
            cases += [("bn", lay, sh) for sh in a.shapes.split(",") for lay in a.layouts.split(",")]
        else:
            cases.append((c, "nd", "8192x4096"))
    rows = {}
    for rnd in range(a.rounds):
        for th in a.threads.split(","):
            for case, lay, shape in cases:
                env = dict(base, CANNON_CPU_THREADS=th)
                args = [bench, "--ns", a.ns, "--cases", case]
                if case == "bn":
                    args += ["--layouts", lay, "--shapes", shape]
                ours = run(args, env)[0]
                peers = {}
                if not a.no_peers:
                    for cap in ("default", "avx512"):
                        tenv = dict(base, OMP_NUM_THREADS=th)
                        if cap == "avx512":
                            tenv["ATEN_CPU_CAPABILITY"] = "avx512"
                        peers["torch_" + cap] = run([sys.executable, "-c", TORCH_PEER, case, lay, shape, th, a.ns],
                                                    tenv)[0]
                    if case == "bn" and os.path.exists(dnnl):
                        peers["onednn"] = run([dnnl, lay, shape, a.ns], dict(base, OMP_NUM_THREADS=th))[0]
                line = {"round": rnd, "threads": int(th), "case": case, "layout": lay, "shape": shape,
                        "cannon": ours, **peers}
                print(json.dumps(line), flush=True)
                rows.setdefault((int(th), case, lay, shape), []).append(line)
    med = statistics.median
    print()
    hdr = (f"{'thr':>3} {'case':<4} {'layout':<6} {'shape':<14} {'ours ms':>8} {'GB/s':>6} {'fwd ms':>7} "
           f"{'bwd ms':>7} {'copy':>5} {'%fl5':>5} {'%fl8':>5} {'torch':>7} {'t-avx512':>8} {'oneDNN':>7} "
           f"{'x best':>6} {'bwd x':>6}")
    print(hdr)
    for (th, case, lay, shape), ls in rows.items():
        def m(key, sub="cannon"):
            v = [l[sub][key] for l in ls if isinstance(l.get(sub), dict) and isinstance(l[sub].get(key), (int, float))]
            return med(v) if v else None
        ours = m("ms")
        # The floor of each round uses that round's copy bandwidth; the median of the ratios.
        p5 = m("pct_of_floor5")
        p8 = m("pct_of_floor8")
        peers = {k: m("ms", k) for k in ("torch_default", "torch_avx512", "onednn")}
        best = min((v for v in peers.values() if v), default=None)
        # The backward alone (no forward before it) against the best peer's backward alone.
        pb = [v for v in (m("bwd_ms", k) for k in ("torch_default", "torch_avx512", "onednn")) if v]
        ob = m("bwd_ms")
        bwd_x = min(pb) / ob if pb and ob else None

        def f(v, w, p=2):
            return f"{v:>{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"
        print(f"{th:>3} {case:<4} {lay:<6} {shape:<14} {f(ours, 8)} {f(m('gbs'), 6, 1)} {f(m('fwd_ms'), 7)} "
              f"{f(m('bwd_ms'), 7)} {f(m('copy_gbs'), 5, 1)} {f(p5, 5, 0)} {f(p8, 5, 0)} "
              f"{f(peers['torch_default'], 7)} {f(peers['torch_avx512'], 8)} {f(peers['onednn'], 7)} "
              f"{f(best / ours if best and ours else None, 6)} {f(bwd_x, 6)}")


if __name__ == "__main__":
    main()
