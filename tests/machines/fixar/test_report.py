"""rlaccel report fixar's progress: a line for every point on stdout and, on a terminal, a
bar of the points done on stderr; no bar with ``-q``; the same report either way."""

from __future__ import annotations

import io
import json
import re
import sys

from rlaccel.cli import main
from rlaccel.util import progress as progress_module


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _report(tmp_path, monkeypatch, capsys, name, *extra):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    out = tmp_path / name
    assert main(["report", "fixar", "-o", str(out), "--batches", "1", "--train-steps", "1",
                 *extra]) == 0
    doc = json.loads((out / "report.json").read_text())
    del doc["timing"]                       # this host's measured time
    return doc, capsys.readouterr().out, term.getvalue()


def test_the_bar_counts_the_points_and_changes_nothing(tmp_path, monkeypatch, capsys):
    shown, out, err = _report(tmp_path, monkeypatch, capsys, "bar")
    assert re.search(r"fixar report: .*\d/2 \[\d\d:\d\d<", err) and "points/s" in err
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["32-bit B=1", "16-bit B=1"]
    assert lines[2].startswith("wrote ") and len(lines) == 3
    quiet, out_q, err_q = _report(tmp_path, monkeypatch, capsys, "quiet", "-q")
    assert err_q == ""
    assert quiet == shown
    # the lines but for this host's system IPS and the folder's name
    assert [re.sub(r"system .*", "", x) for x in out_q.splitlines()[:2]] == \
        [re.sub(r"system .*", "", x) for x in lines[:2]]
