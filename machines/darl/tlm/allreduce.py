"""The all-reduce over the butterfly network-on-chip (the DARL paper, section 4.2, Fig. 7,
eq. 19-22): every agent ends with the average of all agents' shards.

``n = 2^k`` agents, ``k`` stages. In stage ``s`` agent ``i`` exchanges its partial vector with
agent ``i XOR 2^s`` and both keep the sum, the lower agent's vector first (eq. 20-21:
``E = A + B``, ``F = C + D``); after the last stage every agent holds the sum of all shards,
bit for bit the same on every agent because each pair adds the same two operands in the same
order. The average is then the sum divided by ``n`` (eq. 22, ``G = (E + F) / 4``): in fixed
point an arithmetic shift by ``k`` with one round-half-up, in float64 an exact scaling by the
power of two. Fixed-point adds saturate.

The stages, the partners and the order of the sums are the platform butterfly's
(:mod:`rlaccel.tlm.core.butterfly`: ``stages``, ``partner``, ``reduce_all``). Cycles
(:func:`allreduce_cycles`): each stage moves a vector of ``words`` over one link,
``latency + per_beat * ceil(words / width)`` cycles (an
:class:`rlaccel.tlm.core.AccessTiming`, which the platform's ``Butterfly`` charges per stage),
and adds it, so ``k * (latency + per_beat * ceil(words / width))`` with the adder's depth
counted in ``latency`` (:func:`rlaccel.tlm.core.butterfly.allreduce_cycles`). One agent needs
no stage and no cycle.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from rlaccel.util.errors import ArchError
from rlaccel.tlm.core import butterfly
from rlaccel.tlm.core.timing import AccessTiming

from rlaccel.machines.darl.tlm._fixed import as_dtype

__all__ = ["divide_by_agents", "stages", "butterfly_allreduce", "allreduce_cycles", "partners"]


def stages(n: int) -> int:
    """``log2 n`` for a power-of-two agent count; an :class:`ArchError` otherwise."""
    k = butterfly.stages(n)
    if k is None:
        raise ArchError(f"butterfly all-reduce: the network connects a power-of-two number of "
                        f"agents (1, 2, 4, 8, ...), not {n!r}")
    return k


def partners(n: int, stage: int) -> list[int]:
    """Agent ``i``'s partner in ``stage``: ``i XOR 2^stage``."""
    k = stages(n)
    if not 0 <= stage < k:
        raise ArchError(f"butterfly all-reduce: stage {stage} does not exist for {n} agents "
                        f"(stages 0..{k - 1})")
    return [butterfly.partner(i, stage) for i in range(n)]


def butterfly_allreduce(shards: Sequence, fmt="float64", *, average: bool = True,
                        counter=None) -> list[np.ndarray]:
    """Every agent's copy of the average of ``shards`` (one array per agent, equal shapes),
    raw in a fixed-point ``fmt``; ``average=False`` leaves out eq. 22's division (the sum)."""
    n = len(shards)
    stages(n)
    t = as_dtype(fmt)
    cur = [np.array(s, dtype=np.float64 if t.is_float else np.int64, copy=True) for s in shards]
    shape = cur[0].shape
    for i, c in enumerate(cur):
        if c.shape != shape:
            raise ArchError(f"butterfly all-reduce: agent {i}'s shard has shape {c.shape}, "
                            f"agent 0's {shape}")
    cur = butterfly.reduce_all(cur, (lambda a, b: a + b) if t.is_float
                               else (lambda a, b: t.add(a, b, counter=counter)))
    if not average:
        return cur
    return [divide_by_agents(c, n, t, counter=counter) for c in cur]


def divide_by_agents(total, n: int, fmt, *, counter=None) -> np.ndarray:
    """Eq. 22: the sum of ``n`` agents' shards divided by ``n`` (a shift with one round half
    up in fixed point; exact in float64)."""
    k = stages(n)
    t = as_dtype(fmt)
    if t.is_float:
        return np.asarray(total) * (1.0 / n)
    if k > t.frac_bits:
        raise ArchError(f"butterfly all-reduce: 1/{n} is not representable in {t.name}")
    inv = np.int64(1 << (t.frac_bits - k))         # 1/n exactly: a shift by k bits
    return t.mul(total, inv, counter=counter)


def allreduce_cycles(n: int, words: int, *, latency: int, width: int = 1,
                     per_beat: int = 1) -> int:
    """Cycles of an all-reduce of ``words`` per agent among ``n`` agents that start together."""
    stages(n)
    for name, v, lo in (("words", words, 0), ("latency", latency, 0), ("width", width, 1),
                        ("per_beat", per_beat, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ArchError(f"butterfly all-reduce: {name} must be an integer >= {lo}, not {v!r}")
    return butterfly.allreduce_cycles(n, AccessTiming(int(latency), int(per_beat), int(width)),
                                      int(words))
