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
                "lut_capacity", "ff_used", "ff_budget", "ff_capacity"} <= set(s)
        assert s["dsp_used"] < s["dsp_budget"] and s["bram_used"] < s["bram_budget"]
        assert s["lut_used"] <= s["lut_capacity"] and s["ff_used"] <= s["ff_capacity"]
    # this project's fp32 element is a LUT-built multiply-add (the cost model's Yosys
    # figure): the smallest design is already past UG949's LUT guideline, and is taken
    assert (d["f"], d["stage_cycles"], d["dsp_used"]) == (1, 1408, 490)
    assert d["over_guideline"] and all("LUTs" in s for s in d["over_guideline"])
    assert "Table II (Cooperative Communication): DSP 3320 (49 %)" in capsys.readouterr().out


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
