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


class _Counter:
    saturations = 0


def test_compiled_batch_equals_the_dtype_operations(monkeypatch):
    """td_target and loss_error compiled give the isa.dtypes operations' bits and saturation
    counts, finite or not."""
    from rlaccel.machines.maddpg.tlm import loss
    rng = np.random.default_rng(5)
    for trial in range(30):
        B = int(rng.integers(1, 50))
        r, q, d = (np.asarray(rng.normal(size=B) * 10.0 ** rng.integers(-3, 3, size=B),
                              np.float32) for _ in range(3))
        if trial % 3 == 1:
            q[rng.integers(B)] = (3e38, np.inf, np.nan)[trial % 3]
        gamma = (0.95, 1e39, 3e38)[trial % 5 % 3]
        got = []
        for numba in (True, False):
            monkeypatch.setattr(loss, "HAVE_NUMBA", numba)
            c = _Counter()
            with np.errstate(all="ignore"):
                y = loss.td_target(r, q, d, gamma, counter=c)
                e = loss.loss_error(q, y, B, counter=c)
            got.append((y.tobytes(), e.tobytes(), c.saturations))
        assert got[0] == got[1]
