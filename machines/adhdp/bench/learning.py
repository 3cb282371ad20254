"""Learning across seeds: the ADHDP programs on the simulator against the float64 golden model.

    python machines/adhdp/bench/learning.py [--manifest machines/adhdp/programs/cartpole.toml] [--seeds 10]
                                   [--arch adhdp] [--trials 100] [--set KEY=VALUE ...]

For each seed: trials to success (a trial balancing max_steps) on the simulator, and on the
float64 reference (machines/adhdp/reference.py) with the same seed. Prints a table, the
success rates and the median trials to success.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.arch import load_arch
from rlaccel.machines.adhdp.host import Trials
from rlaccel.machines.adhdp.reference import AdhdpReference
from rlaccel.machines.adhdp.plugin import defines, learning_config, program_path
from rlaccel.programs.runner import configure, run


def reference(manifest: str, overrides, seed: int, trials: int) -> dict:
    _, m = configure(manifest, overrides, arch="adhdp-f64", seed=seed, trials=trials)
    arch = load_arch("adhdp-f64")
    a = assemble_file(program_path(m), arch=arch, defines=defines(m))
    ref = AdhdpReference.from_binary(a.binary, arch, m["virtual_update"])
    return ref.run(Trials(learning_config(m)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", default="machines/adhdp/programs/cartpole.toml")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--arch", default="adhdp")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--set", action="append", default=[])
    a = p.parse_args(argv)
    rows = []
    print(f"{'seed':>4} {a.arch + ' trials':>14} {'float64 ref':>12} {'wall s':>7}", flush=True)
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        t = time.perf_counter()
        r = run(a.manifest, a.set, arch=a.arch, seed=seed, trials=a.trials)["learning"]
        wall = time.perf_counter() - t
        f = reference(a.manifest, a.set, seed, a.trials)
        rows.append((seed, r["trials_to_success"], f["trials_to_success"]))
        print(f"{seed:4d} {str(r['trials_to_success']):>14} {str(f['trials_to_success']):>12} "
              f"{wall:7.1f}", flush=True)
    for col, name in ((1, a.arch), (2, "float64 reference")):
        ok = [r[col] for r in rows if r[col] is not None]
        med = statistics.median(ok) if ok else None
        print(f"{name}: {len(ok)}/{len(rows)} seeds succeed within {a.trials} trials; "
              f"median trials to success {med}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
