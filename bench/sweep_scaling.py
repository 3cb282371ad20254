"""Sweep scaling: the same sweep on 1 and on N local workers, wall time and speed-up.

    python bench/sweep_scaling.py [--workers 2] [--seeds 12] [--trials 5] [--repeat 1]
                                  [--json FILE]

The sweep: cart-pole on the adhdp architecture, seeds 1..``--seeds``, ``--trials`` trials of
at most 1000 steps each with stop_on_success off, one point per seed (no batching), on the
process pool with 1 worker and with ``--workers`` workers, alternately, ``--repeat`` times,
after an untimed warm-up sweep (the first process on a machine compiles the simulator's
loop into numba's disk cache). Each timing is the whole ``run_sweep`` (pool start, every point, the database), so the
speed-up is what a user sees. It also checks that both give the same metrics, and reports
the load average, because other jobs on the machine take cores away. Not a test: the
figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rlaccel.sweep.driver import run_sweep
from rlaccel.sweep.store import open_existing
from rlaccel.isa.machine import machine

ROOT = Path(__file__).resolve().parents[1]

SPEC = """\
description = "bench/sweep_scaling.py"
manifest = "{manifest}"
[set]
stop_on_success = false
trials = {trials}
[axes]
seed = {{range = [1, {seeds}]}}
[metrics]
balanced = "sum(learning.steps_per_trial)"
cycles = "cycles"
"""


def _metrics(db):
    with open_existing(db) as st:
        return [(r["idx"], r["metrics"]) for r in st.rows()]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seeds", type=int, default=12)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    times = {1: [], a.workers: []}
    cpu = {1: [], a.workers: []}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "scaling.toml"
        spec.write_text(SPEC.format(manifest=machine("adhdp").programs / "cartpole.toml",
                                    trials=a.trials, seeds=a.seeds))
        warm = Path(tmp) / "warm.toml"           # untimed: compiled code into the disk cache
        warm.write_text(SPEC.format(manifest=machine("adhdp").programs / "cartpole.toml",
                                    trials=1, seeds=2))
        run_sweep(warm, Path(tmp) / "warm.sqlite", workers=a.workers, quiet=True)
        reference = None
        for rep in range(a.repeat):
            for n in (1, a.workers):
                db = Path(tmp) / f"w{n}-{rep}.sqlite"
                loads.append(os.getloadavg()[0])
                c0 = os.times()
                s = run_sweep(spec, db, workers=n, quiet=True)
                c1 = os.times()
                child_cpu = (c1.children_user + c1.children_system
                             - c0.children_user - c0.children_system)
                times[n].append(s.wall_s)
                cpu[n].append(child_cpu)
                got = _metrics(db)
                reference = reference or got
                same = got == reference
                print(f"repeat {rep + 1}: {n} worker(s): {s.wall_s:7.2f} s wall, "
                      f"{child_cpu:7.2f} s CPU in the workers, {s.done} points, "
                      f"load average {loads[-1]:.2f}, metrics "
                      f"{'identical' if same else 'DIFFER'}", flush=True)
                if not same:
                    print("error: the metrics differ between runs", file=sys.stderr)
                    return 1
    one, many = statistics.median(times[1]), statistics.median(times[a.workers])
    out = {"workers": a.workers, "seeds": a.seeds, "trials": a.trials, "repeat": a.repeat,
           "wall_s_1": times[1], f"wall_s_{a.workers}": times[a.workers],
           "cpu_s_1": cpu[1], f"cpu_s_{a.workers}": cpu[a.workers],
           "speedup": one / many, "load_average": loads, "cpus": os.cpu_count()}
    print(f"speed-up with {a.workers} workers over 1: {one / many:.2f}x (median wall "
          f"{one:.1f} s -> {many:.1f} s; {os.cpu_count()} CPUs, load average "
          f"{min(loads):.1f}-{max(loads):.1f} before the runs)")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
