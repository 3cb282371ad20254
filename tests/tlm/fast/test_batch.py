"""A batch of runs is one simulation whose members each equal their single run bit for bit;
what a batch cannot run is refused before it starts."""

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import SimError
from rlaccel.tlm.fast.batch import Batch
from rlaccel.tlm.platform import Platform

from tests.tlm.conftest import ScriptedHost

PROGRAM = """.arch adhdp
.data
X: .values {x}
H: .zero 4
C: .zero 1
.synapse
W: .rand 16, -1, 1, {seed}
.text
        cc.lset 0
l:      ff X, W, H, 4, 4, act=bsig
        ff H, W, X, 4, 4, act=tanh
        cc.host out=H, nout=1, inp=C, nin=1
        cc.bnz  C, l
        cc.loop 0, {n}, l
        cc.halt
"""


class CountingHost:
    """Answers 1 (go on) until its budget is spent, then 0 (the program falls through)."""

    def __init__(self, budget):
        self.budget = budget
        self.finished = False
        self.seen = []

    def exchange(self, out):
        self.seen.append(int(out[0]))
        self.budget -= 1
        return np.array([1 << 18 if self.budget > 0 else 0])


def _platform(seed, budget, kernels="compiled"):
    arch = load_arch("adhdp")
    a = assemble(PROGRAM.format(x="0.5, -0.25, 0.125, 1.0", seed=seed, n=40), "t.s")
    return Platform(arch, a.binary, CountingHost(budget), kernels=kernels)


def test_members_equal_single_runs():
    """Members differ in weights and in how long their hosts keep them looping (their own
    branches); each member's memories, cycles, energy and host traffic are its single run's."""
    specs = [(1, 5), (2, 30), (3, 1), (4, 17)]
    batch = [_platform(s, n) for s, n in specs]
    res = Batch(batch).run()
    for (s, n), p, r in zip(specs, batch, res):
        single = _platform(s, n)
        rs = single.run()
        assert r.per_pc == rs.per_pc
        assert np.array_equal(p.symbol_view("X"), single.symbol_view("X"))
        assert p.agent.link.host.seen == single.agent.link.host.seen
        d, ds = r.as_dict(), rs.as_dict()
        for key in ("cycles", "energy_pj", "instructions", "by_opcode", "actions",
                    "stall_cycles", "host_cycles", "saturations", "units"):
            assert d[key] == ds[key], key
        for key in ("exchanges", "words_out", "words_in", "cycles"):
            assert d["host"]["agents"][0][key] == ds["host"]["agents"][0][key]
        a, b = d["agents"][0], ds["agents"][0]
        assert a["transactions"] == b["transactions"] and a["cycles"] == b["cycles"]
    assert len({r.instructions for r in res}) == 4


def test_what_a_batch_refuses():
    with pytest.raises(SimError, match="runs the compiled loop"):
        Batch([_platform(1, 3, kernels="reference")])
    arch = load_arch("adhdp")
    other = Platform(arch, assemble(".arch adhdp\n.text\ncc.halt\n", "o.s").binary,
                     ScriptedHost())
    with pytest.raises(SimError, match="its program differs from member 0's"):
        Batch([_platform(1, 3), other])
    with pytest.raises(SimError, match="needs at least one platform"):
        Batch([])


def test_members_share_member_0s_tables_not_its_state():
    """Members of member 0's binary text share its compiled tables (they are built from the
    instructions, which are the same); each keeps its own loop state and units."""
    batch = Batch([_platform(s, 3) for s in (1, 2, 3)])
    p0 = batch.progs[0]
    for p, pl in zip(batch.progs[1:], batch.platforms[1:]):
        assert p.P is p0.P and p.IMM is p0.IMM and p.K is p0.K
        assert p.ST is not p0.ST and p.PEND is not p0.PEND and p.STATS is not p0.STATS
        assert [u.name for u in p.units] == [u.name for u in p0.units]
        assert all(u is pl.agent.units[u.name] for u in p.units)


def test_the_compiled_rounds_get_one_state_the_batch_owns():
    """The compiled rounds read and write one State: member 0's program tables and the
    members' stacked loop state -- the very arrays the Batch exposes by name (ST, PEND, CTR,
    UF, STATS, MK, as checkpoints read them) and each member's Program views -- with the
    members' memories beside it."""
    from rlaccel.tlm.fast.program import STATE, TABLES
    batch = Batch([_platform(s, 3) for s in (1, 2)])
    batch.run()
    s, p0 = batch.state, batch.progs[0]
    assert all(getattr(s.loop, k) is getattr(p0, k) for k in TABLES)
    for k in STATE:
        assert getattr(s.loop, k) is getattr(batch, k)
        for b, prog in enumerate(batch.progs):
            assert np.shares_memory(getattr(prog, k), getattr(batch, k)[b])
    assert s.auto is batch.automaton.tables
    assert all(u is pl.agent.memory("unified") for u, pl in zip(batch.memories.U,
                                                                 batch.platforms))
