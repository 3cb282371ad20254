"""Fixed-point stimulus for the benches of the fixed-point blocks (the ADHDP datapath's,
DARL's): the edge values of a word format and a mix of edge, small and any words.

``fmt`` is anything with ``frac_bits``, ``min_raw`` and ``max_raw``: an ``isa.dtypes``
fixed-point type, or a block's parameters that carry them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["edge_words", "random_words"]


def edge_words(fmt) -> np.ndarray:
    """The edge values of a fixed-point word format: zero, +-1 LSB, +-one, +-half,
    extremes."""
    one, half = 1 << fmt.frac_bits, 1 << (fmt.frac_bits - 1)
    v = [0, 1, -1, one, -one, half, -half, fmt.max_raw, fmt.min_raw, fmt.max_raw - 1,
         fmt.min_raw + 1, 3 * half, -3 * half]
    return np.array([x for x in v if fmt.min_raw <= x <= fmt.max_raw], dtype=np.int64)


def random_words(rng: np.random.Generator, fmt, size: int) -> np.ndarray:
    """Words drawn from a mix: edge values, small values (|v| < 4), the whole range."""
    edges = edge_words(fmt)
    kind = rng.integers(0, 10, size)
    small = 4 << fmt.frac_bits
    out = rng.integers(fmt.min_raw, fmt.max_raw + 1, size, dtype=np.int64)
    sel = kind < 3
    out[sel] = edges[rng.integers(0, len(edges), int(sel.sum()))]
    sel = (kind >= 3) & (kind < 7)
    out[sel] = rng.integers(-small, small + 1, int(sel.sum()))
    return out
