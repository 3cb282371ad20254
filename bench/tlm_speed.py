"""Simulator speed: TLM instructions/s and simulated cycles/s, and wall time against the golden
model.

    python bench/tlm_speed.py [--manifest programs/adhdp/cartpole.toml] [--trials 10]
                              [--repeats 3] [--vu]

Runs the manifest's program for a fixed workload (``--trials`` trials from the manifest's
seed, ``stop_on_success`` off) on the ``adhdp`` (Q6.18) and ``adhdp-f64`` simulators, and the
same trials on the float64 golden model (``programs/adhdp/reference.py``), ``--repeats``
times each in turn, and prints medians. "sim" is the simulator's own loop
(``System.run``); "run" adds assembly, loading and the environment (``programs.adhdp.run.run``);
"ref" is ``AdhdpReference(...).run(Trials(cfg))`` after the same assembly. adhdp-f64 and the
reference do the same arithmetic bit for bit, so their steps must agree; the Q6.18 machine
learns along its own trajectory, so compare it by instructions/s. Not a test: the figures
depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


from assembler.assemble import assemble_file
from isa.arch import load_arch
from programs.adhdp.host import Trials
from programs.adhdp.reference import AdhdpReference
from programs.adhdp.run import _defines, configure, learning_config, program_path, run


def tlm(manifest: str, overrides: list[str], arch: str, trials: int) -> dict:
    t = time.perf_counter()
    r = run(manifest, overrides, arch=arch, trials=trials)
    total = time.perf_counter() - t
    return {"run_s": total, "sim_s": r["sim"]["wall_s"], "instructions": r["instructions"],
            "cycles": r["cycles"], "steps": r["learning"]["steps_per_trial"]}


def reference(manifest: str, overrides: list[str], trials: int) -> dict:
    m = configure(manifest, overrides, arch="adhdp-f64", trials=trials)
    arch = load_arch("adhdp-f64")
    t = time.perf_counter()
    a = assemble_file(program_path(m), arch=arch, defines=_defines(m))
    ref = AdhdpReference.from_binary(a.binary, arch, m["virtual_update"])
    t_model = time.perf_counter()
    learn = ref.run(Trials(learning_config(m)))
    end = time.perf_counter()
    return {"run_s": end - t, "model_s": end - t_model, "steps": learn["steps_per_trial"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", default="programs/adhdp/cartpole.toml")
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--vu", action="store_true", help="the virtual-update program (Fig. 7)")
    a = p.parse_args(argv)
    overrides = ["stop_on_success=false", f"virtual_update={'true' if a.vu else 'false'}"]
    runs: dict[str, list[dict]] = {"adhdp": [], "adhdp-f64": [], "reference": []}
    for i in range(a.repeats):
        runs["adhdp"].append(tlm(a.manifest, overrides, "adhdp", a.trials))
        runs["adhdp-f64"].append(tlm(a.manifest, overrides, "adhdp-f64", a.trials))
        runs["reference"].append(reference(a.manifest, overrides, a.trials))
        print(f"repeat {i + 1}/{a.repeats} done", file=sys.stderr, flush=True)
    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
    rate = lambda rows, k: statistics.median(r[k] / r["sim_s"] for r in rows)  # noqa: E731
    f64, ref = runs["adhdp-f64"], runs["reference"]
    if f64[0]["steps"] != ref[0]["steps"]:
        print("warning: adhdp-f64 and the reference disagree on the steps per trial",
              file=sys.stderr)
    print(f"{a.manifest} ({'Fig. 7' if a.vu else 'Fig. 2'}), {a.trials} trials, "
          f"stop_on_success off; medians of {a.repeats} runs")
    print(f"{'':10} {'steps':>6} {'instr':>9} {'cycles':>11} {'sim s':>7} {'run s':>7} "
          f"{'instr/s':>9} {'cycles/s':>11}")
    for name in ("adhdp", "adhdp-f64"):
        rows = runs[name]
        print(f"{name:10} {sum(rows[0]['steps']):6d} {rows[0]['instructions']:9,d} "
              f"{rows[0]['cycles']:11,d} {med(rows, 'sim_s'):7.3f} {med(rows, 'run_s'):7.3f} "
              f"{rate(rows, 'instructions'):9,.0f} {rate(rows, 'cycles'):11,.0f}")
    print(f"{'reference':10} {sum(ref[0]['steps']):6d} {'':9} {'':11} "
          f"{med(ref, 'model_s'):7.3f} {med(ref, 'run_s'):7.3f}")
    print(f"adhdp-f64 / reference wall time: {med(f64, 'sim_s') / med(ref, 'model_s'):.2f}x "
          f"(sim vs model), {med(f64, 'run_s') / med(ref, 'run_s'):.2f}x (whole run); "
          f"adhdp / adhdp-f64 instructions/s: "
          f"{rate(runs['adhdp'], 'instructions') / rate(f64, 'instructions'):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
