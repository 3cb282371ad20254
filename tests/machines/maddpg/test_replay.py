"""The shared replay buffer: joint rows, ring overwrite, growth, uniform indices, batches
with their Gumbel noise."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.replay import ReplayBuffer, gumbel_noise
from rlaccel.programs.manifest import ManifestError


def fill(buf, k0, k1):
    for k in range(k0, k1):
        buf.add([np.full(2, k, np.float32), np.full(3, -k, np.float32)],
                [np.full(1, k + 0.5, np.float32), np.full(2, k, np.float32)],
                np.array([k, 2 * k], np.float32),
                [np.full(2, k + 1, np.float32), np.full(3, -k - 1, np.float32)],
                np.array([0, k % 2], np.float32))


def test_gather_splits_rows_per_agent():
    """Every agent's slice of a row comes back in its own array, same rows for all agents."""
    buf = ReplayBuffer((2, 3), (1, 2), capacity=100)
    fill(buf, 0, 10)
    b = buf.gather(np.array([3, 7, 3]), np.random.default_rng(0))
    assert b.size == 3 and len(buf) == 10
    assert b.obs[0][:, 0].tolist() == [3, 7, 3] and b.obs[1].shape == (3, 3)
    assert b.obs[1][:, 2].tolist() == [-3, -7, -3]
    assert b.act[0][:, 0].tolist() == [3.5, 7.5, 3.5] and b.act[1].shape == (3, 2)
    assert b.rew[1].tolist() == [6, 14, 6] and b.done[1].tolist() == [1, 1, 1]
    assert b.next_obs[0][:, 0].tolist() == [4, 8, 4]
    assert [n.shape for n in b.noise_target] == [(3, 1), (3, 2)]
    assert [n.dtype for n in b.noise_policy] == [np.float32, np.float32]


def test_ring_overwrites_the_oldest():
    """With capacity 4, the 6th transition lands in row 1 (row 0 holds the 5th)."""
    buf = ReplayBuffer((2, 3), (1, 2), capacity=4)
    fill(buf, 0, 6)
    assert (len(buf), buf.next, buf.added) == (4, 2, 6)
    b = buf.gather(np.arange(4), np.random.default_rng(0))
    assert b.obs[0][:, 0].tolist() == [4, 5, 2, 3]


def test_storage_grows_past_a_chunk():
    """Storage is allocated in chunks and keeps every row when it grows."""
    buf = ReplayBuffer((1,), (1,), capacity=200_000)
    for k in range(70_000):
        buf.add([np.float32([k])], [np.float32([0])], np.float32([0]), [np.float32([k])],
                np.float32([0]))
    assert buf._rows == 131_072
    b = buf.gather(np.array([0, 65_535, 65_536, 69_999]), np.random.default_rng(0))
    assert b.obs[0][:, 0].tolist() == [0, 65_535, 65_536, 69_999]


def test_sample_uniform_and_seeded():
    """Indices are uniform over the stored rows (with replacement) and fixed by the seed."""
    buf = ReplayBuffer((2, 3), (1, 2), capacity=100)
    fill(buf, 0, 10)
    i1 = buf.sample_index(np.random.default_rng(5), 20_000)
    i2 = buf.sample_index(np.random.default_rng(5), 20_000)
    assert i1.tolist() == i2.tolist() and i1.min() == 0 and i1.max() == 9
    counts = np.bincount(i1, minlength=10)
    assert np.all(np.abs(counts - 2000) < 200)


def test_gumbel_noise_is_standard_gumbel():
    """Mean the Euler-Mascheroni constant 0.5772, variance pi^2/6 (200,000 samples)."""
    g = gumbel_noise(np.random.default_rng(0), (200_000,)).astype(np.float64)
    assert abs(g.mean() - 0.5772) < 0.01 and abs(g.var() - np.pi ** 2 / 6) < 0.03
    assert np.isfinite(g).all()


def test_errors():
    with pytest.raises(ManifestError, match="cannot sample from an empty buffer"):
        ReplayBuffer((2,), (1,)).sample_index(np.random.default_rng(0), 4)
    with pytest.raises(ManifestError, match="2 observation widths and 1 action widths"):
        ReplayBuffer((2, 3), (1,))
    with pytest.raises(ManifestError, match="capacity must be a positive integer, not 0"):
        ReplayBuffer((2,), (1,), capacity=0)
