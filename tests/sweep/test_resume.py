"""A sweep killed part-way (SIGKILL to the sweep and its workers) resumes: the database ends
with every point exactly once and the same metrics as an uninterrupted sweep."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from rlaccel.sweep.driver import run_sweep
from rlaccel.sweep.store import open_existing

from tests.sweep.conftest import TINY

SPEC = (TINY.replace("max_steps = 30", "max_steps = 150").replace("trials = 1", "trials = 2")
        .replace("range = [1, 3]", "range = [1, 6]"))          # 12 points


def _done(db) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM points WHERE status = 'done'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _rows(db):
    with open_existing(db) as st:
        return [(r["idx"], r["key"], r["status"], r["metrics"]) for r in st.rows()]


def test_a_killed_sweep_resumes_with_every_point_once(tmp_path, write_spec):
    spec, db = write_spec(SPEC), tmp_path / "killed.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "rlaccel", "sweep", str(spec), "--db",
                             str(db), "--workers", "1", "-q"], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while _done(db) < 3:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the sweep made no progress in 240 s"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)          # the sweep and its worker, at once
        proc.wait()
    before = _rows(db)
    finished = sum(r[2] == "done" for r in before)
    assert 3 <= finished < 12, f"the kill came after {finished} of 12 points"

    s = run_sweep(spec, db, workers=2, resume=True, quiet=True)
    assert s.ran == 12 - finished and s.unfinished == 0
    after = _rows(db)
    assert len(after) == 12 and len({r[1] for r in after}) == 12
    assert all(r[2] == "done" for r in after)
    assert [r for r in after if r[0] in {b[0] for b in before if b[2] == "done"}] == \
        [b for b in before if b[2] == "done"]                 # finished points untouched

    whole = tmp_path / "whole.sqlite"
    run_sweep(spec, whole, workers=2, quiet=True)
    assert _rows(whole) == after
