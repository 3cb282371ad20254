"""The primitive-component data (``primitives.toml``, read once) and the priced figure type.

A :class:`Price` is an energy in picojoules with how it was derived: a short formula and the
references (keys of the table's ``[references]``) its primitives come from, so that a run's
``energy_model.sources`` can say, for every action, where its price comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from rlaccel.util.errors import ArchError
from rlaccel.util.files import read_toml

__all__ = ["Price", "primitives", "table", "reference", "PRIMITIVES_PATH"]

#: where the primitive-component data lives
PRIMITIVES_PATH = Path(__file__).with_name("primitives.toml")


@lru_cache(maxsize=1)
def primitives() -> Mapping:
    """The whole table (read once)."""
    return read_toml(PRIMITIVES_PATH, ArchError, "the cost model's primitives")


def table(path: str) -> Mapping:
    """The table at a dotted path, e.g. ``"asic.arith"``; an ArchError names a missing one."""
    node = primitives()
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise ArchError(f"{PRIMITIVES_PATH.name}: no table [{path}]")
        node = node[part]
    return node


def reference(key: str) -> str:
    """The sentence of a reference key."""
    refs = primitives()["references"]
    if key not in refs:
        raise ArchError(f"{PRIMITIVES_PATH.name}: no reference '{key}'")
    return refs[key]


@dataclass(frozen=True)
class Price:
    """Picojoules, with the formula that made them and the references it rests on."""

    pj: float
    how: str = ""
    refs: tuple = field(default_factory=tuple)

    def __add__(self, other: "Price") -> "Price":
        return Price(self.pj + other.pj, _join(self.how, other.how, " + "),
                     _refs(self.refs, other.refs))

    def __mul__(self, k: float) -> "Price":
        return Price(self.pj * k, f"{_num(k)} x ({self.how})" if self.how else "", self.refs)

    __rmul__ = __mul__

    def named(self, how: str) -> "Price":
        """The same figure under a shorter description."""
        return Price(self.pj, how, self.refs)

    def sentence(self) -> str:
        """``how`` followed by the references' keys."""
        return f"{self.how} [{', '.join(self.refs)}]" if self.refs else self.how


ZERO = Price(0.0, "", ())


def _num(k: float) -> str:
    return f"{k:g}"


def _join(a: str, b: str, sep: str) -> str:
    return sep.join(x for x in (a, b) if x)


def _refs(a: tuple, b: tuple) -> tuple:
    return tuple(dict.fromkeys((*a, *b)))
