"""Each agent's replay buffer: a ring of 102,400 transitions, batches of M distinct
transitions drawn uniformly, all of them while fewer are stored (as QHD)."""

import numpy as np
import pytest

from rlaccel.machines.darl.replay import ReplayBuffer
from rlaccel.programs.manifest import ManifestError


def _fill(buf, n, start=0):
    for i in range(start, start + n):
        buf.add(np.full(2, i), i % 3, float(i), np.full(2, i + 1))


def test_fewer_than_m_stored_gives_all_oldest_first():
    buf = ReplayBuffer(2, 10)
    _fill(buf, 3)
    b = buf.sample(np.random.default_rng(0), 8)
    assert b.rew.tolist() == [0.0, 1.0, 2.0] and len(b) == 3
    assert b.obs[:, 0].tolist() == [0, 1, 2] and b.next_obs[:, 0].tolist() == [1, 2, 3]


def test_batches_are_distinct_uniform_and_seeded():
    buf = ReplayBuffer(2, 1000)
    _fill(buf, 100)
    b1 = buf.sample(np.random.default_rng(5), 8)
    b2 = buf.sample(np.random.default_rng(5), 8)
    assert np.array_equal(b1.index, b2.index) and len(set(b1.index.tolist())) == 8
    counts = np.zeros(100)
    rng = np.random.default_rng(1)
    for _ in range(2000):
        counts[buf.sample(rng, 8).index] += 1
    assert counts.min() > 100 and counts.max() < 230           # 160 expected each


def test_the_oldest_transitions_are_overwritten():
    buf = ReplayBuffer(2, 5)
    _fill(buf, 8)
    assert len(buf) == 5
    assert sorted(buf.sample(np.random.default_rng(0), 5).rew.tolist()) == [3, 4, 5, 6, 7]
    assert buf.sample(np.random.default_rng(0), 9).rew.tolist() == [3, 4, 5, 6, 7]


def test_errors():
    with pytest.raises(ManifestError, match="sample from an empty buffer"):
        ReplayBuffer(2, 5).sample(np.random.default_rng(0), 1)
    with pytest.raises(ManifestError, match="capacity must be a positive integer"):
        ReplayBuffer(2, 0)
