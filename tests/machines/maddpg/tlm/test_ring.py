"""The learners' ring (seed 003, section III-A) for N = 2..6: every learner receives every
vector bit for bit, in n - 1 steps, with the cycles of the recurrence -- which the platform's
SimPy ring reproduces."""

import numpy as np
import pytest
import simpy

from rlaccel.util.errors import ArchError
from rlaccel.tlm.core import AccessTiming, Ring
from rlaccel.machines.maddpg.tlm.ring import (allgather, allgather_cycles, arrival_order,
                                              hidden, hop_cycles, stream_allgather)


@pytest.mark.parametrize("n", range(2, 7))
def test_every_learner_gets_every_vector(n):
    rng = np.random.default_rng(n)
    vecs = [rng.normal(size=rng.integers(1, 6)).astype(np.float32) for _ in range(n)]
    out = allgather(vecs)
    for i in range(n):
        assert len(out[i]) == n
        for j in range(n):
            assert out[i][j].tobytes() == vecs[j].tobytes()
            assert out[i][j] is not vecs[j]
    assert sorted(arrival_order(n, 0) + [0]) == list(range(n))


def test_arrival_order():
    """Learner i hears i-1 first, then i-2, ... around the ring."""
    assert arrival_order(4, 1) == [0, 3, 2]
    assert arrival_order(2, 0) == [1]


@pytest.mark.parametrize("n", range(2, 7))
def test_equal_vectors_take_n_minus_1_hops(n):
    """(n - 1) * (latency + per_beat * ceil(words / width)): 5 words, width 2, latency 3 ->
    a hop of 3 + 3 = 6 cycles."""
    assert hop_cycles(5, 3, 1, 2) == 6
    assert allgather_cycles([5] * n, 3, 1, 2) == [(n - 1) * 6] * n


def test_unequal_vectors_by_hand():
    """Sizes 1, 4, 2 words, latency 2: hops of 3, 6, 4 cycles. Step 1 ends at 3, 6, 4; at step
    2 learner 0 forwards learner 2's vector once it has it (4) -> 8, learner 1 forwards
    learner 0's (from 6) -> 9, learner 2 forwards learner 1's (from 6) -> 12. Learner 0
    receives its last vector at 12, learner 1 at 8 but sends until 9, learner 2 at 9 and
    sends until 12."""
    assert allgather_cycles([1, 4, 2], 2) == [12, 9, 12]


def test_late_starter_delays_the_others():
    assert allgather_cycles([2, 2], 1, starts=[0, 10]) == [13, 13]
    assert allgather_cycles([2], 1) == [0]


def _platform(sizes, latency, per_beat, width, starts):
    env = simpy.Environment()
    ring = Ring(env, len(sizes), AccessTiming(latency, per_beat, width))
    done = [None] * len(sizes)

    def node(i):
        yield env.timeout(starts[i])
        parts = yield from ring.allgather(i, np.arange(sizes[i], dtype=np.float32) + 10 * i)
        done[i] = (env.now, parts)
    for i in range(len(sizes)):
        env.process(node(i))
    env.run()
    return done


@pytest.mark.parametrize("n", range(2, 7))
def test_the_platform_ring_agrees(n):
    """The platform's SimPy ring (tlm.core.Ring) finishes every node at the recurrence's
    cycle and delivers the same vectors, for unequal sizes and start times."""
    rng = np.random.default_rng(10 + n)
    sizes = rng.integers(1, 9, size=n).tolist()
    starts = rng.integers(0, 15, size=n).tolist()
    done = _platform(sizes, 2, 1, 2, starts)
    assert [t for t, _ in done] == allgather_cycles(sizes, 2, 1, 2, starts)
    want = allgather([np.arange(w, dtype=np.float32) + 10 * i for i, w in enumerate(sizes)])
    for (_, parts), mine in zip(done, want):
        assert [p.tobytes() for p in parts] == [m.tobytes() for m in mine]


def test_hidden():
    """Three learners exchanging 5-word actions over 1-word links with 2 cycles of latency
    need 2 * 7 = 14 cycles per sample: hidden under a 118-cycle stage, not under 10."""
    assert hidden([5, 5, 5], 118, 2) and not hidden([5, 5, 5], 10, 2)


def test_errors():
    with pytest.raises(ArchError, match="needs at least one learner"):
        allgather([])
    with pytest.raises(ArchError, match="learner 4 is not on a ring of 4"):
        arrival_order(4, 4)
    with pytest.raises(ArchError, match="3 start cycles for 2 learners"):
        allgather_cycles([1, 1], 1, starts=[0, 0, 0])


def _platform_stream(sizes, latency, width, ready, free):
    """Every node runs the platform ring's all-gather once per sample, in order, starting a
    sample when its vector is ready and the previous sample is done."""
    env = simpy.Environment()
    n, B = len(sizes), len(ready[0])
    ring = Ring(env, n, AccessTiming(latency, 1, width))
    done = np.zeros((n, B), np.int64)
    got = [[None] * B for _ in range(n)]

    def node(i):
        yield env.timeout(free[i])
        for k in range(B):
            if ready[i][k] > env.now:
                yield env.timeout(ready[i][k] - env.now)
            vec = np.arange(sizes[i], dtype=np.float32) + 100 * i + k
            got[i][k] = yield from ring.allgather(i, vec)
            done[i, k] = env.now
    for i in range(n):
        env.process(node(i))
    env.run()
    return done, got


@pytest.mark.parametrize("n", range(1, 7))
def test_streamed_allgather_is_the_platform_ring_sample_by_sample(n):
    """A batch of per-sample all-gathers: the bulk recurrence gives every node's completion
    of every sample at the cycle the SimPy ring does (unequal sizes, ready times and free
    cycles); the first node's hops of sample 0 start at its ready time."""
    rng = np.random.default_rng(40 + n)
    sizes = rng.integers(1, 7, size=n).tolist()
    ready = np.sort(rng.integers(0, 400, size=(n, 12)), axis=1)
    free = rng.integers(0, 30, size=n)
    want, got = _platform_stream(sizes, 2, 2, ready, free)
    done, start, hop = stream_allgather(ready, sizes, 2, 1, 2, free=free)
    assert done.tolist() == want.tolist()
    assert start[0, 0, 0] == max(ready[0, 0], free[0])
    if n > 1:
        assert hop[0, 0] == 2 + -(-sizes[0] // 2)          # its own vector first
    for i in range(n):                                      # and every vector arrived
        for k in range(12):
            assert [p.tolist() for p in got[i][k]] == \
                [(np.arange(sizes[j], dtype=np.float32) + 100 * j + k).tolist()
                 for j in range(n)]


def test_streamed_allgather_by_hand():
    """Two learners, 3- and 5-word vectors, 1-word links, 2 cycles a hop: a sample needs one
    hop each way, 5 and 7 cycles; both ready at 0, 10, 20: done at 7, 17, 27."""
    done, start, hop = stream_allgather([[0, 10, 20], [0, 10, 20]], [3, 5], 2)
    assert hop.tolist() == [[5], [7]]
    assert done.tolist() == [[7, 17, 27], [7, 17, 27]]
    done, _, _ = stream_allgather([[0, 1, 2], [0, 1, 2]], [3, 5], 2)
    assert done.tolist() == [[7, 14, 21]] * 2         # back to back: the 7-cycle hop binds
