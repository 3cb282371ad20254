"""Every machine's manifest knobs carry their range (:class:`~rlaccel.programs.manifest.Knob`),
so ``run``, ``dse`` and a sweep's validation apply the same rules: numbers within their
bounds, floats finite (free tables included), lists of the right length."""

import pytest

from rlaccel.programs.manifest import FromProgram, Knob, ManifestError, load_manifest
from rlaccel.programs.plugin import load_plugin, plugin_machines


def leaves(schema: dict, prefix: str = ""):
    for key, want in schema.items():
        if isinstance(want, dict) and not want.get("__free__"):
            yield from leaves(want, f"{prefix}{key}.")
        elif not isinstance(want, dict):
            yield f"{prefix}{key}", want


@pytest.mark.parametrize("machine", plugin_machines())
def test_every_number_of_every_machine_has_a_range(machine):
    """An integer (a count, a size) has both bounds; a float at least one; a list of numbers
    its length and its items' bounds. Nothing numeric is left to a plain default."""
    for key, want in leaves(load_plugin(machine).full_schema()):
        value = want.default if isinstance(want, Knob) else want
        kind = value.kind if isinstance(value, FromProgram) else type(value)
        if kind not in (int, float, list):
            continue
        assert isinstance(want, Knob), f"{machine}: '{key}' has no range"
        if kind is int:
            assert want.lo is not None and want.hi is not None, f"{machine}: '{key}'"
        elif kind is float:
            assert want.lo is not None or want.hi is not None, f"{machine}: '{key}'"
        else:
            assert want.length is not None and want.lo is not None and want.hi is not None, \
                f"{machine}: '{key}'"


SCHEMA = {"n": Knob(4, 1, 10), "x": Knob(0.5, 0.0, 1.0), "w": Knob([2, 3], 1, 8, length=2),
          "c": Knob(FromProgram(int), 1, 5, why="a program constant"),
          "free": {"__free__": True}}


@pytest.mark.parametrize("text,message", [
    ("n = 0", "m.toml: 'n' must be from 1 to 10, not 0"),
    ("n = 11", "m.toml: 'n' must be from 1 to 10, not 11"),
    ("n = 1.5", "m.toml: 'n' must be an integer, not 1.5"),
    ("x = nan", "m.toml: 'x' must be a finite number, not nan"),
    ("x = 2", "m.toml: 'x' must be from 0 to 1, not 2.0"),
    ("w = [1]", "m.toml: 'w' must be a list of 2 integers from 1 to 8, not [1]"),
    ("w = [1, 9]", "m.toml: 'w' must be a list of 2 integers from 1 to 8, not [1, 9]"),
    ("w = [1, 2.5]", "m.toml: 'w' must be a list of 2 integers from 1 to 8, not [1, 2.5]"),
    ("w = [1, true]", "m.toml: 'w' must be a list of 2 integers from 1 to 8, not [1, True]"),
    ("c = 6", "m.toml: 'c' must be from 1 to 5, not 6 (a program constant)"),
    ("free = {a = {b = [1.0, inf]}}", "m.toml: 'free.a.b[1]' must be a finite number, not inf"),
    ("free = {r = -nan}", "m.toml: 'free.r' must be a finite number, not nan"),
])
def test_knob_messages(tmp_path, text, message):
    p = tmp_path / "m.toml"
    p.write_text(text + "\n")
    with pytest.raises(ManifestError) as e:
        load_manifest(p, SCHEMA)
    assert str(e.value) == f"{p}: {message.removeprefix('m.toml: ')}"


def test_knob_defaults(tmp_path):
    p = tmp_path / "m.toml"
    p.write_text("w = [8, 1]\n")
    m = load_manifest(p, SCHEMA)
    assert (m["n"], m["x"], m["w"], m["c"], m["free"]) == (4, 0.5, [8, 1], None, {})
