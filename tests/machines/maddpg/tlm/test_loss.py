"""The LOSS stage: the target y = r + gamma (1 - d) q' and the error (2 / B)(q - y), fp32."""

import numpy as np

from rlaccel.machines.maddpg.tlm.loss import loss_error, td_target


def test_target_by_hand():
    """r = 1, q' = 2, gamma = 0.5: y = 2 when the episode goes on, 1 when it ended."""
    y = td_target(np.float32([1, 1]), np.float32([2, 2]), np.float32([0, 1]), 0.5)
    assert y.tolist() == [2.0, 1.0] and y.dtype == np.float32


def test_target_equals_the_float32_expression():
    """The reference's expression, r + (float32(gamma) * (1 - d)) * q', bit for bit."""
    rng = np.random.default_rng(0)
    r, q = rng.normal(size=50).astype(np.float32), rng.normal(size=50).astype(np.float32)
    d = (rng.random(50) < 0.3).astype(np.float32)
    want = r + (np.float32(0.95) * (1 - d)) * q
    assert td_target(r, q, d, 0.95).tobytes() == want.tobytes()


def test_error_by_hand():
    """B = 4, q = 3, y = 2: (2/4) * 1 = 0.5; the scale is float32(2 / B)."""
    assert loss_error(np.float32([3.0]), np.float32([2.0]), 4).tolist() == [0.5]
    e = loss_error(np.float32([1.0]), np.float32([0.0]), 3)
    assert e.tolist() == [float(np.float32(2 / 3))]
