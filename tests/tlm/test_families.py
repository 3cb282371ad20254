"""The registry of instruction models: every mnemonic of every simulated family has a complete
model, and a table row without one is a clear error."""

from dataclasses import replace

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.isa.rows import op
from rlaccel.isa.table import TABLE
from rlaccel.tlm.families import check_complete, family, implemented
from rlaccel.tlm.model import PIECES, InstructionModel

ROWS = [(m, d.family) for m, d in TABLE.items() if d.family in implemented()]


@pytest.mark.parametrize("mnemonic,fam", ROWS, ids=[m for m, _ in ROWS])
def test_every_implemented_mnemonic_has_a_complete_model(mnemonic, fam):
    model = family(fam).models[mnemonic]
    assert model.mnemonic == mnemonic
    assert model.missing() == []
    assert all(getattr(model, p) is not None for p in PIECES)
    assert model.category in family(fam).categories


def test_families_are_checked_complete():
    for name in implemented():
        check_complete(family(name))


def test_a_table_row_without_a_model_is_named():
    """Adding ``sca.abs`` to the table alone must not crash a run with a bare KeyError."""
    row = replace(op("sca.abs", "SCA", "S", "dst a", "dst = |a|.", fixed={"funct": 11}),
                  family="base")
    table = {**TABLE, "sca.abs": row}
    with pytest.raises(ArchError, match=r"'sca.abs' \(family base\) has no instruction model: "
                                        r"add its entry to rlaccel.tlm.families.base"):
        check_complete(family("base"), table)


def test_a_model_without_a_piece_is_named():
    base = family("base")
    broken = replace(base, models={**base.models, "sca.add": InstructionModel(
        "sca.add", "exec", base.models["sca.add"].semantics, None,
        base.models["sca.add"].actions, "SCA")})
    with pytest.raises(ArchError, match=r"'sca.add' \(family base\): its instruction model "
                                        r"lacks timing"):
        check_complete(broken)


def test_a_family_without_models_is_named():
    with pytest.raises(ArchError, match=r"ISA family 'nosuch' has no instruction models in the "
                                        r"simulator yet"):
        family("nosuch")
