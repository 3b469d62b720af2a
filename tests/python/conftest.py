import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import cannon_testlib as ct  # noqa: E402 (needs the path above)


@pytest.fixture(scope="session")
def L():
    """The test library handle (libascendcl + libopapi through ctypes), shared by every test."""
    return ct.lib()


@pytest.fixture(params=ct.ISAS)
def isa(request, monkeypatch):
    """The instruction-set tier: each operator's phase 1 reads CANNON_ISA, so one process can test
    every tier."""
    monkeypatch.setenv("CANNON_ISA", request.param)
    return request.param


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("CANNON_LIB_DIR"):
        skip = pytest.mark.skip(reason="CANNON_LIB_DIR not set (run through ctest python_golden)")
        for it in items:
            it.add_marker(skip)
