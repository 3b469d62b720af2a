#!/usr/bin/python3
"""The model's heaviest operators at its own shapes, cannon against torch (bf16), forward + backward.

    /usr/bin/python3 examples/vl_train/bench_ops.py [--rounds 7] [--threads 1]

Each case runs cannon's and torch's version alternately, `--rounds` times each, and prints the
median process CPU time of one call (forward and backward) and the ratio torch / cannon (> 1: cannon
is faster). CPU time, not wall time: the figures are meant for a machine shared with other jobs.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import torch  # noqa: E402

import backends as bk  # noqa: E402

BF16 = torch.bfloat16


def _cpu(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def attention_case(B, N, Nkv, S, D, causal):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, N, S, D, generator=g).to(BF16).requires_grad_()
    k = torch.randn(B, Nkv, S, D, generator=g).to(BF16).requires_grad_()
    v = torch.randn(B, Nkv, S, D, generator=g).to(BF16).requires_grad_()
    dy = torch.randn(B, N, S, D, generator=g).to(BF16)
    cb = bk.CannonBackend()

    def c():
        cb.attention(q, k, v, causal=causal).backward(dy)

    def t():
        bk.TorchBackend.attention(q, k, v, causal=causal).backward(dy)
    name = f"attention B{B} N{N}/{Nkv} S{S} D{D}{' causal' if causal else ''}"
    return name, c, t


def linear_case(M, K, N):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(M, K, generator=g).requires_grad_()
    w = (torch.randn(N, K, generator=g) / K ** 0.5).requires_grad_()
    dy = torch.randn(M, N, generator=g).to(BF16)
    cb = bk.CannonBackend()
    import cannon.torch.amp as camp

    def c():
        with camp.autocast(dtype=BF16):
            y = cb.linear(x, w)
        y.backward(dy)

    def t():
        with torch.autocast("cpu", dtype=BF16):
            y = torch.nn.functional.linear(x, w)
        y.backward(dy)
    return f"linear [{M},{K}] x [{N},{K}]^T (fp32 master, bf16 compute)", c, t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cases = [attention_case(64, 4, 4, 64, 24, False), attention_case(64, 4, 2, 20, 32, True),
             linear_case(4096, 96, 288), linear_case(4096, 96, 384), linear_case(4096, 384, 96)]
    print(f"{'case':<58} {'cannon ms':>10} {'torch ms':>9} {'torch/cannon':>13}")
    for name, c, t in cases:
        c(), t()  # warm-up
        tc, tt = [], []
        for _ in range(a.rounds):
            tc.append(_cpu(c))
            tt.append(_cpu(t))
        mc, mt = statistics.median(tc) * 1e3, statistics.median(tt) * 1e3
        print(f"{name:<58} {mc:10.2f} {mt:9.2f} {mt / mc:13.2f}", flush=True)


if __name__ == "__main__":
    main()
