"""A run's summary starts with the common block, laid out alike for every machine, with a unit
on every figure and never ``None``; then the machine's own lines."""

from __future__ import annotations

import re

import pytest

from rlaccel.isa.machine import machine
from rlaccel.programs.plugin import Plugin, load_plugin
from rlaccel.programs.runner import run
from rlaccel.programs.summary import (Headline, Throughput, common_block, measured, seconds_text,
                                      si, summary)

#: the shortest run of each machine the machines' own tests use: manifest, overrides, options
SHORT = {
    "adhdp": ("cartpole.toml", [], {"trials": 1}),
    "fixar": ("pendulum.toml", ["learning.hidden=[32, 24]", "learning.batch=8",
                                "learning.start_steps=100", "learning.eval_every=100",
                                "learning.eval_episodes=1"], {"steps": 120}),
    "maddpg": ("simple_tag.toml", ["learning.batch=16", "learning.hidden=[8,8]",
                                   "learning.learning_starts=32"], {"steps": 20}),
    "learninggroup": ("predator_prey.toml", ["network.hid=16", "environment_kwargs.nagents=3",
                                             "environment_kwargs.dim=3",
                                             "learning.batch_episodes=2", "iterations=1"], {}),
    "darl": ("cartpole.toml", ["stages=1", "stop_at_target=false"], {}),
}

#: the common block's lines, in order: label, then what the line must hold (units included)
BLOCK = [
    ("", r"^(\w+): \S+ on \S+, seed \d+$"),
    ("simulated:", r"^  simulated:   [\d,]+ cycles = [\d.,]+ [munp]?s at [\d.,]+ [kMG]?Hz, "
                   r"[\d,]+ instructions$"),
    ("energy:", r"^  energy:      [\d.,]+ [pnumkMG]?J, average power [\d.,]+ [pnumkMG]?W$"),
    ("utilisation:", r"^  utilisation: [^,]+ [\d.]+ %(, [^,]+ [\d.]+ %)*$"),
    ("throughput:", r"^  throughput:  (.+ [\d.,]+ \S+( \(.+\))?|not given \(.+\))$"),
    ("simulator:", r"^  simulator:   [\d.]+ s wall \([\d.]+ s in the simulation loop\); "
                   r"([\d,]+ .+, [\d,]+ per second of wall time|.+ not counted \(.+\))$"),
]


@pytest.fixture(scope="module")
def reports():
    out = {}
    for name, (file, overrides, options) in SHORT.items():
        out[name] = run(machine(name).programs / file, overrides, **options)
    return out


@pytest.mark.parametrize("name", sorted(SHORT))
def test_every_machine_starts_with_the_common_block(reports, name):
    """The first lines are the common block, each in its place and with its units; the
    machine's own lines follow; the block names the run's machine, arch and seed."""
    r = reports[name]
    lines = summary(r).splitlines()
    assert len(lines) > len(BLOCK)
    for line, (_, pattern) in zip(lines, BLOCK):
        assert re.match(pattern, line), (line, pattern)
    assert lines[0].startswith(f"{name}: ") and f" on {r['arch']}, seed {r['seed']}" in lines[0]
    assert f"{r['cycles']:,} cycles" in lines[1]
    assert lines[len(BLOCK):] == load_plugin(name).summary(r).splitlines()


@pytest.mark.parametrize("name", sorted(SHORT))
def test_no_summary_prints_none(reports, name):
    assert "None" not in summary(reports[name])


@pytest.mark.parametrize("name", sorted(SHORT))
def test_the_common_block_never_prints_none(reports, name):
    r = reports[name]
    assert "None" not in "\n".join(common_block(r, load_plugin(name).headline(r)))


def test_adhdp_declares_its_figures(reports):
    """The ADHDP plug-in names the MAC lanes' utilisation, its paper's plant time steps per
    simulated second and the plant steps the run took."""
    r = reports["adhdp"]
    h = load_plugin("adhdp").headline(r)
    steps = sum(r["learning"]["steps_per_trial"])
    assert h.env_steps == steps == pytest.approx(r["env_steps_per_s"] * r["time_s"])
    text = summary(r)
    assert f"MAC lanes {100 * r['utilization']['mac_lanes']:.1f} %" in text
    assert f"plant time steps {r['env_steps_per_s']:,.1f} steps/s" in text
    assert f"; {steps:,} plant time steps, " in text


def _report(**over):
    r = {"machine": "m", "program": "p.s", "arch": "a", "seed": 3, "cycles": 2_000,
         "time_s": 2e-5, "instructions": 10, "energy_pj": 5e6, "power_mw": 250.0,
         "utilization": {"issue_busy": 0.5},
         "timing": {"sim": {"wall_s": 0.5, "run_wall_s": 2.0}}}
    return {**r, **over}


def test_a_figure_a_run_lacks_says_why():
    h = Headline(utilisation={"lanes": 0.25}, no_throughput="no measure here",
                 steps_note="nothing counts them")
    lines = common_block(_report(), h)
    assert lines[1] == "  simulated:   2,000 cycles = 20.00 us at 100.0 MHz, 10 instructions"
    assert lines[2] == "  energy:      5.000 uJ, average power 250.0 mW"
    assert lines[3] == "  utilisation: lanes 25.0 %"
    assert lines[4] == "  throughput:  not given (no measure here)"
    assert lines[5] == ("  simulator:   2.00 s wall (0.50 s in the simulation loop); "
                        "environment steps not counted (nothing counts them)")


def test_steps_per_second_are_of_the_whole_run():
    h = Headline(throughput=Throughput("IPS", 1234.5, "inferences/s", "eq. 7"), env_steps=300)
    lines = common_block(_report(), h)          # (no utilisation line: none declared)
    assert lines[3] == "  throughput:  IPS 1,234.5 inferences/s (eq. 7)"
    assert lines[4].endswith("; 300 environment steps, 150 per second of wall time")


@pytest.mark.parametrize("value", [None, 0, 0.0])
def test_a_throughput_not_measured_is_none_and_the_headline_says_why(value):
    assert measured("IPS", value, "inferences/s", "eq. 7") is None
    h = Headline(throughput=measured("IPS", value, "inferences/s"), no_throughput="no round")
    assert common_block(_report(), h)[3] == "  throughput:  not given (no round)"


def test_a_measured_throughput_keeps_its_name_value_unit_and_note():
    assert measured("IPS", 12.5, "inferences/s", "eq. 7") == Throughput(
        "IPS", 12.5, "inferences/s", "eq. 7")


def test_a_machine_without_utilisation_leaves_the_line_out():
    lines = common_block(_report(), Headline())
    assert not any(line.startswith("  utilisation:") for line in lines)


def test_the_default_headline_reads_the_platforms_records():
    r = _report(host={"agents": [{"timeline": {"calls": {"environment": 7}}},
                                 {"timeline": {"calls": {"environment": 5}}}]})
    h = Plugin().headline(r)
    assert h.utilisation == {"instruction issue": 0.5}
    assert h.env_steps == 12 and h.throughput is None
    assert Plugin().headline(_report(host={"agents": []})).env_steps is None


@pytest.mark.parametrize("value, unit, text", [
    (0, "W", "0 W"), (1.2e-5, "J", "12.00 uJ"), (17.84, "W", "17.84 W"),
    (175e6, "Hz", "175.0 MHz"), (4.98e-4, "s", "498.0 us"), (-2.5e-3, "W", "-2.500 mW"),
    (3e-15, "J", "0.003 pJ")])
def test_si(value, unit, text):
    assert si(value, unit) == text


@pytest.mark.parametrize("s, text", [(0.84, "0.84 s"), (12.34, "12.3 s"), (185, "3 min 05 s"),
                                     (3725, "1 h 02 min")])
def test_seconds_text(s, text):
    assert seconds_text(s) == text
