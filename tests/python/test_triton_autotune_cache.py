"""The autotuner's disk cache: a second autotuner of the same kernel, key and configs (another
process, in effect) takes the chosen config from $TRITON_CACHE_DIR/autotune without benchmarking;
another config list or key benchmarks again; CANNON_TRITON_AUTOTUNE_CACHE=0 turns it off; a
damaged entry is ignored."""
import glob
import json
import os

import pytest
import torch

import cannon.triton as triton
import cannon.triton.language as tl
from cannon.triton.compiler import build

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("CANNON_TRITON_AUTOTUNE_CACHE", raising=False)
    return tmp_path / "triton-cache"


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)


def _tuned(blocks, calls):
    """An autotuner of _scale over BLOCK in blocks whose benchmark is deterministic (the largest
    block is fastest) and counted in calls."""
    configs = [triton.Config({"BLOCK": b}) for b in blocks]
    times = iter([1.0 / b for b in blocks] * 10)

    def do_bench(f):
        calls.append(1)
        f()
        return [next(times)]
    return triton.autotune(configs, key=["n"], do_bench=do_bench)(_scale)


def _launch(k, n=1000):
    x = torch.randn(n)
    y = torch.empty(n)
    k[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    assert torch.equal(y, x * 3.0)


def test_second_autotuner_reads_the_disk(_cache):
    calls = []
    k1 = _tuned([64, 256, 128], calls)
    _launch(k1)
    assert len(calls) == 3 and not k1.from_disk and k1.best_config.kwargs["BLOCK"] == 256
    files = glob.glob(str(_cache / "autotune" / "*.json"))
    assert len(files) == 1
    assert json.load(open(files[0]))["config"] == 1
    calls2 = []
    k2 = _tuned([64, 256, 128], calls2)
    _launch(k2)
    assert calls2 == [] and k2.from_disk and k2.best_config.kwargs["BLOCK"] == 256
    # another key benchmarks again
    _launch(k2, n=3000)
    assert len(calls2) == 3 and not k2.from_disk


def test_other_configs_and_opt_out(_cache, monkeypatch):
    calls = []
    _launch(_tuned([64, 128], calls))
    assert len(calls) == 2
    calls = []
    _launch(_tuned([64, 128, 32], calls))  # another config list: another entry
    assert len(calls) == 3
    monkeypatch.setenv("CANNON_TRITON_AUTOTUNE_CACHE", "0")
    calls = []
    _launch(_tuned([64, 128], calls))
    assert len(calls) == 2


def test_damaged_entry_is_ignored(_cache):
    calls = []
    _launch(_tuned([64, 128], calls))
    (f,) = glob.glob(str(_cache / "autotune" / "*.json"))
    with open(f, "w") as fh:
        fh.write("{not json")
    calls = []
    k = _tuned([64, 128], calls)
    _launch(k)
    assert len(calls) == 2 and not k.from_disk and os.path.exists(f)
    assert json.load(open(f))["config_str"] == str(k.best_config)
