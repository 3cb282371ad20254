"""The encoding: golden triples for every mnemonic, a hand-checked layout, round trips."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rlaccel.assembler.assemble import assemble
from rlaccel.assembler.disassemble import format_instruction
from rlaccel.isa.arch import arch_names, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Instruction, encoding_for
from rlaccel.util.errors import DecodeError, EncodeError
from rlaccel.isa.table import TABLE

GOLDEN = Path(__file__).with_name("golden_triples.txt")


def _golden():
    for line in GOLDEN.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        arch, text, ops, word = (p.strip() for p in line.split(" | "))
        yield arch, text, json.loads(ops), int(word, 16)


GOLDEN_ROWS = list(_golden())


def test_golden_covers_every_mnemonic():
    """Every mnemonic of every family has a golden triple."""
    assert {text.split()[0] for _, text, _, _ in GOLDEN_ROWS} == set(TABLE)


@pytest.mark.parametrize("arch,text,ops,word", GOLDEN_ROWS, ids=[r[1].split()[0] + "@" + r[0]
                                                                 for r in GOLDEN_ROWS])
def test_golden_triple(arch, text, ops, word):
    """Text assembles to the instruction and the word; the word decodes back; the
    instruction prints back to the same text."""
    enc = encoding_for(arch)
    ins = Instruction(text.split()[0], ops)
    asm = assemble(f".arch {arch}\n.text\n{text}\n", "golden.s")
    assert asm.instructions == [ins]
    assert enc.from_bytes(asm.binary.text) == [word]
    assert enc.encode(ins) == word
    assert enc.decode(word) == ins
    assert format_instruction(ins, enc, get_dtype(enc.arch.knobs.dtype)) == text


def test_ff_layout_by_hand():
    """On adhdp the M format is op[2:0] src[10:3] syn[19:11] dst[27:20] rows-1[33:28]
    cols-1[39:34] off[45:40] act[48:46] mode[50:49] (Fig. 6(a) field order)."""
    enc = encoding_for("adhdp")
    ins = Instruction("ff", dict(src=5, syn=8, dst=11, rows=5, cols=6, off=1, act=4))
    expected = (0 | 5 << 3 | 8 << 11 | 11 << 20 | (5 - 1) << 28 | (6 - 1) << 34 | 1 << 40
                | 4 << 46)
    assert enc.encode(ins) == expected == 0x1011440B04028
    assert [(f.name, f.lsb, f.width) for f in enc.layout("ff")] == [
        ("op", 0, 3), ("src", 3, 8), ("syn", 11, 9), ("dst", 20, 8), ("rows", 28, 6),
        ("cols", 34, 6), ("off", 40, 6), ("act", 46, 3), ("mode", 49, 2)]


def test_adhdp_word_width_and_capacity():
    """ADHDP: 176-word unified space, 512-word synapse SRAM, 64 neuron registers give a
    51-bit instruction; 240 bytes of instruction memory hold 37 instructions."""
    enc = encoding_for("adhdp")
    assert enc.instr_bits == 51 and enc.instr_bytes == 7 and enc.imem_capacity == 37
    assert enc.op_bits == 3


def test_fixar_fields_are_wider():
    """A FIXAR-sized machine (400x300 layers, batches of 64..512) derives wider fields than
    ADHDP."""
    small, big = encoding_for("adhdp"), encoding_for("fixar")
    for kind in ("uaddr", "saddr", "dim"):
        assert big.field_width(kind) > small.field_width(kind)
    assert big.field_range("dim")[1] >= 400 and big.field_range("batch") == (1, 512)
    assert big.instr_bits > small.instr_bits


def test_operand_out_of_range():
    """A value that does not fit its field is an EncodeError naming field and range."""
    enc = encoding_for("adhdp")
    with pytest.raises(EncodeError, match=r"ff: rows=65 does not fit: a length must be 1\.\.64 "
                                          r"on 'adhdp'"):
        enc.encode(Instruction("ff", dict(src=0, syn=0, dst=0, rows=65, cols=1)))
    with pytest.raises(EncodeError, match="ff needs operand 'dst'"):
        enc.encode(Instruction("ff", dict(src=0, syn=0, rows=1, cols=1)))
    with pytest.raises(EncodeError, match=r"ff has no operand 'foo'"):
        enc.encode(Instruction("ff", dict(src=0, syn=0, dst=0, rows=1, cols=1, foo=1)))
    with pytest.raises(EncodeError, match="belongs to ISA family 'ddpg', which architecture "
                                          "'adhdp' does not implement"):
        enc.encode(Instruction("adam", {}))


def test_illegal_words():
    """Unknown opcodes, unknown selectors and non-zero reserved bits do not decode."""
    enc = encoding_for("adhdp")
    with pytest.raises(DecodeError, match="opcode 7 is not an instruction of 'adhdp'"):
        enc.decode(7)
    with pytest.raises(DecodeError, match="opcode CC has no instruction with funct=15"):
        enc.decode(6 | 15 << 3)
    with pytest.raises(DecodeError, match="reserved bits of cc.halt are not zero"):
        enc.decode(6 | 1 << 3 | 1 << 20)
    with pytest.raises(DecodeError, match="wider than the 51-bit instruction word"):
        enc.decode(1 << 51)


def _instruction_strategy(enc):
    def for_op(mn):
        d = enc.ops[mn]
        fields = {}
        for name in d.operands:
            lo, hi = enc.field_range(d.kind(name))
            fields[name] = st.integers(lo, hi)
        return st.fixed_dictionaries(fields).map(lambda ops: Instruction(mn, ops))
    return st.sampled_from(sorted(enc.ops)).flatmap(for_op)


@pytest.mark.parametrize("arch", arch_names())
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_encode_decode_round_trip(arch, data):
    """decode(encode(i)) == i for random legal instructions of every architecture."""
    enc = encoding_for(arch)
    ins = data.draw(_instruction_strategy(enc))
    word = enc.encode(ins)
    assert 0 <= word < 1 << enc.instr_bits
    assert enc.decode(word) == ins


@pytest.mark.parametrize("arch", ["adhdp", "fixar", "darl"])
@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_random_words_decode_or_refuse(arch, data):
    """Any word either is refused with DecodeError or decodes to an instruction that
    encodes back to the same word (the encoding is a bijection on legal words)."""
    enc = encoding_for(arch)
    word = data.draw(st.integers(0, (1 << enc.instr_bits) - 1))
    try:
        ins = enc.decode(word)
    except DecodeError:
        return
    assert enc.encode(ins) == word


def test_extents_come_from_the_table():
    """Memory ranges an instruction touches are the table's extents evaluated on operands."""
    enc = encoding_for("adhdp")
    ins = enc.complete(Instruction("bp_wu", dict(src=1, syn=10, dst=20, rows=3, cols=5, off=2)))
    assert sorted(enc.extents(ins)) == sorted([
        ("src", "r", 1, 3), ("syn", "r", 10, 15), ("dst", "r", 20, 3),
        ("dst", "w", 20, 3), ("syn", "w", 10, 15)])
    assert enc.space_of("bp_wu", "syn") == "synapse"


def test_activation_field_is_the_dtype_index():
    """act=NAME in a program encodes the index the number formats evaluate as NAME, and the
    field is just wide enough for the list."""
    import numpy as np
    from rlaccel.isa.dtypes import ACTIVATIONS, get_dtype
    from rlaccel.isa.table import FIXED_WIDTHS
    dt = get_dtype("q6.18")
    x = dt.quantize(np.linspace(-3, 3, 13))
    for name in ACTIVATIONS:
        a = assemble(f".arch adhdp\n.text\nff 0, 0, 0, 1, 1, act={name}\n", "t.s")
        index = a.instructions[0].operands["act"]
        assert np.array_equal(dt.activate(index, x), dt.activate(name, x))
    assert 2 ** (FIXED_WIDTHS["act"] - 1) < len(ACTIVATIONS) <= 2 ** FIXED_WIDTHS["act"]


def test_hash_depends_on_layout():
    """Architectures with different field widths have different encoding hashes; variants
    that only change what the simulator prices (adhdp-vu inherits adhdp) share theirs."""
    def shape(a):
        enc = encoding_for(a)
        return (enc.instr_bits, tuple((k, tuple((f.name, f.lsb, f.width) for f in v))
                                      for k, v in sorted(enc.layouts.items())),
                tuple(sorted(enc.ops)))
    by_shape = {}
    for a in arch_names():
        by_shape.setdefault(shape(a), set()).add(encoding_for(a).hash)
    assert all(len(h) == 1 for h in by_shape.values())
    assert len({h for hs in by_shape.values() for h in hs}) == len(by_shape)
    assert encoding_for("adhdp").hash == encoding_for("adhdp-vu").hash
    assert encoding_for("adhdp").hash != encoding_for("darl").hash
    assert load_arch("adhdp").name == "adhdp"
