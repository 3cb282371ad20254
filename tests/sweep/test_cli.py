"""``rlaccel sweep`` and ``rlaccel sweep show``: exit 0 on success, 1 with a message on a
bad spec or database, 2 on a usage error; the table, the CSV and the figure."""

import csv
import io

import pytest

from rlaccel.cli import main

from tests.sweep.conftest import TINY

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
