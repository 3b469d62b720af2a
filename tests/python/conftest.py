import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("CANNON_LIB_DIR"):
        skip = pytest.mark.skip(reason="CANNON_LIB_DIR not set (run through ctest python_golden)")
        for it in items:
            it.add_marker(skip)
