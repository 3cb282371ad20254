"""A manifest given to rlaccel.run as a dict runs as its file does; anything else is a
ManifestError that says what a manifest is."""

import tomllib
from pathlib import Path

import pytest

from rlaccel.isa.machine import machine
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.runner import run
from rlaccel.util.version import versions


def _outside_timing(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("timing", "manifest")}


def test_a_dict_manifest_runs_as_its_file(monkeypatch):
    path = machine("adhdp").programs / "cartpole.toml"
    d = tomllib.loads(path.read_text())
    monkeypatch.chdir(path.parent)          # its program names resolve from here
    from_file = run(path, trials=1)
    from_dict = run(d, trials=1)
    assert _outside_timing(from_dict) == _outside_timing(from_file)
    assert from_file["versions"] == versions()


@pytest.mark.parametrize("bad, says", [
    (42, "not int"),
    ({1: "x"}, "keys are strings"),
    ({"machine": "adhdp", "x": float("nan")}, "'x'"),
])
def test_what_is_not_a_manifest_is_said(bad, says):
    with pytest.raises(ManifestError, match=says):
        run(bad)


def test_a_dict_without_a_machine_names_the_key():
    with pytest.raises(ManifestError, match="missing 'machine'"):
        run({"program": "x.s"})
