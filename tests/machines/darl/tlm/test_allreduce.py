"""The butterfly all-reduce (the DARL paper, eq. 19-22): log2 N stages, every agent ends with the
same average bit for bit, N = 1, 2, 4, 8; other agent counts are refused."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import allreduce_cycles, butterfly_allreduce, stages
from rlaccel.machines.darl.tlm.allreduce import partners

Q = get_dtype("fixed32")


def test_eq_20_22_four_agents():
    """E = A + B, F = C + D, G = (E + F) / 4 on every agent, in that order of additions."""
    A, B, C, D = (np.array([x, 2 * x]) for x in (0.1, 0.2, 0.7, 1.3))
    out = butterfly_allreduce([A, B, C, D])
    G = ((A + B) + (C + D)) * 0.25
    assert all(np.array_equal(o, G) for o in out)


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_every_agent_holds_the_same_float_average(n):
    rng = np.random.default_rng(n)
    shards = [rng.normal(size=(2, 64)) for _ in range(n)]
    out = butterfly_allreduce(shards)
    assert len(out) == n and all(np.array_equal(o, out[0]) for o in out)
    assert np.allclose(out[0], np.mean(shards, axis=0), atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_every_agent_holds_the_same_fixed_average_rounded_once(n):
    rng = np.random.default_rng(10 + n)
    shards = [Q.quantize(rng.normal(size=50) * 100) for _ in range(n)]
    out = butterfly_allreduce(shards, "fixed32")
    assert all(np.array_equal(o, out[0]) for o in out)
    k = n.bit_length() - 1
    total = sum(s.astype(object) for s in shards)
    expect = [(int(t) + ((1 << k) >> 1)) >> k for t in total]
    assert out[0].tolist() == expect


def test_the_sum_without_the_division():
    shards = [np.array([1.5]), np.array([2.0]), np.array([0.25]), np.array([4.0])]
    assert [o.tolist() for o in butterfly_allreduce(shards, average=False)] == [[7.75]] * 4
    raw = [Q.quantize(x) for x in shards]
    out = butterfly_allreduce(raw, "fixed32", average=False)
    assert all(o.tolist() == [Q.quantize(7.75)] for o in out)


def test_fixed_sums_saturate_the_same_way_on_every_agent():
    big = np.array([Q.max_raw], dtype=np.int64)
    c = SaturationCounter()
    out = butterfly_allreduce([big, big, -big, -big], "fixed32", counter=c)
    assert all(o.tolist() == out[0].tolist() for o in out)
    assert c.saturations > 0


@pytest.mark.parametrize("n", [0, 3, 5, 6, 7, 12])
def test_agent_counts_the_network_cannot_take_are_refused(n):
    with pytest.raises(ArchError, match=rf"power-of-two number of agents \(1, 2, 4, 8, \.\.\.\), "
                                        rf"not {n}$"):
        butterfly_allreduce([np.zeros(2)] * n)
    with pytest.raises(ArchError, match=rf"power-of-two .*, not {n}$"):
        allreduce_cycles(n, 10, latency=1)


@pytest.mark.parametrize("n", [-2, 2.0, True])
def test_agent_counts_that_are_not_positive_integers_are_refused(n):
    with pytest.raises(ArchError, match="power-of-two number of agents"):
        stages(n)


def test_stages_partners_and_shapes():
    assert [stages(n) for n in (1, 2, 4, 8)] == [0, 1, 2, 3]
    assert partners(8, 0) == [1, 0, 3, 2, 5, 4, 7, 6]
    assert partners(8, 2) == [4, 5, 6, 7, 0, 1, 2, 3]
    with pytest.raises(ArchError, match=r"stage 3 does not exist for 8 agents \(stages 0..2\)"):
        partners(8, 3)
    with pytest.raises(ArchError, match=r"agent 1's shard has shape \(3,\), agent 0's \(2,\)"):
        butterfly_allreduce([np.zeros(2), np.zeros(3)])


def test_cycles_are_stages_times_one_link_access():
    """k (latency + per_beat ceil(words / width)): 8 agents, 4096 words, 16 a beat, 5 cycles
    of latency -> 3 (5 + 256) = 783; one agent -> 0."""
    assert allreduce_cycles(8, 4096, latency=5, width=16) == 783
    assert allreduce_cycles(4, 100, latency=2, width=64, per_beat=2) == 2 * (2 + 2 * 2)
    assert allreduce_cycles(1, 4096, latency=5, width=16) == 0
    with pytest.raises(ArchError, match="width must be an integer >= 1"):
        allreduce_cycles(2, 10, latency=1, width=0)
