"""A butterfly network for the all-reduce of ``n = 2^k`` nodes (DARL, seed 004, eq. 19-22).

In stage ``s`` (``s = 0 .. log2(n) - 1``) node ``i`` exchanges its partial vector with node
``i XOR 2^s`` over one link (``timing.delay(w)`` cycles for ``w`` words, an
:class:`~rlaccel.tlm.core.AccessTiming`) and both combine the two vectors, the lower node's
first; after the last stage every node holds the reduction of all ``n`` vectors, bit for bit
the same on every node (both partners compute ``combine(lower, higher)``; :func:`reduce_all`
is that result without time). ``n`` nodes that start together finish after
``log2(n) * delay(w)`` cycles (:func:`allreduce_cycles`). A node count that is not a power
of two is refused.
"""

from __future__ import annotations

from typing import Callable, Generator

import numpy as np
import simpy

from rlaccel.util.errors import SimError

from rlaccel.tlm.core.timing import AccessTiming

__all__ = ["Butterfly", "stages", "partner", "reduce_all", "allreduce_cycles"]


def stages(n) -> int | None:
    """``log2 n``, the stages of a butterfly of ``n`` nodes, or None when ``n`` is not a
    power-of-two whole number (1, 2, 4, 8, ...)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1 or n & (n - 1):
        return None
    return int(n).bit_length() - 1


def partner(node: int, stage: int) -> int:
    """The node ``node`` exchanges with in ``stage``: ``node XOR 2^stage``."""
    return node ^ (1 << stage)


def reduce_all(values: list, combine: Callable) -> list:
    """What every node holds after the all-reduce of ``values`` (one per node, a
    power-of-two count): stage by stage, each node and its partner both keep
    ``combine(lower node's, higher node's)``."""
    cur = list(values)
    for s in range(stages(len(cur))):
        cur = [combine(cur[min(i, partner(i, s))], cur[max(i, partner(i, s))])
               for i in range(len(cur))]
    return cur


def allreduce_cycles(n: int, timing: AccessTiming, words: int) -> int:
    """Cycles of an all-reduce of ``words`` per node among ``n`` (a power of two) that start
    together: one link access a stage."""
    return stages(n) * timing.delay(words)


class Butterfly:
    """The butterfly of ``n`` nodes (module docstring); ``kind`` names it in
    ``[interconnect]``."""

    kind = "butterfly"

    def __init__(self, env: simpy.Environment, n: int, timing: AccessTiming,
                 energy_pj_per_word: float = 0.0, name: str = "butterfly"):
        if not isinstance(n, int) or stages(n) is None:
            raise SimError(f"{name}: a butterfly all-reduce needs a power-of-two number of "
                           f"nodes (1, 2, 4, 8, ...), not {n!r}")
        self.env, self.n, self.timing, self.name = env, n, timing, name
        self.stages = stages(n)
        self.energy_pj_per_word = energy_pj_per_word
        self._inbox = [[simpy.Store(env) for _ in range(self.stages)] for _ in range(n)]
        self.words = 0
        self.hops = 0

    def allreduce_cycles(self, words: int) -> int:
        """Cycles of an all-reduce of ``words`` per node when every node starts together."""
        return allreduce_cycles(self.n, self.timing, words)

    @property
    def energy_pj(self) -> float:
        return self.words * self.energy_pj_per_word

    def allreduce(self, node: int, data, combine: Callable[[np.ndarray, np.ndarray], np.ndarray]
                  ) -> Generator:
        """Reduce every node's ``data`` with ``combine``; returns the reduction."""
        if not 0 <= node < self.n:
            raise SimError(f"{self.name}: node {node} does not exist (nodes 0..{self.n - 1})")
        cur = np.array(data, copy=True)
        for s in range(self.stages):
            peer = partner(node, s)
            yield self.env.timeout(self.timing.delay(len(cur)))
            self.words += len(cur)
            self.hops += 1
            self._inbox[peer][s].put(cur)
            other = yield self._inbox[node][s].get()
            cur = combine(cur, other) if node < peer else combine(other, cur)
        return cur
