"""The delayed update cache (the DARL paper, sections 3.3-3.4, Fig. 4-5, eq. 7-8 and 15-18).

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

The FIFO is kept in arrays (:attr:`UpdateCache.arrays`: the entries' actions and update
hypervectors in push order, and the counts), so that the family's compiled kernels
(:mod:`.kernels`) work on the very entries the methods here do, and a checkpoint saves
them as they are.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError, SimError

from rlaccel.machines.darl.tlm._fixed import as_dtype

__all__ = ["UpdateCache", "N", "PUSHED", "APPLIED"]

#: the words of :attr:`UpdateCache.counts`: entries pending, pushed and applied so far
N, PUSHED, APPLIED = range(3)


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
        #: the entries in push order: entry k's action, and its update hypervectors
        self.acts = np.zeros(self.depth, dtype=np.int64)
        self.ur = np.zeros((self.depth, self.d), dtype=self.fmt.storage)
        self.ui = np.zeros((self.depth, self.d), dtype=self.fmt.storage)
        #: entries pending, pushed and applied so far (:data:`N`, :data:`PUSHED`,
        #: :data:`APPLIED`)
        self.counts = np.zeros(3, dtype=np.int64)

    @property
    def arrays(self) -> tuple:
        """``(acts, ur, ui, counts)``: the FIFO as the kernels and checkpoints see it."""
        return self.acts, self.ur, self.ui, self.counts

    def __len__(self) -> int:
        return int(self.counts[N])

    @property
    def pushed(self) -> int:
        return int(self.counts[PUSHED])

    @property
    def applied(self) -> int:
        return int(self.counts[APPLIED])

    def entries(self) -> list:
        """The pending entries ``(action, ur, ui)``, oldest first (copies)."""
        return [(int(self.acts[k]), self.ur[k].copy(), self.ui[k].copy())
                for k in range(len(self))]

    def pending(self, action: int) -> bool:
        """Whether an update of ``action``'s row waits in the FIFO."""
        return bool((self.acts[:len(self)] == action).any())

    def push(self, action: int, ur, ui) -> None:
        """Store the update hypervectors of ``action`` (eq. 15-16, Fig. 5d)."""
        if not 0 <= action < self.actions:
            raise SimError(f"update cache: action {action} is not one of 0..{self.actions - 1}")
        ur, ui = np.asarray(ur), np.asarray(ui)
        if ur.shape != (self.d,) or ui.shape != (self.d,):
            raise SimError(f"update cache: update hypervectors of shape {ur.shape}, {ui.shape} "
                           f"for rows of {self.d}")
        n = len(self)
        if n >= self.depth:
            raise SimError(f"update cache: the FIFO is full ({self.depth} pending updates, "
                           f"actions {self.acts[:n].tolist()}); push for action {action} "
                           f"refused")
        self.acts[n] = int(action)
        self.ur[n] = ur
        self.ui[n] = ui
        self.counts[N] = n + 1
        self.counts[PUSHED] += 1

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
        kept = 0
        for k in range(len(self)):
            a = int(self.acts[k])
            if m[a]:
                self._add(qr[a], self.ur[k], counter)
                self._add(qi[a], self.ui[k], counter)
                self.counts[APPLIED] += 1
            else:
                if kept != k:
                    self.acts[kept] = a
                    self.ur[kept] = self.ur[k]
                    self.ui[kept] = self.ui[k]
                kept += 1
        self.counts[N] = kept

    def clear(self) -> None:
        """Discard every pending update (the model they were for is being replaced)."""
        self.counts[N] = 0

    def drain(self, qr, qi, *, counter=None) -> None:
        """Apply every pending update, oldest first, and empty the FIFO."""
        self.stream(qr, qi, np.ones(self.actions, dtype=bool), counter=counter)
