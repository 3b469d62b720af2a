#!/usr/bin/python3
"""One training step (forward, backward, optimizer) of a small pre-norm transformer block, three ways,
interleaved in one process:

  torch32  torch.nn modules, matmul-softmax-matmul attention, torch.optim.AdamW, fp32
  torchbf  the same inside torch.autocast("cpu", dtype=torch.bfloat16)
  cannon   cannon.torch modules (Linear, LayerNorm, SwiGLU), flash_attention, rotary_embedding inside
           cannon.torch.amp.autocast(bfloat16), GradScaler and cannon.torch.optim.AdamW

    CANNON_LIB_DIR=build/lib /usr/bin/python3 bench/python/bench_torch_amp.py [--samples 5] [--threads 1]
        [--batch 4] [--seq 128] [--dim 256] [--heads 8] [--kv-heads 4] [--layers 2] [--clock cpu|wall]

Block: x + attn(layernorm(x)) with rotary q/k and grouped-query heads, then x + swiglu_mlp(layernorm(x)),
--layers of them, loss = mean(out²). Each sample times k steps (k so that a sample lasts >= 0.2 s);
the sides alternate sample by sample and the median ms per step and the ratio torch / cannon
(> 1: cannon faster) are printed. --clock cpu (the default) times the process's CPU time, the
figure a machine shared with other jobs still gives with --threads 1.
"""
import argparse
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    a = ap.parse_args()
    os.environ.setdefault("CANNON_CPU_THREADS", str(a.threads))
    import torch
    import cannon.torch as ct
    torch.set_num_threads(a.threads)
    F = torch.nn.functional
    B, S, Dm, N, Nkv, L = a.batch, a.seq, a.dim, a.heads, a.kv_heads, a.layers
    hd = Dm // N
    ang = torch.arange(S).double()[:, None] * (10000.0 ** (-torch.arange(0, hd, 2).double() / hd))[None]
    ang = torch.cat([ang, ang], -1)
    cos, sin = ang.cos().float().reshape(1, 1, S, hd), ang.sin().float().reshape(1, 1, S, hd)

    def rot_half(x):
        x1, x2 = x.chunk(2, -1)
        return torch.cat([-x2, x1], -1)

    class TorchBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.n1, self.n2 = torch.nn.LayerNorm(Dm), torch.nn.LayerNorm(Dm)
            self.qkv = torch.nn.Linear(Dm, (N + 2 * Nkv) * hd, bias=False)
            self.o = torch.nn.Linear(Dm, Dm, bias=False)
            self.w1 = torch.nn.Linear(Dm, 2 * 2 * Dm, bias=False)
            self.w2 = torch.nn.Linear(2 * Dm, Dm, bias=False)

        def forward(self, x):
            h = self.qkv(self.n1(x))
            q, k, v = h.split([N * hd, Nkv * hd, Nkv * hd], -1)
            q = q.reshape(B, S, N, hd).transpose(1, 2)
            k = k.reshape(B, S, Nkv, hd).transpose(1, 2)
            v = v.reshape(B, S, Nkv, hd).transpose(1, 2)
            q = q * cos.to(q.dtype) + rot_half(q) * sin.to(q.dtype)
            k = k * cos.to(k.dtype) + rot_half(k) * sin.to(k.dtype)
            k, v = k.repeat_interleave(N // Nkv, 1), v.repeat_interleave(N // Nkv, 1)
            s = q @ k.transpose(-1, -2) / math.sqrt(hd)
            s = s.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), float("-inf"))
            att = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(B, S, Dm)
            x = x + self.o(att)
            g, u = self.w1(self.n2(x)).chunk(2, -1)
            return x + self.w2(F.silu(g) * u)

    class CannonBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.n1, self.n2 = ct.LayerNorm(Dm), ct.LayerNorm(Dm)
            self.qkv = ct.Linear(Dm, (N + 2 * Nkv) * hd, bias=False)
            self.o = ct.Linear(Dm, Dm, bias=False)
            self.mlp = ct.SwiGLU(Dm, 2 * Dm)

        def forward(self, x):
            h = self.qkv(self.n1(x))
            q, k, v = h.split([N * hd, Nkv * hd, Nkv * hd], -1)
            q = ct.rotary_embedding(q.reshape(B, S, N, hd), cos.reshape(1, S, 1, hd), sin.reshape(1, S, 1, hd))
            k = ct.rotary_embedding(k.reshape(B, S, Nkv, hd), cos.reshape(1, S, 1, hd), sin.reshape(1, S, 1, hd))
            att = ct.flash_attention(q, k, v.reshape(B, S, Nkv, hd), causal=True, layout="BSND")
            x = x + self.o(att.reshape(B, S, Dm))
            return x + self.mlp(self.n2(x))

    torch.manual_seed(0)
    tm = torch.nn.Sequential(*[TorchBlock() for _ in range(L)])
    cm = torch.nn.Sequential(*[CannonBlock() for _ in range(L)])
    x = torch.randn(B, S, Dm)
    topt = torch.optim.AdamW(tm.parameters(), lr=1e-4)
    copt = ct.optim.AdamW(cm.parameters(), lr=1e-4)
    scaler = ct.amp.GradScaler()

    def step_torch32():
        topt.zero_grad()
        tm(x).square().mean().backward()
        topt.step()

    def step_torchbf():
        topt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = tm(x)
        out.float().square().mean().backward()
        topt.step()

    def step_cannon():
        copt.zero_grad()
        with ct.amp.autocast(dtype=torch.bfloat16):
            out = cm(x)
        scaler.scale(out.float().square().mean()).backward()
        scaler.step(copt)
        scaler.update()

    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    sides = {"torch32": step_torch32, "torchbf": step_torchbf, "cannon": step_cannon}
    reps = {}
    for name, f in sides.items():
        f()
        t0 = clock()
        f()
        dt = max(clock() - t0, 1e-4)
        reps[name] = max(1, int(0.2 / dt))
    res = {n: [] for n in sides}
    for _ in range(a.samples):
        for name, f in sides.items():
            t0 = clock()
            for _ in range(reps[name]):
                f()
            res[name].append((clock() - t0) / reps[name] * 1e3)
    med = {n: statistics.median(v) for n, v in res.items()}
    print(f"block step B={B} S={S} dim={Dm} heads={N}/{Nkv} layers={L} threads={a.threads} clock={a.clock} "
          f"samples={a.samples}")
    print(f"{'side':8} {'ms/step':>9} {'side / cannon':>14}")
    for n in sides:
        print(f"{n:8} {med[n]:9.2f} {med[n] / med['cannon']:14.2f}")


if __name__ == "__main__":
    main()
