"""Run manifests: one TOML file per experiment (architecture, program, environment, network
sizes, hyper-parameters, trials), with ``--set KEY=VALUE`` overrides on dotted keys.

Every machine declares its schema (key -> default value; the default's type is the key's
type); an unknown or mistyped key is an error naming the file, the key and what was expected.
"""

from __future__ import annotations

import copy
import math
import tomllib
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Mapping

from rlaccel.util.files import read_toml
from rlaccel.util.errors import RlaccelError

__all__ = ["ManifestError", "FromProgram", "load_manifest", "parse_value", "apply_overrides"]


#: integers in a manifest are signed 64-bit (they become program constants and counters)
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1

#: keys that, where a machine's schema has them, must name something (not be empty)
NAMES = ("machine", "arch", "program")


class ManifestError(RlaccelError):
    """A manifest or an override is malformed."""


class FromProgram:
    """A schema entry with a type but no default here: when the manifest leaves the key out,
    its value is None and the program's own ``.default`` applies."""

    def __init__(self, kind: type):
        self.kind = kind

    def __repr__(self) -> str:
        return f"FromProgram({self.kind.__name__})"


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal (number, boolean, string, list) or a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _check(table: Mapping, schema: Mapping, origin: str, prefix: str = "") -> dict:
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key not in schema:
            hint = get_close_matches(key, list(schema), n=1)
            extra = f" (did you mean '{prefix}{hint[0]}'?)" if hint else ""
            raise ManifestError(f"{origin}: unknown key '{name}'{extra}; known keys here: "
                                f"{', '.join(prefix + k for k in schema)}")
        want = schema[key]
        if isinstance(want, dict) and want.get("__free__"):
            if not isinstance(value, dict):
                raise ManifestError(f"{origin}: '{name}' must be a table")
            out[key] = dict(value)
        elif isinstance(want, dict):
            if not isinstance(value, dict):
                raise ManifestError(f"{origin}: '{name}' must be a table of "
                                    f"{', '.join(want)}")
            out[key] = _check(value, want, origin, f"{name}.")
        else:
            out[key] = _coerce(value, want, name, origin)
    for key, want in schema.items():
        if key not in out:
            out[key] = ({} if isinstance(want, dict) and want.get("__free__") else
                        _check({}, want, origin, f"{prefix}{key}.") if isinstance(want, dict)
                        else None if isinstance(want, FromProgram) else copy.deepcopy(want))
    return out


def _coerce(value, want, name, origin):
    kind = want.kind if isinstance(want, FromProgram) else type(want)
    if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ManifestError(f"{origin}: '{name}' must be a finite number, not {value!r}")
        return value
    if kind is list and isinstance(value, list):
        return value
    if (kind is int and isinstance(value, int) and not isinstance(value, bool)
            and not INT_MIN <= value <= INT_MAX):
        raise ManifestError(f"{origin}: '{name}' = {value} does not fit a signed 64-bit "
                            f"integer")
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        what = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
                list: "a list"}.get(kind, kind.__name__)
        raise ManifestError(f"{origin}: '{name}' must be {what}, not {value!r}")
    return value


def apply_overrides(table: dict, overrides: list[str], origin: str) -> dict:
    """Apply ``KEY=VALUE`` strings (dotted keys) to a raw manifest table."""
    table = copy.deepcopy(table)
    for item in overrides or ():
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ManifestError(f"--set {item}: expected KEY=VALUE (for example "
                                f"learning.Ic=80)")
        parts = key.split(".")
        node = table
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ManifestError(f"--set {item}: '{p}' is not a table in {origin}")
        node[parts[-1]] = parse_value(text)
    return table


def load_manifest(path: str | Path, schema: Mapping, overrides: list[str] | None = None
                  ) -> dict:
    """Read, override and validate a manifest against ``schema``."""
    p = Path(path)
    raw = read_toml(p, ManifestError, "manifest")
    raw = apply_overrides(raw, overrides or [], str(p))
    out = _check(raw, schema, str(p))
    for key in NAMES:
        if key in schema and out.get(key) == "":
            raise ManifestError(f"{p}: '{key}' is missing or empty")
    seed = out.get("seed")
    if isinstance(seed, int) and seed < 0:
        raise ManifestError(f"{p}: 'seed' must be an integer >= 0 (it seeds the random "
                            f"generators), not {seed}")
    out["__path__"] = str(p)
    return out
