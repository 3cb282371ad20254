"""rlaccel report darl's pieces: the time to target of a learning run, medians, the Markdown
from a report's numbers (no simulation), and its progress (Fig. 10(a)'s short runs)."""

from __future__ import annotations

import io
import re

from rlaccel.machines.darl.report import (FIG10A_CASES, Runs, _median, fig10a, markdown,
                                          runs_total, system_to_target)
from rlaccel.util.progress import ProgressBar


def _run(**kw):
    r = {"task": "cartpole", "agents": 1, "seed": 1, "stages": 3, "env_steps": 300,
         "first_stage_at_target": 3, "first_stage_any_agent_at_target": 3,
         "episodes_to_target": 3, "returns": [10.0, 20.0, 500.0], "wall_s": 5.0,
         "budget": False, "ips": {"quiet_host": 30000.0}}
    r.update(kw)
    return r


def test_time_to_target_is_the_steps_over_the_quiet_ips():
    assert system_to_target(_run()) == 300 / 30000.0
    assert system_to_target(_run(first_stage_at_target=None)) is None


def test_median():
    assert _median([3.0, None, 1.0, 2.0]) == 2.0
    assert _median([4.0, 1.0]) == 2.5
    assert _median([None]) is None


def test_markdown_names_the_paper_beside_ours():
    rep = {"args": {"stages": 5},
           "table1": {"cartpole/8": {"task": "cartpole", "agents": 8, "latency_cycles": 546.0,
                                     "latency_inference_cycles": 276.0, "formula": 546,
                                     "paper": 547, "residual": (546 - 547) / 547,
                                     "allreduce_cycles": 129,
                                     "allreduce_iteration_cycles": 129.0}},
           "fig10a": {"none": {"1": 417.0, "8": 546.0}, "codebook": {"1": 451.0, "8": 580.0}},
           "fig11": {"cartpole/1": {"task": "cartpole", "agents": 1, "ips": 31817.0,
                                    "latency_cycles": 417.0, "watts": 6.96,
                                    "ips_per_w": 4571.0,
                                    "eq23": {"training_frequency": 0.9,
                                             "us_per_step": {"train": 20.0, "infer": 1.4,
                                                             "env": 6.4, "transfers": 4.2}}}},
           "table2": {"1": {"cartpole": 31817.0, "lunarlander": 12530.0,
                            "ips_mean": 22173.5, "paper_ips_mean": 36597.1,
                            "error": 22173.5 / 36597.1 - 1}},
           "learning": {"files": ["x.json"], "runs": [_run(), _run(seed=2, budget=True,
                                                             first_stage_at_target=None)]},
           "cpu": {"runs": [{"seed": 1, "stages_to_target": 76, "wall_to_target_s": 9.0,
                             "cpu_to_target_s": 2.0}]}}
    md = markdown(rep)
    assert "| CartPole | 8 | 546 | 547 | -0.2 % | 276 | 129 |" in md
    assert "| CartPole | 1 | 417 | 31,817 | 0.90 | 6.96 | 4,571 |" in md
    assert "| 1 | 31,817 | 12,530 | 22,174 | 36,597.1 | -39.4 % |" in md
    assert "| CartPole | 1 | 20.0 | 1.4 | 6.4 | 4.2 | 0.90 | - |" in md     # the causes
    assert "the paper's L" in md and "Seed" not in md and "seed's" not in md
    assert "| none | 417 | 546 |" in md and "| codebook | 451 | 580 |" in md and "31,817" in md
    rep["fig10a"] = {"none": 417.0}                       # an older report: one agent only
    assert "| none | 417 |" in markdown(rep)
    assert "5 (budget)" in md
    assert "speed-up 200x" in md          # 2.0 s CPU / (300 / 30000) s


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_report_counts_every_run():
    """Table 1 (two tasks, 1 and 8 agents), Fig. 10(a) (five cases, 1 and 8 agents),
    Fig. 11 (two tasks, 1, 2, 4, 8 agents) and the CPU baseline's seeds."""
    assert runs_total([1, 2, 3]) == 4 + 10 + 8 + 3
    assert runs_total([]) == runs_total(None) == 22


def test_the_runs_draw_a_bar_and_a_line_each():
    """Fig. 10(a) on one agent: the runner meters each run, and each finished run is a line
    with the figure it found."""
    term = _Terminal()
    with ProgressBar("darl report", stream=term, delay=0) as bar:
        runs = Runs(bar, len(FIG10A_CASES))
        f10 = fig10a(1, agents=(1,), runs=runs)
    assert runs.count == len(FIG10A_CASES) == len(f10)
    text = term.getvalue()
    assert re.search(r"darl report: .*5/5 \[\d\d:\d\d<", text) and "runs/s" in text
    for name, v in f10.items():
        assert f"Fig. 10(a): CartPole, 1 agent(s), {name} switched off: {v['1']:,.0f} " \
               f"cycles, " in text
    quiet = _Terminal()
    with ProgressBar("darl report", stream=quiet, quiet=True, delay=0) as bar:
        runs = Runs(bar, 1)
        assert runs.meter is None
        runs.done("Table 1: CartPole, 1 agent(s): 417 cycles")
    assert quiet.getvalue() == "" and runs.count == 1
