"""Shared helpers: the plain-Python-int reference every exact kernel is compared with."""

import numpy as np
import pytest


def python_matmul_round(A, B, shift, lo, hi, addend=None):
    """``clip(floor((A @ B + addend + 2**(shift-1)) / 2**shift), lo, hi)`` in Python ints."""
    prod = np.asarray(A).astype(object) @ np.asarray(B).astype(object)
    if addend is not None:
        prod = prod + np.broadcast_to(np.asarray(addend), prod.shape).astype(object)
    half = (1 << (shift - 1)) if shift else 0
    out = np.empty(prod.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(prod):
        out[idx] = min(max((int(v) + half) >> shift, lo), hi)
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(2024)
