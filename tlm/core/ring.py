"""A ring interconnect: node ``i`` has one link to node ``(i + 1) % n``.

Every link moves a message of ``w`` words in ``timing.delay(w)`` cycles (an
:class:`~rlaccel.tlm.core.AccessTiming`: the hop latency plus the words at the link width)
and costs ``energy_pj_per_word`` per word and hop. The operations are SimPy generators that a
node's process runs in simulated time (after synchronising its quantum keeper):

* :meth:`Ring.send` / :meth:`Ring.recv` -- a message to the next node (one hop), in order;
* :meth:`Ring.allgather` -- every node ends with every node's vector, in ``n - 1`` steps of
  one hop each (each node forwards what it last received): ``(n - 1) * delay(w)`` cycles
  when the nodes start together (:meth:`Ring.allgather_cycles`); a node that starts late
  delays the others, as on the hardware (:func:`allgather_cycles`, the recurrence for any
  vector sizes and start cycles);
* :meth:`Ring.barrier` -- an all-gather of nothing: every node leaves ``(n - 1)`` hop
  latencies after the last one arrives.

Seed 003 (section III-A) puts the MADDPG learners on such a ring: O(N) hops per exchange.
"""

from __future__ import annotations

from typing import Generator

import numpy as np
import simpy

from rlaccel.util.errors import SimError

from rlaccel.tlm.core.timing import AccessTiming

__all__ = ["Ring", "allgather_cycles"]


def allgather_cycles(sizes, timing: AccessTiming, starts=None) -> list[int]:
    """The cycle at which each node of an all-gather has sent ``n - 1`` messages and received
    ``n - 1`` (so it holds every vector): ``sizes[j]`` is node j's vector length,
    ``starts[i]`` when node i begins (default 0). A node forwards a message when it has sent
    the previous one and received this one, each hop ``timing.delay(words)``::

        sent[i][1] = t0_i + hop(w_i)
        sent[i][s] = max(sent[i][s-1], sent[i-1][s-1]) + hop(w_{i-s+1})
        done[i]    = max(sent[i][n-1], sent[i-1][n-1])

    which for equal sizes and a common start is ``(n - 1) * hop(w)``."""
    n = len(sizes)
    t0 = list(starts) if starts is not None else [0] * n
    if n < 1:
        raise SimError("a ring all-gather needs at least one node")
    if len(t0) != n:
        raise SimError(f"a ring all-gather: {len(t0)} start cycles for {n} nodes")
    if n == 1:
        return t0
    hop = [timing.delay(w) for w in sizes]
    sent = [t0[i] + hop[i] for i in range(n)]
    for s in range(2, n):
        sent = [max(sent[i], sent[i - 1]) + hop[(i - s + 1) % n] for i in range(n)]
    return [max(sent[i], sent[i - 1]) for i in range(n)]


class Ring:
    """The ring of ``n`` nodes (module docstring); ``kind`` names it in ``[interconnect]``."""

    kind = "ring"

    def __init__(self, env: simpy.Environment, n: int, timing: AccessTiming,
                 energy_pj_per_word: float = 0.0, name: str = "ring"):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise SimError(f"{name}: the number of nodes must be a positive integer, "
                           f"not {n!r}")
        self.env, self.n, self.timing, self.name = env, n, timing, name
        self.energy_pj_per_word = energy_pj_per_word
        self._p2p = [simpy.Store(env) for _ in range(n)]
        self._coll = [simpy.Store(env) for _ in range(n)]
        self.words = 0            # words moved over links (a word over h hops counts h)
        self.hops = 0             # messages moved over one link

    # -- formulas ---------------------------------------------------------------------------
    def hop_cycles(self, words: int) -> int:
        return self.timing.delay(words)

    def allgather_cycles(self, words: int) -> int:
        """Cycles of an all-gather of ``words`` per node when every node starts together."""
        return max(allgather_cycles([words] * self.n, self.timing))

    @property
    def energy_pj(self) -> float:
        return self.words * self.energy_pj_per_word

    # -- operations (SimPy generators) ------------------------------------------------------
    def _check(self, node: int) -> None:
        if not 0 <= node < self.n:
            raise SimError(f"{self.name}: node {node} does not exist (nodes 0..{self.n - 1})")

    def _hop(self, data: np.ndarray) -> Generator:
        yield self.env.timeout(self.timing.delay(len(data)))
        self.words += len(data)
        self.hops += 1

    def send(self, node: int, data) -> Generator:
        """Move ``data`` to the next node; returns when it has arrived there."""
        self._check(node)
        data = np.array(data, copy=True)
        yield from self._hop(data)
        self._p2p[(node + 1) % self.n].put(data)

    def recv(self, node: int) -> Generator:
        """Wait for the next message from the previous node; returns its words."""
        self._check(node)
        data = yield self._p2p[node].get()
        return data

    def allgather(self, node: int, data) -> Generator:
        """Every node's ``data``; returns a list indexed by node."""
        self._check(node)
        have = {node: np.array(data, copy=True)}
        origin, cur = node, have[node]
        nxt = (node + 1) % self.n
        for _ in range(self.n - 1):
            yield from self._hop(cur)
            self._coll[nxt].put((origin, cur))
            origin, cur = yield self._coll[node].get()
            have[origin] = cur
        return [have[a] for a in range(self.n)]

    def barrier(self, node: int) -> Generator:
        """Wait until every node has reached its barrier."""
        yield from self.allgather(node, np.zeros(0))
