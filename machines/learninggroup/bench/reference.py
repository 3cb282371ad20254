"""IC3Net + FLGW float reference on predator-prey: learning curves, wall time per step,
final success rates, and Table I's load-balance deviations tracked over training.

    python machines/learninggroup/bench/reference.py [--agents 4 8] [--groups 1 2 4 8]
        [--iterations 2000] [--batch 8] [--seed 1] [--hid 128] [--dim 5] [--vision 0]
        [--max-steps 20] [--last 200] [--json out/learninggroup_reference.json]

For every (A, G): trains ``machines/learninggroup/reference.py`` for ``--iterations`` weight
updates of ``--batch`` episodes each (the paper: 2000 iterations, mini-batch B), prints a
progress line every 10 % and a summary table, and writes the JSON: per run the configuration,
the learning curve (one row per iteration), the success rate over all iterations (the paper's
"total accuracy achieved during the training process", section IV-B) and over the first and
the last ``--last`` iterations, wall seconds per environment step, and, for every grouped layer, the
maximum over training of the largest deviation of a core's workload from total/3 under the
row-based and the threshold-based allocation (``machines/learninggroup/tlm/
load_allocation.py``), in weights (Table I's measure).
"""

from __future__ import annotations

# One BLAS thread: the products are small (A x 128 by 128 x 512), and on this shared 2-core
# machine OpenBLAS's threads spin against other jobs (10x slower measured); it also keeps
# the summation order, hence the bits, independent of the thread count.
import rlaccel  # noqa: E402,F401  (before numpy: one BLAS thread unless set)

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from rlaccel.machines.learninggroup.config import LearningConfig, NetConfig  # noqa: E402
from rlaccel.machines.learninggroup.reference import Ic3netReference  # noqa: E402
from rlaccel.machines.learninggroup.tlm import load_allocation as la  # noqa: E402
from rlaccel.util.files import atomic_write  # noqa: E402


class BalanceTracker:
    """Table I: the worst deviation over training, per grouped layer and scheme."""

    def __init__(self, cores: int = 3):
        self.cores = cores
        self.worst: dict[str, dict[str, float]] = {}
        self.mean: dict[str, dict[str, float]] = {}
        self.n = 0

    def __call__(self, row: dict, ref: Ic3netReference) -> None:
        self.n += 1
        for layer, m in ref.model.masks.items():
            wl = m.sum(axis=1).astype(np.int64)
            w = self.worst.setdefault(layer, {"row": 0.0, "threshold": 0.0})
            s = self.mean.setdefault(layer, {"row": 0.0, "threshold": 0.0})
            for scheme in la.SCHEMES:
                d = la.max_deviation(wl, la.allocate(wl, self.cores, scheme))
                w[scheme] = max(w[scheme], d)
                s[scheme] += d

    def result(self) -> dict:
        return {layer: {"max_row": w["row"], "max_threshold": w["threshold"],
                        "mean_row": self.mean[layer]["row"] / self.n,
                        "mean_threshold": self.mean[layer]["threshold"] / self.n}
                for layer, w in self.worst.items()}


def run_one(A: int, G: int, a) -> dict:
    net = NetConfig(hid=a.hid, groups=G)
    cfg = LearningConfig(env_kwargs={"nagents": A, "dim": a.dim, "vision": a.vision,
                                     "max_steps": a.max_steps},
                         batch_episodes=a.batch, iterations=a.iterations, seed=a.seed)
    ref = Ic3netReference(net, cfg)
    balance = BalanceTracker()
    every = max(1, a.iterations // 10)

    def callback(row, r):
        balance(row, r)
        if row["iteration"] % every == 0:
            print(f"  A={A} G={G} it {row['iteration']:5d}: success {row['success_rate']:.2f} "
                  f"caught {row['caught_rate']:.2f} steps {row['mean_steps']:5.1f} "
                  f"density {row['density']:.3f}", file=sys.stderr, flush=True)

    res = ref.train(callback=callback)
    n = min(a.last, len(res.curve))
    first = res.curve[:n]
    last = res.curve[-n:]
    rate = lambda rows, k: (sum(r[k] * r["episodes"] for r in rows)  # noqa: E731
                            / max(1, sum(r["episodes"] for r in rows)))
    return {"agents": A, "groups": G, "hid": a.hid, "iterations": a.iterations,
            "batch_episodes": a.batch, "seed": a.seed,
            "env": cfg.env_kwargs, "steps": res.steps, "wall_s": res.wall_s,
            "wall_us_per_step": 1e6 * res.wall_s / max(1, res.steps),
            "success_all": rate(res.curve, "success_rate"),
            "caught_all": rate(res.curve, "caught_rate"),
            "success_first": rate(first, "success_rate"),
            "success_last": rate(last, "success_rate"),
            "caught_first": rate(first, "caught_rate"), "caught_last": rate(last, "caught_rate"),
            "steps_first": rate(first, "mean_steps"), "steps_last": rate(last, "mean_steps"),
            "density_last": last[-1]["density"] if last else 1.0,
            "balance": balance.result(), "curve": res.curve}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, nargs="+", default=[4, 8])
    p.add_argument("--groups", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hid", type=int, default=128)
    p.add_argument("--dim", type=int, default=5)
    p.add_argument("--vision", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=20)
    p.add_argument("--last", type=int, default=200, help="iterations the final figures average")
    p.add_argument("--json", default="out/learninggroup_reference.json")
    a = p.parse_args(argv)
    runs = []
    t0 = time.perf_counter()
    for A in a.agents:
        for G in a.groups:
            runs.append(run_one(A, G, a))
            out = Path(a.json)
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(out, json.dumps({"command": " ".join(sys.argv), "runs": runs}, indent=1))
    print(f"{'A':>2} {'G':>2} {'density':>7} {'success all':>11} {'first':>6} {'last':>6} "
          f"{'caught all':>10} {'last':>6} {'steps last':>10} {'us/step':>8} {'wall s':>7}")
    for r in runs:
        print(f"{r['agents']:2d} {r['groups']:2d} {r['density_last']:7.3f} "
              f"{r['success_all']:11.3f} {r['success_first']:6.3f} {r['success_last']:6.3f} "
              f"{r['caught_all']:10.3f} {r['caught_last']:6.3f} {r['steps_last']:10.2f} "
              f"{r['wall_us_per_step']:8.0f} {r['wall_s']:7.0f}")
    print("Table I (max deviation from total/3 over training, weights):")
    for r in runs:
        for layer, b in r["balance"].items():
            print(f"  A={r['agents']} G={r['groups']:2d} {layer:8s} threshold "
                  f"{b['max_threshold']:7.1f} row {b['max_row']:7.1f}")
    print(f"total wall {time.perf_counter() - t0:.0f} s; JSON in {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
