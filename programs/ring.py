"""The ring a host's replay buffer keeps its transitions in: ``capacity`` rows of each of
the fields the buffer names (``FIELDS``, numpy arrays the subclass allocates), the oldest
overwritten, and its checkpoint pair (:mod:`rlaccel.programs.checkpoint`), which saves the
filled rows only (a million-row ring is mostly empty early in a run)."""

from __future__ import annotations

__all__ = ["Ring"]


class Ring:
    """A ring of rows; a subclass sets ``FIELDS`` and allocates one array per field (first
    axis ``capacity``), calls :meth:`_start` and stores a transition at :meth:`_push`'s row."""

    FIELDS: tuple[str, ...] = ()

    def _start(self, capacity: int) -> None:
        self.capacity = capacity
        self.size = 0
        self._next = 0

    def __len__(self) -> int:
        return self.size

    def _push(self) -> int:
        """The row the next transition goes to; the ring moves on."""
        i = self._next
        self._next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        return i

    def checkpoint_state(self) -> tuple[dict, dict]:
        """The filled rows and the ring's place, as ``(arrays, fields)``."""
        n = self.size
        return ({f: getattr(self, f)[:n] for f in self.FIELDS},
                {"capacity": self.capacity, "size": n, "next": self._next})

    def restore(self, saved) -> None:
        """Refill this (empty, same-sized) ring from :meth:`checkpoint_state`'s state."""
        cap = saved.get("capacity", int)
        if cap != self.capacity:
            raise saved.unfit(f"its replay buffer holds {cap} transitions, this one "
                              f"{self.capacity}")
        n = saved.get("size", int, lo=0, hi=cap)
        nxt = saved.get("next", int, lo=0, hi=cap - 1)
        for f in self.FIELDS:
            rows = getattr(self, f)
            rows[:n] = saved.array(f, rows.dtype, (n,) + rows.shape[1:])
        self.size, self._next = n, nxt
