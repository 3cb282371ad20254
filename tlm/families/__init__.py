"""Instruction models, one package per ISA family, and the registry that loads them.

:data:`PACKAGES` maps an ISA family (:data:`rlaccel.isa.table.FAMILIES`) to the package that
holds its models; the package's ``FAMILY`` (:class:`rlaccel.tlm.model.Family`) has one
:class:`~rlaccel.tlm.model.InstructionModel` per mnemonic. Loading an architecture checks,
with :func:`check_complete`, that every mnemonic of every family it implements has a complete
model, and names what is missing. :func:`implemented` is the set of families the simulator
runs (what ``rlaccel isa`` reports).

Other packages here (``fixar``, ``maddpg``, ``darl``) hold the functional
models of a machine's units; they become a family's models when registered in
:data:`PACKAGES`.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from rlaccel.isa.errors import ArchError
from rlaccel.isa.table import FAMILIES, TABLE

from rlaccel.tlm.model import Family, InstructionModel

__all__ = ["PACKAGES", "TABLES", "CHECKS", "implemented", "family", "check_complete",
           "models_for", "check_tables"]

#: ISA family -> the package of its instruction models
PACKAGES: Mapping[str, str] = MappingProxyType({
    "base": "rlaccel.tlm.families.base",
    "ddpg": "rlaccel.tlm.families.fixar",
    "marl": "rlaccel.tlm.families.marl",
    "sparse": "rlaccel.tlm.families.learninggroup",
    "hdc": "rlaccel.tlm.families.darl",
})

#: ISA family -> the architecture tables its models read, beside the platform's own
#: (:data:`rlaccel.tlm.platform.PLATFORM_TABLES`); any other table in an architecture file is
#: refused by the platform as unknown
TABLES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "base": ("datapath", "energy_sources"),
    "ddpg": ("fixar",),
    "marl": ("learner", "device"),
    "sparse": (),
    "hdc": ("hdc",),
})

#: ISA family -> the functions ("module:function", each ``f(arch)``) that read and judge its
#: own tables (an ArchError names what is wrong); the platform calls them when it is built,
#: and :meth:`rlaccel.tlm.platform.Platform.check` for the verbs that build none
CHECKS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "base": ("rlaccel.tlm.families.base.models:check_datapath",
             "rlaccel.tlm.families.base.energy:check_energy_sources"),
    "ddpg": ("rlaccel.tlm.families.fixar.state:_config",),
    "marl": ("rlaccel.tlm.families.marl.learner:_constants",
             "rlaccel.tlm.families.maddpg.device:check_device"),
    "sparse": (),
    "hdc": ("rlaccel.tlm.families.darl.models:optimisations",),
})

_LOADED: dict[str, Family] = {}


def check_tables(arch, families: Sequence[str]) -> None:
    """Run every :data:`CHECKS` function of ``families`` on ``arch``."""
    for fam in families:
        for ref in CHECKS.get(fam, ()):
            module, _, name = ref.partition(":")
            getattr(importlib.import_module(module), name)(arch)


def implemented() -> frozenset[str]:
    """The ISA families the simulator has models for."""
    return frozenset(PACKAGES)


def family(name: str) -> Family:
    """The instruction models of one family; an ArchError if the simulator has none."""
    if name not in _LOADED:
        if name not in PACKAGES:
            known = ", ".join(f for f in FAMILIES if f in PACKAGES)
            raise ArchError(f"ISA family '{name}' has no instruction models in the simulator "
                            f"yet (simulated families: {known})")
        fam = importlib.import_module(PACKAGES[name]).FAMILY
        if fam.name != name:
            raise ArchError(f"{PACKAGES[name]}: its FAMILY is '{fam.name}', not '{name}'")
        _LOADED[name] = fam
    return _LOADED[name]


def check_complete(fam: Family, table=TABLE) -> None:
    """Every mnemonic of the family's table rows has a model with every piece, and every model
    has a table row; an ArchError names the mnemonic and the piece."""
    rows = {m for m, d in table.items() if d.family == fam.name}
    for m in sorted(rows - set(fam.models)):
        raise ArchError(f"'{m}' (family {fam.name}) has no instruction model: add its entry "
                        f"to {PACKAGES.get(fam.name, 'its family package')}")
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
