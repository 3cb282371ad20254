"""Architecture variants: an architecture with some knobs changed, without a file by hand.

    path = arch_variant("adhdp", {"machine.dtype": "q6.12", "timing.branch_penalty": 3})
    load_arch(path).name        # 'adhdp[machine.dtype=q6.12,timing.branch_penalty=3]'

A variant is a small TOML file that ``inherit``\\ s the base architecture and sets the
changed keys (``isa/arch.py`` merges tables key by key), so it goes through exactly the
validation of a file written by hand. The file is named by a hash of its text and kept in a
per-user folder of the system's temporary directory; equal variants share one file, and
processes running the same variant at once (a sweep's workers) write the same bytes
atomically.

Keys are ``TABLE.KEY``: a ``[machine]`` knob (:class:`~rlaccel.isa.arch.Knobs`; every knob,
even one the base leaves at its default) or a key the base architecture already has in one
of its other tables (``[timing]``, ``[energy]``, ``[hostlink]``, ...). A key the base does
not have is an error naming the known ones, so a misspelt knob never runs silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping

from rlaccel.isa.arch import Knobs, load_arch
from rlaccel.util.errors import ArchError, did_you_mean
from rlaccel.util.files import atomic_write
from rlaccel.util.toml_literal import toml_literal

__all__ = ["arch_variant", "parse_arch_sets", "variant_name"]

_KNOBS = tuple(f.name for f in fields(Knobs))


def parse_arch_sets(items: list[str] | None) -> dict[str, Any]:
    """``TABLE.KEY=VALUE`` strings (``--arch-set``) as a mapping; values are TOML literals
    (``8``, ``"q6.12"`` or the bare string ``q6.12``, ``true``, ``[1, 2]``)."""
    from rlaccel.programs.manifest import parse_value
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ArchError(f"--arch-set {item}: expected TABLE.KEY=VALUE (for example "
                            f"machine.lanes=8 or machine.dtype=q6.12)")
        out[key.strip()] = parse_value(text.strip())
    return out


def variant_name(base_name: str, overrides: Mapping[str, Any]) -> str:
    """The variant's name: the base's with the changed keys, ``adhdp[machine.lanes=8]``."""
    parts = ",".join(f"{k}={_show(v)}" for k, v in sorted(overrides.items()))
    return f"{base_name}[{parts}]"


def _show(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"))


def _toml_value(key: str, v: Any) -> str:
    if isinstance(v, dict):
        raise ArchError(f"architecture override '{key}': {v!r} is not a number, string, "
                        f"boolean or list")
    try:
        return toml_literal(v)
    except ValueError as e:
        raise ArchError(f"architecture override '{key}': {e}") from None


def _check_key(key: str, base) -> tuple[str, str]:
    table, sep, name = key.partition(".")
    if not sep or not table or not name or "." in name:
        raise ArchError(f"architecture override '{key}': expected TABLE.KEY, for example "
                        f"machine.lanes or timing.branch_penalty")
    if table == "machine":
        known = _KNOBS
    else:
        if table not in base.extra:
            extra = did_you_mean(table, list(base.extra) + ["machine"])
            raise ArchError(f"architecture override '{key}': '{base.name}' has no [{table}] "
                            f"table{extra}; its tables: machine, {', '.join(base.extra)}")
        known = tuple(base.extra[table])
    if name not in known:
        extra = did_you_mean(name, known, f"{table}.")
        raise ArchError(f"architecture override '{key}': '{base.name}' has no [{table}] key "
                        f"'{name}'{extra}; known: {', '.join(known)}")
    return table, name


def _folder() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    d = Path(tempfile.gettempdir()) / f"rlaccel-arch-variants-{uid}"
    d.mkdir(mode=0o700, exist_ok=True)
    return d


def arch_variant(base: str | Path, overrides: Mapping[str, Any]) -> str:
    """The path of an architecture file that is ``base`` (a name or a path) with
    ``overrides`` (``{"TABLE.KEY": value}``) applied, validated as any architecture file;
    ``base`` itself when there is nothing to change."""
    if not overrides:
        return str(base)
    parent = load_arch(base)
    tables: dict[str, dict[str, Any]] = {}
    for key, value in overrides.items():
        table, name = _check_key(key, parent)
        tables.setdefault(table, {})[name] = value
    base_ref = (str(Path(base).resolve()) if str(base).endswith(".toml") else str(base))
    name = variant_name(parent.name, overrides)
    lines = [f"name = {json.dumps(name)}",
             f"description = {json.dumps(f'{parent.name} with {len(overrides)} knob(s) changed')}",
             f"inherit = {json.dumps(base_ref)}"]
    for table in sorted(tables):
        lines.append(f"[{table}]")
        lines += [f"{k} = {_toml_value(f'{table}.{k}', v)}"
                  for k, v in sorted(tables[table].items())]
    text = "\n".join(lines) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    path = _folder() / f"{digest}.toml"
    if not path.exists() or path.read_text() != text:
        atomic_write(path, text, ArchError)
    try:
        load_arch(path)
    except ArchError as exc:
        msg = str(exc).replace(str(path), f"architecture {name}")
        raise ArchError(msg) from None
    return str(path)
