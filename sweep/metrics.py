"""What a sweep keeps of a run's report: named metrics, each a dotted path into the report
with an optional reduction.

    Metric.parse("balanced", "sum(learning.steps_per_trial)").extract(report)   # -> 4711
    Metric.parse("cycles", "cycles").extract(report)
    Metric.parse("critic", "per_iteration.critic.cycles")
    Metric.parse("first", "learning.steps_per_trial.0")       # an integer indexes a list

Reductions: ``sum``, ``mean``, ``min``, ``max``, ``len``, ``first``, ``last``; an empty list
has ``sum`` 0 and ``len`` 0, its ``mean``, ``min``, ``max``, ``first`` and ``last`` are null.
A path the report does not have is a :class:`MetricError` naming the keys it does have.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from rlaccel.util.errors import did_you_mean

from rlaccel.sweep.errors import SweepError

__all__ = ["Metric", "MetricError", "REDUCTIONS"]

REDUCTIONS = {
    "sum": lambda v: sum(v) if v else 0,
    "mean": lambda v: (math.fsum(v) / len(v)) if v else None,
    "min": lambda v: min(v) if v else None,
    "max": lambda v: max(v) if v else None,
    "len": len,
    "first": lambda v: v[0] if v else None,
    "last": lambda v: v[-1] if v else None,
}

_EXPR = re.compile(r"^\s*(?:(?P<fn>[a-z]+)\s*\(\s*(?P<inner>[^()]*?)\s*\)|(?P<path>[^()]*?))\s*$")
_SEGMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_\-]*|\d+)$")


class MetricError(SweepError):
    """A metric names a path the report does not have, or reduces what is not a list."""


@dataclass(frozen=True)
class Metric:
    """A named metric: ``path`` (dotted keys and list indices) and an optional reduction."""

    name: str
    text: str
    path: tuple[str, ...]
    reduce: str | None = None

    @classmethod
    def parse(cls, name: str, text: Any, origin: str = "metrics") -> "Metric":
        if not isinstance(text, str) or not text.strip():
            raise SweepError(f"{origin}: metric '{name}' must be a dotted path into the report "
                             f"such as \"cycles\" or \"sum(learning.steps_per_trial)\", not "
                             f"{text!r}")
        m = _EXPR.match(text)
        fn = m.group("fn") if m else None
        path = (m.group("inner") if fn else m.group("path")) if m else ""
        if fn is not None and fn not in REDUCTIONS:
            extra = did_you_mean(fn, REDUCTIONS)
            raise SweepError(f"{origin}: metric '{name}': unknown reduction '{fn}'{extra}; "
                             f"known: {', '.join(REDUCTIONS)}")
        parts = tuple(path.split(".")) if path else ()
        if not parts or not all(_SEGMENT.match(p) for p in parts):
            raise SweepError(f"{origin}: metric '{name}': {text!r} is not a dotted path (keys "
                             f"and list indices separated by dots, optionally inside one of "
                             f"{', '.join(REDUCTIONS)}(...))")
        return cls(name=name, text=text.strip(), path=parts, reduce=fn)

    def extract(self, report: dict) -> Any:
        """The metric's value in ``report`` (plain JSON data)."""
        node: Any = report
        for i, part in enumerate(self.path):
            here = ".".join(self.path[:i]) or "the report"
            if isinstance(node, dict):
                if part not in node:
                    extra = did_you_mean(part, [str(k) for k in node])
                    raise MetricError(f"metric '{self.name}' = {self.text!r}: {here} has no key "
                                      f"'{part}'{extra}; its keys: "
                                      f"{', '.join(map(str, node)) or 'none'}")
                node = node[part]
            elif isinstance(node, (list, tuple)) and part.isdigit():
                if int(part) >= len(node):
                    raise MetricError(f"metric '{self.name}' = {self.text!r}: {here} has "
                                      f"{len(node)} items, no item {part}")
                node = node[int(part)]
            else:
                raise MetricError(f"metric '{self.name}' = {self.text!r}: {here} is "
                                  f"{_kind(node)}, which has no '{part}'")
        if self.reduce is not None:
            numeric = self.reduce not in ("len", "first", "last")
            if not isinstance(node, (list, tuple)) or (
                    numeric and not all(_number(x) for x in node)):
                raise MetricError(f"metric '{self.name}' = {self.text!r}: "
                                  f"{'.'.join(self.path)} is {_kind(node)}; {self.reduce}() "
                                  f"needs a list{' of numbers' if numeric else ''}")
            node = REDUCTIONS[self.reduce](list(node))
        return _plain(node)


def _number(x) -> bool:
    return isinstance(_plain(x), (int, float))


def _kind(v) -> str:
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, (list, tuple)):
        return "a list"
    return f"the value {_plain(v)!r}"


def _plain(v):
    """Numbers, strings, booleans, None, lists and tables; numpy scalars become numbers."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
