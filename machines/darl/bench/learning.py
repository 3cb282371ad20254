"""HDQL learning through the simulated DARL machine (machines/darl/*.toml): per task, agent
count and seed, the learning curve, the stage and wall time at which the stage mean reaches
the target, the simulated latency, the all-reduce and IPS (eq. 23-25).

    nice -n 10 python machines/darl/bench/learning.py --task cartpole --agents 1 8 --seeds 1 2 3 \
        --stages 150 --budget-min 20 --json out/darl_learning_cartpole.json

Each run stops at the target (``stop_at_target``), after ``--stages`` stages, or at the first
stage end after ``--budget-min`` minutes of wall time (a run that stopped on the budget is
marked ``"budget": true``). Every finished run is written to the JSON at once, so a killed
sweep keeps what it has.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rlaccel.programs.runner import _Setup, write_json

MANIFESTS = {"cartpole": "machines/darl/programs/cartpole.toml",
             "lunarlander": "machines/darl/programs/lunarlander.toml"}


def one(task: str, agents: int, seed: int, stages: int, budget_s: float) -> dict:
    s = _Setup(MANIFESTS[task], [f"agents={agents}", f"stages={stages}"], arch=None, seed=seed,
               trace=None, progress=None, datapath=None, kernels="compiled", options={})
    host = s.r.state
    t0 = time.perf_counter()
    over = host.end_of_stage

    def end_of_stage(stage):          # the wall-time budget, checked where the run may stop
        over(stage)
        if time.perf_counter() - t0 > budget_s and not host.done:
            host.done = True
            host.budget = True
    host.end_of_stage = end_of_stage
    host.budget = False
    res = s.platform.run()
    s.tick()
    r = s.report(res)
    lr = r["learning"]
    out = {"task": task, "agents": agents, "seed": seed, "budget": host.budget,
           "stages": lr["stages"], "env_steps": lr["env_steps"],
           "first_stage_at_target": lr["first_stage_at_target"],
           "first_stage_any_agent_at_target": lr["first_stage_any_agent_at_target"],
           "episodes_to_target": lr["episodes_to_target"],
           "wall_to_target_s": lr["wall_to_target_s"], "wall_s": time.perf_counter() - t0,
           "returns": lr["returns"], "agent_returns": lr["agent_returns"],
           "latency_cycles": r["latency_cycles"],
           "latency_inference_cycles": r["latency_inference_cycles"],
           "allreduce": r["allreduce"], "ips": r.get("ips"), "power": r.get("power"),
           "cycles": r["cycles"], "saturations": lr["saturations"]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", choices=list(MANIFESTS), default="cartpole")
    ap.add_argument("--agents", type=int, nargs="+", default=[1])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--stages", type=int, default=150)
    ap.add_argument("--budget-min", type=float, default=20.0)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    path = Path(a.json or f"out/darl_learning_{a.task}.json")
    runs = []
    for agents in a.agents:
        for seed in a.seeds:
            r = one(a.task, agents, seed, a.stages, 60.0 * a.budget_min)
            runs.append(r)
            write_json(path, {"task": a.task, "runs": runs})
            print(f"{a.task} agents={agents} seed={seed}: stages {r['stages']}, target at "
                  f"stage {r['first_stage_at_target']} (any agent: "
                  f"{r['first_stage_any_agent_at_target']}), best "
                  f"{max(r['returns']):.1f}, {r['wall_s']:.0f} s, L {r['latency_cycles']}, "
                  f"IPS {r['ips']['system'] if r['ips'] else 0:,.0f}"
                  + (" [budget]" if r["budget"] else ""), flush=True)
    print(json.dumps({"written": str(path)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
