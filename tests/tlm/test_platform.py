"""The platform: several agents, each running its own binary, exchanging vectors over the
interconnect in the cycles its formula gives; architecture tables validated against the
families."""

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import ArchError, SimError
from rlaccel.tlm.platform import Platform

TWO = """name = "two"
inherit = "adhdp-f64"
[machine]
families = ["base", "marl"]
agents = {agents}
[interconnect]
kind = "ring"
latency = 5
words_per_cycle = 2
energy_pj_per_word = 1.5
"""

PROGRAM = """.data
X: .values {x}
Y: .zero 4
ALL: .zero {all}
.synapse
W: .values {w}
.text
        ff      X, W, Y, 4, 4
        allgather src=Y, dst=ALL, n=4
        cc.halt
"""


def _arch(tmp_path, agents=2, extra=""):
    p = tmp_path / f"two{agents}.toml"
    p.write_text(TWO.format(agents=agents) + extra)
    return load_arch(str(p))


def _binary(arch, i, agents):
    x = ", ".join(str(float(v)) for v in (i + 1, -1, 0.5, 2))
    w = ", ".join(str(float(v)) for v in np.eye(4).ravel() * (i + 1))
    return assemble(PROGRAM.format(x=x, w=w, all=4 * agents), f"agent{i}.s", arch=arch).binary


@pytest.mark.parametrize("agents", [2, 3, 5])
def test_agents_exchange_vectors_over_the_ring(tmp_path, agents):
    """Every agent computes its own y = W x, then all-gathers: ALL holds every agent's y in
    agent order, and the exchange takes (N - 1) hops of latency + ceil(4 words / 2) cycles
    after the last agent arrives."""
    arch = _arch(tmp_path, agents)
    bins = [_binary(arch, i, agents) for i in range(agents)]
    p = Platform(arch, bins)
    r = p.run()
    expect = np.concatenate([(i + 1) * np.array([i + 1, -1, 0.5, 2]) for i in range(agents)])
    for a in range(agents):
        assert list(p.symbol_view("ALL", agent=a)) == list(expect)
    hop = 5 + 2
    ff = p.agents[0].ops[0]
    # the all-gather reads Y: it waits for the ff's result (issue + depth - 2), then the ring
    start = ff.issue + ff.depth - 2
    for ag in r.agents:
        assert ag["sync_cycles"] == (agents - 1) * hop
        assert ag["cycles"] == start + (agents - 1) * hop + 1     # + cc.halt
    assert r.interconnect["words"] == agents * (agents - 1) * 4
    assert r.by_unit["interconnect"] == 1.5 * agents * (agents - 1) * 4


def test_each_agent_needs_a_binary(tmp_path):
    arch = _arch(tmp_path)
    with pytest.raises(ArchError, match=r"1 binaries for 2 agent\(s\)"):
        Platform(arch, [_binary(arch, 0, 2)])


def test_a_family_instruction_needs_its_interconnect(tmp_path):
    p = tmp_path / "noring.toml"
    p.write_text(TWO.format(agents=2).split("[interconnect]")[0])
    arch = load_arch(str(p))
    with pytest.raises(ArchError, match=r"'allgather' needs a ring interconnect"):
        Platform(arch, [_binary(arch, i, 2) for i in range(2)])


def test_timing_and_energy_tables_are_checked(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text('inherit = "adhdp"\n[machine]\n[timing]\nbranch_penalty = 0\n')
    arch = load_arch(str(p))
    b = assemble("cc.halt\n", "h.s", arch=arch).binary
    with pytest.raises(ArchError, match=r"\[timing\] branch_penalty must be a whole number of "
                                        r"cycles >= 1, not 0"):
        Platform(arch, b)
    p.write_text('inherit = "adhdp"\n[machine]\n[energy]\nmacc = 1.0\n')
    arch = load_arch(str(p))
    with pytest.raises(ArchError, match=r"\[energy\] has unknown key 'macc' \(did you mean "
                                        r"'mac'\?\)"):
        Platform(arch, assemble("cc.halt\n", "h.s", arch=arch).binary)


def test_the_one_agent_view(tmp_path):
    arch = _arch(tmp_path)
    p = Platform(arch, [_binary(arch, i, 2) for i in range(2)])
    with pytest.raises(SimError, match="has 2 agents; pick one of platform.agents"):
        p.agent


def test_a_platform_like_another_shares_the_architectures_tables_not_its_counters():
    """A batch member's platform (``like`` one of the same architecture) shares what the
    architecture alone gives -- models, energy prices, timing -- and keeps its own SimPy
    environment; it runs as a platform built alone."""
    from tests.tlm.conftest import ScriptedHost
    from tests.tlm.test_loader import SOURCE
    a = assemble(".arch adhdp\n" + SOURCE, "t.s")
    arch = load_arch("adhdp")
    first = Platform(arch, a.binary, ScriptedHost([0.0]))
    p = Platform(arch, a.binary, ScriptedHost([0.0]), like=first)
    assert (p.energy, p.timing, p.models) == (first.energy, first.timing, first.models)
    assert p.energy is first.energy and p.env is not first.env
    alone = Platform(arch, a.binary, ScriptedHost([0.0]))
    assert p.run().as_dict() | {"timing": None} == alone.run().as_dict() | {"timing": None}
