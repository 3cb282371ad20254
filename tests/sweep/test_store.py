"""The sweep database: one row per point inserted once, results recorded once, a started
sweep continues only with resume, another sweep's database is refused."""

import json
import sqlite3

import pytest

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.spec import load_spec
from rlaccel.sweep.store import Store, open_existing

from tests.sweep.conftest import TINY


def _result(i, status="done", value=1):
    return {"index": i, "status": status, "metrics": {"balanced": value} if status == "done"
            else None, "error": None if status == "done" else "boom", "wall_s": 0.5,
            "arch": "adhdp", "version": "0.1.0", "binary_sha256": "ab" * 32, "worker": "h:1"}


def test_one_row_per_point_and_each_result_once(tmp_path, write_spec):
    spec = load_spec(write_spec())
    db = tmp_path / "s.sqlite"
    with Store.open(db, spec) as st:
        assert st.counts() == {"pending": 6, "running": 0, "done": 0, "failed": 0, "total": 6}
        assert st.unfinished() == [0, 1, 2, 3, 4, 5] and st.unfinished(limit=2) == [0, 1]
        st.record([_result(0, value=7), _result(2, "failed")])
        st.record([_result(0, value=99)])               # already finished: left as it is
        rows = st.rows()
        assert st.retry_failed() == 1 and st.unfinished() == [1, 2, 3, 4, 5]
    assert [r["status"] for r in rows] == ["done", "pending", "failed", "pending", "pending",
                                           "pending"]
    assert rows[0]["metrics"] == {"balanced": 7} and rows[2]["error"] == "boom"
    assert rows[4]["coords"] == {"arch.machine.dtype": "q6.10", "seed": 2}
    assert rows[4]["config"] == spec.points()[4].settings
    assert rows[0]["binary_sha256"] == "ab" * 32 and rows[0]["version"] == "0.1.0"
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM points").fetchone() == (6, 6)
    meta = dict(con.execute("SELECT key, value FROM meta"))
    assert meta["digest"] == spec.digest() and json.loads(meta["metrics"]) == spec.metrics_text


def test_a_started_sweep_needs_resume_and_another_sweep_is_refused(tmp_path, write_spec):
    spec = load_spec(write_spec())
    db = tmp_path / "s.sqlite"
    Store.open(db, spec).close()
    with Store.open(db, spec) as st:          # nothing finished yet: no need to resume
        st.record([_result(0)])
    with pytest.raises(SweepError, match=r"already holds this sweep \(1 of 6 points done, 0 "
                                         r"failed\): --resume runs the 5 unfinished ones"):
        Store.open(db, spec)
    with Store.open(db, spec, resume=True) as st:
        assert st.unfinished() == [1, 2, 3, 4, 5]
    other = load_spec(write_spec(TINY.replace("range = [1, 3]", "range = [1, 4]"), "o.toml"))
    with pytest.raises(SweepError, match=r"holds another sweep .* 6 points; this spec makes 8 "
                                         r"points\): give another --db"):
        Store.open(db, other, resume=True)
    changed = load_spec(write_spec(TINY.replace('cycles = "cycles"', 'cycles = "energy_pj"'),
                                   "m.toml"))
    with pytest.raises(SweepError, match=r"\[metrics\] changed since the sweep started"):
        Store.open(db, changed, resume=True)


def test_files_that_are_not_sweep_databases(tmp_path, write_spec):
    spec = load_spec(write_spec())
    junk = tmp_path / "junk.sqlite"
    junk.write_text("hello")
    with pytest.raises(SweepError, match="not a sweep database"):
        Store.open(junk, spec)
    with pytest.raises(SweepError, match="no such sweep database"):
        open_existing(tmp_path / "none.sqlite")
    with pytest.raises(SweepError, match="is a folder"):
        Store.open(tmp_path, spec)
    plain = tmp_path / "plain.sqlite"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(SweepError, match="no points table"):
        open_existing(plain)
