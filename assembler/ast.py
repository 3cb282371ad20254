"""Assembly syntax tree: plain dataclasses that carry their source location."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Loc", "Num", "Name", "BinOp", "Unary", "Expr", "Arg", "Label", "Directive",
           "InstrStmt", "Stmt"]


@dataclass(frozen=True)
class Loc:
    """Where a node came from: file, 1-based line and column, and the source line text."""

    file: str
    line: int
    col: int
    text: str = field(default="", compare=False, repr=False)
    via: str = field(default="", compare=False)   # "macro NAME at file:line" when expanded


@dataclass(frozen=True)
class Num:
    value: int | float
    loc: Loc


@dataclass(frozen=True)
class Name:
    id: str
    loc: Loc


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    loc: Loc


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Expr"
    loc: Loc


Expr = Num | Name | BinOp | Unary


@dataclass(frozen=True)
class Arg:
    """One operand or directive argument: ``expr``, ``name=expr`` or a string."""

    name: str | None
    value: Expr | str
    loc: Loc


@dataclass(frozen=True)
class Label:
    name: str
    loc: Loc


@dataclass(frozen=True)
class Directive:
    name: str          # without the dot, lower case
    args: tuple[Arg, ...]
    loc: Loc


@dataclass(frozen=True)
class InstrStmt:
    mnemonic: str      # lower case
    args: tuple[Arg, ...]
    loc: Loc


Stmt = Label | Directive | InstrStmt
