"""Soft target updates, float and fixed point (tau as a 24-bit fraction)."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.errors import DTypeError
from rlaccel.tlm.families.fixar.soft_update import (TAU_FRAC, soft_update_fixed,
                                                    soft_update_float, tau_raw)

Q = get_dtype("fixed32")


def test_float_by_hand():
    t = soft_update_float(np.array([1.0, 0.0], np.float32), np.array([3.0, 1.0]), 0.25)
    assert t.dtype == np.float32 and t.tolist() == [1.5, 0.25]


def test_tau_register():
    assert tau_raw(0.001) == 16777 and tau_raw(1.0) == 1 << TAU_FRAC
    with pytest.raises(DTypeError, match="outside"):
        tau_raw(0.0)


def test_fixed_by_hand():
    """d = 1000 LSB, tau = 16777 / 2**24: 0.99998 -> 1; d = 400: 0.39999 -> 0 (the lag)."""
    got = soft_update_fixed(np.array([0, 0, 0, 5]), np.array([1000, 400, -1000, 5]), 0.001, Q)
    assert got.tolist() == [1, 0, -1, 5]


def test_fixed_targets_trail_by_at_most_half_over_tau():
    """Repeated updates stop within 0.5 / tau LSBs of the source."""
    src = np.array([100_000, -100_000, 7])
    t = np.zeros(3, dtype=np.int64)
    for _ in range(20_000):
        t = soft_update_fixed(t, src, 0.001, Q)
    assert (np.abs(src - t) <= 500).all() and abs(src[0] - t[0]) > 400


def test_fixed_tracks_float_for_large_differences():
    rng = np.random.default_rng(1)
    s = rng.integers(-(1 << 30), 1 << 30, size=1000)
    t = rng.integers(-(1 << 30), 1 << 30, size=1000)
    f = soft_update_float(t.astype(np.float64), s.astype(np.float64), 0.005)
    assert np.abs(soft_update_fixed(t, s, 0.005, Q) - f).max() <= 1 + 2 ** 31 * 1.3e-5
