"""A compute unit working through a batch (machines/maddpg/tlm/stream.py): each sample starts
when its inputs are ready and the unit has finished the previous one; a chain of streams is
the pipeline schedule of timing.schedule."""

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.maddpg.tlm.stream import busy_runs, stream
from rlaccel.machines.maddpg.tlm.timing import schedule


def test_by_hand():
    """5 cycles a sample; inputs ready at 0, 1, 20, 21; the unit free from 3: samples start at
    3, 8 (waits for the unit), 20 (waits for its input), 25."""
    start, done = stream([0, 1, 20, 21], 5, free=3)
    assert start.tolist() == [3, 8, 20, 25] and done.tolist() == [8, 13, 25, 30]
    assert busy_runs(start, 5) == [(0, 3, 10), (2, 20, 10)]
    _, done = stream([0, 0], 5, depth=2)
    assert done.tolist() == [7, 12]


@pytest.mark.parametrize("T", [[2, 5, 3], [7, 1, 1], [1, 1, 7], [3, 7, 3, 7], [118, 1, 35]])
def test_a_chain_of_streams_is_the_pipeline_schedule(T):
    """Stage j reads stage j - 1's done times: every start and finish equals the pipeline
    recurrence, so fill, steady state and bottleneck come out of the units."""
    B = 9
    want_start, want_finish = schedule(T, B)
    ready = np.zeros(B, np.int64)
    for j, t in enumerate(T):
        start, ready = stream(ready, t)
        assert start.tolist() == want_start[:, j].tolist()
        assert ready.tolist() == want_finish[:, j].tolist()


def test_errors():
    with pytest.raises(SimError, match="one ready time per sample"):
        stream([], 3)
    with pytest.raises(SimError, match="at least one cycle per sample"):
        stream([0], 0)


def test_compiled_recurrence_is_the_running_maximum(monkeypatch):
    """With numba the recurrence runs sample by sample: the running maximum's integers."""
    from rlaccel.machines.maddpg.tlm import stream as st
    rng = np.random.default_rng(2)
    for _ in range(20):
        ready = np.sort(rng.integers(0, 10 ** 6, size=int(rng.integers(1, 300))))
        T, free, depth = int(rng.integers(1, 200)), int(rng.integers(0, 10 ** 6)), 3
        got = stream(ready, T, free, depth)
        monkeypatch.setattr(st, "HAVE_NUMBA", False)
        want = stream(ready, T, free, depth)
        monkeypatch.setattr(st, "HAVE_NUMBA", True)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]


def test_stream_after_its_producers_is_the_stream_of_their_latest():
    """stream_after(now, producers, ...) is stream of max(now, every producer's time), one,
    two (one compiled pass) or three producers."""
    from rlaccel.machines.maddpg.tlm.stream import stream_after
    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 1, 2):
        B = int(rng.integers(1, 50))
        ps = [rng.integers(0, 10 ** 5, size=B) for _ in range(n)]
        now, T, free = int(rng.integers(0, 10 ** 5)), int(rng.integers(1, 90)), 17
        want = stream(np.maximum.reduce([np.full(B, now)] + ps), T, free, 2)
        got = stream_after(now, ps, T, free, 2)
        assert [a.tolist() for a in got] == [a.tolist() for a in want]
