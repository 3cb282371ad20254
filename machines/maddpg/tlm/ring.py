"""The ring that connects the learners (the MADDPG paper, section III-A): what every learner
receives, and when.

``n`` learners on a unidirectional ring, learner ``i`` linked to ``(i + 1) % n``. An
all-gather runs ``n - 1`` steps: at step ``s`` every learner forwards the vector it received
at step ``s - 1`` (its own at step 1), so learner ``i`` receives learner ``(i - s) % n``'s
vector at step ``s`` and holds every vector after ``n - 1`` steps: O(N) hops and O(N) area,
where a crossbar needs O(N^2) area and one hop.

A hop of ``w`` words costs ``latency + per_beat * ceil(w / width)`` cycles (the platform's
:class:`~rlaccel.tlm.core.AccessTiming` delay, :func:`hop_cycles`). A learner forwards a
message when it has sent the previous one and received this one: :func:`allgather_cycles`
is the platform ring's recurrence (:func:`rlaccel.tlm.core.ring.allgather_cycles`), which
for equal sizes and a common start is ``(n - 1) * hop(w)`` (``Ring.allgather_cycles``).

In the value pipeline every learner's target action on every sample crosses the ring: per
sample a link carries ``n - 1`` messages of ``act`` words. The exchange hides under the
layer computations (the paper's claim) when that link time per sample,
``(n - 1) * hop(act)`` for a blocking all-gather per sample, is no longer than the
pipeline's slowest stage; :func:`hidden` says whether it is.

:func:`stream_allgather` is that exchange for a whole batch: every learner runs one
all-gather per sample, in sample order, starting sample ``k`` when its own vector of that
sample is ready and it has finished sample ``k - 1`` (what a node process running the
platform's :class:`~rlaccel.tlm.core.Ring` ``allgather`` once per sample does; tested
against it in SimPy). It gives every learner's per-sample completion and every hop's start.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError
from rlaccel.tlm.core.ring import allgather_cycles as _ring_allgather
from rlaccel.tlm.core.timing import AccessTiming
from rlaccel.tlm.fast.jit import njit

__all__ = ["allgather", "arrival_order", "hop_cycles", "allgather_cycles", "hidden",
           "stream_allgather"]


def allgather(vectors) -> list[list[np.ndarray]]:
    """What every learner holds after an all-gather: ``out[i][j]`` is learner j's vector (a
    copy, bit for bit)."""
    vs = [np.array(v, copy=True) for v in vectors]
    if not vs:
        raise ArchError("a ring all-gather needs at least one learner")
    return [[v.copy() for v in vs] for _ in vs]


def arrival_order(n: int, i: int) -> list[int]:
    """The learners whose vectors learner ``i`` receives at steps 1..n-1."""
    if not 0 <= i < n:
        raise ArchError(f"learner {i} is not on a ring of {n}")
    return [(i - s) % n for s in range(1, n)]


def _link(latency: int, per_beat: int, width: int, words: int) -> AccessTiming:
    """A link's timing, checked with the words it carries."""
    if width < 1 or latency < 0 or per_beat < 0 or words < 0:
        raise ArchError(f"ring hop: latency {latency}, per_beat {per_beat}, width {width} and "
                        f"words {words} must be >= 0 (width >= 1)")
    return AccessTiming(int(latency), int(per_beat), int(width))


def hop_cycles(words: int, latency: int, per_beat: int = 1, width: int = 1) -> int:
    """Cycles of one hop carrying ``words`` words."""
    return _link(latency, per_beat, width, words).delay(words)


def allgather_cycles(sizes, latency: int, per_beat: int = 1, width: int = 1,
                     starts=None) -> list[int]:
    """The cycle at which every learner has finished its part -- sent ``n - 1`` messages and
    received ``n - 1``, so it holds every vector (the ring's recurrence,
    :func:`rlaccel.tlm.core.ring.allgather_cycles`, with :func:`hop_cycles`' hop);
    ``sizes[j]`` is learner j's vector length, ``starts[i]`` when learner i begins (default
    0)."""
    n = len(sizes)
    if n < 1:
        raise ArchError("a ring all-gather needs at least one learner")
    t0 = list(starts) if starts is not None else [0] * n
    if len(t0) != n:
        raise ArchError(f"{len(t0)} start cycles for {n} learners")
    if n == 1:
        return t0
    return _ring_allgather(sizes, _link(latency, per_beat, width, min(sizes)), t0)


def hidden(act_words, stage_cycles: int, latency: int, per_beat: int = 1,
           width: int = 1) -> bool:
    """Whether a per-sample all-gather of the learners' actions (``act_words[j]`` words from
    learner j) fits in one slowest-stage time, so the ring never slows the pipeline."""
    return max(allgather_cycles(act_words, latency, per_beat, width)) <= stage_cycles


@njit
def _stream(ready, hop, free):
    n, B = ready.shape
    steps = max(n - 1, 1)
    done = np.empty((n, B), dtype=np.int64)
    start = np.zeros((n, B, steps), dtype=np.int64)
    last = free.copy()
    sent = np.empty(n, dtype=np.int64)
    nxt = np.empty(n, dtype=np.int64)
    for k in range(B):
        for i in range(n):
            t0 = max(ready[i, k], last[i])
            start[i, k, 0] = t0
            sent[i] = t0 + (hop[i, 0] if n > 1 else 0)
        for s in range(1, n - 1):
            for i in range(n):
                t = max(sent[i], sent[(i - 1) % n])
                start[i, k, s] = t
                nxt[i] = t + hop[i, s]
            for i in range(n):
                sent[i] = nxt[i]
        for i in range(n):
            d = max(sent[i], sent[(i - 1) % n]) if n > 1 else sent[i]
            done[i, k] = d
            last[i] = d
    return done, start


def stream_allgather(ready, sizes, latency: int, per_beat: int = 1, width: int = 1,
                     free=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch's per-sample all-gathers: ``ready[i][k]`` is when learner i's vector of sample k
    is ready, ``sizes[i]`` its length, ``free[i]`` when learner i can begin (default 0).
    Returns ``(done, start, hop)``: ``done[i, k]`` when learner i holds every vector of sample
    k; ``start[i, k, s]`` when learner i begins its step-``s + 1`` send of sample k, which
    takes ``hop[i, s]`` cycles (it forwards learner ``(i - s) % n``'s vector)."""
    r = np.asarray(ready, dtype=np.int64)
    n = len(sizes)
    if r.ndim != 2 or r.shape[0] != n or r.shape[1] < 1:
        raise ArchError(f"a streamed all-gather needs ready times of shape (learners, samples) "
                        f"for {n} learners, not {r.shape}")
    hop = np.array([[hop_cycles(sizes[(i - s) % n], latency, per_beat, width)
                     for s in range(max(n - 1, 1))] for i in range(n)], dtype=np.int64)
    f = np.zeros(n, np.int64) if free is None else np.asarray(free, dtype=np.int64)
    done, start = _stream(r, hop, f)
    return done, start, hop
