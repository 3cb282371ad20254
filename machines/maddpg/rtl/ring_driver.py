"""Running an all-gather on MADDPG's ring (:mod:`.ring`), as its bench and its transactor both
do: generators to ``yield from`` in a driver (``io``: see :mod:`rtl.drive`).
"""

from __future__ import annotations

from myhdl import delay

from rlaccel.rtl.drive import write
from rlaccel.machines.maddpg.rtl.ring import MAX_WORDS

__all__ = ["load", "gather", "gather_budget", "read_held"]


def load(io, vecs):
    """Clear the ring, then load every node's vector a word a cycle (``ld_len`` its
    length)."""
    s = io.ports
    s["clear"].next = True
    s["go"].next = 0
    yield io.clk.negedge
    s["clear"].next = False
    yield from write(io, "ld_we", ({"ld_node": i, "ld_addr": k, "ld_data": v,
                                    "ld_len": len(vec)}
                                   for i, vec in enumerate(vecs) for k, v in enumerate(vec)))


def gather_budget(starts: list, hop_latency: int) -> int:
    """The cycles :func:`gather` waits for every ``done`` (well beyond the all-gather's)."""
    n = len(starts)
    return max(starts) + 16 + n * n * (hop_latency + MAX_WORDS + 2)


def gather(io, starts: list, hop_latency: int):
    """Raise each node's ``go`` at its start (cycles from now) and record the cycle each
    node's ``done`` rises, from now; None for a node whose ``done`` has not risen in time."""
    s = io.ports
    n = len(starts)
    base = io.cycles
    limit = gather_budget(starts, hop_latency)
    done = [None] * n
    go = 0
    while any(d is None for d in done) and io.cycles - base < limit:
        for i, t0 in enumerate(starts):
            if io.cycles - base == t0:
                go |= 1 << i
        s["go"].next = go
        yield delay(1)
        for i in range(n):
            if done[i] is None and (int(s["done"].val) >> i) & 1:
                done[i] = io.cycles - base
        yield io.clk.negedge
    return done


def read_held(io, sizes: list):
    """Every node's copy of every learner's vector (``sizes[j]`` words of learner ``j``), a
    word a cycle through the read port."""
    s = io.ports
    held = []
    for i in range(len(sizes)):
        node = []
        for j, size in enumerate(sizes):
            words = []
            for k in range(size):
                s["rd_node"].next = i
                s["rd_slot"].next = j
                s["rd_addr"].next = k
                yield io.clk.negedge
                words.append(int(s["rd_data"].val))
            node.append(words)
        held.append(node)
    return held
