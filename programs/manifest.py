"""Run manifests: one TOML file per experiment (architecture, program, environment, network
sizes, hyper-parameters, trials), with ``--set KEY=VALUE`` overrides on dotted keys.

Every machine declares its schema (key -> default value; the default's type is the key's
type); an unknown or mistyped key is an error naming the file, the key and what was expected.
A :class:`Knob` adds the key's range, so every verb that reads a manifest (``run``, ``dse``, a
sweep's validation) applies the same rules: numbers within their bounds, floats finite (in
free tables too), lists of the right length whose items are in range.
"""

from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rlaccel.util.files import read_toml
from rlaccel.util.errors import RlaccelError, did_you_mean

__all__ = ["ManifestError", "FromProgram", "Knob", "load_manifest", "parse_value",
           "apply_overrides", "COUNT_MAX"]


#: integers in a manifest are signed 64-bit (they become program constants and counters)
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1

#: the most trials, steps, episodes or iterations a run may be given (as the command line's
#: --trials and --steps)
COUNT_MAX = 1 << 40

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


@dataclass(frozen=True)
class Knob:
    """A schema entry with its range: ``default`` (its type is the key's type; a
    :class:`FromProgram` when the program's ``.default`` applies), ``lo`` and ``hi`` (both
    included; None: unbounded on that side) for a number or for every item of a list,
    ``length`` (a list's length, or ``(min, max)``), and ``why`` (what the range comes from,
    added to the message)."""

    default: Any
    lo: int | float | None = None
    hi: int | float | None = None
    length: int | tuple | None = None
    why: str = ""

    @property
    def kind(self) -> type:
        d = self.default
        return d.kind if isinstance(d, FromProgram) else type(d)

    def initial(self):
        return None if isinstance(self.default, FromProgram) else copy.deepcopy(self.default)

    def span(self) -> str:
        lo, hi = self.lo, self.hi
        f = (lambda v: f"{v:,}") if self.kind is int or (self.kind is list and all(
            isinstance(v, int) for v in (lo, hi) if v is not None)) else (lambda v: f"{v:g}")
        if lo is not None and hi is not None:
            return f"from {f(lo)} to {f(hi)}"
        if lo is not None:
            return f"{f(lo)} or more"
        if hi is not None:
            return f"at most {f(hi)}"
        return "any"

    def check(self, value, name: str, origin: str):
        """The value, coerced to the key's type and checked against the range."""
        why = f" ({self.why})" if self.why else ""
        if self.kind is list:
            value = _coerce(value, [], name, origin)
            n = self.length
            lo_n, hi_n = (n, n) if isinstance(n, int) else (n or (0, None))
            items = self.default[0] if self.default else 0
            item_kind = float if isinstance(items, float) else int
            ok_len = len(value) >= lo_n and (hi_n is None or len(value) <= hi_n)
            ok_items = all(self._in(v, item_kind) for v in value)
            if not (ok_len and ok_items):
                count = (f"{lo_n}" if lo_n == hi_n else f"{lo_n} or more" if hi_n is None
                         else f"{lo_n} to {hi_n}")
                what = "integers" if item_kind is int else "numbers"
                raise ManifestError(f"{origin}: '{name}' must be a list of {count} {what} "
                                    f"{self.span()}, not {value!r}{why}")
            return [item_kind(v) for v in value]
        value = _coerce(value, self.default if not isinstance(self.default, FromProgram)
                        else self.default, name, origin)
        if value is not None and self.kind in (int, float) and not self._in(value, self.kind):
            raise ManifestError(f"{origin}: '{name}' must be {self.span()}, not {value!r}{why}")
        return value

    def _in(self, v, kind) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if kind is int and not isinstance(v, int):
            return False
        if isinstance(v, float) and not math.isfinite(v):
            return False
        return (self.lo is None or v >= self.lo) and (self.hi is None or v <= self.hi)


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
            extra = did_you_mean(key, schema, prefix)
            raise ManifestError(f"{origin}: unknown key '{name}'{extra}; known keys here: "
                                f"{', '.join(prefix + k for k in schema)}")
        want = schema[key]
        if isinstance(want, Knob):
            out[key] = want.check(value, name, origin)
        elif isinstance(want, dict) and want.get("__free__"):
            if not isinstance(value, dict):
                raise ManifestError(f"{origin}: '{name}' must be a table")
            _finite(value, origin, f"{name}.")
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
                        else want.initial() if isinstance(want, Knob)
                        else None if isinstance(want, FromProgram) else copy.deepcopy(want))
    return out


def _finite(value, origin: str, name: str) -> None:
    """No NaN or infinity anywhere in a free table (its machine reads the numbers)."""
    if isinstance(value, dict):
        for k, v in value.items():
            _finite(v, origin, f"{name}{k}.")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite(v, origin, f"{name[:-1]}[{i}].")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ManifestError(f"{origin}: '{name[:-1]}' must be a finite number, not {value!r}")


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
    out["__path__"] = str(p)
    return out
