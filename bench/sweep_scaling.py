"""Sweep scaling: the same sweep as one ``rlaccel sweep`` command on 1 and on N local
workers, points per second of wall time and of CPU-limited wall time.

    python bench/sweep_scaling.py [--workers 2] [--points 8] [--trials 10] [--batch 1]
                                  [--repeat 2] [--json FILE]

The sweep: cart-pole on the adhdp architecture, seeds 1..``--points``, ``--trials`` trials of
at most 1000 steps each with stop_on_success off, one point per seed (``--batch B``: up to B
seeds a task), run as the command ``python -m rlaccel sweep SPEC --workers N -q`` with 1
worker and with ``--workers`` workers, alternately, ``--repeat`` times, after an untimed
sweep (the first process on a machine compiles the simulator's loop into numba's disk
cache; the commands keep their bytecode caches in a temporary folder,
``PYTHONPYCACHEPREFIX``, as an installed package has them). Each command is timed whole (start-up, loading, every point, the database), so the
speed-up is what a user sees:

* ``wall``: wall seconds of the command; on a shared machine other processes take cores
  away, so this scatters;
* ``cpu_wall``: the CPU-limited wall time, the command's process's own CPU seconds (its
  start-up, its loading before the workers fork, the database) plus the busiest worker's
  CPU seconds (each point's result says how much CPU its worker had used,
  ``timing.worker_cpu_s``): what the command would take with a core for each of its
  processes, whatever else runs on the machine;
* ``cpu``: the CPU seconds of the command and its workers together (what the workers cost
  the machine beyond one process).

Speed-ups are ``--workers`` against 1, medians over the repeats, for points per wall and
per CPU-limited wall second. The metrics of every command are checked equal. Not a test:
the figures depend on the machine and its load (the load average is recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rlaccel.isa.machine import machine
from rlaccel.sweep.store import open_existing
from rlaccel.tlm.fast.jit import _cache_dir

SPEC = """\
description = "bench/sweep_scaling.py"
manifest = "{manifest}"
[set]
stop_on_success = false
trials = {trials}
[axes]
seed = {{range = [1, {points}]}}
[metrics]
balanced = "sum(learning.steps_per_trial)"
cycles = "cycles"
"""


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sweep(spec: Path, db: Path, workers: int, batch: int, env: dict) -> dict:
    """One ``rlaccel sweep`` command: its wall and CPU seconds, the CPU of each of its
    workers (the largest ``worker_cpu_s`` of the worker's points) and the metrics."""
    cmd = [sys.executable, "-m", "rlaccel", "sweep", str(spec), "--db", str(db),
           "--workers", str(workers), "--batch", str(batch), "-q"]
    load = os.getloadavg()[0]
    c0, w0 = _children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall, cpu = time.perf_counter() - w0, _children_cpu() - c0
    per: dict[str, float] = {}
    with open_existing(db) as st:
        rows = list(st.rows())
    for r in rows:
        t = r["timing"]
        per[t["worker"]] = max(per.get(t["worker"], 0.0), t["worker_cpu_s"])
    own = cpu - sum(per.values())
    return {"workers": workers, "wall_s": wall, "cpu_s": cpu, "command_cpu_s": own,
            "worker_cpu_s": sorted(per.values()), "cpu_wall_s": own + max(per.values()),
            "points": len(rows), "load_average": load,
            "metrics": [(r["idx"], r["metrics"]) for r in rows]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--points", type=int, default=8)
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    manifest = machine("adhdp").programs / "cartpole.toml"
    cache = _cache_dir()
    runs: dict[int, list[dict]] = {1: [], a.workers: []}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")    # as installed: bytecode
        spec = Path(tmp) / "scaling.toml"
        spec.write_text(SPEC.format(manifest=manifest, trials=a.trials, points=a.points))
        warm = Path(tmp) / "warm.toml"           # untimed: compiled code into the disk cache
        warm.write_text(SPEC.format(manifest=manifest, trials=1, points=2))
        sweep(warm, Path(tmp) / "warm.sqlite", a.workers, 1, env)
        reference = None
        for rep in range(a.repeat):
            for n in (1, a.workers):
                r = sweep(spec, Path(tmp) / f"w{n}-{rep}.sqlite", n, a.batch, env)
                reference = reference or r["metrics"]
                same = r.pop("metrics") == reference
                runs[n].append(r)
                print(f"repeat {rep + 1}: {n} worker(s): {r['wall_s']:6.2f} s wall, "
                      f"{r['cpu_wall_s']:6.2f} s CPU-limited wall (command "
                      f"{r['command_cpu_s']:.2f} s + busiest worker "
                      f"{max(r['worker_cpu_s']):.2f} s), {r['cpu_s']:6.2f} s CPU in all, "
                      f"{r['points']} points, load average {r['load_average']:.2f}, metrics "
                      f"{'identical' if same else 'DIFFER'}", flush=True)
                if not same:
                    print("error: the metrics differ between runs", file=sys.stderr)
                    return 1
    med = lambda n, k: statistics.median(r[k] for r in runs[n])  # noqa: E731
    out = {"command": " ".join(["python", "bench/sweep_scaling.py",
                                *(argv if argv is not None else sys.argv[1:])]),
           "workers": a.workers, "points": a.points, "trials": a.trials, "batch": a.batch,
           "repeat": a.repeat, "cpus": os.cpu_count(),
           "speedup_wall": med(1, "wall_s") / med(a.workers, "wall_s"),
           "speedup_cpu_wall": med(1, "cpu_wall_s") / med(a.workers, "cpu_wall_s"),
           "cpu_cost": med(a.workers, "cpu_s") / med(1, "cpu_s"),
           "runs": {str(n): rs for n, rs in runs.items()}}
    loads = [r["load_average"] for rs in runs.values() for r in rs]
    print(f"{a.workers} workers over 1, {a.points} points of {a.trials} trials: "
          f"{out['speedup_cpu_wall']:.2f}x the points per CPU-limited wall second "
          f"(median {med(1, 'cpu_wall_s'):.1f} s -> {med(a.workers, 'cpu_wall_s'):.1f} s), "
          f"{out['speedup_wall']:.2f}x per wall second ({med(1, 'wall_s'):.1f} s -> "
          f"{med(a.workers, 'wall_s'):.1f} s); CPU in all {out['cpu_cost']:.2f}x; "
          f"{os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f}")
    if _cache_dir() != cache:
        out["compiled_sources_changed"] = True
        print("warning: the compiled loop's sources changed during the measurement (numba "
              "compiled it again in some commands): measure again", file=sys.stderr)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
