"""One agent's replay buffer on the host (the DARL paper, Fig. 2 and 6: the host keeps it and copies
the training batch to the agent's HBM pseudo channel).

A ring of ``capacity`` transitions ``(s, a, r, s')`` (QHD keeps 102,400 and drops the
oldest). :meth:`ReplayBuffer.sample` draws a batch of ``M`` distinct transitions uniformly
(QHD's ``random.sample``); while fewer than ``M`` are stored it returns all of them, oldest
first, as QHD does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.ring import Ring

__all__ = ["ReplayBuffer", "Batch"]


@dataclass
class Batch:
    """``M`` transitions: ``obs`` (M, N), ``act`` (M,), ``rew`` (M,), ``next_obs`` (M, N),
    and the buffer rows they came from."""

    index: np.ndarray
    obs: np.ndarray
    act: np.ndarray
    rew: np.ndarray
    next_obs: np.ndarray

    def __len__(self) -> int:
        return len(self.act)


class ReplayBuffer(Ring):
    """A ring buffer of transitions of ``n_obs`` features."""

    FIELDS = ("obs", "next_obs", "act", "rew")

    def __init__(self, n_obs: int, capacity: int = 102400):
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ManifestError(f"replay buffer: capacity must be a positive integer, not "
                                f"{capacity!r}")
        self._start(capacity)
        self.obs = np.zeros((capacity, n_obs))
        self.next_obs = np.zeros((capacity, n_obs))
        self.act = np.zeros(capacity, dtype=np.int64)
        self.rew = np.zeros(capacity)

    def add(self, obs, action: int, reward: float, next_obs) -> None:
        i = self._push()
        self.obs[i], self.act[i], self.rew[i], self.next_obs[i] = obs, action, reward, next_obs

    def _rows(self) -> np.ndarray:
        """Stored rows, oldest first."""
        if self.size < self.capacity:
            return np.arange(self.size)
        return (np.arange(self.capacity) + self._next) % self.capacity

    def sample(self, rng: np.random.Generator, m: int) -> Batch:
        """``m`` distinct transitions drawn uniformly, or every stored one if fewer."""
        if self.size == 0:
            raise ManifestError("replay buffer: sample from an empty buffer")
        if self.size <= m:
            idx = self._rows()
        else:
            idx = rng.choice(self.size, size=m, replace=False)
            if self.size == self.capacity:
                idx = (idx + self._next) % self.capacity
        return Batch(idx, self.obs[idx], self.act[idx], self.rew[idx], self.next_obs[idx])
