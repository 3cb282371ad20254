"""``rlaccel sweep`` and ``rlaccel sweep show``: exit 0 on success, 1 with a message on a
bad spec or database, 2 on a usage error; the table, the CSV and the figure."""

import csv
import io

import pytest

from rlaccel.cli import main

from tests.sweep.conftest import CARTPOLE, TINY

PLOT = TINY + """
[plot]
x = "arch.machine.dtype"
over = "seed"
y = "balanced"
normalize = {"arch.machine.dtype" = "float64"}
"""


def test_run_show_csv_and_plot(tmp_path, write_spec, capsys):
    spec, db = write_spec(PLOT), tmp_path / "s.sqlite"
    assert main(["sweep", str(spec), "--db", str(db), "--limit", "4", "--workers", "2"]) == 0
    out, err = capsys.readouterr()
    assert f"sweep: 4 points run on the process pool (2 workers)" in out
    assert f"{db}: 4 of 6 points finished" in out
    assert "sweep: [########################] 4/4 points (4 done, 0 failed" in err
    assert not (tmp_path / "s.png").exists()             # unfinished: no figure yet
    assert main(["sweep", str(spec), "--db", str(db), "--resume", "-q"]) == 0
    out = capsys.readouterr().out
    assert "| q6.10 |" in out and (tmp_path / "s.png").exists() and (tmp_path / "s.svg").exists()

    assert main(["sweep", "show", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("6 points: 6 done, 0 failed, 0 unfinished")
    assert out[1].startswith("points' wall time ") and " in all; finished from 20" in out[1]
    assert out[2].split() == ["#", "status", "arch.machine.dtype", "seed", "balanced",
                              "cycles", "wall", "s", "error"]
    assert out[8].split()[:4] == ["5", "done", "q6.10", "3"]

    assert main(["sweep", "show", str(db), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6 and rows[3]["arch.machine.dtype"] == "q6.10"
    assert rows[3]["arch"] == "adhdp[machine.dtype=q6.10]" and rows[3]["status"] == "done"
    assert int(rows[3]["cycles"]) > 0 and len(rows[3]["binary_sha256"]) == 64
    assert main(["sweep", "show", str(db), "--csv", str(tmp_path / "s.csv")]) == 0
    assert (tmp_path / "s.csv").read_text().count("\n") == 7

    assert main(["sweep", "show", str(db), "--plot", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again.png").exists() and (tmp_path / "again.md").exists()


@pytest.mark.parametrize("args, message", [
    (["sweep", "{spec}", "--db", "{tmp}/x.sqlite"], "axis 'bogus'"),
    (["sweep", "{tmp}/none.toml"], "none.toml"),
    (["sweep", "show", "{tmp}/none.sqlite"], "no such sweep database"),
])
def test_user_errors_exit_1(tmp_path, write_spec, capsys, args, message):
    spec = write_spec(TINY.replace("seed = {range", "bogus = [1]\nseed = {range"))
    argv = [a.format(spec=spec, tmp=tmp_path) for a in args]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("rlaccel sweep: error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["sweep"], "the following arguments are required: SPEC"),
    (["sweep", "show"], "show needs the database"),
    (["sweep", "show", "x.sqlite", "--workers", "2"], "show does not take --workers"),
    (["sweep", "s.toml", "--csv"], "--csv goes with `rlaccel sweep show DB`"),
    (["sweep", "s.toml", "--workers", "0"], "must be at least 1, not 0"),
    (["sweep", "s.toml", "extra"], "unexpected argument 'extra'"),
])
def test_usage_errors_exit_2(capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_outputs_onto_inputs_are_refused_before_anything_runs(tmp_path, write_spec, capsys):
    """The CSV onto the database, a figure named after --db onto the spec (a spec called
    pm.md with a [plot]), the database onto a manifest the spec names: refused, nothing
    changed (each replaced its input before, with exit 0)."""
    spec = write_spec(PLOT, name="pm.md")
    text = spec.read_text()
    assert main(["sweep", str(spec), "--db", str(tmp_path / "pm.sqlite"), "-q"]) == 1
    assert capsys.readouterr().err == (f"rlaccel sweep: error: {tmp_path}/pm.md: the figure "
                                       f"named after --db would overwrite the sweep spec; "
                                       f"choose another file\n")
    assert spec.read_text() == text and not (tmp_path / "pm.sqlite").exists()
    manifest = tmp_path / "m.toml"
    manifest.write_text(CARTPOLE.read_text())
    own = write_spec(TINY.replace(str(CARTPOLE), "m.toml"), name="own.toml")
    assert main(["sweep", str(own), "--db", str(manifest), "-q"]) == 1
    assert capsys.readouterr().err == (f"rlaccel sweep: error: {manifest}: --db would "
                                       f"overwrite the manifest; choose another file\n")
    assert manifest.read_text() == CARTPOLE.read_text()


def test_show_csv_onto_the_database_is_refused(tmp_path, capsys):
    from tests.sweep.test_store import _edit
    db = tmp_path / "s.sqlite"
    _edit(db, "CREATE TABLE t (x)")
    before = db.read_bytes()
    for target, what in ((db, "the database"), (f"{db}-wal", "the database's write-ahead log")):
        assert main(["sweep", "show", str(db), "--csv", str(target)]) == 1
        assert capsys.readouterr().err == (f"rlaccel sweep: error: {target}: --csv would "
                                           f"overwrite {what}; choose another file\n")
    assert db.read_bytes() == before


def test_limit_is_cheap_on_a_huge_spec(tmp_path, write_spec, capsys):
    """400 x 400 configurations: --limit 1 validates and runs one point at once (every
    point used to be built, and every configuration checked, first)."""
    import time
    text = TINY.replace('"arch.machine.dtype" = ["float64", "q6.10"]\nseed = {range = [1, 3]}',
                        '"learning.Ic" = {range = [1, 400]}\n"learning.Ia" = {range = [1, 400]}')
    spec = write_spec(text)
    t = time.perf_counter()
    assert main(["sweep", str(spec), "--db", str(tmp_path / "s.sqlite"), "--limit", "1",
                 "-q", "--workers", "1"]) == 0
    assert time.perf_counter() - t < 60
    assert f"{tmp_path / 's.sqlite'}: 1 of 160000 points finished" in capsys.readouterr().out
    import sqlite3
    count = "SELECT COUNT(*) FROM points"
    assert sqlite3.connect(tmp_path / "s.sqlite").execute(count).fetchone() == (1,)
    assert main(["sweep", str(spec), "--db", str(tmp_path / "s.sqlite"), "--limit", "2",
                 "--resume", "-q", "--workers", "1"]) == 0      # the next one inserted now
    assert f"2 of 160000 points finished" in capsys.readouterr().out
    assert sqlite3.connect(tmp_path / "s.sqlite").execute(count).fetchone() == (2,)
    assert main(["sweep", "show", str(tmp_path / "s.sqlite")]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "160000 points: 2 done, 0 failed, 159998 unfinished")


@pytest.mark.parametrize("address, message", [
    ("256.1.1.1:1", "--ray 256.1.1.1:1: nothing answers at 256.1.1.1:1 ("),
    ("127.0.0.1:1", "--ray 127.0.0.1:1: nothing answers at 127.0.0.1:1 (Connection refused); "
                    "is the cluster running (ray start --head)?"),
    ("ray://127.0.0.1", "--ray ray://127.0.0.1: nothing answers at 127.0.0.1:10001 "
                        "(Connection refused); is the cluster running (ray start --head)?"),
    ("host:port", "--ray host:port: 'port' is not a port (1 to 65535)"),
])
def test_a_ray_address_that_does_not_answer_fails_in_seconds(tmp_path, write_spec, capsys,
                                                             address, message):
    """ray.init retried an address for ever; the head is probed first (5 s at most) and
    the database is not created."""
    import time
    pytest.importorskip("ray")
    t = time.perf_counter()
    assert main(["sweep", str(write_spec()), "--db", str(tmp_path / "s.sqlite"),
                 "--ray", address, "-q"]) == 1
    assert time.perf_counter() - t < 20
    err = capsys.readouterr().err
    assert err.startswith(f"rlaccel sweep: error: {message}"), err
    assert not (tmp_path / "s.sqlite").exists()
