"""HDQL learning over many seeds on the DARL machine's arithmetic: one agent against eight,
the QHD form against the printed one, judged on a moving window, with 95 % intervals over
the seeds.

A run computes with the machine's fixed32 unit models in their compiled kernels
(``CompiledHdql``), which the simulator equals bit for bit
(``tests/machines/darl/test_machine.py``, ``test_printed_form.py``) at about a sixth of its
CPU time; ``--simulator`` runs the simulated machine itself (``hdql.s`` or
``hdql_printed.s`` on the compiled loop).

    nice -n 15 python machines/darl/bench/seeds.py run --task cartpole --agents 1 \\
        --form qhd --seeds 1-10 --stages 300 --out machines/darl/bench/results/seeds
    python machines/darl/bench/seeds.py summary machines/darl/bench/results/seeds \\
        --json machines/darl/bench/results/learning_seeds.json

``run`` simulates one run per seed, one after another, and writes each to
``OUT/<task>_<form>_a<agents>_s<seed>.json``: after every ``--save-every`` stages while it
runs (``"finished": false``) and at its end, so a stopped series keeps every stage it ran.
A run ends at ``--stages`` stages or at the first stage at which the mean of the last
``--window`` stage means (every agent's return averaged in a stage) reaches the task's
target (500 CartPole, 200 LunarLander: the targets of the DARL paper, section 6.4). The
window is counted in stages, an episode of every agent each, so one and eight agents are
held to the same number of their own episodes, as Fig. 8 counts them.

``summary`` reads every run file in a folder and gives, per task, form and agent count: the
seeds that reached the target, the stages to it (median over the seeds that did; the others
are censored at their last stage), and the window mean at fixed stages with its 95 %
interval over the seeds that ran that far (Student's t).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from rlaccel.util.files import atomic_write
from rlaccel.util.stats import t_interval

MANIFESTS = {"cartpole": "machines/darl/programs/cartpole.toml",
             "lunarlander": "machines/darl/programs/lunarlander.toml"}
TARGETS = {"cartpole": 500.0, "lunarlander": 200.0}
#: the stages at which summary reports the window mean
CHECKPOINTS = (5, 10, 20, 25, 30, 40, 50, 100, 150, 200, 300)


def interval95(xs) -> dict | None:
    """Mean and Student's t 95 % interval of ``xs`` (None for no value; one value: no
    interval)."""
    xs = [float(x) for x in xs]
    if not xs:
        return None
    m, h = t_interval(xs)
    if h is None:
        return {"n": 1, "mean": m, "lo": None, "hi": None}
    return {"n": len(xs), "mean": m, "lo": m - h, "hi": m + h}


def window_means(returns, window: int) -> list:
    """The mean of the last ``window`` stage means at every stage (None before a full
    window)."""
    r = np.asarray(returns, dtype=float)
    c = np.concatenate(([0.0], np.cumsum(r)))
    return [None if i + 1 < window else float((c[i + 1] - c[i + 1 - window]) / window)
            for i in range(len(r))]


def seeds_list(text: str) -> list[int]:
    """``1-10`` or ``1,4,9`` (or both: ``1-3,7``) as a list of seeds."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi) + 1)) if hi else [int(lo)]
    return out


def run_file(out: Path, task: str, form: str, agents: int, seed: int) -> Path:
    return out / f"{task}_{form}_a{agents}_s{seed}.json"


def one(task: str, agents: int, form: str, seed: int, stages: int, window: int,
        path: Path, save_every: int, command: str, simulator: bool = False) -> dict:
    """One run, written to ``path`` every ``save_every`` stages and at its end: on the
    fixed32 unit models in their compiled kernels (which the simulator equals bit for bit,
    ``tests/machines/darl/test_machine.py``), or with ``simulator`` through the simulated
    machine itself (``hdql.s`` on the compiled loop, about six times the CPU time)."""
    target = TARGETS[task]
    t0 = time.perf_counter()
    state = {"reached": None}
    if simulator:
        from rlaccel.programs.runner import _Setup
        s = _Setup(MANIFESTS[task], [f"agents={agents}", f"stages={stages}",
                                     "stop_at_target=false", f"learning.form={form}"],
                   arch=None, seed=seed, trace=None, progress=None, datapath=None,
                   kernels="compiled", options={})
        host = s.r.state
        curve, counter = host.curve, host.counter
        steps = lambda: host.steps                              # noqa: E731
    else:
        from rlaccel.machines.darl.config import task_config
        from rlaccel.machines.darl.training import Training
        tr = Training(task_config(task, agents=agents, seed=seed, stages=stages,
                                  number="fixed32", form=form))
        curve, counter = tr.curve, tr.learner.counter
        steps = lambda: int(sum(sum(a) for a in tr.curve.agent_steps))  # noqa: E731

    def record(finished: bool) -> dict:
        returns = [float(np.mean(r)) for r in curve.agent_returns]
        wm = window_means(returns, window)
        return {"command": command, "task": task, "form": form, "agents": agents,
                "seed": seed, "window": window, "target": target, "finished": finished,
                "engine": "simulator" if simulator else "unit models",
                "stages": len(returns), "env_steps": int(steps()),
                "first_stage_window_at_target": state["reached"],
                "best_window_mean": max((w for w in wm if w is not None), default=None),
                "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                "returns": returns,
                "agent_returns": [[float(x) for x in r] for r in curve.agent_returns],
                "saturations": int(counter.saturations)}

    def stage_done() -> bool:
        returns = [float(np.mean(r)) for r in curve.agent_returns]
        if state["reached"] is None and len(returns) >= window:
            if np.mean(returns[-window:]) >= target:
                state["reached"] = len(returns)
        if save_every and returns and len(returns) % save_every == 0:
            atomic_write(path, json.dumps(record(False)))
        return state["reached"] is not None

    c0 = time.process_time()
    if simulator:
        over = host.end_of_stage

        def end_of_stage(stage):
            over(stage)
            if stage_done():
                host.done = True
        host.end_of_stage = end_of_stage
        res = s.platform.run()
        s.tick()
        r = s.report(res)
        out = record(True)
        out.update(latency_cycles=r["latency_cycles"], cycles=r["cycles"])
    else:
        for _ in range(stages):
            tr.run_stage()
            if stage_done():
                break
        out = record(True)
    atomic_write(path, json.dumps(out))
    return out


def _run(a) -> int:
    a.out.mkdir(parents=True, exist_ok=True)
    command = "python machines/darl/bench/seeds.py " + " ".join(sys.argv[1:])
    for seed in seeds_list(a.seeds):
        path = run_file(a.out, a.task, a.form, a.agents, seed)
        if path.exists() and json.loads(path.read_text()).get("finished"):
            print(f"{path}: done already", flush=True)
            continue
        r = one(a.task, a.agents, a.form, seed, a.stages, a.window, path, a.save_every,
                command, a.simulator)
        print(f"{a.task} {a.form} agents={a.agents} seed={seed}: {r['stages']} stages, "
              f"window target at {r['first_stage_window_at_target']}, best window mean "
              f"{r['best_window_mean']}, {r['wall_s']:.0f} s", flush=True)
    return 0


def summarize(folder: Path) -> dict:
    """Every run file in ``folder`` grouped by task, form and agents (see the module)."""
    groups: dict = {}
    for f in sorted(folder.glob("*.json")):
        r = json.loads(f.read_text())
        groups.setdefault(f"{r['task']}/{r['form']}/{r['agents']}", []).append(r)
    out = {}
    for key, runs in sorted(groups.items()):
        runs.sort(key=lambda r: r["seed"])
        hit = [r for r in runs if r["first_stage_window_at_target"] is not None]
        window = runs[0]["window"]
        at = {}
        for k in CHECKPOINTS:
            vals = [window_means(r["returns"], window)[k - 1] for r in runs
                    if len(r["returns"]) >= k and k >= window]
            # a run that stopped at its target before k stages counts as at the target
            vals += [r["target"] for r in hit if len(r["returns"]) < k]
            at[str(k)] = interval95(vals)
        out[key] = {
            "seeds": [r["seed"] for r in runs], "window": window,
            "finished": sum(r["finished"] for r in runs),
            "reached": len(hit),
            "stages_to_target": {str(r["seed"]): r["first_stage_window_at_target"]
                                 for r in runs},
            "stages_run": {str(r["seed"]): r["stages"] for r in runs},
            "median_stages_to_target": (float(np.median([r["first_stage_window_at_target"]
                                                          for r in hit])) if hit else None),
            "stages_to_target_interval": interval95([r["first_stage_window_at_target"]
                                                     for r in hit]),
            "best_window_mean": interval95([r["best_window_mean"] for r in runs
                                            if r["best_window_mean"] is not None]),
            "window_mean_at_stage": at,
            "env_steps": int(sum(r["env_steps"] for r in runs)),
            "wall_s": float(sum(r["wall_s"] for r in runs)),
            "cpu_s": float(sum(r.get("cpu_s", 0.0) for r in runs)),
            "saturations": int(sum(r["saturations"] for r in runs)),
        }
    return out


def _ci(x) -> str:
    if x is None:
        return "-"
    if x["lo"] is None:
        return f"{x['mean']:.0f} (1 seed)"
    return f"{x['mean']:.0f} [{x['lo']:.0f}, {x['hi']:.0f}] ({x['n']})"


def markdown(groups: dict, stages=(25, 50, 100)) -> str:
    """The summary as a Markdown table: per task, form and agent count the seeds (finished
    of all), those reaching the target on the window, their median stages to it, and the
    window mean at ``stages`` with its 95 % interval and the number of seeds."""
    head = ["task", "form", "agents", "seeds (finished)", "reach target", "median stages",
            *(f"window mean at stage {k}" for k in stages), "env steps", "CPU min"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, g in groups.items():
        task, form, agents = key.split("/")
        med = g["median_stages_to_target"]
        rows.append("| " + " | ".join([
            task, form, agents, f"{len(g['seeds'])} ({g['finished']})",
            f"{g['reached']} / {len(g['seeds'])}", "-" if med is None else f"{med:.0f}",
            *(_ci(g["window_mean_at_stage"].get(str(k))) for k in stages),
            f"{g['env_steps']:,}", f"{g['cpu_s'] / 60:.0f}"]) + " |")
    return "\n".join(rows) + "\n"


def _summary(a) -> int:
    s = summarize(a.folder)
    if a.task:
        s = {k: g for k, g in s.items() if k.startswith(a.task + "/")}
    text = json.dumps({"folder": str(a.folder), "groups": s}, indent=1)
    if a.json:
        atomic_write(a.json, text)
    print(markdown(s, a.at), end="")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run", help="simulate one run per seed")
    r.add_argument("--task", choices=list(MANIFESTS), default="cartpole")
    r.add_argument("--agents", type=int, default=1)
    r.add_argument("--form", choices=("qhd", "printed"), default="qhd")
    r.add_argument("--seeds", default="1-10", help="e.g. 1-10 or 1,4,9")
    r.add_argument("--stages", type=int, default=300)
    r.add_argument("--window", type=int, default=10)
    r.add_argument("--save-every", type=int, default=10, metavar="N")
    r.add_argument("--simulator", action="store_true",
                   help="through the simulated machine (hdql.s) instead of its unit models")
    r.add_argument("--out", type=Path, default=Path("machines/darl/bench/results/seeds"))
    s = sub.add_parser("summary", help="the 95 %% intervals over every run in a folder")
    s.add_argument("folder", type=Path)
    s.add_argument("--json", type=Path)
    s.add_argument("--task", choices=list(MANIFESTS), help="one task's groups only")
    s.add_argument("--at", type=int, nargs="+", default=[25, 50, 100], metavar="STAGE",
                   help=f"the stages of the table's window means (of {CHECKPOINTS})")
    a = p.parse_args(argv)
    return _run(a) if a.verb == "run" else _summary(a)


if __name__ == "__main__":
    raise SystemExit(main())
