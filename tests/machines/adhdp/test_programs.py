"""The ADHDP programs (Fig. 2 and Fig. 7, three network sizes) assemble and fit the chip."""

from pathlib import Path

import pytest

from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs
SIZES = {"cartpole": (4, 6, 6), "cartpole_large": (4, 10, 12), "triple_link": (8, 20, 20)}
PROGRAMS = [f"{name}{vu}.s" for name in SIZES for vu in ("", "_vu")]


@pytest.mark.parametrize("name", PROGRAMS)
def test_fits_instruction_memory(name):
    """Each program fits the 240-byte instruction memory of the ADHDP chip."""
    a = assemble_file(ROOT / name)
    bits = len(a.instructions) * a.encoding.instr_bits
    assert bits <= 240 * 8
    assert len(a.instructions) <= a.encoding.imem_capacity


@pytest.mark.parametrize("name", PROGRAMS)
def test_network_sizes(name):
    """Actor NX-NHA-1 and critic (NX+1)-NHC-1 as in the seed's Fig. 11 labels."""
    a = assemble_file(ROOT / name)
    nx, nha, nhc = SIZES[name.removesuffix(".s").removesuffix("_vu")]
    sym = {s.name: s for s in a.binary.symbols}
    assert sym["WA1"].length == nha * nx and sym["WA2"].length == nha
    assert sym["WC1"].length == nhc * (nx + 1) and sym["WC2"].length == nhc
    assert sym["VA1"].length == nha + 1 and sym["VC1"].length == nhc + 1      # Lambda, o0
    assert sym["EA1"].length == nha and sym["EC1"].length == nhc               # E
    for w1, v, e, w2 in (("WA1", "VA1", "EA1", "WA2"), ("WC1", "VC1", "EC1", "WC2")):
        assert sym[v].address == sym[w1].address + sym[w1].length            # VU block after W
        assert sym[e].address == sym[v].address + sym[v].length
        assert sym[w2].address == sym[e].address + sym[e].length             # E just before W2
    assert sym["X"].length == nx and sym["HA"].length == nha and sym["HC"].length == nhc


def test_virtual_update_variant_uses_vu():
    base = {i.mnemonic for i in assemble_file(ROOT / "cartpole.s").instructions}
    vu = {i.mnemonic for i in assemble_file(ROOT / "cartpole_vu.s").instructions}
    assert "vu.init" not in base and {"vu.init", "vu.step", "vu.commit", "bp_wu.vu"} <= vu
    assert "wu" in base and "wu" not in vu and "bp_wu.vu" not in base


def test_seed_define_changes_only_weights():
    a = assemble_file(ROOT / "cartpole.s").binary
    b = assemble_file(ROOT / "cartpole.s", defines={"SEED": 2}).binary
    assert a.text == b.text and a.data == b.data and a.synapse != b.synapse


def _aligned_words(nx, nha, nhc, vu, lanes=4):
    """Synapse words if every matrix row and VU vector started a tile (SRAM) row."""
    up = lambda n: -(-n // lanes) * lanes  # noqa: E731
    words = nha * up(nx) + up(nha) + nhc * up(nx + 1) + up(nhc)
    if vu:
        words += up(1 + nha) + up(nha) + up(1 + nhc) + up(nhc)
    return words


@pytest.mark.parametrize("name", PROGRAMS)
def test_synapse_memory_banked_and_aligned(name):
    """The programs pack weights (the banked unaligned SRAM, docs/design.md) and fit the
    seed's 512-word synapse SRAM; tile-aligned rows would not fit the triple link's VU
    program (528 words), which is why the banked SRAM is the assumption."""
    a = assemble_file(ROOT / name)
    words = len(a.binary.synapse) // a.binary.word_bytes
    assert words <= 512
    nx, nha, nhc = SIZES[name.removesuffix(".s").removesuffix("_vu")]
    aligned = _aligned_words(nx, nha, nhc, name.endswith("_vu.s"))
    assert (aligned > 512) == (name == "triple_link_vu.s")
    if name == "triple_link_vu.s":
        assert (words, aligned) == (462, 528)
