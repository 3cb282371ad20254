"""The house rules of the tree (docs/design.md, "Layers, machines, and who may import whom"):

* the generic layers name no machine: no Python file outside ``machines/``, ``tests/`` and
  ``docs/`` imports a machine package or names a machine's module;
* a machine imports layers only, never another machine;
* nothing imports upward: each layer imports only the layers below it;
* there is no import circle, counting the imports inside functions too (a late import may not
  hide one).

The imports are read from the source with :mod:`ast`, every ``import`` statement wherever it
stands; a reference by string (``"module:attribute"``) to a machine's module counts as naming
it.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from rlaccel.isa.machine import machines

ROOT = Path(__file__).resolve().parents[1]
#: the layers, lowest first; a layer may import the layers before it in this order (the ones
#: of equal rank may not import each other)
RANKS = {"util": 0, "isa": 1, "assembler": 2, "tlm": 3, "rtl": 4, "programs": 4, "sweep": 5,
         "machines": 6, "rlaccel": 7}
FOLDERS = tuple(f for f in RANKS if f != "rlaccel") + ("rlaccel",)
MACHINES = tuple(machines())
_MACHINE_MODULE = re.compile(r"rlaccel\.machines\.(\w+)")


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "rlaccel":
        parts = ["rlaccel"] + parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    """Every module of the installed package (benchmarks and tools are scripts, not modules)."""
    out = {}
    for folder in FOLDERS:
        for p in (ROOT / folder).rglob("*.py"):
            rel = p.relative_to(ROOT).parts
            if "bench" in rel or "tools" in rel:
                continue
            out[_module(p)] = p
    return out


SOURCES = _sources()


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names
                         if f"{node.module}.{a.name}" in SOURCES)
    return names


def _strings(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _machine_of(module: str) -> str | None:
    m = _MACHINE_MODULE.match(module)
    return m.group(1) if m and m.group(1) in MACHINES else None


def test_the_five_machines_are_found():
    assert set(MACHINES) >= {"adhdp", "fixar", "maddpg", "learninggroup", "darl"}


def test_no_generic_file_names_a_machine():
    """No file of the layers, the command line or the benchmarks outside the machines imports
    a machine or names one of its modules."""
    files = [p for p in ROOT.rglob("*.py")
             if p.relative_to(ROOT).parts[0] not in ("machines", "tests", "docs", ".venv",
                                                     "build", ".git")]
    assert len(files) > 100
    bad = []
    for p in files:
        for name in _imports(p) | _strings(p):
            for found in _MACHINE_MODULE.finditer(name):
                if found.group(1) in MACHINES:
                    bad.append(f"{p.relative_to(ROOT)}: {name}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", MACHINES)
def test_a_machine_imports_no_other_machine(name):
    room = machines()[name].path
    bad = []
    for p in room.rglob("*.py"):
        for imported in _imports(p) | _strings(p):
            for found in _MACHINE_MODULE.finditer(imported):
                if found.group(1) in MACHINES and found.group(1) != name:
                    bad.append(f"{p.relative_to(ROOT)}: {imported}")
    assert not bad, "\n".join(bad)


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANKS else "rlaccel"


def test_nothing_imports_upward():
    bad = []
    for module, path in SOURCES.items():
        here = _layer(module)
        for imported in _imports(path):
            if not imported.startswith("rlaccel"):
                continue
            there = _layer(imported)
            if there != here and RANKS[there] >= RANKS[here]:
                bad.append(f"{path.relative_to(ROOT)} ({here}) imports {imported} ({there})")
    assert not bad, "\n".join(bad)


def _graph() -> dict[str, set[str]]:
    """module -> the modules it imports, without its own packages (importing a module runs
    them first anyway)."""
    return {m: {i for i in _imports(p) if i in SOURCES and i != m
                and not m.startswith(i + ".")}
            for m, p in SOURCES.items()}


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(edges)))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    assert _circles(_graph()) == []


def test_the_circle_finder_finds_circles():
    """The check above could not pass by accident."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
