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


def test_a_multiply_in_luts_is_priced_as_fabric_not_as_a_dsp_slice():
    """[technology] multipliers: on DSP slices a multiply costs whole 27 x 18 tiles at the
    hard-block gap, whatever its operands' widths; in LUTs it costs the standard-cell
    multiplier of its widths at the fabric gap, so it grows with every operand bit."""
    from rlaccel.tlm.cost import Asic, Fpga
    from rlaccel.tlm.cost.primitives import table
    dsp, lut = Fpga("u280"), Fpga("u280", multipliers="fabric")
    cells, gap = Asic("hp16", 0.85), table("fpga.gap")
    for a, b in ((32, 32), (24, 17), (16, 16)):
        assert lut.mul(a, b).pj == pytest.approx(gap["soft"] * cells.mul(a, b).pj)
        assert dsp.mul(a, b).pj == pytest.approx(dsp.dsp_tiles(a, b) * dsp.dsp_op().pj)
    assert dsp.mul(16, 16).pj == dsp.mul(24, 17).pj        # one tile either way
    assert lut.mul(16, 16).pj < lut.mul(24, 17).pj < lut.mul(32, 32).pj
    assert lut.mul(32, 32, on="dsp").pj == dsp.mul(32, 32).pj


def test_darl_prices_its_arrays_multiplies_in_luts_and_its_encoder_s_on_dsps():
    """DARL's regression arrays and update lanes multiply in LUTs (synthesised without
    DSPs), its encoder on DSP slices: switching the architecture to "dsp" moves the price of
    the arrays' multiply-add and the update's multiply only, by the multiplier's difference."""
    from rlaccel.tlm.cost import Fpga
    fabric, dsp = energy_model("darl"), energy_model("darl", technology__multipliers="dsp")
    f, d = Fpga("u280", multipliers="fabric"), Fpga("u280")
    for action in ("mac", "mul"):
        assert fabric.prices[action] - dsp.prices[action] == pytest.approx(
            f.mul(32, 32).pj - d.mul(32, 32).pj)
        assert fabric.prices[action] > dsp.prices[action]
    for action in ("encode_mac", "add", "sram_read", "clock"):
        assert fabric.prices[action] == dsp.prices[action], action
    assert fabric.prices["encode_mac"] == dsp.prices["mac"]
    assert "in LUTs" in fabric.sources["mac"] and "DSP48E2" in fabric.sources["encode_mac"]


def test_multipliers_is_an_fpga_s_choice(tmp_path):
    from rlaccel.tlm.cost import technology_of
    from rlaccel.util.errors import ArchError
    for base, value, match in (("darl", '"luts"', "must be 'dsp'"),
                               ("adhdp", '"fabric"', "an FPGA's choice")):
        f = tmp_path / f"{base}.toml"
        f.write_text(f'name = "v"\ninherit = "{base}"\n[technology]\nmultipliers = {value}\n')
        with pytest.raises(ArchError, match=match):
            technology_of(load_arch(f))


def test_the_fpga_clock_counts_every_unit_the_names_give():
    """DARL's clock counts its regression arrays' flip-flops: 4 A C processing elements an
    agent at the design's A ([resources] actions), or a caller's."""
    from rlaccel.tlm.cost import resources_of
    a = load_arch("darl")
    _, fams = models_for(a.knobs.families)
    unit_of = {x: u for f in fams for x, u in f.actions.items()}
    design = derive_energy(a, fams, unit_of)
    two = derive_energy(a, fams, unit_of, names={"actions": 2})
    ff = resources_of(a).total["ff"]
    row = a.extra["resources"]["regression"]
    assert a.extra["resources"]["actions"] == 4
    assert resources_of(a).units["regression"]["ff"] == 4 * 4 * a.knobs.lanes * row["ff"]
    assert "not counted" not in design.sources["clock"]
    assert f"{ff:,}" in design.sources["clock"]
    per_bit = design.parts["flipflops"] / ff
    assert design.parts["flipflops"] - two.parts["flipflops"] == pytest.approx(
        per_bit * 4 * 2 * a.knobs.lanes * row["ff"])
