"""machines/learninggroup/bench/fig9.py: the 95 % intervals over seeds, the resume rule (a
finished run is skipped, a partial one is not) and the table, figure and JSON it keeps."""

import json
import math

import pytest


def _run(kind, G, seed, success, partial=False):
    r = {"kind": kind, "agents": 4, "groups": G, "batch": 16, "seed": seed,
         "success_all": success, "success_last_tenth": 2 * success, "iterations": 2000,
         "wall_s": 60.0, "curve": [{"iteration": 1, "episodes": 16, "steps": 320,
                                    "success_rate": success, "caught_rate": 0.5}]}
    if partial:
        r.update(partial=True, iterations=200, planned_iterations=2000)
    return r


def test_the_interval_is_students_t_over_the_seeds(fig9):
    row, = fig9.summary([_run("reference", 1, s, 0.1 * s) for s in (1, 2, 3)], 16, 2000)
    assert row["success_all"] == pytest.approx(0.2)
    assert row["ci95"] == pytest.approx(4.302652729911275 * 0.1 / math.sqrt(3))
    row, = fig9.summary([_run("reference", 1, 1, 0.25)], 16, 2000)
    assert (row["success_all"], row["ci95"]) == (0.25, None)


def test_partial_runs_are_neither_summarised_nor_finished(fig9, tmp_path):
    runs = [_run("reference", 1, s, 0.1 * s) for s in (1, 2, 3)] + \
        [_run("reference", 2, 1, 0.5, partial=True)]
    assert fig9.finished(runs) == {("reference", 4, 1, 16, s) for s in (1, 2, 3)}
    rows = fig9.summary(runs, 16, 2000)
    assert [(r["groups"], r["seeds"]) for r in rows] == [(1, [1, 2, 3])]
    assert rows[0]["success_all"] == pytest.approx(0.2)
    out = tmp_path / "fig9.json"
    fig9.write(out, runs, "cmd", 16, 2000)
    doc = json.loads(out.read_text())
    assert doc["summary"][0]["ci95"] > 0 and len(doc["runs"]) == 4
    md = (tmp_path / "fig9.md").read_text()
    assert "Partial: reference A = 4 G = 2 seed 1, 200 of 2000" in md
    assert (tmp_path / "fig9.png").stat().st_size > 0
    # the compacted runs come back as dicts
    back = [fig9.expand(r) for r in doc["runs"]]
    assert back[0]["curve"][0]["success_rate"] == pytest.approx(0.1)


def test_two_sweeps_keep_each_others_runs(fig9, tmp_path):
    out = tmp_path / "fig9.json"
    fig9.save(out, _run("reference", 1, 1, 0.1), "first", 16, 2000)
    # a second sweep started before the first run finished saves what it ran
    fig9.save(out, _run("reference", 2, 1, 0.2), "second", 16, 2000)
    fig9.save(out, _run("reference", 1, 1, 0.3), "first", 16, 2000)      # replaces its own
    runs = fig9.read(out)
    assert sorted((r["groups"], r["success_all"]) for r in runs) == [(1, 0.3), (2, 0.2)]


def test_a_run_another_sweep_holds_is_skipped(fig9, tmp_path, capsys, monkeypatch):
    ckpts, out = tmp_path / "ck", tmp_path / "fig9.json"
    monkeypatch.setattr(fig9, "one", lambda *a: pytest.fail("ran a locked run"))
    with fig9.exclusive(ckpts / "reference_A4_G8_s1.lock") as held:
        assert held
        assert fig9.main(["--kinds", "reference", "--agents", "4", "--groups", "8",
                          "--seeds", "1", "--json", str(out), "--checkpoints",
                          str(ckpts)]) == 0
    assert "reference A=4 G=8 seed 1: running in another process; skipped" in \
        capsys.readouterr().out
    with fig9.exclusive(ckpts / "reference_A4_G8_s1.lock", wait=False) as free:
        assert free                                   # released with the block
