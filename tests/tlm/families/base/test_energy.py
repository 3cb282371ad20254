"""Energy of the base family: every architecture's constants carry their source, and the
action counts of the VU chip's merged E accumulation."""

import pytest

from rlaccel.isa.arch import arch_names, load_arch
from rlaccel.tlm.families.base.energy import actions, source_problems

#: the ADHDP chips (the base family alone); other machines' tables are their families' own
WITH_ENERGY = [n for n in arch_names() if "energy" in load_arch(n).extra
               and load_arch(n).knobs.families == ("base",)]


def test_adhdp_machines_have_energy_tables():
    assert {"adhdp", "adhdp-vu", "adhdp-f64", "adhdp-vu-f64"} <= set(WITH_ENERGY)


@pytest.mark.parametrize("name", WITH_ENERGY)
def test_every_energy_constant_has_a_source(name):
    """Issue 13: each constant of [energy] names where it comes from in [energy_sources]."""
    assert source_problems(load_arch(name)) == []


def test_a_constant_without_source_is_found(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('name = "bad"\ninherit = "adhdp"\n[energy]\nmac = 9.0\n'
                 '[energy_sources]\nmac = "guess"\nfoo = "a b c d"\n')
    problems = source_problems(load_arch(f))
    assert any("mac = 9.0 has no source" in p for p in problems)
    assert any("foo names no [energy] constant" in p for p in problems)


def test_the_vu_chip_prices_its_multiplexers_on_arithmetic_only():
    base, vu = load_arch("adhdp").extra["energy"], load_arch("adhdp-vu").extra["energy"]
    for key in ("mac", "mul", "add", "act"):
        assert vu[key] == pytest.approx(base[key] + 0.37, abs=0.005)
    assert {k: v for k, v in vu.items() if k not in ("mac", "mul", "add", "act")} == \
        {k: v for k, v in base.items() if k not in ("mac", "mul", "add", "act")}


def test_merged_e_accumulation_counts_e_words_and_adds():
    """bp_wu.vu does bp_wu's work plus E's n words read, added and written (eq. 23)."""
    o = dict(src=0, syn=10, dst=20, rows=1, cols=6, off=0, act=4)
    plain, merged = actions("bp_wu", o, 64), actions("bp_wu.vu", o, 64)
    diff = {k: merged[k] - plain[k] for k in plain if merged[k] != plain[k]}
    assert diff == {"sram_read": 6, "sram_write": 6, "add": 6}
