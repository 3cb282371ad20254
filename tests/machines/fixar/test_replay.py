"""The host's replay buffer: a ring, uniform sampling from the caller's generator."""

import numpy as np
import pytest

from rlaccel.util.errors import RlaccelError
from rlaccel.machines.fixar.replay import ReplayBuffer


def test_ring_overwrites_the_oldest():
    rb = ReplayBuffer(3, 1, 1)
    for i in range(5):
        rb.add([i], [i], i, [i + 1], i == 4)
    assert rb.size == 3 and sorted(rb.r.tolist()) == [2, 3, 4]
    assert rb.done.tolist() == [0, 1, 0]


def test_sampling_is_uniform_and_seeded():
    rb = ReplayBuffer(100, 2, 1)
    for i in range(100):
        rb.add([i, -i], [0.5], float(i), [i, i], False)
    a = rb.sample(5000, np.random.default_rng(1))
    b = rb.sample(5000, np.random.default_rng(1))
    assert all((a[k] == b[k]).all() for k in a)
    assert a["s"].shape == (5000, 2) and a["s"].dtype == np.float32
    assert (a["s"][:, 0] == a["r"]).all() and abs(a["r"].mean() - 49.5) < 1.5


def test_empty():
    with pytest.raises(RlaccelError, match="empty buffer"):
        ReplayBuffer(4, 1, 1).sample(2, np.random.default_rng(0))
