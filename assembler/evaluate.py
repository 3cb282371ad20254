"""Expression values: bounded integers, finite floats, symbols from the right memory.

Every value an expression takes is checked as it is computed, so no input can exhaust
time, memory or the stack:

* integers -- literals and every intermediate result -- are at most :data:`MAX_INT_BITS`
  bits wide (shifts are at most 64 places), and a constant (``.equ``, ``.default``, ``-D``)
  is a signed 64-bit integer, as the binary's symbol table stores it;
* floating-point values must stay finite (``1e999``, ``1e308 * 10`` and an integer too large
  for a float are errors, not ``inf``);
* trees are walked with :func:`~.ast.fold`, never by recursion;
* a symbol is an address in one memory space -- a text label is an instruction index, a
  ``.data`` symbol a unified-memory address, a ``.synapse`` symbol a synapse-memory address
  -- and may appear only where the field takes an address in that space (the field kinds'
  spaces come from :data:`rlaccel.isa.table.SPACES`); constants go anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rlaccel.util.errors import did_you_mean
from rlaccel.isa.encoding import kind_words
from rlaccel.isa.table import SPACES

from rlaccel.assembler.ast import BinOp, Expr, Loc, Name, Num, Unary, err, fold

__all__ = ["Sym", "Evaluator", "MAX_INT_BITS", "CONST_MIN", "CONST_MAX", "SECTION_SPACE",
           "space_of_kind", "check_constant", "check_float"]

#: widest integer an expression may compute with (literals and intermediate results)
MAX_INT_BITS = 128
#: the range of a constant: signed 64-bit, as the symbol table stores it
CONST_MIN, CONST_MAX = -(1 << 63), (1 << 63) - 1
#: largest shift count
MAX_SHIFT = 64

#: section -> the address space its symbols are addresses in ("const": no space)
SECTION_SPACE = {"text": "text", "data": "unified", "synapse": "synapse", "const": None}

_SPACE_WORDS = {"text": "a text label", "unified": "a unified-memory symbol",
                "synapse": "a synapse-memory symbol"}


def space_of_kind(kind: str) -> str | None:
    """The address space a field kind takes symbols from: its memory (``SPACES``), ``text``
    for an instruction index (``pc``), None for a plain number."""
    if kind == "pc":
        return "text"
    return SPACES.get(kind)


@dataclass
class Sym:
    name: str
    space: str          # text | data | synapse | const (the section it was defined in)
    value: int | float
    loc: Loc
    length: int = 0


def check_float(v: float, loc: Loc) -> float:
    if not math.isfinite(v):
        raise err(loc, "number too large: the value overflows a floating-point number")
    return v


def _check_int(v: int, loc: Loc) -> int:
    if v.bit_length() > MAX_INT_BITS:
        raise err(loc, f"number too large: integers in expressions are at most "
                       f"{MAX_INT_BITS} bits")
    return v


def check_constant(v: int | float, loc: Loc, what: str) -> int | float:
    """A constant's value: an integer must be a signed 64-bit integer, a float finite."""
    if isinstance(v, int) and not CONST_MIN <= v <= CONST_MAX:
        raise err(loc, f"{what} = {v} does not fit a constant (a signed 64-bit integer, "
                       f"{CONST_MIN}..{CONST_MAX})")
    if isinstance(v, float):
        check_float(v, loc)
    return v


class Evaluator:
    """Values of expressions against a symbol table (``{name: Sym}``)."""

    def __init__(self, syms: dict[str, Sym]):
        self.syms = syms
        #: when a set, every symbol an expression reads is added to it (the assembler's
        #: dependency tracking, :mod:`.variants`)
        self.reads: set[str] | None = None

    def value(self, e: Expr, *, allow_float: bool = False, forward: bool = True,
              space: str | None = None, what: str = "") -> int | float:
        """The value of ``e``.

        ``forward``: symbols defined later in the source may be used (pass 2); otherwise
        only those defined before. ``space``: the address space (``text``, ``unified``,
        ``synapse``, ``sparse_row``) whose symbols the field takes, or None for a plain
        number; constants are always allowed. ``what`` (e.g. ``ff: src``, ``.zero``) and
        ``kind`` words name the field in the message that refuses a symbol.
        """
        def leaf(node):
            if isinstance(node, Num):
                v = node.value
                return check_float(v, node.loc) if isinstance(v, float) else \
                    _check_int(v, node.loc)
            return self._symbol(node, forward, space, what)

        def unary(node: Unary, x):
            if node.op == "~":
                if isinstance(x, float):
                    raise err(node.loc, "'~' needs an integer")
                return ~x
            return -x

        v = fold(e, leaf, unary, _binop)
        if isinstance(v, float) and not allow_float:
            raise err(e.loc, f"expected an integer here, not {v!r}")
        return v

    def _symbol(self, node: Name, forward: bool, space: str | None, what: str):
        sym = self.syms.get(node.id)
        if sym is None:
            extra = did_you_mean(node.id, self.syms)
            kind = "symbol" if forward else "constant (it must be defined before this line)"
            raise err(node.loc, f"undefined {kind} '{node.id}'{extra}")
        if self.reads is not None:
            self.reads.add(node.id)
        have = SECTION_SPACE[sym.space]
        if have is not None and have != space:
            prefix = f"{what}: " if what else ""
            raise err(node.loc, f"{prefix}'{node.id}' is {_SPACE_WORDS[have]}, not "
                                f"{_wanted(space, what)}")
        return sym.value


def _wanted(space: str | None, what: str) -> str:
    if space is None:
        return "a number" if not what.startswith(".") else "a constant"
    if space == "text":
        return kind_words("pc")
    kind = next(k for k, s in SPACES.items() if s == space)
    return kind_words(kind)


def _binop(e: BinOp, a, b):
    floaty = isinstance(a, float) or isinstance(b, float)
    op = e.op
    if op in ("/", "%") and b == 0:
        raise err(e.loc, "division by zero")
    if floaty and op not in ("+", "-", "*", "/"):
        raise err(e.loc, f"'{op}' needs integers")
    if op in ("<<", ">>") and b < 0:
        raise err(e.loc, "negative shift count")
    if op == "<<" and b > MAX_SHIFT:
        raise err(e.loc, f"shift count {b} is too large (at most {MAX_SHIFT})")
    if floaty:
        try:
            a, b = float(a), float(b)
        except OverflowError:
            raise err(e.loc, "number too large: an integer here overflows a floating-point "
                             "number") from None
        v = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
        return check_float(v, e.loc)
    if op == ">>":
        return a >> min(b, MAX_INT_BITS + 1)
    v = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "/": int.__floordiv__,
         "%": int.__mod__, "<<": int.__lshift__, "&": int.__and__, "|": int.__or__,
         "^": int.__xor__}[op](a, b)
    return _check_int(v, e.loc)
