"""The one rounding rule of fixed point: round half up, as hardware does it.

``round_shift(p, s) = floor(p / 2**s + 1/2) = (p + 2**(s-1)) >> s`` (arithmetic shift), and
``p`` unchanged when ``s == 0``. Ties go towards +infinity (``-2.5 -> -2``, ``2.5 -> 3``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["round_shift"]


_CONST = {s: (np.int64(1 << (s - 1)), np.int64(s)) for s in range(1, 64)}


def round_shift(p, s: int):
    """Round ``p / 2**s`` half up: ``(p + 2**(s-1)) >> s``. Works on int64 arrays and Python ints.

    The caller guarantees ``p + 2**(s-1)`` does not overflow int64.
    """
    if s == 0:
        return p
    if isinstance(p, (np.ndarray, np.generic)):
        half, shift = _CONST[s]
        return (p + half) >> shift
    return (p + (1 << (s - 1))) >> s
