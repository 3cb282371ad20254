"""The host's replay buffer (the FIXAR paper, section III: the host "stores transition information
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

    # ---- checkpoints (rlaccel.programs.checkpoint) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """The filled rows (a 1 M-transition ring is mostly empty) and the ring's place, as
        ``(arrays, fields)``."""
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
