"""The ADHDP programs (Fig. 2 and Fig. 7, three network sizes) assemble and fit the chip."""

from pathlib import Path

import pytest

from assembler.assemble import assemble_file

ROOT = Path(__file__).parents[2] / "programs" / "adhdp"
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
    assert sym["VA1"].length == 2 * nha + 1 and sym["VC1"].length == 2 * nhc + 1
    assert sym["X"].length == nx and sym["HA"].length == nha and sym["HC"].length == nhc


def test_virtual_update_variant_uses_vu():
    base = {i.mnemonic for i in assemble_file(ROOT / "cartpole.s").instructions}
    vu = {i.mnemonic for i in assemble_file(ROOT / "cartpole_vu.s").instructions}
    assert "vu.init" not in base and {"vu.init", "vu.step", "vu.commit", "wu.vu"} <= vu
    assert "wu" in base and "wu" not in vu


def test_seed_define_changes_only_weights():
    a = assemble_file(ROOT / "cartpole.s").binary
    b = assemble_file(ROOT / "cartpole.s", defines={"SEED": 2}).binary
    assert a.text == b.text and a.data == b.data and a.synapse != b.synapse
