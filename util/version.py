"""rlaccel's version, read from the installed distribution's metadata: ``pyproject.toml``
states it once."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["VERSION"]

try:
    VERSION = version("rlaccel")
except PackageNotFoundError:        # pragma: no cover - the layers import only when installed
    VERSION = "0+unknown"
