"""rlaccel report maddpg's progress: its lines on stdout and, on a terminal, a bar of the
runs done (the simulations and the CPU baseline's two halves) on stderr; no bar with ``-q``;
the same simulated figures either way."""

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


def test_the_bar_counts_the_runs_and_changes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    sims, outs = [], []
    for extra in ([], ["-q"]):
        term = _Terminal()
        monkeypatch.setattr(sys, "stderr", term)
        out = tmp_path / f"rep{len(sims)}"
        assert main(["report", "maddpg", "-o", str(out), "--envs", "simple_speaker_listener_v4",
                     "--batches", "16", "32", "--rounds", "2", "--baseline-rounds", "2",
                     "--steps", "40", "--set", "learning.hidden=[8,8]", *extra]) == 0
        doc = json.loads((out / "report.json").read_text())
        sims.append(doc["envs"]["simple_speaker_listener_v4"]["simulated"])
        # the lines but for the times measured on this host
        outs.append([re.sub(r"[\d.]+", "N", line)
                     for line in capsys.readouterr().out.splitlines()[:4]])
        err = term.getvalue()
        if extra:
            assert err == ""
        else:       # two batch sizes and the baseline's two halves
            assert re.search(r"maddpg report: .*\d/4 \[\d\d:\d\d<", err) and "runs/s" in err
    assert sims[0] == sims[1]
    assert outs[0] == outs[1] == ["Cooperative Communication: CPU baseline N",
                                  "  batch N: accelerator N ms per round",
                                  "  batch N: accelerator N ms per round",
                                  "  CPU N, N ms per round"]
