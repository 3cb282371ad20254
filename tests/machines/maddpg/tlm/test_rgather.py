"""The learners' streamed ring exchange (rgather, seed 003 section III-A) for N = 2..6
learners on the simulated machine: every learner receives every learner's vector of every
sample bit for bit, in agent order, with vectors of different lengths; each sample's
all-gather ends at the cycle of the ring recurrence (for one sample, allgather_cycles); a
learner waits for the samples its producer streams."""

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.maddpg.tlm.ring import allgather_cycles, stream_allgather

from tests.machines.maddpg.tlm.conftest import values, view

B = 5


def _program(i, sizes, data):
    n, m = sizes[i], sum(sizes)
    return f""".data
A: .values {values(data)}
ALL: .zero {B * m}
.text
        rgather a=A, sa={n}, dst=ALL, sd={m}, n={n}, m={m}, batch={B}
        uwait
        cc.halt
"""


@pytest.mark.parametrize("n", range(2, 7))
def test_every_learner_receives_every_action(learners, n):
    rng = np.random.default_rng(n)
    sizes = rng.integers(1, 6, size=n).tolist()
    data = [rng.normal(size=(B, w)).astype(np.float32) for w in sizes]
    p = learners([_program(i, sizes, data[i]) for i in range(n)], agents=n)
    r = p.run()
    want = np.concatenate(data, axis=1)
    net = p.interconnect
    done, _, hop = stream_allgather(np.zeros((n, B), np.int64), sizes, net.timing.latency,
                                    net.timing.per_beat, net.timing.width)
    for i in range(n):
        assert view(p, "ALL", i).tobytes() == want.tobytes()
        L = p.agents[i].state["marl.learner"]
        assert L.written[-1].done.tolist() == done[i].tolist()
        assert r.agents[i]["cycles"] == done[i, -1] + 1          # uwait on the ring, halt
    assert r.interconnect["words"] == B * (n - 1) * sum(sizes)
    assert r.interconnect["hops"] == B * n * (n - 1)
    one, _, _ = stream_allgather(np.zeros((n, 1), np.int64), sizes, net.timing.latency)
    assert one[:, 0].tolist() == allgather_cycles(sizes, net.timing.latency)


def test_a_learner_streams_what_its_unit_produces(learners):
    """Learner 0's vectors come from a 4-cycle unit (sample k ready 4 (k + 1) cycles after
    it starts); learner 1's are there at once: every sample's exchange waits for learner 0's
    sample and ends 4 cycles after it is ready, the hop of its 2 words (2 cycles of latency,
    1 word a cycle); learner 1's 1-word hop overlaps."""
    prog0 = f""".data
X: .zero {B * 2}
A: .zero {B * 2}
ALL: .zero {B * 3}
.synapse
W: .zero 6
.text
        cucfg u=0, f=1
        pfp u=0, a=X, sa=2, syn=W, dst=A, sd=2, rows=2, cols=2, batch={B}
        rgather a=A, sa=2, dst=ALL, sd=3, n=2, m=3, batch={B}
        uwait
        cc.halt
"""
    prog1 = f""".data
A: .zero {B}
ALL: .zero {B * 3}
.text
        rgather a=A, sa=1, dst=ALL, sd=3, n=1, m=3, batch={B}
        uwait
        cc.halt
"""
    p = learners([prog0, prog1], agents=2)
    p.run()
    L0 = p.agents[0].state["marl.learner"]
    ready = L0.last[0][1]
    got = L0.written[-1].done
    assert (ready[1:] - ready[:-1]).tolist() == [4] * (B - 1)
    assert (got - ready).tolist() == [2 + 2] * B


def test_the_vectors_must_add_up_to_m(learners):
    p = learners([_program(0, [2, 2], np.zeros((B, 2))),
                  _program(1, [2, 2], np.zeros((B, 2))).replace("m=4", "m=5")
                  .replace(f"ALL: .zero {B * 4}", f"ALL: .zero {B * 5}").replace("sd=4", "sd=5")],
                 agents=2)
    with pytest.raises(SimError, match=r"agent 1 PC 0: rgather expects every sample's vectors "
                                       r"to add up to m=5 words; the learners sent 2\+2"):
        p.run()
