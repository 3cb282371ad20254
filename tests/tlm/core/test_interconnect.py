"""tlm.core.ring and tlm.core.butterfly: data delivered bit for bit, cycles equal to their
formula, for N = 1..8 nodes."""

import numpy as np
import pytest
import simpy

from rlaccel.util.errors import SimError
from rlaccel.tlm.core import AccessTiming, Butterfly, Ring

HOP = AccessTiming(latency=3, per_beat=1, width=4)      # 3 + ceil(words / 4) cycles a hop


def _vectors(n, words, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(-2**40, 2**40, words) for _ in range(n)]


@pytest.mark.parametrize("n", range(1, 9))
def test_ring_allgather_delivers_every_vector_in_formula_cycles(n):
    env = simpy.Environment()
    ring = Ring(env, n, HOP, energy_pj_per_word=2.0)
    data = _vectors(n, 10)
    out, done = {}, {}

    def node(i):
        out[i] = yield from ring.allgather(i, data[i])
        done[i] = env.now

    for i in range(n):
        env.process(node(i))
    env.run()
    for i in range(n):
        assert len(out[i]) == n
        for a in range(n):
            assert np.array_equal(out[i][a], data[a])
        assert done[i] == ring.allgather_cycles(10) == (n - 1) * (3 + 3)
    assert ring.words == n * (n - 1) * 10 and ring.energy_pj == 2.0 * ring.words


@pytest.mark.parametrize("n", range(2, 9))
def test_ring_send_reaches_the_next_node_after_one_hop(n):
    env = simpy.Environment()
    ring = Ring(env, n, HOP)
    got = {}

    def sender(i):
        yield from ring.send(i, np.arange(5) + 100 * i)

    def receiver(i):
        got[i] = ((yield from ring.recv(i)), env.now)

    for i in range(n):
        env.process(sender(i))
        env.process(receiver(i))
    env.run()
    for i in range(n):
        data, t = got[i]
        assert np.array_equal(data, np.arange(5) + 100 * ((i - 1) % n))
        assert t == ring.hop_cycles(5) == 3 + 2


def test_a_late_node_delays_the_ring():
    """The all-gather waits for the slowest node, as the hardware would."""
    env = simpy.Environment()
    ring = Ring(env, 3, HOP)
    done = {}

    def node(i, start):
        yield env.timeout(start)
        yield from ring.allgather(i, [i])
        done[i] = env.now

    for i, start in enumerate((0, 0, 50)):
        env.process(node(i, start))
    env.run()
    assert min(done.values()) >= 50 + HOP.delay(1)
    assert max(done.values()) == 50 + 2 * HOP.delay(1)


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_butterfly_allreduce_is_the_same_on_every_node(n):
    env = simpy.Environment()
    net = Butterfly(env, n, HOP)
    data = [np.random.default_rng(i).normal(size=7) for i in range(n)]
    out, done = {}, {}

    def node(i):
        out[i] = yield from net.allreduce(i, data[i], np.add)
        done[i] = env.now

    for i in range(n):
        env.process(node(i))
    env.run()
    for i in range(n):
        assert out[i].tobytes() == out[0].tobytes()            # bit for bit on every node
        assert done[i] == net.allreduce_cycles(7) == (n.bit_length() - 1) * (3 + 2)
    assert np.allclose(out[0], np.sum(data, axis=0))


@pytest.mark.parametrize("n", [3, 5, 6, 7])
def test_butterfly_refuses_other_node_counts(n):
    with pytest.raises(SimError, match=rf"butterfly: a butterfly all-reduce needs a "
                                       rf"power-of-two number of nodes \(1, 2, 4, 8, ...\), "
                                       rf"not {n}"):
        Butterfly(simpy.Environment(), n, HOP)


def test_the_allgather_recurrence_is_the_rings_formula():
    """ring.allgather_cycles (any sizes and starts) is what a node process sees, and with equal
    sizes and a common start (n - 1) hops: the one formula Ring.allgather_cycles reads."""
    from rlaccel.tlm.core.ring import allgather_cycles
    for n in range(1, 6):
        assert max(allgather_cycles([10] * n, HOP)) == Ring(simpy.Environment(), n,
                                                             HOP).allgather_cycles(10)
    env = simpy.Environment()
    ring = Ring(env, 3, HOP)
    sizes, starts, done = [1, 9, 4], [0, 7, 2], {}

    def node(i):
        yield env.timeout(starts[i])
        yield from ring.allgather(i, np.zeros(sizes[i]))
        done[i] = env.now

    for i in range(3):
        env.process(node(i))
    env.run()
    assert [done[i] for i in range(3)] == allgather_cycles(sizes, HOP, starts)


def test_the_butterflys_stages_partners_and_result_without_time():
    """butterfly.stages, partner and reduce_all: the rules Butterfly runs in simulated time
    (every node the same result, the lower node's operand first)."""
    from rlaccel.tlm.core.butterfly import allreduce_cycles, partner, reduce_all, stages
    assert [stages(n) for n in (1, 2, 4, 8, 3, 0, True, 2.0)] == [0, 1, 2, 3] + [None] * 4
    assert [partner(i, 1) for i in range(4)] == [2, 3, 0, 1]
    out = reduce_all(["a", "b", "c", "d"], lambda lo, hi: f"({lo}{hi})")
    assert out == ["((ab)(cd))"] * 4
    assert allreduce_cycles(8, HOP, 7) == 3 * HOP.delay(7)
