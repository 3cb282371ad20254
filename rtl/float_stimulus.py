"""Float stimulus for the benches of the floating-point blocks (``lg_vpu``, ``maddpg_cu``,
``rtl/fpu/``): a mix of packed words, and the form results are compared in."""

from __future__ import annotations

import numpy as np

__all__ = ["float_words", "canon"]


def float_words(rng: np.random.Generator, fmt, size: int) -> np.ndarray:
    """Packed float words from a mix: edge values (signed zeros, the smallest subnormal, the
    largest finite, infinities, one, a quiet NaN), values near one (chains that stay in
    range), values near the overflow threshold, subnormals, and any bit pattern."""
    E, M, bias = fmt.ebits, fmt.mbits, fmt.bias
    top = 1 << (E + M)
    inf = fmt.emax_field << M
    edges = np.array([0, top, 1, top | 1, inf - 1, top | (inf - 1), inf, top | inf,
                      bias << M, top | (bias << M), fmt.qnan, (bias - 1) << M], dtype=np.int64)
    kind = rng.integers(0, 20, size)
    sign = rng.integers(0, 2, size).astype(np.int64) << (E + M)
    frac = rng.integers(0, 1 << M, size, dtype=np.int64)
    near = sign | (rng.integers(bias - 4, bias + 4, size).astype(np.int64) << M) | frac
    big = sign | (rng.integers(fmt.emax_field - 4, fmt.emax_field, size).astype(np.int64) << M) \
        | frac
    sub = sign | frac
    out = rng.integers(0, 1 << fmt.bits, size, dtype=np.int64)
    out = np.where(kind < 2, edges[rng.integers(0, len(edges), size)], out)
    out = np.where((kind >= 2) & (kind < 14), near, out)
    out = np.where((kind >= 14) & (kind < 16), big, out)
    out = np.where((kind >= 16) & (kind < 18), sub, out)
    return out


def canon(fmt, word: int):
    """A word as the benches compare it: NaN as a class (rtl/fpu/), anything else bit for
    bit."""
    return "nan" if fmt.is_nan(word) else word
