"""Soft target updates, float and fixed point (tau as a 24-bit fraction)."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import DTypeError
from rlaccel.machines.fixar.tlm.soft_update import (TAU_FRAC, soft_update_fixed,
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


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "plain"])
def test_inplace_equals_raw(monkeypatch, numba):
    """The soft instruction's in-place update equals soft_update_raw bit for bit: full
    32-bit words, tau from one LSB of its register to 1, saturated sums counted; targets
    overlapping their source take the plain path."""
    from rlaccel.isa.dtypes import SaturationCounter
    from rlaccel.machines.fixar.tlm import soft_update
    from rlaccel.machines.fixar.tlm.soft_update import soft_update_inplace, soft_update_raw
    monkeypatch.setattr(soft_update, "HAVE_NUMBA", numba)
    rng = np.random.default_rng(5)
    for traw in (1, 16777, 1 << 23, 1 << TAU_FRAC):
        T = rng.integers(-(1 << 31), 1 << 31, size=5000)
        S = rng.integers(-(1 << 31), 1 << 31, size=5000)
        T[:2], S[:2] = [Q.max_raw, Q.min_raw], [Q.min_raw, Q.max_raw]
        c1, c2 = SaturationCounter(), SaturationCounter()
        want = soft_update_raw(T, S, traw, Q, counter=c1)
        soft_update_inplace(T, S, traw, Q, counter=c2)
        assert np.array_equal(T, want) and c1.saturations == c2.saturations
    mem = rng.integers(-(1 << 31), 1 << 31, size=100)
    want = soft_update_raw(mem[10:60], mem[:50], 1 << 22, Q)
    soft_update_inplace(mem[10:60], mem[:50], 1 << 22, Q)                # overlapping
    assert np.array_equal(mem[10:60], want)
    with pytest.raises(DTypeError, match="tau register"):
        soft_update_inplace(mem[:5], mem[50:55], 0, Q)
