"""The adversarial corpus: one TOML file per case under ``tests/adversarial/<category>/``,
each a hostile input with the exact message it must give.

A case file holds ``argv`` (the command line after ``rlaccel``), ``status`` and ``message``
(as :class:`~.conftest.Case` compares them), and the files to create: ``base`` names a set
to start from (``"adhdp"``: the one-trial cart-pole manifest ``m.toml`` with its program and
include files; ``"arch"``: ``a.toml``, a copy of ``machines/adhdp/archs/adhdp.toml``), each
``[[replace]]`` (``file``, ``old``, ``new``) edits one of them -- ``old`` must occur -- and
``[files]`` adds more (text, or ``@NAME`` for a copy of ``cases/NAME``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.adversarial.conftest import ADHDP, Case, adhdp_files
from rlaccel.isa.machine import machine

HERE = Path(__file__).parent
CATEGORIES = ("manifests", "arch_files")
ARCH = machine("adhdp").archs / "adhdp.toml"


def load_case(path: Path) -> Case:
    t = tomllib.loads(path.read_text())
    unknown = set(t) - {"argv", "status", "message", "base", "replace", "files"}
    assert not unknown, f"{path}: unknown keys {unknown}"
    bases = t.get("base", [])
    files: dict = {}
    for base in [bases] if isinstance(bases, str) else bases:
        files.update({"adhdp": adhdp_files, "arch": lambda: {"a.toml": ARCH.read_text()}}[base]())
    for r in t.get("replace", []):
        assert r["old"] in files[r["file"]], f"{path}: {r['old']!r} is not in {r['file']}"
        files[r["file"]] = files[r["file"]].replace(r["old"], r["new"])
    files.update(t.get("files", {}))
    return Case(f"{path.parent.name}/{path.stem}", tuple(t["argv"]), t["status"], t["message"],
                files)


def corpus() -> list:
    return [load_case(p).param() for cat in CATEGORIES for p in sorted((HERE / cat).glob("*.toml"))]


def test_every_category_has_cases():
    for cat in CATEGORIES:
        assert len(list((HERE / cat).glob("*.toml"))) >= 5, cat


@pytest.mark.parametrize("case", corpus())
def test_case(case, check):
    check(case)
