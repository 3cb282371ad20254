"""The MADDPG machine's verbs: rlaccel dse maddpg writes the design other checks read
(unroll_factors; per SLR dsp_used, dsp_budget, bram_used, bram_budget); rlaccel report maddpg
writes Fig. 7 and Table II as Markdown, JSON and plots."""

import json
from pathlib import Path

import pytest

from rlaccel.cli import main
from rlaccel.isa.machine import machine

ROOT = machine("maddpg").programs


def test_dse_json(tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["dse", "maddpg", "--manifest", str(ROOT / "speaker_listener.toml"),
                 "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert set(d["unroll_factors"]) == {"speaker_0", "listener_0"}
    assert len(d["unroll_factors"]["speaker_0"]["value"]) == 15
    assert len(d["unroll_factors"]["speaker_0"]["policy"]) == 14
    for s in d["slr"]:
        assert {"dsp_used", "dsp_budget", "bram_used", "bram_budget", "lut_used", "lut_budget",
                "lut_capacity", "ff_used", "ff_budget", "ff_capacity", "dsp_model",
                "dsp_model_budget", "bram_model", "bram_model_budget", "bram_parts"} <= set(s)
        assert s["dsp_used"] < s["dsp_budget"] and s["bram_used"] < s["bram_budget"]
        for k in ("lut", "ff"):                       # the cost model within UG949's guideline
            assert s[f"{k}_used"] <= s[f"{k}_budget"]
        for k in ("dsp", "bram"):
            assert s[f"{k}_model"] <= s[f"{k}_model_budget"]
    # the fp32 element priced as Vitis HLS builds it (5.75 DSPs, 1,474 LUTs): the search is
    # LUT-bound, at a base factor above 1, within every budget
    assert (d["f"], d["stage_cycles"], d["dsp_used"]) == (4, 352, 1525)
    assert not d["over_guideline"]
    assert max(s["lut_used"] / s["lut_budget"] for s in d["slr"]) > max(
        s["dsp_model"] / s["dsp_model_budget"] for s in d["slr"])
    c = d["cost_model"]
    assert c["bram"] == pytest.approx(sum(c["bram_parts"].values()))
    assert d["placement"]["same"]                      # Fig. 5: one learner in each of two SLRs
    out = capsys.readouterr().out
    assert "against Table II (Cooperative Communication): LUT 774,000 (-41 %)" in out


def test_dse_budget_capacity_fills_each_slr(tmp_path):
    """``dse.budget = "capacity"``: the cost model's resources may fill each SLR, so the
    design is larger than within UG949's guideline."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    m = ROOT / "speaker_listener.toml"
    g = explore_manifest(m)
    c = explore_manifest(m, ["dse.budget=capacity"])
    assert c["f"] > g["f"] and c["cost_model"]["lut"] > g["cost_model"]["lut"]
    assert all(s["lut_used"] <= s["lut_capacity"] for s in c["slr"])
    from rlaccel.programs.manifest import ManifestError
    with pytest.raises(ManifestError, match="'dse.budget' must be 'guideline' or 'capacity'"):
        explore_manifest(m, ["dse.budget=all"])



def test_dse_explores_the_manifests_task_settings():
    """``[task]`` settings reach the design search: Predator-Prey with five predators places
    six learners, and Fig. 5's placement (four learners) is not set beside it."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    d = explore_manifest(ROOT / "simple_tag.toml", ["task.num_adversaries=5"])
    assert len(d["unroll_factors"]) == 6
    assert sum(len(s["agents"]) for s in d["slr"]) == 6
    assert d["placement"] is None
    assert explore_manifest(ROOT / "simple_tag.toml")["placement"]["same_counts"]

def test_report(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "maddpg", "-o", str(out), "--envs", "simple_speaker_listener_v4",
                 "--batches", "16", "32", "--rounds", "2", "--baseline-rounds", "1",
                 "--steps", "40", "--set", "learning.hidden=[8,8]"]) == 0
    doc = json.loads((out / "report.json").read_text())
    assert "figures" not in doc["envs"]["simple_speaker_listener_v4"]   # measured: timing
    rows = doc["timing"]["envs"]["simple_speaker_listener_v4"]["figures"]["rows"]
    assert [r["batch"] for r in rows] == [16, 32]
    for r in rows:
        # the report's relations, to rounding (its sums may be taken in another order)
        assert r["speedup"] == pytest.approx(r["cpu_training_s"] / r["acc_learner_s"], rel=1e-12)
        assert r["ips_acc"] == pytest.approx(
            1 / (r["t_sg_s"] + r["sampling_s"] + r["acc_learner_s"]), rel=1e-12)
    t = doc["timing"]
    assert t["speedup_range"] == [min(r["speedup"] for r in rows), max(r["speedup"] for r in rows)]
    assert t["envs"]["simple_speaker_listener_v4"]["figures"]["speedup_range"] == t["speedup_range"]
    assert t["against_paper"]["paper"] == [3.6, 24.3]
    lo, hi = t["speedup_range"]
    assert t["against_paper"]["ratio"] == [lo / 3.6, hi / 24.3]
    assert t["blas_threads"] == "1"                     # the baseline's child process
    md = (out / "report.md").read_text()
    assert "| Table II |" in md and "paper: 3.6x - 24.3x" in md
    for tag in ("training_time", "ips"):
        for ext in ("png", "svg"):
            assert (out / f"fig7_cc_{tag}.{ext}").stat().st_size > 0
