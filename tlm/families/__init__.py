"""The instruction models of every ISA family, found where the families are defined.

The base family's models are a layer (:mod:`rlaccel.tlm.families.base`: the base ISA every
machine implements); each other family's are in the package of the machine that defines it,
at its descriptor's ``models`` (:class:`rlaccel.isa.machine.Machine`). A family's models are
a :class:`~rlaccel.tlm.model.Family` with one :class:`~rlaccel.tlm.model.InstructionModel`
per mnemonic, the architecture tables it reads and the checks that judge them. Loading an
architecture checks, with :func:`check_complete`, that every mnemonic of every family it
implements has a complete model, and names what is missing. :func:`implemented` is the set
of families the simulator runs (what ``rlaccel isa`` reports).
"""

from __future__ import annotations

import importlib
from typing import Iterable, Sequence

from rlaccel.util.errors import ArchError
from rlaccel.isa.machine import machines
from rlaccel.isa.table import FAMILIES, TABLE
from rlaccel.tlm.model import Family, InstructionModel

__all__ = ["models_ref", "implemented", "family", "check_complete", "models_for",
           "check_tables", "tables_of"]

#: where the base family's models are
_BASE = "rlaccel.tlm.families.base:FAMILY"

_LOADED: dict[str, Family] = {}


def _refs() -> dict[str, str]:
    refs = {"base": _BASE}
    for m in machines().values():
        if m.family is not None:
            refs[m.family] = m.qualified(m.models)
    return refs


def models_ref(name: str) -> str:
    """Where the models of ISA family ``name`` are (``module:attribute``)."""
    return _refs().get(name, "")


def implemented() -> frozenset[str]:
    """The ISA families the simulator has models for."""
    return frozenset(_refs())


def family(name: str) -> Family:
    """The instruction models of one family; an ArchError if the simulator has none."""
    if name not in _LOADED:
        refs = _refs()
        if name not in refs:
            known = ", ".join(f for f in FAMILIES if f in refs)
            raise ArchError(f"ISA family '{name}' has no instruction models in the simulator "
                            f"yet (simulated families: {known})")
        module, _, attr = refs[name].partition(":")
        fam = getattr(importlib.import_module(module), attr)
        if not isinstance(fam, Family) or fam.name != name:
            raise ArchError(f"{refs[name]}: not the instruction models of family '{name}' "
                            f"(a Family named '{name}')")
        _LOADED[name] = fam
    return _LOADED[name]


def tables_of(families: Sequence[str]) -> set[str]:
    """The architecture tables the given families read."""
    return set().union(*(family(f).tables for f in families))


def check_tables(arch, families: Sequence[str]) -> None:
    """Run every check of ``families`` on ``arch``."""
    for fam in families:
        for check in family(fam).checks:
            check(arch)


def check_complete(fam: Family, table=TABLE) -> None:
    """Every mnemonic of the family's table rows has a model with every piece, and every model
    has a table row; an ArchError names the mnemonic and the piece."""
    rows = {m for m, d in table.items() if d.family == fam.name}
    for m in sorted(rows - set(fam.models)):
        raise ArchError(f"'{m}' (family {fam.name}) has no instruction model: add its entry "
                        f"to {models_ref(fam.name) or 'its family package'}")
    for m in sorted(set(fam.models) - rows):
        raise ArchError(f"instruction model '{m}' of family {fam.name} has no row in the ISA "
                        f"table")
    for m in sorted(rows):
        model = fam.models[m]
        missing = model.missing()
        if missing:
            raise ArchError(f"'{m}' (family {fam.name}): its instruction model lacks "
                            f"{', '.join(missing)}")
        if model.mnemonic != m:
            raise ArchError(f"the instruction model under '{m}' is for '{model.mnemonic}'")


def models_for(families: Iterable[str]) -> tuple[dict[str, InstructionModel], list[Family]]:
    """The models of every mnemonic of the given families, each family checked complete."""
    models: dict[str, InstructionModel] = {}
    fams = []
    for name in families:
        fam = family(name)
        check_complete(fam)
        models.update(fam.models)
        fams.append(fam)
    return models, fams
