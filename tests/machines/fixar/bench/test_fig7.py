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
