"""FPGA resources per unit, per SLR and in total (tlm/cost/resources.py)."""

import tomllib

import pytest

from rlaccel.isa.arch import arch_files, load_arch
from rlaccel.tlm.cost import resources_of
from rlaccel.tlm.cost.resources import evaluate
from rlaccel.util.errors import ArchError

from tests.util.tomlgen import toml_text


def test_expressions_of_the_knobs():
    names = {"cores": 2, "pe_rows": 16, "agents": 8}
    assert evaluate("cores * pe_rows * 16", names, "x") == 512
    assert evaluate("(agents > 1) * 4 + ceil(7 / 2)", names, "x") == 8
    with pytest.raises(ArchError, match="'lanes' is not a knob"):
        evaluate("lanes", names, "x")
    with pytest.raises(ArchError, match="uses something other than"):
        evaluate("__import__('os')", names, "x")


def test_fixar_sums_its_units_and_spreads_them_over_the_slrs():
    r = resources_of(load_arch("fixar"))
    d = r.as_dict()
    assert r.units["pe"]["count"] == 512 and r.units["pe"]["dsp"] == 2048
    assert d["dsp"] == 2048 + 16 * 16 and d["device"] == "u50"
    assert [s["dsp"] for s in d["slr"]] == [1152, 1152]
    assert r.units["synapse_memory"]["uram"] == 256     # 2 M words of 32 bits in 16 banks
    assert {"lut", "ff", "dsp", "bram", "device"} <= d.keys()


def test_the_budget_is_ug949s_share_of_an_slr():
    d = resources_of(load_arch("learninggroup")).as_dict()
    assert d["slr"][0]["budget"]["lut"] == pytest.approx(0.7 * 1303680 / 3)
    assert d["slr"][0]["budget"]["ff"] == pytest.approx(0.5 * 2607360 / 3)
    assert "SLR0 lut" in d["over_budget"]               # 792 VPUs of 1,706 LUTs


def test_a_design_search_names_its_elements():
    a = load_arch("maddpg")
    with pytest.raises(ArchError, match="'elements' is not a knob"):
        resources_of(a)
    assert resources_of(a, partial=True).skipped == ["cu_element", "learner_memory"]
    r = resources_of(a, extra={"elements": 100, "brams": 50})
    assert r.units["cu_element"]["lut"] == 147400 and r.units["cu_element"]["dsp"] == 575
    assert r.total["bram"] == 50


def test_an_asic_has_no_fpga_resources():
    assert resources_of(load_arch("adhdp")) is None


def _with_resource(tmp_path, name: str, unit: str, key: str, value):
    """Machine ``name``'s default architecture with ``[resources.unit] key = value``."""
    table = tomllib.loads(arch_files()[name].read_text())
    table["resources"][unit][key] = value
    path = tmp_path / "a.toml"
    path.write_text(toml_text(table))
    return load_arch(path)


@pytest.mark.parametrize("bad", [[], "many", True, -1, float("nan")])
def test_a_unit_whose_count_is_not_a_number_is_refused(bad, tmp_path):
    with pytest.raises(ArchError, match=r"\[resources.*update\W+lut"):
        resources_of(_with_resource(tmp_path, "darl", "update", "lut", bad))


@pytest.mark.parametrize("bad", [[], "0", 5, True])
def test_a_unit_placed_on_no_slr_is_refused(bad, tmp_path):
    with pytest.raises(ArchError, match=r"\[resources.osel\] slr = .* is not an SLR"):
        resources_of(_with_resource(tmp_path, "learninggroup", "osel", "slr", bad))


def test_a_count_name_the_architecture_states_and_a_run_s_in_its_place():
    a = load_arch("darl")
    design = resources_of(a).units["regression"]["count"]
    assert design == 4 * 4 * a.knobs.lanes                          # [resources] actions = 4
    assert resources_of(a, extra={"actions": 2}).units["regression"]["count"] == design / 2


@pytest.mark.parametrize("text, match", [
    ("lanes = 4", r"\[resources\] lanes = 4 names a count that the architecture already"),
    ('actions = "four"', r"\[resources\] actions must be a unit .* or a count name's number"),
    ("actions = -1", r"\[resources\] actions must be a unit")])
def test_a_bad_count_name_is_refused(text, match, tmp_path):
    f = tmp_path / "v.toml"
    f.write_text(f'name = "v"\ninherit = "darl"\n[resources]\n{text}\n')
    with pytest.raises(ArchError, match=match):
        resources_of(load_arch(f))
