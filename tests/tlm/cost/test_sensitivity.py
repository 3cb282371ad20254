"""The cost model follows the design knobs: a MAC's energy grows with the word width of
``machine.dtype``, so a run's energy falls when the format narrows (tlm/cost/README.md)."""

import pytest

from rlaccel.isa.arch import load_arch
from rlaccel.programs.arch_variant import arch_variant
from rlaccel.programs.runner import run
from rlaccel.tlm.cost import derive_energy
from rlaccel.tlm.families import models_for


def energy_model(name: str, **sets):
    """The derived energy model of architecture ``name`` with ``sets`` (``TABLE.KEY``
    written ``TABLE__KEY``) changed."""
    changed = {k.replace("__", "."): v for k, v in sets.items()}
    a = load_arch(arch_variant(name, changed)) if changed else load_arch(name)
    _, fams = models_for(a.knobs.families)
    return derive_energy(a, fams, {x: u for f in fams for x, u in f.actions.items()})


ADHDP_FORMATS = ["q6.4", "q6.8", "q6.12", "q6.18"]


def test_an_asic_mac_grows_with_the_word():
    """Every arithmetic and memory-word action of the ADHDP chip costs more at a wider Q6.f,
    and so does the clock of its registers."""
    models = [energy_model("adhdp", machine__dtype=f) for f in ADHDP_FORMATS]
    for action in ("mac", "mul", "add", "sram_read", "reg_write", "clock"):
        prices = [m.prices[action] for m in models]
        assert prices == sorted(prices) and prices[0] < prices[-1], (action, prices)
    assert models[0].fitted == [] and models[-1].fitted == []


def test_floats_cost_more_than_the_chip_s_fixed_point():
    f16, f32, f64 = (energy_model("adhdp", machine__dtype=d).prices["mac"]
                     for d in ("fp16", "fp32", "float64"))
    assert f16 < f32 < f64
    assert energy_model("adhdp").prices["mac"] < f32          # Q6.18: 24 bits


def test_fpga_macs_grow_with_the_format():
    """On an FPGA too (the MADDPG card's fp32 multiply-adds in fabric): fp16 costs less."""
    macs = {d: energy_model("maddpg", machine__dtype=d).prices["mac"] for d in ("fp16", "fp32")}
    assert macs["fp16"] < macs["fp32"]


@pytest.mark.parametrize("manifest", ["machines/adhdp/programs/cartpole.toml"])
def test_a_run_s_energy_falls_when_the_format_narrows(manifest):
    """One trial on the Q6.18 chip: the same work (its action counts and cycles) priced at
    Q6.12 costs less in total; and a run on the Q6.12 chip itself draws less per cycle
    (its learning takes another path, so its cycles differ)."""
    runs = {fmt: run(manifest, ["stop_on_success=false"], arch="adhdp", seed=1, trials=1,
                     arch_overrides={"machine.dtype": fmt}) for fmt in ("q6.12", "q6.18")}
    r = runs["q6.18"]

    def total(model) -> float:
        return (sum(model.prices[a] * n for a, n in r["actions"].items())
                + model.prices["clock"] * r["cycles"])
    narrow, wide = energy_model("adhdp", machine__dtype="q6.12"), energy_model("adhdp")
    assert total(wide) == pytest.approx(r["energy_pj"], rel=1e-9)
    assert total(narrow) < 0.9 * total(wide)
    per_cycle = {f: x["energy_pj"] / x["cycles"] for f, x in runs.items()}
    assert per_cycle["q6.12"] < per_cycle["q6.18"]
