"""The cost constants' rule: every energy, power, latency and resource constant of a default
architecture names its source, and no source is a fit or the machine's own paper's result
(tlm/cost/sources.py); a calibrated variant may exist only under a name that says so."""

import pytest

from rlaccel.isa.arch import arch_names, load_arch
from rlaccel.isa.machine import machines
from rlaccel.tlm.cost.sources import problems

#: what names each machine's own paper in a source sentence (case-insensitive)
PAPER = r"\b(the|its) (paper|seed)\b"
OWN = {"adhdp": [PAPER, r"\bseed\b", r"Zheng", r"Mazumder", r"25 mW"],
       "fixar": [PAPER, r"\bseed\b", r"Yang, Hong", r"DAC 2021", r"20\.4 W"],
       "maddpg": [PAPER, r"\bseed\b", r"Table II\b", r"FPL 2023"],
       "learninggroup": [PAPER, r"\bseed\b", r"FPT 2022", r"36\.3 W", r"Fig\. 8"],
       "darl": [PAPER, r"\bseed\b", r"Table [12]\b", r"Imani", r"ICCAD"]}


def _machine(name: str) -> str:
    return next(m for m, d in machines().items()
                if (d.archs / f"{name}.toml").exists())


DEFAULTS = [n for n in arch_names() if "calibrated" not in n]


def test_every_machine_has_default_architectures():
    assert {_machine(n) for n in DEFAULTS} == set(OWN)


@pytest.mark.parametrize("name", DEFAULTS)
def test_every_cost_constant_names_a_source_that_is_no_fit_and_not_the_paper(name):
    assert problems(load_arch(name), OWN[_machine(name)]) == []


@pytest.mark.parametrize("name", DEFAULTS)
def test_the_defaults_derive_their_energy(name):
    """No default architecture states a price: every one comes from [technology]."""
    a = load_arch(name)
    assert "technology" in a.extra and not a.extra.get("energy")


#: machines with latency tables of their own beyond COVERED (MADDPG's per-batch passes in
#: [learner]), every number of which names its source too
LATENCIES = {"maddpg": ("learner",)}


@pytest.mark.parametrize("name", [n for n in DEFAULTS if _machine(n) in LATENCIES])
def test_latency_constants_name_their_sources(name):
    from rlaccel.tlm.cost.sources import COVERED
    machine = _machine(name)
    assert problems(load_arch(name), OWN[machine], COVERED + LATENCIES[machine]) == []


def test_host_and_link_constants_are_judged():
    """Every default architecture's [timing], [hostlink] and [interconnect] numbers are among
    the constants judged, so a latency, host or link figure without a source fails."""
    from rlaccel.tlm.cost.sources import COVERED
    assert {"timing", "hostlink", "interconnect", "device"} <= set(COVERED)
    assert all("timing" in load_arch(n).extra for n in DEFAULTS)


@pytest.mark.parametrize("machine", sorted(OWN))
def test_a_timing_constant_without_a_source_fails(tmp_path, machine):
    """Each machine's [timing]: a latency added without a sentence, or whose sentence is
    dropped, breaks the rule."""
    name = next(n for n in DEFAULTS if _machine(n) == machine)
    key = next(iter(load_arch(name).extra["timing"]))
    f = tmp_path / "t.toml"
    f.write_text(f'name = "t"\ninherit = "{name}"\n[sources]\n"timing.{key}" = ""\n')
    bad = problems(load_arch(f), OWN[machine])
    assert any(f"timing.{key}: no source" in p for p in bad)


def test_a_fitted_timing_constant_fails(tmp_path):
    a = _variant(tmp_path, '[sources]\n"timing.mul" = "three cycles, fitted so the '
                           'iteration matches"\n')
    assert any("timing.mul: its source says it was fitted" in p
               for p in problems(a, OWN["darl"]))
    assert {_machine(n) for n in DEFAULTS if "hostlink" in load_arch(n).extra} == set(OWN)


def _variant(tmp_path, text: str):
    f = tmp_path / "v.toml"
    f.write_text('name = "v"\ninherit = "darl"\n' + text)
    return load_arch(f)


def test_a_fitted_source_fails(tmp_path):
    a = _variant(tmp_path, '[energy]\nclock = 8386.0\n[energy_sources]\n'
                           'clock = "fitted to the power line of the published table"\n')
    bad = problems(a, OWN["darl"])
    assert any("energy.clock: its source says it was fitted" in p for p in bad)


def test_a_source_that_is_the_paper_fails(tmp_path):
    a = _variant(tmp_path, '[timing]\nio = 118\n[sources]\n'
                           '"timing.io" = "what makes Table 1 come out at 417 cycles"\n')
    bad = problems(a, OWN["darl"])
    assert any("timing.io: its source is the machine's own paper" in p for p in bad)


def test_a_number_without_a_source_fails(tmp_path):
    a = _variant(tmp_path, '[hostlink]\nlatency = 99\n[sources]\n"hostlink.latency" = 7\n')
    bad = problems(a, OWN["darl"])
    assert any("hostlink.latency: no source" in p for p in bad)
    f = tmp_path / "w.toml"
    f.write_text('name = "w"\ninherit = "darl"\n[sources]\n"hostlink.nothing" = "a b c"\n')
    assert any("names no constant" in p for p in problems(load_arch(f), []))


def test_a_resource_unit_without_a_source_is_refused(tmp_path):
    from rlaccel.tlm.cost import resources_of
    from rlaccel.util.errors import ArchError
    a = _variant(tmp_path, '[resources.x]\ncount = 1\nlut = 5\n')
    with pytest.raises(ArchError, match=r"\[resources.x\] needs a source"):
        resources_of(a)


def test_a_count_name_without_a_source_fails(tmp_path):
    a = _variant(tmp_path, '[sources]\n"resources.actions" = ""\n')
    assert any("resources.actions: no source" in p for p in problems(a, OWN["darl"]))
