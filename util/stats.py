"""The mean of a few values and its Student-t confidence interval: what the bench scripts
report over random seeds."""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["t_interval", "t_quantile"]


def t_interval(values: Sequence[float], ci: float = 0.95) -> tuple[float, float | None]:
    """``(mean, half-width)`` of the ``ci`` Student-t interval of the mean of ``values``
    (half-width None under two values)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t_quantile(ci, n - 1) * sd / math.sqrt(n)


def t_quantile(ci: float, df: int) -> float:
    """The two-sided ``ci`` quantile of Student's t with ``df`` degrees of freedom (12.706
    for 95 % and one)."""
    from scipy.stats import t
    return float(t.ppf(0.5 + ci / 2, df))
