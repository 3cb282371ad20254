"""fig7.json as the interface says: {"steps": N, "runs": {arm: {"seeds", "final_mean"}}},
final_mean the mean over the finished seeds of each run's mean evaluation return over the
last 10 % of the steps; a run not yet at N is partial, its window the last 10 % of the steps
it reached, and counts only while no seed of its arm has finished."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[4] / "machines" / "fixar" / "bench" / "fig7.py"


@pytest.fixture
def fig7(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("fig7_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setattr("sys.argv", ["fig7.py", "--kernel", "Haswell"])   # no pin()
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "RESULTS", tmp_path)
    return mod


def _curve(fig7, arm, seed, steps, returns, finished=True):
    c = {"arm": arm, "seed": seed, "steps": 100_000, "env": fig7.ENV, "finished": finished,
         "eval_steps": steps, "returns": returns, "steps_reached": steps[-1], "wall_s": 1.0,
         "cpu_s": 1.0}
    fig7._save_curve(c)


def test_final_mean_over_the_last_tenth_and_partial_runs(fig7):
    steps = list(range(5000, 100_001, 5000))
    _curve(fig7, "float32", 1, steps, [float(s) for s in steps])
    _curve(fig7, "float32", 2, steps, [2.0 * s for s in steps])
    _curve(fig7, "float32", 3, steps[:1], [-50.0], finished=False)
    _curve(fig7, "qat", 1, steps[:10], [float(s) for s in steps[:10]], finished=False)
    out = fig7.collect(100_000)
    assert out["steps"] == 100_000 and set(out["runs"]) == {"float32", "fixed32", "qat",
                                                             "fixed16"}
    f = out["runs"]["float32"]
    # evaluations at 90k, 95k, 100k: means 95,000 and 190,000
    assert f["seeds"] == [1, 2, 3] and f["final_mean"] == pytest.approx(142_500.0)
    assert f["final_mean_seeds"] == [1, 2] and f["partial"]     # seed 3 has just started
    q = out["runs"]["qat"]
    assert q["partial"] and q["steps_reached"] == {"1": 50_000}
    assert q["final_mean"] == pytest.approx(47_500.0)       # evaluations at 45k and 50k
    assert q["final_mean_seeds"] == [1]
    assert out["runs"]["fixed16"] == {**out["runs"]["fixed16"], "seeds": [],
                                      "final_mean": None, "partial": True}
    json.dumps(out)


def test_a_recorded_evaluation_replaces_its_step(fig7):
    c = {"arm": "fixed32", "seed": 3, "steps": 100_000, "eval_steps": [], "returns": [],
         "steps_reached": 0}
    fig7._record(c, 10_000, -5.0)
    fig7._record(c, 5_000, -1.0)
    fig7._record(c, 10_000, -5.0)
    assert c["eval_steps"] == [5_000, 10_000] and c["returns"] == [-1.0, -5.0]
    assert fig7._load_curve("fixed32", 3)["steps_reached"] == 10_000


def test_qat_against_fixed32_paired_by_seed_and_the_table(fig7):
    steps = list(range(5000, 100_001, 5000))
    base = [float(s) for s in steps]
    for seed, shift in ((1, -100.0), (2, -300.0)):
        _curve(fig7, "fixed32", seed, steps, base)
        # QAT is fixed32's run up to the delay (50k), then ``shift`` below it
        _curve(fig7, "qat", seed, steps, [r + (shift if s > 50_000 else 0.0)
                                          for s, r in zip(steps, base)])
    _curve(fig7, "float32", 1, steps, [2.0 * r for r in base])
    out = fig7.collect(100_000)
    d = out["qat_minus_fixed32"]
    assert d["after_delay"]["evaluations"] == [55_000, 60_000]      # the eighth after 50k
    assert d["after_delay"]["by_seed"] == {"1": -100.0, "2": -300.0}
    assert d["after_delay"]["mean"] == pytest.approx(-200.0)
    lo, hi = d["after_delay"]["interval"]
    t = 12.7062047                                   # Student's t, 95 %, one degree of freedom
    assert lo == pytest.approx(-200.0 - t * 100.0) and hi == pytest.approx(-200.0 + t * 100.0)
    assert d["final"]["evaluations"] == [90_000, 100_000]
    assert out["runs"]["fixed32"]["final_over_float32"] == pytest.approx(0.5)
    table = fig7.markdown(out)
    assert "| fixed32 | 1, 2 | 95,000.0 (95,000.0 to 95,000.0) | 95,000.0 / 95,000.0 | 0.50 |" \
        in table
    assert "paired by seed: -200.0 (95 %: -1,470.6 to 1,070.6); per seed 1: -100.0, 2: -300.0." \
        in table
    assert "| fixed16 | - | - |  | - | - |" in table


def test_a_run_another_process_holds_is_skipped(fig7, tmp_path, monkeypatch, capsys):
    from rlaccel.util.lock import exclusive
    ran = []
    monkeypatch.setattr(fig7, "CHECKPOINTS", tmp_path / "ck")
    monkeypatch.setattr(fig7, "FIG7_JSON", tmp_path / "fig7.json")
    monkeypatch.setattr(fig7, "FIGURE", tmp_path / "fig7")
    monkeypatch.setattr(fig7, "run_one", lambda arm, seed, *a: ran.append((arm, seed)))
    monkeypatch.setattr(fig7, "plot", lambda fig: [])
    args = fig7.argparse.Namespace(seeds=[1], arms=["float32", "qat"], steps=100_000,
                                   checkpoint_every=10, eval_every=5000, eval_episodes=10,
                                   start_steps=100)
    with exclusive(tmp_path / "ck" / "float32_s1.lock"):
        fig7.cmd_run(args)
    assert ran == [("qat", 1)]
    assert "float32 s1: running in another process; skipped" in capsys.readouterr().out
    assert (tmp_path / "fig7.md").exists() and (tmp_path / "fig7.json").exists()
