"""Running a sweep on the process pool: every point once, each the same numbers as its own
rlaccel run; --limit and --resume; batched seeds equal single runs; a failing run is kept
as a failed point; a metric the report lacks stops the sweep."""

import sqlite3

import pytest

from rlaccel.programs.runner import run
from rlaccel.sweep.driver import run_sweep
from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.store import open_existing

from tests.sweep.conftest import CARTPOLE, TINY


def _metrics(db):
    with open_existing(db) as st:
        return {r["idx"]: (r["status"], r["metrics"]) for r in st.rows()}


def test_every_point_once_with_its_own_runs_numbers(tmp_path, write_spec):
    db = tmp_path / "s.sqlite"
    s = run_sweep(write_spec(), db, workers=2, quiet=True)
    assert (s.ran, s.done, s.failed, s.unfinished, s.total) == (6, 6, 0, 0, 6)
    got = _metrics(db)
    for idx, dtype, seed in ((1, "float64", 2), (5, "q6.10", 3)):
        r = run(CARTPOLE, ["stop_on_success=false", "trials=1", "max_steps=30"], seed=seed,
                arch_overrides={"machine.dtype": dtype})
        assert got[idx] == ("done", {"balanced": sum(r["learning"]["steps_per_trial"]),
                                     "cycles": r["cycles"]})
    with open_existing(db) as st:
        row = st.rows()[5]
    assert row["arch"] == "adhdp[machine.dtype=q6.10]" and len(row["binary_sha256"]) == 64
    assert row["timing"]["wall_s"] > 0 and row["version"] and row["timing"]["worker"]


def test_limit_then_resume(tmp_path, write_spec):
    spec, db = write_spec(), tmp_path / "s.sqlite"
    s = run_sweep(spec, db, workers=1, limit=2, quiet=True)
    assert (s.ran, s.unfinished) == (2, 4)
    with pytest.raises(SweepError, match="already holds this sweep"):
        run_sweep(spec, db, workers=1, quiet=True)
    s = run_sweep(spec, db, workers=2, resume=True, quiet=True)
    assert (s.ran, s.unfinished) == (4, 0)
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT idx), SUM(status = 'done') "
                       "FROM points").fetchone() == (6, 6, 6)
    assert run_sweep(spec, db, resume=True, quiet=True).ran == 0


def test_batched_seeds_equal_single_runs(tmp_path, write_spec):
    spec = write_spec()
    run_sweep(spec, tmp_path / "one.sqlite", workers=2, batch=1, quiet=True)
    run_sweep(spec, tmp_path / "batch.sqlite", workers=2, batch=3, quiet=True)
    assert _metrics(tmp_path / "one.sqlite") == _metrics(tmp_path / "batch.sqlite")


def test_a_run_that_stops_on_an_error_is_a_failed_point(tmp_path, write_spec):
    text = TINY.replace('"arch.machine.dtype" = ["float64", "q6.10"]',
                        '"arch.machine.neuron_words" = [64, 8]').replace("[1, 3]", "[1, 2]")
    db = tmp_path / "s.sqlite"
    s = run_sweep(write_spec(text), db, workers=2, batch=2, quiet=True)
    assert (s.done, s.failed, s.unfinished) == (2, 2, 0)
    with open_existing(db) as st:
        rows = st.rows()
    assert [r["status"] for r in rows] == ["done", "done", "failed", "failed"]
    assert "does not fit" in rows[2]["error"] and rows[2]["metrics"] is None


def test_a_metric_the_report_lacks_stops_the_sweep(tmp_path, write_spec):
    text = TINY.replace('cycles = "cycles"', 'cycles = "cycle"')
    with pytest.raises(SweepError, match=r"\[metrics\]: metric 'cycles' = 'cycle': the report "
                                         r"has no key 'cycle' \(did you mean 'cycles'\?\)"):
        run_sweep(write_spec(text), tmp_path / "s.sqlite", workers=1, quiet=True)
    assert _metrics(tmp_path / "s.sqlite")[0] == ("pending", None)
