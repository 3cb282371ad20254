"""Assembly syntax tree: plain dataclasses that carry their source location.

Expressions can be as deep as their source is long (a sum of a thousand terms is a tree a
thousand levels deep), so nothing walks them by recursion: :func:`fold` evaluates a tree
bottom-up with an explicit stack, and every pass over expressions goes through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypeVar

from rlaccel.util.errors import AsmError

__all__ = ["Loc", "Num", "Name", "BinOp", "Unary", "Expr", "Arg", "Label", "Directive",
           "InstrStmt", "Stmt", "fold", "err"]


@dataclass(slots=True, unsafe_hash=True)
class Loc:
    """Where a node came from: file, 1-based line and column, and the source line text.

    Treat it as immutable; it is not frozen only because a frozen dataclass costs several
    times more to build, and macro expansion builds one per node.
    """

    file: str
    line: int
    col: int
    text: str = field(default="", compare=False, repr=False)
    #: the macro expansions it came through, innermost first ("macro NAME expanded at f:l")
    via: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Num:
    value: int | float
    loc: Loc


@dataclass(frozen=True, slots=True)
class Name:
    """A symbol (or enumerated value) by name; ``quoted`` when written as `` `name` ``,
    which may spell any symbol name, an instruction mnemonic included."""

    id: str
    loc: Loc
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    loc: Loc


@dataclass(frozen=True, slots=True)
class Unary:
    op: str
    operand: "Expr"
    loc: Loc


Expr = Num | Name | BinOp | Unary


@dataclass(frozen=True, slots=True)
class Arg:
    """One operand or directive argument: ``expr``, ``name=expr`` or a string."""

    name: str | None
    value: Expr | str
    loc: Loc


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    loc: Loc
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class Directive:
    name: str          # without the dot, lower case
    args: tuple[Arg, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class InstrStmt:
    mnemonic: str      # lower case
    args: tuple[Arg, ...]
    loc: Loc


Stmt = Label | Directive | InstrStmt

T = TypeVar("T")


def fold(e: Expr, leaf: Callable[[Num | Name], T], unary: Callable[[Unary, T], T],
         binop: Callable[[BinOp, T, T], T]) -> T:
    """Evaluate ``e`` bottom-up without recursion: ``leaf(node)`` for numbers and names,
    ``unary(node, operand)`` and ``binop(node, left, right)`` for the operators, the left
    operand before the right."""
    todo: list[tuple[Expr, bool]] = [(e, False)]
    done: list[T] = []
    while todo:
        node, children_done = todo.pop()
        if isinstance(node, BinOp):
            if children_done:
                right = done.pop()
                done.append(binop(node, done.pop(), right))
            else:
                todo += ((node, True), (node.right, False), (node.left, False))
        elif isinstance(node, Unary):
            if children_done:
                done.append(unary(node, done.pop()))
            else:
                todo += ((node, True), (node.operand, False))
        else:
            done.append(leaf(node))
    return done[0]


def err(loc: Loc, message: str) -> AsmError:
    """A located assembler error (the note says which macro expansion it came from)."""
    if loc.via:
        via = loc.via if len(loc.via) <= 3 else (*loc.via[:2], "...", loc.via[-1])
        message += f" (in {', '.join(via)})"
    return AsmError(message, loc.file, loc.line, loc.col, loc.text or None)
