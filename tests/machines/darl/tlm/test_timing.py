"""Cycles of one DARL kernel iteration (Table 1's L) and the three optimisations of
Fig. 10(a) as switches, on hand-computed cases."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import (TABLE1, LatencyConstants, Optimisations, Workload,
                                       iteration_cycles, latency_cycles)

CP, LL = Workload(n=4, a=2), Workload(n=8, a=4)


def test_cartpole_one_agent_by_part():
    """D 2048 in chunks of 16 (K = 128), N 4, A 2, default constants."""
    assert iteration_cycles(CP) == {
        "io": 128, "encode": 1 + 3 + 2 + 2, "regress": 1 + (16 + 2 - 1) + 1, "stream": 127,
        "reduce": 2, "select": 1 + 1, "v_update": 2 * 3 + 2, "update": 1 + 3 + 128 + 1,
        "allreduce": 0}
    assert latency_cycles(CP) == 427                 # io: two m_axi transactions of 64 cycles
    assert latency_cycles(CP) / TABLE1[("CartPole", 1)] - 1 == pytest.approx(0.024, abs=0.001)


def test_lunarlander_and_eight_agents():
    """N 8 adds an adder level, A 4 a systolic row and a comparator level: 431 (Table 1:
    421, the same +4 over CartPole). Several agents add the all-reduce of the 2 A D-word
    shard: log2 N butterfly stages of hop 5 (registers, sum, SLR crossing) + 2 A D / 256 words
    a cycle; A 4 doubles the words. Nothing is fitted: every column is a prediction."""
    assert latency_cycles(LL) == 431 == latency_cycles(CP) + 4
    assert latency_cycles(Workload(agents=8)) == 427 + 3 * (5 + 8192 // 256) == 538
    assert latency_cycles(Workload(n=8, a=4, agents=8)) == 431 + 3 * (5 + 16384 // 256) == 638
    assert latency_cycles(Workload(agents=2)) == 427 + 5 + 32
    for key, got in ((("CartPole", 8), 538), (("LunarLander", 8), 638),
                     (("LunarLander", 1), 431)):
        assert abs(got / TABLE1[key] - 1) < 0.03


def test_dimension_and_chunk_are_knobs():
    """D 1024 in chunks of 32: K = 32, a 33-cycle wavefront."""
    parts = iteration_cycles(Workload(d=1024, chunk=32))
    assert (parts["regress"], parts["stream"], parts["update"]) == (1 + 33 + 1, 31, 1 + 3 + 32 + 1)
    assert sum(parts.values()) == 128 + 8 + 35 + 31 + 2 + 2 + 8 + 37


def test_each_optimisation_switched_off():
    base = latency_cycles(CP)
    assert latency_cycles(CP, opt=Optimisations(codebook=False)) == base - 2 + 36
    # one A x D array: wavefront D + A - 1 instead of C + A - 1 plus K - 1 streamed chunks
    assert latency_cycles(CP, opt=Optimisations(chunking=False)) == base - 17 - 127 + 2049
    # update through Q's memory at II 2 plus its adder, no Q + U adder in the regression
    assert latency_cycles(CP, opt=Optimisations(delayed_update=False)) == base - 1 + 1 + 128


def test_an_inference_iteration_stops_after_select():
    parts = iteration_cycles(CP, train=False)
    assert list(parts)[-1] == "select" and sum(parts.values()) == 427 - 8 - 133


def test_constants_are_knobs():
    c = LatencyConstants(io=0, mul=1, hop=10, link_words=8192)
    assert iteration_cycles(Workload(agents=4), c)["allreduce"] == 2 * (10 + 1)
    assert iteration_cycles(CP, c)["v_update"] == 4


def test_bad_workloads_are_refused():
    with pytest.raises(ArchError, match="dimension 2040 does not split into chunks of 16"):
        Workload(d=2040)
    with pytest.raises(ArchError, match="power-of-two number of agents"):
        Workload(agents=6)
    with pytest.raises(ArchError, match="workload: a must be a positive integer, not 0"):
        Workload(a=0)
    with pytest.raises(ArchError, match="latency constant io must be an integer >= 0"):
        LatencyConstants(io=-1)
    with pytest.raises(ArchError, match="latency constant link_words must be an integer >= 1"):
        LatencyConstants(link_words=0)


def test_the_machines_butterfly_is_the_models():
    """machines/darl/archs/darl.toml's [interconnect] (what the simulator's all-reduce charges) holds
    the timing model's hop and link width."""
    from rlaccel.isa.arch import load_arch
    net = load_arch("darl").extra["interconnect"]
    c = LatencyConstants()
    assert (net["kind"], net["latency"], net["words_per_cycle"]) == ("butterfly", c.hop,
                                                                     c.link_words)
