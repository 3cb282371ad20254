"""The delayed update cache (seed 004, sections 3.3-3.4, Fig. 4-5, eq. 7-8 and 15-18).

The updating layer does not write the model: it pushes the update hypervectors of the marked
action, ``(a, UR, UI)``, into a FIFO (Fig. 5d). The update lands on ``Q``'s row ``a`` the
next time that row streams into the regression layer *with its mask bit set* (eq. 7-8,
Fig. 4 processes 3-4): the systolic array reads ``Q[a] + U`` and writes it back, so the
model update looks like the forward path and leaves the critical path. Eq. 17-18's example:
an update pushed at step t for action ``a_t`` is applied at step t + 2 if ``a_{t+2} = a_t``
(and not at t + 1 when ``a_{t+1}`` differs). Rows streamed without their mask bit (the
other actions of a training sample, every action of an inference) see the model without
their pending updates; the regression's value of a marked row is the only one training
reads, so the delay changes no value the algorithm uses. :meth:`UpdateCache.drain` commits
everything still pending (before the target model is refreshed from ``Q``).

Entries leave in push order; two pending entries of one row are both applied, oldest first,
each add saturating in fixed point. The FIFO holds ``depth`` entries (by default one per
action: a training schedule that applies a row's update before pushing the next never needs
more); a push into a full FIFO is a :class:`~rlaccel.util.errors.SimError`.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from rlaccel.util.errors import ArchError, SimError

from rlaccel.machines.darl.tlm._fixed import as_dtype

__all__ = ["UpdateCache"]


class UpdateCache:
    """A FIFO of pending row updates for an ``actions x d`` model in ``fmt``."""

    def __init__(self, actions: int, d: int, fmt="float64", depth: int | None = None):
        for name, v in (("actions", actions), ("d", d)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ArchError(f"update cache: {name} must be a positive integer, not {v!r}")
        self.actions, self.d = int(actions), int(d)
        self.depth = self.actions if depth is None else int(depth)
        if self.depth < 1:
            raise ArchError(f"update cache: depth must be at least 1, not {depth!r}")
        self.fmt = as_dtype(fmt)
        self._fifo: deque = deque()
        self.pushed = 0
        self.applied = 0

    def __len__(self) -> int:
        return len(self._fifo)

    def pending(self, action: int) -> bool:
        """Whether an update of ``action``'s row waits in the FIFO."""
        return any(a == action for a, _, _ in self._fifo)

    def push(self, action: int, ur, ui) -> None:
        """Store the update hypervectors of ``action`` (eq. 15-16, Fig. 5d)."""
        if not 0 <= action < self.actions:
            raise SimError(f"update cache: action {action} is not one of 0..{self.actions - 1}")
        ur, ui = np.asarray(ur), np.asarray(ui)
        if ur.shape != (self.d,) or ui.shape != (self.d,):
            raise SimError(f"update cache: update hypervectors of shape {ur.shape}, {ui.shape} "
                           f"for rows of {self.d}")
        if len(self._fifo) >= self.depth:
            raise SimError(f"update cache: the FIFO is full ({self.depth} pending updates, "
                           f"actions {[a for a, _, _ in self._fifo]}); push for action {action} "
                           f"refused")
        self._fifo.append((int(action), ur.copy(), ui.copy()))
        self.pushed += 1

    def _add(self, row, u, counter):
        if self.fmt.is_float:
            row += u
        else:
            row[...] = self.fmt.add(row, u, counter=counter)

    def stream(self, qr, qi, mask, *, counter=None) -> None:
        """Stream the model into the regression layer with action ``mask`` (eq. 7-8): every
        pending update of a marked row is added to ``qr``, ``qi`` in place and leaves the
        FIFO; other entries stay, in order."""
        m = np.asarray(mask, dtype=bool)
        if m.shape != (self.actions,):
            raise SimError(f"update cache: a mask of shape {m.shape} for {self.actions} actions")
        keep: deque = deque()
        for a, ur, ui in self._fifo:
            if m[a]:
                self._add(qr[a], ur, counter)
                self._add(qi[a], ui, counter)
                self.applied += 1
            else:
                keep.append((a, ur, ui))
        self._fifo = keep

    def clear(self) -> None:
        """Discard every pending update (the model they were for is being replaced)."""
        self._fifo.clear()

    def drain(self, qr, qi, *, counter=None) -> None:
        """Apply every pending update, oldest first, and empty the FIFO."""
        self.stream(qr, qi, np.ones(self.actions, dtype=bool), counter=counter)
