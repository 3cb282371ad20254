"""The models an HDQL learner keeps (the DARL paper, section 4.1), the same in the float
reference (:mod:`.reference`) and the learner on the unit models (:mod:`.functional`): the
delayed model ``Q' = TR + j TI`` all agents share (each keeps a replica), and per agent
``k`` its model ``Q = QR + j QI`` and its shard, the updates since the last synchronisation.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AgentModels"]


class AgentModels:
    """``tr``, ``ti`` (Q'), ``qr[k]``, ``qi[k]`` (agent ``k``'s Q) and ``sr[k]``, ``si[k]``
    (its shard), each an ``A x D`` array of ``zeros``' type, all zero at the start."""

    def __init__(self, zeros: np.ndarray, agents: int):
        self.tr, self.ti = zeros.copy(), zeros.copy()
        self.qr = [zeros.copy() for _ in range(agents)]
        self.qi = [zeros.copy() for _ in range(agents)]
        self.sr = [zeros.copy() for _ in range(agents)]
        self.si = [zeros.copy() for _ in range(agents)]

    def model(self, k: int, which: str):
        """``(QR, QI)`` of agent ``k``'s ``"online"`` model or the common ``"target"``."""
        return (self.tr, self.ti) if which == "target" else (self.qr[k], self.qi[k])

    def _restart_agents(self) -> None:
        """The end of a stage, once Q' holds the shards' reduction: every ``Q <- Q'``, every
        shard zero."""
        for k in range(len(self.qr)):
            self.qr[k][...] = self.tr
            self.qi[k][...] = self.ti
            self.sr[k][...] = 0
            self.si[k][...] = 0
