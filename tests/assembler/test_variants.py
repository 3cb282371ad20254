"""Variants: assemblies derived from one tracked assembly equal full assemblies, bit for bit."""

import pytest

from rlaccel.assembler.assemble import assemble_file
from rlaccel.assembler.rlb import dumps
from rlaccel.assembler.variants import Variants
from rlaccel.util.errors import AsmError

SOURCE = """.arch adhdp
.default SEED, 1
.default N, 3
.default G, 0.5
.equ S2, SEED*8+1
.equ HALF, G/2
.data
X:  .zero N
V:  .values 1.5, HALF, -0.25
.synapse
W:  .rand 6, -1, 1, S2
W2: .rand 4, -HALF, HALF, 11
.text
    sca.li X, 0.25
top: cc.loop 0, N, top
    cc.halt
"""


def _same(a, b):
    assert dumps(a.binary) == dumps(b.binary)
    assert a.instructions == b.instructions and a.locs == b.locs
    assert a.data_lines == b.data_lines and a.inputs == b.inputs
    assert a.listing() == b.listing()


@pytest.fixture
def source(tmp_path):
    p = tmp_path / "v.s"
    p.write_text(SOURCE)
    return p


def test_data_only_defines_are_derived(source):
    v = Variants()
    for seed, g in [(1, 0.5), (2, 0.5), (9, 0.5), (9, 0.75), (123456, 0.125), (1, 0.5)]:
        d = {"SEED": seed, "N": 3, "G": g}
        _same(v(source, defines=d), assemble_file(source, defines=d))
    assert (v.full, v.derived) == (1, 5)
    d = v(source, defines={"SEED": 5, "N": 3, "G": 0.5}).binary
    assert d.symbol("S2").address == 41                # the constant that reads SEED, again
    assert d.source["defines"] == {"G": 0.5, "N": 3, "SEED": 5}


def test_a_define_the_layout_or_the_code_reads_assembles_in_full(source):
    v = Variants()
    v(source, defines={"SEED": 1, "N": 3, "G": 0.5})
    for d in ({"SEED": 2, "N": 4, "G": 0.5},         # .zero N and cc.loop limit=N
              {"SEED": 1, "N": 3},                     # other define names: its own template
              {"SEED": 1, "N": 3, "G": 0.5, "Q": 1}):
        _same(v(source, defines=d), assemble_file(source, defines=d))
    assert v.derived == 0


def test_the_derived_programs_of_a_batch(tmp_path):
    from rlaccel.isa.arch import load_arch
    from rlaccel.machines.adhdp.plugin import defines, program_path
    from rlaccel.programs.runner import configure
    _, m = configure("machines/adhdp/programs/cartpole.toml", None, seed=1)
    arch, path = load_arch(m["arch"]), program_path(m)
    v = Variants()
    for seed in (1, 2, 3, 50):
        m["seed"] = seed
        _same(v(path, arch=arch, defines=defines(m)),
              assemble_file(path, arch=arch, defines=defines(m)))
    assert (v.full, v.derived) == (1, 3)


def test_errors_are_the_full_assemblys(source):
    v = Variants()
    v(source, defines={"SEED": 1, "N": 3, "G": 0.5})
    for d in ({"SEED": -1, "N": 3, "G": 0.5},        # .rand seed must not be negative
              {"SEED": 1, "N": 3, "G": 1e300},        # .values HALF, far too large
              {"SEED": 1, "N": 3, "G": 400.0},        # .values HALF does not fit Q6.18
              {"SEED": 1 << 70, "N": 3, "G": 0.5},    # not a 64-bit constant
              {"SEED": True, "N": 3, "G": 0.5}):      # not a number
        with pytest.raises(AsmError) as full:
            assemble_file(source, defines=d)
        with pytest.raises(AsmError) as derived:
            v(source, defines=d)
        assert str(derived.value) == str(full.value)
