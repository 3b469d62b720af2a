#!/usr/bin/python3
"""cannon.triton's compiled kernels (examples/triton) against their peers, interleaved in one process.

    CANNON_LIB_DIR=build/lib PYTHONPATH=python /usr/bin/python3 bench/python/bench_triton.py
        [--samples 7] [--threads 2] [--cases add,softmax,matmul,layernorm,attention,launch]
        [--settle-ms 20] [--quick]

Rows (each the median of --samples interleaved samples, see bench_timing.py; ratio = peer / triton,
> 1: the Triton kernel is faster):
- add: the axpy kernel (alpha 1) on 64 MiB fp32 operands against aclnnAdd (cannon.ops.call, sync)
  on DeviceArrays of the same size; target ratio >= 0.9;
- softmax [4096,1024] and [512,32000] fp32: against torch.softmax (target >= 1.2) and aclnnSoftmax
  (target >= 0.8);
- matmul 2048^3 fp32 after autotune against torch.mm (OpenBLAS sgemm in Debian's torch; target
  >= 0.6), and the same kernel on bf16 inputs against its own fp32 time (target >= 1.5);
- layernorm [4096,1024] fp32 against torch.nn.functional.layer_norm (target >= 1);
- attention [1,8,1024,64] fp32 flash-attention forward against torch 1.13's
  softmax(q @ k^T * scale) @ v (target >= 1);
- launch: one launch of a cached 1-program kernel from Python (target <= 15 us), and the first
  compile of a simple kernel into an empty cache (target <= 1.5 s).
Compiled launches go through cannonLaunchKernel on the current stream (the runtime is initialised
for the aclnn peers); CANNON_TRITON_DIRECT=1 selects the direct thread pool. The threads of every
side are --threads (CANNON_CPU_THREADS, torch.set_num_threads, num_cpu_threads).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "examples", "triton"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("CANNON_CPU_THREADS", "2") or 2))
    ap.add_argument("--cases", default="add,softmax,matmul,layernorm,attention,launch")
    ap.add_argument("--settle-ms", type=float, default=20)
    ap.add_argument("--quick", action="store_true", help="small shapes, one sample (a smoke run)")
    a = ap.parse_args()
    os.environ["CANNON_CPU_THREADS"] = str(a.threads)
    import torch
    torch.set_num_threads(a.threads)
    import bench_timing
    bench_timing.SETTLE_S = a.settle_ms / 1000
    if a.quick:
        bench_timing.MIN_SAMPLE_S, bench_timing.SETTLE_S, a.samples = 0, 0, 1
    import numpy as np
    import cannon.triton as triton
    import cannon.triton.language as tl
    from cannon import ops, runtime
    from cannon.array import DeviceArray
    import attention
    import elementwise
    import matmul
    import row_reduction

    runtime.ensure_initialized()
    cases = set(a.cases.split(","))
    rows = []

    def row(name, target, pairs, check=None):
        res = bench_timing.measure(pairs, a.samples)
        med = {k: statistics.median(v) for k, v in res.items()}
        names = list(pairs)
        t = med[names[0]]
        for peer in names[1:]:
            ratio = med[peer] / t
            rows.append((name, names[0], t, peer, med[peer], ratio, target))
            print(f"{name:34s} {names[0]:10s} {t * 1e3:9.3f} ms  {peer:16s} {med[peer] * 1e3:9.3f} ms  "
                  f"ratio {ratio:5.2f}  (target {target})", flush=True)

    def dev(t):
        return DeviceArray.from_numpy(t.numpy())

    def sync_call(*args):
        return lambda: ops.call(*args, sync=True)

    if "add" in cases:
        n = (1 << 14) if a.quick else (64 << 20) // 4
        x, y, out = torch.randn(n), torch.randn(n), torch.empty(n)
        dx, dy, dout = dev(x), dev(y), DeviceArray((n,))
        kern = elementwise.axpy_kernel
        grid = (triton.cdiv(n, elementwise.BLOCK),)
        kern[grid](x, y, out, 1.0, n, BLOCK=elementwise.BLOCK)
        assert torch.equal(out, x + y)
        row(f"add fp32 [{n}]", ">= 0.9 vs aclnnAdd",
            {"triton": lambda: kern[grid](x, y, out, 1.0, n, BLOCK=elementwise.BLOCK),
             "aclnnAdd": sync_call("aclnnAdd", dx, dy, ops.Scalar(1.0, "float32"), dout)})

    if "softmax" in cases:
        for shape in ([(64, 1024), (8, 32000)] if a.quick else [(4096, 1024), (512, 32000)]):
            x = torch.randn(*shape)
            out = torch.empty_like(x)
            dx, dout = dev(x), DeviceArray(shape)
            blk = triton.next_power_of_2(shape[1])
            k = row_reduction.softmax_kernel
            k[(shape[0],)](out, x, shape[1], shape[1], shape[1], BLOCK=blk)
            assert torch.allclose(out, torch.softmax(x, -1), rtol=1e-5, atol=1e-8)
            row(f"softmax fp32 {list(shape)}", ">= 1.2 torch, >= 0.8 aclnn",
                {"triton": lambda: k[(shape[0],)](out, x, shape[1], shape[1], shape[1], BLOCK=blk),
                 "torch.softmax": lambda: torch.softmax(x, -1),
                 "aclnnSoftmax": sync_call("aclnnSoftmax", dx, -1, dout)})

    if "layernorm" in cases:
        shape = (64, 1024) if a.quick else (4096, 1024)
        x, w, b = torch.randn(*shape), torch.randn(shape[1]), torch.randn(shape[1])
        y = torch.empty_like(x)
        k = row_reduction.layer_norm_kernel
        blk = triton.next_power_of_2(shape[1])
        k[(shape[0],)](x, y, w, b, shape[1], shape[1], 1e-5, BLOCK=blk)
        assert torch.allclose(y, torch.nn.functional.layer_norm(x, (shape[1],), w, b), rtol=1e-4, atol=1e-4)
        row(f"layernorm fp32 {list(shape)}", ">= 1 vs torch",
            {"triton": lambda: k[(shape[0],)](x, y, w, b, shape[1], shape[1], 1e-5, BLOCK=blk),
             "torch.layer_norm": lambda: torch.nn.functional.layer_norm(x, (shape[1],), w, b)})

    if "matmul" in cases:
        n = 256 if a.quick else 2048
        A, B = torch.randn(n, n), torch.randn(n, n)
        t0 = time.perf_counter()
        C = matmul.matmul(A, B)
        tune = time.perf_counter() - t0
        print(f"matmul autotune {n}^3 fp32: {tune:.1f} s, best {matmul.matmul_kernel.best_config}", flush=True)
        assert torch.allclose(C, A @ B, rtol=1e-3, atol=1e-3)
        Ab, Bb = A.bfloat16(), B.bfloat16()
        matmul.matmul(Ab, Bb)
        print(f"matmul bf16 best {matmul.matmul_kernel.best_config}", flush=True)
        row(f"matmul fp32 {n}^3", ">= 0.6 vs sgemm",
            {"triton": lambda: matmul.matmul(A, B), "torch.mm": lambda: torch.mm(A, B)})
        row(f"matmul bf16 in {n}^3", ">= 1.5 vs own fp32",
            {"triton bf16": lambda: matmul.matmul(Ab, Bb), "triton fp32": lambda: matmul.matmul(A, B)})

    if "attention" in cases:
        shape = (1, 2, 128, 64) if a.quick else (1, 8, 1024, 64)
        q, k, v = (torch.randn(*shape) for _ in range(3))
        scale = 1.0 / shape[-1] ** 0.5

        def ref():
            return torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, -1) @ v
        assert torch.allclose(attention.attention(q, k, v), ref(), rtol=1e-4, atol=1e-4)
        row(f"attention fwd fp32 {list(shape)}", ">= 1 vs torch",
            {"triton": lambda: attention.attention(q, k, v), "torch": ref})

    if "launch" in cases:
        @triton.jit
        def tiny(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=0) + 1, mask=offs < n)
        x = torch.zeros(16)
        tiny[(1,)](x, 16, BLOCK=16)
        reps = 200 if a.quick else 20000
        ts = []
        for _ in range(max(a.samples, 3)):
            t0 = time.perf_counter()
            for _ in range(reps):
                tiny[(1,)](x, 16, BLOCK=16)
            ts.append((time.perf_counter() - t0) / reps)
        us = statistics.median(ts) * 1e6
        rows.append(("launch", "cached", us, "", 0, 0, "<= 15 us"))
        print(f"{'launch of a cached kernel':34s} {us:9.2f} us per launch (target <= 15 us)", flush=True)
        old = os.environ.get("TRITON_CACHE_DIR")
        d = tempfile.mkdtemp(prefix="bench-triton-cache-")
        os.environ["TRITON_CACHE_DIR"] = d
        try:
            @triton.jit
            def fresh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
            y = torch.empty(16)
            t0 = time.perf_counter()
            fresh[(1,)](x, y, 16, BLOCK=16)
            first = time.perf_counter() - t0
            assert fresh.last_mode == "compiled", fresh.fallback_reason
        finally:
            shutil.rmtree(d, ignore_errors=True)
            if old is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = old
        print(f"{'first compile of a simple kernel':34s} {first:9.3f} s (target <= 1.5 s)", flush=True)
    del np
    return 0


if __name__ == "__main__":
    sys.exit(main())
