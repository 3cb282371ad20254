"""CPU time per environment step of the fixed32 DARL learner: the unit models through numpy
(``FunctionalHdql``) against their compiled kernels (``CompiledHdql``,
``machines/darl/tlm/kernels.py``), on the same run, and whether the two runs are the same
bit for bit (every agent's return, Q', every Q, the saturation count).

    python machines/darl/bench/speed.py --task lunarlander --agents 8 --stages 1
    python machines/darl/bench/speed.py --task cartpole --agents 1 --stages 40 --json out/speed.json

The compiled kernels are compiled (or loaded from numba's cache) by a one-stage warm-up run
before the timed one; CPU time is ``time.process_time`` of the whole host loop (environment,
replay, exploration included), so the ratio is what a learning run gains.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from rlaccel.machines.darl.config import task_config
from rlaccel.machines.darl.functional import CompiledHdql, FunctionalHdql
from rlaccel.machines.darl.task import env_shape
from rlaccel.machines.darl.training import Training, streams
from rlaccel.util.files import atomic_write


def timed(cfg, cls, stages: int) -> dict:
    n, a = env_shape(cfg.env)
    tr = Training(cfg, learner=cls(cfg, n, a, streams(cfg.seed, cfg.agents)["init"]))
    c0 = time.process_time()
    w0 = time.perf_counter()
    tr.run(stages)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    L = tr.learner
    return {"learner": cls.__name__, "stages": tr.stages, "env_steps": tr.steps,
            "cpu_s": cpu, "wall_s": wall, "cpu_ms_per_step": 1e3 * cpu / tr.steps,
            "returns": tr.curve.returns, "saturations": L.counter.saturations,
            "_state": (tr.curve.agent_returns, L.tr, L.ti, L.qr, L.qi)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--task", choices=("cartpole", "lunarlander"), default="lunarlander")
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--stages", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    cfg = task_config(a.task, agents=a.agents, number="fixed32", seed=a.seed, stages=a.stages)
    timed(task_config(a.task, agents=a.agents, number="fixed32", seed=a.seed + 1), CompiledHdql,
          1)                                                  # warm-up: compile or load
    runs = [timed(cfg, cls, a.stages) for cls in (FunctionalHdql, CompiledHdql)]
    ref, fast = (r.pop("_state") for r in runs)
    same = (ref[0] == fast[0] and np.array_equal(ref[1], fast[1])
            and np.array_equal(ref[2], fast[2])
            and all(np.array_equal(x, y) for x, y in zip(ref[3], fast[3]))
            and all(np.array_equal(x, y) for x, y in zip(ref[4], fast[4]))
            and runs[0]["saturations"] == runs[1]["saturations"])
    for r in runs:
        print(f"{r['learner']:<15} {a.task} agents={a.agents} seed={a.seed}: {r['stages']} stage(s), "
              f"{r['env_steps']} env steps, {r['cpu_s']:.2f} s CPU, {r['cpu_ms_per_step']:.3f} "
              f"ms CPU/step, wall {r['wall_s']:.1f} s")
    speedup = runs[0]["cpu_ms_per_step"] / runs[1]["cpu_ms_per_step"]
    print(f"speed-up (CPU per step): {speedup:.1f}x; same run bit for bit: {same}")
    if a.json:
        atomic_write(a.json, json.dumps({"command": " ".join(["python"] + sys.argv),
                                         "runs": runs, "speedup": speedup, "same": same},
                                        indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
