"""How long the ADHDP paper's Fig. 5 takes to simulate: measured on a slice, extrapolated.

    python machines/adhdp/bench/fig5_estimate.py [--seeds 1-10] [--trials 5] [--widths 8,18]
                                        [--fig-trials 20,100] [--no-python-loop]
                                        [--json FILE]

Fig. 5 (the ADHDP paper) is three plants (cart-pole, beam balancing, triple-link pendulum) x eight
fractional bit widths Q_f x 50 runs, a run being several trials of at most 1000 steps. The
slice: for each plant and each of ``--widths`` (``q6.<Q_f>`` machines inheriting ``adhdp``),
a batch of ``--seeds`` runs of ``--trials`` trials with ``stop_on_success`` off (``rlaccel run
--seeds``), plus one single run on the Python loop (``--reference-kernels``, what the
simulator did before its compiled loop; ``--no-python-loop`` leaves it out: at about a
hundred times a batch member's cost per step it takes longer than the whole batch). It
reports seconds per simulated plant step (wall and CPU) and extrapolates to the whole figure
for each stated number of trials per run, ``--fig-trials`` (default 20, what
``machines/adhdp/programs/fig5.toml`` runs, and 100, the manifests' ``trials``), at the slice's mean
steps per trial, and to the upper bound of 1000 steps in every trial. Not a test: the
figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rlaccel.programs.runner import run, run_batch

PLANTS = {"cart-pole": "machines/adhdp/programs/cartpole.toml",
          "beam": "machines/adhdp/programs/beam.toml",
          "triple-link": "machines/adhdp/programs/triple_link.toml"}


def _arch(tmp: Path, qf: int) -> str:
    p = tmp / f"adhdp-q6.{qf}.toml"
    p.write_text(f'name = "adhdp-q6.{qf}"\ninherit = "adhdp"\n[machine]\ndtype = "q6.{qf}"\n')
    return str(p)


def main(argv=None) -> int:
    from rlaccel.cli import _seeds
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="1-10")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--widths", default="8,18")
    p.add_argument("--fig-trials", default="20,100",
                   help="trials per run to extrapolate to (comma-separated)")
    p.add_argument("--no-python-loop", action="store_true",
                   help="leave out the single run on the Python loop")
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    seeds, widths = _seeds(a.seeds), [int(w) for w in a.widths.split(",")]
    fig_trials = [int(t) for t in a.fig_trials.split(",")]
    python_loop = not a.no_python_loop
    import os
    load = [os.getloadavg()[0]]
    over = ["stop_on_success=false"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for plant, manifest in PLANTS.items():
            for qf in widths:
                arch = _arch(Path(tmp), qf)
                run_batch(manifest, over + ["max_steps=3"], seeds=seeds[:2], arch=arch,
                          trials=1)                                         # untimed
                w, c = time.perf_counter(), time.process_time()
                b = run_batch(manifest, over, seeds=seeds, arch=arch, trials=a.trials)
                w, c = time.perf_counter() - w, time.process_time() - c
                steps = sum(sum(m["learning"]["steps_per_trial"]) for m in b["members"])
                share = b["timing"]["sim"]["run_s"] / w            # the rest: assembly and loading
                rows.append({"plant": plant, "qf": qf, "runs": len(seeds), "trials": a.trials,
                             "steps": steps, "wall_s": w, "cpu_s": c,
                             "setup_s_per_run": (w - b["timing"]["sim"]["run_s"]) / len(seeds),
                             "cpu_setup_s_per_run": c * (1 - share) / len(seeds),
                             "s_per_step": b["timing"]["sim"]["run_s"] / steps,
                             "cpu_s_per_step": c * share / steps,
                             "steps_per_trial": steps / (len(seeds) * a.trials)})
                x = rows[-1]
                line = (f"{plant:12} q6.{qf:<3} {steps:8d} steps  batch {w:7.2f} s wall "
                        f"{c:7.2f} s CPU: {x['s_per_step'] * 1e6:6.1f} us/step "
                        f"({x['cpu_s_per_step'] * 1e6:6.1f} CPU) + "
                        f"{x['setup_s_per_run']:.3f} s/run")
                if python_loop:
                    rw = time.perf_counter()
                    r = run(manifest, over, seed=seeds[0], arch=arch, trials=a.trials,
                            kernels="reference")
                    rw = time.perf_counter() - rw
                    rsteps = sum(r["learning"]["steps_per_trial"])
                    x.update({"reference_setup_s_per_run": rw - r["timing"]["sim"]["wall_s"],
                              "reference_s_per_step": r["timing"]["sim"]["wall_s"] / rsteps,
                              "reference_steps": rsteps})
                    line += (f"; Python loop {x['reference_s_per_step'] * 1e6:7.1f} us/step + "
                             f"{x['reference_setup_s_per_run']:.2f} s/run")
                print(line, flush=True)
    load.append(os.getloadavg()[0])
    keys = ["s_per_step", "cpu_s_per_step", "steps_per_trial", "setup_s_per_run",
            "cpu_setup_s_per_run"]
    if python_loop:
        keys += ["reference_s_per_step", "reference_setup_s_per_run"]
    per_plant = {}
    for plant in PLANTS:
        mine = [x for x in rows if x["plant"] == plant]
        per_plant[plant] = {k: statistics.mean(x[k] for x in mine) for k in keys}
    runs = 8 * 50                                  # widths x runs, per plant

    def total(trials, key, setup, steps_per_trial=None):
        return sum(runs * (v[setup] + trials * (steps_per_trial or v["steps_per_trial"])
                           * v[key]) for v in per_plant.values())
    estimates = []
    for n in fig_trials:
        est = {"trials_per_run": n,
               "batched_h": total(n, "s_per_step", "setup_s_per_run") / 3600,
               "batched_cpu_h": total(n, "cpu_s_per_step", "cpu_setup_s_per_run") / 3600,
               "batched_upper_h": total(n, "s_per_step", "setup_s_per_run", 1000) / 3600,
               "batched_cpu_upper_h": total(n, "cpu_s_per_step", "cpu_setup_s_per_run",
                                            1000) / 3600}
        line = (f"Fig. 5 (3 plants x 8 widths x 50 runs x {n} trials) at the slice's steps per "
                f"trial: batched {est['batched_h']:.2f} h wall ({est['batched_cpu_h']:.2f} h "
                f"CPU); every trial 1000 steps: {est['batched_upper_h']:.1f} h wall "
                f"({est['batched_cpu_upper_h']:.1f} h CPU)")
        if python_loop:
            est["python_loop_h"] = total(n, "reference_s_per_step",
                                         "reference_setup_s_per_run") / 3600
            est["python_loop_upper_h"] = total(n, "reference_s_per_step",
                                               "reference_setup_s_per_run", 1000) / 3600
            line += (f"; Python loop {est['python_loop_h']:.1f} h, "
                     f"{est['python_loop_upper_h']:.1f} h")
        print(line)
        estimates.append(est)
    print(f"load average {load[0]:.1f} before, {load[1]:.1f} after")
    if a.json:
        from rlaccel.util.files import atomic_write
        atomic_write(a.json, json.dumps({"seeds": seeds, "trials": a.trials, "widths": widths,
                                         "load_average_before_after": load, "rows": rows,
                                         "per_plant": per_plant, "estimates": estimates},
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
