"""A learner's record of what its streams wrote (machines/maddpg/tlm/learner.py): the ranges
kept never overlap, and the ready times of a set of reads (ready_from, through its index by
range) are those of every overlapping range, as ready finds them one read at a time."""

import numpy as np

from rlaccel.machines.maddpg.tlm.learner import LEARNER_KEYS, Learner


def _naive(L, reads, batch, now):
    ready = np.full(batch, now, np.int64)
    base = ready.copy()
    for r in reads:
        a, nr = L.ready(*r, batch)
        if a is not None:
            np.maximum(ready, a, out=ready)
        if nr is not None:
            np.maximum(base, nr, out=base)
    return ready, base


def test_ready_from_is_every_overlapping_range():
    rng = np.random.default_rng(3)
    L, B = Learner(0, dict(LEARNER_KEYS)), 6
    ranges = [(s, lo, lo + n) for s in (0, 1) for lo, n in ((0, 4), (4, 4), (2, 5), (10, 3),
                                                            (9, 1), (20, 6))]
    for step in range(400):
        space, lo, hi = ranges[rng.integers(len(ranges))]
        size = B if rng.random() < 0.9 else 1
        L.produced(space, lo, hi, rng.integers(0, 1000, size=size), ring=rng.random() < 0.3)
        kept = [(w.space, w.lo, w.hi) for w in L.written]
        assert all(a[0] != b[0] or a[2] <= b[1] or b[2] <= a[1]
                   for i, a in enumerate(kept) for b in kept[i + 1:])
        reads = tuple(ranges[j] for j in rng.choice(len(ranges), rng.integers(1, 4)))
        now = int(rng.integers(0, 600))
        ready, base = L.ready_from(reads, B, now)
        want, want_base = _naive(L, reads, B, now)
        assert ready.tolist() == want.tolist()
        assert (want_base if base is None else base).tolist() == want_base.tolist()
        if step % 50 == 0:                     # a restored checkpoint: another list
            L.written = list(L.written)
