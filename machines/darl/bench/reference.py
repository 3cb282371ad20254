"""HDQL on the real environments without the simulator: learning curves, wall time per
environment step and to the target, for the float64 reference (the CPU baseline of the DARL paper)
and the fixed32 unit models.

    python machines/darl/bench/reference.py --task cartpole --agents 1 8 --seeds 1 2 3 --stages 300 \\
        --stop-at-target --json out/darl_cartpole.json
    python machines/darl/bench/reference.py --task lunarlander --agents 1 --seeds 1 --stages 400 \\
        --budget-min 35
    python machines/darl/bench/reference.py --task cartpole --number fixed32 float64 --seeds 1 2 3
    python machines/darl/bench/reference.py --task cartpole --set imag_sign=-1      # eq. 9 as printed

One line per run (task, agents, format, seed): stages (episodes of every agent) and episodes
to the target (first stage whose mean return over the agents reaches it), wall time to it,
best return and best 100-stage mean, microseconds of wall time per environment step, and the
IPS eq. 23-25 give for the accelerator with this run's episodes (kernel iterations from
``machines/darl/tlm/timing.py`` at the architecture's clock, 171 MHz, the host's environment
time measured here, transfers and XRT overhead left out). ``--budget-min T`` ends a run after the stage that
passes T minutes. ``--t-env-us X`` adds the IPS with X microseconds per environment step (every agent's
environment stepped one after another on the host), e.g. the quiet-machine figure of
the project's reference speeds. ``--json`` writes every run's summary and curve;
``--progress N`` prints a line on stderr every N stages (default 10).

``--window K`` judges the target on the mean of the last K stage means (a full window of K
stages), so runs with different agent counts can be compared over the same number of
episodes: one agent with ``--window 8`` is held to eight episodes averaging the target, as
eight agents with the default ``--window 1`` are held to one stage (eight episodes) doing
so. The column "to target" and ``--stop-at-target`` then use that window; the JSON has both
``first_stage_at_target`` (one stage) and ``first_stage_window_at_target``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from rlaccel.machines.darl.config import task_config
from rlaccel.machines.darl.training import Curve, Training
from rlaccel.machines.darl.tlm import Workload, ips_terms, iteration_seconds, latency_cycles
from rlaccel.machines.darl.tlm.timing import ARCH
from rlaccel.util.files import atomic_write

#: the clock of the architecture whose latency constants the timing model uses
CLOCK_MHZ = ARCH.knobs.clock_mhz


def _value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return None if text == "None" else text


def modelled_ips(tr: Training, t_env_step: float | None = None) -> dict:
    """Eq. 23-25 with this run's episodes: F from the timing model, T_env measured (or
    ``t_env_step`` seconds per environment step, every agent's stepped one after another)."""
    c, cfg = tr.curve, tr.cfg
    w = Workload(d=cfg.d, chunk=cfg.chunk, n=tr.n_obs, a=tr.n_actions, agents=cfg.agents)
    f_inf = iteration_seconds(latency_cycles(w, train=False), CLOCK_MHZ)
    f_train = iteration_seconds(latency_cycles(w), CLOCK_MHZ)
    T = np.array([np.mean(s) for s in c.agent_steps])       # steps per agent per stage
    rounds = float(np.sum([max(s) for s in c.agent_steps]))
    t_env = (tr.t_env / rounds if t_env_step is None       # host time per interaction round
             else t_env_step * cfg.agents)
    # the kernel runs every agent's iteration at once: per round, at most one of each
    greedy = np.array(c.greedy) / cfg.agents
    batches = np.array(c.batches) / cfg.agents
    t = ips_terms(cfg.agents, T, greedy, batches, batch=cfg.batch, F=f_inf, T_env=t_env,
                  f_train=f_train)
    return {"ips": t["ips"], "F_inf_us": 1e6 * f_inf, "F_train_us": 1e6 * f_train,
            "T_env_us": 1e6 * t_env, "t_inf_s": t["t_inf"], "t_train_s": t["t_train"]}


def first_window_stage(returns, window: int, target: float) -> int | None:
    """1-based index of the first stage at which the mean of the last ``window`` stage
    returns (a full window) reaches ``target``, or None."""
    means = Curve(agent_returns=[[r] for r in returns]).moving_mean(window)
    return next((i + 1 for i in range(window - 1, len(means)) if means[i] >= target), None)


def run_one(task: str, agents: int, number: str, seed: int, stages: int, stop: bool,
            overrides: dict, t_env_step: float | None = None,
            budget_s: float | None = None, progress: int = 0, window: int = 1) -> dict:
    cfg = task_config(task, agents=agents, number=number, seed=seed, stages=stages,
                      **overrides)
    tr = Training(cfg)
    for i in range(1, stages + 1):
        tr.run_stage()
        mean = tr.curve.moving_mean(window)[-1] if i >= window else -np.inf
        if progress and i % progress == 0:
            print(f"  {task} agents={agents} {number} seed {seed}: stage {i}, mean return "
                  f"{tr.curve.returns[-1]:.1f}, best episode so far "
                  f"{max(max(r) for r in tr.curve.agent_returns):.1f}, {tr.wall:.0f} s",
                  file=sys.stderr, flush=True)
        if stop and mean >= cfg.target:
            break
        if budget_s is not None and tr.wall > budget_s:
            break
    s = tr.summary()
    s["window"] = window
    s["first_stage_window_at_target"] = first_window_stage(tr.curve.returns, window,
                                                           cfg.target)
    k = s["first_stage_window_at_target"]
    s["wall_to_window_target_s"] = None if k is None else tr.curve.wall[k - 1]
    s["episodes_to_window_target"] = None if k is None else k * agents
    counter = getattr(tr.learner, "counter", None)
    s["saturations"] = None if counter is None else counter.saturations
    if t_env_step is not None:
        s["model_ips_given_t_env"] = modelled_ips(tr, t_env_step)
    s.update(task=task, agents=agents, number=number, seed=seed, overrides=overrides,
             model_ips=modelled_ips(tr), returns=tr.curve.returns,
             agent_returns=tr.curve.agent_returns, stage_wall_s=tr.curve.wall,
             greedy=tr.curve.greedy, batches=tr.curve.batches)
    return s


def _fmt(x, spec="{:.1f}"):
    return "-" if x is None else spec.format(x)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", choices=("cartpole", "lunarlander"), default="cartpole")
    p.add_argument("--agents", type=int, nargs="+", default=[1])
    p.add_argument("--number", nargs="+", default=["float64"], choices=("float64", "fixed32"))
    p.add_argument("--seeds", type=int, nargs="+", default=[1])
    p.add_argument("--stages", type=int, default=None, help="stages per run (task default)")
    p.add_argument("--stop-at-target", action="store_true")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="any HdqlConfig field, e.g. imag_sign=-1, act_with=online")
    p.add_argument("--budget-min", type=float, default=None,
                   help="end a run after the stage that passes this many minutes of wall time")
    p.add_argument("--t-env-us", type=float, default=None,
                   help="also model IPS with this environment step time (us per agent)")
    p.add_argument("--progress", type=int, default=10, metavar="N",
                   help="a line on stderr every N stages (0: none; default 10)")
    p.add_argument("--window", type=int, default=1, metavar="K",
                   help="judge the target on the mean of the last K stages (default 1)")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    if a.window < 1:
        p.error(f"--window {a.window}: give a number of stages, 1 or more")
    if a.progress < 0:
        p.error(f"--progress {a.progress}: give 0 (no progress lines) or a stage count")
    overrides = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        overrides[k] = _value(v)
    stages = a.stages or task_config(a.task).stages
    runs = []
    print(f"{'task':<12}{'agents':>7}{'format':>9}{'seed':>5}{'stages':>7}{'to target':>10}"
          f"{'episodes':>9}{'wall s':>9}{'best':>7}{'best100':>8}{'us/step':>9}{'model IPS':>11}"
          + (f"{'IPS@T_env':>11}" if a.t_env_us is not None else ""))
    t0 = time.perf_counter()
    for agents in a.agents:
        for number in a.number:
            for seed in a.seeds:
                r = run_one(a.task, agents, number, seed, stages, a.stop_at_target, overrides,
                            None if a.t_env_us is None else a.t_env_us * 1e-6,
                            None if a.budget_min is None else 60.0 * a.budget_min,
                            a.progress, a.window)
                runs.append(r)
                print(f"{a.task:<12}{agents:>7}{number:>9}{seed:>5}{r['stages']:>7}"
                      f"{_fmt(r['first_stage_window_at_target'], '{:d}'):>10}"
                      f"{_fmt(r['episodes_to_window_target'], '{:d}'):>9}"
                      f"{_fmt(r['wall_to_window_target_s']):>9}{r['best_return']:>7.0f}"
                      f"{r['best_mean100']:>8.1f}{r['wall_per_env_step_us']:>9.0f}"
                      f"{r['model_ips']['ips']:>11.0f}"
                      + (f"{r['model_ips_given_t_env']['ips']:>11.0f}"
                         if a.t_env_us is not None else ""), flush=True)
                if a.json:            # after every run, so a long series keeps what it has
                    atomic_write(a.json, json.dumps({"command": " ".join(sys.argv),
                                                     "runs": runs}, indent=1))
    groups = {}
    for r in runs:
        groups.setdefault((r["agents"], r["number"]), []).append(r)
    print()
    for (agents, number), rs in groups.items():
        hit = [r for r in rs if r["first_stage_window_at_target"] is not None]
        med = (lambda k: statistics.median(r[k] for r in hit)) if hit else (lambda k: None)
        print(f"{a.task} agents={agents} {number}: {len(hit)}/{len(rs)} seeds reach "
              f"{task_config(a.task).target:.0f}; median stages {_fmt(med('first_stage_window_at_target'))}"
              f"{'' if a.window == 1 else f' (window {a.window})'}, median wall to target "
              f"{_fmt(med('wall_to_window_target_s'), '{:.2f}')} s, "
              f"median us/step {statistics.median(r['wall_per_env_step_us'] for r in rs):.0f}, "
              f"median model IPS {statistics.median(r['model_ips']['ips'] for r in rs):.0f}")
    print(f"total wall {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
