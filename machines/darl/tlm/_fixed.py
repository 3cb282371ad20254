"""Fixed-point helpers the units share: the format from a name, saturation with a counter,
round-half-up division of exact sums."""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import DType, FixedType, get_dtype
from rlaccel.util.errors import DTypeError

__all__ = ["as_dtype", "saturate", "div_round"]


def as_dtype(fmt) -> DType:
    """A :class:`~rlaccel.isa.dtypes.DType` from itself or its name; only fixed point and
    float64 are machine formats here."""
    t = get_dtype(fmt) if isinstance(fmt, str) else fmt
    if not isinstance(t, FixedType) and t.name != "float64":
        raise DTypeError(f"the DARL units compute in a fixed-point format or float64, not "
                         f"{t.name}")
    return t


def saturate(fmt: FixedType, y, counter=None) -> np.ndarray:
    """Clip int64 ``y`` to the format; clipped elements are added to ``counter.saturations``."""
    y = np.asarray(y, dtype=np.int64)
    lo, hi = fmt.min_raw, fmt.max_raw
    if y.size and (int(y.min()) < lo or int(y.max()) > hi):
        if counter is not None:
            counter.saturations += int(np.count_nonzero(y < lo) + np.count_nonzero(y > hi))
        return np.clip(y, lo, hi)
    return y


def div_round(total, divisor: int) -> np.ndarray:
    """``floor(total / divisor + 1/2)`` exactly (Python integers), for an int64 array of exact
    sums and a positive integer divisor: the one rounding of a scaled reduction."""
    t = np.asarray(total)
    if t.dtype == np.int64 and 0 < divisor < (1 << 60) and (
            t.size == 0 or max(-int(t.min()), int(t.max())) < (1 << 61)):
        # 2 t + divisor stays inside int64: numpy's floor division is the exact one
        return (2 * t + np.int64(divisor)) // np.int64(2 * divisor)
    flat = [(2 * int(x) + divisor) // (2 * divisor) for x in t.ravel()]
    return np.array(flat, dtype=object).astype(np.int64).reshape(np.shape(total))
