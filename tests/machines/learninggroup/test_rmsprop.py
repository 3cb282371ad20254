"""RMSprop (machines/learninggroup/rmsprop.py) on hand-computed steps."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.learninggroup.rmsprop import RMSprop


def test_two_steps_by_hand():
    """v = a v + (1-a) g^2; p -= lr g / (sqrt(v) + eps), from v = 0 (torch's RMSprop)."""
    p = {"w": np.array([1.0, -2.0])}
    opt = RMSprop(p, lr=0.1, alpha=0.9, eps=1e-6)
    opt.step(p, {"w": np.array([2.0, 0.0])})
    v1 = 0.1 * 4.0                                   # 0.4
    assert opt.square_avg["w"] == pytest.approx([v1, 0.0])
    assert p["w"] == pytest.approx([1.0 - 0.1 * 2.0 / (np.sqrt(v1) + 1e-6), -2.0])
    w1 = p["w"][0]
    opt.step(p, {"w": np.array([-1.0, 3.0])})
    v2 = 0.9 * v1 + 0.1 * 1.0                        # 0.46
    assert opt.square_avg["w"] == pytest.approx([v2, 0.9])
    assert p["w"] == pytest.approx([w1 + 0.1 / (np.sqrt(v2) + 1e-6),
                                    -2.0 - 0.1 * 3.0 / (np.sqrt(0.9) + 1e-6)])


def test_stays_in_float32():
    """float32 parameters stay float32 and are updated in place."""
    w = np.ones(3, np.float32)
    p = {"w": w}
    RMSprop(p, 1e-3, 0.97, 1e-6).step(p, {"w": np.full(3, 0.5, np.float32)})
    assert p["w"] is w and w.dtype == np.float32 and np.all(w < 1)
