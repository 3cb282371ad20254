"""machines/darl/bench/seeds.py's arithmetic: the moving window, the 95 % interval, the seed
lists, and the summary of run files (a run that stopped at its target counts at the target
at later stages)."""

from __future__ import annotations

import importlib.util
import json

import pytest
from rlaccel.isa.machine import machine

_spec = importlib.util.spec_from_file_location("darl_seeds",
                                               machine("darl").path / "bench" / "seeds.py")
_seeds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_seeds)
interval95, seeds_list, summarize, window_means = (_seeds.interval95, _seeds.seeds_list,
                                                   _seeds.summarize, _seeds.window_means)


def test_window_means_start_at_a_full_window():
    assert window_means([1, 2, 3, 4], 2) == [None, 1.5, 2.5, 3.5]


def test_interval95_is_students_t():
    x = interval95([1.0, 2.0, 3.0])
    assert x["mean"] == 2.0 and x["n"] == 3
    assert x["hi"] - 2.0 == pytest.approx(4.3026527 * 1.0 / 3 ** 0.5)
    assert interval95([5.0])["lo"] is None and interval95([]) is None


def test_seeds_list():
    assert seeds_list("1-3,7") == [1, 2, 3, 7]


def test_summary_counts_reached_runs_at_the_target(tmp_path):
    for seed, returns, reached in ((1, [500.0] * 30, 30), (2, [100.0] * 40, None)):
        (tmp_path / f"cartpole_qhd_a1_s{seed}.json").write_text(json.dumps({
            "task": "cartpole", "form": "qhd", "agents": 1, "seed": seed, "window": 10,
            "target": 500.0, "finished": True, "stages": len(returns), "env_steps": 10,
            "first_stage_window_at_target": reached, "best_window_mean": max(returns),
            "wall_s": 1.0, "cpu_s": 1.0, "returns": returns, "saturations": 0}))
    g = summarize(tmp_path)["cartpole/qhd/1"]
    assert g["reached"] == 1 and g["median_stages_to_target"] == 30
    assert g["window_mean_at_stage"]["25"]["mean"] == 300.0
    assert g["window_mean_at_stage"]["50"]["mean"] == 500.0     # seed 2 ran 40 stages only
    assert g["window_mean_at_stage"]["50"]["n"] == 1
