import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import golden  # noqa: E402 (needs the path above; golden puts python/cannon on the path)
import cannon  # noqa: E402


@pytest.fixture(params=golden.ISAS)
def isa(request, monkeypatch):
    """The instruction-set tier: each operator's phase 1 reads CANNON_ISA, so one process can test
    every tier."""
    monkeypatch.setenv("CANNON_ISA", request.param)
    return request.param


def pytest_make_parametrize_id(config, val, argname):
    if isinstance(val, cannon.DType):
        return val.name
    return None


def _libraries_missing():
    try:
        cannon.ops.manifest()
        return None
    except cannon.LibraryNotFoundError as e:
        return str(e)


def pytest_collection_modifyitems(config, items):
    why = _libraries_missing()
    if why:
        skip = pytest.mark.skip(reason=f"cannon's libraries not found (build them, or run through ctest -L python): "
                                       f"{why}")
        for it in items:
            it.add_marker(skip)
