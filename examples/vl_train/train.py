#!/usr/bin/python3
"""Train the small InternVL-style model three ways and compare them.

    /usr/bin/python3 examples/vl_train/train.py [--steps N] [--quick] [--modes fp32,bf16,cannon]

Modes (each in a fresh subprocess, so that its peak memory is its own):
  fp32    torch's own CPU operators in fp32, torch.optim.AdamW
  bf16    the same under torch.autocast("cpu", dtype=torch.bfloat16)
  cannon  cannon.torch's operators under cannon.torch.amp.autocast (bf16 compute, fp32 master
          weights), cannon.torch.amp.GradScaler loss scaling, cannon.torch.optim.AdamW

Printed per mode: median step time (wall and CPU), peak memory, final loss, caption accuracy
(exact match of greedy-decoded captions on held-out images). Then the op-level comparison of the
first steps (cannon bf16 against torch fp32 on the same weights and batch) and the top operators
of a cannon profile (tools/cannon-prof).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
if os.path.isdir(os.path.join(REPO, "python", "cannon")):
    sys.path.insert(0, os.path.join(REPO, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import data  # noqa: E402
from model import TINY, Config, VLModel  # noqa: E402

MODES = ("fp32", "bf16", "cannon")


# ---- memory ---------------------------------------------------------------------------------

def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak_rss():
    """Reset the kernel's RSS high-water mark (VmHWM) to the current RSS; returns the RSS in KiB."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _status_kb("VmRSS")


# ---- one mode -----------------------------------------------------------------------------------

def build(mode, cfg, seed, lr, wd, slots=()):
    """(model, optimizer, scaler, autocast context factory) of @mode."""
    import contextlib

    import backends as bk
    torch.manual_seed(seed)
    be = bk.CannonBackend(slots=slots) if mode == "cannon" else bk.TorchBackend()
    model = VLModel(be, cfg)
    opt = bk.make_optimizer("cannon" if mode == "cannon" else "torch", model.parameters(), lr, wd)
    scaler = bk.CannonScaler(opt) if mode == "cannon" else bk.NoScaler(opt)
    if mode == "bf16":
        def ctx():
            return torch.autocast("cpu", dtype=torch.bfloat16)
    elif mode == "cannon":
        def ctx():
            return bk._amp().autocast(dtype=torch.bfloat16)
    else:
        def ctx():
            return contextlib.nullcontext()
    return model, opt, scaler, ctx


def lr_at(step, steps, lr, warmup):
    if step < warmup:
        return lr * (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return lr * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * t)))


def batches(n_train, batch, steps, seed):
    g = torch.Generator().manual_seed(seed + 1)
    for _ in range(steps):
        yield torch.randint(0, n_train, (batch,), generator=g)


def set_lr(opt, lr):
    for gr in opt.param_groups:
        gr["lr"] = lr


def train_step(model, opt, scaler, ctx, img, cap):
    opt.zero_grad()
    with ctx():
        loss = model.loss(img, cap)
    scaler.scale(loss).backward()
    scaler.step()
    return float(loss)


def accuracy(model, ctx, imgs, caps, batch=256):
    model.eval()
    hit = 0
    with torch.no_grad(), ctx():
        for i in range(0, len(imgs), batch):
            out = model.generate(imgs[i:i + batch])
            hit += int((out == caps[i:i + batch]).all(1).sum())
    model.train()
    return hit / len(imgs)


def run_mode(args):
    torch.set_num_threads(args.threads)
    cfg = TINY if args.tiny else Config()
    d = np.load(args.data)
    tr_img, tr_cap = torch.from_numpy(d["tr_img"]), torch.from_numpy(d["tr_cap"])
    te_img, te_cap = torch.from_numpy(d["te_img"]), torch.from_numpy(d["te_cap"])
    model, opt, scaler, ctx = build(args.run_mode, cfg, args.seed, args.lr, args.wd)
    nparam = sum(p.numel() for p in model.parameters())
    rss0 = reset_peak_rss()
    losses, wall, cpu = [], [], []
    for step, idx in enumerate(batches(len(tr_img), args.batch, args.steps, args.seed)):
        set_lr(opt, lr_at(step, args.steps, args.lr, args.warmup))
        t0, c0 = time.perf_counter(), time.process_time()
        losses.append(train_step(model, opt, scaler, ctx, tr_img[idx], tr_cap[idx]))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if args.progress and (step + 1) % args.progress == 0:
            print(f"    {args.run_mode} step {step + 1}: loss {np.mean(losses[-args.progress:]):.4f}, "
                  f"{1e3 * statistics.median(cpu[-args.progress:]):.0f} ms cpu/step", flush=True)
    hwm = _status_kb("VmHWM")
    acc = accuracy(model, ctx, te_img, te_cap)
    skip = 3 if args.steps > 6 else 0
    res = {
        "mode": args.run_mode, "params": nparam, "steps": args.steps, "batch": args.batch,
        "step_ms": 1e3 * statistics.median(wall[skip:]), "step_cpu_ms": 1e3 * statistics.median(cpu[skip:]),
        "peak_rss_mb": hwm / 1024, "peak_train_mb": (hwm - rss0) / 1024, "setup_rss_mb": rss0 / 1024,
        "final_loss": float(np.mean(losses[-10:])), "first_losses": losses[:3], "accuracy": acc,
        "skipped_steps": scaler.skipped, "loss_scale": scaler.get_scale(),
    }
    with open(args.out, "w") as f:
        json.dump(res, f)
    if args.run_mode == "cannon" and os.environ.get("CANNON_PROFILE"):
        from cannon import runtime
        runtime.finalize()  # the profile is written when the runtime finalizes


# ---- op-level comparison of the first steps ------------------------------------------------------

def _hook_outputs(model, store):
    hs = []
    for name, m in model.named_modules():
        if name and not any(True for _ in m.children()):
            def hook(mod, inp, out, name=name):
                if isinstance(out, torch.Tensor):
                    store.setdefault(name, []).append(out.detach().float().clone())
            hs.append(m.register_forward_hook(hook))
    return hs


def compare(args, tr_img, tr_cap, steps=2):
    """Leaf-module outputs of the first @steps steps: cannon bf16 against torch fp32, same weights
    and batches."""
    cfg = TINY if args.tiny else Config()
    acts = {}
    for mode in ("fp32", "cannon"):
        model, opt, scaler, ctx = build(mode, cfg, args.seed, args.lr, args.wd)
        store = {}
        hs = _hook_outputs(model, store)
        for step, idx in enumerate(batches(len(tr_img), args.batch, steps, args.seed)):
            set_lr(opt, lr_at(step, args.steps, args.lr, args.warmup))
            train_step(model, opt, scaler, ctx, tr_img[idx], tr_cap[idx])
        for h in hs:
            h.remove()
        acts[mode] = store
    rows = []
    for name, ref in acts["fp32"].items():
        got = acts["cannon"].get(name)
        if got is None:
            continue
        for step, (a, b) in enumerate(zip(ref, got)):
            a64, b64 = a.double().reshape(-1), b.double().reshape(-1)
            cos = float(torch.nn.functional.cosine_similarity(a64, b64, dim=0))
            err = (a64 - b64).abs()
            rel = float(err.max() / a64.abs().max().clamp_min(1e-30))
            rows.append((step, name, cos, float(err.max()), rel, float(err.pow(2).mean().sqrt())))
    return rows


# ---- driver ---------------------------------------------------------------------------------------

def make_data(args, path):
    size = TINY.image if args.tiny else Config().image
    tr_img, tr_cap = data.make_dataset(args.seed, args.n_train, size)
    te_img, te_cap = data.make_dataset(args.seed, args.n_test, size, start=10 ** 7)
    np.savez(path, tr_img=tr_img, tr_cap=tr_cap, te_img=te_img, te_cap=te_cap)


def child_cmd(args, mode, data_path, out):
    cmd = [sys.executable, os.path.abspath(__file__), "--run-mode", mode, "--data", data_path, "--out", out,
           "--steps", str(args.steps), "--batch", str(args.batch), "--lr", str(args.lr), "--wd", str(args.wd),
           "--warmup", str(args.warmup), "--seed", str(args.seed), "--threads", str(args.threads),
           "--progress", str(args.progress)]
    return cmd + (["--tiny"] if args.tiny else [])


def child_env(args):
    env = dict(os.environ)
    env.setdefault("CANNON_CPU_THREADS", str(args.threads))
    env.setdefault("OMP_NUM_THREADS", str(args.threads))
    return env


def print_table(results):
    print(f"\n{'mode':<8} {'step ms':>8} {'cpu ms':>8} {'peak train MB':>14} {'peak RSS MB':>12} "
          f"{'final loss':>11} {'accuracy':>9} {'skipped':>8}")
    for r in results:
        print(f"{r['mode']:<8} {r['step_ms']:8.1f} {r['step_cpu_ms']:8.1f} {r['peak_train_mb']:14.1f} "
              f"{r['peak_rss_mb']:12.1f} {r['final_loss']:11.4f} {100 * r['accuracy']:8.2f}% {r['skipped_steps']:8d}")
    by = {r["mode"]: r for r in results}
    if "cannon" in by:
        c = by["cannon"]
        for ref in ("fp32", "bf16"):
            if ref in by:
                r = by[ref]
                print(f"cannon vs torch {ref}: step {r['step_ms'] / c['step_ms']:.2f}x faster (cpu "
                      f"{r['step_cpu_ms'] / c['step_cpu_ms']:.2f}x), peak train memory "
                      f"{100 * c['peak_train_mb'] / max(r['peak_train_mb'], 1e-9):.0f}%, accuracy "
                      f"{100 * c['accuracy'] / max(r['accuracy'], 1e-9):.1f}% of {ref}'s")


def print_compare(rows):
    """One line per module: cosine of each step, and the errors of the last step."""
    steps = sorted({r[0] for r in rows})
    last = steps[-1] if steps else 0
    by = {}
    for r in rows:
        by.setdefault(r[1], {})[r[0]] = r
    print(f"\nop-level comparison of the first {len(steps)} steps: cannon bf16 vs torch fp32, leaf-module outputs "
          f"(same weights and batches; errors of step {last})")
    head = " ".join(f"{'cos step ' + str(s):>12}" for s in steps)
    print(f"{'module':<22} {head} {'max abs':>10} {'max rel':>9} {'rmse':>10}")
    for name, per in by.items():
        cs = " ".join(f"{per[s][2]:12.6f}" if s in per else f"{'-':>12}" for s in steps)
        r = per.get(last)
        print(f"{name:<22} {cs} {r[3]:10.3e} {r[4]:9.2e} {r[5]:10.3e}" if r else f"{name:<22} {cs}")
    if rows:
        worst = min(rows, key=lambda r: r[2])
        print(f"lowest cosine: {worst[2]:.6f} ({worst[1]}, step {worst[0]}); max rel is the max abs error over the "
              f"fp32 output's max |value|")


def profile(args, data_path, tmp):
    """Run the cannon mode for a few steps under tools/cannon-prof and print its summary."""
    prof = os.path.join(REPO, "tools", "cannon-prof")
    if not os.path.exists(prof):
        print("\n(tools/cannon-prof not found: no profile)")
        return
    out = os.path.abspath(args.prof_dir)
    import shutil
    shutil.rmtree(os.path.join(out, "raw"), ignore_errors=True)  # raw files of an earlier run
    steps = min(args.steps, 20)
    cmd = [sys.executable, prof, "run", "-o", out, "--quiet", "--"] + child_cmd(args, "cannon", data_path,
                                                                                  os.path.join(tmp, "p.json"))
    i = cmd.index("--steps")
    cmd[i + 1] = str(steps)
    r = subprocess.run(cmd, env=child_env(args), capture_output=True, text=True)
    summary = os.path.join(out, "summary.csv")
    if r.returncode != 0 or not os.path.exists(summary):
        print("\nprofile failed:", r.stderr[-2000:])
        return
    import csv
    with open(summary) as f:
        rows = list(csv.DictReader(f))
    print(f"\ntop operators by time, cannon mode, {steps} steps + evaluation (cannon-prof; trace: {out}/trace.json)")
    print(f"{'name':<36} {'calls':>6} {'total ms':>9} {'mean us':>9} {'share %':>8} {'GFLOP/s':>8}")
    for row in rows[:args.top]:
        print(f"{row['name']:<36} {row['calls']:>6} {float(row['total_us']) / 1e3:9.1f} {float(row['mean_us']):9.1f} "
              f"{float(row['share_pct']):8.1f} {row.get('gflops', '-') or '-':>8}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--quick", action="store_true", help="30 steps on the tiny config, small data sets")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch and cannon CPU threads (default 1)")
    ap.add_argument("--n-train", type=int, default=4096)
    ap.add_argument("--n-test", type=int, default=512)
    ap.add_argument("--tiny", action="store_true", help="the tiny model config (16x16 images)")
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--progress", type=int, default=0, help="print the loss every N steps")
    ap.add_argument("--prof-dir", default=os.path.join(tempfile.gettempdir(), "vl_train-prof"),
                    help="cannon-prof's output folder (default: vl_train-prof in the temporary folder)")
    ap.add_argument("--json", help="write the per-mode results here")
    # internal: one mode in this process
    ap.add_argument("--run-mode", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.tiny = True
        args.steps = min(args.steps, 30)
        args.n_train, args.n_test, args.warmup = 512, 64, 5
    if args.run_mode:
        return run_mode(args)

    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r} (choose from {', '.join(MODES)})")
    with tempfile.TemporaryDirectory(prefix="vl_train_") as tmp:
        data_path = os.path.join(tmp, "data.npz")
        t0 = time.perf_counter()
        make_data(args, data_path)
        cfg = TINY if args.tiny else Config()
        print(f"data: {args.n_train} training / {args.n_test} held-out images {cfg.image}x{cfg.image}, "
              f"{time.perf_counter() - t0:.1f} s; {args.steps} steps of batch {args.batch}, {args.threads} thread(s)")
        results = []
        for m in modes:
            out = os.path.join(tmp, m + ".json")
            t0 = time.perf_counter()
            r = subprocess.run(child_cmd(args, m, data_path, out), env=child_env(args))
            if r.returncode != 0:
                print(f"mode {m} failed (exit {r.returncode})")
                return 1
            with open(out) as f:
                res = json.load(f)
            results.append(res)
            print(f"  {m}: {time.perf_counter() - t0:.0f} s, final loss {res['final_loss']:.4f}, "
                  f"accuracy {100 * res['accuracy']:.2f}%", flush=True)
        print(f"model: {results[0]['params']} parameters; peak train MB = VmHWM during training minus the "
              f"RSS after setup (each mode in a fresh process)")
        print_table(results)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        if not args.no_compare and "cannon" in modes:
            torch.set_num_threads(args.threads)
            d = np.load(data_path)
            rows = compare(args, torch.from_numpy(d["tr_img"]), torch.from_numpy(d["tr_cap"]))
            print_compare(rows)
        if not args.no_profile and "cannon" in modes:
            profile(args, data_path, tmp)
        ok = all(np.isfinite(r["final_loss"]) for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
