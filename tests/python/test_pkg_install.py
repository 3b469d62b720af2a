"""The `cannon` package installed with pip (python/pyproject.toml), as docs/python.md describes:
a copy of python/ is installed into a temporary directory (pip --target, no index, no build
isolation: only Debian's setuptools), and a fresh interpreter that sees only that directory
imports the installed package, not the source tree, and runs an aclnn operator through
cannon.torch. Skipped where pip is not installed (Debian: python3-pip)."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "python"))

CHECK = r"""
import os, sys
import cannon, cannon.torch, torch
where = os.path.dirname(os.path.abspath(cannon.__file__))
assert where.startswith(sys.argv[1]), where
y = torch.ops.cannon.softmax(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), -1)
assert y.tolist() == [[0.5, 0.5], [0.5, 0.5]], y
print("OK", where)
"""


@pytest.mark.skipif(importlib.util.find_spec("pip") is None, reason="pip is not installed")
def test_pip_install_and_import(tmp_path):
    src = tmp_path / "src"
    # A copy, so that the build's in-tree leftovers (build/, *.egg-info) stay out of the source.
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index",
                        "--no-deps", "--target", str(target), str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "cannon" / "torch" / "__init__.py").is_file()
    env = dict(os.environ, PYTHONPATH=str(target))
    r = subprocess.run([sys.executable, "-c", CHECK, str(target)], capture_output=True, text=True, timeout=300,
                       env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("OK")
