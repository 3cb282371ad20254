"""The LearningGroup bench scripts as modules (they are scripts, not a package: each is
loaded from its file, with the bench folder on the path for their imports of each other)."""

import importlib.util
import sys

import pytest

from rlaccel.isa.machine import machine

BENCH = machine("learninggroup").programs.parent / "bench"


def _script(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"lg_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def fig9():
    return _script("fig9")


@pytest.fixture(scope="module")
def learning():
    return _script("learning")


@pytest.fixture(scope="module")
def consistency():
    return _script("consistency")
