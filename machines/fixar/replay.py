"""The host's replay buffer (seed 002, section III: the host "stores transition information
from the current step and samples a training batch in order to send to FPGA").

A ring of float32 arrays; uniform sampling with replacement from a generator the caller owns
(so a seed fixes every batch).
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import RlaccelError

__all__ = ["ReplayBuffer", "BATCH_FIELDS"]

#: the fields of a batch, in the order the host link sends them
BATCH_FIELDS = ("s", "a", "r", "s2", "done")


class ReplayBuffer:
    """``capacity`` transitions ``(s, a, r, s', done)``; the oldest is overwritten."""

    def __init__(self, capacity: int, state_dim: int, action_dim: int) -> None:
        self.capacity = int(capacity)
        self.s = np.zeros((capacity, state_dim), np.float32)
        self.a = np.zeros((capacity, action_dim), np.float32)
        self.r = np.zeros(capacity, np.float32)
        self.s2 = np.zeros((capacity, state_dim), np.float32)
        self.done = np.zeros(capacity, np.float32)
        self.size = 0
        self._next = 0

    _FIELDS = ("s", "a", "r", "s2", "done")

    def __getstate__(self) -> dict:
        """For checkpoints: the filled rows only (a 1 M-transition ring is mostly empty)."""
        n = self.size
        return {"capacity": self.capacity, "size": n, "_next": self._next,
                **{f: getattr(self, f)[:n].copy() for f in self._FIELDS}}

    def __setstate__(self, d: dict) -> None:
        self.capacity, self.size, self._next = d["capacity"], d["size"], d["_next"]
        for f in self._FIELDS:
            rows = d[f]
            full = np.zeros((self.capacity,) + rows.shape[1:], rows.dtype)
            full[:len(rows)] = rows
            setattr(self, f, full)

    def add(self, s, a, r, s2, done) -> None:
        i = self._next
        self.s[i], self.a[i], self.r[i], self.s2[i], self.done[i] = s, a, r, s2, float(done)
        self._next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``batch`` transitions drawn uniformly with replacement (fresh arrays)."""
        if self.size == 0:
            raise RlaccelError("replay buffer: cannot sample from an empty buffer")
        idx = rng.integers(0, self.size, size=batch)
        return {"s": self.s[idx], "a": self.a[idx], "r": self.r[idx], "s2": self.s2[idx],
                "done": self.done[idx]}
