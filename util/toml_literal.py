"""One value as a TOML literal: what ``--set KEY=VALUE``, architecture variants and sweep
points write and ``tomllib`` reads back unchanged."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["toml_literal"]


def toml_literal(v: Any) -> str:
    """``v`` (bool, int, finite float, str, list, tuple or dict of those) as TOML text.

    Raises ``ValueError`` naming the value for NaN, infinities and other types; callers turn it
    into their own error with the key it belongs to."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r} is not a finite number")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)              # a TOML basic string (JSON's escapes are TOML's)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_literal(x)}"
                               for k, x in v.items()) + "}"
    raise ValueError(f"{v!r} is not a number, string, boolean, list or table")
