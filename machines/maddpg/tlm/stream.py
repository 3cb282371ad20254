"""A compute unit working through a batch, sample by sample, in simulated time (the MADDPG paper,
section IV-A): the schedule of one stream given when each sample's inputs are ready.

A CU takes one sample at a time for ``T`` cycles (eq. 4) and may start sample ``k`` once its
inputs are ready (``ready[k]``: the producing CUs' finish times, the ring's arrival, the
batch's arrival) and it has finished sample ``k - 1`` (or, for the first sample, once it is
free of earlier work: ``free``). A sample's result is ready ``depth`` cycles after the CU
finishes it (an arithmetic pipeline that does not hold the CU; the paper gives none):

    start[k]  = max(ready[k], start[k-1] + T)       (start[-1] + T = free)
    done[k]   = start[k] + T + depth

The recurrence is evaluated for the whole batch at once: with ``c[k] = start[k] - k T``,
``c[k] = max(ready[k] - k T, c[k-1])``, a running maximum (with numba, one compiled pass of
the recurrence itself: the same integers). A chain of streams, each reading
the previous one's ``done``, is :func:`~.timing.schedule` of the pipeline (tested), so fill,
steady state and the bottleneck stage come out of the simulated units themselves.

:func:`busy_runs` merges a stream's back-to-back samples into runs of continuous work (what a
trace draws): the bottleneck stage is one run per batch, a faster stage one run per sample
with idle gaps between them.
"""

from __future__ import annotations

import numpy as np

from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit
from rlaccel.util.errors import SimError

__all__ = ["stream", "stream_after", "busy_runs"]


@njit
def _recurrence(ready, cycles, free, depth):
    n = ready.shape[0]
    start = np.empty(n, dtype=np.int64)
    done = np.empty(n, dtype=np.int64)
    t = free                        # when the unit has finished the previous sample
    for k in range(n):
        s = ready[k] if ready[k] > t else t
        start[k] = s
        t = s + cycles
        done[k] = t + depth
    return start, done


@njit
def _after(a, b, now, cycles, free, depth):
    """:func:`_recurrence` of ``ready[k] = max(now, a[k], b[k])``."""
    n = a.shape[0]
    start = np.empty(n, dtype=np.int64)
    done = np.empty(n, dtype=np.int64)
    t = free
    for k in range(n):
        r = a[k] if a[k] > b[k] else b[k]
        r = r if r > now else now
        s = r if r > t else t
        start[k] = s
        t = s + cycles
        done[k] = t + depth
    return start, done


def stream_after(now: int, producers, cycles: int, free: int = 0,
                 depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`stream` of the ready times ``max(now, p[k] for p in producers)`` (int64 arrays
    of one length, at least one), compiled in one pass for one or two of them."""
    if HAVE_NUMBA and 1 <= len(producers) <= 2 and len(producers[0]) > 0 and cycles >= 1 \
            and depth >= 0:
        return _after(producers[0], producers[-1], int(now), int(cycles), int(free), int(depth))
    ready = np.full(len(producers[0]), now, np.int64)
    for p in producers:
        np.maximum(ready, p, out=ready)
    return stream(ready, cycles, free, depth)


def stream(ready, cycles: int, free: int = 0, depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(start, done)`` of every sample (int64 arrays) for per-sample ready times ``ready``,
    ``cycles`` per sample, the CU free from cycle ``free`` (module recurrence)."""
    r = np.asarray(ready, dtype=np.int64)
    if r.ndim != 1 or len(r) == 0:
        raise SimError(f"a stream needs one ready time per sample, not shape {r.shape}")
    if cycles < 1 or depth < 0:
        raise SimError(f"a stream takes at least one cycle per sample and a depth >= 0, "
                       f"not {cycles} and {depth}")
    if HAVE_NUMBA:
        return _recurrence(r, int(cycles), int(free), int(depth))
    k = np.arange(len(r), dtype=np.int64)
    c = r - k * cycles
    c[0] = max(int(c[0]), int(free))
    start = np.maximum.accumulate(c) + k * cycles
    return start, start + cycles + depth


def busy_runs(start: np.ndarray, cycles: int) -> list[tuple[int, int, int]]:
    """``(first sample, start, cycles)`` of every run of back-to-back samples."""
    s = np.asarray(start, dtype=np.int64)
    if len(s) == 0:
        return []
    breaks = np.flatnonzero(s[1:] != s[:-1] + cycles) + 1
    firsts = np.concatenate(([0], breaks))
    lasts = np.concatenate((breaks - 1, [len(s) - 1]))
    return [(int(a), int(s[a]), int(s[b] - s[a] + cycles)) for a, b in zip(firsts, lasts)]
