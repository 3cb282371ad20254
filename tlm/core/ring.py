"""A ring interconnect: node ``i`` has one link to node ``(i + 1) % n``.

Every link moves a message of ``w`` words in ``timing.delay(w)`` cycles (an
:class:`~rlaccel.tlm.core.AccessTiming`: the hop latency plus the words at the link width)
and costs ``energy_pj_per_word`` per word and hop. The operations are SimPy generators that a
node's process runs in simulated time (after synchronising its quantum keeper):

* :meth:`Ring.send` / :meth:`Ring.recv` -- a message to the next node (one hop), in order;
* :meth:`Ring.allgather` -- every node ends with every node's vector, in ``n - 1`` steps of
  one hop each (each node forwards what it last received): ``(n - 1) * delay(w)`` cycles
  when the nodes start together (:meth:`Ring.allgather_cycles`); a node that starts late
  delays the others, as on the hardware;
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

__all__ = ["Ring"]


class Ring:
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
        return (self.n - 1) * self.timing.delay(words)

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
