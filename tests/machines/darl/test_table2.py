"""Table 2 the way the DARL paper reports it (machines/darl/table2.py): eq. 23-25 of a run
under the one host reading, and the mean of the two tasks per agent count."""

from __future__ import annotations

import pytest

from rlaccel.machines.darl.table2 import PAPER, eq23, table2
from rlaccel.programs.runner import run


def test_eq23_is_the_runs_own_ips_under_the_one_host_reading():
    r = run("machines/darl/programs/cartpole.toml", ["stages=2", "stop_at_target=false"])
    e = eq23(r, batch=8, clock_mhz=171.0)
    assert e["ips"] == pytest.approx(r["ips"]["quiet_host_parallel_envs"], rel=1e-12)
    lr = r["learning"]
    assert e["training_frequency"] == pytest.approx(sum(lr["greedy"]) / sum(lr["batches"]))
    assert 0 < e["training_frequency"] <= 1          # one batch a step, greedy steps only
    assert e["ips"] < e["bound_train_only"] == pytest.approx(171e6 / (8 * r["latency_cycles"]))


def test_table2_is_the_mean_of_the_two_tasks():
    rows = {"cartpole/1": {"ips": 30000.0}, "lunarlander/1": {"ips": 10000.0},
            "cartpole/8": {"ips": 200000.0}, "lunarlander/8": {"ips": 70000.0}}
    t = table2(rows)
    assert t["1"]["ips_mean"] == 20000.0 and t["8"]["ips_mean"] == 135000.0
    assert t["8"]["paper_lunarlander"] == PAPER["8"]["lunarlander"] == 191787.4
    assert t["1"]["error"] == pytest.approx(20000.0 / 36597.1 - 1)
    assert "quiet host" in t["host"]


def test_the_training_frequency_that_gives_an_ips_inverts_eq_23():
    from rlaccel.machines.darl.table2 import needed_training_frequency
    row = {"agents": 8, "batch": 16, "us_per_training_iteration": 4.0, "greedy_share": 0.5,
           "us_per_step": {"infer": 1.0, "env": 30.0, "transfers": 9.0}}
    # 8 / ips = 40 us of host time + (0.5 / f) 16 x 4 us of training
    f = needed_training_frequency(row, 8 / 72e-6)
    assert f == pytest.approx(0.5 * 64 / 32)
    assert needed_training_frequency(row, 8 / 39e-6) is None
