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


class ReplayBuffer:
    """A ring buffer of transitions of ``n_obs`` features."""

    def __init__(self, n_obs: int, capacity: int = 102400):
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ManifestError(f"replay buffer: capacity must be a positive integer, not "
                                f"{capacity!r}")
        self.capacity = capacity
        self.obs = np.zeros((capacity, n_obs))
        self.next_obs = np.zeros((capacity, n_obs))
        self.act = np.zeros(capacity, dtype=np.int64)
        self.rew = np.zeros(capacity)
        self.size = 0
        self._next = 0

    def __len__(self) -> int:
        return self.size

    _FIELDS = ("obs", "next_obs", "act", "rew")

    def checkpoint_state(self) -> tuple[dict, dict]:
        """The filled rows and the ring's place, as ``(arrays, fields)``
        (:mod:`rlaccel.programs.checkpoint`)."""
        n = self.size
        return ({f: getattr(self, f)[:n] for f in self._FIELDS},
                {"capacity": self.capacity, "size": n, "next": self._next})

    def restore(self, saved) -> None:
        """Refill this (empty, same-sized) buffer from :meth:`checkpoint_state`'s state."""
        cap = saved.get("capacity", int)
        if cap != self.capacity:
            raise saved.unfit(f"its replay buffer holds {cap} transitions, this one "
                              f"{self.capacity}")
        n = saved.get("size", int, lo=0, hi=cap)
        nxt = saved.get("next", int, lo=0, hi=cap - 1)
        for f in self._FIELDS:
            rows = getattr(self, f)
            rows[:n] = saved.array(f, rows.dtype, (n,) + rows.shape[1:])
        self.size, self._next = n, nxt

    def add(self, obs, action: int, reward: float, next_obs) -> None:
        i = self._next
        self.obs[i], self.act[i], self.rew[i], self.next_obs[i] = obs, action, reward, next_obs
        self._next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

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
