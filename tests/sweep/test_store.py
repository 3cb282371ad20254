"""The sweep database: one row per point inserted once, results recorded once, a started
sweep continues only with resume, another sweep's database is refused."""

import json
import sqlite3

import pytest

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.spec import load_spec
from rlaccel.sweep.store import Store, open_existing
from rlaccel.util.version import versions

from tests.adversarial.conftest import cli  # noqa: F401 - the fixture
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
    with pytest.raises(SweepError) as e:
        open_existing(plain)
    assert str(e.value) == (f"{plain}: not a sweep database (its tables: t; a sweep database "
                            f"has the tables meta and points)")


def _sweep_db(tmp_path, write_spec, name="s.sqlite"):
    """A finished two-point sweep's database (no run: the rows are written as a sweep
    writes them)."""
    spec = load_spec(write_spec(TINY.replace("[1, 3]", "[1, 2]")
                                .replace('["float64", "q6.10"]', '["float64"]')))
    db = tmp_path / name
    with Store.open(db, spec) as st:
        st.record([{"index": i, "status": "done", "metrics": {"balanced": 3, "cycles": 9},
                    "error": None, "wall_s": 0.5, "arch": "adhdp", "version": "0",
                    "binary_sha256": "x", "worker": "w"} for i in range(2)])
    return spec, db


def _edit(db, *sql):
    con = sqlite3.connect(db)
    for q in sql:
        con.execute(q)
    con.commit()
    con.close()


@pytest.mark.parametrize("sql, message", [
    (["UPDATE points SET coords = '{bad' WHERE idx = 1"],
     "the sweep database is damaged (point 1: coords is not JSON: '{bad')"),
    (["UPDATE points SET metrics = '[1, 2]' WHERE idx = 0"],
     "the sweep database is damaged (point 0: metrics is '[1, 2]', not a JSON object)"),
    (["UPDATE points SET timing = '{\"wall_s\": \"slow\"}' WHERE idx = 1"],
     "the sweep database is damaged (point 1: timing wall_s is 'slow', not a number)"),
    (["UPDATE points SET timing = '[]' WHERE idx = 1"],
     "the sweep database is damaged (point 1: timing is '[]', not a JSON object)"),
    (["UPDATE points SET config = 7 WHERE idx = 0"],
     "the sweep database is damaged (point 0: config is '7', not a JSON object)"),
    (["UPDATE points SET coords = x'7b7d' WHERE idx = 0"],
     "the sweep database is damaged (point 0: coords is b'{}', not JSON text)"),
    (["PRAGMA ignore_check_constraints = 1",
      "UPDATE points SET status = 'weird' WHERE idx = 1"],
     "the sweep database is damaged (point 1: status is 'weird', not one of pending, "
     "running, done, failed)"),
    (["UPDATE points SET error = x'00ff' WHERE idx = 0"],
     "the sweep database is damaged (point 0: error is b'\\x00\\xff', not text)"),
    (["UPDATE meta SET value = '{oops' WHERE key = 'axes'"],
     "the sweep database is damaged (meta axes is not a JSON list of names: '{oops')"),
    (["ALTER TABLE points DROP COLUMN version"],
     "not a sweep database (its points table lacks the column(s) version)"),
    (["ALTER TABLE points DROP COLUMN timing"],
     "not a sweep database (its points table lacks the column(s) wall_s, worker, "
     "finished_at)"),
    (["DELETE FROM meta WHERE key = 'digest'"],
     "not a sweep database (its meta table lacks digest)"),
    (["CREATE TABLE users (name)"],
     "not a sweep database (its tables: meta, points, users; a sweep database has the "
     "tables meta and points)"),
])
def test_sweep_show_refuses_a_damaged_database_by_name(tmp_path, write_spec, cli, sql,
                                                      message):
    """Each damage is refused with the database's name and what is wrong, never a
    traceback; the file is not changed and nothing appears beside it."""
    _, db = _sweep_db(tmp_path, write_spec)
    _edit(db, *sql)
    before = db.read_bytes()
    status, out, err = cli(["sweep", "show", str(db)])
    assert (status, err) == (1, f"rlaccel sweep: error: {db}: {message}\n")
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s.")) == \
        ["s.sqlite"]


def test_a_malformed_page_is_refused_by_show_and_resume(tmp_path, write_spec, cli):
    spec, db = _sweep_db(tmp_path, write_spec)
    blob = bytearray(db.read_bytes())
    blob[8192:8208] = b"\xab" * 16                   # the header of the points table's page
    db.write_bytes(bytes(blob))
    status, _, err = cli(["sweep", "show", str(db)])
    assert (status, err) == (1, f"rlaccel sweep: error: {db}: the sweep database is damaged "
                                f"(Page 3: btreeInitPage() returns error code 11)\n")
    with pytest.raises(SweepError) as e:
        Store.open(db, spec, resume=True)
    assert str(e.value) == (f"{db}: the sweep database is damaged (Page 3: btreeInitPage() "
                            f"returns error code 11); give another --db ({db} is left as it "
                            f"is)")
    assert db.read_bytes() == bytes(blob)


def test_resume_on_a_foreign_database_adds_nothing_to_it(tmp_path, write_spec):
    """--resume (or a new sweep) on another program's SQLite file is refused by name and
    the file is byte for byte the same: no tables added, its journal mode unchanged."""
    spec = load_spec(write_spec())
    db = tmp_path / "app.sqlite"
    _edit(db, "CREATE TABLE users (name TEXT)", "INSERT INTO users VALUES ('ada')")
    before = db.read_bytes()
    for resume in (True, False):
        with pytest.raises(SweepError) as e:
            Store.open(db, spec, resume=resume)
        assert str(e.value) == (f"{db}: not a sweep database (its tables: users; a sweep "
                                f"database has the tables meta and points); give another "
                                f"--db ({db} is left as it is)")
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("app")) == \
        ["app.sqlite"]


def test_a_finished_sweep_leaves_one_file(tmp_path, write_spec):
    """At rest the database is one file (rollback journal), so reading it adds none."""
    _, db = _sweep_db(tmp_path, write_spec)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s.")) == \
        ["s.sqlite"]
    with open_existing(db) as st:
        assert len(st.rows()) == 2
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s.")) == \
        ["s.sqlite"]


def test_two_sweeps_of_one_spec_hold_the_same_rows_outside_timing(tmp_path, write_spec):
    """What a computer measures (wall time, worker, when) is in each row's timing and the
    meta's: the rest is the same for the same results."""
    dbs = [_sweep_db(tmp_path, write_spec, f"{i}.sqlite")[1] for i in range(2)]
    got = []
    for db in dbs:
        with open_existing(db) as st:
            rows = st.rows()
            assert rows[0]["timing"]["wall_s"] == 0.5 and rows[0]["timing"]["finished_at"]
            for r in rows:
                r.pop("timing")
            meta = st.meta()
            assert "created_at" in json.loads(meta.pop("timing"))
            assert json.loads(meta["versions"]) == versions()
            got.append((rows, meta))
    assert got[0] == got[1]


def test_a_database_of_rlaccel_0_is_read_and_resumed(tmp_path, write_spec):
    """Before the timing column, wall_s, worker and finished_at were columns of their own:
    such a database is shown and resumed as it is."""
    spec = load_spec(write_spec(TINY.replace("[1, 3]", "[1, 2]")
                                .replace('["float64", "q6.10"]', '["float64"]')))
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE points (idx INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, coords TEXT NOT NULL,
    config TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', metrics TEXT, error TEXT,
    wall_s REAL, arch TEXT, version TEXT, binary_sha256 TEXT, worker TEXT, finished_at TEXT);
""")
    con.executemany("INSERT INTO points (idx, key, coords, config) VALUES (?, ?, ?, ?)",
                    [(p.index, p.key, json.dumps(p.coords), json.dumps(p.settings))
                     for p in spec.points()])
    con.executemany("INSERT INTO meta VALUES (?, ?)",
                    [("spec_path", str(spec.path)), ("spec_text", spec.text),
                     ("digest", spec.points_digest()),
                     ("metrics", json.dumps(spec.metrics_text)),
                     ("axes", json.dumps([a.name for a in spec.axes]))])
    con.commit()
    con.close()
    with Store.open(db, spec, resume=True) as st:
        st.record([_result(0)])
    with open_existing(db) as st:
        rows = st.rows()
    assert rows[0]["status"] == "done" and rows[0]["timing"]["wall_s"] == 0.5
    assert rows[0]["timing"]["worker"] == "h:1" and rows[1]["timing"]["wall_s"] is None


def test_a_refused_resume_leaves_the_database_as_it_was(tmp_path, write_spec):
    """A database of another sweep, or a finished one given without --resume, is judged
    read only: refused, its bytes and journal mode unchanged, nothing beside it."""
    spec, db = _sweep_db(tmp_path, write_spec)
    other = load_spec(write_spec(TINY, name="other.toml"))
    before = db.read_bytes()
    with pytest.raises(SweepError, match=r"holds another sweep"):
        Store.open(db, other, resume=True)
    with pytest.raises(SweepError, match=r"already holds this sweep \(2 of 2 points done"):
        Store.open(db, spec)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s.")) == \
        ["s.sqlite"]
