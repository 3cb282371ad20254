"""Energy of the base family: its prices composed by the cost model from the architecture's
technology, number format and sizes (issue 27), the sources of stated constants, and the
action counts of the VU chip's merged E accumulation."""

import pytest

from rlaccel.isa.arch import load_arch
from rlaccel.programs.arch_variant import arch_variant
from rlaccel.tlm.families import models_for
from rlaccel.tlm.energy import EnergyTable
from rlaccel.tlm.families.base.energy import actions, flipflop_bits, source_problems


def table(name, **knobs) -> EnergyTable:
    a = load_arch(arch_variant(name, knobs) if knobs else name)
    _, fams = models_for(a.knobs.families)
    return EnergyTable.from_arch(a, fams, {x: u for f in fams for x, u in f.actions.items()})


def test_the_chip_s_prices_are_the_cited_figures():
    """At 65 nm / 1.2 V and Q6.18 the derivation gives the figures adhdp.toml cited before it
    was derived (Horowitz scaled by Stillmaker & Baas, CACTI 6.5 at 65 nm)."""
    p = table("adhdp").prices
    want = {"mac": 4.72, "mul": 4.35, "add": 0.19, "sram_read": 1.77, "sram_write": 3.24,
            "reg_read": 1.10, "reg_write": 1.80, "buf_read": 1.22, "buf_write": 2.50}
    assert {k: round(p[k], 2) for k in want} == want


def test_the_clock_is_the_flip_flops_and_leakage_not_a_fit():
    """7,360 flip-flop bits at Aladdin's 0.009 pJ scaled from 40 nm / 0.9 V to 65 nm / 1.2 V,
    plus leakage; nothing is fitted to the seed's 25 mW."""
    t = table("adhdp")
    assert sum(flipflop_bits_of("adhdp").values()) == 1536 + 2688 + 1920 + 1152 + 64
    assert t.model.parts["flipflops"] == pytest.approx(7360 * 0.009 * 2.892, rel=1e-3)
    assert t.model.fitted == [] and t.describe()["fitted"] == []
    assert "aladdin2014" in t.describe()["sources"]["clock"]


def flipflop_bits_of(name):
    from rlaccel.tlm.cost import CostModel
    return flipflop_bits(CostModel(load_arch(name)))


def test_the_vu_chip_prices_its_multiplexers_on_arithmetic_only():
    base, vu = table("adhdp").prices, table("adhdp-vu").prices
    for key in ("mac", "mul", "add", "act"):
        assert vu[key] == pytest.approx(base[key] + 2 * 0.187, abs=0.005)
    assert {k: v for k, v in vu.items() if k not in ("mac", "mul", "add", "act")} == \
        {k: v for k, v in base.items() if k not in ("mac", "mul", "add", "act")}


def test_energy_per_mac_grows_with_the_word_width():
    widths = ["q6.6", "q6.12", "q6.18", "q16.16"]
    macs = [table("adhdp", **{"machine.dtype": d}).prices["mac"] for d in widths]
    assert macs == sorted(macs) and len(set(macs)) == 4
    syn = [table("adhdp", **{"machine.dtype": d}).prices["sram_read"] for d in widths]
    assert syn == sorted(syn)


def test_a_narrower_format_draws_less_per_cycle_and_per_iteration():
    """Issue 27's sensitivity: machine.dtype narrower -> every price and the clock smaller,
    so the same work (a short run of the same cycles) costs less."""
    from rlaccel.isa.machine import machine
    from rlaccel.programs.runner import run
    wide, narrow = table("adhdp"), table("adhdp", **{"machine.dtype": "q6.12"})
    assert narrow.clock < wide.clock
    assert all(narrow.prices[k] <= wide.prices[k] for k in wide.prices if k != "decode")
    m = machine("adhdp").programs / "cartpole.toml"
    r = {d: run(m, ["stop_on_success=false"], trials=1, seed=3,
                arch_overrides={"machine.dtype": d}) for d in ("q6.18", "q6.12")}
    assert r["q6.12"]["cycles"] == r["q6.18"]["cycles"]
    assert r["q6.12"]["energy_pj"] < 0.85 * r["q6.18"]["energy_pj"]


def test_a_faster_clock_costs_less_leakage_per_cycle():
    slow, fast = table("adhdp"), table("adhdp", **{"machine.clock_mhz": 350.0})
    assert fast.model.parts["leakage"] == pytest.approx(slow.model.parts["leakage"] / 2)
    assert fast.model.parts["flipflops"] == slow.model.parts["flipflops"]


def test_more_lanes_clock_more_pipeline_flip_flops():
    assert table("adhdp", **{"machine.lanes": 8}).clock > table("adhdp").clock


def test_a_stated_constant_overrides_and_is_listed_as_fitted(tmp_path):
    f = tmp_path / "adhdp-calibrated.toml"
    f.write_text('name = "adhdp-calibrated"\ninherit = "adhdp"\n[energy]\nclock = 127.91\n'
                 '[energy_sources]\nclock = "calibrated to the published 25 mW"\n')
    a = load_arch(f)
    _, fams = models_for(a.knobs.families)
    t = EnergyTable.from_arch(a, fams, {x: u for fm in fams for x, u in fm.actions.items()})
    assert t.clock == 127.91 and t.describe()["fitted"] == ["clock"]
    assert t.prices["mac"] == pytest.approx(4.72, abs=0.005)


def test_a_constant_without_source_is_found(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('name = "bad"\ninherit = "adhdp"\n[energy]\nmac = 9.0\n'
                 '[energy_sources]\nmac = "guess"\nfoo = "a b c d"\n')
    problems = source_problems(load_arch(f))
    assert any("mac = 9.0 has no source" in p for p in problems)
    assert any("foo names no [energy] constant" in p for p in problems)


def test_merged_e_accumulation_counts_e_words_and_adds():
    """bp_wu.vu does bp_wu's work plus E's n words read, added and written (eq. 23)."""
    o = dict(src=0, syn=10, dst=20, rows=1, cols=6, off=0, act=4)
    plain, merged = actions("bp_wu", o, 64), actions("bp_wu.vu", o, 64)
    diff = {k: merged[k] - plain[k] for k in plain if merged[k] != plain[k]}
    assert diff == {"sram_read": 6, "sram_write": 6, "add": 6}
