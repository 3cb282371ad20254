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
                     for d in ("float16", "float32", "float64"))
    assert f16 < f32 < f64
    assert energy_model("adhdp").prices["mac"] < f32          # Q6.18: 24 bits


def test_fpga_macs_grow_with_the_dsp_slices_a_multiply_tiles():
    """On an FPGA a multiply costs the DSP slices its widths tile (27 x 18 each): the same
    for every width one slice holds, more for each slice added."""
    macs = {d: energy_model("learninggroup", machine__dtype=d).prices["vpu_op"]
            for d in ("float16", "float32")}
    assert macs["float16"] < macs["float32"]


@pytest.mark.parametrize("manifest", ["machines/adhdp/programs/cartpole.toml"])
def test_a_run_s_energy_falls_when_the_format_narrows(manifest):
    """The same program, one trial of fixed length: per cycle and in total, Q6.12 draws less
    than Q6.18."""
    out = {}
    for fmt in ("q6.12", "q6.18"):
        r = run(manifest, ["stop_on_success=false"], arch="adhdp", seed=1, trials=1,
                arch_overrides={"machine.dtype": fmt})
        out[fmt] = (r["energy_pj"], r["cycles"])
    (e12, c12), (e18, c18) = out["q6.12"], out["q6.18"]
    assert e12 / c12 < e18 / c18 and e12 < e18
