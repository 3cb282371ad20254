"""The loader decodes each word of an encoding and number format once; what it binds is the
same as decoding afresh, for every agent."""

import numpy as np

from rlaccel.assembler.assemble import assemble
from rlaccel.assembler.rlb import Binary
from rlaccel.isa.arch import load_arch
from rlaccel.tlm import loader
from rlaccel.tlm.platform import Platform

from tests.tlm.conftest import ScriptedHost

SOURCE = """.data
X: .values 0.5, -0.25, 0.125, 1.0
H: .zero 4
C: .zero 1
.synapse
W: .rand 16, -1, 1, 3
.text
l:  ff X, W, H, 4, 4, act=bsig
    sca.li C, 0.75
    cc.host out=H, nout=1, inp=C, nin=1
    cc.bnz C, l
    cc.halt
"""

FIELDS = ("pc", "kind", "text", "mnemonic", "issue", "depth", "latency", "reads", "writes",
          "counts", "energy_pj", "operands", "category", "dynamic", "fault", "read_sched",
          "write_sched")


def _ops(arch, binary):
    p = Platform(load_arch(arch), binary, ScriptedHost([0.0]))
    return [{f: getattr(op, f) for f in FIELDS}
            | {"occupy": [(u.name, c) for u, c in op.occupy],
               "kernel": None if op.kernel is None else (op.kernel.code, list(op.kernel.args))}
            for op in p.agent.ops], p


def _with_word(b: Binary, pc: int, word: int, enc) -> Binary:
    words = enc.from_bytes(b.text)
    words[pc] = word
    return Binary(**{**b.__dict__, "text": enc.to_bytes(words)})


def test_decoded_once_bound_per_agent():
    for arch in ("adhdp", "adhdp-f64"):
        a = assemble(f".arch {arch}\n" + SOURCE, "t.s")
        loader._DECODED.clear()
        fresh, p1 = _ops(arch, a.binary)
        known = loader._decoded(p1.agent.enc, p1.agent.dt)
        assert len(known) == len(fresh)                   # every word decoded, once
        again, p2 = _ops(arch, a.binary)
        assert again == fresh
        # each agent's semantics reach its own memories
        assert p1.agent.ops[1].run is not p2.agent.ops[1].run
        p2.agent.ops[1].run()
        c = a.binary.symbol("C").address
        assert p2.agent.memory("unified")[c] != 0 and p1.agent.memory("unified")[c] == 0


def test_an_illegal_word_faults_in_every_agent():
    a = assemble(".arch adhdp-f64\n" + SOURCE, "t.s")
    enc = Platform(load_arch("adhdp-f64"), a.binary, ScriptedHost([0.0])).agent.enc
    bad = _with_word(a.binary, 1, 7, enc)
    for _ in range(2):
        ops, _ = _ops("adhdp-f64", bad)
        assert ops[1]["fault"].startswith("illegal instruction word")
        assert ops[1]["text"] == enc.hex(7)
    assert np.isfinite(ops[0]["energy_pj"])


def test_an_agent_bound_like_another_equals_one_bound_afresh():
    """``like``: the ops of a platform of the same architecture and binary text are reused
    (cost, energy, ranges, schedules) and only the semantics and kernels bound again; the
    result is what binding afresh gives, each agent's semantics on its own memories."""
    for arch in ("adhdp", "adhdp-f64"):
        one = assemble(f".arch {arch}\n" + SOURCE, "t.s")
        other = assemble(f".arch {arch}\n" + SOURCE.replace("1, 3", "1, 4"), "t.s")
        assert one.binary.text == other.binary.text and one.binary.synapse != other.binary.synapse
        first = Platform(load_arch(arch), one.binary, ScriptedHost([0.0]))
        fresh, _ = _ops(arch, other.binary)
        p = Platform(load_arch(arch), other.binary, ScriptedHost([0.0]), like=first)
        bound = [{f: getattr(op, f) for f in FIELDS}
                 | {"occupy": [(u.name, c) for u, c in op.occupy],
                    "kernel": None if op.kernel is None else (op.kernel.code,
                                                              list(op.kernel.args))}
                 for op in p.agent.ops]
        assert bound == fresh
        assert all(u is p.agent.units[u.name] for op in p.agent.ops for u, _ in op.occupy)
        assert p.agent.ops[1].run is not first.agent.ops[1].run
        p.agent.ops[1].run()
        c = one.binary.symbol("C").address
        assert p.agent.memory("unified")[c] != 0 and first.agent.memory("unified")[c] == 0
        assert p.run().as_dict()["cycles"] == Platform(load_arch(arch), other.binary,
                                                       ScriptedHost([0.0])).run().as_dict()["cycles"]


def test_like_is_ignored_for_another_program():
    a = assemble(".arch adhdp\n" + SOURCE, "t.s")
    b = assemble(".arch adhdp\n" + SOURCE.replace("sca.li C, 0.75", "sca.li C, 0.5"), "t.s")
    first = Platform(load_arch("adhdp"), a.binary, ScriptedHost([0.0]))
    p = Platform(load_arch("adhdp"), b.binary, ScriptedHost([0.0]), like=first)
    assert p.agent.ops[1].text != first.agent.ops[1].text
    assert p.agent.ops[1].text == _ops("adhdp", b.binary)[0][1]["text"]


def test_semantics_bound_like_another_are_bound_when_first_called():
    a = assemble(".arch adhdp\n" + SOURCE, "t.s")
    first = Platform(load_arch("adhdp"), a.binary, ScriptedHost([0.0]))
    p = Platform(load_arch("adhdp"), a.binary, ScriptedHost([0.0]), like=first)
    op = p.agent.ops[1]
    deferred = op.run
    assert op.run is op.bound_run
    deferred()
    assert op.run is op.bound_run and op.run is not deferred
    c = a.binary.symbol("C").address
    before = p.agent.memory("unified")[c]
    p.agent.memory("unified")[c] = 0
    op.run()
    assert p.agent.memory("unified")[c] == before != 0
