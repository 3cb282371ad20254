"""Timing of a training pipeline (the MADDPG paper, section IV-A) as pure functions of its stages'
cycles per sample.

Samples stream through the stages; a stage works on one sample at a time for its
``T_j = ceil(ID_j OD_j / F_j)`` cycles (eq. 4) and hands it on. Stage ``j`` may add ``d_j``
cycles of latency that do not occupy it (the depth of its arithmetic pipeline; the paper gives
none, so 0 by default). Then:

* throughput (eq. 3): ``TP = 1 / max_j T_j`` samples per cycle, set by the bottleneck stage;
* fill: the first sample leaves after ``sum_j (T_j + d_j)`` cycles;
* a batch of ``B`` samples takes ``sum_j (T_j + d_j) + (B - 1) max_j T_j`` cycles (the longest
  path through the schedule's grid: every stage once, the bottleneck ``B - 1`` more times).

:func:`schedule` computes every sample's start and finish in every stage by the recurrence
``start[k, j] = max(finish[k, j-1], start[k-1, j] + T_j)``, ``finish = start + T_j + d_j``
(unbounded buffers between stages), so the closed forms can be checked and a simulator's
trace compared sample by sample.
"""

from __future__ import annotations

from math import ceil

import numpy as np

from rlaccel.util.errors import ArchError
from rlaccel.util.numbers import is_whole

__all__ = ["throughput", "bottleneck", "fill_cycles", "batch_cycles", "schedule",
           "apply_cycles", "seconds"]


def _cycles(cycles) -> list[int]:
    c = [int(x) for x in cycles]
    if not c or any(x < 1 for x in c):
        raise ArchError(f"a pipeline needs one or more stages of at least one cycle, not "
                        f"{list(cycles)!r}")
    return c


def _depths(depth, n: int) -> list[int]:
    if depth is None:
        return [0] * n
    if np.isscalar(depth):
        return [int(depth)] * n
    d = [int(x) for x in depth]
    if len(d) != n:
        raise ArchError(f"{len(d)} stage depths for {n} stages")
    return d


def throughput(cycles) -> float:
    """Samples per cycle in the steady state, ``1 / max T_j`` (eq. 3)."""
    return 1.0 / max(_cycles(cycles))


def bottleneck(cycles) -> int:
    """Index of the slowest stage (the first one if several tie)."""
    c = _cycles(cycles)
    return c.index(max(c))


def fill_cycles(cycles, depth=None) -> int:
    """Cycles until the first sample leaves the last stage."""
    c = _cycles(cycles)
    return sum(c) + sum(_depths(depth, len(c)))


def batch_cycles(cycles, batch: int, depth=None) -> int:
    """Cycles from the first sample entering to the last leaving, for ``batch`` samples."""
    if not is_whole(batch, types=(int, np.integer)):
        raise ArchError(f"a batch must hold one or more samples, not {batch!r}")
    c = _cycles(cycles)
    return fill_cycles(c, depth) + (int(batch) - 1) * max(c)


def schedule(cycles, batch: int, depth=None) -> tuple[np.ndarray, np.ndarray]:
    """``(start, finish)``, each ``(batch, stages)``: when sample k enters and leaves stage j."""
    c = _cycles(cycles)
    d = _depths(depth, len(c))
    start = np.zeros((batch, len(c)), dtype=np.int64)
    finish = np.zeros_like(start)
    for k in range(batch):
        for j, (t, dj) in enumerate(zip(c, d)):
            ready = finish[k, j - 1] if j else 0
            free = start[k - 1, j] + t if k else 0
            start[k, j] = max(ready, free)
            finish[k, j] = start[k, j] + t + dj
    return start, finish


def apply_cycles(works, factors, passes: int = 1) -> int:
    """Cycles to apply a batch's accumulated gradients: every WU CU walks its ``ID x OD``
    weights once per pass on its own ``F`` elements, all CUs in parallel (``passes`` counts
    the optimiser's sweeps: 1 for SGD). Not in the paper's eq. 4, which counts per sample."""
    if len(works) != len(factors):
        raise ArchError(f"{len(works)} weight matrices for {len(factors)} unroll factors")
    return max((ceil(w / f) * passes for w, f in zip(works, factors)), default=0)


def seconds(cycles: int, clock_mhz: float) -> float:
    """Cycles at the clock, in seconds."""
    return cycles / (clock_mhz * 1e6)
