"""An ISA family as its file declares it: ``isa/base.toml`` for the base family every machine
implements, ``machines/<name>/isa.toml`` for a machine's own.

The rule: a family's encoding and rows are data, one TOML file per family (as riscv-opcodes
keeps its encodings), read with :mod:`tomllib`, so loading one never runs code from it.
:mod:`rlaccel.isa.table` assembles the families into the one table everything derives from.
A file holds:

* ``first_opcode``: the number of the family's first major opcode; the others follow in the
  order of ``majors`` (the numbers are the encoding: they never change once binaries exist,
  and no two families share one).
* ``majors``: the major opcodes, in order.
* ``[formats]``: each format's fields as ``[name, kind]`` pairs, packed from the least
  significant bit after the opcode.
* ``[shapes]`` (optional): named extent expressions; a ``reads``/``writes`` value that is
  exactly such a name stands for its expression. The base family's shapes serve every
  family.
* ``[[op]]``: one row per mnemonic, the arguments of :func:`rlaccel.isa.rows.op`:
  ``mnemonic``, ``major``, ``format``, ``operands`` (blank-separated, ``name=default`` for an
  optional one), ``semantics``, and optionally ``fixed`` (the selector fields' values),
  ``reads`` and ``writes`` (each address operand's extent in words, an expression of the
  operands).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from rlaccel.isa.rows import OpDef, op
from rlaccel.util.errors import IsaError

__all__ = ["Family", "load"]

_TOP = {"first_opcode", "majors", "formats", "shapes", "op"}
_ROW = {"mnemonic": str, "major": str, "format": str, "operands": str, "semantics": str,
        "fixed": dict, "reads": dict, "writes": dict}
_REQUIRED = ("mnemonic", "major", "format", "operands", "semantics")
_KIND = {str: "string", dict: "table", int: "whole number"}


@dataclass(frozen=True)
class Family:
    """One family's file, read: its opcodes, formats, named shapes and rows."""

    path: Path
    first_opcode: int
    majors: tuple[str, ...]
    formats: Mapping[str, tuple[tuple[str, str], ...]]
    shapes: Mapping[str, str]
    entries: tuple[OpDef, ...]


def _fail(path: Path, what: str) -> IsaError:
    return IsaError(f"{path}: {what}")


def _strings(path: Path, where: str, table, kind: type) -> dict:
    if not isinstance(table, dict) or not all(
            isinstance(k, str) and type(v) is kind for k, v in table.items()):
        raise _fail(path, f"{where} must be a table of {_KIND[kind]} values")
    return table


def _formats(path: Path, raw) -> dict:
    if not isinstance(raw, dict) or not raw:
        raise _fail(path, "[formats] must be a table of formats")
    out = {}
    for name, fields in raw.items():
        if not (isinstance(fields, list) and all(
                isinstance(f, list) and len(f) == 2 and all(isinstance(s, str) for s in f)
                for f in fields)):
            raise _fail(path, f"format {name} must be a list of [field, kind] pairs")
        out[name] = tuple((f, k) for f, k in fields)
    return out


def _row(path: Path, i: int, raw, shapes: Mapping[str, str]) -> OpDef:
    where = f"[[op]] number {i + 1}" + (f" ({raw['mnemonic']})" if isinstance(raw, dict)
                                         and isinstance(raw.get("mnemonic"), str) else "")
    if not isinstance(raw, dict):
        raise _fail(path, f"{where} must be a table")
    unknown = sorted(set(raw) - set(_ROW))
    if unknown:
        raise _fail(path, f"{where} has unknown keys {', '.join(unknown)} "
                          f"(known: {', '.join(_ROW)})")
    for key in _REQUIRED:
        if key not in raw:
            raise _fail(path, f"{where} lacks {key}")
    for key, kind in _ROW.items():
        if key in raw and not isinstance(raw[key], kind):
            raise _fail(path, f"{where}: {key} must be a {_KIND[kind]}")
    fixed = _strings(path, f"{where}: fixed", raw.get("fixed", {}), int)
    reads, writes = ({k: shapes.get(v, v) for k, v in
                      _strings(path, f"{where}: {key}", raw.get(key, {}), str).items()}
                     for key in ("reads", "writes"))
    return op(raw["mnemonic"], raw["major"], raw["format"], raw["operands"], raw["semantics"],
              fixed=fixed, reads=reads, writes=writes)


def load(path: str | Path, common_shapes: Mapping[str, str] | None = None) -> Family:
    """Read the family file ``path``; ``common_shapes`` (the base family's) are named
    shapes its rows may use besides their own. A file that does not fit is refused with an
    :class:`IsaError` that names the file and the key."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _fail(path, f"cannot read the ISA family file ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _fail(path, f"not a valid TOML file ({exc})") from None
    unknown = sorted(set(doc) - _TOP)
    if unknown:
        raise _fail(path, f"unknown keys {', '.join(unknown)} (known: {', '.join(sorted(_TOP))})")
    first = doc.get("first_opcode")
    if type(first) is not int or first < 0:
        raise _fail(path, "first_opcode must be a whole number, 0 or more")
    majors = doc.get("majors")
    if not (isinstance(majors, list) and majors and all(isinstance(m, str) for m in majors)):
        raise _fail(path, "majors must be a list of major opcode names")
    own = _strings(path, "[shapes]", doc.get("shapes", {}), str)
    shapes = {**(common_shapes or {}), **own}
    rows = doc.get("op")
    if not isinstance(rows, list) or not rows:
        raise _fail(path, "the family has no [[op]] rows")
    return Family(path, first, tuple(majors), MappingProxyType(_formats(path, doc.get("formats"))),
                  MappingProxyType(own),
                  tuple(_row(path, i, r, shapes) for i, r in enumerate(rows)))
