"""The host's replay buffer (the FIXAR paper, section III: the host "stores transition information
from the current step and samples a training batch in order to send to FPGA").

A ring of float32 arrays; uniform sampling with replacement from a generator the caller owns
(so a seed fixes every batch).
"""

from __future__ import annotations

import numpy as np

from rlaccel.programs.ring import Ring
from rlaccel.util.errors import RlaccelError

__all__ = ["ReplayBuffer", "BATCH_FIELDS"]

#: the fields of a batch, in the order the host link sends them
BATCH_FIELDS = ("s", "a", "r", "s2", "done")


class ReplayBuffer(Ring):
    """``capacity`` transitions ``(s, a, r, s', done)``; the oldest is overwritten."""

    FIELDS = BATCH_FIELDS

    def __init__(self, capacity: int, state_dim: int, action_dim: int) -> None:
        self._start(int(capacity))
        self.s = np.zeros((capacity, state_dim), np.float32)
        self.a = np.zeros((capacity, action_dim), np.float32)
        self.r = np.zeros(capacity, np.float32)
        self.s2 = np.zeros((capacity, state_dim), np.float32)
        self.done = np.zeros(capacity, np.float32)

    def add(self, s, a, r, s2, done) -> None:
        i = self._push()
        self.s[i], self.a[i], self.r[i], self.s2[i], self.done[i] = s, a, r, s2, float(done)

    def sample(self, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``batch`` transitions drawn uniformly with replacement (fresh arrays)."""
        if self.size == 0:
            raise RlaccelError("replay buffer: cannot sample from an empty buffer")
        idx = rng.integers(0, self.size, size=batch)
        return {"s": self.s[idx], "a": self.a[idx], "r": self.r[idx], "s2": self.s2[idx],
                "done": self.done[idx]}
