"""isa/family.py: a family's file read into its rows (named shapes substituted, the base
family's serving every family), and every way a file can fail to fit refused with the file
and the key named."""

import pytest

from rlaccel.isa.family import load
from rlaccel.isa.table import FAMILY_FILES, TABLE
from rlaccel.util.errors import IsaError

GOOD = '''first_opcode = 50
majors = ["TST"]

[formats]
T = [["funct", "funct"], ["dst", "uaddr"], ["syn", "saddr"], ["n", "dim"]]

[shapes]
TWICE = "2*n"

[[op]]
mnemonic = "tst.a"
major = "TST"
format = "T"
operands = "dst syn n=4"
fixed = { funct = 0 }
reads = { syn = "W", dst = "TWICE" }
writes = { dst = "n" }
semantics = """\\
dst = \\
something."""
'''


def _file(tmp_path, text):
    p = tmp_path / "isa.toml"
    p.write_text(text)
    return p


def test_a_family_file_gives_its_rows(tmp_path):
    fam = load(_file(tmp_path, GOOD), {"W": "rows*cols"})
    (row,) = fam.entries
    assert (fam.first_opcode, fam.majors) == (50, ("TST",))
    assert fam.formats["T"][1] == ("dst", "uaddr")
    assert row.operands == ("dst", "syn", "n") and dict(row.defaults) == {"n": 4}
    assert dict(row.reads) == {"syn": "rows*cols", "dst": "2*n"}
    assert row.semantics == "dst = something." and dict(row.fixed) == {"funct": 0}
    assert dict(fam.shapes) == {"TWICE": "2*n"}


def test_the_installed_families_are_read_from_their_files():
    assert set(FAMILY_FILES) >= {"base", "ddpg", "marl", "sparse", "hdc"}
    assert TABLE["ff"].reads["syn"] == FAMILY_FILES["base"].shapes["W"] == "rows*cols"
    assert TABLE["adam"].reads["hp"] == FAMILY_FILES["ddpg"].shapes["HP"]
    assert TABLE["bff"].reads["syn"] == FAMILY_FILES["base"].shapes["WB"]


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("first_opcode = 50", 'first_opcode = "50"'),
     "first_opcode must be a whole number"),
    (lambda t: t.replace('majors = ["TST"]', "majors = []"), "majors must be a list"),
    (lambda t: t + "\nextra = 1\n", "unknown keys extra"),
    (lambda t: t.replace('mnemonic = "tst.a"\n', ""), "[[op]] number 1 lacks mnemonic"),
    (lambda t: t.replace("fixed = { funct = 0 }", 'fixed = { funct = "0" }'),
     "[[op]] number 1 (tst.a): fixed must be a table of whole number values"),
    (lambda t: t.replace('writes = { dst = "n" }', 'writes = "n"'),
     "[[op]] number 1 (tst.a): writes must be a table"),
    (lambda t: t.replace('T = [["funct", "funct"],', 'T = [["funct"],'),
     "format T must be a list of [field, kind] pairs"),
    (lambda t: t.replace("[[op]]", "[[op]\n"), "not a valid TOML file"),
    (lambda t: t.split("[[op]]")[0], "the family has no [[op]] rows"),
])
def test_a_file_that_does_not_fit_is_refused_by_name(tmp_path, change, message):
    p = _file(tmp_path, change(GOOD))
    with pytest.raises(IsaError) as exc:
        load(p)
    assert str(exc.value).startswith(f"{p}: ") and message in str(exc.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(IsaError, match="cannot read the ISA family file"):
        load(tmp_path / "isa.toml")
