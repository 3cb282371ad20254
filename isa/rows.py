"""The row type of the ISA table and the helper that builds one row.

A family's file (:mod:`rlaccel.isa.family`) gives each row's arguments of :func:`op`;
:mod:`rlaccel.isa.table` numbers the major opcodes and fills in each row's ``family`` and
``opcode`` when it assembles the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["OpDef", "op"]


@dataclass(frozen=True)
class OpDef:
    """One instruction: its mnemonic, family, encoding selectors, operands and semantics.

    ``reads``/``writes`` give each address operand's extent in words as an expression of the
    operands: the assembler checks the whole range lies inside its memory and the simulator
    uses the same ranges for hazard checks. ``family`` and ``opcode`` are filled in by the
    table.
    """

    mnemonic: str
    major: str
    format: str
    operands: tuple[str, ...]
    semantics: str
    fixed: Mapping[str, int] = field(default_factory=dict)
    defaults: Mapping[str, int | str] = field(default_factory=dict)
    reads: Mapping[str, str] = field(default_factory=dict)
    writes: Mapping[str, str] = field(default_factory=dict)
    family: str = ""
    opcode: int = -1
    fields: tuple[tuple[str, str], ...] = ()

    def kind(self, operand: str) -> str:
        return dict(self.fields)[operand]


def op(mnemonic: str, major: str, fmt: str, operands: str, semantics: str, *,
       fixed: Mapping[str, int] | None = None, reads: Mapping[str, str] | None = None,
       writes: Mapping[str, str] | None = None) -> OpDef:
    """A row: ``operands`` is a blank-separated list, ``name=default`` for optional ones."""
    names, defaults = [], {}
    for word in operands.split():
        name, _, default = word.partition("=")
        names.append(name)
        if default:
            defaults[name] = int(default) if default.lstrip("-").isdigit() else default
    return OpDef(mnemonic, major, fmt, tuple(names), semantics,
                 MappingProxyType(dict(fixed or {})), MappingProxyType(defaults),
                 MappingProxyType(dict(reads or {})), MappingProxyType(dict(writes or {})))
