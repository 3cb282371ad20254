"""Two passes through the ISA table: symbols, sections, data, checks, located errors."""

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Instruction
from rlaccel.util.errors import AsmError


def test_labels_constants_and_named_operands(asm):
    a = asm(""".equ NX, 4
.data
X: .zero NX
H: .zero 6
.synapse
W: .zero 24
.text
top: ff src=X, syn=W, dst=H, rows=6, cols=NX, act=bsig
     ff X, W, H, 6, NX, 0, tanh
     cc.jmp top
""")
    assert a.instructions[0] == Instruction("ff", dict(src=0, syn=0, dst=4, rows=6, cols=4,
                                                       off=0, act=4))
    assert a.instructions[1].operands["act"] == 1
    assert a.instructions[2] == Instruction("cc.jmp", dict(target=0))
    syms = {s.name: s for s in a.binary.symbols}
    assert (syms["H"].space, syms["H"].address, syms["H"].length) == ("data", 4, 6)
    assert (syms["W"].space, syms["W"].length) == ("synapse", 24)
    assert (syms["NX"].space, syms["NX"].address, syms["NX"].kind) == ("const", 4, "equ")
    assert (syms["top"].space, syms["top"].kind) == ("text", "label")


def test_data_values_in_the_machine_format(asm):
    a = asm(".data\nV: .values 1.5, -0.25, 3\n.text\ncc.halt\n")
    dt = get_dtype("q6.18")
    raw = dt.from_bytes(a.binary.data)
    assert list(dt.to_float(raw)) == [1.5, -0.25, 3.0]
    assert a.binary.data[:3] == (3 << 17).to_bytes(3, "little")


def test_rand_is_seeded(asm):
    one = asm(".synapse\nW: .rand 8, -1, 1, 7\n.text\ncc.halt\n").binary.synapse
    two = asm(".synapse\nW: .rand 8, -1, 1, 7\n.text\ncc.halt\n").binary.synapse
    three = asm(".synapse\nW: .rand 8, -1, 1, 8\n.text\ncc.halt\n").binary.synapse
    assert one == two != three
    vals = get_dtype("q6.18").to_float(get_dtype("q6.18").from_bytes(one))
    assert np.all((vals >= -1) & (vals < 1))


def test_org_and_overlap(asm, asm_error):
    a = asm(".data\n.org 10\nA: .values 1\n.text\ncc.halt\n")
    assert a.binary.symbol("A").address == 10
    assert "data word 0 is initialised twice (check .org)" in asm_error(
        ".data\n.values 1\n.org 0\n.values 2\n.text\ncc.halt\n")


def test_immediate_in_number_format(asm):
    a = asm(".data\nR: .zero 1\n.text\nsca.li R, -0.5\n")
    assert a.instructions[0].operands["imm"] == -(1 << 17)


def test_defines_and_default(asm, asm_error):
    a = asm(".default N, 3\n.data\nV: .zero N\n.text\ncc.halt\n", defines={"N": 5})
    assert a.binary.symbol("V").length == 5
    b = asm(".default N, 3\n.data\nV: .zero N\n.text\ncc.halt\n")
    assert b.binary.symbol("V").length == 3
    assert "'N' is already defined" in asm_error(".equ N, 3\n", defines={"N": 5})


def test_macros_with_local_labels(asm):
    a = asm(""".macro spin n
again:  cc.loop 0, n, again
.endm
.text
        spin 3
        spin n=4
""")
    assert [i.operands["target"] for i in a.instructions] == [0, 1]
    assert [i.operands["limit"] for i in a.instructions] == [3, 4]


def test_include(tmp_path):
    (tmp_path / "lib.inc").write_text(".equ K, 9\n")
    (tmp_path / "main.s").write_text('.arch adhdp\n.include "lib.inc"\n.text\ncc.loop 0, K, 0\n')
    from rlaccel.assembler.assemble import assemble_file
    a = assemble_file(tmp_path / "main.s")
    assert a.instructions[0].operands["limit"] == 9
    files = [f["path"] for f in a.binary.source["files"]]
    assert files[1] == "lib.inc"


def test_arch_override():
    a = assemble(".arch adhdp\n.text\ncc.halt\n", arch="adhdp-f64")
    assert a.binary.arch == "adhdp-f64"


# ---- errors, word for word --------------------------------------------------------------

def test_unknown_mnemonic_did_you_mean(asm_error):
    assert asm_error(".text\nbp_wuu 1\n") == (
        "t.s:3:1: unknown instruction 'bp_wuu'; did you mean 'bp_wu'?\n    bp_wuu 1\n    ^")


def test_value_does_not_fit(asm_error):
    assert asm_error(".text\nff src=0, syn=0, dst=0, rows=65, cols=1\n") == (
        "t.s:3:25: ff: rows=65 does not fit: a length on 'adhdp' must be 1..64 (6-bit field)"
        "\n    ff src=0, syn=0, dst=0, rows=65, cols=1\n                            ^")


def test_address_outside_memory(asm_error):
    msg = asm_error(".text\nff src=170, syn=0, dst=0, rows=1, cols=8\n")
    assert msg.startswith("t.s:3:4: ff: src=170 spans 8 word(s) (170..177) but unified memory "
                          "has 176 words on 'adhdp'")
    msg = asm_error(".text\nff src=0, syn=500, dst=0, rows=4, cols=4\n")
    assert "syn=500 spans 16 word(s) (500..515) but synapse memory has 512 words" in msg


def test_missing_and_unknown_operands(asm_error):
    assert asm_error(".text\nff src=0, syn=0, rows=1, cols=1\n").startswith(
        "t.s:3:1: ff needs operand 'dst'; operands: src, syn, dst, rows, cols, off=0, act=none")
    assert asm_error(".text\nff src=0, syn=0, dst=0, rows=1, colz=1\n").startswith(
        "t.s:3:33: ff has no operand 'colz' (did you mean 'cols'?)")
    assert "ff: act must be one of none, tanh, sigmoid, relu, bsig, not 'tahn'" in asm_error(
        ".text\nff src=0, syn=0, dst=0, rows=1, cols=1, act=tahn\n")


def test_undefined_symbol(asm_error):
    assert asm_error(".data\nXX: .zero 1\n.text\ncc.bz X, 0\n").startswith(
        "t.s:5:7: undefined symbol 'X' (did you mean 'XX'?)")


def test_arch_names_one_architecture():
    """``.arch`` with two names (or a name and a dashed argument that is not one name) is
    refused with the place, never a crash."""
    with pytest.raises(AsmError) as info:
        assemble(".arch adhdp, fixar\n.text\ncc.halt\n", "t.s")
    assert str(info.value).startswith("t.s:1:1: .arch expects one architecture name")


def test_family_not_on_architecture(asm_error):
    assert "'adam' belongs to ISA family 'ddpg', which architecture 'adhdp' does not" in \
        asm_error(".text\nadam 0, 0, 0, 0, 1, 0\n")


def test_program_too_large(asm_error):
    msg = asm_error(".text\n" + "cc.halt\n" * 38)
    assert msg.startswith("t.s:40:1: program does not fit: 38 instructions of 51 bits (243 "
                          "bytes); the instruction memory of 'adhdp' (240 bytes) holds 37")


def test_misc_directive_errors(asm_error):
    assert "unknown directive '.valeus' (did you mean '.values'?)" in asm_error(".valeus 1\n")
    assert ".zero puts data in memory: use it after .data" in asm_error(".zero 3\n")
    assert "instruction 'cc.halt' in the .data section" in asm_error(".data\ncc.halt\n")
    assert "macro 'm' has no .endm" in asm_error(".macro m\ncc.halt\n")
    assert ".endm without a matching .macro" in asm_error(".endm\n")
    assert "cannot find include file \"nope.inc\"" in asm_error('.include "nope.inc"\n')
    assert "'ff' is an instruction mnemonic and cannot be a symbol" in asm_error("ff: cc.halt\n")
    assert "out of range" in asm_error(".data\n.values 40.0\n") or \
        "range" in asm_error(".data\n.values 40.0\n")
    assert "division by zero" in asm_error(".equ A, 1/0\n")
    assert "no architecture" in str(pytest.raises(Exception, assemble, "cc.halt\n").value)


def test_include_cycle(tmp_path):
    (tmp_path / "a.inc").write_text('.include "b.inc"\n')
    (tmp_path / "b.inc").write_text('.include "a.inc"\n')
    (tmp_path / "m.s").write_text('.arch adhdp\n.include "a.inc"\n')
    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.util.errors import AsmError
    with pytest.raises(AsmError, match=r"\.include cycle: m\.s -> a\.inc -> b\.inc -> a\.inc"):
        assemble_file(tmp_path / "m.s")


def test_macro_error_names_expansion(asm_error):
    msg = asm_error(".macro bad\n  ff src=0\n.endm\n.text\n  bad\n")
    assert "ff needs operand 'syn'" in msg and "(in macro bad expanded at t.s:6)" in msg


def test_listing(asm):
    a = asm(".text\nstart: cc.halt\n")
    text = a.listing()
    assert "51-bit instructions" in text and "cc.halt" in text
