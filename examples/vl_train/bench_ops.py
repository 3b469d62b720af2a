#!/usr/bin/python3
"""Where the cannon mode's step time goes, two ways.

    /usr/bin/python3 examples/vl_train/bench_ops.py [--rounds 7] [--threads 1] [--no-ops] [--no-slots]

1. Operators in isolation: the model's attention and linear shapes, cannon's version and torch's
   bf16 version alternately, `--rounds` times each: median process CPU time of one call (forward
   and backward) and the ratio torch / cannon (> 1: cannon is faster).
2. Slots in the model: training steps of the cannon mode with one operator slot at a time given
   torch's function instead (see backends.CannonBackend), next to the plain cannon and torch bf16
   steps, round-robin, median CPU time of a step. A slot whose swap makes the step faster is one
   where cannon's operator costs more than torch's in the model.

CPU time, not wall time: the figures are meant for a machine shared with other jobs.
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


def slot_steps(rounds):
    import data
    import train
    from model import Config
    imgs, caps = data.make_dataset(0, 256, 32)
    imgs, caps = torch.from_numpy(imgs), torch.from_numpy(caps)
    variants = [("torch bf16 autocast", "bf16", ()), ("cannon", "cannon", ())]
    variants += [(f"cannon, torch {s}", "cannon", (s,)) for s in ("attention", "rotary", "swiglu")]
    runs = []
    for name, mode, slots in variants:
        m, opt, sc, ctx = train.build(mode, Config(), 0, 4e-3, 0.01, slots=slots)
        it = train.batches(256, 64, 10 ** 6, 0)
        for _ in range(2):
            train.train_step(m, opt, sc, ctx, *(lambda i: (imgs[i], caps[i]))(next(it)))
        runs.append((name, m, opt, sc, ctx, it, []))
    for _ in range(rounds):
        for name, m, opt, sc, ctx, it, ts in runs:
            i = next(it)
            ts.append(_cpu(lambda: train.train_step(m, opt, sc, ctx, imgs[i], caps[i])))
    print(f"\n{'training step (model config, batch 64)':<40} {'ms cpu':>8}")
    for name, *_, ts in runs:
        print(f"{name:<40} {statistics.median(ts) * 1e3:8.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-ops", action="store_true")
    ap.add_argument("--no-slots", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.environ.setdefault("CANNON_CPU_THREADS", str(a.threads))
    if not a.no_ops:
        ops_table(a)
    if not a.no_slots:
        slot_steps(a.rounds)


def ops_table(a):
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
