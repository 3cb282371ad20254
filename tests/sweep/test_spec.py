"""Sweep specs: axes as lists, ranges, formatted ranges and zips make the points in a fixed
order; a bad spec is a clear error before anything runs."""

import pytest

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.spec import load_spec, toml_literal

from tests.sweep.conftest import CARTPOLE, TINY


def test_points_are_the_product_of_the_axes_first_axis_slowest(write_spec):
    spec = load_spec(write_spec())
    pts = spec.points()
    assert spec.size == len(pts) == 6
    assert [(p.coords["arch.machine.dtype"], p.coords["seed"]) for p in pts] == [
        ("float64", 1), ("float64", 2), ("float64", 3), ("q6.10", 1), ("q6.10", 2),
        ("q6.10", 3)]
    assert [p.index for p in pts] == list(range(6))
    p = pts[4]
    assert p.settings == {"arch.machine.dtype": "q6.10", "manifest": str(CARTPOLE),
                          "max_steps": 30, "seed": 2, "stop_on_success": False, "trials": 1}
    a = p.run_args(spec.dir)
    assert a == {"manifest": str(CARTPOLE), "overrides": ["max_steps=30",
                                                          "stop_on_success=false", "trials=1"],
                 "arch_overrides": {"machine.dtype": "q6.10"}, "seed": 2}
    assert load_spec(write_spec()).digest() == spec.digest()


def test_ranges_formats_and_zips(write_spec):
    spec = load_spec(write_spec(f"""
manifest = "{CARTPOLE}"
[axes]
"arch.machine.dtype" = {{range = [8, 12, 2], format = "q6.{{}}"}}
"learning.Ic" = {{range = [60, 40, -20]}}
update = {{zip = {{virtual_update = [false, true], "learning.Ia" = [100, 50]}}, labels = ["regular", "VU"]}}
[metrics]
c = "cycles"
"""))
    assert [a.name for a in spec.axes] == ["arch.machine.dtype", "learning.Ic", "update"]
    assert spec.axes[0].labels == ("q6.8", "q6.10", "q6.12")
    assert spec.axes[1].labels == (60, 40)
    assert spec.axes[2].keys == ("virtual_update", "learning.Ia")
    assert spec.axes[2].values == ((False, 100), (True, 50))
    last = spec.points()[-1]
    assert last.coords == {"arch.machine.dtype": "q6.12", "learning.Ic": 40, "update": "VU"}
    assert last.settings["virtual_update"] is True and last.settings["learning.Ia"] == 50
    spec.validate()


def test_nested_tables_are_dotted_keys(write_spec):
    spec = load_spec(write_spec(f"""
manifest = "{CARTPOLE}"
[set]
learning = {{Ia = 90}}
[axes.learning]
Ic = [40, 50]
[metrics]
c = "cycles"
"""))
    assert spec.fixed["learning.Ia"] == 90 and spec.axes[0].name == "learning.Ic"
    spec.validate()


@pytest.mark.parametrize("axes, message", [
    ('seed = {range = [5, 4]}', r"axis 'seed': the range \[5, 4\] is empty"),
    ('seed = []', r"axis 'seed': the list of values is empty"),
    ('seed = {range = [1, 4, 0]}', r"has step 0"),
    ('seed = {range = [1.0, 4]}', r"range must be \[first, last\] or \[first, last, step\] of "
                                  r"integers"),
    ('seed = {range = [1, 4], fromat = "{}"}', r"axis 'seed': unknown word\(s\) fromat"),
    ('x = {zip = {seed = [1, 2], trials = [1]}}',
     r"axis 'x': the zipped lists differ in length \(seed: 2, trials: 1\)"),
    ('seed = [1, 2]\n"learning.Ic" = {values = [1], format = "x"}',
     r"format must be a string with one \{\} where the value goes"),
    ('"arch.machine.dtype" = {range = [4, 6], format = "q{}.{}"}',
     r"axis 'arch.machine.dtype': format must be a string with one \{\} where the value "
     r"goes, such as \"q6.\{\}\", not 'q\{\}.\{\}'$"),
    ('"arch.machine.dtype" = {range = [4, 6], format = "q6.{}{0}"}',
     r"format must be a string with one \{\} .*, not 'q6.\{\}\{0\}'$"),
    ('"arch.machine.dtype" = {range = [4, 6], format = "q6.{:q}"}',
     r"axis 'arch.machine.dtype': format 'q6.\{:q\}' cannot take the value 4 \(Unknown "
     r"format code 'q' for object of type 'int'\)$"),
    ('seed = [-1]', r"axis 'seed': a seed must be an integer from 0 to "
                    r"9,223,372,036,854,775,807, not -1$"),
    ('seed = [18446744073709551615]', r"a seed must be an integer .*, not "
                                      r"18446744073709551615$"),
    ('seed = [1.0]', r"a seed must be an integer .*, not 1.0$"),
    ('seed = ["a"]', r"axis 'seed': a seed must be an integer .*, not 'a'$"),
    ('x = {range = [1, 1000]}\ny = {range = [1, 1000]}\nz = {range = [1, 1000]}',
     r"the axes make 1,000,000,000 points \(1,000 x 1,000 x 1,000\), more than the "
     r"1,000,000 a sweep may have; split it into several sweeps or give the axes fewer "
     r"values$"),
    ('trials = [1, 2]', r"'trials' is set twice \(\[set\] and axis 'trials'\)"),
    ('seed = [1, 1]', r"axis 'seed' repeats a value \(1: positions 1 and 2\): its points "
                      r"would be run twice$"),
])
def test_bad_axes_are_errors_before_anything_runs(write_spec, axes, message):
    text = f'manifest = "{CARTPOLE}"\n[set]\ntrials = 1\n[axes]\n{axes}\n[metrics]\nc = "cycles"\n'
    with pytest.raises(SweepError, match=message):
        load_spec(write_spec(text))


@pytest.mark.parametrize("axes, message", [
    ('"learning.Icc" = [1, 2]', r"axis 'learning.Icc': the adhdp manifest .*cartpole.toml has "
                                r"no key 'learning.Icc' \(did you mean 'learning.Ic'\?\)"),
    ('bogus = [1, 2]', r"axis 'bogus': the adhdp manifest .* has no key 'bogus'; a key is "
                       r"'manifest', 'seed', 'arch.TABLE.KEY'"),
    ('"arch.machine.lane" = [1, 2]', r"point 0 \(arch.machine.lane=1\): architecture override "
                                     r"'machine.lane': 'adhdp' has no \[machine\] key 'lane' "
                                     r"\(did you mean 'machine.lanes'\?\)"),
    ('"arch.machine.dtype" = ["q6.12", "q6.99"]', r"point 1 \(arch.machine.dtype=q6.99\): "
                                                  r"architecture adhdp\[machine.dtype=q6.99\]: "
                                                  r"\[machine\] dtype: invalid number format"),
    ('"learning.Ic" = [50, "many"]', r"point 1 \(learning.Ic=many\): .*cartpole.toml: "
                                     r"'learning.Ic' must be an integer, not 'many'"),
    ('"learning.gamma" = [0.5, 2.0]', r"'learning.gamma' must be from 0 to 1, not 2.0"),
    ('seed = {rnage = [1, 4]}', r"axis 'seed.rnage': .* has no key 'seed.rnage'"),
    ('manifest = ["nothere.toml"]', r"manifest 'nothere.toml' does not exist"),
])
def test_keys_and_values_are_checked_against_the_manifest(write_spec, axes, message):
    text = f'manifest = "{CARTPOLE}"\n[axes]\n{axes}\n[metrics]\nc = "cycles"\n'
    if axes.startswith("manifest"):
        text = text.replace(f'manifest = "{CARTPOLE}"\n', "")
    spec = load_spec(write_spec(text))
    with pytest.raises(SweepError, match=message):
        spec.validate()


def test_a_set_key_the_manifest_does_not_have(write_spec):
    spec = load_spec(write_spec(TINY.replace("max_steps = 30", "max_step = 30")))
    with pytest.raises(SweepError, match=r"\[set\] key 'max_step': the adhdp manifest .* has "
                                         r"no key 'max_step' \(did you mean 'max_steps'\?\)"):
        spec.validate()


@pytest.mark.parametrize("text, message", [
    ('[axes]\nseed = [1]\n[metrics]\nc = "cycles"\n', r"no manifest: give manifest = "),
    (f'manifest = "{CARTPOLE}"\n[axes]\nseed = [1]\n', r"no metrics: add a \[metrics\] table"),
    (f'manifest = "{CARTPOLE}"\n[metrics]\nc = "cyc les("\n', r"metric 'c': 'cyc les\(' is "
                                                              r"not a dotted path"),
    (f'manifest = "{CARTPOLE}"\n[metrics]\nc = "average(cycles)"\n',
     r"unknown reduction 'average'"),
    (f'manifest = "{CARTPOLE}"\naxis = 1\n[metrics]\nc = "cycles"\n',
     r"unknown key 'axis' \(did you mean 'axes'\?\)"),
    (f'manifest = "{CARTPOLE}"\n[run]\nbatch = 0\n[metrics]\nc = "cycles"\n',
     r"\[run\] batch must be an integer of at least 1, not 0"),
    (f'manifest = "{CARTPOLE}"\n[run]\nbatches = 2\n[metrics]\nc = "cycles"\n',
     r"\[run\] has unknown key 'batches'"),
    ('manifest = [1\n', r"spec.toml"),
])
def test_bad_specs(write_spec, text, message):
    with pytest.raises(SweepError, match=message):
        load_spec(write_spec(text))


def test_toml_literals_round_trip():
    from rlaccel.programs.manifest import parse_value
    for v in (True, 3, -2, 0.1, 1e-05, "q6.12", 'a "b"', [4, 6, 1], [0.5, "x"]):
        assert parse_value(toml_literal(v)) == v
    with pytest.raises(SweepError, match="not a finite number"):
        toml_literal(float("inf"))
