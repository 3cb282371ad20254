"""How long the ADHDP seed's Fig. 5 takes to simulate: measured on a slice, extrapolated.

    python bench/adhdp_fig5_estimate.py [--seeds 1-10] [--trials 5] [--widths 8,18]
                                        [--json FILE]

Fig. 5 (seed 001) is three plants (cart-pole, beam balancing, triple-link pendulum) x eight
fractional bit widths Q_f x 50 runs, a run being several trials of at most 1000 steps. The
slice: for each plant and each of ``--widths`` (``q6.<Q_f>`` machines inheriting ``adhdp``),
a batch of ``--seeds`` runs of ``--trials`` trials with ``stop_on_success`` off (``rlaccel run
--seeds``), plus one single run on the Python loop (``--reference-kernels``, what the
simulator did before its compiled loop). It reports seconds per simulated plant step (wall
and CPU) and extrapolates to the whole figure for a stated number of trials per run:
``--fig-trials`` (default 100, the manifests' ``trials``) at the slice's mean steps per trial,
and the upper bound of 1000 steps in every trial. Not a test: the figures depend on the
machine and its load.
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

PLANTS = {"cart-pole": "programs/adhdp/cartpole.toml",
          "beam": "programs/adhdp/beam.toml",
          "triple-link": "programs/adhdp/triple_link.toml"}


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
    p.add_argument("--fig-trials", type=int, default=100)
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    seeds, widths = _seeds(a.seeds), [int(w) for w in a.widths.split(",")]
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
                rw = time.perf_counter()
                r = run(manifest, over, seed=seeds[0], arch=arch, trials=a.trials,
                        kernels="reference")
                rw = time.perf_counter() - rw
                rsteps = sum(r["learning"]["steps_per_trial"])
                share = b["sim"]["run_s"] / w            # the rest: assembly and loading
                rows.append({"plant": plant, "qf": qf, "runs": len(seeds), "trials": a.trials,
                             "steps": steps, "wall_s": w, "cpu_s": c,
                             "setup_s_per_run": (w - b["sim"]["run_s"]) / len(seeds),
                             "cpu_setup_s_per_run": c * (1 - share) / len(seeds),
                             "s_per_step": b["sim"]["run_s"] / steps,
                             "cpu_s_per_step": c * share / steps,
                             "reference_setup_s_per_run": rw - r["sim"]["wall_s"],
                             "reference_s_per_step": r["sim"]["wall_s"] / rsteps,
                             "reference_steps": rsteps,
                             "steps_per_trial": steps / (len(seeds) * a.trials)})
                x = rows[-1]
                print(f"{plant:12} q6.{qf:<3} {steps:8d} steps  batch {w:7.2f} s wall "
                      f"{c:7.2f} s CPU: {x['s_per_step'] * 1e6:6.1f} us/step + "
                      f"{x['setup_s_per_run']:.2f} s/run; Python loop "
                      f"{x['reference_s_per_step'] * 1e6:7.1f} us/step + "
                      f"{x['reference_setup_s_per_run']:.2f} s/run", flush=True)
    per_plant = {}
    for plant in PLANTS:
        mine = [x for x in rows if x["plant"] == plant]
        per_plant[plant] = {k: statistics.mean(x[k] for x in mine)
                            for k in ("s_per_step", "cpu_s_per_step", "reference_s_per_step",
                                      "steps_per_trial", "setup_s_per_run",
                                      "cpu_setup_s_per_run", "reference_setup_s_per_run")}
    runs = 8 * 50                                  # widths x runs, per plant

    def total(key, setup, steps_per_trial=None):
        return sum(runs * (v[setup] + a.fig_trials * (steps_per_trial or v["steps_per_trial"])
                           * v[key]) for v in per_plant.values())
    est = {"trials_per_run": a.fig_trials,
           "batched_h": total("s_per_step", "setup_s_per_run") / 3600,
           "batched_cpu_h": total("cpu_s_per_step", "cpu_setup_s_per_run") / 3600,
           "python_loop_h": total("reference_s_per_step", "reference_setup_s_per_run") / 3600,
           "batched_upper_h": total("s_per_step", "setup_s_per_run", 1000) / 3600,
           "python_loop_upper_h": total("reference_s_per_step", "reference_setup_s_per_run",
                                        1000) / 3600}
    print(f"Fig. 5 (3 plants x 8 widths x 50 runs x {a.fig_trials} trials) at the slice's "
          f"steps per trial: batched {est['batched_h']:.1f} h wall ({est['batched_cpu_h']:.1f} h "
          f"CPU), Python loop {est['python_loop_h']:.1f} h; every trial 1000 steps: batched "
          f"{est['batched_upper_h']:.1f} h, Python loop {est['python_loop_upper_h']:.1f} h")
    if a.json:
        from rlaccel.util.files import atomic_write
        atomic_write(a.json, json.dumps({"rows": rows, "per_plant": per_plant,
                                         "estimate": est}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
