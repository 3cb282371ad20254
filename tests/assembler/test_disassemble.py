"""The disassembler's output reassembles to identical sections and symbols."""

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rlaccel.assembler.assemble import assemble, assemble_file
from rlaccel.assembler.disassemble import disassemble, decode_program
from rlaccel.assembler.rlb import dumps, loads
from rlaccel.isa.encoding import Instruction, encoding_for
from rlaccel.util.errors import ArchError, DecodeError
from rlaccel.isa.machine import machines

PROGRAMS = sorted(p for m in machines().values() for p in m.programs.glob("*.s"))


def _same(a, b):
    assert (a.arch, a.encoding_hash, a.text, a.data, a.synapse, a.symbols, a.families) == \
        (b.arch, b.encoding_hash, b.text, b.data, b.synapse, b.symbols, b.families)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_programs_round_trip(path):
    """Every program under programs/ disassembles back to identical bytes."""
    a = assemble_file(path).binary
    b = assemble(disassemble(a), "dis.s").binary
    _same(a, b)


def _program(enc, instrs):
    from rlaccel.assembler.disassemble import format_instruction
    from rlaccel.isa.dtypes import get_dtype
    dt = get_dtype(enc.arch.knobs.dtype)
    body = "\n".join(format_instruction(i, enc, dt) for i in instrs)
    return f".arch {enc.arch.name}\n.text\n{body}\n"


@st.composite
def valid_programs(draw, arch="adhdp"):
    """Random instruction sequences whose operands fit their fields and memories."""
    enc = encoding_for(arch)
    n = draw(st.integers(1, 12))
    out = []
    mems = enc.arch.memories
    for _ in range(n):
        mn = draw(st.sampled_from(sorted(enc.ops)))
        d = enc.ops[mn]
        for _attempt in range(20):
            ops = {}
            for name in d.operands:
                kind = d.kind(name)
                lo, hi = enc.field_range(kind)
                if kind == "pc":
                    hi = n - 1
                elif kind in ("dim",):
                    hi = min(hi, 8)
                ops[name] = draw(st.integers(lo, hi))
            ins = enc.complete(Instruction(mn, ops))
            ok = all(addr + words <= mems[enc.space_of(mn, o)]
                     for o, _rw, addr, words in enc.extents(ins))
            if ok:
                out.append(ins)
                break
    return enc, out


@settings(max_examples=150, deadline=None)
@given(valid_programs())
def test_random_programs_round_trip(prog):
    enc, instrs = prog
    a = assemble(_program(enc, instrs), "r.s")
    assert a.instructions == instrs
    b = assemble(disassemble(a.binary), "dis.s").binary
    _same(a.binary, b)


def test_corrupted_instruction_is_located():
    a = assemble_file(PROGRAMS[0]).binary
    enc = encoding_for(a.arch)
    words = enc.from_bytes(a.text)
    words[3] = 7  # opcode 7 does not exist on adhdp
    from dataclasses import replace
    bad = loads(dumps(replace(a, text=enc.to_bytes(words))), "bad.rlb")
    with pytest.raises(DecodeError, match="bad.rlb: instruction 3: 0x0000000000007: opcode 7 is not an "
                                          "instruction of 'adhdp'"):
        decode_program(bad)


def test_encoding_mismatch_refused():
    a = assemble_file(PROGRAMS[0]).binary
    from dataclasses import replace
    with pytest.raises(ArchError, match="assembled for 'adhdp'"):
        decode_program(replace(a, encoding_hash="0" * 16))
