"""Compiled Triton launches in cannon's profiler: with CANNON_PROFILE set, each launch on a cannon
stream (cannonLaunchKernel) is one "kernel" task named after the Triton kernel, on the
stream it went to."""
import glob
import json
import os
import subprocess
import sys
import textwrap

import pytest

from cannon.triton.compiler import build

pytestmark = pytest.mark.skipif(build.compiler() is None, reason="no C compiler")

SCRIPT = textwrap.dedent("""
    import torch
    import cannon.triton as triton
    import cannon.triton.language as tl
    from cannon import runtime

    @triton.jit
    def profiled_double(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

    runtime.ensure_initialized()
    x = torch.ones(1000)
    for _ in range(3):
        profiled_double[(4,)](x, 1000, BLOCK=256, num_cpu_threads=2)
    assert profiled_double.last_mode == "compiled", profiled_double.fallback_reason
    assert torch.all(x == 8.0)
    runtime.finalize()
""")


def test_launches_are_named_kernel_tasks(tmp_path):
    raw = tmp_path / "raw"
    import cannon
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(cannon.__file__)))
    env = dict(os.environ, CANNON_PROFILE=str(raw), TRITON_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([pkg_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                       if p]))
    env.pop("CANNON_TRITON_DIRECT", None)
    script = tmp_path / "profiled.py"  # a file: the kernel's source must be readable
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    tasks = []
    for f in glob.glob(str(raw / "*device*.json")):
        with open(f) as fh:
            tasks += json.load(fh)["tasks"]
    mine = [t for t in tasks if t["kind"] == "kernel" and "profiled_double" in (t["name"], t["kernel"])]
    assert len(mine) == 3  # one task per launch, whatever its block count
    assert all(t["end"] >= t["start"] for t in mine)
