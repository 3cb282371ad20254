"""The RK4 integrator (programs/envs/rk4.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.programs.envs.rk4 import rk4_step


def _oscillator(y: np.ndarray) -> np.ndarray:
    return np.array((y[1], -y[0]))


def _error(substeps: int) -> float:
    y0 = np.array((1.0, 0.0))
    y = rk4_step(_oscillator, y0, 1.0, substeps)
    return float(np.max(np.abs(y - np.array((np.cos(1.0), -np.sin(1.0))))))


def test_global_error_is_fourth_order():
    """Halving the step divides the error on y'' = -y by about 2^4 = 16."""
    ratios = [_error(n) / _error(2 * n) for n in (4, 8, 16)]
    assert all(14.0 < r < 17.0 for r in ratios), ratios


def test_substeps_equal_repeated_steps():
    """n sub-steps over dt are exactly n single steps over dt/n."""
    y0 = np.array((0.3, -0.2))
    y = y0
    for _ in range(4):
        y = rk4_step(_oscillator, y, 0.0625, 1)
    assert np.array_equal(rk4_step(_oscillator, y0, 0.25, 4), y)


def test_input_is_not_modified():
    """The state passed in is left as it was."""
    y0 = np.array((0.3, -0.2))
    rk4_step(_oscillator, y0, 0.1, 2)
    assert np.array_equal(y0, np.array((0.3, -0.2)))


def test_zero_substeps_is_refused():
    """At least one sub-step is needed."""
    with pytest.raises(ValueError, match="substeps must be a positive integer, not 0"):
        rk4_step(_oscillator, np.zeros(2), 0.1, 0)
