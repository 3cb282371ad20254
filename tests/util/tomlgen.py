"""TOML text from Python values and hypothesis strategies that mutate TOML tables: the
hostile documents the manifest and architecture fuzzers feed to their loaders."""

from __future__ import annotations

import copy
import math
import re

from hypothesis import strategies as st

__all__ = ["toml_text", "mutated_table"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _str(text: str) -> str:
    """A TOML basic string (control characters escaped, UTF-8 text as it is)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    return k if _BARE.match(k) else _str(k)


def _lit(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return _str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_lit(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_text(table: dict) -> str:
    """``table`` as TOML: scalars first, then one ``[table]`` per sub-table."""
    scalars = [f"{_key(k)} = {_lit(v)}" for k, v in table.items() if not isinstance(v, dict)]
    tables = [f"[{_key(k)}]\n" + "".join(f"{_key(kk)} = {_lit(vv)}\n" for kk, vv in v.items())
              for k, v in table.items() if isinstance(v, dict)]
    return "\n".join(scalars) + "\n" + "\n".join(tables)


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)

#: values a hostile file may hold where a number, a name or a table is expected
scalars = st.one_of(
    st.integers(-3, 70), st.integers(-(1 << 70), 1 << 70),
    st.sampled_from([0, -1, 1 << 31, 1 << 63, (1 << 63) - 1, -(1 << 63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 1e300, 0.5, 175.0]),
    st.booleans(),
    text,
    st.sampled_from(["", "adhdp", "q6.18", "fp16", "base", "nope", "../x.toml", "/dev/zero",
                     "rlaccel/CartPoleADP-v0", "CartPole-v1", "x:y-v0"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6), inner,
                                                  max_size=3)), max_leaves=6)


def _paths(table: dict, prefix=()) -> list[tuple]:
    out = []
    for k, v in table.items():
        out.append(prefix + (k,))
        if isinstance(v, dict):
            out += _paths(v, prefix + (k,))
    return out


@st.composite
def mutated_table(draw, tables: list[dict]):
    """One of ``tables`` with 1-4 keys set to hostile values, deleted or added."""
    t = copy.deepcopy(draw(st.sampled_from(tables)))
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(t)
        op = draw(st.sampled_from(["set", "set", "set", "delete", "add"]))
        if not paths or op == "add":
            node = t
            if paths:
                parent = draw(st.sampled_from(paths))
                sub = _get(t, parent)
                node = sub if isinstance(sub, dict) else t
            node[draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8))] = draw(values)
            continue
        path = draw(st.sampled_from(paths))
        parent = _get(t, path[:-1])
        if op == "delete":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(values)
    return t


def _get(t: dict, path: tuple):
    for k in path:
        t = t[k]
    return t
