"""The controller: hazards stall, loops and branches steer, faults stop with a location --
in both of its loops, the compiled one and the Python one with the reference semantics."""

import pytest
from dataclasses import replace

from rlaccel.tlm.controller import KERNELS

from rlaccel.isa.arch import load_arch
from rlaccel.isa.encoding import Instruction, encoding_for
from rlaccel.util.errors import ArchError, SimError
from rlaccel.tlm.platform import Platform

from tests.tlm.conftest import ScriptedHost

DATA = """.data
X: .values 0.5, -0.25, 0.125, 1.0
H1: .zero 4
H2: .zero 4
A: .values 3.0
B: .zero 2
.synapse
W: .rand 16, -1, 1, 1
W2: .rand 16, -1, 1, 2
.text
"""


@pytest.fixture(params=KERNELS)
def machine(request, machine):
    """conftest's ``machine``, once per controller loop."""
    def build(body: str, arch: str = "adhdp-f64", host=None, **kw):
        return machine(body, arch, host, kernels=request.param, **kw)
    return build


def test_independent_instructions_do_not_stall(machine):
    s, _ = machine(DATA + "ff X, W, H1, 4, 4\nff X, W2, H2, 4, 4\ncc.halt\n")
    s.run()
    assert s.agent.controller.stall_at[:2] == [0, 0]


def test_read_after_write_stalls_until_the_result_is_ready(machine):
    """ff on 4x4, L=4: issue 1+4 cycles, depth 5 (no activation); a consumer may start
    issue+depth-2 = 8 cycles after the producer started (forwarded from write-back), i.e. it
    stalls 3 cycles after the producer's 5 issue cycles."""
    s, _ = machine(DATA + "ff X, W, H1, 4, 4\nff H1, W2, H2, 4, 4\ncc.halt\n")
    r = s.run()
    assert s.agent.controller.stall_at[:2] == [0, 3]
    assert s.agent.controller.cycles_at[:2] == [5, 8]
    # cc.halt waits for the last result: ready at 8 + 5 + 3 = 16
    assert r.cycles == sum(s.agent.controller.cycles_at) == 16


def test_loop_counter_and_branch(machine):
    s, _ = machine(DATA + """cc.lset 0
again: sca.add A, A, X
       cc.loop 0, 5, again
       cc.halt
""")
    s.run()
    assert s.agent.controller.exec_count == [1, 5, 5, 1]
    assert s.symbol_view("A")[0] == 3.0 + 5 * 0.5


def test_conditional_branches(machine):
    s, _ = machine(DATA + """cc.bsqlt X, A, yes      ; 0.5^2/2 < 3 -> taken
       sca.li A, 100
yes:   cc.bge X+1, X, no      ; -0.25 >= 0.5 is false
       cc.bnz X+3, done       ; 1.0 != 0 -> taken
no:    sca.li A, 200
done:  cc.halt
""")
    s.run()
    assert s.symbol_view("A")[0] == 3.0
    assert s.agent.controller.exec_count == [1, 0, 1, 1, 0, 1]


def test_host_exchange_writes_the_reply_by_transaction(machine):
    host = ScriptedHost([7.0, 8.0])
    s, _ = machine(DATA + "cc.host out=A, nout=1, inp=B, nin=2\ncc.halt\n", host=host)
    r = s.run()
    assert list(s.symbol_view("B")) == [7.0, 8.0]
    assert host.calls[0].tolist() == [3.0]
    assert s.agent.link.exchanges == 1 and r.host_cycles == s.agent.link.cycles > 0


def _patched(machine_binary, pc, word):
    enc = encoding_for(machine_binary.arch)
    words = enc.from_bytes(machine_binary.text)
    words[pc] = word
    return replace(machine_binary, text=enc.to_bytes(words))


def test_out_of_range_access_stops_with_location(machine):
    _, a = machine(DATA + "ff X, W, H1, 4, 4\ncc.halt\n")
    enc = encoding_for("adhdp-f64")
    bad = enc.encode(Instruction("ff", dict(src=170, syn=0, dst=0, rows=1, cols=8)))
    s = Platform(load_arch("adhdp-f64"), _patched(a.binary, 0, bad), ScriptedHost())
    with pytest.raises(SimError, match=r"PC 0 \(ff +src=170, syn=0, dst=0, rows=1, cols=8, "
                                       r"off=0, act=none\): reads unified words 170\.\.177 \(src\) "
                                       r"outside the 176-word unified memory"):
        s.run()


def test_illegal_word_stops_with_location(machine):
    """A bad word is reported when it is fetched, not when the program is loaded."""
    _, a = machine(DATA + "sca.mov A, X\ncc.halt\ncc.halt\n")
    s = Platform(load_arch("adhdp-f64"), _patched(a.binary, 2, 7), ScriptedHost())
    s.run()                                   # PC 2 is never fetched
    s = Platform(load_arch("adhdp-f64"), _patched(a.binary, 1, 7), ScriptedHost())
    with pytest.raises(SimError, match=r"PC 1 \(0x0000000000007\): illegal instruction word: "
                                       r"0x0000000000007: opcode 7 is not an instruction"):
        s.run()


def test_runaway_program(machine):
    s, _ = machine(DATA + "l: cc.jmp l\n", max_instructions=100)
    with pytest.raises(SimError, match="did not halt within 100 instructions"):
        s.run()


def test_missing_halt(machine):
    s, _ = machine(DATA + "sca.mov A, X\n")
    with pytest.raises(SimError, match="PC 1 is outside the program of 1 instructions"):
        s.run()


def test_quantum_bounds_the_syncs(machine):
    """With a quantum of Q cycles the controller yields to SimPy at most once per Q."""
    s, _ = machine(DATA + "cc.lset 0\nl: ff X, W, H1, 4, 4\ncc.loop 0, 2000, l\ncc.halt\n",
                   quantum=100)
    r = s.run()
    assert s.agent.controller.qk.syncs <= r.cycles // 100 + 2
    assert s.env.now == r.cycles


def test_binary_that_does_not_fit(machine):
    _, a = machine(DATA + "cc.halt\n", arch="adhdp")
    with pytest.raises(ArchError, match="assembled for 'adhdp' .* not 'adhdp-f64' .*reassemble"):
        Platform(load_arch("adhdp-f64"), a.binary, ScriptedHost())
    enc = encoding_for("adhdp")
    big = replace(a.binary, text=enc.to_bytes([enc.encode(Instruction("cc.halt", {}))] * 40))
    with pytest.raises(ArchError, match=r"its 40 instructions of 51 bits \(255 bytes\) exceed "
                                        r"the 240-byte instruction memory \(37 instructions\)"):
        Platform(load_arch("adhdp"), big, ScriptedHost())
    fam = replace(a.binary, families=("base", "ddpg"))
    with pytest.raises(ArchError, match="uses ISA family ddpg, which 'adhdp' does not implement"):
        Platform(load_arch("adhdp"), fam, ScriptedHost())


def test_energy_and_stats_add_up(machine):
    s, _ = machine(DATA + "ff X, W, H1, 4, 4, act=bsig\ncc.halt\n")
    r = s.run()
    assert r.actions["mac"] == 16 and r.actions["act"] == 4 and r.actions["sram_read"] == 16
    e = s.energy.prices
    static = 16 * e["mac"] + 4 * e["act"] + 16 * e["sram_read"] + 4 * e["reg_read"] + \
        4 * e["reg_write"] + 2 * e["decode"]
    assert r.energy_pj == pytest.approx(static + s.energy.clock * r.cycles)
    assert sum(r.by_unit.values()) == pytest.approx(r.energy_pj)


def test_profiling_marks(machine):
    """cc.mark / cc.endmark count a region's entries and the cycles between the marks."""
    s, _ = machine(DATA + """cc.lset 0
again: cc.mark 3
       ff X, W, H1, 4, 4
       cc.endmark 3
       cc.loop 0, 4, again
       cc.halt
""")
    r = s.run()
    assert r.marks["3"]["count"] == 4
    assert r.marks["3"]["cycles"] == 4 * (1 + 5)     # the mark's cycle and the ff's issue
