"""Checks of the numbers read from manifests, architectures, arguments and programs."""

from __future__ import annotations

__all__ = ["is_whole"]


def is_whole(v, low: int = 1, types: type | tuple[type, ...] = int) -> bool:
    """``v`` is a whole number of ``types`` (``int``, or ``(int, np.integer)`` where NumPy's
    integers may come) and at least ``low``; never a ``bool``, although Python counts it an
    ``int``."""
    return not isinstance(v, bool) and isinstance(v, types) and v >= low
