"""cannon.triton's front end: jit launch rules, warmup handles, autotune (selection, cache, hooks,
pruning, failing configs), heuristics, the driver's device properties, triton.testing, and
``python3 -m cannon.triton`` running a script written for the ``triton`` package."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton.errors import OutOfResources

PYDIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))


@triton.jit
def fill(x, n, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x + o, tl.full([BLOCK], VALUE, tl.float32) + tl.load(x + o, mask=o < n, other=0.0), mask=o < n)


def test_helpers():
    assert triton.cdiv(10, 4) == 3 and triton.cdiv(8, 4) == 2
    assert [triton.next_power_of_2(n) for n in (0, 1, 2, 3, 5, 1024, 1025)] == [1, 1, 2, 4, 8, 1024, 2048]


def test_grid_forms():
    for grid in [(3,), (3, 1), [3, 1, 1], 3, lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)]:
        x = torch.zeros(20)
        fill[grid](x, 20, VALUE=1.0, BLOCK=8)
        assert x.tolist() == [1.0] * 20, grid


def test_jit_attributes():
    assert fill.arg_names == ["x", "n", "VALUE", "BLOCK"]
    assert fill.constexprs == [2, 3]
    assert "def fill" in fill.src and fill.__name__ == "fill"
    assert callable(fill.fn)


def test_missing_constexpr_is_a_type_error():
    with pytest.raises(TypeError, match="fill"):
        fill[(1,)](torch.zeros(4), 4, BLOCK=4)


def test_interpret_env_is_read_at_launch(monkeypatch):
    x = torch.zeros(4)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    fill[(1,)](x, 4, VALUE=2.0, BLOCK=4)
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    fill[(1,)](x, 4, VALUE=2.0, BLOCK=4)
    assert x.tolist() == [4.0] * 4


def test_jit_options():
    @triton.jit(interpret=True, do_not_specialize=["n"])
    def k(x, n):
        tl.store(x, n)

    x = torch.zeros(1, dtype=torch.int32)
    k[(1,)](x, 9)
    assert x.item() == 9 and k.interpret and k.params[1].do_not_specialize


def test_warmup_handle_sizes_one_program_per_worker():
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    for key in ("multiprocessor_count", "max_num_regs", "max_shared_mem", "warpSize", "num_aicore",
                "num_vectorcore"):
        assert isinstance(props[key], int) and props[key] > 0, key
    assert props["multiprocessor_count"] == props["num_vectorcore"]
    x = torch.zeros(8)
    h = fill.warmup(x, 8, VALUE=3.0, BLOCK=8, num_warps=8, num_stages=2, grid=(1,))
    h._init_handles()
    occ = props["max_num_regs"] // (h.n_regs * props["warpSize"] * 8)
    assert occ == 1 and props["max_shared_mem"] // h.metadata.shared == 1
    assert x.tolist() == [0.0] * 8             # warmup runs nothing
    h[(1, 1, 1)](x, 8, 3.0, 8)                 # the handle launches with all arguments positional
    assert x.tolist() == [3.0] * 8
    assert triton.runtime.driver.active.get_active_torch_device() == torch.device("cpu")


# ---- autotune -----------------------------------------------------------------------------------

def configs():
    return [triton.Config({"BLOCK": 16}, num_warps=4, num_stages=2),
            triton.Config({"BLOCK": 1024}, num_warps=8, num_stages=3, num_cpu_threads=0),
            triton.Config({"BLOCK": 32}, num_warps=2, pre_hook=lambda args: (_ for _ in ()).throw(
                OutOfResources(1 << 30, 1 << 20, "shared memory")))]


calls = []


@triton.autotune(configs=configs(), key=["n"], reset_to_zero=["out"], warmup=2, rep=5,
                 pre_hook=lambda args: calls.append("pre"), post_hook=lambda args, exception: calls.append("post"))
@triton.jit
def accumulate(x, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + o, tl.load(out + o, mask=o < n) + tl.load(x + o, mask=o < n), mask=o < n)


def test_autotune_selects_the_fastest_config_and_caches_it(monkeypatch):
    # in the interpreter a launch costs about its program count, which makes the fastest config certain
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    n = 4096
    x = torch.ones(n)
    out = torch.zeros(n)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    accumulate[grid](x, out, n)
    # benchmarking ran in out (reset to zero before each run); the final launch adds x once
    assert out.tolist() == [1.0] * n
    assert accumulate.best_config.kwargs == {"BLOCK": 1024}      # 4 programs instead of 256
    timings = accumulate.configs_timings
    assert timings[accumulate.configs[2]][0] == float("inf")     # OutOfResources scores inf
    assert "pre" in calls and "post" in calls
    key = (n, "torch.float32", "torch.float32")
    assert list(accumulate.cache) == [key]
    calls.clear()
    accumulate[grid](x, out, n)                                  # cached: no benchmarking
    assert calls == [] and out.tolist() == [2.0] * n
    out2 = torch.zeros(512)
    accumulate[lambda meta: (triton.cdiv(512, meta["BLOCK"]),)](torch.ones(512), out2, 512)
    assert len(accumulate.cache) == 2 and out2.tolist() == [1.0] * 512


def test_autotune_prune_restore_and_print(monkeypatch, capsys):
    monkeypatch.setenv("CANNON_TRITON_AUTOTUNE_CACHE", "0")  # benchmark even if another run chose
    seen = {}

    def early(configs, named_args, **kwargs):
        seen["args"] = sorted(named_args)
        return [c for c in configs if c.kwargs["BLOCK"] <= 64]

    def model(**kw):
        return -kw["BLOCK"]  # prefers the largest block

    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (8, 16, 32, 64, 128)], key=["n"],
                     restore_value=["buf"], prune_configs_by={"early_config_prune": early, "perf_model": model,
                                                              "top_k": 2}, warmup=1, rep=2)
    @triton.jit
    def bump(buf, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(buf + o, tl.load(buf + o, mask=o < n) + 1, mask=o < n)

    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    buf = torch.zeros(64)
    bump[lambda m: (triton.cdiv(64, m["BLOCK"]),)](buf, 64)
    assert seen["args"] == ["buf", "n"]
    assert sorted(c.kwargs["BLOCK"] for c in bump.configs_timings) == [32, 64]
    assert buf.tolist() == [1.0] * 64                     # restored after each benchmark run
    assert "Triton autotuning for function bump" in capsys.readouterr().out


def test_autotune_rejects_redefined_meta_parameters():
    with pytest.raises(ValueError, match="Conflicting meta-parameters"):
        accumulate[(1,)](torch.ones(4), torch.zeros(4), 4, BLOCK=4)


def test_autotune_unknown_key():
    with pytest.raises(ValueError, match="not a parameter"):
        triton.autotune(configs=[triton.Config({})], key=["nope"])(fill)


def test_heuristics():
    @triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
    @triton.jit
    def k(x, n, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(x + o, o.to(tl.float32), mask=o < n)

    x = torch.zeros(5)
    k[(1,)](x, 5)
    assert x.tolist() == [0, 1, 2, 3, 4]


def test_config_all_kwargs():
    c = triton.Config({"B": 4}, num_warps=2, num_stages=1, num_cpu_threads=3)
    assert c.all_kwargs() == {"B": 4, "num_warps": 2, "num_stages": 1, "num_ctas": 1, "num_cpu_threads": 3}
    assert "B: 4" in str(c)


# ---- triton.testing ----------------------------------------------------------------------------

def test_do_bench():
    t = triton.testing.do_bench(lambda: sum(range(1000)), warmup=1, rep=5)
    assert isinstance(t, float) and t > 0
    q = triton.testing.do_bench(lambda: sum(range(1000)), warmup=1, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    allt = triton.testing.do_bench(lambda: None, warmup=1, rep=1, return_mode="all")
    assert isinstance(allt, list) and len(allt) >= 1
    with pytest.raises(ValueError):
        triton.testing.do_bench(lambda: None, return_mode="mode")


def test_assert_close():
    triton.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.005, 2.0]))
    with pytest.raises(AssertionError):
        triton.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.1]))
    triton.testing.assert_close(torch.tensor([1.0]).bfloat16(), [1.0], atol=0, rtol=0)


def test_perf_report_prints_a_table(capsys, tmp_path):
    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["size"], x_vals=[2, 4], line_arg="p", line_vals=["a", "b"], line_names=["A", "B"],
        plot_name="toy", args={"k": 10}, ylabel="ms"))
    def bench(size, p, k):
        return (size * k + (1 if p == "b" else 0), 0, 0)

    bench.run(print_data=True, save_path=str(tmp_path))
    out = capsys.readouterr().out
    assert "toy:" in out and "A (ms)" in out
    assert "41" in out and "20" in out
    assert (tmp_path / "toy.csv").read_text().splitlines()[1] == "2,20,21"


# ---- python3 -m cannon.triton -------------------------------------------------------------------

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    import triton
    import triton.language as tl
    from triton.runtime import driver

    @triton.jit
    def twice(x, y, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

    x = torch.arange(10, dtype=torch.float32)
    y = torch.empty_like(x)
    twice[(triton.cdiv(10, 4),)](x, y, 10, BLOCK=4)
    triton.testing.assert_close(y, x * 2)
    dev = getattr(torch, driver.active.get_active_torch_device().type)
    s = dev.Stream()
    dev.set_stream(s)
    dev.synchronize()
    print("ran", __name__, sys.argv[1:], triton.__name__, tl.__name__, type(driver.active).__name__,
          y.tolist()[-1])
""")


def test_module_runs_a_triton_script(tmp_path):
    script = tmp_path / "uses_triton.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=PYDIR)
    r = subprocess.run([sys.executable, "-m", "cannon.triton", str(script), "--flag", "7"], capture_output=True,
                       text=True, timeout=300, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "ran __main__ ['--flag', '7'] cannon.triton cannon.triton.language CPUDriver 18.0"


def test_module_usage_errors(tmp_path):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    r = subprocess.run([sys.executable, "-m", "cannon.triton"], capture_output=True, text=True, timeout=300,
                       env=env)
    assert r.returncode == 2 and "SCRIPT" in r.stderr
    r = subprocess.run([sys.executable, "-m", "cannon.triton", str(tmp_path / "missing.py")], capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 2 and "no such script" in r.stderr
