"""The ISA table validates itself: unique names and selectors, operands that exist."""

import pytest

from rlaccel.util.errors import IsaError
from rlaccel.isa.table import FAMILIES, OPCODES, TABLE, op, validate


def test_every_family_is_declared():
    """Each family of the design has instructions, and the base family has Fig. 6(b)'s six
    types plus VU."""
    fams = {d.family for d in TABLE.values()}
    assert fams == set(FAMILIES)
    base_majors = {d.major for d in TABLE.values() if d.family == "base"}
    assert base_majors == {"FF", "BP", "WU", "BP_WU", "VU", "SCA", "CC"}


def test_required_scalar_and_control_functions():
    """SCA has add, sub, mul, mac, square-half, compare, move, load-immediate and the TD;
    CC has jump, threshold branches, loop counters, host exchange, marks and halt."""
    for mn in ("sca.add", "sca.sub", "sca.mul", "sca.mac", "sca.sqh", "sca.cmp", "sca.mov",
               "sca.li", "sca.td", "cc.jmp", "cc.blt", "cc.bge", "cc.bsqlt", "cc.lset",
               "cc.loop", "cc.host", "cc.mark", "cc.endmark", "cc.halt"):
        assert mn in TABLE


def test_opcodes_unique_and_dense():
    assert sorted(OPCODES.values()) == list(range(len(OPCODES)))


def test_duplicate_mnemonic_rejected():
    with pytest.raises(IsaError, match="duplicate mnemonic"):
        validate([TABLE["ff"], TABLE["ff"]])


def test_shared_selector_rejected():
    a = op("x1", "CC", "CB", "", "x", fixed={"funct": 0})
    b = op("x2", "CC", "CB", "", "x", fixed={"funct": 0})
    with pytest.raises(IsaError, match="x2 and x1 share opcode CC with the same selectors"):
        validate([a, b])


def test_unknown_operand_rejected():
    with pytest.raises(IsaError, match="'bogus' is not a field of format M"):
        validate([op("x", "FF", "M", "src bogus", "x", fixed={"mode": 0})])


def test_extent_names_checked():
    with pytest.raises(IsaError, match="extent 'rows\\*n' names n"):
        validate([op("x", "FF", "M", "src rows", "x", fixed={"mode": 0},
                      reads={"src": "rows*n"})])


def test_fixed_value_must_fit():
    with pytest.raises(IsaError, match="fixed funct=16 does not fit"):
        validate([op("x", "CC", "CB", "", "x", fixed={"funct": 16})])
