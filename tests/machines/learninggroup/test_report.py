"""rlaccel report learninggroup: the paper's figures as Markdown, JSON and plots, with the
interface other checks rely on (report.json's ``osel`` keyed by G)."""

from __future__ import annotations

import io
import json
import re
import sys

from rlaccel.cli import main
from rlaccel.util import progress as progress_module


def _learning(tmp_path):
    """A learning-bench JSON of two runs (the shape machines/learninggroup/bench/learning.py writes)."""
    curve = [{"iteration": 1, "episodes": 4, "steps": 60, "success_rate": 0.25,
              "caught_rate": 0.5}]
    common = {"agents": 4, "batch": 4, "seed": 1, "success_all": 0.25,
              "success_last_tenth": 0.25, "caught_all": 0.5, "steps": 60, "iterations": 1,
              "curve": curve, "wall_s": 60.0}
    runs = [{"kind": "machine", "groups": 2, **common,
             "table1": {"lstm_ih": {"row_max": 40.0, "threshold_max": 50.0}}},
            {"kind": "reference", "groups": 2, **common}]
    p = tmp_path / "learning.json"
    p.write_text(json.dumps({"runs": runs}))
    return p


def test_the_report_writes_the_papers_figures(tmp_path, capsys):
    out = tmp_path / "rep"
    status = main(["report", "learninggroup", "-o", str(out), "--draws", "1", "--agents", "3",
                   "--batches", "1", "--groups", "1", "2", "16", "--rows-per-pass", "4",
                   "--episodes", "1", "--share-batch", "1", "--share-batches", "--fig10-groups", "2", "32",
                   "--learning",
                   str(_learning(tmp_path))])
    assert status == 0
    rep = json.loads((out / "report.json").read_text())
    assert set(rep["osel"]) == {"2", "32"}
    for G, row in rep["osel"].items():
        assert {"baseline_cycles", "osel_cycles", "baseline_bytes", "osel_bytes"} <= set(row)
        assert row["osel_cycles"] < row["baseline_cycles"]
        assert row["osel_bytes"] < row["baseline_bytes"] < row["dense_bytes"]
        c = row["osel"]["cycles"]
        assert c["total"] == c["max_index"] + c["index_miss"] + c["index_hit"] + \
            c["weight_compression"]
        assert row["baseline"]["cycles"]["index_hit"] == 0        # the baseline never hits
        # the mask baseline: OSEL's MaxIndex, a compact tuple (3 cycles) for every row, and
        # every row's 512 bits scanned at 32 weights a cycle
        assert row["baseline_scan_cycles"] == row["osel"]["cycles"]["max_index"] + \
            128 * 3 + 128 * 16
    # G = 32 runs on the 5-bit max index variant: 640 cycles of MaxIndex (128x32 + 32x512
    # grouping words, 32 per cycle)
    assert rep["osel"]["32"]["osel"]["cycles"]["max_index"] == 640
    assert rep["throughput"]["speedup"]["4"]["2"]["inference"] > 1
    # the measured figures at the top, each from this run's own points
    assert rep["osel_speedup"] == max(r["scan_speedup"] for r in rep["osel"].values())
    g = rep["throughput"]["groups"]["4"]
    assert rep["sparse_utilization"] == (g["2"]["vpu_matrix"] + g["16"]["vpu_matrix"]) / 2
    assert rep["sparse_generation_share"] == \
        (g["2"]["grouping_share"] + g["16"]["grouping_share"]) / 2
    assert 0 < rep["sparse_generation_share"] < 1 and 0 < rep["sparse_utilization"] <= 1
    s16 = rep["throughput"]["speedup"]["4"]["16"]
    assert rep["speedup_inference"] == s16["inference_matrix"] > 1
    assert rep["speedup_training"] == s16["training"] > 1
    names = {h["figure"] for h in rep["headline"]}
    assert "Fig. 10(a) OSEL cycle speed-up (max over G)" in names
    md = (out / "report.md").read_text()
    for title in ("## Fig. 10(a)", "## Fig. 10(b)", "## Fig. 11", "## Fig. 13", "## Table I",
                  "## Fig. 9", "| machine A=4 | 2 | 25.0% |", "| 86.03 / 47.44 |", "## Fig. 12(b)", "| `osel_speedup` | 5.72 |"):
        assert title in md, title
    assert "50.0 / 40.0" in md                                   # Table I from the training run
    for fig in ("fig10a_cycles", "fig10b_memory", "fig11_throughput", "fig11_groups",
                "fig13_speedup", "fig9_accuracy"):
        assert (out / f"{fig}.png").stat().st_size > 0 and (out / f"{fig}.svg").exists()


def test_fig9_keeps_one_row_per_budget(tmp_path):
    """A kind and A trained at two budgets (the machine's 1000 x 4 beside a longer float
    reference) are two rows, not one overwriting the other; a run stopped early counts
    at its planned budget."""
    from rlaccel.machines.learninggroup.report import learning_tables
    curve = [{"iteration": 1, "episodes": 4, "steps": 60, "success_rate": 0.25,
              "caught_rate": 0.5}]
    common = {"agents": 4, "groups": 1, "seed": 1, "success_last_tenth": 0.25,
              "caught_all": 0.5, "steps": 60, "curve": curve, "wall_s": 60.0}
    runs = [{"kind": "machine", "iterations": 1000, "batch": 4, "success_all": 0.04,
             **common},
            {"kind": "reference", "iterations": 1000, "batch": 4, "success_all": 0.03,
             **common},
            {"kind": "reference", "iterations": 2000, "batch": 16, "success_all": 0.26,
             **common},
            {"kind": "reference", "iterations": 300, "planned_iterations": 2000, "batch": 16,
             "partial": True, "success_all": 0.05, **common, "groups": 4}]
    p = tmp_path / "learning.json"
    p.write_text(json.dumps({"runs": runs}))
    fig9 = learning_tables([str(p)])["fig9"]
    assert set(fig9) == {"machine A=4", "reference A=4, 1000 x 4", "reference A=4, 2000 x 16"}
    assert fig9["reference A=4, 1000 x 4"][1]["success_all"] == 0.03
    assert fig9["reference A=4, 2000 x 16"][1]["success_all"] == 0.26
    assert fig9["reference A=4, 2000 x 16"][4]["partial"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


#: the smallest report: one G of Fig. 10, four iterations and one more for Fig. 12(b) at B = 2
_SMALL = ["--draws", "1", "--agents", "3", "--batches", "1", "--groups", "1", "2",
          "--rows-per-pass", "4", "--stream-rows", "--episodes", "1", "--share-batch", "1",
          "--share-batches", "2", "--fig10-groups", "2"]


def test_the_meter_counts_every_run_and_iteration():
    """Fig. 10's runs (2 encoders x 1 draw) and then the iterations (A, B, two G, and G = 2
    at B = 2: B = 1's grouped point is the G sweep's own), each to its total."""
    from rlaccel.machines.learninggroup.report import build
    at, lines = [], []
    build(draws=1, agents=(3,), batches=(1,), groups=(1, 2), rows_per_pass=(4,),
          stream_rows=(), episodes=1, share_batch=1, share_batches=(2,), fig10_groups=(2,),
          progress=lines.append, meter=lambda *a: at.append(a))
    runs = [a for a in at if a[2] == "runs"]
    its = [a for a in at if a[2] == "iterations"]
    assert runs[0] == (0, 2, "runs") and runs[-1] == (2, 2, "runs")
    assert its[0] == (0, 5, "iterations") and its[-1] == (5, 5, "iterations")
    assert at == runs + its and [d for d, _, _ in its] == sorted(d for d, _, _ in its)
    assert lines[1].startswith("  G = 2: OSEL ") and lines[-1].startswith("  G = 2, B = 2: ")
    assert len(lines) == 2 + 1 + 5


def test_the_bar_on_a_terminal_and_nothing_with_quiet(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    docs = []
    for extra in ([], ["-q"]):
        term = _Terminal()
        monkeypatch.setattr(sys, "stderr", term)
        out = tmp_path / f"rep{len(docs)}"
        assert main(["report", "learninggroup", "-o", str(out), *_SMALL, *extra]) == 0
        doc = json.loads((out / "report.json").read_text())
        del doc["timing"]                                   # wall clocks
        docs.append(doc)
        assert capsys.readouterr().out.startswith(f"wrote {out / 'report.md'}, ")
        err = term.getvalue()
        if extra:
            assert err == ""
        else:
            assert re.search(r"learninggroup report: .*\d/5 \[\d\d:\d\d<", err)
            assert "iterations/s" in err and "  G = 2, B = 2: " in err
    assert docs[0] == docs[1]
