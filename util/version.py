"""rlaccel's version, read from the installed distribution's metadata (``pyproject.toml``
states it once), and the versions of everything a simulation's result depends on, which
every run report and sweep database records (:func:`versions`)."""

from __future__ import annotations

import functools
import platform
from importlib.metadata import PackageNotFoundError, version

__all__ = ["VERSION", "DEPENDENCIES", "versions"]

try:
    VERSION = version("rlaccel")
except PackageNotFoundError:        # pragma: no cover - the layers import only when installed
    VERSION = "0+unknown"

#: the distributions whose versions a result depends on: the simulator's own and the
#: environments' (MuJoCo's and Box2D's physics, PettingZoo's and MPE2's worlds)
DEPENDENCIES = ("numpy", "numba", "simpy", "lark", "myhdl", "scipy", "gymnasium", "mujoco",
                "box2d", "pettingzoo", "mpe2")


def versions() -> dict[str, str | None]:
    """``{"rlaccel": ..., "python": ..., "numpy": ..., ...}``: the installed versions (None for
    a distribution that is not installed), read from metadata without importing them, once
    per process (a batch of fifty runs writes fifty reports); a fresh dict every call."""
    return dict(_versions())


@functools.cache
def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"rlaccel": VERSION, "python": platform.python_version()}
    for name in DEPENDENCIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out
