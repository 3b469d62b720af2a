#!/usr/bin/python3
"""torch.ops.cannon.* against torch's own CPU kernels, interleaved in the same process.

    CANNON_LIB_DIR=build/lib /usr/bin/python3 bench/python/bench_torch_ops.py [--threads 1,2]
        [--caps default,avx512] [--samples 7] [--cases softmax,bn,ln,emb] [--no-big] [--json FILE]
        [--settle-ms 20]

For every (thread count, torch CPU capability) pair the script starts one worker process (both
settings must be fixed before torch and cannon initialise: torch.set_num_threads +
ATEN_CPU_CAPABILITY, CANNON_CPU_THREADS). A worker measures, per case, torch and cannon
alternately sample by sample: 2 warm-up calls, then samples of k calls (k chosen so a sample lasts
>= 50 ms, each after a 20 ms pause, see SETTLE_S), NS samples each; it reports the median time per call, effective GB/s (the minimum bytes
the operation must move) and the ratio
torch / cannon (> 1: cannon is faster). It also measures a copy floor (torch copy_ of 256 MiB,
same threads) and reports floor ms = bytes / copy bandwidth.

Both sides allocate their outputs per call, as a user's call does ("alloc"); softmax also runs
into preallocated outputs ("out": torch's aten._softmax.out against cannon's softmax.out), and
embedding backward also against torch's kernel alone ("kern": zero_() + index_add_ into an
existing dense gradient; cannon's row is its ordinary call). Workers
run with MALLOC_MMAP_THRESHOLD_=32 MiB, MALLOC_MMAP_MAX_=0 and a large MALLOC_TRIM_THRESHOLD_, so
torch takes every block from the heap and reuses it instead of page-faulting it again (with
only the first and the last set, glibc still maps every block above 32 MiB and unmaps it when
freed). That matters twice on virtual machines: torch's own allocating calls on large outputs
page-fault on every call, and right after such an unmapping the next memory-bound call in the
process, whichever library makes it, runs several times slower. --default-malloc keeps glibc's
defaults. cannon's outputs come from its caching device allocator.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))


# ---- worker --------------------------------------------------------------------------------

import bench_timing
from bench_timing import measure




def zipf_indices(V, n, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, V + 1, dtype=np.float64)
    p = 1.0 / ranks
    p /= p.sum()
    return rng.choice(V, size=n, p=p)


def worker(args):
    bench_timing.SETTLE_S = args.settle_ms / 1e3
    import torch
    torch.set_num_threads(args.threads)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import cannon.torch
    C, A = torch.ops.cannon, torch.ops.aten
    assert "softmax" in cannon.torch.OPS
    torch.manual_seed(0)
    rows = []
    cases = set(args.cases.split(","))

    def copy_floor():
        """Bytes per second of a 256 MiB copy (read + write), the same threads."""
        src, dst = torch.ones(64 << 20), torch.empty(64 << 20)
        cp = measure({"copy": lambda: dst.copy_(src)}, args.samples)
        return 2 * src.numel() * 4 / statistics.median(cp["copy"])
    copy_bw = copy_floor()

    def row(case, mode, nbytes, res):
        t, c = statistics.median(res["torch"]), statistics.median(res["cannon"])
        rows.append({"case": case, "mode": mode, "torch_ms": t * 1e3, "cannon_ms": c * 1e3,
                     "torch_min_ms": min(res["torch"]) * 1e3, "cannon_min_ms": min(res["cannon"]) * 1e3,
                     "torch_GBs": nbytes / t / 1e9, "cannon_GBs": nbytes / c / 1e9, "ratio": t / c,
                     "floor_ms": nbytes / copy_bw * 1e3})
        print(f"  {case:44s} {mode:5s} torch {t * 1e3:8.3f} ms  cannon {c * 1e3:8.3f} ms  x{t / c:5.2f}",
              file=sys.stderr, flush=True)

    if "softmax" in cases:
        shapes = [(4096, 1024), (512, 32000), (65536, 128)] + ([] if args.no_big else [(64, 16, 512, 512)])
        for shape in shapes:
            x = torch.randn(shape)
            nb = 2 * x.numel() * 4
            for log in (False, True):
                name = ("log_softmax " if log else "softmax ") + str(list(shape))
                if log:
                    ft, fc = (lambda: A._log_softmax(x, -1, False)), (lambda: C.log_softmax(x, -1))
                else:
                    ft, fc = (lambda: A._softmax(x, -1, False)), (lambda: C.softmax(x, -1))
                torch.testing.assert_close(fc(), ft(), rtol=1e-5, atol=1e-6)
                if x.numel() < (256 << 20) or args.big_alloc:
                    # torch's allocating call of a 1 GiB output page-faults for seconds: "out" only
                    row(name, "alloc", nb, measure({"torch": ft, "cannon": fc}, args.samples))
                ot, oc = torch.empty(shape), torch.empty(shape)
                if log:
                    gt = (lambda: A._log_softmax.out(x, -1, False, out=ot))
                    gc = (lambda: C.log_softmax.out(x, -1, out=oc))
                else:
                    gt, gc = (lambda: A._softmax.out(x, -1, False, out=ot)), (lambda: C.softmax.out(x, -1, out=oc))
                row(name, "out", nb, measure({"torch": gt, "cannon": gc}, args.samples))
                del ot, oc
            del x

    if "bn" in cases:
        for shape in [(32, 64, 56, 56), (64, 256, 14, 14)]:
            Cn = shape[1]
            x, dy = torch.randn(shape) * 2 + 1, torch.randn(shape)
            w, b = torch.rand(Cn) + 0.5, torch.randn(Cn)
            rm, rv = torch.zeros(Cn), torch.ones(Cn)
            n = x.numel() * 4
            mask = [True, True, True]
            name = f"batch_norm train NCHW {list(shape)}"
            o, sm, si = A.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
            oc, smc, sic = C.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
            torch.testing.assert_close(oc, o, rtol=1e-4, atol=1e-4)
            row(name + " fwd", "alloc", 2 * n, measure({
                "torch": lambda: A.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5),
                "cannon": lambda: C.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)}, args.samples))
            row(name + " bwd", "alloc", 3 * n, measure({
                "torch": lambda: A.native_batch_norm_backward(dy, x, w, rm, rv, sm, si, True, 1e-5, mask),
                "cannon": lambda: C.native_batch_norm_backward(dy, x, w, rm, rv, smc, sic, True, 1e-5, mask)},
                args.samples))

            def tfb():
                _, a, b_ = A.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
                A.native_batch_norm_backward(dy, x, w, rm, rv, a, b_, True, 1e-5, mask)

            def cfb():
                _, a, b_ = C.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
                C.native_batch_norm_backward(dy, x, w, rm, rv, a, b_, True, 1e-5, mask)
            row(name + " fwd+bwd", "alloc", 5 * n, measure({"torch": tfb, "cannon": cfb}, args.samples))
            del x, dy

    if "ln" in cases:
        shape = (8192, 4096)
        x, dy = torch.randn(shape), torch.randn(shape)
        w, b = torch.rand(4096) + 0.5, torch.randn(4096)
        n = x.numel() * 4
        o, m, r = A.native_layer_norm(x, [4096], w, b, 1e-5)
        oc, mc, rc = C.native_layer_norm(x, [4096], w, b, 1e-5)
        torch.testing.assert_close(oc, o, rtol=1e-4, atol=1e-4)
        row(f"layer_norm {list(shape)} fwd", "alloc", 2 * n, measure({
            "torch": lambda: A.native_layer_norm(x, [4096], w, b, 1e-5),
            "cannon": lambda: C.native_layer_norm(x, [4096], w, b, 1e-5)}, args.samples))
        mask = [True, True, True]
        row(f"layer_norm {list(shape)} bwd", "alloc", 3 * n, measure({
            "torch": lambda: A.native_layer_norm_backward(dy, x, [4096], m, r, w, b, mask),
            "cannon": lambda: C.native_layer_norm_backward(dy, x, [4096], mc, rc, w, b, mask)}, args.samples))
        del x, dy

    if "emb" in cases:
        V, D, nidx = 32000, 4096, 8192
        idx = torch.from_numpy(zipf_indices(V, nidx)).long()
        g = torch.randn(nidx, D)
        nb = g.numel() * 4 + idx.numel() * 8 + V * D * 4
        e = C.embedding_dense_backward(g, idx, V, -1, False)
        torch.testing.assert_close(e, A.embedding_dense_backward(g, idx, V, -1, False), rtol=1e-4, atol=1e-4)
        del e
        row(f"embedding_dense_backward V={V} D={D} n={nidx}", "alloc", nb, measure({
            "torch": lambda: A.embedding_dense_backward(g, idx, V, -1, False),
            "cannon": lambda: C.embedding_dense_backward(g, idx, V, -1, False)}, args.samples))
        # torch's kernel without its allocation: zero an existing dense grad and scatter-add into it
        # (torch 1.13's embedding_dense_backward.out allocates anyway: an autogenerated wrapper)
        dense = torch.zeros(V, D)

        def torch_kernel():
            dense.zero_()
            dense.index_add_(0, idx, g)
        row(f"embedding_dense_backward V={V} D={D} n={nidx}", "kern", nb, measure({
            "torch": torch_kernel, "cannon": lambda: C.embedding_dense_backward(g, idx, V, -1, False)},
            args.samples))

    json.dump({"threads": args.threads, "cap": args.cap, "copy_GBs": copy_bw / 1e9, "rows": rows}, sys.stdout)


# ---- driver --------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--caps", default="default,avx512", help="torch ATEN_CPU_CAPABILITY values ('default': unset)")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--cases", default="softmax,bn,ln,emb")
    ap.add_argument("--no-big", action="store_true", help="skip softmax [64,16,512,512] (1 GiB in, 1 GiB out)")
    ap.add_argument("--big-alloc", action="store_true", help="also the allocating rows of [64,16,512,512]")
    ap.add_argument("--default-malloc", action="store_true")
    ap.add_argument("--settle-ms", type=float, default=20.0,
                    help="pause before every sample, so that neither side starts beside the other's spinning threads")
    ap.add_argument("--json", help="write all rows to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cap", default="default", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        return worker(args)
    if not os.environ.get("CANNON_LIB_DIR") and not os.path.exists(os.path.join(REPO, "build", "lib")):
        sys.exit("set CANNON_LIB_DIR to the folder holding cannon's libraries")
    load0 = os.getloadavg()
    results = []
    for th in [int(t) for t in args.threads.split(",")]:
        for cap in args.caps.split(","):
            env = dict(os.environ, CANNON_CPU_THREADS=str(th), OMP_NUM_THREADS=str(th))
            env.pop("ATEN_CPU_CAPABILITY", None)
            if cap != "default":
                env["ATEN_CPU_CAPABILITY"] = cap
            if not args.default_malloc:
                env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))
                env.setdefault("MALLOC_MMAP_MAX_", "0")
                env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 40))
            print(f"threads={th} torch capability={cap} load={os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--threads", str(th), "--cap", cap,
                   "--samples", str(args.samples), "--cases", args.cases, "--settle-ms", str(args.settle_ms)] + (["--no-big"] if args.no_big else []) + (
                ["--big-alloc"] if args.big_alloc else [])
            out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
            results.append(json.loads(out))
    load1 = os.getloadavg()
    print(f"\nload average (1 min) at start {load0[0]:.2f}, at end {load1[0]:.2f}\n")
    print("| case | mode | threads | torch cap | torch ms | cannon ms | torch GB/s | cannon GB/s | floor ms | "
          "torch/cannon |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for x in r["rows"]:
            print(f"| {x['case']} | {x['mode']} | {r['threads']} | {r['cap']} | {x['torch_ms']:.3g} | "
                  f"{x['cannon_ms']:.3g} | {x['torch_GBs']:.3g} | {x['cannon_GBs']:.3g} | {x['floor_ms']:.3g} | "
                  f"**{x['ratio']:.2f}** |")
    for r in results:
        print(f"copy floor: threads={r['threads']} cap={r['cap']}: {r['copy_GBs']:.1f} GB/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_start": load0, "load_end": load1, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
