"""``rlaccel report darl``: the DARL paper's Table 1, Fig. 8, Fig. 10(a) and Fig. 11 on the simulator.

* Table 1: the on-chip cycles of one training iteration (and of an inference) for CartPole
  and LunarLander on one and eight agents, simulated (a short run of each manifest), next to
  the paper's 417 / 421 / 547 / 624; with eight agents the iteration ends with the butterfly
  all-reduce of the shard, whose simulated cycles are given apart;
* Fig. 10(a): CartPole's iteration with each optimisation switched off, one and eight agents;
* Fig. 11 and Table 2: IPS by eq. 23-25 and IPS/W against the number of agents (1, 2, 4, 8)
  for both tasks, from short simulated runs (``--stages``), under one host reading
  (:data:`~.table2.HOST`), and Table 2's mean of the two tasks for 1 and 8 agents
  (``report.json``'s ``table2``: ``{"1": {"ips_mean": ...}, "8": {...}}``);
* Fig. 8: reward over stages, 1 vs 8 agents, and the stages / episodes / time to the target,
  from ``machines/darl/bench/learning.py``'s JSON files (``--learning``), which hold full runs (too
  long for a report command); the CPU baseline's time to target (the float64 reference,
  ``--cpu-seeds`` CartPole runs here) next to the paper's 19.41 s.

Writes ``DIR/report.md``, ``DIR/report.json`` and PNG/SVG plots; a line for every run as it
finishes and, on a terminal, a bar of the runs done (none with ``-q``).
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

__all__ = ["add_arguments", "cmd_report"]

ROOT = Path(__file__).parent / "programs"
MANIFESTS = {"cartpole": ROOT / "cartpole.toml", "lunarlander": ROOT / "lunarlander.toml"}
NAMES = {"cartpole": "CartPole", "lunarlander": "LunarLander"}
#: the paper's headline figures (Table 1, Table 2, Fig. 11, section 6.4)
PAPER = {"ips": {1: 36597.1, 8: 187972.9}, "ips_per_w": {1: 5256.3, 8: 11053.7},
        "ips_task_8": {"cartpole": 184158.5, "lunarlander": 191787.4},
        "cpu_to_target_s": {"cartpole": 19.41, "lunarlander": 1568.3}}
#: the agents of Table 1's runs, Fig. 10(a)'s and Fig. 11's (each on every task of Table 1
#: and Fig. 11, CartPole only for Fig. 10(a))
TABLE1_AGENTS, FIG10A_AGENTS, FIG11_AGENTS = (1, 8), (1, 8), (1, 2, 4, 8)
#: Fig. 10(a)'s cases: the optimisations each switches off
FIG10A_CASES = {"none": {}, **{off: {f"hdc.{off}": False}
                               for off in ("codebook", "chunking", "delayed_update")},
                "all": {"hdc.codebook": False, "hdc.chunking": False,
                        "hdc.delayed_update": False}}


def add_arguments(parser) -> None:
    from rlaccel.util.args import file_name, int_in, seed
    parser.add_argument("-o", "--output", metavar="DIR", type=file_name,
                        default="out/report_darl", help="output folder")
    parser.add_argument("--stages", type=int_in(1, 100_000), default=5, metavar="S",
                        help="stages of each short run for Fig. 11 (default 5)")
    parser.add_argument("--learning", nargs="*", default=None, metavar="JSON",
                        help="machines/darl/bench/learning.py outputs for Fig. 8 (default: "
                             "out/darl_learning_*.json)")
    parser.add_argument("--cpu-seeds", nargs="*", type=seed, default=[1, 2, 3], metavar="S",
                        help="CartPole seeds of the CPU baseline to the target (default 1 2 3;"
                             " none to skip)")
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument("--reuse", action="store_true",
                        help="take Table 1, Fig. 10(a), Fig. 11 and the CPU baseline from "
                             "DIR/report.json and only re-read the learning files")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines or bar")


class Runs:
    """The report's runs done of ``total`` on a :class:`~rlaccel.util.progress.ProgressBar`:
    ``meter`` for the runner (the bar's clock goes on while a run works; None when no bar is
    drawn) and :meth:`done` after each run, with its line and seconds."""

    def __init__(self, bar, total: int):
        self.bar, self.total, self.count = bar, total, 0
        self.meter = self._tick if bar.shown else None
        self._since = time.perf_counter()
        self._tick()

    def _tick(self, *_) -> None:
        self.bar.position(self.count, self.total, "runs")

    def done(self, line: str) -> None:
        self.count += 1
        self._tick()
        now = time.perf_counter()
        self.bar.line(f"{line}, {now - self._since:.1f} s")
        self._since = now


def runs_total(cpu_seeds) -> int:
    """The runs of a report (not reused): Table 1, Fig. 10(a), Fig. 11, the CPU baseline."""
    return (len(MANIFESTS) * (len(TABLE1_AGENTS) + len(FIG11_AGENTS))
            + len(FIG10A_CASES) * len(FIG10A_AGENTS) + len(cpu_seeds or ()))


def _run(task, overrides, seed, arch_overrides=None, runs: Runs | None = None):
    """A run's report, with its measured figures where they were computed."""
    from rlaccel.programs.runner import run
    from rlaccel.tlm.results import with_timing
    return with_timing(run(MANIFESTS[task], ["stop_at_target=false", *overrides], seed=seed,
                           arch_overrides=arch_overrides, meter=runs and runs.meter))


def _table(header, rows) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def _num(x, fmt="{:,.0f}"):
    return "-" if x is None else fmt.format(x)


def table1(seed: int, runs: Runs | None = None) -> dict:
    from rlaccel.machines.darl.tlm import TABLE1
    out = {}
    for task in MANIFESTS:
        for agents in TABLE1_AGENTS:
            r = _run(task, [f"agents={agents}", "stages=1"], seed, runs=runs)
            paper_L = TABLE1[(NAMES[task], agents)]
            if runs:
                runs.done(f"Table 1: {NAMES[task]}, {agents} agent(s): "
                          f"{r['latency_cycles']:,.0f} cycles an iteration (the paper's "
                          f"{paper_L})")
            out[f"{task}/{agents}"] = {
                "task": task, "agents": agents, "latency_cycles": r["latency_cycles"],
                "latency_inference_cycles": r["latency_inference_cycles"],
                "formula": r["latency_formula"]["train"], "paper": paper_L,
                "residual": (r["latency_cycles"] - paper_L) / paper_L,
                "allreduce_cycles": r["allreduce"]["formula_cycles"],
                "allreduce_iteration_cycles": r["allreduce"].get("iteration_cycles"),
                "iteration_without_allreduce": r.get("latency_iteration_cycles"),
                "allreduce_words": r["allreduce"]["words"],
                "unit_utilisation_kernel": r["unit_utilisation_kernel"],
            }
    return out


def fig10a(seed: int, agents=FIG10A_AGENTS, runs: Runs | None = None) -> dict:
    """CartPole's simulated training iteration with each optimisation off: ``{switch: {agents:
    cycles}}``."""
    def cycles(name, sets, n):
        c = _run("cartpole", [f"agents={n}", "stages=1"], seed, sets or None,
                 runs)["latency_cycles"]
        if runs:
            runs.done(f"Fig. 10(a): CartPole, {n} agent(s), {name} switched off: {c:,.0f} "
                      f"cycles")
        return c
    return {name: {str(n): cycles(name, sets, n) for n in agents}
            for name, sets in FIG10A_CASES.items()}


def fig11(stages: int, seed: int, runs: Runs | None = None) -> dict:
    """IPS (eq. 23-25 under :data:`~.table2.HOST`, the one host reading) and IPS/W for 1, 2,
    4 and 8 agents on both tasks, from short simulated runs."""
    from rlaccel.machines.darl.config import task_config
    from rlaccel.machines.darl.table2 import eq23
    from rlaccel.machines.darl.tlm.timing import ARCH
    out = {}
    for task in MANIFESTS:
        for agents in FIG11_AGENTS:
            r = _run(task, [f"agents={agents}", f"stages={stages}"], seed, runs=runs)
            e = eq23(r, batch=task_config(task).batch, clock_mhz=ARCH.knobs.clock_mhz)
            if runs:
                runs.done(f"Fig. 11: {NAMES[task]}, {agents} agent(s): {e['ips']:,.0f} IPS, "
                          f"{r['power']['watts']:.2f} W")
            out[f"{task}/{agents}"] = {
                "task": task, "agents": agents, "ips": e["ips"], "eq23": e,
                "watts": r["power"]["watts"], "ips_per_w": e["ips"] / r["power"]["watts"],
                "latency_cycles": r["latency_cycles"], "env_steps": r["learning"]["env_steps"]}
    return out


def _table2(rep: dict) -> dict | None:
    """Table 2 from the Fig. 11 runs (None for a reused report that predates their eq23)."""
    from rlaccel.machines.darl.table2 import table2
    f11 = rep["fig11"]
    if not all("eq23" in v for v in f11.values()):
        return None
    return table2({k: v["eq23"] for k, v in f11.items()})


def _learning_row(r: dict) -> list:
    """A learning run's row of the Fig. 8 table."""
    return [NAMES[r["task"]], r["agents"], r["seed"], r["stages"],
            _num(r["first_stage_at_target"]), _num(r["episodes_to_target"]),
            _num(r["first_stage_any_agent_at_target"]), f"{max(r['returns']):.1f}",
            _num(system_to_target(r), "{:.3f}"),
            f"{r['wall_s']:.0f}" + (" (budget)" if r["budget"] else "")]


#: what reading a JSON file of another shape raises (the file's data, not a bug of ours)
_SHAPE = (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError)


def _what(exc: Exception) -> str:
    return f"no key {exc}" if isinstance(exc, KeyError) else str(exc) or type(exc).__name__


def learning(files) -> dict:
    """The runs of machines/darl/bench/learning.py's JSON files (a file that is not one is an
    RlaccelError naming it)."""
    from rlaccel.util.errors import RlaccelError
    from rlaccel.util.files import read_bytes
    runs = []
    for f in files:
        try:
            doc = json.loads(read_bytes(f, RlaccelError, "learning file", limit=1 << 30))
        except (ValueError, RecursionError) as exc:
            raise RlaccelError(f"{f}: --learning: not a JSON file of "
                               f"machines/darl/bench/learning.py ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
            raise RlaccelError(f"{f}: --learning: not a JSON file of machines/darl/bench/learning.py "
                               f"(no list of runs)")
        for i, r in enumerate(doc["runs"]):       # read now, not after the long work
            try:
                _learning_row(r)
            except _SHAPE as exc:
                raise RlaccelError(f"{f}: --learning: run {i} is not a run of "
                                   f"machines/darl/bench/learning.py ({_what(exc)})") from None
        runs += doc["runs"]
    return {"files": [str(f) for f in files], "runs": runs}


def cpu_baseline(seeds, runs: Runs | None = None) -> dict:
    """The float64 reference (the CPU baseline) on CartPole to 500, one agent."""
    from rlaccel.machines.darl.config import task_config
    from rlaccel.machines.darl.training import Training
    out = []
    for s in seeds:
        tr = Training(task_config("cartpole", seed=s, stages=150))
        t0, c0 = time.perf_counter(), time.process_time()
        tr.run(stop_at_target=True)
        summ = tr.summary()
        reached = summ["first_stage_at_target"] is not None
        out.append({"seed": s, "stages_to_target": summ["first_stage_at_target"],
                    "wall_to_target_s": summ["wall_to_target_s"],
                    "cpu_to_target_s": time.process_time() - c0 if reached else None,
                    "wall_s": time.perf_counter() - t0})
        if runs:
            runs.done(f"CPU baseline: CartPole, seed {s}: "
                      + (f"the target at stage {summ['first_stage_at_target']}"
                         if reached else "the target not reached"))
    return {"runs": out}


def system_to_target(r: dict):
    """A learning run's eq. 23 time under the one host reading (:data:`~.table2.HOST`; None
    if it did not reach the target)."""
    if r.get("first_stage_at_target") is None or not r.get("ips"):
        return None
    ips = r["ips"]
    return r["env_steps"] / ips.get("quiet_host_parallel_envs", ips.get("quiet_host"))


def _f10(v, n: str):
    """A Fig. 10(a) entry for ``n`` agents (older reports hold one agent's number only)."""
    return v.get(n) if isinstance(v, dict) else (v if n == "1" else None)


def _median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def _plots(rep: dict, out: Path) -> list[str]:
    from rlaccel.util.plots import grouped_bars, lines, save
    made = []
    f11 = rep["fig11"]
    for key, label in (("ips", "IPS"), ("ips_per_w", "IPS/W")):
        series = {}
        for task in MANIFESTS:
            pts = [f11[f"{task}/{n}"] for n in FIG11_AGENTS if f"{task}/{n}" in f11]
            series[NAMES[task]] = {"x": [p["agents"] for p in pts], "y": [p[key] for p in pts],
                                   "lo": [None] * len(pts), "hi": [None] * len(pts)}
        fig = lines(f"Fig. 11: {label} against agents", "agents", label, series,
                    xticks=list(FIG11_AGENTS))
        made += [str(p) for p in save(fig, out / f"fig11_{key}")]
    f10 = rep["fig10a"]
    groups = list(f10)
    counts = sorted({n for v in f10.values() for n in (v if isinstance(v, dict) else {"1": v})},
                    key=int)
    fig = grouped_bars("Fig. 10(a): CartPole iteration with an optimisation off",
                       "switched off", "cycles", groups,
                       {f"{n} agent(s)": {"x": groups, "y": [_f10(f10[g], n) for g in groups],
                                          "lo": [None] * len(groups),
                                          "hi": [None] * len(groups)} for n in counts})
    made += [str(p) for p in save(fig, out / "fig10a")]
    for task in MANIFESTS:
        series = {}
        for r in rep["learning"]["runs"]:
            if r["task"] != task:
                continue
            name = f"{r['agents']} agent(s), seed {r['seed']}"
            xs = list(range(1, len(r["returns"]) + 1))
            series[name] = {"x": xs, "y": r["returns"], "lo": [None] * len(xs),
                            "hi": [None] * len(xs)}
        if series:
            fig = lines(f"Fig. 8: {NAMES[task]}, mean return per stage", "stage",
                        "mean return of the agents", series)
            made += [str(p) for p in save(fig, out / f"fig8_{task}")]
    return made


def markdown(rep: dict) -> str:
    md = ["# DARL (the DARL paper) on the simulator", "",
          "Generated by `rlaccel report darl`; every figure is simulated here "
          "(`machines/darl/`), the paper's beside it.", "", "## Table 1: cycles per iteration",
          ""]
    rows = []
    for v in rep["table1"].values():
        rows.append([NAMES[v["task"]], v["agents"], _num(v["latency_cycles"]), v.get("paper", v.get("seed")),
                     f"{100 * v['residual']:+.1f} %", _num(v["latency_inference_cycles"]),
                     _num(v.get("allreduce_iteration_cycles") or 0)])
    md += _table(["task", "agents", "training iteration (simulated)", "the paper's L", "residual",
                  "inference iteration", "of which the all-reduce (cycles)"], rows)
    from rlaccel.machines.darl.tlm.timing import LatencyConstants
    c = LatencyConstants()
    md += ["", f"Every constant is a prediction (`darl.toml` `[sources]`): io {c.io} cycles "
           f"(two m_axi transactions at Vitis HLS's default latency), a butterfly stage's "
           f"hop {c.hop} (link registers, the partner sum, an SLR crossing), links of "
           f"{c.link_words} words (assumed). With several agents every training iteration "
           "ends with the butterfly all-reduce (average) of the agent's shard, 2 A D words: "
           "log2 N stages of hop + 2AD / W cycles; agents without a batch in the round join "
           "with all-reduces alone, and the round ends with Q' += the average, Q <- Q'. The "
           "simulator equals the unit models bit for bit. LunarLander's larger shard (A = 4) "
           "is what makes its column longer; the paper gives neither the link width nor the "
           "hop.", ""]
    units = {k: v.get("unit_utilisation_kernel") for k, v in rep["table1"].items()}
    if all(units.values()):
        names = sorted({u for v in units.values() for u in v})
        md += ["Busy share of every unit in the kernel's time (agent 0; host exchanges and "
               "waits at the all-reduce left out):", ""]
        md += _table(["task / agents", *names],
                     [[k, *(f"{100 * v.get(u, 0.0):.1f} %" for u in names)]
                      for k, v in units.items()])
        md += [""]
    md += ["## Fig. 10(a): CartPole, an optimisation switched off", ""]
    f10 = rep["fig10a"]
    counts = sorted({n for v in f10.values() for n in (v if isinstance(v, dict) else {"1": v})},
                    key=int)
    md += _table(["switched off", *(f"{n} agent(s), cycles" for n in counts)],
                 [[k, *(_num(_f10(v, n)) for n in counts)] for k, v in f10.items()])
    from rlaccel.machines.darl.table2 import HOST
    md += ["", "## Fig. 11: IPS (eq. 23-25) and IPS/W against agents", "",
           f"Short runs of {rep['args']['stages']} stages (early episodes: many random "
           f"actions), kernel simulated. The host: {HOST}. Power: the cost model's (the "
           "run's simulated energy over its simulated time).", ""]
    rows = []
    for v in rep["fig11"].values():
        e = v.get("eq23", {})
        tf = e.get("training_frequency")
        rows.append([NAMES[v["task"]], v["agents"], _num(v["latency_cycles"]), _num(v["ips"]),
                     "-" if tf is None else f"{tf:.2f}", f"{v['watts']:.2f}",
                     _num(v["ips_per_w"])])
    md += _table(["task", "agents", "L (cycles)", "IPS", "training frequency T'/T''", "W",
                  "IPS/W"], rows)
    t2 = rep.get("table2")
    if t2:
        md += ["", "## Table 2: the mean of CartPole and LunarLander", ""]
        md += _table(["agents", "CartPole IPS", "LunarLander IPS", "mean (ours)",
                      "the paper's", "residual"],
                     [[k, _num(t2[k]["cartpole"]), _num(t2[k]["lunarlander"]),
                       _num(t2[k]["ips_mean"]), _num(t2[k]["paper_ips_mean"], "{:,.1f}"),
                       f"{100 * t2[k]['error']:+.1f} %"] for k in ("1", "8") if k in t2])
        md += ["", "Each residual's cause, per step of an agent (eq. 23-25's terms, "
               "microseconds), and the training frequency T'/T'' at which eq. 23-25 would "
               "give the paper's figure with every other term as measured (the paper gives "
               "each task's IPS for eight agents only):", ""]
        rows = []
        for k, v in rep["fig11"].items():
            task, agents = k.split("/")
            e = v.get("eq23")
            if agents not in ("1", "8") or not e or "us_per_step" not in e:
                continue
            us = e["us_per_step"]
            need = t2.get(agents, {}).get(f"{task}_training_frequency_for_paper", "-")
            rows.append([NAMES[task], agents, f"{us['train']:.1f}", f"{us['infer']:.1f}",
                         f"{us['env']:.1f}", f"{us['transfers']:.1f}",
                         _num(e.get("training_frequency"), "{:.2f}"),
                         "-" if need == "-" else ("none (environment and transfers alone "
                                                  "exceed it)" if need is None
                                                  else f"{need:.2f}")])
        md += _table(["task", "agents", "training", "inference", "environment", "transfers",
                      "T'/T'' measured", "T'/T'' for the paper's IPS"], rows)
    md += ["", f"The paper: IPS {PAPER['ips'][1]:,} (1 agent, mean of the tasks), "
           f"{PAPER['ips'][8]:,} (8 agents); IPS/W {PAPER['ips_per_w'][1]:,} / "
           f"{PAPER['ips_per_w'][8]:,}.", "", "## Fig. 8: learning through the simulator", ""]
    runs = rep["learning"]["runs"]
    if runs:
        rows = [_learning_row(r) for r in runs]
        md += _table(["task", "agents", "seed", "stages run", "stage mean at target",
                      "episodes to target", "first agent at target", "best stage mean",
                      "DARL system s to target (eq. 23, quiet host)", "simulation wall s"],
                     rows)
        md += ["", "From " + ", ".join(f"`{f}`" for f in rep["learning"]["files"]) + ". "
               "The system time is the run's environment steps over its IPS with a quiet "
               "host's T_env (eq. 23's denominator: kernel iterations simulated, transfers "
               "modelled, environments at the quiet host's speed); a run stops at the "
               "target, so its whole time is the time to target."]
    else:
        md += ["No `machines/darl/bench/learning.py` output given (`--learning`)."]
    cpu = rep.get("cpu")
    if cpu and cpu["runs"]:
        md += ["", "## CPU baseline (float64 reference), CartPole to 500", ""]
        md += _table(["seed", "stages", "wall to target s", "CPU s to target"],
                     [[r["seed"], _num(r["stages_to_target"]),
                       _num(r["wall_to_target_s"], "{:.1f}"),
                       _num(r["cpu_to_target_s"], "{:.1f}")] for r in cpu["runs"]])
        cpu_med = _median([r["cpu_to_target_s"] for r in cpu["runs"]])
        darl = [system_to_target(r) for r in runs if r["task"] == "cartpole"
                and r["agents"] == 1]
        darl_med = _median(darl)
        md += ["", f"The paper: {PAPER['cpu_to_target_s']['cartpole']} s on a Xeon 6226 (DARL1 "
               "about 19x faster, Fig. 9)."]
        if cpu_med and darl_med:
            md += ["", f"Median CPU seconds to target here {cpu_med:.1f} s (process time, "
                   f"environment included: what an idle core takes); median DARL1 system "
                   f"time to target {darl_med:.3f} s: speed-up {cpu_med / darl_med:.0f}x "
                   "(medians over the seeds that reach the target)."]
    return "\n".join(md) + "\n"


#: what report.json keeps under ``timing``: the CPU baseline's times and the learning runs'
#: wall clocks
TIMING = ("cpu", "learning.runs.*.wall_s", "learning.runs.*.wall_to_target_s")


def inputs(args) -> list[tuple[str, str]]:
    """The files the report reads (its output must not overwrite them): the manifests and
    every file they name, the learning files (with ``--reuse`` its own report.json is read
    and written again, as intended)."""
    from rlaccel.programs.runner import manifest_inputs
    files = (args.learning if args.learning is not None
             else sorted(glob.glob("out/darl_learning_*.json")))
    return [i for m in MANIFESTS.values() for i in manifest_inputs(m)] + \
        [("--learning", f) for f in files]


def cmd_report(args) -> int:
    from rlaccel.programs.runner import write_json
    from rlaccel.util.files import atomic_write
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    files = (args.learning if args.learning is not None
             else sorted(glob.glob("out/darl_learning_*.json")))
    if args.reuse:
        from rlaccel.util.errors import RlaccelError
        from rlaccel.util.files import read_bytes
        old = out / "report.json"
        if not old.exists():
            raise RlaccelError(f"--reuse: {old} does not exist (run the report once without it)")
        try:
            rep = json.loads(read_bytes(old, RlaccelError, "report", limit=1 << 30))
            if not isinstance(rep, dict) or not isinstance(rep.get("timing", {}), dict):
                raise TypeError("not a JSON object")
            from rlaccel.tlm.results import with_timing
            rep = with_timing(rep)                  # every figure where it was computed
            rep["learning"] = learning(files)
            markdown(rep)                    # every figure read before anything is written
        except (*_SHAPE, RecursionError) as exc:
            raise RlaccelError(f"--reuse: {old}: not a report.json of rlaccel report darl "
                               f"({_what(exc)}); run the report without --reuse") from None
    else:
        from rlaccel.util.progress import ProgressBar
        learned = learning(files)                       # read before the long work
        with ProgressBar("darl report", quiet=args.quiet) as bar:
            runs = Runs(bar, runs_total(args.cpu_seeds))
            rep = {"args": {"stages": args.stages, "seed": args.seed},
                   "table1": table1(args.seed, runs), "fig10a": fig10a(args.seed, runs=runs),
                   "fig11": fig11(args.stages, args.seed, runs), "learning": learned,
                   "cpu": cpu_baseline(args.cpu_seeds, runs) if args.cpu_seeds else None}
    rep["table2"] = _table2(rep)
    try:
        rep["plots"] = _plots(rep, out)
    except _SHAPE as exc:                  # only a reused report can be of another shape
        from rlaccel.util.errors import RlaccelError
        raise RlaccelError(f"--reuse: {out / 'report.json'}: not a report.json of rlaccel "
                           f"report darl ({_what(exc)}); run the report without --reuse") \
            from None
    import copy
    from rlaccel.tlm.results import move_timing
    write_json(out / "report.json", move_timing(copy.deepcopy(rep), TIMING))
    atomic_write(out / "report.md", markdown(rep))
    print(f"wrote {out / 'report.md'}, {out / 'report.json'} and {len(rep['plots'])} plots")
    return 0
